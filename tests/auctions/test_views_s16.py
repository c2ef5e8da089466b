"""The screens of the sale when the owner refuses or omits to pay (s.16): the refusal, the case
with its running account, and the settlement with the account of items (a)-(f)."""

import base64
import io
import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from accounts.roles import Role
from auctions import services
from auctions.models import Auction, Lot, S16Case, Sale, Shortfall
from impounding import services as impounding_services
from impounding.models import Animal, AnimalState, Sex
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import Transaction
from tests.accounts.factories import staff
from tests.auctions.factories import conditions
from tests.impounding.factories import cow, goat, make_entry

_SIGNED = io.BytesIO()
Image.new("RGBA", (60, 20), (0, 0, 0, 0)).save(_SIGNED, format="PNG")
PNG = "data:image/png;base64," + base64.b64encode(_SIGNED.getvalue()).decode()


@pytest.fixture
def conds(district):
    return conditions(district)


@pytest.fixture
def entry(pound, pound_keeper, tariffs, conds):
    return make_entry(
        pound=pound,
        by=pound_keeper,
        animals=[cow(), cow(), goat()],
        arrived_at=timezone.now() - timedelta(days=3),
    )


@pytest.fixture
def case(entry, pound_keeper):
    case = services.open_s16_case(
        entry=entry,
        animal_ids=list(entry.animals.values_list("pk", flat=True)),
        by=pound_keeper,
        owner_name="Shyam Lal",
        owner_address="Samesi",
    )
    # Refused two days ago: the conditions allow the sale from the next day.
    S16Case.objects.filter(pk=case.pk).update(recorded_at=timezone.now() - timedelta(days=2))
    case.refresh_from_db()
    return case


@pytest.fixture
def auction(case, pound, police_officer):
    heads = [[a.pk] for a in case.animals.order_by("number")]
    return services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.OWNER_REFUSED,
        by=police_officer,
        s16_case=case,
        scheduled_for=timezone.now(),
        lots=heads,
        officer=police_officer,
    )


@pytest.fixture
def buyer(auction, police_officer):
    return services.register_bidder(
        auction=auction,
        by=police_officer,
        name="Mohd. Salim",
        address="Bakshi ka Talab",
        id_kind="voter",
        id_number="UP/12/345/678",
        phone="9999911111",
        declaration_signed=True,
    )


def sell_until_covered(auction, buyer, by):
    """Sell lot 1 for less than the dues, lot 2 for enough: lot 3 is not needed."""
    case = auction.s16_case
    owed = services.s16_position(case)["owed"]
    lots = list(auction.lots.order_by("sequence"))
    services.sell_lot(lot=lots[0], buyer=buyer, price=owed / 2, by=by, expenses=Decimal("100"))
    services.sell_lot(lot=lots[1], buyer=buyer, price=owed, by=by, expenses=Decimal("100"))
    case.refresh_from_db()
    assert case.status == S16Case.Status.COVERED
    return lots


@pytest.fixture
def covered(auction, buyer, police_officer):
    sell_until_covered(auction, buyer, police_officer)
    return auction.s16_case


@pytest.fixture
def other_keeper(other_pound):
    return staff(Role.POUND_KEEPER, "other_keeper", pound=other_pound)


@pytest.fixture
def other_officer(other_pound):
    return staff(
        Role.POLICE_OFFICER, "other_officer", police_station=other_pound.nearest_police_station
    )


def snapshot():
    return (
        S16Case.objects.count(),
        list(S16Case.objects.order_by("pk").values_list("status", "balance")),
        Auction.objects.count(),
        Sale.objects.count(),
        list(Animal.objects.order_by("pk").values_list("state", flat=True)),
        Transaction.objects.count(),
        Shortfall.objects.count(),
        Event.objects.count(),
    )


def errors(response, field):
    return response.context["form"].errors.get(field, [])


def refusal_data(entry, **kw):
    return {
        "idempotency_key": str(uuid.uuid4()),
        "animals": [a.pk for a in entry.animals.order_by("number")],
        "owner_name": "Shyam Lal",
        "owner_address": "Samesi",
        "refused": "1",
    } | kw


