"""The tariffs in force on a day through the API: the s.12 fine scales and s.5 feeding-rate orders
of a district, and which of them applies at each of its pounds, chosen by the project's own
rule (impounding.tariffs.TariffBook: the pound's own order beats the district's).

Scoped as the tariffs screen (impounding.views.tariffs): whoever sees a district's records
sees its tariffs; the pounds listed are those of the district the user sees."""

import re
from datetime import date

from django.db.models import Prefetch
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja import Query, Router, Schema

from accounts.models import District, Pound
from accounts.roles import Permission
from accounts.scoping import visible_district_ids, visible_pound_ids
from impounding.models import FeedingRateOrder, FineCategoryRule, FineScale
from impounding.tariffs import TariffBook

from .common import bad, dump, require, with_etag
from .office import money
from .schemas import Problem

router = Router(tags=["tariffs"])
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


class FineCategoryOut(Schema):
    code: str
    label: str
    label_hi: str
    amount: str


class RuleOut(Schema):
    species: str
    sex: str
    age_class: str
    category: str


class FineScaleOut(Schema):
    id: int
    notification_number: str
    notification_date: str
    title: str
    valid_from: str
    valid_to: str | None
    district_wide: bool
    pounds: list[int]
    categories: list[FineCategoryOut]
    rules: list[RuleOut]


class FeedingRateOut(Schema):
    species: str
    sex: str
    age_class: str
    label: str
    label_hi: str
    amount: str


class FeedingOrderOut(Schema):
    id: int
    order_reference: str
    order_date: str
    valid_from: str
    valid_to: str | None
    district_wide: bool
    pounds: list[int]
    rates: list[FeedingRateOut]


class PoundTariffOut(Schema):
    pound: int
    pound_code: str
    fine_scale: int | None
    feeding_order: int | None


class TariffsOut(Schema):
    on: str
    district: int
    fine_scales: list[FineScaleOut]
    feeding_orders: list[FeedingOrderOut]
    pounds: list[PoundTariffOut]


def _scale(s):
    categories = sorted(s.categories.all(), key=lambda c: c.code)
    rules = sorted(s.rules.all(), key=lambda r: (r.species, r.sex, r.age_class))
    return dump(
        FineScaleOut,
        s,
        pounds=sorted(p.pk for p in s.pounds.all()),
        categories=[dump(FineCategoryOut, c, amount=money(c.amount)) for c in categories],
        rules=[dump(RuleOut, r, category=r.category.code) for r in rules],
    )


def _order(o):
    rates = sorted(o.rates.all(), key=lambda r: (r.species, r.sex, r.age_class))
    return dump(
        FeedingOrderOut,
        o,
        pounds=sorted(p.pk for p in o.pounds.all()),
        rates=[dump(FeedingRateOut, r, amount=money(r.amount)) for r in rates],
    )


def _on(raw):
    """?on=YYYY-MM-DD (today when none); None when it is not such a date."""
    if not raw:
        return timezone.localdate()
    try:
        return date.fromisoformat(raw) if DAY.fullmatch(raw) else None
    except ValueError:
        return None


def _district(user, raw):
    """?district=: one the user sees the records of (another is a 404); when he sees one
    district only, that one."""
    ids = visible_district_ids(user, Permission.VIEW_RECORDS)
    if not raw:
        if len(ids) == 1:
            return District.objects.get(pk=ids[0]), None
        return None, bad("district", _("Name the district."))
    if not raw.isdigit() or len(raw) > 18:
        return None, bad("district", _("Give the district's number."))
    if int(raw) not in ids:
        raise Http404
    return District.objects.get(pk=int(raw)), None


def _covers(order, pound):
    """TariffQuerySet.covering, over orders already loaded."""
    if order.district_wide:
        return order.district_id == pound.district_id
    return any(p.pk == pound.pk for p in order.pounds.all())


@router.get(
    "/tariffs/",
    response={200: TariffsOut, 400: Problem, 401: Problem, 404: Problem},
    url_name="tariffs",
    summary="The fine scales (s.12) and feeding rates (s.5) in force on a day",
)
def tariffs(request, on: Query[str | None] = None, district: Query[str | None] = None):
    user = request.auth
    require(user, Permission.VIEW_RECORDS)
    when = _on(on)
    if when is None:
        return bad("on", _("Give the date as YYYY-MM-DD."))
    subject, error = _district(user, district)
    if error:
        return error
    scales = list(
        FineScale.objects.for_user(user, Permission.VIEW_RECORDS)
        .filter(district=subject)
        .in_force(when)
        .prefetch_related(
            "pounds",
            "categories",
            Prefetch("rules", queryset=FineCategoryRule.objects.select_related("category")),
        )
        .order_by("valid_from", "pk")
    )
    orders = list(
        FeedingRateOrder.objects.for_user(user, Permission.VIEW_RECORDS)
        .filter(district=subject)
        .in_force(when)
        .prefetch_related("pounds", "rates")
        .order_by("valid_from", "pk")
    )
    pounds = Pound.objects.filter(
        district=subject, pk__in=visible_pound_ids(user, Permission.VIEW_RECORDS)
    ).order_by("name")
    applies = []
    for pound in pounds:
        scale = TariffBook._in_force([s for s in scales if _covers(s, pound)], when)
        order = TariffBook._in_force([o for o in orders if _covers(o, pound)], when)
        applies.append(
            {
                "pound": pound.pk,
                "pound_code": pound.code,
                "fine_scale": scale.pk if scale else None,
                "feeding_order": order.pk if order else None,
            }
        )
    body = {
        "on": when.isoformat(),
        "district": subject.pk,
        "fine_scales": [_scale(s) for s in scales],
        "feeding_orders": [_order(o) for o in orders],
        "pounds": applies,
    }
    return with_etag(request, body)
