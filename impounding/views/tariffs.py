"""Stub: filled in by the issue-3 work on this area."""

from django.http import Http404


def tariffs(request, pk=None):
    raise Http404


def fine_scale_new(request, pk=None):
    raise Http404


def fine_scale(request, pk=None):
    raise Http404


def feeding_order_new(request, pk=None):
    raise Http404


def feeding_order(request, pk=None):
    raise Http404
