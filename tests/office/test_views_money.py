"""The money screens of the District Magistrate's office (s.17): remittances of fines, the surplus
deposit register with owners' claims and the transfer memo, the feeding-money statement, and the
money trail of a register entry."""

import threading
import uuid
from datetime import datetime, time, timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import DistrictPolicy
from accounts.roles import Role
from auctions import services as auctions
from impounding import services as impounding
from kernel.dates import add_months, surplus_expiry
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import Account, AccountKind, Posting, Transaction
from office import services as office
from office.models import Remittance, SurplusClaim, SurplusDeposit
from tests import readpdf
from tests.accounts.factories import PoundFactory, staff
from tests.auctions.factories import (
    conditions,
    ready_for_sale,
    register,
    report_and_notice,
    schedule,
    unclaimed_entry,
)
from tests.impounding.factories import cow, deposit, make_entry, pay
from tests.office.factories import remit
from tests.pdfs import SCAN_PDF

FINE = Decimal("20000.00")  # the demo scale's fine for a cow
PDF = SCAN_PDF


# --- Records, made with the services -----------------------------------------------------------


@pytest.fixture
def fined(pound, pound_keeper, tariffs):
    """A cow released on payment today: ₹20,000 of fines at the pound, in cash."""
    entry = make_entry(pound=pound, by=pound_keeper)
    pay(entry, pound_keeper)
    return entry


@pytest.fixture
def remittance(fined, pound, pound_keeper):
    return office.send_remittance(
        pound=pound,
        by=pound_keeper,
        amount=FINE,
        challan_number="CH-0042",
        treasury="District Treasury, Lucknow",
        remitted_on=timezone.localdate(),
    )


def sell(pound, keeper, officer, *, heads=1, price="50000.00"):
    """An unclaimed entry of `heads` cows, each sold today in its own lot: one surplus each."""
    entry, _notice = ready_for_sale(
        pound=pound, keeper=keeper, officer=officer, animals=[cow() for _ in range(heads)]
    )
    auction = schedule(pound, officer, [[a] for a in entry.animals.order_by("number")])
    bidder = register(auction, officer)
    for lot in auction.lots.order_by("sequence"):
        auctions.sell_lot(lot=lot, buyer=bidder, price=Decimal(price), by=officer)
    return entry


@pytest.fixture
def surplus(pound, pound_keeper, police_officer, district, tariffs):
    """The surplus of a sale of an unclaimed cow, at the pound, awaiting the office."""
    conditions(district)
    sell(pound, pound_keeper, police_officer)
    return SurplusDeposit.objects.get()


@pytest.fixture
def held(surplus, dm_clerk):
    return office.receive_surplus(deposit=surplus, by=dm_clerk, received_on=timezone.localdate())


@pytest.fixture
def claim(held, dm_clerk):
    return office.file_surplus_claim(
        deposit=held,
        by=dm_clerk,
        claimant_name="Shyam Lal",
        claimant_address="Samesi",
        capacity="owner",
        proof="Ear-tag record of the cow; two witnesses from Samesi",
        filed_on=timezone.localdate(),
        proof_scan=SimpleUploadedFile("tag.pdf", PDF, content_type="application/pdf"),
    )


def travel_to(time_machine, day):
    """Noon IST on `day`: the daily run refuses a date that has not come."""
    time_machine.move_to(datetime.combine(day, time(12), tzinfo=timezone.get_current_timezone()))


@pytest.fixture
def transferred(held, time_machine):
    """The day after the three months: the daily run credits the surplus to revenue."""
    travel_to(time_machine, held.expires_on + timedelta(days=1))
    call_command("run_deadlines")
    held.refresh_from_db()
    assert held.status == SurplusDeposit.Status.TRANSFERRED
    return held


@pytest.fixture
def other_clerk(other_district):
    return staff(Role.DM_CLERK, "other_clerk", district=other_district)


@pytest.fixture
def other_magistrate(other_district):
    return staff(Role.MAGISTRATE, "other_magistrate", district=other_district)


def snapshot():
    """Everything a money screen could write."""
    return (
        list(Remittance.objects.order_by("pk").values_list("status", "amount")),
        list(SurplusDeposit.objects.order_by("pk").values_list("status", "received_on")),
        list(SurplusClaim.objects.order_by("pk").values_list("status", "claimant_name")),
        Transaction.objects.count(),
        Posting.objects.count(),
        Account.objects.count(),
        Event.objects.count(),
        DistrictPolicy.objects.count(),
    )


def balance(district, kind, pound=None):
    account = Account.objects.filter(district=district, pound=pound, kind=kind).first()
    return account.balance() if account else Decimal("0.00")


def errors(response, field=None):
    form = response.context["form"]
    return form.non_field_errors() if field is None else form.errors.get(field, [])


def remit_data(**kw):
    return {
        "idempotency_key": str(uuid.uuid4()),
        "amount": "20000.00",
        "challan_number": "CH-0042",
        "treasury": "District Treasury, Lucknow",
        "remitted_on": timezone.localdate().isoformat(),
        "from_cash": "1",
    } | kw


