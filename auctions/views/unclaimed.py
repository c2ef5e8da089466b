"""Stub: filled in by the issue-4 work on this area."""

from django.contrib.auth.decorators import login_not_required
from django.http import Http404


def reports_due(request, pk=None):
    raise Http404


def report_send(request, pk=None):
    raise Http404


def reports(request, pk=None):
    raise Http404


def report(request, pk=None):
    raise Http404


def notice_post(request, pk=None):
    raise Http404


def proclamation_new(request, pk=None):
    raise Http404


@login_not_required
def board(request, pk=None):
    raise Http404
