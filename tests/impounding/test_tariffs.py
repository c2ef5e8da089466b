"""Fine scales (s.12) and feeding rate orders (s.5): who may fix them, overlap, and look-ups."""

from datetime import date
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from accounts.roles import Role
from demo import tariffs as demo_tariffs
from impounding.models import (
    AgeClass,
    Animal,
    FeedingRateOrder,
    FineCategory,
    FineScale,
    Sex,
    Species,
)
from impounding.tariffs import (
    TariffBook,
    TariffMissing,
    create_feeding_order,
    create_fine_scale,
)
from kernel.models import Event
from tests.accounts.factories import PoundFactory, staff
from tests.impounding.factories import set_tariffs


def scale(district, by, valid_from, *, valid_to=None, rules=None, categories=None, **kw):
    return create_fine_scale(
        district=district,
        by=by,
        notification_number=f"Notif {valid_from:%Y-%m-%d}",
        notification_date=valid_from,
        valid_from=valid_from,
        valid_to=valid_to,
        categories=categories or demo_tariffs.FINE_CATEGORIES,
        rules=rules or demo_tariffs.FINE_RULES,
        **kw,
    )


def feeding(district, by, valid_from, *, large="500.00", small="300.00", valid_to=None, **kw):
    return create_feeding_order(
        district=district,
        by=by,
        order_reference=f"DM order {valid_from:%Y-%m-%d}",
        order_date=valid_from,
        valid_from=valid_from,
        valid_to=valid_to,
        rates=demo_tariffs.feeding_rates(large, small),
        **kw,
    )


def beast(species=Species.CATTLE, sex=Sex.FEMALE, age_class=AgeClass.ADULT):
    return Animal(species=species, sex=sex, age_class=age_class)


def test_fine_scale_is_recorded_with_its_categories_and_an_event_on_the_district_chain(
    district, dm_clerk
):
    s = scale(district, dm_clerk, date(2024, 4, 1))

    assert s.valid_to is None
    assert s.categories.count() == len(demo_tariffs.FINE_CATEGORIES)
    assert s.categories.get(code="2").amount == Decimal("20000.00")
    event = Event.objects.get(action="tariff.fine_scale_recorded")
    assert event.chain == f"district:{district.pk}"
    assert event.pound is None
    assert (event.by, event.section, event.district) == (dm_clerk, "s.12", district)
    assert event.data["scale"] == s.pk
    assert event.data["categories"]["2"] == "20000.00"


def test_feeding_order_is_recorded_with_an_event_citing_section_5(district, magistrate):
    order = feeding(district, magistrate, date(2024, 4, 1))

    assert order.rates.filter(species=Species.CATTLE, age_class="").get().amount == Decimal(
        "500.00"
    )
    event = Event.objects.get(action="tariff.feeding_order_recorded")
    assert (event.chain, event.section, event.by) == (f"district:{district.pk}", "s.5", magistrate)


def test_overlapping_orders_of_the_same_area_are_refused_with_a_message(district, dm_clerk):
    first = scale(district, dm_clerk, date(2024, 1, 1), valid_to=date(2024, 12, 31))
    events = Event.objects.count()

    with pytest.raises(ValidationError) as exc:
        scale(district, dm_clerk, date(2024, 6, 1), valid_to=date(2025, 5, 31))

    assert "overlap the order" in str(exc.value.message_dict["valid_from"])
    assert "01-01-2024" in str(exc.value.message_dict["valid_from"])
    assert list(FineScale.objects.all()) == [first]
    assert FineCategory.objects.filter(scale__district=district).count() == 5
    assert Event.objects.count() == events


def test_order_starting_the_same_day_as_an_open_ended_one_is_refused(district, dm_clerk):
    feeding(district, dm_clerk, date(2024, 1, 1))

    with pytest.raises(ValidationError):
        feeding(district, dm_clerk, date(2024, 1, 1), large="600.00")

    assert FeedingRateOrder.objects.count() == 1


def test_open_ended_predecessor_ends_the_day_before_its_successor(district, dm_clerk):
    old = scale(district, dm_clerk, date(2020, 1, 1))

    new = scale(district, dm_clerk, date(2024, 4, 1))

    old.refresh_from_db()
    assert old.valid_to == date(2024, 3, 31)
    assert new.valid_to is None
    event = Event.objects.filter(action="tariff.fine_scale_recorded").order_by("seq").last()
    assert event.data["superseded"] == [old.pk]


