"""Claims during the notice period and before the hammer, and the proclamation (s.14)."""

import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from PIL import Image

from auctions import services
from auctions.clocks import reports_due
from auctions.models import Lot, Proclamation, Sale
from auctions.selectors import board_animals
from impounding import services as impounding
from impounding.models import AnimalState, Release
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import AccountKind, Transaction
from tests.accounts.factories import VillageFactory
from tests.auctions.factories import (
    balances,
    conditions,
    ready_for_sale,
    register,
    report_and_notice,
    schedule,
    unclaimed_entry,
)
from tests.impounding.factories import cow, make_entry, pay
from tests.pdfs import SCAN_PDF

PDF = SCAN_PDF


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


def under_notice(pound):
    return list(board_animals(pound=pound))


# --- An owner who turns up during the notice period -----------------------------------------


def test_owner_in_the_notice_period_pays_fine_and_feeding_to_date(
    pound, district, pound_keeper, police_officer, tariffs
):
    conditions(district)
    # Arrived 12 days ago, reported on D+9, notice posted on D+10: still in the claim week.
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    _report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=3, posted_days_ago=2
    )
    animal = entry.animals.get()
    assert under_notice(pound) == [animal]
    assert notice.last_day_to_claim >= timezone.localdate()

    release = pay(entry, pound_keeper)

    # The fine (₹20,000 for a cow) and feeding for the 13 days from arrival to today at ₹500,
    # the notice period included: nothing for the notice or the drum.
    assert (release.fines, release.feeding, release.amount) == (
        Decimal("20000.00"),
        Decimal("6500.00"),
        Decimal("26500.00"),
    )
    assert release.lines.get().feeding_days == 13
    animal.refresh_from_db()
    assert (animal.state, animal.release) == (AnimalState.RELEASED_PAID, release)
    assert Event.objects.filter(action="release.paid", impoundment=entry).count() == 1
    assert under_notice(pound) == []
    assert reports_due([pound.pk]) == []
    assert balances(district, pound)[AccountKind.FEEDING_PK] == Decimal("-6500.00")
    with pytest.raises(ValidationError, match="no longer in the pound"):
        schedule(pound, police_officer, [[animal]], when=timezone.now() + timedelta(days=9))


def test_owner_pays_for_one_animal_and_the_other_stays_under_notice(
    pound, district, pound_keeper, police_officer, tariffs
):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12, animals=[cow(), cow()])
    report_and_notice(entry, pound_keeper, police_officer, sent_days_ago=3, posted_days_ago=2)
    first, second = entry.animals.order_by("number")

    pay(entry, pound_keeper, [first])

    assert under_notice(pound) == [second]


# --- A claim before the hammer ----------------------------------------------------------------


def test_claim_before_the_hammer_withdraws_the_open_lot(
    pound, district, pound_keeper, police_officer, tariffs
):
    conditions(district)
    entry, _ = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    other, _ = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    auction = schedule(pound, police_officer, [entry.animals.all(), other.animals.all()])
    claimed_lot, other_lot = auction.lots.order_by("sequence")
    bidder = register(auction, police_officer)

    release = pay(entry, pound_keeper)

    claimed_lot.refresh_from_db()
    other_lot.refresh_from_db()
    assert claimed_lot.status == Lot.Status.WITHDRAWN
    assert other_lot.status == Lot.Status.OPEN
    event = Event.objects.get(action="auction.withdrawn")
    assert (event.section, event.data["lot"]) == ("s.14", claimed_lot.pk)
    # Dues to the day of the claim: 21 days of feeding.
    assert release.amount == Decimal("20000.00") + 21 * Decimal("500.00")
    sales, txns = Sale.objects.count(), Transaction.objects.count()
    with pytest.raises(ValidationError, match="not open"):
        services.sell_lot(
            lot=claimed_lot, buyer=bidder, price=Decimal("30000.00"), by=police_officer
        )
    with pytest.raises(ValidationError, match="not open for bids"):
        services.record_bid(
            lot=claimed_lot, bidder=bidder, amount=Decimal("100.00"), by=police_officer
        )
    assert (Sale.objects.count(), Transaction.objects.count()) == (sales, txns)
    services.sell_lot(lot=other_lot, buyer=bidder, price=Decimal("30000.00"), by=police_officer)
    services.close_auction(auction=auction, by=police_officer)


def test_release_by_court_order_before_the_hammer_withdraws_the_lot(
    pound, district, pound_keeper, police_officer, dm_clerk, tariffs
):
    conditions(district)
    entry, _ = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    auction = schedule(pound, police_officer, [entry.animals.all()])

    order = impounding.record_court_order(
        entry=entry,
        animal_ids=[entry.animals.get().pk],
        by=pound_keeper,
        kind="civil",
        court="Civil Judge (Junior Division)",
        case_number="OS 12/2026",
        order_date=timezone.localdate(),
        scan=SimpleUploadedFile("order.pdf", PDF),
    )
    assert auction.lots.get().status != Lot.Status.WITHDRAWN  # not until the order is checked
    impounding.check_court_order(
        order=order, by=dm_clerk, outcome="confirmed", how="court_website", reference="CNR 1"
    )

    assert auction.lots.get().status == Lot.Status.WITHDRAWN