def claim_data(**kw):
    return {
        "idempotency_key": str(uuid.uuid4()),
        "claimant_name": "Shyam Lal",
        "claimant_address": "Samesi, Mohanlalganj",
        "capacity": "owner",
        "proof": "Ear-tag UP-123 in his name; the sarpanch identifies the cow",
        "filed_on": timezone.localdate().isoformat(),
    } | kw


# --- Who may open each page --------------------------------------------------------------------

PAGES = {
    # name: (kwargs from the records, roles refused (403))
    "remittances": (None, ["police_officer", "administrator"]),
    "remittance_new": (None, ["police_officer", "magistrate", "auditor", "administrator"]),
    "remittance_confirm": (
        "remittance",
        ["pound_keeper", "police_officer", "auditor", "administrator", "outsider"],
    ),
    "surplus": (None, ["police_officer", "administrator"]),
    "surplus_receive": (
        "surplus",
        ["pound_keeper", "police_officer", "auditor", "administrator", "outsider"],
    ),
    "claim_new": ("held", ["pound_keeper", "police_officer", "auditor", "administrator"]),
    "claim_decide": (
        "claim",
        ["pound_keeper", "police_officer", "dm_clerk", "auditor", "administrator", "outsider"],
    ),
    "transfer_memo_pdf": ("surplus", ["police_officer", "administrator"]),
    "feeding_statement": ("pound", ["police_officer", "administrator"]),
    "money_trail": ("entry", ["administrator"]),
}


@pytest.fixture
def records(remittance, claim, pound, fined):
    return {
        "remittance": remittance,
        "surplus": claim.deposit,
        "held": claim.deposit,
        "claim": claim,
        "pound": pound,
        "entry": fined,
    }


def url(name, records):
    key = PAGES[name][0]
    return reverse(f"office:{name}", kwargs={"pk": records[key].pk} if key else None)


@pytest.mark.parametrize("name", list(PAGES))
@pytest.mark.parametrize("method", ["get", "post"])
def test_money_pages_send_anonymous_visitor_to_login(client, records, name, method):
    response = getattr(client, method)(url(name, records))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("name", list(PAGES))
@pytest.mark.parametrize("method", ["get", "post"])
def test_money_pages_refuse_roles_without_the_action(client, role_users, records, name, method):
    for role in PAGES[name][1]:
        before = snapshot()
        client.force_login(role_users[role])
        response = getattr(client, method)(url(name, records), remit_data() | {"checked": "on"})
        assert response.status_code == 403, role
        assert snapshot() == before