def test_closed_order_overlapping_an_open_ended_one_is_refused_rather_than_leave_a_gap(
    district, dm_clerk
):
    # Ending the open order at 31-03-2024 for a temporary one ending 30-06-2024 would leave no
    # rate in force from 01-07-2024; the DM must end the old order first.
    old = feeding(district, dm_clerk, date(2020, 1, 1))

    with pytest.raises(ValidationError):
        feeding(district, dm_clerk, date(2024, 4, 1), valid_to=date(2024, 6, 30))

    old.refresh_from_db()
    assert old.valid_to is None
    assert FeedingRateOrder.objects.count() == 1


def test_earlier_closed_order_before_an_existing_one_is_allowed(district, dm_clerk, pound):
    later = scale(district, dm_clerk, date(2024, 1, 1))

    earlier = scale(district, dm_clerk, date(2020, 1, 1), valid_to=date(2023, 12, 31))

    book = TariffBook(pound)
    assert book.scale_on(date(2022, 1, 1)) == earlier
    assert book.scale_on(date(2024, 6, 1)) == later
    later.refresh_from_db()
    assert later.valid_to is None


def test_pound_specific_order_beats_the_district_wide_one(district, dm_clerk, pound):
    sister = PoundFactory(district=district)
    feeding(district, dm_clerk, date(2020, 1, 1))
    feeding(
        district, dm_clerk, date(2024, 1, 1), large="700.00", district_wide=False, pounds=[pound]
    )
    cow = beast()

    _, here = TariffBook(pound).feeding_rate(cow, date(2024, 5, 1))
    _, there = TariffBook(sister).feeding_rate(cow, date(2024, 5, 1))
    _, before = TariffBook(pound).feeding_rate(cow, date(2023, 12, 31))

    assert here.amount == Decimal("700.00")
    assert there.amount == Decimal("500.00")
    assert before.amount == Decimal("500.00")
    # The books of several pounds at once (an office's board) cover each pound alike.
    books = TariffBook.for_pounds([pound, sister])
    assert books[pound.pk].feeding_rate(cow, date(2024, 5, 1))[1].amount == Decimal("700.00")
    assert books[sister.pk].feeding_rate(cow, date(2024, 5, 1))[1].amount == Decimal("500.00")


def test_district_wide_successor_does_not_end_a_pound_order(district, dm_clerk, pound):
    own = feeding(district, dm_clerk, date(2021, 1, 1), district_wide=False, pounds=[pound])
    feeding(district, dm_clerk, date(2020, 1, 1))

    feeding(district, dm_clerk, date(2024, 1, 1), large="650.00")

    own.refresh_from_db()
    assert own.valid_to is None
    _, rate = TariffBook(pound).feeding_rate(beast(), date(2024, 6, 1))
    assert rate.amount == Decimal("500.00")  # the pound's own order still wins


def test_pound_order_must_name_pounds(district, dm_clerk):
    with pytest.raises(ValidationError) as exc:
        feeding(district, dm_clerk, date(2024, 1, 1), district_wide=False, pounds=[])

    assert "pounds" in exc.value.message_dict
    assert FeedingRateOrder.objects.count() == 0


def test_pound_of_another_district_is_refused(district, dm_clerk, other_pound):
    with pytest.raises(ValidationError) as exc:
        scale(district, dm_clerk, date(2024, 1, 1), district_wide=False, pounds=[other_pound])

    assert "Every pound must be in the district." in exc.value.message_dict["pounds"]
    assert FineScale.objects.count() == 0
    assert Event.objects.count() == 0


def test_every_species_needs_a_fallback_category(district, dm_clerk):
    rules = [r for r in demo_tariffs.FINE_RULES if r["species"] != Species.GOAT]

    with pytest.raises(ValidationError) as exc:
        scale(district, dm_clerk, date(2024, 1, 1), rules=rules)

    assert "Missing: Goat (kid)." in exc.value.messages[0]
    assert FineScale.objects.count() == 0


def test_a_species_covered_only_for_the_young_is_not_covered(district, dm_clerk):
    rates = [
        r
        for r in demo_tariffs.feeding_rates()
        if not (r["species"] == Species.CAMEL and not r.get("age_class"))
    ]

    with pytest.raises(ValidationError, match="Camel"):
        create_feeding_order(
            district=district,
            by=dm_clerk,
            order_reference="DM 1",
            order_date=date(2024, 1, 1),
            valid_from=date(2024, 1, 1),
            rates=rates,
        )

    assert FeedingRateOrder.objects.count() == 0