# --- Who may open the pages --------------------------------------------------------------------


def urls(entry, case):
    return {
        "s16_new": reverse("auctions:s16_new", kwargs={"pk": entry.pk}),
        "s16_case": reverse("auctions:s16_case", kwargs={"pk": case.pk}),
        "s16_settle": reverse("auctions:s16_settle", kwargs={"pk": case.pk}),
    }


REFUSED = {
    "s16_new": ["police_officer", "dm_clerk", "magistrate", "auditor", "administrator"],
    "s16_case": ["administrator"],
    "s16_settle": ["pound_keeper", "dm_clerk", "magistrate", "auditor", "administrator"],
}


@pytest.mark.parametrize("name", list(REFUSED))
@pytest.mark.parametrize("method", ["get", "post"])
def test_s16_pages_send_anonymous_visitor_to_login(client, entry, case, name, method):
    response = getattr(client, method)(urls(entry, case)[name])
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("name", list(REFUSED))
@pytest.mark.parametrize("method", ["get", "post"])
def test_s16_pages_refuse_roles_without_the_action(client, role_users, entry, case, name, method):
    for role in REFUSED[name]:
        before = snapshot()
        client.force_login(role_users[role])
        response = getattr(client, method)(
            urls(entry, case)[name], refusal_data(entry) | {"register_page": "4"}
        )
        assert response.status_code == 403, role
        assert snapshot() == before


