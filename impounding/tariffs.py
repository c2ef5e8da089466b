"""Tariff services and look-ups: which fine and which feeding rate apply to an animal on a day.

Orders are validated here and nowhere else: one area's orders may not overlap in time. A new
order with no end date ends the open-ended order before it on the day before it starts, as a
fresh notification supersedes the last.
"""

from collections import defaultdict
from datetime import timedelta
from decimal import Decimal

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Prefetch, Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import District
from accounts.roles import Permission
from accounts.scoping import has_permission
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import Message

from .actions import Action
from .models import (
    FeedingRate,
    FeedingRateOrder,
    FineCategory,
    FineCategoryRule,
    FineScale,
    Species,
)


class TariffMissing(ValidationError):
    """No order covers the pound on that day, or no row of it matches the animal."""


def _check_overlap(model, *, district, district_wide, pounds, valid_from, valid_to):
    """Refuse an order that overlaps another of the same area; end an open-ended predecessor."""
    same_area = model.objects.filter(district=district)
    if district_wide:
        same_area = same_area.filter(district_wide=True)
    else:
        same_area = same_area.filter(district_wide=False, pounds__in=pounds).distinct()
    # An open-ended order that started before this one is superseded by it, when this one is
    # open-ended too. A closed order must not end it: that would leave no order in force after
    # the closed one ends, so the overlap is refused instead.
    superseded = (
        [
            o
            for o in same_area.filter(valid_to__isnull=True, valid_from__lt=valid_from)
            if district_wide or set(o.pounds.all()) == set(pounds)
        ]
        if valid_to is None
        else []
    )
    clash = same_area.overlapping(valid_from, valid_to).exclude(pk__in=[o.pk for o in superseded])
    if clash.exists():
        first = clash.order_by("valid_from").first()
        raise ValidationError(
            {
                "valid_from": _(
                    "These dates overlap the order %(order)s in force from %(date)s for the "
                    "same area. End that order first, or choose other dates."
                )
                % {"order": first, "date": first.valid_from.strftime("%d-%m-%Y")}
            }
        )
    for old in superseded:
        old.valid_to = valid_from - timedelta(days=1)
        old.save(update_fields=["valid_to"])
    return superseded


def _check_rows_cover_every_species(rows, what):
    fallback = {r["species"] for r in rows if not r.get("sex") and not r.get("age_class")}
    missing = [Species(s).label for s in Species.values if s not in fallback]
    if missing:
        raise ValidationError(
            _(
                "Every species needs a %(what)s (without sex or age), so that no animal is left "
                "without one. Missing: %(species)s."
            )
            % {"what": what, "species": ", ".join(str(m) for m in missing)}
        )
    # Two rows for the same animals would break the rows' unique constraint (a 500), and leave
    # it unclear which applies.
    keys = [(r["species"], r.get("sex", ""), r.get("age_class", "")) for r in rows]
    if len(set(keys)) != len(keys):
        raise ValidationError(_("Two rows name the same species, sex and age. Keep one."))


def _authorise(by, district):
    if not has_permission(by, Permission.MANAGE_TARIFFS, district):
        raise PermissionDenied(_("Only the District Magistrate's office may fix tariffs."))


def _pounds_covered(district, *, district_wide, pounds):
    """The pounds an order names: none for the whole district, else some of the district's."""
    pounds = list(pounds)
    if not district_wide and not pounds:
        raise ValidationError({"pounds": _("Name the pounds, or apply it to the whole district.")})
    if any(p.district_id != district.pk for p in pounds):
        raise ValidationError({"pounds": _("Every pound must be in the district.")})
    return pounds


def _check_categories(categories, rules):
    if not categories:
        raise ValidationError(_("A scale needs at least one category."))
    codes = [c["code"] for c in categories]
    if len(set(codes)) != len(codes):
        raise ValidationError(_("Category numbers must differ."))
    unknown = {r["category"] for r in rules} - set(codes)
    if unknown:
        raise ValidationError(_("A rule names a category the scale does not have."))
    _check_rows_cover_every_species(rules, _("category"))


