"""The tariffs in force on a day through the API: the s.12 fine scales and s.5 feeding-rate orders
of a district, and which of them applies at each of its pounds, chosen by the project's own
rule (impounding.tariffs.in_force_in: the pound's own order beats the district's).

Scoped as the tariffs screen (impounding.views.tariffs): whoever sees a district's records
sees its tariffs; the pounds listed are those of the district the user sees."""

import re
from datetime import date

from django.utils import timezone
from django.utils.translation import gettext as _
from ninja import Query, Router, Schema

from accounts.models import District, Pound
from accounts.roles import Permission
from impounding.tariffs import in_force_in
from kernel import clock

from .common import bad, dump, money, one_of, require, with_etag
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


def _animals(rows):
    return sorted(rows, key=lambda r: (r.species, r.sex, r.age_class))


def scale_row(s):
    return dump(
        FineScaleOut,
        s,
        pounds=sorted(p.pk for p in s.pounds.all()),
        categories=[
            dump(FineCategoryOut, c, amount=money(c.amount))
            for c in sorted(s.categories.all(), key=lambda c: c.code)
        ],
        rules=[dump(RuleOut, r, category=r.category.code) for r in _animals(s.rules.all())],
    )


def order_row(o):
    rates = [dump(FeedingRateOut, r, amount=money(r.amount)) for r in _animals(o.rates.all())]
    return dump(FeedingOrderOut, o, pounds=sorted(p.pk for p in o.pounds.all()), rates=rates)


def _on(raw):
    """?on=YYYY-MM-DD (today when none); None when it is not such a date."""
    if not raw:
        return timezone.localdate()
    try:
        return date.fromisoformat(raw) if DAY.fullmatch(raw) else None
    except ValueError:
        return None


def _district(user, raw):
    """?district=: one whose records the user sees (another is a 404); when he sees one district
    only, that one."""
    scoped = District.objects.for_user(user, Permission.VIEW_RECORDS)
    if raw:
        return one_of(scoped, raw, "district", _("Give the district's number."))
    only = list(scoped[:2])
    return (only[0], None) if len(only) == 1 else (None, bad("district", _("Name the district.")))


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
    if not on:
        when = clock.today(subject)  # the district's own day (ADR 0080)
    pounds = Pound.objects.for_user(user, Permission.VIEW_RECORDS).filter(district=subject)
    scales, orders, applies = in_force_in(subject, when, pounds.order_by("name"))
    body = dump(
        TariffsOut,
        None,
        on=when.isoformat(),
        district=subject.pk,
        fine_scales=[scale_row(s) for s in scales],
        feeding_orders=[order_row(o) for o in orders],
        pounds=[
            dump(
                PoundTariffOut,
                p,
                pound=p.pk,
                pound_code=p.code,
                fine_scale=s and s.pk,
                feeding_order=o and o.pk,
            )
            for p, s, o in applies
        ],
    )
    return with_etag(request, body)