@pytest.mark.parametrize(
    ("name", "who"),
    [
        ("remittance_confirm", "other_clerk"),
        ("surplus_receive", "other_clerk"),
        ("claim_new", "other_clerk"),
        ("claim_decide", "other_magistrate"),
        ("transfer_memo_pdf", "other_clerk"),
        ("feeding_statement", "other_clerk"),
        ("feeding_statement", "outsider"),
        ("money_trail", "other_clerk"),
        ("money_trail", "outsider"),
    ],
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_another_districts_money_is_not_found(client, request, records, name, who, method):
    before = snapshot()
    client.force_login(request.getfixturevalue(who))
    response = getattr(client, method)(url(name, records), {"checked": "on", "allow": "1"})
    assert response.status_code == 404
    assert snapshot() == before


def test_another_districts_pound_cannot_be_remitted_from(client, fined, pound, outsider):
    client.force_login(outsider)
    before = snapshot()
    response = client.post(reverse("office:remittance_new") + f"?pound={pound.pk}", remit_data())
    assert response.status_code == 404
    assert snapshot() == before


def test_another_districts_remittances_and_surplus_are_not_listed(
    client, remittance, held, other_clerk, outsider, other_pound
):
    outsider_pound = other_pound
    client.force_login(other_clerk)
    response = client.get(reverse("office:remittances"))
    assert response.context["sent"] == []
    assert [p.pound for p in response.context["positions"]] == [outsider_pound]
    response = client.get(reverse("office:surplus"))
    assert response.context["held"] == [] and response.context["awaiting"] == []
    client.force_login(outsider)
    assert client.get(reverse("office:remittances")).context["sent"] == []


# --- Remittances of fines ----------------------------------------------------------------------


def test_remittances_page_for_the_pound_keeper(client, pound_keeper, fined, pound):
    client.force_login(pound_keeper)
    before = snapshot()
    response = client.get(reverse("office:remittances"))
    assert snapshot() == before
    [position] = response.context["positions"]
    assert position.pound == pound and position.fines_due == FINE == office.unremitted_fines(pound)
    assert position.cash == office.cash_in_hand(pound) and position.can_remit
    html = response.content.decode()
    assert f"{reverse('office:remittance_new')}?pound={pound.pk}" in html
    assert "₹20,000.00" in html


def test_remittances_page_for_the_office(client, dm_clerk, pound_keeper, remittance):
    client.force_login(dm_clerk)
    response = client.get(reverse("office:remittances"))
    assert response.context["sent"] == [remittance]
    html = response.content.decode()
    confirm = reverse("office:remittance_confirm", kwargs={"pk": remittance.pk})
    assert confirm in html and "CH-0042" in html and "District Treasury, Lucknow" in html
    client.force_login(pound_keeper)
    html = client.get(reverse("office:remittances")).content.decode()
    assert remittance.number in html and confirm not in html


def test_remittances_list_query_count_flat(
    client, dm_clerk, pound, pound_keeper, district, tariffs
):
    def add(n, where):
        keeper = staff(Role.POUND_KEEPER, pound=where)
        for i in range(n):
            pay(make_entry(pound=where, by=keeper), keeper)
            r = office.send_remittance(
                pound=where,
                by=keeper,
                amount=Decimal("100.00"),
                challan_number=f"C-{where.pk}-{i}",
                treasury="T",
                remitted_on=timezone.localdate(),
            )
            office.confirm_remittance(remittance=r, by=dm_clerk)
            office.send_remittance(
                pound=where,
                by=keeper,
                amount=Decimal("100.00"),
                challan_number=f"D-{where.pk}-{i}",
                treasury="T",
                remitted_on=timezone.localdate(),
            )

    add(1, pound)
    client.force_login(dm_clerk)
    with CaptureQueriesContext(connection) as few:
        assert client.get(reverse("office:remittances")).status_code == 200
    add(4, PoundFactory(district=district))
    with CaptureQueriesContext(connection) as many:
        response = client.get(reverse("office:remittances"))
    assert len(response.context["sent"]) == 5 and len(response.context["positions"]) == 2
    assert len(many) == len(few)


def test_remittance_form_defaults_to_the_fines_due(client, pound_keeper, fined):
    client.force_login(pound_keeper)
    before = snapshot()
    response = client.get(reverse("office:remittance_new"))
    assert response.status_code == 200
    assert response.context["form"]["amount"].value() == FINE
    assert response.context["form"]["remitted_on"].value() == timezone.localdate()
    assert snapshot() == before


def test_remittance_default_is_capped_at_the_cash_in_hand(client, pound, pound_keeper, tariffs):
    pay(make_entry(pound=pound, by=pound_keeper), pound_keeper, mode="upi")  # no cash at all
    client.force_login(pound_keeper)
    response = client.get(reverse("office:remittance_new"))
    assert response.context["position"].cash == 0
    assert response.context["form"]["amount"].value() is None


def test_pound_keeper_remits_the_fines(client, pound_keeper, fined, pound, district):
    client.force_login(pound_keeper)
    response = client.post(reverse("office:remittance_new"), remit_data())
    assert response.status_code == 302 and response["Location"] == reverse("office:remittances")
    remittance = Remittance.objects.get()
    assert remittance.status == Remittance.Status.SENT and remittance.amount == FINE
    assert remittance.challan_number == "CH-0042" and remittance.sent_by == pound_keeper
    assert Event.objects.filter(action="ledger.remittance_sent", section="s.17").exists()
    assert balance(district, AccountKind.REMITTANCES_IN_TRANSIT) == FINE
    assert office.unremitted_fines(pound) == 0
    assert run_checks() == []


def test_remittance_form_sent_twenty_times_records_one_remittance(
    client, pound_keeper, fined, district
):
    client.force_login(pound_keeper)
    data = remit_data(amount="100.00")
    answers = [client.post(reverse("office:remittance_new"), data) for _ in range(20)]
    assert {a.status_code for a in answers} == {302}
    remittance = Remittance.objects.get()
    assert remittance.amount == Decimal("100.00")
    assert balance(district, AccountKind.REMITTANCES_IN_TRANSIT) == Decimal("100.00")
    assert Event.objects.filter(action="ledger.remittance_sent").count() == 1
    assert run_checks() == []
    last = client.get(answers[-1]["Location"]).content.decode()
    assert "was already recorded: nothing more was sent" in last


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_remittance_form_sent_twice_at_once_records_one(pound_keeper, fined, district, settings):
    """Two copies of one form race: the pound's lock serialises them, and the second finds the
    first's key once it may look."""
    from django.test import Client

    data = remit_data(amount="100.00")
    statuses, gate = [], threading.Barrier(2)

    def send():
        c = Client()
        c.force_login(pound_keeper)
        gate.wait()
        statuses.append(c.post(reverse("office:remittance_new"), data).status_code)
        connection.close()

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert statuses == [302, 302]
    assert Remittance.objects.count() == 1
    assert balance(district, AccountKind.REMITTANCES_IN_TRANSIT) == Decimal("100.00")


def test_remittance_key_of_another_person_is_refused(client, pound_keeper, fined, pound, tariffs):
    data = remit_data(amount="100.00")
    client.force_login(pound_keeper)
    client.post(reverse("office:remittance_new"), data)
    other = staff(Role.POUND_KEEPER, pound=pound)
    client.force_login(other)
    before = snapshot()
    response = client.post(reverse("office:remittance_new"), data)
    assert response.status_code == 200
    assert "This form has already been used" in response.content.decode()
    assert snapshot() == before


@pytest.mark.parametrize("given", ["CH-0042", "ch-0042", " CH -0042 "])
def test_a_challan_settles_one_remittance(client, pound_keeper, fined, given):
    client.force_login(pound_keeper)
    client.post(reverse("office:remittance_new"), remit_data(amount="100.00"))
    before = snapshot()
    response = client.post(
        reverse("office:remittance_new"), remit_data(amount="100.00", challan_number=given)
    )
    assert response.status_code == 200
    assert "already recorded for another remittance" in errors(response, "challan_number")[0]
    assert snapshot() == before


@pytest.mark.postgres
def test_the_database_refuses_a_challan_twice(pound, pound_keeper, fined):
    from django.db import IntegrityError, transaction

    sent = remit(pound, pound_keeper, "100.00", challan_number="GRN-1")
    copy = Remittance(
        pound=pound,
        number="REM/COPY",
        amount=Decimal("1.00"),
        challan_number="grn-1",
        treasury="T",
        remitted_on=sent.remitted_on,
        sent_by=pound_keeper,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        copy.save()


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"amount": "20000.01"}, "amount"),  # more than is due
        ({"amount": "0"}, "amount"),
        ({"from_cash": "0"}, "amount"),  # nothing in the UPI collections
        ({"challan_number": ""}, "challan_number"),
        ({"treasury": ""}, "treasury"),
        ({"remitted_on": "2999-01-01"}, "remitted_on"),
        ({"from_cash": "x"}, "from_cash"),
    ],
)
def test_remittance_refused_beside_the_field(client, pound_keeper, fined, data, field):
    client.force_login(pound_keeper)
    before = snapshot()
    response = client.post(reverse("office:remittance_new"), remit_data(**data))
    assert response.status_code == 200
    assert errors(response, field)
    assert snapshot() == before


