"""The District Magistrate's office under s.17: fines remitted by the pounds and confirmed,
surplus sale proceeds held three months and claimed, transferred to revenue or to the local
fund (s.31), and the approvals: write-offs, court orders, applying s.15 deposits."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from accounts.models import DistrictPolicy, IssuedDocument
from accounts.roles import Role
from accounts.scoping import system_actor
from auctions.models import Shortfall
from impounding import services as impounding
from impounding.models import Complaint, CourtOrder, Deposit
from kernel.dates import add_months
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import AccountKind, Transaction, TransactionKind
from office import services as office
from office.deadlines import run
from office.models import Remittance, SurplusClaim, SurplusDeposit
from tests.accounts.factories import PoundFactory, staff
from tests.auctions.factories import conditions, refused, register, schedule
from tests.impounding.factories import cow, deposit, make_entry
from tests.office.factories import (
    balance,
    claim,
    fines_collected,
    noon,
    received_surplus,
    remit,
    s14_sale,
    written,
)
from tests.pdfs import SCAN_PDF

D = Decimal
ZERO = D("0.00")
PDF = SCAN_PDF


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def standing_order(district, pound, dm_clerk, tariffs):
    # After the pound: a user's reach is worked out once and kept on him, as in a request.
    return conditions(district, by=dm_clerk)


@pytest.fixture
def other_clerk(other_district):
    return staff(Role.DM_CLERK, "other_clerk", district=other_district)


@pytest.fixture
def other_magistrate(other_district):
    return staff(Role.MAGISTRATE, "other_magistrate", district=other_district)


def postings(txn):
    return {(p.account.kind, p.account.pound_id): p.amount for p in txn.postings.all()}


def last_event(action):
    return Event.objects.filter(action=action).order_by("pk").last()


# --- Remittances of fines (s.17) -------------------------------------------------------------


def test_remittance_moves_the_fines_out_of_the_pound_cash_into_transit(
    pound, district, pound_keeper, tariffs
):
    release = fines_collected(pound, pound_keeper)
    assert office.unremitted_fines(pound) == release.fines == D("20000.00")
    cash = office.cash_in_hand(pound)

    remittance = remit(pound, pound_keeper, "15000.00", challan_number="CH-77")

    year = timezone.localdate().year
    assert remittance.number == f"REM/{pound.code.upper()}/{year}/00001"
    assert (remittance.status, remittance.sent_by, remittance.amount) == (
        Remittance.Status.SENT,
        pound_keeper,
        D("15000.00"),
    )
    assert (remittance.challan_number, remittance.from_cash) == ("CH-77", True)
    txn = Transaction.objects.get(kind=TransactionKind.REMITTANCE_SENT)
    assert (txn.section, txn.source, txn.pound, txn.by) == (
        "s.17",
        f"ledger.remittance:{remittance.pk}",
        pound,
        pound_keeper,
    )
    assert postings(txn) == {
        (AccountKind.REMITTANCES_IN_TRANSIT, None): D("15000.00"),
        (AccountKind.POUND_CASH, pound.pk): D("-15000.00"),
    }
    assert office.cash_in_hand(pound) == cash - D("15000.00")
    assert office.unremitted_fines(pound) == D("5000.00")
    event = last_event("ledger.remittance_sent")
    assert (event.section, event.by, event.pound) == ("s.17", pound_keeper, pound)
    assert event.data["remittance"] == remittance.number


def test_remittance_cannot_exceed_the_unremitted_fines(pound, pound_keeper, tariffs):
    fines_collected(pound, pound_keeper)
    remit(pound, pound_keeper, "12000.00")
    before = written()

    with pytest.raises(ValidationError) as refused_:
        remit(pound, pound_keeper, "8000.01")

    assert "₹8,000.00" in refused_.value.message_dict["amount"][0]
    assert written() == before
    assert Remittance.objects.count() == 1


def test_unremitted_fines_after_a_confirmed_remittance_agree_with_the_dashboard(
    pound, pound_keeper, dm_clerk, tariffs
):
    """The office's confirmation debits the fines account too: it is counted once, as a
    remittance, and the dashboard's sums (statements.pound_positions) agree with the service."""
    from office.statements import pound_positions

    fines_collected(pound, pound_keeper)
    fines_collected(pound, pound_keeper)
    office.confirm_remittance(remittance=remit(pound, pound_keeper, "30000.00"), by=dm_clerk)

    assert office.unremitted_fines(pound) == D("10000.00")
    assert pound_positions([pound])[pound.pk].fines_due == D("10000.00")
    remit(pound, pound_keeper, "10000.00")
    assert office.unremitted_fines(pound) == ZERO
    assert pound_positions([pound])[pound.pk].fines_due == ZERO
    with pytest.raises(ValidationError):
        remit(pound, pound_keeper, "0.01")


