"""Stub: filled in by the issue-4 work on this area."""

from django.http import Http404


def s16_new(request, pk=None):
    raise Http404


def s16_case(request, pk=None):
    raise Http404


def s16_settle(request, pk=None):
    raise Http404