def test_remittance_refused_beyond_the_cash_in_hand(client, pound, pound_keeper, fined):
    entry = make_entry(pound=pound, by=pound_keeper)
    pay(entry, pound_keeper, mode="upi")  # ₹20,000 more fines, but paid by UPI
    client.force_login(pound_keeper)
    before = snapshot()
    response = client.post(reverse("office:remittance_new"), remit_data(amount="40000.00"))
    assert "The pound holds only" in errors(response, "amount")[0]
    assert snapshot() == before


# Cash out of the till: a remittance leaves the pound's till, so it is sent under
# the till's permission, not the permission to take payments.


def test_the_police_who_take_payments_do_not_remit_out_of_the_till(police_officer, fined, pound):
    before = snapshot()
    with pytest.raises(PermissionDenied):
        office.send_remittance(
            pound=pound,
            by=police_officer,
            amount=FINE,
            challan_number="CH-9",
            treasury="District Treasury",
            remitted_on=timezone.localdate(),
        )
    assert snapshot() == before


def test_the_office_remits_only_on_a_written_authority_it_records(
    client, dm_clerk, magistrate, fined, pound
):
    client.force_login(dm_clerk)
    url = reverse("office:remittance_new") + f"?pound={pound.pk}"
    before = snapshot()
    response = client.post(url, remit_data())
    assert errors(response, "authority")
    assert snapshot() == before

    order = "DM order 12/2026 of 1 Dec 2026"
    assert client.post(url, remit_data(authority=order)).status_code == 302
    remittance = Remittance.objects.get()
    assert (remittance.sent_by, remittance.authority) == (dm_clerk, order)
    event = Event.objects.get(action="ledger.remittance_sent")
    assert event.data["authority"] == order
    # Whoever confirms it (another person) sees the authority it was sent on.
    client.force_login(magistrate)
    assert order in client.get(reverse("office:remittance_confirm", args=[remittance.pk])).text


def test_the_keeper_remits_on_his_own_office(client, pound_keeper, fined):
    client.force_login(pound_keeper)
    response = client.get(reverse("office:remittance_new"))
    assert "authority" not in response.context["form"].fields
    assert client.post(reverse("office:remittance_new"), remit_data()).status_code == 302
    assert Remittance.objects.get().authority == ""


def test_office_chooses_the_pound_to_remit_from(client, dm_clerk, fined, pound, district):
    PoundFactory(district=district)
    client.force_login(dm_clerk)
    response = client.get(reverse("office:remittance_new"))
    assert [p.pk for p in response.context["pounds"]] and "form" not in response.context
    response = client.get(reverse("office:remittance_new") + f"?pound={pound.pk}")
    assert response.context["pound"] == pound


def test_confirmation_page_writes_nothing(client, dm_clerk, remittance):
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.get(reverse("office:remittance_confirm", kwargs={"pk": remittance.pk}))
    assert response.status_code == 200 and "CH-0042" in response.content.decode()
    assert snapshot() == before


def test_office_confirms_the_remittance(client, dm_clerk, remittance, district):
    client.force_login(dm_clerk)
    target = reverse("office:remittance_confirm", kwargs={"pk": remittance.pk})
    before = snapshot()
    response = client.post(target, {})
    assert errors(response, "checked")
    assert snapshot() == before
    response = client.post(target, {"checked": "on"})
    assert response.status_code == 302
    remittance.refresh_from_db()
    assert remittance.status == Remittance.Status.CONFIRMED
    assert remittance.confirmed_by == dm_clerk
    assert Event.objects.filter(action="ledger.remittance_confirmed", section="s.17").exists()
    assert balance(district, AccountKind.FINES_RECEIVED) == -FINE
    assert balance(district, AccountKind.REMITTANCES_IN_TRANSIT) == 0
    assert run_checks() == []
    before = snapshot()
    response = client.post(target, {"checked": "on"})
    assert "This remittance is already confirmed." in errors(response)
    assert snapshot() == before


# --- The surplus deposit register -----------------------------------------------------------