def test_claim_of_a_dam_withdraws_her_lot_with_the_calf(
    pound, district, pound_keeper, police_officer, tariffs
):
    conditions(district)
    entry, _ = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    dam = entry.animals.get()
    calf = impounding.record_birth(
        dam=dam, by=pound_keeper, at=timezone.now() - timedelta(days=1), sex="female", colour="Red"
    )
    auction = schedule(pound, police_officer, [[dam, calf]])

    release = pay(entry, pound_keeper, [dam])

    calf.refresh_from_db()
    assert (calf.state, calf.release) == (AnimalState.RELEASED_PAID, release)
    assert auction.lots.get().status == Lot.Status.WITHDRAWN
    assert Release.objects.count() == 1


# --- The proclamation ---------------------------------------------------------------------------


@pytest.fixture
def notice(pound, pound_keeper, police_officer, tariffs):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=14)
    _report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=5, posted_days_ago=4, drums=False
    )
    return notice


def proclaim(notice, by, **kw):
    fields = dict(channel="drum_village", made_on=notice.posted_on, made_by="Chowkidar Ram") | kw
    return services.record_proclamation(notice=notice, by=by, **fields)


def nothing_more(before):
    assert (Proclamation.objects.count(), Event.objects.count()) == before


@pytest.mark.parametrize("channel", ["drum_village", "drum_market"])
def test_drum_proclamation_requires_a_place(notice, police_officer, channel):
    before = (Proclamation.objects.count(), Event.objects.count())

    with pytest.raises(ValidationError) as refused:
        proclaim(notice, police_officer, channel=channel, place="  ")

    assert "place" in refused.value.message_dict
    nothing_more(before)


def test_drum_proclamation_in_the_village_and_at_the_market(notice, police_officer, district):
    village = VillageFactory(district=district, name="Nigohan")

    in_village = proclaim(notice, police_officer, village=village)
    at_market = proclaim(
        notice,
        police_officer,
        channel="drum_market",
        place="Mohanlalganj market",
        made_on=timezone.localdate(),
    )

    assert in_village.is_drum and at_market.is_drum
    assert (in_village.village, at_market.place) == (village, "Mohanlalganj market")
    events = Event.objects.filter(action="s14.proclaimed").order_by("seq")
    assert [(e.section, e.data["channel"]) for e in events] == [
        ("s.14", "drum_village"),
        ("s.14", "drum_market"),
    ]
    assert "Nigohan" in events[0].summary
    assert events[0].impoundment == notice.report.impoundment


def test_further_channels_are_separate_records_beside_the_drum(notice, police_officer):
    proclaim(notice, police_officer, place="Nigohan")

    for channel in ("public_board", "sms", "newspaper"):
        proclaim(notice, police_officer, channel=channel, details=f"by {channel}")

    records = list(notice.proclamations.order_by("pk"))
    assert [p.channel for p in records] == ["drum_village", "public_board", "sms", "newspaper"]
    assert [p.is_drum for p in records] == [True, False, False, False]
    assert Event.objects.filter(action="s14.proclaimed").count() == 4


def test_proclamation_with_a_photo(notice, police_officer):
    buffer = io.BytesIO()
    Image.new("RGB", (2000, 1000), "red").save(buffer, format="JPEG")
    photo = SimpleUploadedFile("drum.jpg", buffer.getvalue(), content_type="image/jpeg")

    proclamation = proclaim(notice, police_officer, place="Nigohan", photo=photo)

    proclamation.refresh_from_db()
    with Image.open(proclamation.photo.path) as stored:
        assert max(stored.size) == 1280


@pytest.mark.parametrize(
    ("offset", "accepted"),
    [(-1, False), (0, True), (2, True), (4, True), (5, False)],
    ids=["before-posting", "posting-day", "between", "today", "tomorrow"],
)
def test_proclamation_date_between_posting_and_today(notice, police_officer, offset, accepted):
    # The notice was posted 4 days ago.
    made_on = notice.posted_on + timedelta(days=offset)
    before = (Proclamation.objects.count(), Event.objects.count())

    if accepted:
        assert proclaim(notice, police_officer, place="Nigohan", made_on=made_on).pk
    else:
        with pytest.raises(ValidationError) as refused:
            proclaim(notice, police_officer, place="Nigohan", made_on=made_on)
        assert "made_on" in refused.value.message_dict
        nothing_more(before)


def test_proclamation_recorded_only_by_the_officer(notice, pound_keeper):
    before = (Proclamation.objects.count(), Event.objects.count())

    with pytest.raises(PermissionDenied):
        proclaim(notice, pound_keeper, place="Nigohan")

    nothing_more(before)


def test_proclamation_requires_who_made_it(notice, police_officer):
    before = (Proclamation.objects.count(), Event.objects.count())

    with pytest.raises(ValidationError) as refused:
        proclaim(notice, police_officer, place="Nigohan", made_by="")

    assert "made_by" in refused.value.message_dict
    nothing_more(before)


def test_animal_not_yet_reported_is_not_under_notice(pound, pound_keeper, tariffs):
    make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=10))

    assert under_notice(pound) == []
