"""The few project-wide template filters (loaded as builtins, so no {% load %} is needed)."""

from django import template
from django.conf import settings

from kernel import confirmations, errors, formatting

register = template.Library()

register.filter("inr", formatting.inr)
register.filter("lakh", formatting.lakh)
register.filter("indian_number", formatting.indian_number)
register.filter("indate", formatting.indate)
register.filter("indatetime", formatting.indatetime)
register.filter("mask_phone", formatting.mask_phone)
register.filter("named_errors", errors.field_messages)


@register.simple_tag(takes_context=True)
def error_summary(context):
    """{% error_summary as page_errors %}: the error summary's lines for the page's forms."""
    return errors.summary(context.flatten().values())


@register.simple_tag(takes_context=True)
def confirmation_panel(context):
    """{% confirmation_panel as panel %}: the panel a view left for this page, shown once."""
    request = context.get("request")
    return confirmations.pop_panel(request) if request is not None else None


@register.simple_tag
def session_idle_seconds():
    """How long a session lasts without a request, for the warning before it ends."""
    return settings.SESSION_COOKIE_AGE
