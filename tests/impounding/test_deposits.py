"""s.15 deposits and the complaint that decides them (ss.20-22), docs/domain.md decision 6."""

from datetime import date, datetime
from decimal import Decimal
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command

from impounding import services
from impounding.models import Complaint, Deposit, SeizerLiability
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import Account, AccountKind, Transaction, TransactionKind
from tests.impounding.factories import cow, deposit, goat, make_entry, pay

IST = ZoneInfo("Asia/Kolkata")
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=IST)

pytestmark = pytest.mark.time_machine(NOW, tick=False)

# Seized on 20 November: a complaint may be made until the end of 30 November.
DEADLINE = date(2026, 11, 30)
FINES = Decimal("21400.00")  # a cow and a goat
FEEDING = Decimal("1600.00")  # two days each: 2 x 500 + 2 x 300
AMOUNT = FINES + FEEDING


def ist(month, day, hour=12, minute=0, year=2026):
    return datetime(year, month, day, hour, minute, tzinfo=IST)


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=ist(11, 20, 9),
        seized_at=ist(11, 20, 6),
        animals=[cow(), goat()],
    )


@pytest.fixture
def held(entry, pound_keeper):
    return deposit(entry, pound_keeper, at=ist(11, 21, 10)).deposit


def complain(entry, by, *, deposit=None, filed_on=date(2026, 11, 22), **kw):
    fields = (
        dict(
            complainant_name="Shyam Lal",
            mode=Complaint.Mode.WRITTEN,
            court="Court of the District Magistrate, Lucknow",
            case_number="CTA 4/2026",
        )
        | kw
    )
    return services.record_complaint(
        entry=entry, by=by, deposit=deposit, filed_on=filed_on, **fields
    )


def decide(complaint, by, outcome, **kw):
    fields = dict(decided_on=date(2026, 11, 25), order_reference="Order 4/2026") | kw
    if outcome == Complaint.Outcome.UPHELD:
        fields.setdefault("payable_by", "Ram Prasad (seizer)")
    return services.decide_complaint(complaint=complaint, by=by, outcome=outcome, **fields)


def balance(district, kind, pound=None):
    account = Account.objects.get(district=district, pound=pound, kind=kind)
    return account.balance()


def postings(txn):
    return {p.account.kind: p.amount for p in txn.postings.select_related("account")}


def assert_ledger_clean():
    assert run_checks() == []
    out = StringIO()
    call_command("check_ledger", stdout=out)
    assert "every balance agrees" in out.getvalue()


def test_deposit_starts_held_with_the_complaint_deadline(held):
    assert (held.status, held.complaint_deadline) == (Deposit.Status.HELD, DEADLINE)
    assert (held.fines, held.feeding, held.amount) == (FINES, FEEDING, AMOUNT)
    assert services.deposit_awaiting_application(held) is False
    assert_ledger_clean()


# --- complaint upheld: refund, and the seizer pays (s.22) ---


def test_complaint_upheld_makes_the_deposit_due_for_refund_and_records_the_seizers_liability(
    entry, held, dm_clerk, magistrate, district
):
    complaint = complain(entry, dm_clerk, deposit=held)

    decide(complaint, magistrate, Complaint.Outcome.UPHELD, compensation=Decimal("100.00"))

    held.refresh_from_db()
    complaint.refresh_from_db()
    assert held.status == Deposit.Status.REFUND_DUE
    assert (complaint.outcome, complaint.decided_on) == ("upheld", date(2026, 11, 25))
    txn = Transaction.objects.get(kind=TransactionKind.DEPOSIT_REFUND_DUE)
    assert (txn.section, txn.source, txn.by) == (
        "s.22",
        f"impounding.deposit:{held.pk}",
        magistrate,
    )
    assert postings(txn) == {
        AccountKind.DEPOSITS_HELD: AMOUNT,
        AccountKind.DEPOSIT_REFUNDS_DUE: -AMOUNT,
    }
    assert balance(district, AccountKind.DEPOSITS_HELD) == Decimal("0.00")
    assert balance(district, AccountKind.DEPOSIT_REFUNDS_DUE) == -AMOUNT
    liability = SeizerLiability.objects.get()
    assert (liability.complaint, liability.impoundment, liability.payable_by) == (
        complaint,
        entry,
        "Ram Prasad (seizer)",
    )
    assert (liability.fines, liability.feeding, liability.compensation) == (
        FINES,
        FEEDING,
        Decimal("100.00"),
    )
    assert liability.total == AMOUNT + Decimal("100.00")
    assert liability.recovery == SeizerLiability.Recovery.PENDING
    event = Event.objects.get(action="complaint.upheld")
    assert (event.section, event.by, event.impoundment) == ("s.22", magistrate, entry)
    assert event.data["compensation"] == "100.00"
    assert_ledger_clean()


