"""kernel.lookups: an open set tested against a history by key (ADR 0088). `without` is never an
anti-join, which PostgreSQL may run by hashing the whole history (NOT EXISTS is one); `first_key`
is never a hashed subplan."""

import pytest
from django.db.models import Exists, OuterRef

from accounts.models import Pound, StaffAssignment
from kernel.lookups import first_key, without
from tests.plans import explain, nodes

pytestmark = pytest.mark.postgres


def _staffed():
    return StaffAssignment.objects.filter(pound_id=OuterRef("pk"))


def _join_types(qs):
    return {node.get("Join Type") for node in nodes(explain(str(qs.query)))} - {None}


def test_without_keeps_the_rows_the_history_does_not_name(pound, other_pound, pound_keeper):
    assert list(without(Pound.objects.all(), "staffed", _staffed())) == [other_pound]


def test_without_is_a_lookup_by_key_not_an_anti_join(pound, other_pound, pound_keeper):
    assert not {"Anti", "Semi"} & _join_types(without(Pound.objects.all(), "staffed", _staffed()))
    # NOT EXISTS, for the same rows, is an anti-join: the shape this helper exists to avoid.
    assert "Anti" in _join_types(Pound.objects.filter(~Exists(_staffed())))


def _subplans(qs):
    return {node.get("Subplan Name") for node in nodes(explain(str(qs.query)))} - {None}


def test_first_key_names_one_row_of_the_history_or_none(pound, other_pound, pound_keeper):
    keys = dict(Pound.objects.annotate(staff=first_key(_staffed())).values_list("pk", "staff"))
    assert keys == {pound.pk: pound_keeper.assignments.get().pk, other_pound.pk: None}


def test_first_key_is_probed_by_key_never_hashed(pound, other_pound, pound_keeper):
    # EXISTS among the columns may be run as a hashed subplan, reading the whole history once
    # (the today board's s.14 links did, on a test's few hundred rows); a scalar subquery is not.
    subplans = _subplans(Pound.objects.annotate(staff=first_key(_staffed())))
    assert subplans and not any("hashed" in name for name in subplans)
