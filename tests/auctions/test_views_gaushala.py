"""The gaushala screens (ADR 0070): the register kept by the DM's office, the handover order
prepared by the clerk and approved by the Magistrate on the disposal decision screen, the
certificate, and the upkeep claims; each refuses the wrong role (403) and another district's
record (404), and a GET changes nothing."""

import uuid
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from auctions.models import Auction, DisposalOrder, Gaushala, UpkeepClaim
from auctions.services import gaushala as gaushalas
from ledger.checks import run_checks
from tests.accounts.factories import staff
from tests.auctions.factories import conditions, ready_for_sale
from tests.auctions.test_gaushala import BODY, hand_over
from tests.auctions.test_views_auction import local, schedule_data
from tests.rulepacks.factories import take


@pytest.fixture
def cow_entry(district, pound, pound_keeper, police_officer, tariffs):
    take(district, "up")
    conditions(district)
    entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    return entry


@pytest.fixture
def body(district, dm_clerk):
    return gaushalas.register_gaushala(district=district, by=dm_clerk, **BODY)


def form(**fields):
    return {"idempotency_key": str(uuid.uuid4()), **fields}


def test_the_register_asks_for_a_sign_in(client):
    response = client.get(reverse("auctions:gaushalas"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_a_pound_keeper_may_not_add_a_body(client, pound_keeper):
    client.force_login(pound_keeper)
    assert client.get(reverse("auctions:gaushala_new")).status_code == 403


def test_another_districts_body_is_not_found(client, other_district, body):
    client.force_login(staff(Role.DM_CLERK, district=other_district))
    assert client.get(reverse("auctions:gaushala_edit", args=[body.pk])).status_code == 404


def test_the_clerk_adds_a_body_and_errors_show_beside_the_fields(client, dm_clerk):
    client.force_login(dm_clerk)
    url = reverse("auctions:gaushala_new")
    assert client.get(url).status_code == 200
    assert not Gaushala.objects.exists()

    bad = client.post(url, form(**{**BODY, "rate_authority": "", "active": "on"}))
    assert bad.status_code == 200 and "data-error-summary" in bad.text
    sent = form(**{**BODY, "active": "on"})
    assert client.post(url, sent).status_code == 302
    assert client.post(url, sent).status_code == 302  # sent twice: one body
    assert Gaushala.objects.get().name == BODY["name"]
    page = client.get(reverse("auctions:gaushalas"))
    assert BODY["name"] in page.text and "0 / 2" in page.text


def test_clerk_prepares_and_magistrate_approves_a_handover_then_a_claim(
    client, pound, cow_entry, body, dm_clerk, magistrate
):
    client.force_login(dm_clerk)
    cow = cow_entry.animals.get()
    response = client.post(
        reverse("auctions:handover_new"),
        form(gaushala=body.pk, animals=[cow.pk], reason="The State's law forbids the sale"),
    )
    assert response.status_code == 302
    order = DisposalOrder.objects.get()
    assert order.handover.gaushala == body

    client.force_login(magistrate)
    decide = reverse("auctions:disposal_decide", args=[order.pk])
    assert client.post(decide, {"approve": "1"}).status_code == 302
    order.refresh_from_db()
    assert order.status == "approved" and order.handover.certificate is not None
    pdf = client.get(reverse("auctions:handover_certificate_pdf", args=[order.pk]))
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"

    first = (order.handover.received_on.replace(day=1) + timedelta(days=32)).replace(day=1)
    with time_machine.travel(first + timedelta(days=40)):
        client.force_login(dm_clerk)
        days = gaushalas.animal_days(body, first)
        sent = form(gaushala=body.pk, month=f"{first:%Y-%m}", animal_days=days)
        assert client.post(reverse("auctions:upkeep_claim_new"), sent).status_code == 302
        claim = UpkeepClaim.objects.get()
        refused = client.get(reverse("auctions:upkeep_claim_decide", args=[claim.pk]))
        assert refused.status_code == 403
        client.force_login(magistrate)
        url = reverse("auctions:upkeep_claim_decide", args=[claim.pk])
        assert client.post(url, {"approve": "1"}).status_code == 302
        client.force_login(dm_clerk)
        pay = reverse("auctions:upkeep_claim_pay", args=[claim.pk])
        paid = {"payment_mode": "other", "payment_reference": "NEFT 1"}
        assert client.post(pay, paid).status_code == 302
    claim.refresh_from_db()
    assert claim.status == "paid"
    assert claim.number in client.get(reverse("auctions:upkeep_claims")).text
    assert run_checks() == []


def test_a_claim_beyond_the_animal_days_shows_the_error(client, body, dm_clerk):
    client.force_login(dm_clerk)
    sent = form(gaushala=body.pk, month="2026-01", animal_days=5)
    with time_machine.travel("2026-03-01"):
        response = client.post(reverse("auctions:upkeep_claim_new"), sent)
    assert response.status_code == 200 and "data-error-summary" in response.text
    assert not UpkeepClaim.objects.exists()


# --- The auction screen under a pack that forbids the sale of cattle ---------------------------


def test_the_auction_screen_refuses_a_cow_under_the_up_pack(
    client, pound, police_officer, cow_entry
):
    client.force_login(police_officer)
    cow = cow_entry.animals.get()
    data = schedule_data(
        [cow.pk], when=local(timezone.now() + timedelta(hours=1)), officer=police_officer
    )
    response = client.post(reverse("auctions:auction_new") + f"?pound={pound.pk}", data)

    assert response.status_code == 200
    assert "may not be sold at auction" in response.text
    assert "Uttar Pradesh Prevention of Cow Slaughter Act" in response.text
    assert not Auction.objects.exists()


def test_a_handed_over_cow_is_not_offered_on_the_auction_screen(
    client, pound, police_officer, cow_entry, body, dm_clerk, magistrate
):
    hand_over(pound, cow_entry, body, dm_clerk, magistrate)
    client.force_login(police_officer)
    cow = cow_entry.animals.get()

    page = client.get(reverse("auctions:auction_new") + f"?pound={pound.pk}")

    assert page.status_code == 200 and cow.reference not in page.text
