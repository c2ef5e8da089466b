"""`manage.py seed_scale`: a data set the books, the chain and the services accept, written in
bulk."""

import random
import re
from collections import Counter as Counter_
from collections import defaultdict
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import Count, F, Max, Q
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Counter, User
from auctions.models import Report
from demo import scale
from impounding.models import Animal, AnimalState, Impoundment, Receipt
from impounding.tariffs import TariffBook
from kernel.events import verify_chain
from kernel.models import ChainHead, Event, EventPersonal
from ledger.checks import run_checks
from tests.impounding.factories import pay

pytestmark = pytest.mark.postgres

ENTRIES = 60


def seed(entries=ENTRIES, **kw):
    out = StringIO()
    call_command(
        "seed_scale", entries=entries, pounds=4, districts=3, years=3, seed=7, stdout=out, **kw
    )
    return out.getvalue()


@pytest.fixture
def seeded():
    return seed()


def _receipts_are_gapless():
    serials = defaultdict(list)
    for pound_id, fy, serial in Receipt.objects.values_list("pound", "financial_year", "serial"):
        serials[pound_id, fy].append(serial)
    assert serials
    for (pound_id, fy), got in serials.items():
        assert sorted(got) == list(range(1, len(got) + 1))
        assert Counter.objects.get(key=f"receipt:{pound_id}:{fy}").value == len(got)


def _tariffs_cover_every_arrival():
    """A s.12 scale and a s.5 order are in force on every entry's day of arrival, however far
    back the data set reaches: an animal still in custody from its first months (escaped, say)
    has its dues on the today board, not a missing tariff."""
    books = {}
    for entry in Impoundment.objects.select_related("pound").order_by("arrived_at"):
        if entry.pound_id not in books:
            books[entry.pound_id] = TariffBook(entry.pound)
        book, day = books[entry.pound_id], timezone.localdate(entry.arrived_at)
        book.scale_on(day)  # TariffMissing, failing the test, when none covers the day
        book.feeding_order_on(day)


def test_a_consistent_register_in_every_state(seeded):
    assert seeded.count("\n") == 1 and f"{ENTRIES} register entries" in seeded
    assert Impoundment.objects.count() == ENTRIES
    assert Impoundment.objects.values("pound").distinct().count() == 4
    assert run_checks() == []
    assert verify_chain() == []
    # Each entry's seizer and owner are kept apart from its link, as record_event keeps them.
    entered = Event.objects.filter(action="register.entered")
    assert EventPersonal.objects.filter(event__in=entered).count() == ENTRIES
    assert not entered.filter(personal_digest="").exists()
    for head in ChainHead.objects.all():
        last = Event.objects.filter(chain=head.chain).order_by("-seq").first()
        assert (head.seq, head.hash) == (last.seq, last.hash)
    _receipts_are_gapless()
    _tariffs_cover_every_arrival()
    assert not Receipt.objects.filter(document__subject_id=0).exists()
    states = set(Animal.objects.values_list("state", flat=True))
    assert {AnimalState.IMPOUNDED, AnimalState.RELEASED_PAID} <= states
    assert len(states) >= 4
    assert Report.objects.exists()
    assert Animal.objects.count() > ENTRIES


def test_old_uncontested_deposits_were_applied_and_recent_ones_are_held():
    """A district that works has applied its old deposits: the office's queues hold the recent
    ones only, and the books and the chain agree with both."""
    from datetime import timedelta

    from django.utils import timezone

    from accounts.scoping import system_actor
    from impounding.models import Deposit
    from ledger.models import Transaction, TransactionKind

    seed(400)
    today = timezone.localdate()
    applied = Deposit.objects.filter(status=Deposit.Status.APPLIED)
    # Held, and not awaiting the decision on a complaint (s.20).
    held = Deposit.objects.filter(status=Deposit.Status.HELD, complaints__isnull=True)
    assert applied.exists()
    cutoff = today - timedelta(days=scale.books.APPLIED_AFTER)
    assert not held.filter(complaint_deadline__lt=cutoff - timedelta(days=1)).exists()
    assert not applied.filter(complaint_deadline__gte=cutoff).exists()
    for deposit in applied[:5]:
        assert deposit.applied_by == system_actor()
        assert deposit.application_confirmed_by.username != deposit.applied_by.username
        assert deposit.applied_at > deposit.application_confirmed_at
        assert Transaction.objects.filter(
            kind=TransactionKind.DEPOSIT_APPLIED, source=f"impounding.deposit:{deposit.pk}"
        ).exists()
        assert Event.objects.filter(action="deposit.applied", data__deposit=deposit.pk).exists()
    assert run_checks() == []
    assert verify_chain() == []