def test_remittance_from_cash_cannot_exceed_the_cash_in_hand(pound, pound_keeper, tariffs):
    fines_collected(pound, pound_keeper, mode="upi")  # the fines came in by UPI
    assert office.cash_in_hand(pound) == ZERO
    before = written()

    with pytest.raises(ValidationError) as refused_:
        remit(pound, pound_keeper, "20000.00")

    assert "₹0.00" in refused_.value.message_dict["amount"][0]
    assert written() == before


def test_remittance_from_the_upi_collections_comes_out_of_them(pound, pound_keeper, tariffs):
    fines_collected(pound, pound_keeper, mode="upi")
    upi = office.cash_in_hand(pound, from_cash=False)

    remittance = remit(pound, pound_keeper, "20000.00", from_cash=False)

    assert remittance.from_cash is False
    txn = Transaction.objects.get(kind=TransactionKind.REMITTANCE_SENT)
    assert postings(txn) == {
        (AccountKind.REMITTANCES_IN_TRANSIT, None): D("20000.00"),
        (AccountKind.POUND_DIGITAL, pound.pk): D("-20000.00"),
    }
    assert office.cash_in_hand(pound, from_cash=False) == upi - D("20000.00")
    assert office.cash_in_hand(pound) == ZERO


@pytest.mark.parametrize("who", ["magistrate", "auditor", "outsider", "keeper_of_another_pound"])
def test_remittance_refused_to_anyone_without_record_payment_at_that_pound(
    request, pound, district, pound_keeper, tariffs, who
):
    fines_collected(pound, pound_keeper)
    if who == "keeper_of_another_pound":
        user = staff(Role.POUND_KEEPER, "keeper2", pound=PoundFactory(district=district))
    else:
        user = request.getfixturevalue(who)
    before = written()

    with pytest.raises(PermissionDenied):
        remit(pound, user, "100.00")

    assert written() == before


def test_remittance_dated_in_the_future_refused(pound, pound_keeper, tariffs):
    fines_collected(pound, pound_keeper)
    before = written()

    with pytest.raises(ValidationError) as refused_:
        remit(pound, pound_keeper, "100.00", remitted_on=timezone.localdate() + timedelta(days=1))

    assert "remitted_on" in refused_.value.message_dict
    assert written() == before


@pytest.mark.parametrize("amount", ["0.00", "-5.00"])
def test_remittance_of_nothing_refused(pound, pound_keeper, tariffs, amount):
    fines_collected(pound, pound_keeper)
    before = written()

    with pytest.raises(ValidationError) as refused_:
        remit(pound, pound_keeper, amount)

    assert "amount" in refused_.value.message_dict
    assert written() == before


@pytest.mark.parametrize("field", ["challan_number", "treasury"])
def test_remittance_without_its_challan_or_treasury_refused(pound, pound_keeper, tariffs, field):
    fines_collected(pound, pound_keeper)
    before = written()

    with pytest.raises(ValidationError) as refused_:
        remit(pound, pound_keeper, "100.00", **{field: ""})

    assert field in refused_.value.message_dict
    assert written() == before


def test_remittance_numbers_run_per_pound_per_calendar_year(
    time_machine, district, pound, pound_keeper, tariffs
):
    time_machine.move_to(noon(date(2027, 1, 5)), tick=False)
    second_pound = PoundFactory(district=district, code="second")
    second_keeper = staff(Role.POUND_KEEPER, "keeper2", pound=second_pound)
    fines_collected(pound, pound_keeper)
    fines_collected(second_pound, second_keeper)

    late = remit(pound, pound_keeper, "100.00", remitted_on=date(2026, 12, 31))
    first = remit(pound, pound_keeper, "100.00")
    second = remit(pound, pound_keeper, "100.00")
    other = remit(second_pound, second_keeper, "100.00")

    code = pound.code.upper()
    assert [late.number, first.number, second.number, other.number] == [
        f"REM/{code}/2026/00001",
        f"REM/{code}/2027/00001",
        f"REM/{code}/2027/00002",
        "REM/SECOND/2027/00001",
    ]