def test_surplus_register_shows_each_state(client, dm_clerk, magistrate, claim, surplus):
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.get(reverse("office:surplus"))
    assert snapshot() == before
    [row] = response.context["held"]
    assert row.expires_on == add_months(timezone.localdate(), 3)
    assert row.claim_list == [claim] and not row.can_claim  # a claim awaits the decision
    html = response.content.decode()
    assert surplus.sale.lot.auction.number in html and "₹" in html
    decide = reverse("office:claim_decide", kwargs={"pk": claim.pk})
    assert decide not in html
    client.force_login(magistrate)
    assert decide in client.get(reverse("office:surplus")).content.decode()


def test_surplus_register_query_count_flat(
    client,
    dm_clerk,
    magistrate,
    pound,
    pound_keeper,
    police_officer,
    district,
    tariffs,
    time_machine,
):
    conditions(district)

    def add(heads):
        today = timezone.localdate()
        entry = sell(pound, pound_keeper, police_officer, heads=heads)
        deposits = list(SurplusDeposit.objects.filter(sale__lot__animals__impoundment=entry))
        for d in deposits[1:]:
            office.receive_surplus(deposit=d, by=dm_clerk, received_on=today)
        for d, allow in zip(deposits[1:3], [True, None], strict=False):
            c = office.file_surplus_claim(
                deposit=d,
                by=dm_clerk,
                claimant_name="A",
                claimant_address="B",
                capacity="heir",
                proof="C",
                filed_on=today,
            )
            if allow:
                office.decide_surplus_claim(
                    claim=c, by=magistrate, allow=True, decision="ok", payment_mode="cash"
                )

    add(4)  # one to receive, one paid on a claim, one with a claim pending, one to transfer
    travel_to(time_machine, add_months(timezone.localdate(), 3) + timedelta(days=1))
    call_command("run_deadlines")
    client.force_login(dm_clerk)
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("office:surplus"))
    add(4)
    with CaptureQueriesContext(connection) as many:
        response = client.get(reverse("office:surplus"))
    assert sorted(d.status for d in response.context["closed"]) == ["paid", "paid", "transferred"]
    assert len(response.context["held"]) == 3 and len(response.context["awaiting"]) == 2
    assert len(many) == len(few)


def test_receipt_page_shows_the_expiry(client, dm_clerk, surplus):
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.get(reverse("office:surplus_receive", kwargs={"pk": surplus.pk}))
    today = timezone.localdate()
    assert response.context["expiry_if_today"] == surplus_expiry(today, surplus.sale_date)
    assert add_months(today, 3).strftime("%d-%m-%Y") in response.content.decode()
    assert snapshot() == before


def test_office_receives_the_surplus(client, dm_clerk, surplus, district):
    client.force_login(dm_clerk)
    today = timezone.localdate()
    response = client.post(
        reverse("office:surplus_receive", kwargs={"pk": surplus.pk}),
        {"received_on": today.isoformat()},
    )
    assert response.status_code == 302 and response["Location"] == reverse("office:surplus")
    surplus.refresh_from_db()
    assert surplus.status == SurplusDeposit.Status.HELD and surplus.received_by == dm_clerk
    assert surplus.expires_on == surplus_expiry(today, surplus.sale_date)
    assert Event.objects.filter(action="ledger.surplus_received", section="s.17").exists()
    assert balance(district, AccountKind.DM_TREASURY) == surplus.amount
    assert run_checks() == []


@pytest.mark.parametrize("days", [-1, 1])  # before the sale; in the future
def test_receipt_date_outside_sale_and_today_refused(client, dm_clerk, surplus, days):
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.post(
        reverse("office:surplus_receive", kwargs={"pk": surplus.pk}),
        {"received_on": (timezone.localdate() + timedelta(days=days)).isoformat()},
    )
    assert errors(response, "received_on")
    assert snapshot() == before


def test_surplus_received_once(client, dm_clerk, held):
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.post(
        reverse("office:surplus_receive", kwargs={"pk": held.pk}),
        {"received_on": timezone.localdate().isoformat()},
    )
    assert "This surplus has already been received." in errors(response)
    assert snapshot() == before


# --- Owners' claims ---------------------------------------------------------------------------


def test_claim_form_writes_nothing(client, dm_clerk, held):
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.get(reverse("office:claim_new", kwargs={"pk": held.pk}))
    assert response.status_code == 200 and response.context["open"]
    assert snapshot() == before


def test_office_records_a_claim_with_its_proof(client, dm_clerk, held):
    client.force_login(dm_clerk)
    scan = SimpleUploadedFile("tag.pdf", PDF, content_type="application/pdf")
    response = client.post(
        reverse("office:claim_new", kwargs={"pk": held.pk}), claim_data(proof_scan=scan)
    )
    assert response.status_code == 302
    claim = SurplusClaim.objects.get()
    assert claim.status == SurplusClaim.Status.PENDING and claim.capacity == "owner"
    assert claim.prepared_by == dm_clerk
    with claim.proof_scan.open("rb") as f:
        assert f.read().startswith(b"%PDF-")
    assert Event.objects.filter(action="ledger.surplus_claimed", section="s.17").exists()


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"claimant_name": ""}, "claimant_name"),
        ({"proof": ""}, "proof"),
        ({"capacity": "friend"}, "capacity"),
        ({"filed_on": "2000-01-01"}, "filed_on"),  # before the sale
        ({"filed_on": "2999-01-01"}, "filed_on"),  # in the future
        (
            {"proof_scan": SimpleUploadedFile("x.pdf", b"not a pdf", content_type="text/plain")},
            "proof_scan",
        ),
    ],
)
def test_claim_refused_beside_the_field(client, dm_clerk, held, data, field):
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.post(reverse("office:claim_new", kwargs={"pk": held.pk}), claim_data(**data))
    assert errors(response, field)
    assert snapshot() == before


