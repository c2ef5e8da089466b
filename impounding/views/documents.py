"""Stub: filled in by the issue-3 work on this area."""

from django.http import Http404


def entry_copy_pdf(request, pk=None):
    raise Http404


def statement_pdf(request, pk=None):
    raise Http404


def receipt_pdf(request, pk=None):
    raise Http404


def schedule_pdf(request, pk=None):
    raise Http404