def test_confirmed_remittance_reaches_the_treasury_as_fines_received(
    pound, district, pound_keeper, dm_clerk, tariffs
):
    fines_collected(pound, pound_keeper)
    remittance = remit(pound, pound_keeper, "20000.00")

    confirmed = office.confirm_remittance(remittance=remittance, by=dm_clerk)

    assert (confirmed.status, confirmed.confirmed_by) == (Remittance.Status.CONFIRMED, dm_clerk)
    assert confirmed.confirmed_at is not None
    txn = Transaction.objects.get(kind=TransactionKind.REMITTANCE_CONFIRMED)
    assert (txn.section, txn.source, txn.by) == (
        "s.17",
        f"ledger.remittance:{remittance.pk}",
        dm_clerk,
    )
    assert postings(txn) == {
        (AccountKind.DM_TREASURY, None): D("20000.00"),
        (AccountKind.REMITTANCES_IN_TRANSIT, None): D("-20000.00"),
        (AccountKind.FINES_DUE_DM, None): D("20000.00"),
        (AccountKind.FINES_RECEIVED, None): D("-20000.00"),
    }
    assert balance(district, AccountKind.FINES_DUE_DM) == ZERO
    assert balance(district, AccountKind.REMITTANCES_IN_TRANSIT) == ZERO
    assert balance(district, AccountKind.FINES_RECEIVED) == D("-20000.00")
    assert balance(district, AccountKind.DM_TREASURY) == D("20000.00")
    assert office.unremitted_fines(pound) == ZERO
    event = last_event("ledger.remittance_confirmed")
    assert (event.section, event.by, event.pound) == ("s.17", dm_clerk, pound)


@pytest.mark.parametrize("who", ["pound_keeper", "police_officer", "auditor", "other_clerk"])
def test_remittance_confirmed_only_by_the_office_of_its_district(
    request, pound, pound_keeper, tariffs, who
):
    fines_collected(pound, pound_keeper)
    remittance = remit(pound, pound_keeper, "20000.00")
    before = written()

    with pytest.raises(PermissionDenied):
        office.confirm_remittance(remittance=remittance, by=request.getfixturevalue(who))

    assert written() == before


def test_remittance_confirmed_once(pound, pound_keeper, dm_clerk, magistrate, tariffs):
    fines_collected(pound, pound_keeper)
    remittance = remit(pound, pound_keeper, "20000.00")
    office.confirm_remittance(remittance=remittance, by=dm_clerk)
    before = written()

    with pytest.raises(ValidationError, match="already confirmed"):
        office.confirm_remittance(remittance=remittance, by=magistrate)

    assert written() == before
    assert Remittance.objects.get().confirmed_by == dm_clerk


# --- The surplus of a s.14 sale ------------------------------------------------------------


def test_s14_sale_with_a_surplus_opens_a_deposit_awaiting_the_office(
    standing_order, pound, district, pound_keeper, police_officer
):
    sale = s14_sale(pound, pound_keeper, police_officer)

    deposit = SurplusDeposit.objects.get()
    assert (deposit.sale, deposit.pound, deposit.district) == (sale, pound, district)
    assert (deposit.amount, deposit.sale_date, deposit.status) == (
        D("9500.00"),
        timezone.localdate(),
        SurplusDeposit.Status.AWAITING_RECEIPT,
    )
    assert (deposit.received_on, deposit.expires_on) == (None, None)
    # The sale credits the Magistrate's deposit; the cash stays at the pound until received.
    assert balance(district, AccountKind.DM_SURPLUS_HELD) == D("-9500.00")


@pytest.mark.parametrize("price", ["30500.00", "25000.00"], ids=["exact", "short"])
def test_s14_sale_without_a_surplus_opens_no_deposit(
    standing_order, pound, pound_keeper, police_officer, price
):
    sale = s14_sale(pound, pound_keeper, police_officer, price=price)

    assert sale.surplus == ZERO
    assert not SurplusDeposit.objects.exists()


def test_s16_sale_opens_no_surplus_deposit(standing_order, pound, pound_keeper, police_officer):
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=3))
    case = refused(entry, pound_keeper)
    auction = schedule(pound, police_officer, [entry.animals.all()], kind="s16", s16_case=case)
    from auctions import services as auctions

    sale = auctions.sell_lot(
        lot=auction.lots.get(),
        buyer=register(auction, police_officer),
        price=D("60000.00"),
        by=police_officer,
    )

    assert sale.surplus == ZERO
    assert not SurplusDeposit.objects.exists()


@pytest.mark.parametrize(
    ("mode", "kind"), [("cash", AccountKind.POUND_CASH), ("upi", AccountKind.POUND_DIGITAL)]
)
def test_received_surplus_moves_from_the_pound_to_the_treasury_and_is_held(
    standing_order, pound, district, pound_keeper, police_officer, dm_clerk, mode, kind
):
    sale = s14_sale(pound, pound_keeper, police_officer, mode=mode)
    held = balance(district, kind, pound)
    today = timezone.localdate()

    deposit = office.receive_surplus(deposit=sale.surplus_deposit, by=dm_clerk, received_on=today)

    deposit.refresh_from_db()
    assert (deposit.status, deposit.received_on, deposit.received_by) == (
        SurplusDeposit.Status.HELD,
        today,
        dm_clerk,
    )
    assert deposit.expires_on == add_months(today, 3)
    txn = Transaction.objects.get(kind=TransactionKind.SURPLUS_RECEIVED)
    assert (txn.section, txn.source) == ("s.17", f"ledger.surplusdeposit:{deposit.pk}")
    assert postings(txn) == {
        (AccountKind.DM_TREASURY, None): D("9500.00"),
        (kind, pound.pk): D("-9500.00"),
    }
    assert balance(district, kind, pound) == held - D("9500.00")
    event = last_event("ledger.surplus_received")
    assert (event.section, event.by) == ("s.17", dm_clerk)
    assert event.data["expires_on"] == deposit.expires_on.isoformat()