def test_refund_hands_the_deposit_back_and_takes_the_cash_down(
    entry, held, dm_clerk, magistrate, pound_keeper, pound, district
):
    decide(complain(entry, dm_clerk, deposit=held), magistrate, Complaint.Outcome.UPHELD)
    assert balance(district, AccountKind.POUND_CASH, pound) == AMOUNT

    services.pay_deposit_refund(deposit=held, by=pound_keeper, mode="cash")

    held.refresh_from_db()
    assert held.status == Deposit.Status.REFUNDED
    assert (held.refunded_at, held.refunded_by, held.refund_mode) == (NOW, pound_keeper, "cash")
    txn = Transaction.objects.get(kind=TransactionKind.DEPOSIT_REFUNDED)
    assert postings(txn) == {
        AccountKind.DEPOSIT_REFUNDS_DUE: AMOUNT,
        AccountKind.POUND_CASH: -AMOUNT,
    }
    assert balance(district, AccountKind.POUND_CASH, pound) == Decimal("0.00")
    assert balance(district, AccountKind.DEPOSIT_REFUNDS_DUE) == Decimal("0.00")
    event = Event.objects.get(action="deposit.refunded")
    assert (event.section, event.by, event.data["mode"]) == ("s.22", pound_keeper, "cash")
    assert_ledger_clean()


def test_refund_by_transfer_needs_a_reference_and_comes_out_of_digital_collections(
    entry, held, dm_clerk, magistrate, pound_keeper, pound, district
):
    decide(complain(entry, dm_clerk, deposit=held), magistrate, Complaint.Outcome.UPHELD)

    with pytest.raises(ValidationError) as exc:
        services.pay_deposit_refund(deposit=held, by=pound_keeper, mode="upi")
    assert "reference" in exc.value.message_dict
    held.refresh_from_db()
    assert held.status == Deposit.Status.REFUND_DUE

    services.pay_deposit_refund(deposit=held, by=pound_keeper, mode="upi", reference="UTR 991")

    assert balance(district, AccountKind.POUND_DIGITAL, pound) == -AMOUNT
    assert_ledger_clean()


def test_deposit_not_due_for_refund_cannot_be_refunded(held, pound_keeper):
    with pytest.raises(ValidationError, match="not due for refund"):
        services.pay_deposit_refund(deposit=held, by=pound_keeper, mode="cash")

    held.refresh_from_db()
    assert held.status == Deposit.Status.HELD
    assert not Transaction.objects.filter(kind=TransactionKind.DEPOSIT_REFUNDED).exists()


def test_refund_is_paid_once(entry, held, dm_clerk, magistrate, pound_keeper):
    decide(complain(entry, dm_clerk, deposit=held), magistrate, Complaint.Outcome.UPHELD)
    services.pay_deposit_refund(deposit=held, by=pound_keeper, mode="cash")

    with pytest.raises(ValidationError):
        services.pay_deposit_refund(deposit=held, by=pound_keeper, mode="cash")

    assert Transaction.objects.filter(kind=TransactionKind.DEPOSIT_REFUNDED).count() == 1


