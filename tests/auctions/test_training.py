"""The training district (ADR 0080): a clock a trainer moves forward, which the business
clocks follow, and books, chains and serials of its own."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from accounts.models import Counter
from accounts.roles import Role
from accounts.training import move_clock
from auctions import services
from auctions.clocks import reports_due
from auctions.models import Auction
from impounding.models import AnimalState
from kernel import anchors, clock
from kernel.events import verify_chain
from kernel.models import ChainHead, Event
from ledger.checks import run_checks
from tests.accounts.factories import (
    DistrictFactory,
    PoliceStationFactory,
    PoundFactory,
    PoundVillageFactory,
    staff,
)
from tests.auctions.factories import balances, conditions, proclaim, register
from tests.impounding.factories import cow, make_entry, pay, set_tariffs
from tests.kernel.test_signed_checkpoints import signing_key  # noqa: F401 (a fixture)


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def training(state):
    district = DistrictFactory(state=state, code="train", name="Training District", training=True)
    set_tariffs(district)
    conditions(district)
    return district


@pytest.fixture
def t_pound(training):
    station = PoliceStationFactory(district=training)
    pound = PoundFactory(district=training, nearest_police_station=station)
    PoundVillageFactory(pound=pound)
    return pound


@pytest.fixture
def t_keeper(t_pound):
    return staff(Role.POUND_KEEPER, "t_keeper", pound=t_pound)


@pytest.fixture
def t_officer(t_pound):
    return staff(Role.POLICE_OFFICER, "t_officer", police_station=t_pound.nearest_police_station)


@pytest.fixture
def trainer(training):
    return staff(Role.MAGISTRATE, "t_magistrate", district=training)


def fresh(district):
    district.refresh_from_db()
    return district


def test_the_clock_moves_forward_only_by_a_trainer_and_each_move_is_an_event(
    training, trainer, district, magistrate
):
    moved = move_clock(training, by=trainer, seen=timedelta(0), days=7)
    assert moved.moved and fresh(training).clock_offset == timedelta(days=7)
    assert clock.today(training) == timezone.localdate() + timedelta(days=7)
    event = Event.objects.get(action="training.clock_moved")
    assert event.by_id == trainer.pk and event.district_id == training.pk
    assert event.data["by_seconds"] == 7 * 86400 and event.data["from_seconds"] == 0
    # The same form sent again finds the clock already moved, and moves nothing.
    again = move_clock(training, by=trainer, seen=timedelta(0), days=7)
    assert not again.moved and fresh(training).clock_offset == timedelta(days=7)
    # Never backwards: event order would break.
    with pytest.raises(ValidationError, match="only moves forward"):
        move_clock(training, by=trainer, seen=timedelta(days=7), to=timezone.now())
    # Not a real district's clock, nor by anyone but its trainer.
    with pytest.raises(PermissionDenied):
        move_clock(district, by=magistrate, seen=timedelta(0), days=1)
    with pytest.raises(PermissionDenied):
        move_clock(training, by=magistrate, seen=timedelta(days=7), days=1)
    assert clock.now(district) - timezone.now() < timedelta(seconds=5)
    assert Event.objects.filter(action="training.clock_moved").count() == 1


def test_seven_days_on_the_training_clock_make_the_s14_report_due(
    training, t_pound, t_keeper, trainer, pound, pound_keeper, tariffs
):
    make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=2))
    entry = make_entry(
        pound=t_pound, by=t_keeper, animals=[cow()], arrived_at=timezone.now() - timedelta(days=1)
    )
    with pytest.raises(ValidationError):
        services.send_report(entry=entry, by=t_keeper)  # the real clock: day 1 of 7
    move_clock(training, by=trainer, seen=timedelta(0), days=7)
    # The list of reports due, over a training pound and a real one, reads each pound's day.
    assert [r["entry"] for r in reports_due([t_pound.pk, pound.pk])] == [entry]
    report = services.send_report(entry=entry, by=t_keeper)
    assert timezone.localtime(report.sent_at).date() == timezone.localdate() + timedelta(days=7)


def _real_state(district, pound):
    chains = {f"pound:{pound.pk}", f"district:{district.pk}"}
    return (
        balances(district, pound),
        list(ChainHead.objects.filter(chain__in=chains).values_list("chain", "seq", "hash")),
    )


def _counters():
    return dict(Counter.objects.values_list("key", "value"))


def test_a_whole_s14_cycle_in_training_touches_no_real_books_chain_or_serials(
    district,
    pound,
    pound_keeper,
    tariffs,
    training,
    t_pound,
    t_keeper,
    t_officer,
    trainer,
    signing_key,  # noqa: F811
):
    real = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    pay(real, pound_keeper)
    before, counters = _real_state(district, pound), _counters()
    assert before[0] and before[1]

    entry = make_entry(
        pound=t_pound, by=t_keeper, animals=[cow()], arrived_at=timezone.now() - timedelta(days=1)
    )
    seen = timedelta(0)
    seen = move_clock(training, by=trainer, seen=seen, days=7).clock_offset
    report = services.send_report(entry=entry, by=t_keeper)
    notice = services.post_notice(
        report=report,
        by=t_officer,
        posted_on=clock.today(training),
        posted_at="Notice board, PS office",
        seizure_place="Canal road near the bridge",
    )
    proclaim(notice, t_officer)
    seen = move_clock(training, by=trainer, seen=seen, days=8).clock_offset
    auction = services.schedule_auction(
        pound=t_pound,
        kind=Auction.Kind.UNCLAIMED,
        by=t_officer,
        scheduled_for=clock.now(training) + timedelta(hours=3),
        lots=[[a.pk for a in entry.animals.all()]],
        officer=t_officer,
    )
    bidder = register(auction, t_officer)
    with pytest.raises(ValidationError, match="announced for"):
        services.sell_lot(
            lot=auction.lots.get(), buyer=bidder, price=Decimal("30000.00"), by=t_officer
        )
    move_clock(training, by=trainer, seen=seen, to=auction.scheduled_for)
    services.sell_lot(lot=auction.lots.get(), buyer=bidder, price=Decimal("30000.00"), by=t_officer)
    assert entry.animals.get().state == AnimalState.SOLD

    assert _real_state(district, pound) == before
    assert balances(training, t_pound)  # the sale's money is in the training books
    # Only the training pound's series moved: no real pound's, no series of the whole State.
    moved = {k for k, v in _counters().items() if counters.get(k) != v}
    assert moved and {k.split(":")[1] for k in moved if ":" in k} == {str(t_pound.pk)}
    assert all(":" in k for k in moved)
    checkpoint, problems = anchors.write_checkpoint()
    assert problems == []
    assert f"pound:{pound.pk}" in checkpoint.heads
    assert f"pound:{t_pound.pk}" not in checkpoint.heads
    assert f"district:{training.pk}" not in checkpoint.heads


def test_only_a_district_without_records_is_marked_for_training_and_it_stays_marked(
    district, pound, pound_keeper, tariffs, training
):
    make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    district.training = True
    with pytest.raises(ValidationError, match="no records yet"):
        district.full_clean()
    training.training = False
    with pytest.raises(ValidationError, match="stays one"):
        training.full_clean()