@pytest.mark.parametrize("who", ["pound_keeper", "police_officer", "other_clerk"])
def test_surplus_received_only_by_the_office_of_its_district(
    request, standing_order, pound, pound_keeper, police_officer, who
):
    sale = s14_sale(pound, pound_keeper, police_officer)
    before = written()

    with pytest.raises(PermissionDenied):
        office.receive_surplus(
            deposit=sale.surplus_deposit,
            by=request.getfixturevalue(who),
            received_on=timezone.localdate(),
        )

    assert written() == before


def test_surplus_received_once(standing_order, pound, pound_keeper, police_officer, dm_clerk):
    deposit = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    before = written()

    with pytest.raises(ValidationError, match="already been received"):
        office.receive_surplus(deposit=deposit, by=dm_clerk, received_on=timezone.localdate())

    assert written() == before


# --- Owners' claims to the surplus -------------------------------------------------------------


@pytest.fixture
def held(standing_order, pound, pound_keeper, police_officer, dm_clerk):
    """₹9,500 of surplus from a sale today, received by the office today."""
    return received_surplus(pound, pound_keeper, police_officer, dm_clerk)


def test_claim_within_the_period_is_recorded_for_the_magistrate(held, dm_clerk):
    recorded = claim(held, dm_clerk)

    assert (recorded.status, recorded.prepared_by, recorded.deposit) == (
        SurplusClaim.Status.PENDING,
        dm_clerk,
        held,
    )
    assert recorded.filed_on == timezone.localdate()
    event = last_event("ledger.surplus_claimed")
    assert (event.section, event.by, event.data["claim"]) == ("s.17", dm_clerk, recorded.pk)
    assert not Transaction.objects.filter(kind=TransactionKind.SURPLUS_CLAIM_PAID).exists()


