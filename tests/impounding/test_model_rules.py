"""Receipt cancellation's maker-checker rule lives on the model: whoever asked for a cancellation
does not decide it, even when he also holds a post in the District Magistrate's office. The
service and the decision page both ask `ReceiptCancellation.check_decider`."""

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from accounts.roles import Role
from impounding import services
from impounding.models import ReceiptCancellation
from tests.accounts.factories import StaffAssignmentFactory
from tests.impounding.factories import cow, make_entry, pay

REFUSAL = "You asked for this cancellation: another person decides it."
REASON = "Paid for the wrong entry: the owner of P/17 paid for P/18"


def test_a_cancellation_may_be_decided_by_anyone_but_who_asked(pound_keeper, dm_clerk):
    asked = ReceiptCancellation(requested_by=pound_keeper)

    assert not asked.may_be_decided_by(pound_keeper)
    assert asked.may_be_decided_by(dm_clerk)
    asked.check_decider(dm_clerk)
    with pytest.raises(PermissionDenied) as refused:
        asked.check_decider(pound_keeper)
    assert str(refused.value) == REFUSAL


@pytest.fixture
def keeper_in_the_office(pound_keeper, district):
    """A pound-keeper who also holds a clerk's post in the office: both roles, one person."""
    StaffAssignmentFactory(user=pound_keeper, role=Role.DM_CLERK, district=district)
    return pound_keeper


@pytest.fixture
def asked(pound, keeper_in_the_office, tariffs):
    paid = pay(
        make_entry(pound=pound, by=keeper_in_the_office, animals=[cow()]), keeper_in_the_office
    )
    return services.ask_receipt_cancellation(
        receipt=paid.receipt, by=keeper_in_the_office, reason=REASON
    )


def test_the_office_refuses_the_keeper_who_asked(asked, keeper_in_the_office):
    with pytest.raises(PermissionDenied) as refused:
        services.decide_receipt_cancellation(
            cancellation=asked, by=keeper_in_the_office, approve=True
        )

    assert str(refused.value) == REFUSAL
    asked.refresh_from_db()
    assert asked.status == ReceiptCancellation.Status.PENDING


def test_the_decision_page_refuses_the_keeper_who_asked(client, asked, keeper_in_the_office):
    client.force_login(keeper_in_the_office)
    url = reverse("impounding:receipt_cancellation_decide", args=[asked.pk])

    assert client.get(url).status_code == 403
    assert client.post(url, {"approve": "true"}).status_code == 403
    asked.refresh_from_db()
    assert (asked.status, asked.decided_by) == (ReceiptCancellation.Status.PENDING, None)
