"""Read models of the office that both its screens and the API list, and the lookups its
returns, exports and prepared files share (each a 404 outside the user's jurisdiction, a 403
inside it without the right)."""

from datetime import date

from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import Http404
from django.utils import timezone

from accounts.models import District, DistrictPolicy, Pound
from accounts.roles import Permission
from accounts.scoping import lookup, visible_pound_ids
from kernel import clock

from . import exports
from .models import SurplusDeposit

SURPLUS_PAGE = 25  # rows of each list of the surplus register, paged by keyset

# Each list of the register: which deposits, and the order it pages in by keyset.
SURPLUS_LISTS = {
    "awaiting": (Q(status=SurplusDeposit.Status.AWAITING_RECEIPT), ("sale_date", "pk")),
    "held": (Q(status=SurplusDeposit.Status.HELD), ("expires_on", "sale_date", "pk")),
    "closed": (
        Q(status__in=[SurplusDeposit.Status.PAID, SurplusDeposit.Status.TRANSFERRED]),
        ("-sale_date", "-pk"),
    ),
}
RETURN_FORMATS = ("pdf", "csv")


def ledger_pound(user, pk):
    """A pound whose returns and cash book the user may read."""
    return lookup(user, Pound.objects.select_related("district"), pk, Permission.VIEW_LEDGER)


def consolidating_districts(user):
    """The districts whose consolidated return the user may see (exports.py says who)."""
    return District.objects.filter(pk__in=exports.consolidating_district_ids(user))


def consolidating_district(user, pk):
    """One of them: another district is a 404; one of his without the right, a 403."""
    district = lookup(user, District.objects.all(), pk)
    if district.pk not in exports.consolidating_district_ids(user):
        raise PermissionDenied
    return district


def return_month(year, month, fmt, of):
    """A month that has begun on `of`'s clock (a pound or a district, ADR 0080), and a known
    format; anything else is not a page (404)."""
    if fmt not in RETURN_FORMATS or not 1 <= month <= 12 or year < 1900:
        raise Http404
    if date(year, month, 1) > clock.today(of):
        raise Http404
    return year, month


def export_scope(user, params):
    """The pounds (and, for the office, the districts) an export covers, and its period, from
    the fields pound, from and to of `params`; None for the period when the dates are bad."""
    pound_ids = visible_pound_ids(user, Permission.VIEW_LEDGER)
    district_ids = exports.district_wide_ids(user, Permission.VIEW_LEDGER)
    chosen = params.get("pound")
    if chosen:
        if not chosen.isdigit():
            raise Http404
        pound_ids, district_ids = [ledger_pound(user, int(chosen)).pk], []
    try:
        period = [date.fromisoformat(params[k]) if params.get(k) else None for k in ("from", "to")]
    except ValueError:
        period = None
    return pound_ids, district_ids, period


def period_stamp(period):
    """The period in an export's file name; today when it has no bounds."""
    first, last = period
    if first or last:
        return f"{first or ''}_{last or ''}".strip("_")
    return timezone.localdate().isoformat()


def local_fund_names(district_ids):
    """{district id: the name of its local fund}, for the surplus register's rows."""
    policies = DistrictPolicy.objects.filter(district__in=district_ids)
    return dict(policies.values_list("district_id", "local_fund_name"))
