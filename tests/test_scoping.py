"""Views and the API scope records through the models' `for_user` querysets
(accounts.scoping.PoundScopedQuerySet, DistrictScopedQuerySet), not by filtering on a pound or a
district by hand: one place decides what "another district's record" is."""

import ast
import re
from collections import Counter
from pathlib import Path

import pytest
from django.apps import apps
from django.core.exceptions import PermissionDenied
from django.http import Http404

from accounts.models import Pound
from accounts.roles import Permission
from accounts.scoping import DistrictScopedQuerySet, PoundScopedQuerySet, lookup

ROOT = Path(__file__).resolve().parents[1]
BY_HAND = re.compile(r"(^|__)(pound|district)(_id)?__in$")
SCOPING = {"visible_pound_ids", "visible_district_ids"}

# The filters still written by hand, module by module, each to become a `for_user` call: none
# is left. A module that filters on a pound or a district by hand fails.
KNOWN: dict[str, int] = {}


def _adapters():
    for pattern in ("*/views.py", "*/views/*.py", "api/*.py"):
        yield from ROOT.glob(pattern)


def _by_hand(keyword):
    if keyword.arg and BY_HAND.search(keyword.arg):
        return True  # pound_id__in=..., impoundment__pound__in=...
    value = keyword.value
    if isinstance(value, ast.Call):  # pk__in=visible_pound_ids(...)
        return (getattr(value.func, "id", None) or getattr(value.func, "attr", None)) in SCOPING
    return False


def filters_by_hand(source):
    """How many keyword filters on a pound or a district the code makes."""
    return sum(
        1
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        for keyword in node.keywords
        if _by_hand(keyword)
    )


def test_views_and_the_api_scope_through_for_user():
    counts = Counter()
    for path in _adapters():
        found = filters_by_hand(path.read_text())
        if found:
            counts[str(path.relative_to(ROOT))] = found
    grown = {m: n for m, n in counts.items() if n > KNOWN.get(m, 0)}
    assert grown == {}, "scope with Model.objects.for_user(user, perm) instead"


def test_the_check_sees_a_filter_by_hand():
    source = (
        "Animal.objects.filter(impoundment__pound_id__in=ids, district__in=ds, pk=1)\n"
        "Pound.objects.filter(pk__in=visible_pound_ids(user))\n"
    )
    assert filters_by_hand(source) == 3


# Every model scoped by jurisdiction, with the lookup that leads to its pound or district.
SCOPED = [
    ("accounts.Pound", "pk"),
    ("accounts.District", "pk"),
    ("accounts.PoliceStation", "district_id"),
    ("ledger.Account", "district_id"),
    ("impounding.Impoundment", "pound_id"),
    ("impounding.Animal", "pound_id"),
    ("impounding.Receipt", "pound_id"),
    ("impounding.Release", "impoundment__pound_id"),
    ("impounding.ReceiptCancellation", "receipt__pound_id"),
    ("impounding.Deposit", "pound_id"),
    ("impounding.CourtOrder", "impoundment__pound_id"),
    ("impounding.CourtOrderCheck", "order__impoundment__pound_id"),
    ("impounding.Complaint", "impoundment__pound_id"),
    ("impounding.FineScale", "district_id"),
    ("auctions.Report", "pound_id"),
    ("auctions.Notice", "pound_id"),
    ("auctions.Proclamation", "notice__pound_id"),
    ("auctions.AuctionConditions", "district_id"),
    ("auctions.Auction", "pound_id"),
    ("auctions.Bidder", "auction__pound_id"),
    ("auctions.Lot", "auction__pound_id"),
    ("auctions.Sale", "lot__auction__pound_id"),
    ("auctions.S16Case", "pound_id"),
    ("auctions.DisposalOrder", "pound_id"),
    ("office.Remittance", "pound_id"),
    ("office.SurplusDeposit", "pound_id"),
    ("office.SurplusClaim", "deposit__pound_id"),
]


@pytest.mark.parametrize(("label", "scope"), SCOPED)
def test_each_scoped_model_has_one_for_user_through_its_pound_or_district(label, scope):
    queryset = apps.get_model(label).objects.all()
    assert isinstance(queryset, PoundScopedQuerySet | DistrictScopedQuerySet)
    assert queryset.scope == scope
    str(queryset.filter(**{f"{scope}__in": [1]}).query)  # the lookup leads somewhere


@pytest.mark.django_db
def test_one_lookup_is_a_404_outside_and_a_403_without_the_permission(
    pound, other_pound, pound_keeper
):
    pounds = Pound.objects.all()
    assert lookup(pound_keeper, pounds, pound.pk, Permission.VIEW_RECORDS) == pound
    with pytest.raises(Http404):
        lookup(pound_keeper, pounds, other_pound.pk)
    with pytest.raises(PermissionDenied):
        lookup(pound_keeper, pounds, pound.pk, Permission.PREPARE_ORDERS)