def test_upheld_complaint_after_a_payment_charges_the_seizer_what_was_paid(
    entry, pound_keeper, dm_clerk, magistrate
):
    pay(entry, pound_keeper, at=ist(11, 21, 10))
    complaint = complain(entry, dm_clerk)

    decide(complaint, magistrate, Complaint.Outcome.UPHELD, compensation="50.00")

    liability = SeizerLiability.objects.get()
    assert (liability.fines, liability.feeding, liability.compensation) == (
        FINES,
        FEEDING,
        Decimal("50.00"),
    )
    assert not Transaction.objects.filter(kind=TransactionKind.DEPOSIT_REFUND_DUE).exists()
    assert_ledger_clean()


def test_upheld_complaint_must_name_who_pays(entry, held, dm_clerk, magistrate):
    complaint = complain(entry, dm_clerk, deposit=held)

    with pytest.raises(ValidationError) as exc:
        decide(complaint, magistrate, Complaint.Outcome.UPHELD, payable_by=" ")

    assert "payable_by" in exc.value.message_dict
    complaint.refresh_from_db()
    held.refresh_from_db()
    assert (complaint.outcome, held.status) == ("pending", Deposit.Status.HELD)
    assert not SeizerLiability.objects.exists()


# --- complaint dismissed, or none made: the deposit is applied ---


def test_complaint_dismissed_lets_the_magistrate_apply_the_deposit(
    entry, held, dm_clerk, magistrate, pound, district
):
    decide(complain(entry, dm_clerk, deposit=held), magistrate, Complaint.Outcome.DISMISSED)
    assert services.deposit_awaiting_application(held) is True
    assert not SeizerLiability.objects.exists()

    services.apply_deposit(deposit=held, by=magistrate)

    held.refresh_from_db()
    assert (held.status, held.applied_at, held.applied_by) == (
        Deposit.Status.APPLIED,
        NOW,
        magistrate,
    )
    txn = Transaction.objects.get(kind=TransactionKind.DEPOSIT_APPLIED)
    assert (txn.section, txn.source) == ("s.15", f"impounding.deposit:{held.pk}")
    assert postings(txn) == {
        AccountKind.DEPOSITS_HELD: AMOUNT,
        AccountKind.FINES_DUE_DM: -FINES,
        AccountKind.FEEDING_PK: -FEEDING,
    }
    assert balance(district, AccountKind.DEPOSITS_HELD) == Decimal("0.00")
    assert balance(district, AccountKind.FINES_DUE_DM) == -FINES
    assert balance(district, AccountKind.FEEDING_PK, pound) == -FEEDING
    event = Event.objects.get(action="deposit.applied")
    assert (event.section, event.by, event.data["fines"]) == ("s.15", magistrate, "21400.00")
    assert Event.objects.get(action="complaint.dismissed").section == "s.22"
    assert_ledger_clean()


def test_deposit_is_applied_once(entry, held, dm_clerk, magistrate):
    decide(complain(entry, dm_clerk, deposit=held), magistrate, Complaint.Outcome.DISMISSED)
    services.apply_deposit(deposit=held, by=magistrate)

    with pytest.raises(ValidationError, match="cannot be applied"):
        services.apply_deposit(deposit=held, by=magistrate)

    assert Transaction.objects.filter(kind=TransactionKind.DEPOSIT_APPLIED).count() == 1


def test_without_a_complaint_the_deposit_waits_until_the_window_has_run_out(
    held, magistrate, time_machine
):
    for moment in (NOW, ist(11, 30, 23, 59)):
        time_machine.move_to(moment, tick=False)
        with pytest.raises(ValidationError, match="complaint period has not ended"):
            services.apply_deposit(deposit=held, by=magistrate)
        held.refresh_from_db()
        assert held.status == Deposit.Status.HELD
        assert not Transaction.objects.filter(kind=TransactionKind.DEPOSIT_APPLIED).exists()

    time_machine.move_to(ist(12, 1, 0, 1), tick=False)
    services.apply_deposit(deposit=held, by=magistrate)

    held.refresh_from_db()
    assert held.status == Deposit.Status.APPLIED
    assert_ledger_clean()


def test_pending_complaint_holds_the_deposit_after_the_window(
    entry, held, dm_clerk, magistrate, time_machine
):
    complain(entry, dm_clerk, deposit=held)
    time_machine.move_to(ist(12, 10), tick=False)

    with pytest.raises(ValidationError):
        services.apply_deposit(deposit=held, by=magistrate)

    held.refresh_from_db()
    assert held.status == Deposit.Status.HELD


