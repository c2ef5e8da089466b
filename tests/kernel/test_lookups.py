"""kernel.lookups.without: an open set tested against a history by key (ADR 0088). The test is
never an anti-join, which PostgreSQL may run by hashing the whole history; NOT EXISTS is one."""

import json

import pytest
from django.db import connection
from django.db.models import Exists, OuterRef

from accounts.models import Pound, StaffAssignment
from kernel.lookups import without

pytestmark = pytest.mark.postgres


def _staffed():
    return StaffAssignment.objects.filter(pound_id=OuterRef("pk"))


def _join_types(qs):
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + str(qs.query))
        plan = cursor.fetchone()[0]
    plan = (json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]
    found, nodes = set(), [plan]
    while nodes:
        node = nodes.pop()
        found.add(node.get("Join Type"))
        nodes.extend(node.get("Plans", []))
    return found - {None}


def test_without_keeps_the_rows_the_history_does_not_name(pound, other_pound, pound_keeper):
    assert list(without(Pound.objects.all(), "staffed", _staffed())) == [other_pound]


def test_without_is_a_lookup_by_key_not_an_anti_join(pound, other_pound, pound_keeper):
    assert not {"Anti", "Semi"} & _join_types(without(Pound.objects.all(), "staffed", _staffed()))
    # NOT EXISTS, for the same rows, is an anti-join: the shape this helper exists to avoid.
    assert "Anti" in _join_types(Pound.objects.filter(~Exists(_staffed())))