def _add_categories(scale, categories, rules):
    """Save a scale's categories and the rules that map animals to them; return them by code."""
    by_code = {}
    for c in categories:
        cat = FineCategory(
            scale=scale,
            code=c["code"],
            label=c["label"],
            label_hi=c.get("label_hi", ""),
            amount=Decimal(c["amount"]),
        )
        # Field checks only: uniqueness was checked above, and the database enforces it too.
        cat.full_clean(exclude=["scale"], validate_unique=False, validate_constraints=False)
        by_code[cat.code] = cat
    FineCategory.objects.bulk_create(by_code.values())
    by_code = {c.code: c for c in scale.categories.all()}
    FineCategoryRule.objects.bulk_create(
        FineCategoryRule(
            scale=scale,
            species=r["species"],
            sex=r.get("sex", ""),
            age_class=r.get("age_class", ""),
            category=by_code[r["category"]],
        )
        for r in rules
    )
    return by_code


@transaction.atomic
def create_fine_scale(
    *,
    district,
    by,
    notification_number,
    notification_date,
    valid_from,
    categories,
    rules,
    district_wide=True,
    pounds=(),
    title="",
    valid_to=None,
    idempotency_key=None,
):
    """Record a s.12 notification: its categories (code, label, label_hi, amount) and the rules
    mapping species (with optional sex and age) to a category code. Once for each
    `idempotency_key`: the same form sent again returns the scale it recorded."""
    _authorise(by, district)
    District.objects.select_for_update(of=("self",)).get(
        pk=district.pk
    )  # one tariff change at a time
    owner = {"district_id": district.pk, "created_by_id": by.pk}
    if (done := made_with_key(FineScale, idempotency_key, **owner)) is not None:
        return done
    pounds = _pounds_covered(district, district_wide=district_wide, pounds=pounds)
    _check_categories(categories, rules)
    superseded = _check_overlap(
        FineScale,
        district=district,
        district_wide=district_wide,
        pounds=pounds,
        valid_from=valid_from,
        valid_to=valid_to,
    )
    scale = FineScale(
        district=district,
        district_wide=district_wide,
        valid_from=valid_from,
        valid_to=valid_to,
        notification_number=notification_number,
        notification_date=notification_date,
        title=title,
        created_by=by,
        idempotency_key=idempotency_key,
    )
    scale.full_clean(exclude=["idempotency_key"])
    scale.save()
    scale.pounds.set(pounds)
    by_code = _add_categories(scale, categories, rules)
    record_event(
        action=Action.TARIFF_FINE_SCALE_RECORDED,
        section="s.12",
        summary=Message(
            gettext_noop("Fine scale %(scale)s in force from %(date)s"),
            scale=str(scale),
            date=valid_from,
        ),
        by=by,
        district=district,
        data={
            "scale": scale.pk,
            "categories": {c: str(by_code[c].amount) for c in by_code},
            "superseded": [o.pk for o in superseded],
        },
    )
    return scale