def test_upheld_complaint_never_lets_the_deposit_be_applied(
    entry, held, dm_clerk, magistrate, time_machine
):
    decide(complain(entry, dm_clerk, deposit=held), magistrate, Complaint.Outcome.UPHELD)
    time_machine.move_to(ist(12, 10), tick=False)

    with pytest.raises(ValidationError):
        services.apply_deposit(deposit=held, by=magistrate)

    held.refresh_from_db()
    assert held.status == Deposit.Status.REFUND_DUE


@pytest.mark.parametrize("who", ["dm_clerk", "pound_keeper", "auditor", "outsider"])
def test_only_the_magistrate_confirms_applying_a_deposit(request, held, who, time_machine):
    time_machine.move_to(ist(12, 10), tick=False)
    user = request.getfixturevalue(who)

    with pytest.raises(PermissionDenied):
        services.apply_deposit(deposit=held, by=user)

    held.refresh_from_db()
    assert held.status == Deposit.Status.HELD
    assert not Event.objects.filter(action="deposit.applied").exists()


# --- recording complaints (ss.20, 21) ---


def test_complaint_in_time_is_recorded_with_its_deadline(entry, held, pound_keeper):
    complaint = complain(entry, pound_keeper, deposit=held)

    assert (complaint.deadline, complaint.in_time, complaint.outcome) == (
        DEADLINE,
        True,
        "pending",
    )
    assert complaint.recorded_by == pound_keeper
    event = Event.objects.get(action="complaint.recorded")
    assert (event.section, event.data["in_time"], event.data["deposit"]) == (
        "s.20",
        True,
        held.pk,
    )
    assert "after the 10 days" not in event.summary


def test_late_complaint_is_recorded_and_flagged_not_refused(entry, dm_clerk, time_machine):
    time_machine.move_to(ist(12, 3), tick=False)

    complaint = complain(entry, dm_clerk, filed_on=date(2026, 12, 1))

    assert Complaint.objects.get() == complaint
    assert complaint.in_time is False
    event = Event.objects.get(action="complaint.recorded")
    assert event.data["in_time"] is False
    assert event.data["deadline"] == "2026-11-30"
    assert "after the 10 days of s.20" in event.summary


def test_complaint_on_the_last_day_is_in_time(entry, dm_clerk, time_machine):
    time_machine.move_to(ist(12, 3), tick=False)

    assert complain(entry, dm_clerk, filed_on=DEADLINE).in_time is True


def test_oral_complaint_needs_its_substance_written_down(entry, dm_clerk):
    with pytest.raises(ValidationError) as exc:
        complain(entry, dm_clerk, mode=Complaint.Mode.ORAL)
    assert "substance" in exc.value.message_dict
    assert not Complaint.objects.exists()

    complaint = complain(
        entry, dm_clerk, mode=Complaint.Mode.ORAL, substance="Cattle seized on his own land"
    )

    assert complaint.substance == "Cattle seized on his own land"


@pytest.mark.parametrize(
    "agent",
    [
        {"agent_name": "Mohan, grazier"},
        {"agent_acquaintance": "Was grazing the cattle when seized"},
        {"agent_name": " ", "agent_acquaintance": " "},
    ],
)
def test_complaint_through_an_agent_needs_a_personally_acquainted_agent(entry, dm_clerk, agent):
    with pytest.raises(ValidationError) as exc:
        complain(entry, dm_clerk, through_agent=True, **agent)

    assert "s.21" in exc.value.message_dict["agent_acquaintance"][0]
    assert not Complaint.objects.exists()
    assert not Event.objects.filter(action="complaint.recorded").exists()


def test_complaint_through_an_acquainted_agent_is_recorded(entry, dm_clerk):
    complaint = complain(
        entry,
        dm_clerk,
        through_agent=True,
        agent_name="Mohan, grazier",
        agent_acquaintance="Was grazing the cattle when they were seized",
    )

    assert complaint.through_agent is True


