"""Stub: filled in by the issue-3 work on this area."""

from django.http import Http404


def today(request, pk=None):
    raise Http404


def register(request, pk=None):
    raise Http404


def entry_new(request, pk=None):
    raise Http404


def entry(request, pk=None):
    raise Http404


def entry_amend(request, pk=None):
    raise Http404


def animal_amend(request, pk=None):
    raise Http404