def test_claim_after_the_three_months_refused(client, dm_clerk, held, time_machine):
    day_after = held.expires_on + timedelta(days=1)
    travel_to(time_machine, day_after)
    client.force_login(dm_clerk)
    response = client.get(reverse("office:surplus"))
    assert not response.context["held"][0].can_claim
    before = snapshot()
    response = client.post(
        reverse("office:claim_new", kwargs={"pk": held.pk}),
        claim_data(filed_on=day_after.isoformat()),
    )
    assert "within the three months" in errors(response, "filed_on")[0]
    assert snapshot() == before


def test_second_claim_waits_for_the_first(client, dm_clerk, claim):
    client.force_login(dm_clerk)
    url_ = reverse("office:claim_new", kwargs={"pk": claim.deposit_id})
    assert client.get(url_).context["pending"] == claim
    before = snapshot()
    response = client.post(url_, claim_data(claimant_name="Ram"))
    assert "A claim to this surplus is already awaiting decision." in errors(response)
    assert snapshot() == before


def test_decision_page_shows_the_proof_the_sale_and_the_entry(client, magistrate, claim):
    client.force_login(magistrate)
    before = snapshot()
    response = client.get(reverse("office:claim_decide", kwargs={"pk": claim.pk}))
    html = response.content.decode()
    sale = claim.deposit.sale
    animal = sale.lot.animals.get()
    assert "Ear-tag record of the cow" in html and sale.lot.auction.number in html
    assert animal.reference in html and animal.description in html
    assert animal.impoundment.owner_name in html
    scan = client.get(reverse("office:claim_decide", kwargs={"pk": claim.pk}) + "?file=proof")
    assert scan["Content-Type"] == "application/pdf"
    assert b"".join(scan.streaming_content).startswith(b"%PDF-")
    assert snapshot() == before


def test_magistrate_rejects_a_claim(client, magistrate, claim):
    client.force_login(magistrate)
    response = client.post(
        reverse("office:claim_decide", kwargs={"pk": claim.pk}),
        {"allow": "0", "decision": "The ear tag is registered to another man"},
    )
    assert response.status_code == 302
    claim.refresh_from_db()
    assert claim.status == SurplusClaim.Status.REJECTED and claim.decided_by == magistrate
    assert claim.deposit.status == SurplusDeposit.Status.HELD
    assert Event.objects.filter(action="ledger.surplus_claim_rejected").exists()
    assert run_checks() == []


def test_magistrate_allows_a_claim_and_the_surplus_is_paid(client, magistrate, claim, district):
    client.force_login(magistrate)
    response = client.post(
        reverse("office:claim_decide", kwargs={"pk": claim.pk}),
        {
            "allow": "1",
            "decision": "Tag record and witnesses agree",
            "payment_mode": "other",
            "payment_reference": "Cheque 001122",
        },
    )
    assert response.status_code == 302
    claim.refresh_from_db()
    assert claim.status == SurplusClaim.Status.ALLOWED
    assert claim.payment_reference == "Cheque 001122"
    assert claim.deposit.status == SurplusDeposit.Status.PAID
    assert Event.objects.filter(action="ledger.surplus_claim_allowed", section="s.17").exists()
    assert balance(district, AccountKind.DM_SURPLUS_HELD) == 0
    assert run_checks() == []


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"allow": "1", "decision": "ok"}, "payment_mode"),
        ({"allow": "1", "decision": "ok", "payment_mode": "upi"}, "payment_reference"),
        ({"allow": "1", "decision": "", "payment_mode": "cash"}, "decision"),
        ({"decision": "ok"}, "allow"),
    ],
)
def test_decision_refused_beside_the_field(client, magistrate, claim, data, field):
    client.force_login(magistrate)
    before = snapshot()
    response = client.post(reverse("office:claim_decide", kwargs={"pk": claim.pk}), data)
    assert errors(response, field)
    assert snapshot() == before


def test_decided_claim_cannot_be_decided_again(client, magistrate, claim):
    office.decide_surplus_claim(claim=claim, by=magistrate, allow=False, decision="no")
    client.force_login(magistrate)
    before = snapshot()
    response = client.post(
        reverse("office:claim_decide", kwargs={"pk": claim.pk}),
        {"allow": "1", "decision": "yes", "payment_mode": "cash"},
    )
    assert "This claim has already been decided." in errors(response)
    assert snapshot() == before


# --- The transfer memo ------------------------------------------------------------------------


def test_memo_not_found_before_the_transfer(client, dm_clerk, held):
    client.force_login(dm_clerk)
    response = client.get(reverse("office:transfer_memo_pdf", kwargs={"pk": held.pk}))
    assert response.status_code == 404


