"""The one dues function: fines (s.12) and feeding charges (s.5), docs/domain.md decisions 2,
3 and 12."""

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.utils import translation

from accounts.models import DistrictPolicy, FeedingRule
from demo import tariffs as demo_tariffs
from impounding import services
from impounding.dues import dues
from impounding.tariffs import TariffMissing, create_feeding_order, create_fine_scale
from tests.impounding.factories import cow, goat, make_entry

IST = ZoneInfo("Asia/Kolkata")
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=IST)

pytestmark = pytest.mark.time_machine(NOW, tick=False)


def ist(month, day, hour=12, minute=0, year=2026):
    return datetime(year, month, day, hour, minute, tzinfo=IST)


def arrive(pound, by, at, animals=None):
    return make_entry(
        pound=pound, by=by, arrived_at=at, seized_at=at - timedelta(hours=2), animals=animals
    )


def statement_for(entry, as_of):
    return dues(entry.animals.order_by("number"), as_of=as_of)


def set_rule(district, rule):
    DistrictPolicy.objects.update_or_create(district=district, defaults={"feeding_rule": rule})


def raise_fine_for_cattle(district, by, valid_from, amount="25000.00"):
    categories = [
        c | {"amount": amount} if c["code"] == "2" else c for c in demo_tariffs.FINE_CATEGORIES
    ]
    return create_fine_scale(
        district=district,
        by=by,
        notification_number="Notif 2026/99",
        notification_date=valid_from,
        valid_from=valid_from,
        categories=categories,
        rules=demo_tariffs.FINE_RULES,
    )


def test_fine_is_one_per_head_from_the_scale_in_force_on_the_arrival_day(
    pound, pound_keeper, dm_clerk, district, tariffs
):
    old_scale, _ = tariffs
    entry = arrive(pound, pound_keeper, ist(11, 10, 10), [cow(), cow(), goat()])
    new_scale = raise_fine_for_cattle(district, dm_clerk, date(2026, 11, 11))

    statement = statement_for(entry, ist(11, 12))

    assert [line.fine for line in statement.lines] == [
        Decimal("20000.00"),
        Decimal("20000.00"),
        Decimal("1400.00"),
    ]
    assert statement.fines == Decimal("41400.00")
    assert {line.scale for line in statement.lines} == {str(old_scale)}
    later = arrive(pound, pound_keeper, ist(11, 11, 9))
    (line,) = statement_for(later, ist(11, 12)).lines
    assert (line.fine, line.scale) == (Decimal("25000.00"), str(new_scale))


@pytest.mark.parametrize(
    ("arrived", "as_of", "days"),
    [
        (ist(11, 10, 0, 30), ist(11, 10, 23, 30), 1),  # 23 hours, one calendar day
        (ist(11, 10, 23, 0), ist(11, 11, 1, 0), 2),  # two hours across midnight: two days
        (ist(11, 10, 10), ist(11, 15, 9), 6),  # arrival and release days both included
        (ist(11, 10, 10), ist(11, 10, 10, 1), 1),  # a minute is part of a day
        # 22:30 IST to 01:30 IST: the same UTC date, but two IST days.
        (datetime(2026, 11, 10, 17, 0, tzinfo=UTC), datetime(2026, 11, 10, 20, 0, tzinfo=UTC), 2),
        # 00:30 IST to 23:30 IST: two UTC dates, but one IST day.
        (datetime(2026, 11, 9, 19, 0, tzinfo=UTC), datetime(2026, 11, 10, 18, 0, tzinfo=UTC), 1),
    ],
)
def test_feeding_is_charged_per_ist_calendar_day_or_part_of_one(
    pound, pound_keeper, tariffs, arrived, as_of, days
):
    entry = arrive(pound, pound_keeper, arrived)

    statement = statement_for(entry, as_of)

    assert statement.feeding_days == days
    assert statement.feeding == Decimal("500.00") * days
    assert statement.total == Decimal("20000.00") + Decimal("500.00") * days
    assert isinstance(statement.total, Decimal)


@pytest.mark.parametrize(
    ("now", "arrived", "as_of", "days"),
    [
        (datetime(2028, 3, 5, tzinfo=IST), ist(2, 28, 10, year=2028), ist(3, 1, 10, year=2028), 3),
        (datetime(2027, 3, 5, tzinfo=IST), ist(2, 28, 10, year=2027), ist(3, 1, 10, year=2027), 2),
        (datetime(2027, 1, 5, tzinfo=IST), ist(12, 31, 22), ist(1, 1, 2, year=2027), 2),
        (datetime(2026, 12, 5, tzinfo=IST), ist(11, 30, 10), ist(12, 1, 10), 2),
    ],
)
def test_feeding_counts_days_across_month_ends_and_leap_days(
    time_machine, pound, pound_keeper, tariffs, now, arrived, as_of, days
):
    time_machine.move_to(now, tick=False)
    entry = arrive(pound, pound_keeper, arrived)

    statement = statement_for(entry, as_of)

    assert statement.feeding_days == days
    (period,) = statement.lines[0].periods
    assert (period.first, period.last) == (arrived.date(), as_of.date())