@transaction.atomic
def create_feeding_order(
    *,
    district,
    by,
    order_reference,
    order_date,
    valid_from,
    rates,
    district_wide=True,
    pounds=(),
    valid_to=None,
    idempotency_key=None,
):
    """Record the District Magistrate's order under s.5: per-day rates by kind of animal. Once
    for each `idempotency_key`: the same form sent again returns the order it recorded."""
    _authorise(by, district)
    District.objects.select_for_update(of=("self",)).get(pk=district.pk)
    owner = {"district_id": district.pk, "created_by_id": by.pk}
    if (done := made_with_key(FeedingRateOrder, idempotency_key, **owner)) is not None:
        return done
    pounds = _pounds_covered(district, district_wide=district_wide, pounds=pounds)
    _check_rows_cover_every_species(rates, _("feeding rate"))
    superseded = _check_overlap(
        FeedingRateOrder,
        district=district,
        district_wide=district_wide,
        pounds=pounds,
        valid_from=valid_from,
        valid_to=valid_to,
    )
    order = FeedingRateOrder(
        district=district,
        district_wide=district_wide,
        valid_from=valid_from,
        valid_to=valid_to,
        order_reference=order_reference,
        order_date=order_date,
        created_by=by,
        idempotency_key=idempotency_key,
    )
    order.full_clean(exclude=["idempotency_key"])
    order.save()
    order.pounds.set(pounds)
    new_rates = []
    for r in rates:
        rate = FeedingRate(
            order=order,
            species=r["species"],
            sex=r.get("sex", ""),
            age_class=r.get("age_class", ""),
            label=r["label"],
            label_hi=r.get("label_hi", ""),
            amount=Decimal(r["amount"]),
        )
        rate.full_clean(exclude=["order"], validate_unique=False, validate_constraints=False)
        new_rates.append(rate)
    FeedingRate.objects.bulk_create(new_rates)
    record_event(
        action=Action.TARIFF_FEEDING_ORDER_RECORDED,
        section="s.5",
        summary=Message(
            gettext_noop("Feeding rates %(order)s in force from %(date)s"),
            order=str(order),
            date=valid_from,
        ),
        by=by,
        district=district,
        data={"order": order.pk, "superseded": [o.pk for o in superseded]},
    )
    return order


def best_match(rows, animal):
    candidates = [r for r in rows if r.matches(animal)]
    if not candidates:
        return None
    return max(candidates, key=lambda r: r.specificity())


def _with_categories(scales):
    """The scales, each rule holding its category from its scale's categories, loaded already
    (`prefetch_related("categories", "rules")`), not a second copy of each."""
    scales = list(scales)
    by_id = {c.pk: c for scale in scales for c in scale.categories.all()}
    for scale in scales:
        for rule in scale.rules.all():
            if rule.category_id in by_id:  # else read as it is asked for: never the case
                rule.category = by_id[rule.category_id]
    return scales


def _pounds_named(model, orders):
    """{(model, order id): the ids of the pounds the order names}, from the link table alone:
    no pound is built, nor a related manager asked for each pound and order."""
    field = model._meta.get_field("pounds")
    source = field.m2m_field_name()
    links = field.remote_field.through.objects.filter(**{f"{source}__in": [o.pk for o in orders]})
    named = defaultdict(set)
    for order_id, pound_id in links.values_list(
        f"{source}_id", f"{field.m2m_reverse_field_name()}_id"
    ):
        named[(model, order_id)].add(pound_id)
    return named