@pytest.mark.parametrize(
    ("filed_on", "field"),
    [(date(2026, 11, 19), "filed_on"), (date(2026, 11, 26), "filed_on")],
)
def test_complaint_dated_before_the_seizure_or_in_the_future_is_refused(
    entry, dm_clerk, filed_on, field
):
    with pytest.raises(ValidationError) as exc:
        complain(entry, dm_clerk, filed_on=filed_on)

    assert field in exc.value.message_dict
    assert not Complaint.objects.exists()


def test_complaint_cannot_name_another_entrys_deposit(pound, pound_keeper, entry, dm_clerk):
    other = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(11, 20, 9))
    foreign = deposit(other, pound_keeper, at=ist(11, 21, 10)).deposit

    with pytest.raises(ValidationError, match="another register entry"):
        complain(entry, dm_clerk, deposit=foreign)

    assert not Complaint.objects.exists()


@pytest.mark.parametrize("who", ["police_officer", "auditor", "outsider"])
def test_complaints_are_recorded_by_the_pound_or_the_dm_office_only(request, entry, who):
    with pytest.raises(PermissionDenied):
        complain(entry, request.getfixturevalue(who))

    assert not Complaint.objects.exists()


# --- deciding ---


def test_deciding_twice_is_refused(entry, held, dm_clerk, magistrate):
    complaint = complain(entry, dm_clerk, deposit=held)
    decide(complaint, magistrate, Complaint.Outcome.DISMISSED)

    with pytest.raises(ValidationError, match="already been decided"):
        decide(complaint, magistrate, Complaint.Outcome.UPHELD)

    complaint.refresh_from_db()
    held.refresh_from_db()
    assert (complaint.outcome, held.status) == ("dismissed", Deposit.Status.HELD)
    assert not SeizerLiability.objects.exists()
    assert Event.objects.filter(action__startswith="complaint.").count() == 2


@pytest.mark.parametrize("decided_on", [date(2026, 11, 21), date(2026, 11, 26)])
def test_decision_date_must_fall_between_filing_and_today(
    entry, held, dm_clerk, magistrate, decided_on
):
    complaint = complain(entry, dm_clerk, deposit=held)

    with pytest.raises(ValidationError) as exc:
        decide(complaint, magistrate, Complaint.Outcome.DISMISSED, decided_on=decided_on)

    assert "decided_on" in exc.value.message_dict
    complaint.refresh_from_db()
    assert complaint.outcome == "pending"


def test_decision_must_be_upheld_or_dismissed(entry, dm_clerk, magistrate):
    complaint = complain(entry, dm_clerk)

    with pytest.raises(ValidationError) as exc:
        decide(complaint, magistrate, Complaint.Outcome.PENDING)

    assert "outcome" in exc.value.message_dict


def test_ledger_is_clean_after_every_deposit_path(
    pound, pound_keeper, dm_clerk, magistrate, tariffs, time_machine
):
    entries = [
        make_entry(pound=pound, by=pound_keeper, arrived_at=ist(11, 20, 9), animals=[cow()])
        for _ in range(4)
    ]
    deposits = [deposit(e, pound_keeper, at=ist(11, 21, 10)).deposit for e in entries]
    upheld, dismissed, refunded, unclaimed = zip(entries, deposits, strict=True)
    decide(complain(upheld[0], dm_clerk, deposit=upheld[1]), magistrate, "upheld")
    decide(complain(dismissed[0], dm_clerk, deposit=dismissed[1]), magistrate, "dismissed")
    decide(complain(refunded[0], dm_clerk, deposit=refunded[1]), magistrate, "upheld")
    services.pay_deposit_refund(deposit=refunded[1], by=pound_keeper, mode="cash")
    services.apply_deposit(deposit=dismissed[1], by=magistrate)
    assert_ledger_clean()

    time_machine.move_to(ist(12, 1, 9), tick=False)
    services.apply_deposit(deposit=unclaimed[1], by=magistrate)

    statuses = [Deposit.objects.get(pk=d.pk).status for d in deposits]
    assert statuses == ["refund_due", "applied", "refunded", "applied"]
    assert_ledger_clean()
