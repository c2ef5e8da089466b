"""The few project-wide template filters (loaded as builtins, so no {% load %} is needed)."""

from django import template

from accounts.roles import Permission
from accounts.scoping import has_permission
from poundadmin import formatting

register = template.Library()

register.filter("inr", formatting.inr)
register.filter("lakh", formatting.lakh)
register.filter("indian_number", formatting.indian_number)
register.filter("indate", formatting.indate)
register.filter("indatetime", formatting.indatetime)


@register.filter
def can(user, perm):
    """{% if user|can:"record_payment" %} — does the user hold the permission anywhere?"""
    return has_permission(user, Permission(perm))


@register.simple_tag
def can_on(user, perm, obj):
    """{% can_on user "release_animal" pound as allowed %} — the permission over one object."""
    return has_permission(user, Permission(perm), obj)