def test_a_real_release_afterwards_continues_the_series(seeded):
    animal = Animal.objects.filter(state=AnimalState.IMPOUNDED, dam__isnull=True).first()
    entry = animal.impoundment
    keeper = User.objects.get(pk=Event.objects.filter(impoundment=entry).first().by_id)
    receipt = pay(entry, keeper, [animal]).receipt
    series = Receipt.objects.filter(pound=entry.pound, financial_year=receipt.financial_year)
    assert receipt.serial == series.count()
    _receipts_are_gapless()
    assert run_checks() == []
    assert verify_chain() == []


def test_refuses_a_register_with_entries_unless_appending_and_writes_in_bulk(seeded):
    with pytest.raises(CommandError, match="--append"):
        seed(5)
    with CaptureQueriesContext(connection) as few:
        seed(40, append=True)
    with CaptureQueriesContext(connection) as many:
        seed(400, append=True)
    # The rows go in by COPY and their ids in blocks: ten times the entries, the same queries.
    # A kind of row the smaller set happens not to hold (no court order among 40 entries) adds
    # its one block of ids at 400; a query made for each row would come ten times over.
    few_shapes, many_shapes = _shapes(few), _shapes(many)
    grown = {
        shape: (few_shapes[shape], n)
        for shape, n in many_shapes.items()
        if n > 2 * max(few_shapes[shape], 1)
    }
    assert grown == {}, "queries made for each row"
    assert len(many) <= len(few) + 40
    assert Impoundment.objects.count() == ENTRIES + 440
    _receipts_are_gapless()
    assert run_checks() == []
    assert verify_chain() == []


def _shapes(captured):
    """Each query's shape, its numbers and digests left out, and how many times it was sent."""
    return Counter_(
        re.sub(r"'[0-9a-f]{16,}'", "?", re.sub(r"\b\d+\b", "?", query["sql"]))
        for query in captured.captured_queries
    )


def _between(part, whole, low, high, what):
    share = part / whole
    assert low <= share <= high, (
        f"{what}: {part} of {whole} ({share:.1%}), not {low:.0%}-{high:.0%}"
    )


def _command(*args):
    out = StringIO()
    call_command(*args, stdout=out)  # exits non-zero, failing the test, on a problem
    return out.getvalue()


