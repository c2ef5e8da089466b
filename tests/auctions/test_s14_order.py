"""The order of s.14 before a sale (issue 21): the notice posted with (a), (b) and (c), proclaimed
by beat of drum in the village and at the market-place, seven days run; and the documents say
only what was recorded."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from accounts.models import IssuedDocument
from auctions import documents, services
from auctions.models import Auction, Lot, Notice, Proclamation, Sale
from auctions.services.order import missing_drums
from impounding.models import AnimalState, Impoundment
from kernel.models import Event
from tests import readpdf
from tests.auctions.factories import (
    conditions,
    proclaim,
    refused,
    register,
    report_and_notice,
    schedule,
    unclaimed_entry,
)
from tests.impounding.factories import cow, make_entry

FORMULA = re.compile(r"proclaimed\s+by\s+beat\s+of\s+drum", re.IGNORECASE)


@pytest.fixture
def standing_order(district, tariffs):
    return conditions(district)


@pytest.fixture
def posted(pound, pound_keeper, police_officer, standing_order):
    """A cow whose notice was posted nine days ago (she may be sold today), with no
    proclamation recorded."""
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    _report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9, drums=False
    )
    return entry, notice


def _flat(pdf):
    """The text on one line; a word wrapped at its hyphen ("market-place") read whole."""
    return re.sub(r"-\s+", "-", " ".join(readpdf.text(pdf).split()))


def _d(day):
    return day.strftime("%d-%m-%Y")


def _written():
    return (
        Auction.objects.count(),
        Lot.objects.count(),
        Sale.objects.count(),
        IssuedDocument.objects.count(),
        Event.objects.count(),
    )


# --- Scheduling --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("recorded", "missing"),
    [
        ((), ", neither in the village nor at the market-place"),
        (("drum_village",), " at the market-place"),
        (("drum_market",), " in the village"),
    ],
)
def test_schedule_refused_until_the_drum_is_recorded_in_the_village_and_at_the_market(
    posted, pound, police_officer, recorded, missing
):
    entry, notice = posted
    proclaim(notice, police_officer, channels=recorded)
    # A further channel never stands in for the drum.
    services.record_proclamation(
        notice=notice,
        by=police_officer,
        channel=Proclamation.Channel.SMS,
        made_on=notice.posted_on,
        made_by="Police station",
        details="To the village pradhan",
    )
    before = _written()

    with pytest.raises(ValidationError) as refusal:
        schedule(pound, police_officer, [entry.animals.all()])

    (message,) = refusal.value.messages
    assert f"Notice {notice.number}" in message
    assert f"has not been proclaimed by beat of drum{missing}:" in message
    assert "(s.14)" in message
    assert not hasattr(refusal.value, "error_dict")  # at the top of the page, in its summary
    assert _written() == before


def test_schedule_allowed_once_both_drums_are_recorded(posted, pound, police_officer):
    entry, notice = posted
    proclaim(notice, police_officer)

    auction = schedule(pound, police_officer, [entry.animals.all()])

    assert auction.status == Auction.Status.SCHEDULED


def test_schedule_refused_for_a_drum_beaten_after_the_day_it_is_scheduled(
    posted, pound, police_officer
):
    """A paper scheduling entered late: the drums must have been beaten by then."""
    entry, notice = posted
    proclaim(notice, police_officer, made_on=timezone.localdate())

    with pytest.raises(ValidationError, match="not been proclaimed by beat of drum"):
        schedule(
            pound, police_officer, [entry.animals.all()], at=timezone.now() - timedelta(days=1)
        )


def test_schedule_refused_before_the_seven_days_even_when_proclaimed(
    pound, pound_keeper, police_officer, standing_order
):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    _report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=3, posted_days_ago=3
    )
    assert missing_drums(notice) == []
    before = _written()

    with pytest.raises(ValidationError) as refusal:
        schedule(pound, police_officer, [entry.animals.all()])

    (message,) = refusal.value.message_dict["scheduled_for"]
    assert f"earliest lawful date of sale for {entry.animals.get().reference}" in message
    assert _d(notice.earliest_sale) in message
    assert _written() == before


def test_schedule_refused_without_a_notice(pound, pound_keeper, police_officer, standing_order):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    services.send_report(entry=entry, by=pound_keeper)

    with pytest.raises(ValidationError) as refusal:
        schedule(pound, police_officer, [entry.animals.all()])

    assert "has no notice under s.14" in refusal.value.message_dict["lots"][0]


# --- The hammer --------------------------------------------------------------------------------


def _scheduled(entry, notice, pound, officer):
    auction = schedule(pound, officer, [entry.animals.all()])
    return auction, register(auction, officer)


def _sell(auction, bidder, officer):
    return services.sell_lot(
        lot=auction.lots.get(), buyer=bidder, price=Decimal("30000.00"), by=officer
    )


def test_hammer_refused_when_the_drums_are_not_recorded(posted, pound, police_officer):
    """An auction on the books without its drums (scheduled before the rule, or its records
    put right since): the hammer asks again, and refuses."""
    entry, notice = posted
    proclaim(notice, police_officer)
    auction, bidder = _scheduled(entry, notice, pound, police_officer)
    notice.proclamations.filter(channel="drum_market").delete()
    before = _written()

    with pytest.raises(ValidationError) as refusal:
        _sell(auction, bidder, police_officer)

    (message,) = refusal.value.messages
    assert "has not been proclaimed by beat of drum at the market-place" in message
    assert _written() == before
    assert entry.animals.get().state == AnimalState.IMPOUNDED


def test_hammer_refused_before_the_seven_days_have_run(posted, pound, police_officer):
    entry, notice = posted
    proclaim(notice, police_officer)
    auction, bidder = _scheduled(entry, notice, pound, police_officer)
    # The notice's dates as a record from before the check would have them: the sale too early.
    today = timezone.localdate()
    Notice.objects.filter(pk=notice.pk).update(
        last_day_to_claim=today, earliest_sale=today + timedelta(days=1)
    )
    before = _written()

    with pytest.raises(ValidationError, match="earliest lawful date of sale"):
        _sell(auction, bidder, police_officer)

    assert _written() == before


def test_hammer_falls_when_the_order_was_followed(posted, pound, police_officer):
    entry, notice = posted
    proclaim(notice, police_officer)
    auction, bidder = _scheduled(entry, notice, pound, police_officer)

    sale = _sell(auction, bidder, police_officer)

    assert sale.lot.status == Lot.Status.SOLD


# --- The notice: (a), (b) and (c) --------------------------------------------------------------


def _reported(pound, pound_keeper, **entry_fields):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    Impoundment.objects.filter(pk=entry.pk).update(**entry_fields)
    entry.refresh_from_db()
    return entry, services.send_report(entry=entry, by=pound_keeper)


def _post(report, officer, **kw):
    return services.post_notice(
        report=report,
        by=officer,
        posted_on=timezone.localdate(),
        posted_at="Notice board, PS office",
        **kw,
    )


def test_notice_refused_without_the_place_of_seizure(
    pound, pound_keeper, police_officer, standing_order
):
    _entry, report = _reported(pound, pound_keeper, seizure_village=None, notice_description="")
    events = Event.objects.count()

    with pytest.raises(ValidationError) as refusal:
        _post(report, police_officer)

    (message,) = refusal.value.message_dict["seizure_place"]
    assert "state where the cattle were seized (b)" in message
    assert not Notice.objects.exists() and Event.objects.count() == events


def test_notice_refused_when_the_stated_place_names_the_owner(
    pound, pound_keeper, police_officer, standing_order
):
    _entry, report = _reported(pound, pound_keeper, seizure_village=None, notice_description="")

    with pytest.raises(ValidationError) as refusal:
        _post(report, police_officer, seizure_place="Field of Shyam Lal by the canal")

    assert (
        "without the owner's or the seizer's name" in refusal.value.message_dict["seizure_place"][0]
    )
    assert not Notice.objects.exists()


def test_notice_states_the_place_the_officer_gave_with_who_and_when(
    pound, pound_keeper, police_officer, standing_order
):
    _entry, report = _reported(pound, pound_keeper, seizure_village=None, notice_description="")

    notice = _post(report, police_officer, seizure_place="  Canal road near the old bridge ")

    assert notice.seizure_place == "Canal road near the old bridge"
    assert notice.recorded_by == police_officer and notice.recorded_at is not None
    event = Event.objects.get(action="s14.notice_posted")
    assert event.data["seizure_place_stated"] == "Canal road near the old bridge"
    assert event.by == police_officer
    text = _flat(documents.notice_pdf(notice))
    assert "Canal road near the old bridge" in text
    assert "Ask at the pound" not in text


def test_notice_may_be_posted_on_the_registers_published_description(
    pound, pound_keeper, police_officer, standing_order
):
    _entry, report = _reported(
        pound, pound_keeper, seizure_village=None, notice_description="From the canal fields"
    )

    notice = _post(report, police_officer)

    assert notice.seizure_place == ""
    assert "From the canal fields" in _flat(documents.notice_pdf(notice))


def test_notice_refused_without_the_description_of_the_cattle(
    pound, pound_keeper, police_officer, standing_order
):
    entry, report = _reported(pound, pound_keeper, notice_description="From the canal fields")
    entry.animals.update(colour="")

    with pytest.raises(ValidationError, match=r"description of the cattle \(a\)"):
        _post(report, police_officer)


# --- What the documents say --------------------------------------------------------------------


def test_notice_says_nothing_of_a_drum_no_one_recorded(posted, client, police_officer):
    _entry, notice = posted
    client.force_login(police_officer)

    text = _flat(client.get(reverse("auctions:notice_pdf", args=[notice.pk])).content)

    assert f"Posted on {_d(notice.posted_on)} at Notice board, PS office." in text
    assert not FORMULA.search(text)
    assert "beat of drum" not in text


def test_notice_prints_the_drums_recorded_who_where_and_when(posted, client, police_officer):
    _entry, notice = posted
    client.force_login(police_officer)
    as_posted = client.get(reverse("auctions:notice_pdf", args=[notice.pk])).content
    market_day = notice.posted_on + timedelta(days=1)
    proclaim(notice, police_officer, channels=["drum_village"], made_by="Bhola, chowkidar")
    proclaim(notice, police_officer, channels=["drum_market"], made_on=market_day)

    pdf = client.get(reverse("auctions:notice_pdf", args=[notice.pk])).content
    text = _flat(pdf)

    assert (
        f"Proclaimed by beat of drum: in the village, at Chaupal of the village, on "
        f"{_d(notice.posted_on)}, by Bhola, chowkidar; at the market-place, at Mohanlalganj "
        f"haat, on {_d(market_day)}, by Ramesh, village chowkidar." in text
    )
    # The notice as posted stays the one kept and verified.
    notice.document.refresh_from_db()
    with notice.document.file.open("rb") as kept:
        assert kept.read() == as_posted
    assert not FORMULA.search(_flat(as_posted))


def _sold(entry, notice, pound, officer):
    auction, bidder = _scheduled(entry, notice, pound, officer)
    return _sell(auction, bidder, officer)


def test_sale_certificate_prints_the_notice_and_its_drums(posted, pound, police_officer):
    entry, notice = posted
    proclaim(notice, police_officer, made_by="Bhola, chowkidar")
    sale = _sold(entry, notice, pound, police_officer)

    text = _flat(documents.sale_certificate_pdf(sale))

    assert f"{notice.number} posted on {_d(notice.posted_on)} at Notice board, PS office." in text
    on = _d(notice.posted_on)
    assert (
        f"Proclaimed by beat of drum: in the village, at Chaupal of the village, on {on}, by "
        f"Bhola, chowkidar; at the market-place, at Mohanlalganj haat, on {on}, by Bhola, "
        "chowkidar." in text
    )
    assert len(readpdf.page_texts(documents.sale_certificate_pdf(sale))) == 1


def test_sale_certificate_of_a_s16_sale_says_nothing_of_a_drum(
    pound, pound_keeper, police_officer, standing_order
):
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        animals=[cow()],
        arrived_at=timezone.now() - timedelta(days=3),
    )
    case = refused(entry, pound_keeper)
    auction = schedule(pound, police_officer, [entry.animals.all()], kind="s16", s16_case=case)
    sale = _sell(auction, register(auction, police_officer), police_officer)

    text = _flat(documents.sale_certificate_pdf(sale))

    assert "beat of drum" not in text and "Notice and proclamation" not in text