def _pdf_text(content, tmp_path):
    """The text laid out as on the page, and the fonts listed as pdffonts lists them: two header
    lines, then one font a line."""
    fonts = ["name", "----", *readpdf.fonts(content)]
    return readpdf.text(content, layout=True), "\n".join(fonts)


def test_transfer_memo_pdf(client, dm_clerk, transferred, tmp_path):
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.get(reverse("office:transfer_memo_pdf", kwargs={"pk": transferred.pk}))
    assert snapshot() == before
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    text, fonts = _pdf_text(response.content, tmp_path)
    assert transferred.transfer_memo.number in text
    assert "₹19,500.00" in text and "nineteen thousand five hundred" in text.lower()
    assert "revenues of the State" in text and "s.17" in text
    assert transferred.expires_on.strftime("%d-%m-%Y") in text
    names = {line.split()[0].split("+", 1)[-1] for line in fonts.splitlines()[2:] if line}
    assert {"Noto-Sans", "Noto-Sans-Bold", "Noto-Sans-Devanagari"} <= names


def test_transfer_memo_names_the_local_fund_under_s31(
    client, dm_clerk, district, held, tmp_path, time_machine
):
    DistrictPolicy.objects.update_or_create(
        district=district,
        defaults={
            "surplus_destination": "local_fund",
            "local_fund_name": "Zila Panchayat Fund, Lucknow",
            "s31_notification": "UP Notif 31/1990",
        },
    )
    travel_to(time_machine, held.expires_on + timedelta(days=1))
    call_command("run_deadlines")
    held.refresh_from_db()
    assert held.destination == SurplusDeposit.Destination.LOCAL_FUND
    client.force_login(dm_clerk)
    response = client.get(reverse("office:surplus"))
    assert "Credited to Zila Panchayat Fund, Lucknow (s.31)" in response.content.decode()
    response = client.get(reverse("office:transfer_memo_pdf", kwargs={"pk": held.pk}))
    text, _fonts = _pdf_text(response.content, tmp_path)
    assert "Zila Panchayat Fund, Lucknow" in text and "s.31" in text
    assert "UP Notif 31/1990" in " ".join(text.split())
    assert balance(district, AccountKind.LOCAL_FUND) == -held.amount
    assert run_checks() == []


# --- The feeding-money statement ----------------------------------------------------------------


def test_feeding_statement_sets_the_money_kept_against_the_log(
    client, auditor, pound, pound_keeper, tariffs, time_machine
):
    # The middle of a month, so that the days before are in the same month.
    travel_to(time_machine, timezone.localdate().replace(day=15))
    today = timezone.localdate()
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=3))
    release = pay(entry, pound_keeper)
    for days, cost in ((3, Decimal("450.00")), (2, None)):
        impounding.log_feeding(
            pound=pound,
            by=pound_keeper,
            date=today - timedelta(days=days),
            animals_fed=1,
            fodder="Green fodder",
            cost=cost,
        )
    client.force_login(auditor)
    before = snapshot()
    response = client.get(reverse("office:feeding_statement", kwargs={"pk": pound.pk}))
    assert snapshot() == before
    statement = response.context["statement"]
    assert statement.kept == release.feeding == Decimal("2000.00")  # four days at ₹500
    assert statement.sources == [("Paid by owners on release (s.13)", 1, release.feeding)]
    assert statement.spent == Decimal("450.00") and statement.days_logged == 2
    assert statement.days_without_cost == 1 and statement.animals_fed == 2
    assert [d.date for d in statement.missing] == [today - timedelta(days=1)]
    html = response.content.decode()
    assert "₹1,550.00" in html and entry.register_number in html


def test_feeding_statement_of_an_earlier_month_and_bad_months(client, auditor, pound):
    client.force_login(auditor)
    target = reverse("office:feeding_statement", kwargs={"pk": pound.pk})
    response = client.get(target + "?month=2024-02")
    statement = response.context["statement"]
    assert (statement.first.isoformat(), statement.last.isoformat()) == ("2024-02-01", "2024-02-29")
    assert statement.kept == 0 and statement.days
    for bad in ("2024-13", "soon", "2999-01"):
        response = client.get(target + f"?month={bad}")
        assert response.context["form"].errors["month"]
        assert response.context["statement"].first == timezone.localdate().replace(day=1)


def test_feeding_statement_query_count_flat(client, auditor, pound, pound_keeper, tariffs):
    pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    client.force_login(auditor)
    target = reverse("office:feeding_statement", kwargs={"pk": pound.pk})
    with CaptureQueriesContext(connection) as few:
        client.get(target)
    for _ in range(4):
        pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    with CaptureQueriesContext(connection) as many:
        response = client.get(target)
    assert len(response.context["statement"].credits) == 5
    assert len(many) == len(few)


# --- The money trail of a register entry ---------------------------------------------------------