class TariffBook:
    """Every fine scale and feeding order that covers one pound, loaded once (five queries),
    answering per animal and per day without going back to the database."""

    def __init__(self, pound, *, scales=None, feeding_orders=None, live=None):
        self.pound = pound
        live = live or Q()  # the orders in force on some day asked for (for_pounds' `since`)
        self.scales = (
            scales
            if scales is not None
            else _with_categories(
                FineScale.objects.covering(pound)
                .filter(live)
                .distinct()
                .prefetch_related("categories", "rules")
                .order_by("valid_from")
            )
        )
        self.feeding_orders = (
            feeding_orders
            if feeding_orders is not None
            else list(
                FeedingRateOrder.objects.covering(pound)
                .filter(live)
                .distinct()
                .prefetch_related("rates")
                .order_by("valid_from")
            )
        )

    @classmethod
    def for_pounds(cls, pounds, *, since=None):
        """{pound id: its book} for several pounds, loaded together in a fixed number of
        queries whatever the number of pounds (a district's board, an auditor's). With `since`,
        the first day the books will be asked about (the earliest arrival of the animals to be
        priced: the fine is the scale's on arrival, and feeding is charged from then), an order
        that had ended before it is not loaded: a State's years of past orders stay unread."""
        live = Q() if since is None else Q(valid_to__isnull=True) | Q(valid_to__gte=since)
        if len(pounds) < 2:  # a keeper's own pound: its book as it always loads
            return {p.pk: cls(p, live=live) for p in pounds}
        ids, districts = [p.pk for p in pounds], {p.district_id for p in pounds}
        area = live & (Q(pounds__in=ids) | Q(district_id__in=districts, district_wide=True))
        scales = _with_categories(
            FineScale.objects.filter(area)
            .distinct()
            .prefetch_related("categories", "rules")
            .order_by("valid_from")
        )
        orders = list(
            FeedingRateOrder.objects.filter(area)
            .distinct()
            .prefetch_related("rates")
            .order_by("valid_from")
        )
        named = _pounds_named(FineScale, scales) | _pounds_named(FeedingRateOrder, orders)

        def covers(order, pound):  # as TariffQuerySet.covering
            if order.district_wide and order.district_id == pound.district_id:
                return True
            return pound.pk in named.get((type(order), order.pk), ())

        return {
            pound.pk: cls(
                pound,
                scales=[o for o in scales if covers(o, pound)],
                feeding_orders=[o for o in orders if covers(o, pound)],
            )
            for pound in pounds
        }

    @staticmethod
    def _in_force(orders, day):
        live = [
            o for o in orders if o.valid_from <= day and (o.valid_to is None or o.valid_to >= day)
        ]
        # The pound's own order beats the district's.
        live.sort(key=lambda o: (not o.district_wide, o.valid_from))
        return live[-1] if live else None

    def scale_on(self, day):
        scale = self._in_force(self.scales, day)
        if scale is None:
            raise TariffMissing(
                _(
                    "No fine scale (s.12) covers %(pound)s on %(date)s. The District Magistrate's "
                    "office must record the notification in force."
                )
                % {"pound": self.pound.label, "date": day.strftime("%d-%m-%Y")}
            )
        return scale

    def fine_category(self, animal, day):
        scale = self.scale_on(day)
        rule = best_match(list(scale.rules.all()), animal)
        if rule is None:
            raise TariffMissing(
                _("The fine scale %(scale)s has no category for this animal.") % {"scale": scale}
            )
        return scale, rule.category

    def feeding_order_on(self, day):
        order = self._in_force(self.feeding_orders, day)
        if order is None:
            raise TariffMissing(
                _(
                    "No feeding rate order (s.5) covers %(pound)s on %(date)s. The District "
                    "Magistrate's office must record the rates in force."
                )
                % {"pound": self.pound.label, "date": day.strftime("%d-%m-%Y")}
            )
        return order

    def feeding_rate(self, animal, day):
        order = self.feeding_order_on(day)
        rate = best_match(list(order.rates.all()), animal)
        if rate is None:
            raise TariffMissing(
                _("The feeding order %(order)s has no rate for this animal.") % {"order": order}
            )
        return order, rate


def in_force_in(district, day, pounds):
    """The fine scales (s.12) and feeding orders (s.5) of `district` in force on `day`, and for
    each of `pounds` the scale and the order that apply there (`TariffBook`'s rule: the pound's
    own order beats the district's), as (pound, scale or None, order or None). Four queries."""
    rules = Prefetch("rules", queryset=FineCategoryRule.objects.select_related("category"))
    scales = FineScale.objects.prefetch_related("pounds", "categories", rules)
    orders = FeedingRateOrder.objects.prefetch_related("pounds", "rates")
    scales, orders = (
        list(qs.filter(district=district).in_force(day).order_by("valid_from", "pk"))
        for qs in (scales, orders)
    )

    def applying(found, pound):  # TariffQuerySet.covering, over the orders loaded
        covering = [
            o
            for o in found
            if (o.district_id == pound.district_id if o.district_wide else pound in o.pounds.all())
        ]
        return TariffBook._in_force(covering, day)

    return scales, orders, [(p, applying(scales, p), applying(orders, p)) for p in pounds]
