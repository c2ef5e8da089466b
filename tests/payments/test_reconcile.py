"""The bank statement's reconciliation (docs/decisions/0082): recorded MT940 and CSV statements
stored once, their credits matched to payments, the rest in a review queue that another person
than the importer settles, and the Magistrate's dashboard counting what is unreconciled."""

from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from payments import reconcile
from payments.models import (
    BankStatement,
    LineState,
    Payment,
    PaymentEvent,
    PaymentState,
    StatementLine,
)
from payments.statements import read_csv, read_mt940
from tests.impounding.factories import cow, make_entry

HERE = Path(__file__).parent / "statements"


def data(name):
    return (HERE / name).read_bytes()


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


# The recorded statements' day: the payments they show were started that morning.
STATEMENT_DAY = datetime(2026, 12, 4, 9, 0, tzinfo=ZoneInfo("Asia/Kolkata"))


def payment(entry, by, reference, amount, state=PaymentState.PENDING, **kw):
    settled = STATEMENT_DAY if state == PaymentState.SUCCEEDED else None
    made = Payment.objects.create(
        impoundment=entry,
        animal_ids=list(entry.animals.values_list("pk", flat=True)),
        amount=Decimal(amount),
        gateway="sbiepay",
        reference=reference,
        created_by=by,
        state=state,
        settled_at=settled,
        **kw,
    )
    Payment.objects.filter(pk=made.pk).update(created_at=STATEMENT_DAY)
    return made


@pytest.fixture
def payments(pound, pound_keeper, tariffs):
    """The three payments the recorded statement shows: one pending, one the gateway
    confirmed (its UTR known), and one whose credit is for another amount."""
    entries = [make_entry(pound=pound, by=pound_keeper, animals=[cow()]) for _ in range(3)]
    return [
        payment(entries[0], pound_keeper, "PA261204PAY0000001", "1250.00"),
        payment(
            entries[1],
            pound_keeper,
            "PA261204PAY0000002",
            "800.00",
            state=PaymentState.SUCCEEDED,
            gateway_reference="AXISN26338123456",
        ),
        payment(entries[2], pound_keeper, "PA261204PAY0000003", "1000.00"),
    ]


def imported(district, by, name="sbi-2026-12-04.mt940", kind="mt940", bank=""):
    return reconcile.import_statement(
        district=district, by=by, data=data(name), kind=kind, bank=bank, file_name=name
    )


# --- Reading ---------------------------------------------------------------------------------


def test_the_mt940_statement_reads_into_lines_with_decimal_amounts_and_utrs():
    read = read_mt940(data("sbi-2026-12-04.mt940"))
    assert read.statement_id == "SBIN0001234/00000038123456789/00231"
    assert [(str(line.amount), line.utr) for line in read.lines] == [
        ("1250.00", "634012345678"),
        ("800.00", "AXISN26338123456"),
        ("500.00", "634099999999"),
        ("975.00", "634011111111"),
        ("-150.00", ""),
    ]
    assert all(isinstance(line.amount, Decimal) for line in read.lines)
    assert "PA261204PAY0000001" in read.lines[0].narration


def test_each_bank_s_csv_reads_through_its_column_map():
    sbi = read_csv(data("sbi-2026-12-04.csv"), "sbi").lines
    assert [(str(line.amount), line.utr, str(line.value_date)) for line in sbi] == [
        ("1250.00", "634012345678", "2026-12-04"),
        ("800.00", "AXISN26338123456", "2026-12-04"),
        ("-150.00", "", "2026-12-04"),
    ]
    generic = read_csv(data("generic-2026-12-04.csv"), "generic").lines
    assert [(line.bank_reference, line.utr) for line in generic][:2] == [
        ("BR0001", "634012345678"),
        ("BR0002", "634099999999"),
    ]


def test_a_csv_in_another_bank_s_columns_is_refused_with_the_missing_columns():
    with pytest.raises(ValidationError, match="value_date"):
        read_csv(data("sbi-2026-12-04.csv"), "generic")


def test_a_file_that_is_no_mt940_is_refused():
    with pytest.raises(ValidationError, match="MT940"):
        read_mt940(b"hello, world\n")


# --- Import and automatic matching -----------------------------------------------------------