def test_category_numbers_must_differ_and_rules_must_name_one(district, dm_clerk):
    twice = demo_tariffs.FINE_CATEGORIES + [demo_tariffs.FINE_CATEGORIES[0]]
    unknown = demo_tariffs.FINE_RULES + [{"species": Species.PIG, "sex": "male", "category": "9"}]

    with pytest.raises(ValidationError, match="must differ"):
        scale(district, dm_clerk, date(2024, 1, 1), categories=twice)
    with pytest.raises(ValidationError, match="category the scale does not have"):
        scale(district, dm_clerk, date(2024, 1, 1), rules=unknown)

    assert FineScale.objects.count() == 0


@pytest.mark.parametrize("who", ["dm_clerk", "magistrate"])
def test_the_district_magistrates_office_may_fix_tariffs(request, district, who):
    user = request.getfixturevalue(who)

    scale(district, user, date(2024, 1, 1))
    feeding(district, user, date(2024, 1, 1))

    assert FineScale.objects.get().created_by == user
    assert FeedingRateOrder.objects.get().created_by == user


@pytest.mark.parametrize("who", ["pound_keeper", "police_officer", "auditor", "outsider"])
def test_no_one_else_may_fix_tariffs(request, district, who):
    user = request.getfixturevalue(who)

    with pytest.raises(PermissionDenied):
        scale(district, user, date(2024, 1, 1))
    with pytest.raises(PermissionDenied):
        feeding(district, user, date(2024, 1, 1))

    assert FineScale.objects.count() == FeedingRateOrder.objects.count() == 0
    assert Event.objects.count() == 0


def test_dm_office_of_another_district_may_not_fix_this_districts_tariffs(district, other_district):
    foreign_clerk = staff(Role.DM_CLERK, "foreign_clerk", district=other_district)

    with pytest.raises(PermissionDenied):
        scale(district, foreign_clerk, date(2024, 1, 1))


def test_most_specific_rule_wins(district, dm_clerk, pound):
    categories = demo_tariffs.FINE_CATEGORIES + [
        {"code": "6", "label": "Bull", "label_hi": "सांड", "amount": "25000.00"},
        {"code": "7", "label": "Bull calf", "label_hi": "बछड़ा", "amount": "3500.00"},
    ]
    rules = demo_tariffs.FINE_RULES + [
        {"species": Species.CATTLE, "sex": Sex.MALE, "category": "6"},
        {"species": Species.CATTLE, "sex": Sex.MALE, "age_class": AgeClass.YOUNG, "category": "7"},
    ]
    scale(district, dm_clerk, date(2024, 1, 1), categories=categories, rules=rules)
    book = TariffBook(pound)
    day = date(2024, 6, 1)

    def code(**kw):
        return book.fine_category(beast(**kw), day)[1].code

    assert code() == "2"  # a cow
    assert code(age_class=AgeClass.YOUNG) == "3"  # a calf: cattle + young
    assert code(sex=Sex.MALE) == "6"  # a bull: cattle + male
    assert code(sex=Sex.MALE, age_class=AgeClass.YOUNG) == "7"  # species + sex + age
    assert code(species=Species.GOAT, age_class=AgeClass.YOUNG) == "1"  # a kid


def test_feeding_rate_for_a_calf_is_the_young_rate(pound, tariffs):
    _, rate = TariffBook(pound).feeding_rate(beast(age_class=AgeClass.YOUNG), date(2024, 6, 1))

    assert rate.amount == Decimal("300.00")


def test_tariff_missing_when_no_order_covers_the_day(pound, dm_clerk, district):
    scale(district, dm_clerk, date(2024, 1, 1))
    feeding(district, dm_clerk, date(2024, 1, 1), valid_to=date(2024, 12, 31))
    book = TariffBook(pound)

    with pytest.raises(TariffMissing, match="No fine scale"):
        book.scale_on(date(2023, 12, 31))
    with pytest.raises(TariffMissing, match="No feeding rate order"):
        book.feeding_rate(beast(), date(2025, 1, 1))
    assert book.feeding_rate(beast(), date(2024, 12, 31))[1].amount == Decimal("500.00")


def test_tariff_book_ignores_another_districts_orders(pound, other_district):
    set_tariffs(other_district)

    with pytest.raises(TariffMissing):
        TariffBook(pound).scale_on(date(2024, 1, 1))