def test_money_trail_follows_each_rupee(
    client,
    auditor,
    dm_clerk,
    magistrate,
    pound,
    pound_keeper,
    police_officer,
    district,
    tariffs,
):
    """Three cows of one seizure: the first paid for (s.13), the second released on a deposit
    that is then applied (s.15), the third sold unclaimed (s.14) with a surplus."""
    conditions(district)
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, animals=[cow(), cow(), cow()])
    first, second, third = entry.animals.order_by("number")
    early = timezone.now() - timedelta(days=19)
    paid = pay(entry, pound_keeper, [first], at=early)
    held_deposit = deposit(entry, pound_keeper, [second], at=early).deposit
    report_and_notice(entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9)
    impounding.apply_deposit(deposit=held_deposit, by=magistrate)
    held_deposit.refresh_from_db()
    auction = schedule(pound, police_officer, [[third]])
    sale = auctions.sell_lot(
        lot=auction.lots.get(),
        buyer=register(auction, police_officer),
        price=Decimal("50000.00"),
        by=police_officer,
    )
    surplus_ = SurplusDeposit.objects.get()
    office.receive_surplus(deposit=surplus_, by=dm_clerk, received_on=timezone.localdate())
    surplus_.refresh_from_db()
    # Two remittances of the pound: the first confirmed, the second on its way.
    first_remittance = office.send_remittance(
        pound=pound,
        by=pound_keeper,
        amount=FINE,
        challan_number="CH-1",
        treasury="T",
        remitted_on=timezone.localdate(),
    )
    office.confirm_remittance(remittance=first_remittance, by=dm_clerk)
    office.send_remittance(
        pound=pound,
        by=pound_keeper,
        amount=Decimal("10000.00"),
        challan_number="CH-2",
        treasury="T",
        remitted_on=timezone.localdate(),
    )
    assert run_checks() == []

    client.force_login(auditor)
    before = snapshot()
    response = client.get(reverse("office:money_trail", kwargs={"pk": entry.pk}))
    assert snapshot() == before
    trail = response.context["trail"]
    received = paid.amount + held_deposit.amount + sale.price
    assert trail.total_received == received == trail.total_accounted
    where = {d.key: d.amount for d in trail.destinations}
    assert where == {
        "fines_confirmed": FINE,  # the s.13 payment's fines, carried by the first remittance
        "fines_in_transit": Decimal("10000.00"),  # half of the deposit's, by the second
        "fines_unremitted": Decimal("30000.00"),  # the rest of the deposit's, and the sale's
        "feeding": paid.feeding + held_deposit.feeding + sale.feeding,
        "surplus_held": surplus_.amount,
    }
    assert sale.surplus == surplus_.amount and sale.expenses == 0
    assert [(s.remittance.challan_number, s.amount) for s in trail.remittances] == [
        ("CH-1", FINE),
        ("CH-2", Decimal("10000.00")),
    ]
    kinds = [t.txn.kind for t in trail.transactions]
    assert kinds == [
        "payment_s13",
        "deposit_s15",
        "deposit_applied",
        "sale_s14",
        "surplus_received",
    ]
    html = response.content.decode()
    assert surplus_.expires_on.strftime("%d-%m-%Y") in html
    assert "CH-1" in html and "CH-2" in html
    assert (
        reverse("office:money_trail", kwargs={"pk": entry.pk})
        in client.get(entry.get_absolute_url()).content.decode()
    )


def test_money_trail_follows_a_surplus_to_revenue(client, auditor, transferred):
    entry = transferred.sale.lot.animals.get().impoundment
    client.force_login(auditor)
    response = client.get(reverse("office:money_trail", kwargs={"pk": entry.pk}))
    trail = response.context["trail"]
    where = {d.key: d.amount for d in trail.destinations}
    assert where["state_revenue"] == transferred.amount
    assert "surplus_held" not in where
    assert trail.total_received == trail.total_accounted
    assert transferred.transfer_memo.number in response.content.decode()


def test_money_trail_of_an_entry_without_money(client, pound_keeper, pound, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    response = client.get(reverse("office:money_trail", kwargs={"pk": entry.pk}))
    assert response.status_code == 200
    assert response.context["trail"].destinations == []


@pytest.mark.parametrize("months", [6, None])
def test_receipt_page_gives_the_holding_period_of_the_districts_pack(
    client, dm_clerk, surplus, district, months
):
    """The hint follows the pack's s.17 clock: another period where a State sets one, and no
    date at all where the pack leaves it for the State to fill."""
    from rulepacks.models import DistrictRulePack, RulePack
    from rulepacks.services import forget_packs, load_shipped

    load_shipped("central")
    central = RulePack.objects.latest_of("central")
    rules = dict(central.rules, version=f"9.{months or 0}")
    rules["clocks"] = dict(rules["clocks"], surplus_hold_months=months)
    pack = RulePack.objects.create(
        code="central", version=f"9.{months or 0}", title=central.title, verified=True,
        effective_from=central.effective_from, rules=rules, digest="0" * 64,
    )  # fmt: skip
    DistrictRulePack.objects.create(district=district, pack=pack, chosen_at=timezone.now())
    forget_packs()
    client.force_login(dm_clerk)

    response = client.get(reverse("office:surplus_receive", kwargs={"pk": surplus.pk}))

    html = response.content.decode()
    today = timezone.localdate()
    if months is None:
        assert "leaves the holding period for the State to fill" in html
        assert "expiry_if_today" not in response.context
    else:
        assert "6 months from the sale" in html
        assert response.context["expiry_if_today"] == surplus_expiry(today, surplus.sale_date, 6)
        assert add_months(today, 6).strftime("%d-%m-%Y") in html