def test_the_statement_settles_the_payments_it_names_and_queues_the_rest(
    district, dm_clerk, payments
):
    statement, new = imported(district, dm_clerk)
    states = [line.state for line in new]
    assert states == ["matched", "matched", "unmatched", "review", "debit"]
    pending, confirmed, other_amount = (Payment.objects.get(pk=p.pk) for p in payments)
    # The pending payment becomes succeeded through the state machine, as a callback would.
    assert pending.state == PaymentState.SUCCEEDED and pending.statement_line == new[0]
    assert pending.gateway_reference == "634012345678"
    assert PaymentEvent.objects.filter(payment=pending, source="statement").get().new_state == (
        "succeeded"
    )
    # The gateway's UTR matched the confirmed one; it stays succeeded, now on the statement.
    assert confirmed.state == PaymentState.SUCCEEDED and confirmed.statement_line == new[1]
    # Another amount is never settled by itself.
    assert other_amount.state == PaymentState.PENDING and other_amount.statement_line is None
    assert "another amount" in new[3].reason
    assert Event.objects.filter(action="reconcile.line_matched").count() == 2
    assert Event.objects.filter(action="reconcile.statement_imported").count() == 1
    assert statement.kind == "mt940"


def test_the_same_statement_twice_is_refused_and_stores_nothing_again(district, dm_clerk, payments):
    imported(district, dm_clerk)
    with pytest.raises(ValidationError, match="imported before"):
        imported(district, dm_clerk)
    assert BankStatement.objects.count() == 1 and StatementLine.objects.count() == 5


def test_a_line_in_two_statements_is_stored_and_settles_once(district, dm_clerk, payments):
    imported(district, dm_clerk)
    _statement, new = imported(district, dm_clerk, "sbi-2026-12-05-overlapping.mt940")
    assert [line.utr for line in new] == ["634022222222"]  # the repeated line is skipped
    assert StatementLine.objects.filter(utr="634012345678").count() == 1
    assert PaymentEvent.objects.filter(payment=payments[0], source="statement").count() == 1


def test_a_csv_statement_settles_like_the_mt940(district, dm_clerk, payments):
    _statement, new = imported(district, dm_clerk, "sbi-2026-12-04.csv", "csv", "sbi")
    assert [line.state for line in new] == ["matched", "matched", "debit"]
    _statement, new = imported(district, dm_clerk, "generic-2026-12-04.csv", "csv", "generic")
    # Its first line is the SBI file's first credit again (the same UTR): stored once.
    assert [(line.utr, line.state) for line in new] == [
        ("634099999999", "unmatched"),
        ("", "debit"),
    ]
    assert StatementLine.objects.filter(utr="634012345678").count() == 1


def test_only_the_district_s_office_imports(district, pound_keeper, payments):
    with pytest.raises(PermissionDenied):
        imported(district, pound_keeper)


def test_another_district_s_payment_is_not_matched(other_district, other_pound, payments):
    from tests.accounts.factories import staff

    clerk = staff("dm_clerk", "other-clerk", district=other_district)
    _statement, new = imported(other_district, clerk)
    assert {line.state for line in new} == {"unmatched", "debit"}
    assert Payment.objects.get(pk=payments[0].pk).state == PaymentState.PENDING


# --- The review queue, maker and checker -----------------------------------------------------


def queued(district, dm_clerk):
    _statement, new = imported(district, dm_clerk)
    return new[2], new[3]  # no payment named; another amount


def test_whoever_imported_may_not_match_a_line(district, dm_clerk, payments):
    _unknown, other_amount = queued(district, dm_clerk)
    with pytest.raises(PermissionDenied, match="another person"):
        reconcile.match_by_hand(line=other_amount, reference="PA261204PAY0000003", by=dm_clerk)
    with pytest.raises(PermissionDenied):
        reconcile.set_aside(line=other_amount, by=dm_clerk, note="not ours")


def test_a_reviewer_matches_only_the_exact_amount_and_sets_aside_with_a_reason(
    district, dm_clerk, magistrate, payments
):
    unknown, other_amount = queued(district, dm_clerk)
    with pytest.raises(ValidationError, match="another amount"):
        reconcile.match_by_hand(line=other_amount, reference="PA261204PAY0000003", by=magistrate)
    with pytest.raises(ValidationError, match="No payment"):
        reconcile.match_by_hand(line=unknown, reference="PA-NONE", by=magistrate)
    with pytest.raises(ValidationError, match="Say why"):
        reconcile.set_aside(line=unknown, by=magistrate, note=" ")
    reconcile.set_aside(line=unknown, by=magistrate, note="A fee of another office")
    unknown.refresh_from_db()
    assert (unknown.state, unknown.decided_by) == (LineState.SET_ASIDE, magistrate)
    with pytest.raises(ValidationError, match="already settled"):
        reconcile.set_aside(line=unknown, by=magistrate, note="again")
    assert Event.objects.filter(action="reconcile.line_set_aside").count() == 1