def test_claim_on_the_last_day_of_holding_is_in_time(
    time_machine, standing_order, pound, pound_keeper, police_officer, dm_clerk
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    deposit = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    time_machine.move_to(noon(date(2026, 12, 3)), tick=False)

    recorded = claim(deposit, dm_clerk, filed_on=date(2026, 11, 30))

    assert recorded.status == SurplusClaim.Status.PENDING


def test_claim_made_after_the_three_months_refused(
    time_machine, standing_order, pound, pound_keeper, police_officer, dm_clerk
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    deposit = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    time_machine.move_to(noon(date(2026, 12, 3)), tick=False)
    before = written()

    with pytest.raises(ValidationError) as refused_:
        claim(deposit, dm_clerk, filed_on=date(2026, 12, 1))

    assert "30-11-2026" in refused_.value.message_dict["filed_on"][0]
    assert written() == before


@pytest.mark.parametrize("days", [1, 30])
def test_claim_dated_in_the_future_refused(held, dm_clerk, days):
    before = written()

    with pytest.raises(ValidationError) as refused_:
        claim(held, dm_clerk, filed_on=timezone.localdate() + timedelta(days=days))

    assert "filed_on" in refused_.value.message_dict
    assert written() == before


def test_claim_dated_before_the_sale_refused(held, dm_clerk):
    before = written()

    with pytest.raises(ValidationError) as refused_:
        claim(held, dm_clerk, filed_on=held.sale_date - timedelta(days=1))

    assert "filed_on" in refused_.value.message_dict
    assert written() == before


@pytest.mark.parametrize("field", ["claimant_name", "claimant_address", "capacity", "proof"])
def test_claim_without_its_particulars_refused(held, dm_clerk, field):
    before = written()

    with pytest.raises(ValidationError) as refused_:
        claim(held, dm_clerk, **{field: ""})

    assert field in refused_.value.message_dict
    assert written() == before


def test_claim_to_a_surplus_the_office_has_not_received_refused(
    standing_order, pound, pound_keeper, police_officer, dm_clerk
):
    sale = s14_sale(pound, pound_keeper, police_officer)
    before = written()

    with pytest.raises(ValidationError, match="held in deposit"):
        claim(sale.surplus_deposit, dm_clerk)

    assert written() == before


@pytest.mark.parametrize("who", ["pound_keeper", "police_officer", "other_clerk"])
def test_claim_recorded_only_by_the_office_of_its_district(request, held, who):
    before = written()

    with pytest.raises(PermissionDenied):
        claim(held, request.getfixturevalue(who))

    assert written() == before


def test_one_pending_claim_at_a_time(held, dm_clerk, magistrate):
    first = claim(held, dm_clerk)
    before = written()

    with pytest.raises(ValidationError, match="already awaiting decision"):
        claim(held, dm_clerk, claimant_name="Ram Dulare")
    assert written() == before

    office.decide_surplus_claim(claim=first, by=magistrate, allow=False, decision="No proof")
    second = claim(held, dm_clerk, claimant_name="Ram Dulare")
    assert second.status == SurplusClaim.Status.PENDING


@pytest.mark.parametrize("who", ["dm_clerk", "pound_keeper", "other_magistrate"])
def test_claim_decided_only_by_the_magistrate_of_the_district(request, held, dm_clerk, who):
    pending = claim(held, dm_clerk)
    before = written()

    with pytest.raises(PermissionDenied):
        office.decide_surplus_claim(
            claim=pending,
            by=request.getfixturevalue(who),
            allow=True,
            decision="Proved",
            payment_mode="cash",
        )

    assert written() == before


def test_allowed_claim_is_paid_out_of_the_deposit(held, district, dm_clerk, magistrate):
    pending = claim(held, dm_clerk)

    decided = office.decide_surplus_claim(
        claim=pending,
        by=magistrate,
        allow=True,
        decision="Ear tag UP-1234 matches the register entry",
        payment_mode="upi",
        payment_reference="UTR 5566",
    )

    assert (decided.status, decided.decided_by, decided.payment_reference) == (
        SurplusClaim.Status.ALLOWED,
        magistrate,
        "UTR 5566",
    )
    assert decided.decided_at is not None
    held.refresh_from_db()
    assert held.status == SurplusDeposit.Status.PAID
    txn = Transaction.objects.get(kind=TransactionKind.SURPLUS_CLAIM_PAID)
    assert (txn.section, txn.source, txn.by) == (
        "s.17",
        f"ledger.surplusdeposit:{held.pk}",
        magistrate,
    )
    assert postings(txn) == {
        (AccountKind.DM_SURPLUS_HELD, None): D("9500.00"),
        (AccountKind.DM_TREASURY, None): D("-9500.00"),
    }
    assert balance(district, AccountKind.DM_SURPLUS_HELD) == ZERO
    assert balance(district, AccountKind.DM_TREASURY) == ZERO
    event = last_event("ledger.surplus_claim_allowed")
    assert (event.section, event.by, event.data["claim"]) == ("s.17", magistrate, pending.pk)


def test_rejected_claim_leaves_the_surplus_held(held, district, dm_clerk, magistrate):
    pending = claim(held, dm_clerk)
    transactions = Transaction.objects.count()

    decided = office.decide_surplus_claim(
        claim=pending, by=magistrate, allow=False, decision="The ear tag does not match"
    )

    assert (decided.status, decided.decided_by) == (SurplusClaim.Status.REJECTED, magistrate)
    held.refresh_from_db()
    assert held.status == SurplusDeposit.Status.HELD
    assert Transaction.objects.count() == transactions
    assert balance(district, AccountKind.DM_SURPLUS_HELD) == D("-9500.00")
    assert last_event("ledger.surplus_claim_rejected").by == magistrate


def test_decision_without_findings_refused(held, dm_clerk, magistrate):
    pending = claim(held, dm_clerk)
    before = written()

    with pytest.raises(ValidationError) as refused_:
        office.decide_surplus_claim(claim=pending, by=magistrate, allow=False, decision="  ")

    assert "decision" in refused_.value.message_dict
    assert written() == before


def test_allowed_claim_paid_other_than_in_cash_needs_a_reference(held, dm_clerk, magistrate):
    pending = claim(held, dm_clerk)
    before = written()

    with pytest.raises(ValidationError) as refused_:
        office.decide_surplus_claim(
            claim=pending, by=magistrate, allow=True, decision="Proved", payment_mode="upi"
        )

    assert "payment_reference" in refused_.value.message_dict
    assert written() == before


def test_surplus_is_paid_once(held, dm_clerk, magistrate):
    pending = claim(held, dm_clerk)
    office.decide_surplus_claim(
        claim=pending, by=magistrate, allow=True, decision="Proved", payment_mode="cash"
    )
    before = written()

    with pytest.raises(ValidationError, match="already been decided"):
        office.decide_surplus_claim(
            claim=pending, by=magistrate, allow=True, decision="Proved", payment_mode="cash"
        )
    with pytest.raises(ValidationError, match="held in deposit"):
        claim(held, dm_clerk, claimant_name="Ram Dulare")

    assert written() == before
    assert Transaction.objects.filter(kind=TransactionKind.SURPLUS_CLAIM_PAID).count() == 1


def test_claim_made_in_time_is_paid_even_when_decided_after_the_expiry(
    time_machine, standing_order, pound, pound_keeper, police_officer, dm_clerk, magistrate
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    deposit = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    time_machine.move_to(noon(date(2026, 11, 20)), tick=False)
    pending = claim(deposit, dm_clerk)
    time_machine.move_to(noon(date(2026, 12, 10)), tick=False)

    done = run()

    assert done["surplus_waiting_on_claims"] == 1
    deposit.refresh_from_db()
    assert deposit.status == SurplusDeposit.Status.HELD
    office.decide_surplus_claim(
        claim=pending, by=magistrate, allow=True, decision="Proved", payment_mode="cash"
    )
    run()
    deposit.refresh_from_db()
    assert deposit.status == SurplusDeposit.Status.PAID
    assert not Transaction.objects.filter(kind=TransactionKind.SURPLUS_TRANSFERRED).exists()


# --- Transfer at the expiry: revenue of the State, or the local fund (s.31) ---------------------


def test_no_surplus_leaves_the_deposit_before_its_expiry(held, district):
    before = written()

    for today in (timezone.localdate(), held.expires_on - timedelta(days=1), held.expires_on):
        with pytest.raises(ValidationError) as refused_:
            office.transfer_expired_surplus(deposit=held, today=today)
        assert held.expires_on.strftime("%d-%m-%Y") in refused_.value.messages[0]

    assert written() == before
    assert balance(district, AccountKind.STATE_REVENUE) == ZERO


def test_surplus_with_a_claim_pending_is_not_transferred_after_the_expiry(held, dm_clerk):
    claim(held, dm_clerk)
    before = written()

    with pytest.raises(ValidationError, match="awaits the Magistrate"):
        office.transfer_expired_surplus(deposit=held, today=held.expires_on + timedelta(days=1))

    assert written() == before


def test_expired_surplus_is_credited_to_the_revenues_of_the_state_by_default(held, district):
    day = held.expires_on + timedelta(days=1)

    moved = office.transfer_expired_surplus(deposit=held, today=day)

    assert (moved.status, moved.destination) == (
        SurplusDeposit.Status.TRANSFERRED,
        SurplusDeposit.Destination.STATE_REVENUE,
    )
    assert moved.transferred_at is not None
    memo = moved.transfer_memo
    # Issued by the system actor the daily run acts as: no step goes without an actor.
    assert (memo.kind, memo.district, memo.issued_by) == (
        IssuedDocument.Kind.TRANSFER_MEMO,
        district,
        system_actor(),
    )
    assert memo.number == f"TRF/HOME/{day.year}/00001"
    assert (memo.subject_type, memo.subject_id) == ("ledger.surplusdeposit", held.pk)
    assert memo.issuing_office == district.dm_office_name
    txn = Transaction.objects.get(kind=TransactionKind.SURPLUS_TRANSFERRED)
    assert (txn.section, txn.source) == ("s.17", f"ledger.surplusdeposit:{held.pk}")
    assert "the revenues of the State" in txn.memo
    assert postings(txn) == {
        (AccountKind.DM_SURPLUS_HELD, None): D("9500.00"),
        (AccountKind.STATE_REVENUE, None): D("-9500.00"),
    }
    assert balance(district, AccountKind.DM_SURPLUS_HELD) == ZERO
    assert balance(district, AccountKind.LOCAL_FUND) == ZERO
    event = last_event("ledger.surplus_transferred")
    assert (event.section, event.data["memo"], event.by) == ("s.17", memo.number, system_actor())


def test_expired_surplus_goes_to_the_local_fund_where_s31_applies(held, district):
    policy = DistrictPolicy.for_district(district)
    policy.surplus_destination = "local_fund"
    policy.local_fund_name = "Zila Panchayat Fund"
    policy.save()

    moved = office.transfer_expired_surplus(deposit=held, today=held.expires_on + timedelta(days=1))

    assert moved.destination == SurplusDeposit.Destination.LOCAL_FUND
    assert moved.transfer_memo.kind == IssuedDocument.Kind.TRANSFER_MEMO
    txn = Transaction.objects.get(kind=TransactionKind.SURPLUS_TRANSFERRED)
    assert txn.section == "s.31"
    assert "Zila Panchayat Fund" in txn.memo
    assert postings(txn) == {
        (AccountKind.DM_SURPLUS_HELD, None): D("9500.00"),
        (AccountKind.LOCAL_FUND, None): D("-9500.00"),
    }
    assert balance(district, AccountKind.STATE_REVENUE) == ZERO
    event = last_event("ledger.surplus_transferred")
    assert event.section == "s.31"
    assert event.data["destination"] == "local_fund"


def test_surplus_is_transferred_once(held):
    day = held.expires_on + timedelta(days=1)
    office.transfer_expired_surplus(deposit=held, today=day)
    before = written()

    again = office.transfer_expired_surplus(deposit=held, today=day + timedelta(days=5))

    assert again is None
    assert written() == before
    assert Transaction.objects.filter(kind=TransactionKind.SURPLUS_TRANSFERRED).count() == 1


def test_surplus_paid_on_a_claim_is_never_transferred(held, dm_clerk, magistrate):
    office.decide_surplus_claim(
        claim=claim(held, dm_clerk),
        by=magistrate,
        allow=True,
        decision="Proved",
        payment_mode="cash",
    )
    before = written()

    assert (
        office.transfer_expired_surplus(deposit=held, today=held.expires_on + timedelta(days=1))
        is None
    )
    assert written() == before


def test_surplus_not_yet_received_is_not_transferred(
    standing_order, pound, pound_keeper, police_officer
):
    sale = s14_sale(pound, pound_keeper, police_officer)
    before = written()

    result = office.transfer_expired_surplus(
        deposit=sale.surplus_deposit, today=timezone.localdate() + timedelta(days=400)
    )

    assert result is None
    assert written() == before


# --- Approvals: write-offs, court orders, s.15 deposits ----------------------------------------


@pytest.fixture
def shortfall(standing_order, pound, pound_keeper, police_officer):
    s14_sale(pound, pound_keeper, police_officer, price="25000.00")
    return Shortfall.objects.get()


def test_magistrate_writes_off_a_shortfall(shortfall, magistrate):
    transactions = Transaction.objects.count()

    done = office.write_off_shortfall(shortfall=shortfall, by=magistrate, note="Old, sick cow")

    assert (done.status, done.decided_by) == (Shortfall.Status.WRITTEN_OFF, magistrate)
    assert done.decided_at is not None
    assert Transaction.objects.count() == transactions  # nothing was received: no money moves
    event = last_event("ledger.shortfall_written_off")
    assert (event.by, event.data["note"]) == (magistrate, "Old, sick cow")
    assert "₹5,500.00" in event.summary


@pytest.mark.parametrize("who", ["dm_clerk", "pound_keeper", "other_magistrate"])
def test_shortfall_written_off_only_by_the_magistrate(request, shortfall, who):
    before = written()

    with pytest.raises(PermissionDenied):
        office.write_off_shortfall(shortfall=shortfall, by=request.getfixturevalue(who))

    assert written() == before


def test_shortfall_written_off_once(shortfall, magistrate):
    office.write_off_shortfall(shortfall=shortfall, by=magistrate)
    before = written()

    with pytest.raises(ValidationError, match="already been written off"):
        office.write_off_shortfall(shortfall=shortfall, by=magistrate)

    assert written() == before


@pytest.fixture
def court_order(pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    return impounding.record_court_order(
        entry=entry,
        animal_ids=[entry.animals.get().pk],
        by=pound_keeper,
        kind=CourtOrder.Kind.CIVIL_COURT,
        court="Civil Judge (Junior Division)",
        case_number="OS 12/2026",
        order_date=timezone.localdate(),
        scan=SimpleUploadedFile("order.pdf", PDF),
    )


def check(order, by, outcome="confirmed", **kw):
    fields = {"how": "certified_copy", "reference": "CC 41/2026"} | kw
    return impounding.check_court_order(order=order, by=by, outcome=outcome, **fields)


def test_office_checks_a_court_order_against_the_courts_record(court_order, dm_clerk):
    checked = check(court_order, dm_clerk)

    assert (checked.reviewed_by, checked.review_note) == (dm_clerk, "CC 41/2026")
    assert checked.reviewed_at is not None
    event = last_event("release.court_order")
    assert (event.section, event.by, event.impoundment) == (
        "s.19",
        dm_clerk,
        court_order.impoundment,
    )


@pytest.mark.parametrize("who", ["pound_keeper", "police_officer", "other_clerk", "auditor"])
def test_court_order_checked_only_by_the_office(request, court_order, who):
    before = written()

    with pytest.raises(PermissionDenied):
        check(court_order, request.getfixturevalue(who))

    assert written() == before


def test_court_order_checked_once(court_order, dm_clerk, magistrate):
    check(court_order, dm_clerk)
    before = written()

    with pytest.raises(ValidationError, match="already been checked"):
        check(court_order, magistrate, "rejected", reason="Not on the file")

    assert written() == before


@pytest.fixture
def on_deposit(time_machine, pound, pound_keeper, tariffs):
    """A cow seized and released on a s.15 deposit on 1 March 2027: the owner may complain
    until the end of 11 March."""
    time_machine.move_to(noon(date(2027, 3, 1)), tick=False)
    entry = make_entry(pound=pound, by=pound_keeper)
    release = deposit(entry, pound_keeper)
    assert release.deposit.complaint_deadline == date(2027, 3, 11)
    return release.deposit


def deposit_postings(dep):
    txn = Transaction.objects.get(kind=TransactionKind.DEPOSIT_APPLIED)
    return txn, postings(txn)


def test_confirming_a_deposit_whose_window_has_closed_applies_it_at_once(
    time_machine, on_deposit, district, pound, magistrate
):
    time_machine.move_to(noon(date(2027, 3, 12)), tick=False)

    office.confirm_deposit_application(deposit=on_deposit, by=magistrate)

    on_deposit.refresh_from_db()
    assert (on_deposit.status, on_deposit.applied_by) == (Deposit.Status.APPLIED, magistrate)
    txn, lines = deposit_postings(on_deposit)
    assert (txn.section, txn.by) == ("s.15", magistrate)
    assert lines == {
        (AccountKind.DEPOSITS_HELD, None): on_deposit.amount,
        (AccountKind.FINES_DUE_DM, None): -on_deposit.fines,
        (AccountKind.FEEDING_PK, pound.pk): -on_deposit.feeding,
    }
    assert last_event("deposit.applied").by == magistrate
    assert office.unremitted_fines(pound) == on_deposit.fines


def test_confirming_a_deposit_within_the_window_waits_for_the_daily_run_after_it(
    time_machine, on_deposit, magistrate
):
    time_machine.move_to(noon(date(2027, 3, 5)), tick=False)
    transactions = Transaction.objects.count()

    office.confirm_deposit_application(deposit=on_deposit, by=magistrate)

    on_deposit.refresh_from_db()
    assert (on_deposit.status, on_deposit.application_confirmed_by) == (
        Deposit.Status.HELD,
        magistrate,
    )
    assert on_deposit.application_confirmed_at is not None
    assert Transaction.objects.count() == transactions
    event = last_event("deposit.application_confirmed")
    assert (event.section, event.by) == ("s.15", magistrate)
    assert "11-03-2027" in event.summary

    time_machine.move_to(noon(date(2027, 3, 11)), tick=False)
    assert run()["deposits_applied"] == 0
    on_deposit.refresh_from_db()
    assert on_deposit.status == Deposit.Status.HELD

    time_machine.move_to(noon(date(2027, 3, 12)), tick=False)
    assert run()["deposits_applied"] == 1
    on_deposit.refresh_from_db()
    # The daily run applies it as its system actor; the Magistrate is who confirmed it.
    assert (on_deposit.status, on_deposit.applied_by) == (Deposit.Status.APPLIED, system_actor())
    assert on_deposit.application_confirmed_by == magistrate
    assert Transaction.objects.filter(kind=TransactionKind.DEPOSIT_APPLIED).count() == 1


@pytest.mark.parametrize("outcome", ["pending", "upheld", "dismissed"])
def test_confirmed_deposit_is_not_applied_when_a_complaint_was_made_in_time(
    time_machine, on_deposit, dm_clerk, magistrate, outcome
):
    time_machine.move_to(noon(date(2027, 3, 5)), tick=False)
    office.confirm_deposit_application(deposit=on_deposit, by=magistrate)
    time_machine.move_to(noon(date(2027, 3, 10)), tick=False)
    entry = on_deposit.release.impoundment
    complaint = impounding.record_complaint(
        entry=entry,
        by=dm_clerk,
        deposit=on_deposit,
        complainant_name="Shyam Lal",
        mode=Complaint.Mode.WRITTEN,
        court="Court of the District Magistrate",
        filed_on=date(2027, 3, 10),
    )
    if outcome != "pending":
        impounding.decide_complaint(
            complaint=complaint,
            by=dm_clerk,
            outcome=outcome,
            decided_on=date(2027, 3, 10),
            payable_by="Ram Prasad (seizer)" if outcome == "upheld" else "",
        )
    time_machine.move_to(noon(date(2027, 3, 20)), tick=False)

    done = run()

    on_deposit.refresh_from_db()
    expected = {
        "pending": Deposit.Status.HELD,
        "upheld": Deposit.Status.REFUND_DUE,
        "dismissed": Deposit.Status.APPLIED,  # the complaint failed: the confirmation stands
    }[outcome]
    assert on_deposit.status == expected
    assert done["deposits_applied"] == (outcome == "dismissed")


@pytest.mark.parametrize("who", ["dm_clerk", "pound_keeper", "other_magistrate"])
def test_deposit_application_confirmed_only_by_the_magistrate(
    request, time_machine, on_deposit, who
):
    time_machine.move_to(noon(date(2027, 3, 12)), tick=False)
    before = written()

    with pytest.raises(PermissionDenied):
        office.confirm_deposit_application(deposit=on_deposit, by=request.getfixturevalue(who))

    assert written() == before


def test_deposit_no_longer_held_cannot_be_confirmed(time_machine, on_deposit, magistrate):
    time_machine.move_to(noon(date(2027, 3, 12)), tick=False)
    office.confirm_deposit_application(deposit=on_deposit, by=magistrate)
    before = written()

    with pytest.raises(ValidationError, match="no longer held"):
        office.confirm_deposit_application(deposit=on_deposit, by=magistrate)

    assert written() == before
