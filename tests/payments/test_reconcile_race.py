"""Two clerks import overlapping statements at once (docs/decisions/0082): each line is stored
once and the payment it shows is settled once."""

import pytest

from accounts.roles import Role
from kernel.events import verify_chain
from ledger.checks import run_checks
from payments import reconcile
from payments.models import PaymentEvent, PaymentState, StatementLine
from tests.accounts.factories import staff
from tests.impounding.factories import cow, make_entry
from tests.impounding.test_concurrency import race
from tests.payments.test_reconcile import HERE, payment

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_overlapping_statements_imported_at_once_settle_the_payment_once(
    district, dm_clerk, pound, pound_keeper, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    paid = payment(entry, pound_keeper, "PA261204PAY0000001", "1250.00")
    other_clerk = staff(Role.DM_CLERK, "dm_clerk_2", district=district)

    def importing(name, by):
        return lambda: reconcile.import_statement(
            district=district, by=by, data=(HERE / name).read_bytes(), kind="mt940"
        )

    _results, errors = race(
        importing("sbi-2026-12-04.mt940", dm_clerk),
        importing("sbi-2026-12-05-overlapping.mt940", other_clerk),
    )
    assert errors == [None, None]
    assert StatementLine.objects.filter(utr="634012345678").count() == 1
    paid.refresh_from_db()
    assert paid.state == PaymentState.SUCCEEDED
    assert PaymentEvent.objects.filter(payment=paid, source="statement").count() == 1
    assert run_checks() == [] and verify_chain() == []
