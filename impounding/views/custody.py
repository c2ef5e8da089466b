"""Stub: filled in by the issue-3 work on this area."""

from django.http import Http404


def animal_death(request, pk=None):
    raise Http404


def animal_escape(request, pk=None):
    raise Http404


def animal_return(request, pk=None):
    raise Http404


def animal_birth(request, pk=None):
    raise Http404


def feeding_log(request, pk=None):
    raise Http404