@pytest.mark.parametrize(
    ("name", "who"),
    [
        ("s16_new", "other_keeper"),
        ("s16_case", "other_keeper"),
        ("s16_case", "other_officer"),
        ("s16_settle", "other_officer"),
    ],
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_another_districts_case_is_not_found(
    client, entry, covered, other_keeper, other_officer, name, who, method
):
    before = snapshot()
    client.force_login(other_keeper if who == "other_keeper" else other_officer)
    response = getattr(client, method)(
        urls(entry, covered)[name], refusal_data(entry) | {"register_page": "4"}
    )
    assert response.status_code == 404
    assert snapshot() == before


# --- The refusal --------------------------------------------------------------------------------


def test_refusal_form_get_writes_nothing(client, pound_keeper, entry):
    client.force_login(pound_keeper)
    before = snapshot()
    response = client.get(reverse("auctions:s16_new", kwargs={"pk": entry.pk}))
    assert response.status_code == 200
    assert response.context["form"]["owner_name"].value() == "Shyam Lal"
    assert len(response.context["form"].fields["animals"].queryset) == 3
    assert snapshot() == before


def test_refusal_recorded_and_links_to_scheduling(client, pound_keeper, police_officer, entry):
    client.force_login(pound_keeper)
    response = client.post(
        reverse("auctions:s16_new", kwargs={"pk": entry.pk}),
        refusal_data(entry, refused="0", owner_name="Ram, agent of Shyam Lal"),
    )
    case = S16Case.objects.get()
    assert response.status_code == 302 and response["Location"] == case.get_absolute_url()
    assert case.animals.count() == 3 and not case.refused
    assert case.owner_name == "Ram, agent of Shyam Lal"
    assert Event.objects.filter(action="s16.refused", section="s.16").exists()
    schedule = reverse("auctions:auction_new") + f"?case={case.pk}"
    body = client.get(case.get_absolute_url()).content.decode()
    assert schedule not in body and "Tell the officer" in body
    client.force_login(police_officer)
    assert schedule in client.get(case.get_absolute_url()).content.decode()


def test_refusal_takes_the_calf_with_its_dam(client, pound_keeper, entry):
    dam = entry.animals.get(number=1)
    calf = impounding_services.record_birth(
        dam=dam, by=pound_keeper, at=timezone.now() - timedelta(hours=5), sex=Sex.MALE, colour="Red"
    )
    client.force_login(pound_keeper)
    url = reverse("auctions:s16_new", kwargs={"pk": entry.pk})
    choices = client.get(url).context["form"].fields["animals"].queryset
    assert calf not in choices
    client.post(url, refusal_data(entry, animals=[dam.pk]))
    assert set(S16Case.objects.get().animals.all()) == {dam, calf}


def test_refusal_invalid_post_writes_nothing(client, pound_keeper, entry, case):
    client.force_login(pound_keeper)
    before = snapshot()
    response = client.post(
        reverse("auctions:s16_new", kwargs={"pk": entry.pk}),
        refusal_data(entry, owner_name="", animals=[]),
    )
    assert errors(response, "owner_name") and errors(response, "animals")
    # Animals already in an open case are not offered again.
    assert not response.context["form"].fields["animals"].queryset.exists()
    assert snapshot() == before


def test_entry_page_links_the_refusal(client, pound_keeper, police_officer, entry):
    link = reverse("auctions:s16_new", kwargs={"pk": entry.pk})
    client.force_login(pound_keeper)
    body = client.get(entry.get_absolute_url()).content.decode()
    assert link in body and "Owner refuses to pay (s.16)" in body
    client.force_login(police_officer)
    assert link not in client.get(entry.get_absolute_url()).content.decode()


# --- The case page ------------------------------------------------------------------------------


def test_case_page_shows_the_running_account(client, police_officer, auction, buyer):
    case = auction.s16_case
    client.force_login(police_officer)
    before = snapshot()
    response = client.get(case.get_absolute_url())
    assert response.status_code == 200
    body = response.content.decode()
    position = services.s16_position(case)
    assert "Running account (s.16)" in body
    assert "Still to cover" in body
    assert response.context["position"]["owed"] == position["owed"]
    assert auction.number in body
    assert reverse("auctions:s16_settle", kwargs={"pk": case.pk}) not in body
    assert snapshot() == before


def test_case_page_offers_settlement_when_covered(client, police_officer, covered):
    client.force_login(police_officer)
    body = client.get(covered.get_absolute_url()).content.decode()
    assert "Dues covered: stop selling." in body
    assert reverse("auctions:s16_settle", kwargs={"pk": covered.pk}) in body


# --- Settlement ---------------------------------------------------------------------------------


def test_settle_page_shows_the_account_a_to_f(client, police_officer, covered):
    client.force_login(police_officer)
    before = snapshot()
    response = client.get(reverse("auctions:s16_settle", kwargs={"pk": covered.pk}))
    assert response.status_code == 200
    account = response.context["account"]
    position = services.s16_position(covered)
    assert account["a_seized"] == 3
    assert account["b_days"] == 4  # arrival three days ago, today included
    assert account["c_total"] == position["owed"]
    assert len(account["d_sold"]) == 2
    assert account["e_proceeds"] == position["proceeds"]
    assert account["balance"] == position["balance"] > 0
    assert (
        account["f_expenses"] + account["f_feeding"] + account["f_fines"] + account["balance"]
        == account["e_proceeds"]
    )
    assert len(account["remaining"]) == 1
    body = response.content.decode()
    for item in ["(a)", "(b)", "(c)", "(d)", "(e)", "(f)"]:
        assert item in body
    assert snapshot() == before


def test_settled_with_the_register_page(client, police_officer, covered):
    client.force_login(police_officer)
    balance = services.s16_position(covered)["balance"]
    response = client.post(
        reverse("auctions:s16_settle", kwargs={"pk": covered.pk}),
        {"acknowledgement": "register_page", "register_page": "17", "balance_mode": "cash"},
    )
    assert response.status_code == 302 and response["Location"] == covered.get_absolute_url()
    covered.refresh_from_db()
    assert covered.status == S16Case.Status.CLOSED
    assert covered.balance == balance and covered.register_page == "17"
    assert covered.animals.filter(state=AnimalState.RETURNED_S16).count() == 1
    assert Event.objects.filter(action="s16.settled", section="s.16").exists()
    assert run_checks() == []
    body = client.get(covered.get_absolute_url()).content.decode()
    assert reverse("auctions:s16_account_pdf", kwargs={"pk": covered.pk}) in body
    assert covered.account_document.number in body


def test_settled_with_a_signature_on_the_screen(client, police_officer, covered):
    client.force_login(police_officer)
    response = client.post(
        reverse("auctions:s16_settle", kwargs={"pk": covered.pk}),
        {
            "acknowledgement": "signature",
            "signature_data": PNG,
            "balance_mode": "upi",
            "balance_reference": "UPI-998877",
        },
    )
    assert response.status_code == 302
    covered.refresh_from_db()
    assert covered.signature and covered.balance_reference == "UPI-998877"
    assert run_checks() == []


def test_settle_invalid_post_writes_nothing(client, police_officer, covered):
    client.force_login(police_officer)
    url = reverse("auctions:s16_settle", kwargs={"pk": covered.pk})
    before = snapshot()
    response = client.post(url, {"acknowledgement": "register_page", "balance_mode": "upi"})
    assert errors(response, "register_page") and errors(response, "balance_reference")
    response = client.post(url, {"acknowledgement": "signature", "signature_data": "junk"})
    assert errors(response, "signature_data")
    assert "The signature could not be read. Sign again." in response.content.decode()
    assert snapshot() == before


def test_settle_refused_while_the_dues_are_not_covered(client, police_officer, auction, buyer):
    client.force_login(police_officer)
    before = snapshot()
    response = client.post(
        reverse("auctions:s16_settle", kwargs={"pk": auction.s16_case_id}),
        {"acknowledgement": "register_page", "register_page": "3", "balance_mode": "cash"},
    )
    assert response.status_code == 200
    assert "The dues are not yet covered" in response.content.decode()
    assert snapshot() == before


def test_settle_after_a_sale_that_does_not_cover_records_the_shortfall(
    client, police_officer, pound, pound_keeper, conds, tariffs
):
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        animals=[goat()],
        arrived_at=timezone.now() - timedelta(days=3),
    )
    case = services.open_s16_case(
        entry=entry,
        animal_ids=[entry.animals.get().pk],
        by=pound_keeper,
        owner_name="Shyam",
        owner_address="Samesi",
    )
    S16Case.objects.filter(pk=case.pk).update(recorded_at=timezone.now() - timedelta(days=2))
    auction = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.OWNER_REFUSED,
        by=police_officer,
        s16_case=S16Case.objects.get(pk=case.pk),
        scheduled_for=timezone.now(),
        lots=[[entry.animals.get().pk]],
        officer=police_officer,
    )
    buyer = services.register_bidder(
        auction=auction,
        by=police_officer,
        name="Mohd. Salim",
        address="x",
        id_kind="voter",
        id_number="AB1234",
        phone="9999911111",
        declaration_signed=True,
    )
    services.sell_lot(
        lot=auction.lots.get(), buyer=buyer, price=Decimal("10.00"), by=police_officer
    )
    client.force_login(police_officer)
    body = client.get(case.get_absolute_url()).content.decode()
    assert reverse("auctions:s16_settle", kwargs={"pk": case.pk}) in body
    url = reverse("auctions:s16_settle", kwargs={"pk": case.pk})
    response = client.get(url)
    assert "balance_mode" not in response.context["form"].fields
    assert "Shortfall, for the District Magistrate to write off" in response.content.decode()
    response = client.post(url, {"acknowledgement": "register_page", "register_page": "8"})
    assert response.status_code == 302
    case.refresh_from_db()
    assert case.balance == 0 and case.shortfall > 0
    assert Shortfall.objects.get(s16_case=case).total == case.shortfall
    assert run_checks() == []


def test_settled_case_cannot_be_settled_again(client, police_officer, covered):
    services.settle_s16_case(
        case=covered, by=police_officer, acknowledgement="register_page", register_page="1"
    )
    client.force_login(police_officer)
    before = snapshot()
    response = client.post(
        reverse("auctions:s16_settle", kwargs={"pk": covered.pk}),
        {"acknowledgement": "register_page", "register_page": "2", "balance_mode": "cash"},
    )
    assert response.status_code == 302
    assert snapshot() == before


def test_lot_not_needed_once_covered(covered):
    assert Lot.objects.filter(auction__s16_case=covered, status=Lot.Status.NOT_NEEDED).count() == 1