def test_the_business_that_follows_the_register_in_proportion():
    """Every kind of business the seed documents is there, in its documented proportion, and the
    weekly full checks of the books and of the chain pass on it."""
    from auctions.models import (
        Auction,
        Bid,
        Bidder,
        DisposalOrder,
        Lot,
        Notice,
        Proclamation,
        S16Case,
        Sale,
        Shortfall,
    )
    from impounding.models import (
        Claim,
        Complaint,
        CourtOrder,
        CustodyEvent,
        Deposit,
        FeedingLog,
        ReceiptCancellation,
        Release,
    )
    from office.models import Remittance, SurplusClaim, SurplusDeposit

    seed(2000)
    entries = Impoundment.objects.count()
    reported = Report.objects.count()
    notices = Notice.objects.count()
    # s.14: about 2% of entries go unclaimed to a notice; every notice proclaimed by both drums.
    _between(notices, entries, 0.01, 0.03, "notices")
    assert notices <= reported
    # The board's mark on each animal is the day of its latest notice, as the service sets it.
    latest = Animal.objects.annotate(latest=Max("reports__notice__posted_on"))
    assert (
        not latest.exclude(notice_posted_on=F("latest"))
        .exclude(notice_posted_on__isnull=True, latest__isnull=True)
        .exists()
    )
    assert latest.filter(notice_posted_on__isnull=False).count() >= notices
    # Each report's count of its animals in the pound, as the database's triggers keep it.
    counted = Report.objects.annotate(n=Count("animals", filter=Q(animals__state="impounded")))
    assert not counted.exclude(in_pound=F("n")).exists()
    assert counted.filter(in_pound__gt=0).exists() and counted.filter(in_pound=0).exists()
    drums = Proclamation.objects.filter(channel__startswith="drum")
    assert drums.values("notice").distinct().count() >= notices - 2
    # The auctions: bidders, lots, bids; four lots in five sold, the rest disposed of.
    assert Auction.objects.exists() and Bidder.objects.count() > Auction.objects.count()
    lots, sold = Lot.objects.count(), Sale.objects.count()
    _between(sold, lots, 0.6, 0.95, "lots sold")
    assert Bid.objects.count() >= sold
    assert Lot.objects.filter(status=Lot.Status.UNSOLD).exists()
    approved = DisposalOrder.objects.filter(status=DisposalOrder.Status.APPROVED)
    assert approved.exists()
    assert Animal.objects.filter(state=AnimalState.DISPOSED).exists()
    assert Animal.objects.filter(state=AnimalState.SOLD).count() == sold
    assert Shortfall.objects.exists()
    _gaushalas(approved)
    # s.15: deposits, about one claim in fourteen; complaints on about one in eight, decided.
    deposits, releases = Deposit.objects.count(), Release.objects.count()
    _between(deposits, releases, 0.04, 0.11, "deposits")
    complaints = Complaint.objects.count()
    _between(complaints, deposits, 0.05, 0.25, "complaints")
    assert {"upheld", "dismissed"} <= set(Complaint.objects.values_list("outcome", flat=True))
    assert Deposit.objects.filter(status=Deposit.Status.REFUNDED).exists()
    # s.17: the surplus of sales received, some claimed; the fines remitted month by month.
    surplus = SurplusDeposit.objects.count()
    _between(surplus, sold, 0.3, 1.0, "sales with a surplus")
    assert SurplusDeposit.objects.filter(status=SurplusDeposit.Status.TRANSFERRED).exists()
    assert SurplusClaim.objects.exists()
    months = 3 * 12 * 4  # three years of four pounds
    _between(Remittance.objects.count(), months, 0.8, 1.02, "pound-months remitted")
    assert Remittance.objects.filter(status=Remittance.Status.CONFIRMED).exists()
    # s.9: a feeding log most days of three years in each pound; deaths and escapes.
    _between(FeedingLog.objects.count(), 3 * 365 * 4, 0.8, 1.0, "pound-days fed")
    _between(CustodyEvent.objects.count(), entries, 0.03, 0.09, "custody events")
    # A few releases after competing claims, and a few receipts cancelled and issued again.
    assert Claim.objects.filter(status=Claim.Status.REJECTED).exists()
    cancelled = ReceiptCancellation.objects.filter(status=ReceiptCancellation.Status.APPROVED)
    assert cancelled.exists()
    assert Receipt.objects.filter(replaces__in=cancelled.values("receipt")).count() == (
        cancelled.count()
    )
    # A few released by a court's order, checked first; no money moves.
    orders = CourtOrder.objects.filter(status=CourtOrder.Status.RELEASED)
    assert orders.exists() and not orders.filter(verification__isnull=True).exists()
    assert Animal.objects.filter(state=AnimalState.RELEASED_BY_ORDER).count() == (
        Animal.objects.filter(court_order__in=orders).count()
    )
    # A few owners refuse to pay (s.16): cattle sold until the dues are covered, the rest and
    # the balance handed back on a closed account.
    closed = S16Case.objects.filter(status=S16Case.Status.CLOSED)
    assert closed.exists()
    assert Sale.objects.filter(lot__auction__s16_case__in=closed).exists()
    _people_and_tags()
    assert "every balance agrees" in _command("check_ledger", "--full")
    assert "every link holds" in _command("verify_chain", "--full")


def _gaushalas(approved):
    """Unsold cattle go to a body of the district's register (ADR 0070), with its certificate,
    never beyond its capacity; each body's months claimed, approved and paid in the books."""
    from auctions.models import DisposalOrder, Gaushala, Handover, UpkeepClaim
    from auctions.services import gaushala

    bodies = Gaushala.objects.all()
    districts = Impoundment.objects.values("pound__district").distinct().count()
    assert bodies.values("district").distinct().count() == districts
    handed = approved.filter(mode=DisposalOrder.Mode.GAUSHALA)
    assert handed.exists()
    assert Handover.objects.filter(order__in=handed, certificate__isnull=False).count() == (
        handed.count()
    )
    for body in bodies:
        assert gaushala.held_by(body, pending=True) <= body.capacity
    claims = UpkeepClaim.objects.all()
    assert {"paid"} <= set(claims.values_list("status", flat=True))
    _ends_agree_with_the_claims(claims)


def _ends_agree_with_the_claims(claims):
    """Each claim counts the days its body held the cattle, plus the days found over-paid on it
    after a death or escape reported late (ADR 0070, "Upkeep over-paid"); an escape names its
    basis."""
    from django.db.models import Sum

    from auctions.models import HoldingEnd, UpkeepOverpayment
    from auctions.services import gaushala

    assert not HoldingEnd.objects.filter(kind="escaped", basis="", basis_note="").exists()
    flagged = dict(
        UpkeepOverpayment.objects.values("claim").annotate(n=Sum("days")).values_list("claim", "n")
    )
    for claim in claims:
        recount = gaushala.animal_days(claim.gaushala, claim.month)
        assert claim.animal_days == recount + flagged.get(claim.pk, 0), claim.number


