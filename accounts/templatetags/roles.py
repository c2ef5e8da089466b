"""Permission checks in templates (loaded as builtins, so no {% load %} is needed)."""

from django import template

from ..roles import Permission
from ..scoping import has_permission

register = template.Library()


@register.filter
def can(user, perm):
    """{% if user|can:"record_payment" %} — does the user hold the permission anywhere?"""
    return has_permission(user, Permission(perm))


@register.simple_tag
def can_on(user, perm, obj):
    """{% can_on user "release_animal" pound as allowed %} — the permission over one object."""
    return has_permission(user, Permission(perm), obj)
