"""ADR 0083 in a real browser, in English and Hindi, at 360 px and 1280 px with axe: the office
clerk prepares the refund of an online payment whose animals died, and the Magistrate approves
it; the fake gateway on loopback refunds it."""

import uuid

import pytest
from django.urls import reverse

from payments import refunds
from payments.models import Refund, RefundState
from tests.browser.conftest import at_both_widths, sign_in
from tests.payments.conftest import entry, fake_gateway  # noqa: F401 - fixtures
from tests.payments.test_refunds import all_died, paid

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(
    ("lang", "prepare", "decide", "approve", "refunded"),
    [
        ("en", "Prepare the refund", "Record the decision", "Approve and send the refund",
         "Refunded"),
        ("hi", "वापसी तैयार करें", "निर्णय दर्ज करें", "स्वीकृत करें और वापसी भेजें",
         "वापस कर दी गई"),
    ],
)  # fmt: skip
def test_the_refund_is_prepared_and_approved(
    page,
    live_server,
    entry,  # noqa: F811
    pound_keeper,
    dm_clerk,
    magistrate,
    fake_gateway,  # noqa: F811
    lang,
    prepare,
    decide,
    approve,
    refunded,
):
    base = live_server.url
    payment = paid(entry, pound_keeper, fake_gateway)
    all_died(entry, pound_keeper)

    sign_in(page, base, "dm_clerk", lang)
    page.goto(base + reverse("payments:refunds"))
    at_both_widths(page, f"refunds-list-{lang}")
    page.goto(base + reverse("payments:refund_prepare", args=[payment.pk]))
    page.locator("input[name=reason]").first.check()
    at_both_widths(page, f"refund-prepare-{lang}")
    page.get_by_role("button", name=prepare).click()
    refund = Refund.objects.get()
    page.wait_for_url(base + reverse("payments:refund", args=[refund.pk]))

    sign_in(page, base, "magistrate", lang)
    page.goto(base + reverse("payments:refund", args=[refund.pk]))
    page.get_by_label(approve, exact=True).check()
    at_both_widths(page, f"refund-decide-{lang}")
    page.get_by_role("button", name=decide).click()
    page.wait_for_url(base + reverse("payments:refund", args=[refund.pk]))
    assert page.get_by_test_id("refund-state").inner_text() == refunded
    at_both_widths(page, f"refund-done-{lang}")
    refund.refresh_from_db()
    assert refund.state == RefundState.REFUNDED


def test_a_pending_refund_reads_pending_in_hindi(
    page,
    live_server,
    entry,  # noqa: F811
    pound_keeper,
    dm_clerk,
    magistrate,
    fake_gateway,  # noqa: F811
    settings,
):
    settings.PAYMENT_GATEWAY_TIMEOUT = 0.5
    fake_gateway.refund_mode = "timeout"
    payment = paid(entry, pound_keeper, fake_gateway)
    all_died(entry, pound_keeper)
    refund = refunds.prepare_refund(
        payment=payment, by=dm_clerk, reason="animals_left", idempotency_key=uuid.uuid4()
    )
    refunds.approve_refund(refund=refund, by=magistrate)
    sign_in(page, live_server.url, "magistrate", "hi")
    page.goto(live_server.url + reverse("payments:refund", args=[refund.pk]))
    assert "वापसी लंबित" in page.get_by_test_id("refund-state").inner_text()
    at_both_widths(page, "refund-pending-hi")
