"""The release service on its own, with no screen: the statement it computes (the calves that go
with a chosen dam, the dues), the owner it defaults to the claimant, and its one refusal."""

import uuid
from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from impounding import services
from impounding.models import AnimalState, Release
from tests.impounding.factories import cow, goat, make_entry

IST = ZoneInfo("Asia/Kolkata")
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=IST)

pytestmark = pytest.mark.time_machine(NOW, tick=False)

COW_DUES = Decimal("20000.00") + 2 * Decimal("500.00")  # arrived yesterday: two days


def arrive(pound, by, animals):
    return make_entry(
        pound=pound,
        by=by,
        arrived_at=datetime(2026, 11, 24, 9, tzinfo=IST),
        seized_at=datetime(2026, 11, 24, 6, tzinfo=IST),
        animals=animals,
    )


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return arrive(pound, pound_keeper, [cow(), cow(), goat()])


@pytest.fixture
def calf(entry, pound_keeper):
    dam = entry.animals.get(number=1)
    return services.record_birth(
        dam=dam,
        by=pound_keeper,
        at=datetime(2026, 11, 24, 22, tzinfo=IST),
        sex="female",
        colour="Red",
    )


def release(entry, by, animal_ids, *, amount, service=services.release_on_payment, **kw):
    fields = (
        dict(
            claimant_name="Ram Dulare",
            claimant_address="Samesi",
            claimant_role="agent",
            agent_authority="Letter from the owner",
            payment_mode="cash",
            acknowledgement="register_page",
            register_page="12",
        )
        | kw
    )
    return service(
        entry=entry,
        by=by,
        animal_ids=animal_ids,
        idempotency_key=uuid.uuid4(),
        amount_tendered=amount,
        **fields,
    )


def test_statement_takes_the_calf_with_its_chosen_dam(entry, calf):
    dam, second = entry.animals.filter(number__in=[1, 2]).order_by("number")

    statement = services.release_statement(entry=entry, animal_ids=[second.pk, dam.pk])

    assert statement.animals == [dam, second, calf]  # the chosen, then the calves they take
    assert [line.animal for line in statement.dues.lines] == [dam, second, calf]
    assert statement.dues.total == 2 * COW_DUES  # the calf is free
    assert statement.dues.as_of == NOW


def test_statement_refuses_a_calf_chosen_without_its_dam(entry, calf):
    with pytest.raises(services.ReleaseRefused, match="leaves with its dam") as refused:
        services.release_statement(entry=entry, animal_ids=[calf.pk])

    assert list(refused.value.message_dict) == ["animals"]


def test_statement_refuses_when_no_tariff_covers_a_day(pound, pound_keeper):
    entry = arrive(pound, pound_keeper, [cow()])  # the district has no fine scale

    with pytest.raises(services.ReleaseRefused, match="fine scale") as refused:
        services.release_statement(entry=entry, animal_ids=[entry.animals.get().pk])

    assert not hasattr(refused.value, "error_dict")  # about the entry, not a field


def test_claimable_animals_refused_when_none_is_in_the_pound(entry, pound_keeper):
    ids = [a.pk for a in entry.animals.all()]
    release(
        entry,
        pound_keeper,
        ids,
        amount=services.release_statement(entry=entry, animal_ids=ids).dues.total,
    )

    with pytest.raises(services.ReleaseRefused, match="No animal of this entry is in the pound"):
        services.claimable_animals(entry)


def test_release_on_payment_takes_the_calf_with_its_dam(entry, calf, pound_keeper):
    dam = entry.animals.get(number=1)

    made = release(entry, pound_keeper, [dam.pk], amount=COW_DUES)

    calf.refresh_from_db()
    assert (calf.state, calf.release) == (AnimalState.RELEASED_PAID, made)
    assert set(made.lines.values_list("animal", flat=True)) == {dam.pk, calf.pk}


@pytest.mark.parametrize("service", ["release_on_payment", "release_on_deposit"])
def test_blank_owner_name_is_the_claimants(entry, pound_keeper, service):
    dam = entry.animals.get(number=1)
    extra = {"ground": "The cattle were on my own land"} if service == "release_on_deposit" else {}

    made = release(
        entry,
        pound_keeper,
        [dam.pk],
        amount=COW_DUES,
        service=getattr(services, service),
        owner_name="",
        **extra,
    )

    assert Release.objects.get(pk=made.pk).owner_name == "Ram Dulare"


def test_owner_named_by_the_claimant_is_kept(entry, pound_keeper):
    dam = entry.animals.get(number=1)

    made = release(entry, pound_keeper, [dam.pk], amount=COW_DUES, owner_name="Shyam Lal")

    assert Release.objects.get(pk=made.pk).owner_name == "Shyam Lal"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"animal_ids": []}, "animals"),
        ({"amount": Decimal("1.00")}, "amount"),
        ({"agent_authority": ""}, "agent_authority"),
        ({"service": services.release_on_deposit, "ground": " "}, "ground"),
    ],
)
def test_every_refusal_is_a_release_refused_naming_its_field(entry, pound_keeper, change, field):
    dam = entry.animals.get(number=1)
    kw = {"animal_ids": [dam.pk], "amount": COW_DUES} | change

    with pytest.raises(services.ReleaseRefused) as refused:
        release(entry, pound_keeper, kw.pop("animal_ids"), amount=kw.pop("amount"), **kw)

    assert field in refused.value.message_dict
    assert not Release.objects.exists()
