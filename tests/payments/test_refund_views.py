"""The refund screens (docs/decisions/0083): the office prepares, another officer approves,
and a refund the gateway did not answer shows as pending. Another district's refund is a 404."""

import uuid

from django.urls import reverse

from payments import refunds
from payments.models import Refund, RefundState
from tests.payments.test_refunds import refundable  # noqa: F401 - the fixture


def test_the_clerk_prepares_and_the_magistrate_approves(
    client,
    refundable,  # noqa: F811
    dm_clerk,
    magistrate,
    fake_gateway,
):
    client.force_login(dm_clerk)
    listed = client.get(reverse("payments:refunds")).content.decode()
    url = reverse("payments:refund_prepare", args=[refundable.pk])
    assert url in listed
    response = client.post(url, {"idempotency_key": uuid.uuid4(), "reason": "animals_left"})
    refund = Refund.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(
        reverse("payments:refund", args=[refund.pk])
    )
    page = client.get(response["Location"]).content.decode()
    assert "Another officer" in page and 'name="decision"' not in page
    client.force_login(magistrate)
    detail = reverse("payments:refund", args=[refund.pk])
    assert 'name="decision"' in client.get(detail).content.decode()
    assert client.post(detail, {"decision": "approve"}).status_code == 302
    refund.refresh_from_db()
    assert refund.state == RefundState.REFUNDED


def test_the_preparer_cannot_decide_on_screen(client, refundable, magistrate, fake_gateway):  # noqa: F811
    refund = refunds.prepare_refund(
        payment=refundable, by=magistrate, reason="animals_left", idempotency_key=uuid.uuid4()
    )
    client.force_login(magistrate)
    response = client.post(reverse("payments:refund", args=[refund.pk]), {"decision": "approve"})
    assert response.status_code == 403
    refund.refresh_from_db()
    assert refund.state == RefundState.PREPARED


def test_a_timed_out_refund_shows_pending(
    client,
    refundable,  # noqa: F811
    dm_clerk,
    magistrate,
    fake_gateway,
    settings,
):
    settings.PAYMENT_GATEWAY_TIMEOUT = 0.5
    fake_gateway.refund_mode = "timeout"
    refund = refunds.prepare_refund(
        payment=refundable, by=dm_clerk, reason="animals_left", idempotency_key=uuid.uuid4()
    )
    client.force_login(magistrate)
    client.post(reverse("payments:refund", args=[refund.pk]), {"decision": "approve"})
    page = client.get(reverse("payments:refund", args=[refund.pk])).content.decode()
    assert "Refund pending" in page and "Refund failed" not in page


def test_another_districts_refund_is_a_404(client, refundable, dm_clerk, outsider, fake_gateway):  # noqa: F811
    refund = refunds.prepare_refund(
        payment=refundable, by=dm_clerk, reason="animals_left", idempotency_key=uuid.uuid4()
    )
    client.force_login(outsider)
    assert client.get(reverse("payments:refund", args=[refund.pk])).status_code in (403, 404)
    assert client.get(reverse("payments:refund_prepare", args=[refundable.pk])).status_code in (
        403,
        404,
    )
