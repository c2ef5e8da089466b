"""The few project-wide template filters (loaded as builtins, so no {% load %} is needed)."""

from django import template

from poundadmin import formatting

register = template.Library()

register.filter("inr", formatting.inr)
register.filter("lakh", formatting.lakh)
register.filter("indian_number", formatting.indian_number)
register.filter("indate", formatting.indate)
register.filter("indatetime", formatting.indatetime)
