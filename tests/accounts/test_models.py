from datetime import date

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import translation

from accounts.models import Counter, PoundVillage, StaffAssignment
from accounts.roles import Role
from tests.accounts.factories import (
    PoliceStationFactory,
    PoundFactory,
    PoundVillageFactory,
    UserFactory,
    VillageFactory,
)


def test_label_follows_active_language(district):
    with translation.override("hi"):
        assert district.label == "गृह ज़िला"
    with translation.override("en"):
        assert district.label == "Home District"


def test_pound_police_station_must_be_in_same_district(district, other_district):
    pound = PoundFactory.build(
        district=district, nearest_police_station=PoliceStationFactory(district=other_district)
    )
    with pytest.raises(ValidationError) as exc:
        pound.full_clean()
    assert "nearest_police_station" in exc.value.message_dict


def test_village_cannot_be_served_by_two_pounds_at_once(pound, district):
    village = pound.village_links.get().village
    second = PoundFactory(district=district)
    link = PoundVillage(
        pound=second, village=village, valid_from=date(2024, 1, 1), order_reference="x"
    )
    with pytest.raises(ValidationError):
        link.full_clean()


def test_village_can_move_pounds_by_dated_orders(pound, district):
    link = pound.village_links.get()
    link.valid_to = date(2024, 12, 31)
    link.save()
    second = PoundFactory(district=district)
    moved = PoundVillage(
        pound=second,
        village=link.village,
        valid_from=date(2025, 1, 1),
        order_reference="DM/Villages/9/2024",
    )
    moved.full_clean()
    moved.save()
    assert list(second.villages_served(on=date(2025, 2, 1))) == [link.village]
    assert list(pound.villages_served(on=date(2024, 6, 1))) == [link.village]
    assert list(pound.villages_served(on=date(2025, 2, 1))) == []


def test_pound_serves_only_villages_of_its_district(pound, other_district):
    link = PoundVillageFactory.build(pound=pound, village=VillageFactory(district=other_district))
    with pytest.raises(ValidationError):
        link.full_clean()


def test_assignment_names_at_most_one_jurisdiction_in_database(pound, district):
    with pytest.raises(IntegrityError), transaction.atomic():
        StaffAssignment.objects.create(
            user=UserFactory(),
            role=Role.POUND_KEEPER,
            pound=pound,
            district=district,
            valid_from=date(2025, 1, 1),
        )


def test_assignment_end_before_start_refused_by_database(pound):
    with pytest.raises(IntegrityError), transaction.atomic():
        StaffAssignment.objects.create(
            user=UserFactory(),
            role=Role.POUND_KEEPER,
            pound=pound,
            valid_from=date(2025, 1, 2),
            valid_to=date(2025, 1, 1),
        )


def test_counter_gives_consecutive_numbers():
    assert [Counter.next("k"), Counter.next("k"), Counter.next("other"), Counter.next("k")] == [
        1,
        2,
        1,
        3,
    ]


def test_counter_rolled_back_with_its_transaction_leaves_no_gap():
    Counter.next("receipt")
    with pytest.raises(RuntimeError), transaction.atomic():
        Counter.next("receipt")
        raise RuntimeError
    assert Counter.next("receipt") == 2
