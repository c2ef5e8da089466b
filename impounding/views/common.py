"""Lookups shared by the impounding views: scoped to the user's jurisdiction (404 outside it),
then checked for the action (403 when the record is visible but the action is not allowed)."""

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from accounts.models import Pound
from accounts.roles import Permission
from accounts.scoping import has_permission

from ..models import Animal, Impoundment


def get_entry(request, pk, perm=None):
    entry = get_object_or_404(
        Impoundment.objects.for_user(request.user).select_related("pound__district"), pk=pk
    )
    if perm is not None and not has_permission(request.user, Permission(perm), entry.pound):
        raise PermissionDenied
    return entry


def get_animal(request, pk, perm=None):
    animal = get_object_or_404(
        Animal.objects.for_user(request.user).select_related("impoundment__pound__district"),
        pk=pk,
    )
    if perm is not None and not has_permission(
        request.user, Permission(perm), animal.impoundment.pound
    ):
        raise PermissionDenied
    return animal


def get_pound(request, pk, perm=None):
    pound = get_object_or_404(
        Pound.objects.for_user(request.user).select_related("district"), pk=pk
    )
    if perm is not None and not has_permission(request.user, Permission(perm), pound):
        raise PermissionDenied
    return pound