def test_a_reviewer_matches_a_line_to_a_pending_payment_once(
    district, dm_clerk, magistrate, pound_keeper, payments, tariffs, pound
):
    unknown, _other = queued(district, dm_clerk)
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    late = payment(entry, pound_keeper, "PA261204PAY0000009", "500.00")
    reconcile.match_by_hand(line=unknown, reference="pa261204pay0000009", by=magistrate)
    late.refresh_from_db()
    assert late.state == PaymentState.SUCCEEDED and late.statement_line == unknown
    assert PaymentEvent.objects.get(payment=late, source="statement").by == magistrate


def test_the_database_refuses_the_importer_as_decider(district, dm_clerk, payments):
    from django.db import IntegrityError, transaction

    unknown, _other = queued(district, dm_clerk)
    unknown.decided_by = dm_clerk
    with pytest.raises(IntegrityError), transaction.atomic():
        unknown.save()


# --- The screens -------------------------------------------------------------------------------


def test_the_upload_page_imports_and_lists_the_queue(client, district, dm_clerk, payments):
    client.force_login(dm_clerk)
    url = reverse("payments:reconcile")
    with (HERE / "sbi-2026-12-04.mt940").open("rb") as f:
        response = client.post(url, {"district": district.pk, "kind": "mt940", "file": f})
    assert response.status_code == 302
    page = client.get(url).content.decode()
    assert "634099999999" in page and "634011111111" in page and "634012345678" not in page
    with (HERE / "sbi-2026-12-04.mt940").open("rb") as f:
        again = client.post(url, {"district": district.pk, "kind": "mt940", "file": f})
    assert "imported before" in again.content.decode()


def test_a_csv_upload_without_its_bank_is_refused_beside_the_field(client, district, dm_clerk):
    client.force_login(dm_clerk)
    with (HERE / "sbi-2026-12-04.csv").open("rb") as f:
        response = client.post(
            reverse("payments:reconcile"), {"district": district.pk, "kind": "csv", "file": f}
        )
    assert response.status_code == 200
    assert "Choose the bank" in response.content.decode()


def test_the_importer_is_refused_on_the_review_page_and_the_reviewer_matches(
    client, district, dm_clerk, magistrate, payments
):
    unknown, _other = queued(district, dm_clerk)
    url = reverse("payments:review_line", args=[unknown.pk])
    client.force_login(dm_clerk)
    assert "another person" in client.get(url).content.decode()
    refused = client.post(url, {"action": "set_aside", "aside-note": "not ours"})
    assert refused.status_code == 403
    client.force_login(magistrate)
    done = client.post(url, {"action": "set_aside", "aside-note": "A fee of another office"})
    assert done.status_code == 302
    unknown.refresh_from_db()
    assert unknown.state == LineState.SET_ASIDE


def test_another_district_s_line_is_a_404(client, district, dm_clerk, other_district, payments):
    from tests.accounts.factories import staff

    clerk = staff("dm_clerk", "other-clerk", district=other_district)
    _statement, new = imported(other_district, clerk)
    client.force_login(dm_clerk)
    response = client.get(reverse("payments:review_line", args=[new[0].pk]))
    assert response.status_code == 404


def test_a_pound_keeper_may_not_open_the_reconciliation(client, pound_keeper):
    client.force_login(pound_keeper)
    assert client.get(reverse("payments:reconcile")).status_code == 403


# --- The Magistrate's dashboard -----------------------------------------------------------------


def test_the_dashboard_counts_what_is_unreconciled_after_three_days(
    client, district, dm_clerk, magistrate, payments
):
    imported(district, dm_clerk)
    later = STATEMENT_DAY + timedelta(days=30)
    # Two credits wait (no payment; another amount); the pending one is not confirmed.
    assert reconcile.unreconciled([district.pk], now=later) == {"lines": 2, "payments": 0}
    assert reconcile.unreconciled([district.pk], now=STATEMENT_DAY + timedelta(days=1)) == {
        "lines": 0,
        "payments": 0,
    }
    Payment.objects.filter(pk=payments[0].pk).update(statement_line=None)
    assert reconcile.unreconciled([district.pk], now=timezone.now() + timedelta(days=30)) == {
        "lines": 2,
        "payments": 1,
    }
    StatementLine.objects.update(value_date=timezone.localdate())

    client.force_login(magistrate)
    client.get(reverse("office:office"))  # the charts keep their closed months the first time
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("office:office"))
    StatementLine.objects.open().update(value_date=timezone.localdate() - timedelta(days=10))
    with CaptureQueriesContext(connection) as many:
        page = client.get(reverse("office:office")).content.decode()
    assert len(many.captured_queries) == len(few.captured_queries)
    assert "2 statement lines" in page and reverse("payments:reconcile") in page
