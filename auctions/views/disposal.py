"""Stub: filled in by the issue-4 work on this area."""

from django.http import Http404


def disposals(request, pk=None):
    raise Http404


def disposal_new(request, pk=None):
    raise Http404


def disposal_decide(request, pk=None):
    raise Http404
