"""A UPI payment made straight from the demand slip's QR code (docs/decisions/0082): recorded
MT940 and CSV statements whose narration carries the entry's reference (`tr`) with no gateway
order behind it. The dues of that day, exactly, are recorded as the entry's payment and settled
by the line, once; another amount waits in the review queue; a release then takes the payment."""

from datetime import datetime
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from impounding.upi import dues_reference
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from payments import reconcile
from payments.models import LineState, Payment, PaymentEvent, PaymentState, StatementLine
from tests.impounding.factories import cow, make_entry
from tests.payments.helpers import release_on

HERE = Path(__file__).parent / "statements"
IST = ZoneInfo("Asia/Kolkata")
ARRIVED = datetime(2026, 12, 3, 9, 0, tzinfo=IST)


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture(autouse=True)
def evening_of_the_statement(time_machine):
    """The statements are imported, and the cattle released, on the evening of their day."""
    time_machine.move_to(datetime(2026, 12, 4, 20, 0, tzinfo=IST), tick=True)


@pytest.fixture
def entries(pound, pound_keeper, tariffs):
    """Two entries of the recorded statements' pound: BLY-1/2026/00042 (one cow, dues of
    ₹21,000.00 on 04-12-2026) and BLY-1/2026/00043 (two cows, ₹42,000.00)."""
    pound.code = "bly-1"
    pound.save(update_fields=["code"])
    made = []
    for number, cows in ((42, 1), (43, 2)):
        entry = make_entry(
            pound=pound, by=pound_keeper, animals=[cow() for _ in range(cows)], arrived_at=ARRIVED
        )
        entry.register_number = f"BLY-1/2026/{number:05d}"
        entry.save(update_fields=["register_number"])
        made.append(entry)
    assert dues_reference(made[0], ARRIVED.replace(day=4)) == "BLY1202600042-041226"
    return made


def imported(district, by, name, kind, bank=""):
    data = (HERE / name).read_bytes()
    return reconcile.import_statement(
        district=district, by=by, data=data, kind=kind, bank=bank, file_name=name
    )


def test_the_mt940_line_naming_the_slip_s_reference_records_and_settles_the_payment(
    district, dm_clerk, entries
):
    _statement, new = imported(district, dm_clerk, "upi-qr-2026-12-04.mt940", "mt940")
    assert [line.state for line in new] == ["matched", "review", "unmatched"]
    payment = Payment.objects.get()
    assert (payment.impoundment, payment.amount, payment.reference, payment.state) == (
        entries[0],
        Decimal("21000.00"),
        "BLY1202600042-041226",
        PaymentState.SUCCEEDED,
    )
    assert payment.statement_line == new[0] and payment.gateway_reference == "634055555501"
    assert payment.created_by == dm_clerk
    assert list(
        PaymentEvent.objects.filter(payment=payment).values_list("new_state", flat=True)
    ) == ["pending", "succeeded"]
    assert "another amount" in new[1].reason  # ₹40,000 of ₹42,000 dues: a person decides
    assert not Payment.objects.filter(impoundment=entries[1]).exists()
    assert Event.objects.filter(action="reconcile.line_matched").count() == 1


def test_the_csv_line_settles_as_the_mt940_and_a_second_credit_of_the_slip_waits(
    district, dm_clerk, entries
):
    _statement, new = imported(district, dm_clerk, "upi-qr-2026-12-04.csv", "csv", "generic")
    assert [line.state for line in new] == ["matched", "review", "review"]
    assert Payment.objects.filter(impoundment=entries[0]).count() == 1
    assert "already" in new[1].reason  # the same slip paid twice is not recorded twice


def test_a_line_in_both_statements_records_one_payment(district, dm_clerk, entries):
    imported(district, dm_clerk, "upi-qr-2026-12-04.mt940", "mt940")
    _statement, new = imported(district, dm_clerk, "upi-qr-2026-12-04.csv", "csv", "generic")
    assert [line.utr for line in new] == ["634055555504"]  # the others came in the MT940
    assert StatementLine.objects.filter(utr="634055555501").count() == 1
    assert Payment.objects.count() == 1
    assert new[0].state == LineState.REVIEW


def test_a_release_takes_the_payment_and_it_is_reconciled(
    district, dm_clerk, pound_keeper, entries
):
    imported(district, dm_clerk, "upi-qr-2026-12-04.mt940", "mt940")
    payment = Payment.objects.get()
    release_on(payment, pound_keeper)
    payment.refresh_from_db()
    assert payment.state == PaymentState.RECONCILED