def test_rate_change_in_mid_stay_charges_each_day_at_the_rate_in_force_that_day(
    pound, pound_keeper, dm_clerk, district, tariffs
):
    _, old_order = tariffs
    entry = arrive(pound, pound_keeper, ist(11, 10, 10))
    new_order = create_feeding_order(
        district=district,
        by=dm_clerk,
        order_reference="DM order 2026/2",
        order_date=date(2026, 11, 1),
        valid_from=date(2026, 11, 13),
        rates=demo_tariffs.feeding_rates("600.00", "350.00"),
    )

    (line,) = statement_for(entry, ist(11, 15, 10)).lines

    assert [(p.first, p.last, p.days, p.rate, p.order) for p in line.periods] == [
        (date(2026, 11, 10), date(2026, 11, 12), 3, Decimal("500.00"), str(old_order)),
        (date(2026, 11, 13), date(2026, 11, 15), 3, Decimal("600.00"), str(new_order)),
    ]
    assert line.feeding == Decimal("3300.00")
    assert line.fine == Decimal("20000.00")


def test_a_day_without_a_feeding_order_is_an_error_not_a_free_day(
    pound, pound_keeper, dm_clerk, district
):
    raise_fine_for_cattle(district, dm_clerk, date(2020, 1, 1), amount="20000.00")
    create_feeding_order(
        district=district,
        by=dm_clerk,
        order_reference="DM order for a fixed period",
        order_date=date(2020, 1, 1),
        valid_from=date(2020, 1, 1),
        valid_to=date(2026, 11, 11),
        rates=demo_tariffs.feeding_rates(),
    )
    entry = arrive(pound, pound_keeper, ist(11, 10, 10))

    with pytest.raises(TariffMissing, match="12-11-2026"):
        statement_for(entry, ist(11, 13))


@pytest.mark.parametrize(
    ("arrived", "as_of", "blocks"),
    [
        (ist(11, 10, 10), ist(11, 11, 9, 59), 1),  # under 24 hours, though two calendar days
        (ist(11, 10, 10), ist(11, 11, 10), 1),  # exactly 24 hours
        (ist(11, 10, 10), ist(11, 11, 10, 1), 2),  # 24 hours and a minute
        (ist(11, 10, 23), ist(11, 11, 1), 1),  # across midnight
        (ist(11, 10, 10), ist(11, 13, 12), 4),
    ],
)
def test_24_hour_block_rule_charges_each_24_hours_or_part(
    pound, pound_keeper, district, tariffs, arrived, as_of, blocks
):
    set_rule(district, FeedingRule.BLOCKS_24H)
    entry = arrive(pound, pound_keeper, arrived)

    statement = statement_for(entry, as_of)

    assert statement.feeding_days == blocks
    assert statement.feeding == Decimal("500.00") * blocks
    assert statement.rule == FeedingRule.BLOCKS_24H
    assert statement.rule_text == FeedingRule.BLOCKS_24H.label


def test_24_hour_block_counts_even_a_part_of_a_second_past_the_24_hours(
    pound, pound_keeper, district, tariffs
):
    set_rule(district, FeedingRule.BLOCKS_24H)
    entry = arrive(pound, pound_keeper, ist(11, 10, 10))

    statement = statement_for(entry, ist(11, 11, 10) + timedelta(microseconds=1))

    assert statement.feeding_days == 2


def test_24_hour_block_left_and_re_entered_counts_once(pound, pound_keeper, district, tariffs):
    set_rule(district, FeedingRule.BLOCKS_24H)
    entry = arrive(pound, pound_keeper, ist(11, 10, 10))
    animal = entry.animals.get()
    services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 10, 11))
    services.record_return(animal=animal, by=pound_keeper, at=ist(11, 10, 12))

    statement = statement_for(entry, ist(11, 10, 13))

    assert statement.feeding_days == 1


def test_24_hour_block_spent_wholly_outside_is_not_charged(pound, pound_keeper, district, tariffs):
    set_rule(district, FeedingRule.BLOCKS_24H)
    entry = arrive(pound, pound_keeper, ist(11, 10, 10))
    animal = entry.animals.get()
    services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 11, 9))
    services.record_return(animal=animal, by=pound_keeper, at=ist(11, 12, 11))

    (line,) = statement_for(entry, ist(11, 12, 12)).lines

    # Blocks from 10:00 on the 10th: the first and the third; the second was spent outside.
    assert [(p.first, p.last) for p in line.periods] == [
        (date(2026, 11, 10), date(2026, 11, 10)),
        (date(2026, 11, 12), date(2026, 11, 12)),
    ]


