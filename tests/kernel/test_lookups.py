"""kernel.lookups.without: an open set tested against a history by key (ADR 0088). The test is
never an anti-join, which PostgreSQL may run by hashing the whole history; NOT EXISTS is one."""

import pytest
from django.db.models import Exists, OuterRef

from accounts.models import Pound, StaffAssignment
from kernel.lookups import without
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
