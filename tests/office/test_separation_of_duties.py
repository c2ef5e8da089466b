"""Separation of duties: whoever sends or prepares a record does not confirm or decide it, and
every decision names both people; cash out of a pound's till is the pound-keeper's, or the
office's on a written authority it records."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from auctions import services as sales
from auctions.models import DisposalOrder
from impounding import services as impounding
from impounding.models import Complaint, Deposit
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from office import services as office
from office.models import Remittance
from tests.auctions.factories import conditions, ready_for_sale
from tests.impounding.factories import cow
from tests.impounding.test_deposits import complain, decide, entry, held  # noqa: F401
from tests.office.factories import fines_collected, remit


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


# --- Remittances: the sender does not confirm --------------------------------------------------


@pytest.fixture
def sent_by_clerk(pound, pound_keeper, dm_clerk, tariffs):
    fines_collected(pound, pound_keeper)
    # The office pays out of the pound's till only on a written authority it records.
    return remit(pound, dm_clerk, "15000.00", authority="DM order 7/2026 of 1 Dec 2026")


def test_the_clerk_who_sent_a_remittance_may_not_confirm_it(sent_by_clerk, dm_clerk):
    with pytest.raises(PermissionDenied, match="another person"):
        office.confirm_remittance(remittance=sent_by_clerk, by=dm_clerk)

    sent_by_clerk.refresh_from_db()
    assert sent_by_clerk.status == Remittance.Status.SENT


def test_a_confirmation_names_who_sent_and_who_confirmed(sent_by_clerk, dm_clerk, magistrate):
    office.confirm_remittance(remittance=sent_by_clerk, by=magistrate)

    event = Event.objects.get(action="ledger.remittance_confirmed")
    assert (event.data["sent_by"], event.data["confirmed_by"]) == (dm_clerk.pk, magistrate.pk)
    assert dm_clerk.username in event.summary and magistrate.username in event.summary


@pytest.mark.postgres
def test_the_database_refuses_a_remittance_confirmed_by_its_sender(sent_by_clerk, dm_clerk):
    with pytest.raises(IntegrityError), transaction.atomic():
        Remittance.objects.filter(pk=sent_by_clerk.pk).update(
            status="confirmed", confirmed_by=dm_clerk, confirmed_at=sent_by_clerk.sent_at
        )


def test_the_confirm_page_refuses_the_sender(client, sent_by_clerk, dm_clerk):
    client.force_login(dm_clerk)
    url = reverse("office:remittance_confirm", args=[sent_by_clerk.pk])

    assert client.get(url).status_code == 403
    assert client.post(url, {"checked": "on"}).status_code == 403
    sent_by_clerk.refresh_from_db()
    assert sent_by_clerk.status == Remittance.Status.SENT


# --- The Magistrate's orders: the preparer does not decide --------------------------------------


@pytest.fixture
def unclaimed(pound, district, pound_keeper, police_officer, tariffs):
    conditions(district)
    reported, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow()]
    )
    return reported


def _propose(pound, by, reported):
    return sales.propose_disposal(
        pound=pound,
        animal_ids=[a.pk for a in reported.animals.all()],
        by=by,
        reason="Old and lame: no bid at two auctions",
        mode=DisposalOrder.Mode.GAUSHALA,
        recipient="Gaushala",
    )


def test_the_magistrate_may_not_approve_an_order_he_prepared(pound, unclaimed, magistrate):
    order = _propose(pound, magistrate, unclaimed)

    with pytest.raises(PermissionDenied, match="another person"):
        sales.decide_disposal(order=order, by=magistrate, approve=True)

    order.refresh_from_db()
    assert order.status == DisposalOrder.Status.PROPOSED


def test_an_approval_names_who_prepared_and_who_approved(pound, unclaimed, dm_clerk, magistrate):
    order = _propose(pound, dm_clerk, unclaimed)

    sales.decide_disposal(order=order, by=magistrate, approve=True)

    event = Event.objects.get(action="disposal.approved")
    assert (event.data["prepared_by"], event.data["decided_by"]) == (dm_clerk.pk, magistrate.pk)


@pytest.mark.postgres
def test_the_database_refuses_an_order_decided_by_its_preparer(pound, unclaimed, magistrate):
    order = _propose(pound, magistrate, unclaimed)

    with pytest.raises(IntegrityError), transaction.atomic():
        DisposalOrder.objects.filter(pk=order.pk).update(status="rejected", decided_by=magistrate)


# --- Cash out of the till ------------------------------------------------------------------


@pytest.fixture
def refund_due(entry, held, dm_clerk, magistrate):  # noqa: F811
    decide(complain(entry, dm_clerk, deposit=held), magistrate, Complaint.Outcome.UPHELD)
    return held


@pytest.mark.parametrize("who", ["police_officer", "magistrate", "auditor"])
def test_only_the_keeper_or_the_office_pays_a_refund_out_of_the_till(request, refund_due, who):
    with pytest.raises(PermissionDenied, match="out of the till"):
        impounding.pay_deposit_refund(
            deposit=refund_due, by=request.getfixturevalue(who), mode="cash"
        )

    refund_due.refresh_from_db()
    assert refund_due.status == Deposit.Status.REFUND_DUE


def test_the_office_pays_out_of_the_till_only_on_a_recorded_authority(refund_due, dm_clerk):
    with pytest.raises(ValidationError, match="written authority"):
        impounding.pay_deposit_refund(deposit=refund_due, by=dm_clerk, mode="cash")

    impounding.pay_deposit_refund(
        deposit=refund_due, by=dm_clerk, mode="cash", authority="DM order 12/2026 of 25-11-2026"
    )

    refund_due.refresh_from_db()
    assert refund_due.status == Deposit.Status.REFUNDED
    assert refund_due.refund_authority == "DM order 12/2026 of 25-11-2026"
    event = Event.objects.get(action="deposit.refunded")
    assert event.data["authority"] == "DM order 12/2026 of 25-11-2026"


def test_the_keeper_pays_a_refund_without_further_authority(refund_due, pound_keeper):
    impounding.pay_deposit_refund(deposit=refund_due, by=pound_keeper, mode="cash")

    refund_due.refresh_from_db()
    assert (refund_due.status, refund_due.refund_authority) == (Deposit.Status.REFUNDED, "")