@pytest.mark.parametrize(
    ("as_of", "days"),
    [(ist(11, 10, 20), 0), (ist(11, 11, 8), 1), (ist(11, 12, 18), 2)],
)
def test_arrival_day_free_rule_leaves_out_the_day_of_arrival(
    pound, pound_keeper, district, tariffs, as_of, days
):
    set_rule(district, FeedingRule.ARRIVAL_DAY_FREE)
    entry = arrive(pound, pound_keeper, ist(11, 10, 10))

    statement = statement_for(entry, as_of)

    assert statement.feeding_days == days
    assert statement.feeding == Decimal("500.00") * days
    assert statement.fines == Decimal("20000.00")  # the fine is never free
    assert statement.rule_text == FeedingRule.ARRIVAL_DAY_FREE.label


def test_escape_pauses_accrual_and_return_resumes_it(pound, pound_keeper, tariffs):
    entry = arrive(pound, pound_keeper, ist(11, 10, 8))
    animal = entry.animals.get()
    services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 11, 10))
    services.record_return(animal=animal, by=pound_keeper, at=ist(11, 13, 9))

    (line,) = statement_for(entry, ist(11, 14, 12)).lines

    assert [(p.first, p.last, p.days) for p in line.periods] == [
        (date(2026, 11, 10), date(2026, 11, 11), 2),
        (date(2026, 11, 13), date(2026, 11, 14), 2),
    ]
    assert line.feeding == Decimal("2000.00")  # the 12th, spent wholly outside, is not charged


def test_while_out_of_the_pound_nothing_accrues(pound, pound_keeper, tariffs):
    entry = arrive(pound, pound_keeper, ist(11, 10, 8))
    animal = entry.animals.get()
    services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 11, 10), rescued=True)

    statement = statement_for(entry, ist(11, 20))

    assert statement.feeding_days == 2


def test_escape_and_return_on_the_same_day_count_that_day_once(pound, pound_keeper, tariffs):
    entry = arrive(pound, pound_keeper, ist(11, 10, 8))
    animal = entry.animals.get()
    services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 11, 10))
    services.record_return(animal=animal, by=pound_keeper, at=ist(11, 11, 15))

    statement = statement_for(entry, ist(11, 12, 9))

    assert statement.feeding_days == 3
    assert statement.feeding == Decimal("1500.00")


def test_death_stops_accrual_at_the_day_of_death(pound, pound_keeper, tariffs):
    entry = arrive(pound, pound_keeper, ist(11, 10, 8))
    services.record_death(
        animal=entry.animals.get(), by=pound_keeper, at=ist(11, 12, 11), cause="Bloat"
    )

    statement = statement_for(entry, ist(11, 20))

    assert statement.feeding_days == 3
    assert statement.feeding == Decimal("1500.00")


def test_calf_born_in_the_pound_has_no_fine_and_no_feeding(pound, pound_keeper, tariffs):
    entry = arrive(pound, pound_keeper, ist(11, 10, 8))
    dam = entry.animals.get()
    calf = services.record_birth(
        dam=dam, by=pound_keeper, at=ist(11, 11, 4), sex="male", colour="Brown"
    )

    statement = statement_for(entry, ist(11, 14))

    dam_line, calf_line = statement.lines
    assert calf_line.animal == calf
    assert (calf_line.fine, calf_line.feeding, calf_line.feeding_days) == (
        Decimal("0.00"),
        Decimal("0.00"),
        0,
    )
    assert "Born in the pound" in calf_line.note
    assert statement.total == dam_line.total == Decimal("20000.00") + Decimal("2500.00")


def test_statement_names_the_scale_the_category_and_the_rule(pound, pound_keeper, tariffs):
    scale, order = tariffs
    entry = arrive(pound, pound_keeper, ist(11, 10, 8), [cow(), goat()])

    statement = statement_for(entry, ist(11, 11))

    cow_line, goat_line = statement.lines
    assert cow_line.scale == str(scale)
    assert (cow_line.category_code, cow_line.category) == (
        "2",
        "Camel, donkey, pig, buffalo, cow, bull, bullock or heifer",
    )
    assert (goat_line.category_code, goat_line.category) == ("1", "Sheep, lamb, goat or kid")
    assert cow_line.periods[0].order == str(order)
    assert statement.rule == FeedingRule.CALENDAR_DAYS
    assert "both included" in str(statement.rule_text)
    with translation.override("hi"):
        hindi = statement_for(entry, ist(11, 11)).lines[0].category
    assert hindi == "ऊँट, गधा, सूअर, भैंस, गाय, सांड, बैल या बछिया"


def test_dues_default_to_now(pound, pound_keeper, tariffs):
    entry = arrive(pound, pound_keeper, ist(11, 23, 8))

    statement = dues(entry.animals.all())

    assert statement.as_of == NOW
    assert statement.feeding_days == 3  # 23, 24 and 25 November


def test_dues_of_no_animals_are_nothing():
    statement = dues([])

    assert statement.total == Decimal("0.00")
    assert statement.lines == []
