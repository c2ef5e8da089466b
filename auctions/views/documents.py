"""Stub: filled in by the issue-4 work on this area."""

from django.http import Http404


def report_pdf(request, pk=None):
    raise Http404


def notice_pdf(request, pk=None):
    raise Http404


def sale_certificate_pdf(request, pk=None):
    raise Http404


def s16_account_pdf(request, pk=None):
    raise Http404