def test_deaths_and_escapes_after_a_paid_month_are_over_paid_and_recovered(monkeypatch):
    """More cattle unclaimed and unsold than a working district's, so the bodies hold enough for
    their deaths (6%) and escapes (2%), half reported after the month was paid, to show: each
    flagged on the claim that paid it, deducted from the next, and the books agree."""
    from auctions.models import (
        DisposalOrder,
        HoldingEnd,
        UpkeepClaim,
        UpkeepOverpayment,
        UpkeepRecovery,
    )
    from demo.scale import plan, sales

    monkeypatch.setattr(plan, "UNCLAIMED", 0.4)
    monkeypatch.setattr(sales, "SOLD", 0.1)
    seed(1200)
    held = DisposalOrder.animals.through.objects.filter(
        disposalorder__mode=DisposalOrder.Mode.GAUSHALA,
        disposalorder__status=DisposalOrder.Status.APPROVED,
    ).count()
    ends = HoldingEnd.objects.all()
    _between(ends.count(), held, 0.03, 0.14, "deaths and escapes at the bodies")
    assert set(ends.values_list("kind", flat=True)) == {"died", "escaped"}
    assert UpkeepOverpayment.objects.exists() and UpkeepRecovery.objects.exists()
    assert UpkeepClaim.objects.filter(deduction__gt=0).exists()
    _ends_agree_with_the_claims(UpkeepClaim.objects.all())
    assert "every balance agrees" in _command("check_ledger", "--full")
    assert "every link holds" in _command("verify_chain", "--full")


def _people_and_tags():
    import re

    from stdnum import verhoeff

    from impounding.models import Release

    owners = Impoundment.objects.exclude(owner_name="").values_list("owner_name", flat=True)
    # Thousands of names, skewed: the commonest is common, most are rare.
    assert Impoundment.objects.values("owner_name").distinct().count() > 500
    commonest = max(Counter_(owners).values())
    assert 5 < commonest < len(owners) / 10
    phones = [
        *Impoundment.objects.exclude(seizer_phone="").values_list("seizer_phone", flat=True),
        *Release.objects.exclude(claimant_phone="").values_list("claimant_phone", flat=True),
    ]
    assert phones and all(re.fullmatch(r"[6-9][0-9]{9}", p) for p in phones)
    bovines = Animal.objects.filter(species__in=["cattle", "buffalo"])
    tagged = bovines.exclude(ear_tag="")
    _between(tagged.count(), bovines.count(), 0.7, 0.9, "bovines tagged")
    assert all(
        len(t) == 12 and verhoeff.is_valid(t) for t in tagged.values_list("ear_tag", flat=True)
    )


def test_refuses_sqlite(monkeypatch):
    monkeypatch.setattr(scale.connection, "vendor", "sqlite")
    with pytest.raises(scale.ScaleRefused, match="PostgreSQL"):
        scale.seed(entries=1)


def test_a_larger_data_set_is_a_deeper_history_of_the_same_state():
    """A year for each 100,000 entries in the same 40 pounds, up to ten; past that the State
    grows: the bench's 100k and 1M differ in their history only."""
    assert scale.shape(2_000) == scale.Shape(pounds=40, districts=4, years=1)
    assert scale.shape(100_000) == scale.Shape(pounds=40, districts=4, years=1)
    assert scale.shape(1_000_000) == scale.Shape(pounds=40, districts=4, years=10)
    assert scale.shape(3_000_000) == scale.Shape(pounds=120, districts=12, years=10)


def test_the_current_intake_is_as_busy_a_day_at_every_depth():
    """Ten times the entries over ten times the years: as many arrive in the last days, so the
    open business is the same at both sizes."""
    from demo.scale import plan

    now = timezone.now()

    def recent(count, years):
        times = plan.arrivals(random.Random(5), count, now, keep_open=0, years=years)
        assert timedelta(days=365 * years - 30) < now - times[0] <= timedelta(days=365 * years)
        return sum(now - at <= timedelta(days=plan.RECENT_DAYS) for at in times)

    one, ten = recent(20_000, 1), recent(200_000, 10)
    assert 1_600 < one < 2_000
    assert 0.9 < ten / one < 1.1


def test_the_command_takes_the_years_from_the_size_unless_given():
    out = StringIO()
    call_command("seed_scale", entries=30, pounds=2, districts=1, seed=4, stdout=out)
    assert "over 2 pounds in 1 districts and 1 year," in out.getvalue()
    oldest = Impoundment.objects.order_by("arrived_at").first().arrived_at
    assert timezone.now() - oldest <= timedelta(days=366)
    with pytest.raises(CommandError, match="--years"):
        call_command("seed_scale", entries=30, years=-1, append=True, stdout=out)
