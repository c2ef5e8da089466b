"""Lookups shared by the impounding views: scoped to the user's jurisdiction (404 outside it),
then checked for the action (403 when the record is visible but the action is not allowed), by
the one lookup the screens and the API share (accounts.scoping.lookup)."""

from ..selectors import animal_for, entry_for, pound_for


def get_entry(request, pk, perm=None):
    return entry_for(request.user, pk, perm)


def get_animal(request, pk, perm=None):
    return animal_for(request.user, pk, perm)


def get_pound(request, pk, perm=None):
    return pound_for(request.user, pk, perm)
