"""Stub: filled in by the issue-3 work on this area."""

from django.http import Http404


def release(request, pk=None):
    raise Http404


def deposit(request, pk=None):
    raise Http404


def court_order(request, pk=None):
    raise Http404
