"""Lookups shared by the auction, s.16 and disposal screens: scoped to the user's jurisdiction
(another district's record is a 404), then checked for the action (403)."""

from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import DeclaredRelative, StaffAssignment, User
from accounts.roles import ROLE_PERMISSIONS, Permission
from accounts.scoping import has_permission
from impounding.models import AnimalState
from impounding.tariffs import TariffMissing

from .. import services
from ..models import Auction, Bidder, Lot, S16Case


def _check(request, perm, pound):
    if perm is not None and not has_permission(request.user, Permission(perm), pound):
        raise PermissionDenied


def get_auction(request, pk, perm=None):
    auction = get_object_or_404(
        Auction.objects.for_user(request.user).select_related(
            "pound__district", "conditions", "officer", "deputy", "s16_case"
        ),
        pk=pk,
    )
    _check(request, perm, auction.pound)
    return auction


def get_lot(request, pk, perm=None):
    lot = get_object_or_404(
        Lot.objects.for_user(request.user).select_related(
            "auction__pound__district", "auction__conditions", "auction__s16_case"
        ),
        pk=pk,
    )
    _check(request, perm, lot.auction.pound)
    return lot


def get_bidder(request, pk, perm=None):
    bidder = get_object_or_404(
        Bidder.objects.for_user(request.user).select_related(
            "auction__pound__district", "override_by"
        ),
        pk=pk,
    )
    _check(request, perm, bidder.auction.pound)
    return bidder


def get_case(request, pk, perm=None):
    case = get_object_or_404(
        S16Case.objects.for_user(request.user).select_related(
            "pound__district", "impoundment", "recorded_by", "closed_by", "account_document"
        ),
        pk=pk,
    )
    _check(request, perm, case.pound)
    return case


def auction_officers(pound):
    """Who may conduct a sale at this pound: everyone holding RUN_AUCTION over it today (the
    officer of the nearest police station, or one the District Magistrate appointed for it)."""
    roles = [r for r, perms in ROLE_PERMISSIONS.items() if Permission.RUN_AUCTION in perms]
    over_pound = (
        Q(pound=pound)
        | Q(police_station_id=pound.nearest_police_station_id)
        | Q(district_id=pound.district_id)
        | Q(state_id=pound.district.state_id)
        | Q(state=None, district=None, police_station=None, pound=None)
    )
    ids = StaffAssignment.objects.active().filter(over_pound, role__in=roles).values("user_id")
    return User.objects.filter(pk__in=ids).order_by("first_name", "last_name", "username")


WHY = {
    "phone": _("same phone"),
    "id": _("same identity number"),
    "name": _("similar name"),
    "address": _("the pound's address"),
}


def _who(match):
    """Whom a match is on: a member of staff, a relative she declared, or a pound."""
    if match.get("pound"):
        return _("the pound %(pound)s") % {"pound": match["staff"]}
    if match.get("relative"):
        relation = match.get("relation", "")
        labels = dict(DeclaredRelative.Relation.choices)
        return _("a relative of %(staff)s (%(relation)s)") % {
            "staff": match["staff"],
            "relation": labels.get(relation, relation),
        }
    return match["staff"]


def describe_matches(matches):
    """The s.19 matches of a bidder, in words: [{"staff": who, "why": "same phone, ..."}]."""
    return [
        {
            "staff": _who(m),
            "why": ", ".join(str(WHY.get(w, w)) for w in m["why"]),
            "score": m["score"],
        }
        for m in matches
    ]


def running_account(case):
    """s16_position, or the reason it cannot be worked out (a tariff missing)."""
    try:
        position = services.s16_position(case)
    except TariffMissing as exc:
        return None, exc.messages[0]
    position["to_cover"] = max(position["owed"] - position["proceeds"], 0)
    return position, None


def s16_account(case, position=None):
    """The account of items (a)-(f) of s.16, before the settlement (from the running account) or
    after it (from the figures settled)."""
    animals = list(case.animals.select_related("impoundment").order_by("impoundment_id", "number"))
    closed = case.status == S16Case.Status.CLOSED
    if closed:
        fines, feeding, expenses, proceeds = case.fines, case.feeding, case.expenses, case.proceeds
        end = case.closed_at
    else:
        fines, feeding = position["fines"], position["feeding"]
        expenses, proceeds = position["expenses"], position["proceeds"]
        end = position["statement"].as_of  # the dues' moment: the pound's clock (ADR 0080)
    paid_exp, paid_feed, paid_fines, balance, short = services.allocate(
        proceeds, fines=fines, feeding=feeding, expenses=expenses
    )
    arrived = case.impoundment.arrived_at
    seized = [a for a in animals if not a.born_in_pound]
    remaining_state = AnimalState.RETURNED_S16 if closed else AnimalState.IMPOUNDED
    return {
        "a_seized": len(seized),
        "a_born": len(animals) - len(seized),
        "b_from": arrived,
        "b_to": end,
        "b_days": (timezone.localtime(end).date() - timezone.localtime(arrived).date()).days + 1,
        "c_fines": fines,
        "c_feeding": feeding,
        "c_expenses": expenses,
        "c_total": fines + feeding + expenses,
        "d_sold": [a for a in animals if a.state == AnimalState.SOLD],
        "e_proceeds": proceeds,
        "f_expenses": paid_exp,
        "f_feeding": paid_feed,
        "f_fines": paid_fines,
        "balance": balance,
        "shortfall": sum(short.values()),
        "remaining": [a for a in animals if a.state == remaining_state],
        "animals": animals,
        "closed": closed,
    }
