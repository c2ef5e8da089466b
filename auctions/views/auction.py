"""Stub: filled in by the issue-4 work on this area."""

from django.http import Http404


def conditions(request, pk=None):
    raise Http404


def conditions_new(request, pk=None):
    raise Http404


def auctions(request, pk=None):
    raise Http404


def auction_new(request, pk=None):
    raise Http404


def auction(request, pk=None):
    raise Http404


def bidder_new(request, pk=None):
    raise Http404


def auction_close(request, pk=None):
    raise Http404


def bidder_override(request, pk=None):
    raise Http404


def lot_sell(request, pk=None):
    raise Http404


def lot_unsold(request, pk=None):
    raise Http404
