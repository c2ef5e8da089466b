"""Stub: filled in by the issue-3 work on this area."""

from django.http import Http404


def complaint_new(request, pk=None):
    raise Http404


def complaint_decide(request, pk=None):
    raise Http404


def deposits(request, pk=None):
    raise Http404


def deposit_apply(request, pk=None):
    raise Http404


def deposit_refund(request, pk=None):
    raise Http404
