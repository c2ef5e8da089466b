import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from impounding import services
from impounding.models import Complaint, Deposit, SeizerLiability
from kernel.models import Event
from ledger.models import Transaction, TransactionKind
from tests.accounts.factories import staff
from tests.impounding.factories import cow, deposit, goat, make_entry


@pytest.fixture
def other_magistrate(other_district):
    return staff(Role.MAGISTRATE, "other_magistrate", district=other_district)


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(pound=pound, by=pound_keeper, animals=[cow(), goat()])


@pytest.fixture
def held(entry, pound_keeper):
    """A deposit made today for cattle seized today: the time to complain is still running."""
    return deposit(entry, pound_keeper).deposit


def old_entry(pound, by, days=20):
    arrived = timezone.now() - timedelta(days=days)
    return make_entry(pound=pound, by=by, animals=[cow()], arrived_at=arrived)


@pytest.fixture
def lapsed(pound, pound_keeper, tariffs):
    """A deposit whose complaint window ran out with no complaint: ready to be applied."""
    return deposit(old_entry(pound, pound_keeper), pound_keeper).deposit


def complain(entry, by, **kw):
    fields = dict(
        complainant_name="Shyam Lal",
        mode=Complaint.Mode.WRITTEN,
        court="Court of the SDM, Mohanlalganj",
        filed_on=timezone.localdate(),
    )
    return services.record_complaint(entry=entry, by=by, **(fields | kw))


@pytest.fixture
def refund_due(held, entry, pound_keeper, magistrate):
    complaint = complain(entry, pound_keeper, deposit=held)
    services.decide_complaint(
        complaint=complaint,
        by=magistrate,
        outcome=Complaint.Outcome.UPHELD,
        decided_on=timezone.localdate(),
        payable_by="Ram Prasad",
    )
    held.refresh_from_db()
    return held


def assert_login_redirect(response):
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def messages_of(response):
    return [str(m) for m in get_messages(response.wsgi_request)]


# --- recording a complaint ----------------------------------------------------------------------


def complaint_data(**over):
    return {
        "idempotency_key": str(uuid.uuid4()),
        "complainant_name": "Shyam Lal",
        "mode": "written",
        "substance": "",
        "court": "Court of the SDM, Mohanlalganj",
        "case_number": "12/2026",
        "filed_on": timezone.localdate().isoformat(),
        "summons_on": "",
    } | over


def test_complaint_new_sends_anonymous_to_login(client, entry):
    assert_login_redirect(client.get(reverse("impounding:complaint_new", args=[entry.pk])))


@pytest.mark.parametrize("role", ["auditor", "police_officer"])
def test_complaint_new_refused_to_a_role_that_cannot_record_it(client, role_users, entry, role):
    client.force_login(role_users[role])
    url = reverse("impounding:complaint_new", args=[entry.pk])
    assert client.get(url).status_code == 403
    assert client.post(url, complaint_data()).status_code == 403
    assert not Complaint.objects.exists()


@pytest.mark.parametrize("who", ["outsider", "other_magistrate"])
def test_complaint_new_for_another_district_is_not_found(client, request, entry, who):
    client.force_login(request.getfixturevalue(who))
    url = reverse("impounding:complaint_new", args=[entry.pk])
    assert client.get(url).status_code == 404
    assert client.post(url, complaint_data()).status_code == 404


def test_complaint_new_get_shows_the_deadline_and_offers_the_deposit(client, dm_clerk, entry, held):
    client.force_login(dm_clerk)

    response = client.get(reverse("impounding:complaint_new", args=[entry.pk]))

    assert response.status_code == 200
    deadline = entry.seizure_date() + timedelta(days=10)
    assert response.context["deadline"] == deadline
    body = response.content.decode()
    assert deadline.strftime("%d-%m-%Y") in body
    assert f"{(deadline - timezone.localdate()).days} days are left" in body
    assert response.context["form"]["deposit"].value() == held.pk
    assert reverse("impounding:entry", args=[entry.pk]) in body
    assert not Complaint.objects.exists()


def test_complaint_new_records_a_complaint_in_time(client, pound_keeper, entry, held):
    client.force_login(pound_keeper)

    response = client.post(
        reverse("impounding:complaint_new", args=[entry.pk]),
        complaint_data(deposit=str(held.pk)),
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("impounding:entry", args=[entry.pk])
    complaint = Complaint.objects.get()
    assert complaint.deposit == held and complaint.in_time
    assert complaint.recorded_by == pound_keeper and complaint.case_number == "12/2026"
    event = Event.objects.get(action="complaint.recorded")
    assert event.impoundment == entry and event.section == "s.20"
    assert messages_of(response) == ["Complaint recorded, made in time (s.20)."]


def test_complaint_new_records_a_late_complaint_with_a_warning(
    client, dm_clerk, pound, pound_keeper, tariffs
):
    late_entry = old_entry(pound, pound_keeper)
    client.force_login(dm_clerk)

    page = client.get(reverse("impounding:complaint_new", args=[late_entry.pk]))
    response = client.post(
        reverse("impounding:complaint_new", args=[late_entry.pk]), complaint_data()
    )

    assert "A complaint made now is still recorded, marked late" in page.content.decode()
    assert response.status_code == 302
    complaint = Complaint.objects.get()
    assert not complaint.in_time
    late = (complaint.filed_on - complaint.deadline).days
    assert late == (timezone.localdate() - late_entry.seizure_date()).days - 10 > 0
    assert messages_of(response)[0].startswith(
        f"Complaint recorded and marked late: it was made {late} days after"
    )
    assert Event.objects.get(action="complaint.recorded").data["in_time"] is False


def test_complaint_new_invalid_shows_errors_beside_fields_and_writes_nothing(
    client, pound_keeper, entry
):
    client.force_login(pound_keeper)
    url = reverse("impounding:complaint_new", args=[entry.pk])

    missing = client.post(url, complaint_data(court=""))
    oral = client.post(url, complaint_data(mode="oral"))  # the service wants its substance
    agent = client.post(url, complaint_data(through_agent="on", agent_name="Mohan"))

    assert missing.status_code == oral.status_code == agent.status_code == 200
    assert missing.context["form"].errors["court"]
    assert oral.context["form"].errors["substance"] == [
        "Write down the substance of the oral complaint."
    ]
    assert "s.21" in agent.context["form"].errors["agent_acquaintance"][0]
    assert not Complaint.objects.exists()
    assert not Event.objects.filter(action="complaint.recorded").exists()


def test_complaint_new_refuses_a_future_filing_date(client, pound_keeper, entry):
    client.force_login(pound_keeper)
    tomorrow = timezone.localdate() + timedelta(days=1)

    response = client.post(
        reverse("impounding:complaint_new", args=[entry.pk]),
        complaint_data(filed_on=tomorrow.isoformat()),
    )

    assert response.context["form"].errors["filed_on"]
    assert not Complaint.objects.exists()


# --- deciding a complaint -----------------------------------------------------------------------


@pytest.fixture
def pending(entry, held, pound_keeper):
    return complain(entry, pound_keeper, deposit=held)


def decide_data(**over):
    return {
        "outcome": "upheld",
        "decided_on": timezone.localdate().isoformat(),
        "order_reference": "Order 3/2026",
        "compensation": "250.00",
        "payable_by": "Ram Prasad",
    } | over


def test_complaint_decide_sends_anonymous_to_login(client, pending):
    assert_login_redirect(client.get(reverse("impounding:complaint_decide", args=[pending.pk])))


def test_complaint_decide_refused_to_an_auditor(client, auditor, pending):
    client.force_login(auditor)
    url = reverse("impounding:complaint_decide", args=[pending.pk])
    assert client.get(url).status_code == 403
    assert client.post(url, decide_data()).status_code == 403
    assert Complaint.objects.get().outcome == "pending"


@pytest.mark.parametrize("who", ["outsider", "other_magistrate"])
def test_complaint_decide_in_another_district_is_not_found(client, request, pending, who):
    client.force_login(request.getfixturevalue(who))
    url = reverse("impounding:complaint_decide", args=[pending.pk])
    assert client.get(url).status_code == 404


def test_complaint_decide_get_shows_the_form(client, magistrate, pending, entry):
    client.force_login(magistrate)

    response = client.get(reverse("impounding:complaint_decide", args=[pending.pk]))

    assert response.status_code == 200
    assert response.context["form"]["payable_by"].value() == entry.seizer_name
    assert reverse("impounding:entry", args=[entry.pk]) in response.content.decode()
    assert Complaint.objects.get().outcome == "pending"


def test_complaint_decide_upheld_makes_the_deposit_refundable(
    client, magistrate, pending, held, entry
):
    client.force_login(magistrate)

    response = client.post(reverse("impounding:complaint_decide", args=[pending.pk]), decide_data())

    assert response.status_code == 302
    assert response["Location"] == reverse("impounding:entry", args=[entry.pk])
    pending.refresh_from_db()
    assert pending.outcome == "upheld" and pending.compensation == Decimal("250.00")
    held.refresh_from_db()
    assert held.status == Deposit.Status.REFUND_DUE
    liability = SeizerLiability.objects.get()
    assert liability.payable_by == "Ram Prasad" and liability.fines == held.fines
    assert Transaction.objects.filter(kind=TransactionKind.DEPOSIT_REFUND_DUE).count() == 1
    assert Event.objects.get(action="complaint.upheld").by == magistrate


def test_complaint_decide_dismissed(client, dm_clerk, pending, held):
    client.force_login(dm_clerk)

    response = client.post(
        reverse("impounding:complaint_decide", args=[pending.pk]),
        decide_data(outcome="dismissed", compensation="", payable_by=""),
    )

    assert response.status_code == 302
    pending.refresh_from_db()
    assert pending.outcome == "dismissed" and pending.compensation == Decimal("0.00")
    assert services.deposit_awaiting_application(Deposit.objects.get(pk=held.pk))
    assert Event.objects.filter(action="complaint.dismissed").count() == 1


def test_complaint_decide_invalid_writes_nothing(client, magistrate, pending, held):
    client.force_login(magistrate)
    url = reverse("impounding:complaint_decide", args=[pending.pk])

    no_payer = client.post(url, decide_data(payable_by=""))
    no_outcome = client.post(url, decide_data(outcome=""))
    early = (pending.filed_on - timedelta(days=1)).isoformat()
    too_early = client.post(url, decide_data(decided_on=early))

    assert no_payer.context["form"].errors["payable_by"] == ["Name who the order makes pay (s.22)."]
    assert no_outcome.context["form"].errors["outcome"]
    assert too_early.context["form"].errors["decided_on"]
    pending.refresh_from_db()
    assert pending.outcome == "pending"
    assert Deposit.objects.get().status == Deposit.Status.HELD
    assert not SeizerLiability.objects.exists()
    assert not Event.objects.filter(action__in=["complaint.upheld", "complaint.dismissed"]).exists()


def test_complaint_decide_twice_changes_nothing(client, magistrate, pending):
    client.force_login(magistrate)
    url = reverse("impounding:complaint_decide", args=[pending.pk])
    client.post(url, decide_data(outcome="dismissed"))

    again = client.post(url, decide_data())

    assert again.status_code == 200 and again.context["form"] is None
    assert "has been decided" in again.content.decode()
    assert Complaint.objects.get().outcome == "dismissed"


# --- the deposits page --------------------------------------------------------------------------


def test_deposits_sends_anonymous_to_login(client):
    assert_login_redirect(client.get(reverse("impounding:deposits")))


@pytest.mark.parametrize("role", ["police_officer", "administrator"])
def test_deposits_refused_without_the_ledger(client, role_users, role):
    client.force_login(role_users[role])
    assert client.get(reverse("impounding:deposits")).status_code == 403


def test_deposits_lists_each_kind_with_its_action(
    client, magistrate, held, lapsed, refund_due, pound, pound_keeper
):
    waiting = complain(old_entry(pound, pound_keeper), pound_keeper)
    client.force_login(magistrate)

    response = client.get(reverse("impounding:deposits"))

    assert response.status_code == 200
    ctx = response.context
    assert [d.pk for d in ctx["awaiting"]] == [lapsed.pk]
    assert [d.pk for d in ctx["refund_due"]] == [refund_due.pk]
    assert ctx["held"] == []  # the held deposit's complaint was upheld: it is due for refund
    assert [c.pk for c in ctx["pending"]] == [waiting.pk]
    body = response.content.decode()
    assert reverse("impounding:deposit_apply", args=[lapsed.pk]) in body
    assert reverse("impounding:deposit_refund", args=[refund_due.pk]) not in body  # not his
    assert reverse("impounding:complaint_decide", args=[waiting.pk]) in body
    assert reverse("impounding:entry", args=[lapsed.release.impoundment_id]) in body


def test_deposits_shows_days_left_and_pound_keeper_actions(
    client, pound_keeper, held, lapsed, refund_due
):
    client.force_login(pound_keeper)

    response = client.get(reverse("impounding:deposits"))

    body = response.content.decode()
    assert reverse("impounding:deposit_apply", args=[lapsed.pk]) not in body
    assert "Awaiting the District Magistrate" in body
    assert reverse("impounding:deposit_refund", args=[refund_due.pk]) in body


def test_deposits_held_row_counts_the_days_left(client, dm_clerk, held):
    client.force_login(dm_clerk)

    response = client.get(reverse("impounding:deposits"))

    assert [d.pk for d in response.context["held"]] == [held.pk]
    days = (held.complaint_deadline - timezone.localdate()).days
    assert f"{days} days left to complain" in response.content.decode()


def test_deposits_leaves_out_other_districts(client, outsider, held, lapsed):
    client.force_login(outsider)

    response = client.get(reverse("impounding:deposits"))

    assert response.status_code == 200
    ctx = response.context
    assert ctx["held"] == ctx["awaiting"] == ctx["refund_due"] == ctx["pending"] == []


def test_deposits_query_count_does_not_grow_with_rows(
    client, magistrate, pound, pound_keeper, tariffs, django_assert_max_num_queries
):
    def add_rows():
        deposit(old_entry(pound, pound_keeper), pound_keeper)
        e = make_entry(pound=pound, by=pound_keeper)
        complain(e, pound_keeper, deposit=deposit(e, pound_keeper).deposit)

    add_rows()
    client.force_login(magistrate)
    client.get(reverse("impounding:deposits"))
    with django_assert_max_num_queries(20) as few:
        client.get(reverse("impounding:deposits"))
    for _ in range(5):
        add_rows()
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get(reverse("impounding:deposits"))
    assert len(response.context["awaiting"]) == 6
    assert len(response.context["held"]) == 6


def test_deposits_page_shows_each_list_first_rows_and_pages_one_alone(
    client, magistrate, pound, pound_keeper, tariffs, monkeypatch
):
    """A State's office holds a thousand deposits in their window at once: the page shows each
    list's first rows with its count, and one list alone a page at a time by keyset."""
    from impounding.views import court

    monkeypatch.setattr(court, "DEPOSIT_ROWS", 2)
    monkeypatch.setattr(court, "DEPOSIT_PAGE", 2)
    held = [deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper) for _ in range(3)]
    lapsed = [deposit(old_entry(pound, pound_keeper), pound_keeper) for _ in range(3)]
    held_ids = sorted((d.complaint_deadline, d.pk) for d in (r.deposit for r in held))
    client.force_login(magistrate)

    first = client.get(reverse("impounding:deposits"))

    ctx = first.context
    assert ctx["counts"] == {"awaiting": 3, "refund_due": 0, "held": 3, "pending": 0}
    assert [d.pk for d in ctx["held"]] == [pk for _day, pk in held_ids[:2]]
    assert len(ctx["awaiting"]) == 2 and {d.pk for d in ctx["awaiting"]} <= {
        r.deposit.pk for r in lapsed
    }
    assert "?list=held" in first.content.decode()

    alone = client.get(reverse("impounding:deposits"), {"list": "held"})
    assert alone.context["awaiting"] == [] and alone.context["only"] == "held"
    cursor = alone.context["cursors"]["held"]
    rest = client.get(reverse("impounding:deposits"), {"list": "held", "after": cursor})
    assert [d.pk for d in rest.context["held"]] == [held_ids[2][1]]
    assert rest.context["cursors"]["held"] is None


# --- applying a deposit -------------------------------------------------------------------------


def test_deposit_apply_sends_anonymous_to_login(client, lapsed):
    assert_login_redirect(client.get(reverse("impounding:deposit_apply", args=[lapsed.pk])))


@pytest.mark.parametrize("role", ["dm_clerk", "pound_keeper", "auditor"])
def test_deposit_apply_refused_to_all_but_the_magistrate(client, role_users, lapsed, role):
    client.force_login(role_users[role])
    url = reverse("impounding:deposit_apply", args=[lapsed.pk])
    assert client.get(url).status_code == 403
    assert client.post(url).status_code == 403
    assert Deposit.objects.get().status == Deposit.Status.HELD


@pytest.mark.parametrize("who", ["outsider", "other_magistrate"])
def test_deposit_apply_in_another_district_is_not_found(client, request, lapsed, who):
    client.force_login(request.getfixturevalue(who))
    url = reverse("impounding:deposit_apply", args=[lapsed.pk])
    assert client.get(url).status_code == 404
    assert client.post(url).status_code == 404


def test_deposit_apply_get_confirms_the_amounts(client, magistrate, lapsed):
    client.force_login(magistrate)

    response = client.get(reverse("impounding:deposit_apply", args=[lapsed.pk]))

    assert response.status_code == 200 and response.context["may_apply"]
    body = response.content.decode()
    assert "₹20,000.00" in body  # the fine
    assert "Apply the deposit as payment" in body
    assert reverse("impounding:entry", args=[lapsed.release.impoundment_id]) in body
    assert Deposit.objects.get().status == Deposit.Status.HELD


def test_deposit_apply_posts_the_payment(client, magistrate, lapsed):
    client.force_login(magistrate)

    response = client.post(reverse("impounding:deposit_apply", args=[lapsed.pk]))

    assert response.status_code == 302 and response["Location"] == reverse("impounding:deposits")
    lapsed.refresh_from_db()
    assert lapsed.status == Deposit.Status.APPLIED and lapsed.applied_by == magistrate
    txn = Transaction.objects.get(kind=TransactionKind.DEPOSIT_APPLIED)
    assert sorted(p.amount for p in txn.postings.all()) == sorted(
        [lapsed.amount, -lapsed.fines, -lapsed.feeding]
    )
    assert Event.objects.get(action="deposit.applied").by == magistrate
    assert_deposit_panel(client, response, lapsed, "applied as payment of the fines and charges")


def assert_deposit_panel(client, response, deposit, done):
    """The confirmation panel (GOV.UK, ADR 0030): what was done, the deposit receipt's number as
    the reference, and the receipt to print; shown once, on the page the action leads to."""
    receipt = deposit.release.receipt
    page = client.get(response["Location"]).content.decode()
    assert 'data-testid="confirmation-panel"' in page
    assert f"Deposit {receipt.number} {done}." in page or f"deposit {receipt.number} {done}" in page
    assert f'<strong class="confirmation-reference">{receipt.number}</strong>' in page
    assert reverse("impounding:receipt_pdf", args=[receipt.pk]) in page
    assert "Print the deposit receipt (PDF)" in page
    again = client.get(response["Location"]).content.decode()
    assert 'data-testid="confirmation-panel"' not in again


def test_deposit_apply_of_a_dismissed_complaints_deposit(client, magistrate, held, entry):
    complaint = complain(entry, magistrate, deposit=held)
    services.decide_complaint(
        complaint=complaint, by=magistrate, outcome="dismissed", decided_on=timezone.localdate()
    )
    client.force_login(magistrate)

    response = client.post(reverse("impounding:deposit_apply", args=[held.pk]))

    assert response.status_code == 302
    assert Deposit.objects.get(pk=held.pk).status == Deposit.Status.APPLIED


def test_deposit_apply_refused_while_the_complaint_window_runs(client, magistrate, held):
    client.force_login(magistrate)
    url = reverse("impounding:deposit_apply", args=[held.pk])

    page = client.get(url)
    response = client.post(url)

    assert not page.context["may_apply"]
    assert "cannot be applied yet" in page.content.decode()
    assert response.status_code == 200
    assert "cannot be applied" in str(response.context["form"].non_field_errors())
    assert Deposit.objects.get().status == Deposit.Status.HELD
    assert not Transaction.objects.filter(kind=TransactionKind.DEPOSIT_APPLIED).exists()


# --- refunding a deposit ------------------------------------------------------------------------


def test_deposit_refund_sends_anonymous_to_login(client, refund_due):
    assert_login_redirect(client.get(reverse("impounding:deposit_refund", args=[refund_due.pk])))


@pytest.mark.parametrize("role", ["magistrate", "auditor"])
def test_deposit_refund_refused_without_record_payment(client, role_users, refund_due, role):
    client.force_login(role_users[role])
    url = reverse("impounding:deposit_refund", args=[refund_due.pk])
    assert client.get(url).status_code == 403
    assert client.post(url, {"mode": "cash"}).status_code == 403


@pytest.mark.parametrize("who", ["outsider", "other_magistrate"])
def test_deposit_refund_in_another_district_is_not_found(client, request, refund_due, who):
    client.force_login(request.getfixturevalue(who))
    url = reverse("impounding:deposit_refund", args=[refund_due.pk])
    assert client.get(url).status_code == 404


def test_deposit_refund_get_shows_the_form(client, pound_keeper, refund_due):
    client.force_login(pound_keeper)

    response = client.get(reverse("impounding:deposit_refund", args=[refund_due.pk]))

    assert response.status_code == 200 and response.context["due"]
    assert "Record the refund" in response.content.decode()
    assert Deposit.objects.get().status == Deposit.Status.REFUND_DUE


def test_deposit_refund_records_the_refund(client, pound_keeper, refund_due):
    client.force_login(pound_keeper)

    response = client.post(
        reverse("impounding:deposit_refund", args=[refund_due.pk]),
        {"mode": "upi", "reference": "UPI-778899"},
    )

    assert response.status_code == 302 and response["Location"] == reverse("impounding:deposits")
    refund_due.refresh_from_db()
    assert refund_due.status == Deposit.Status.REFUNDED
    assert refund_due.refund_mode == "upi" and refund_due.refund_reference == "UPI-778899"
    txn = Transaction.objects.get(kind=TransactionKind.DEPOSIT_REFUNDED)
    assert sum(p.amount for p in txn.postings.all()) == 0
    assert Event.objects.get(action="deposit.refunded").by == pound_keeper
    assert_deposit_panel(client, response, refund_due, "recorded")


def test_deposit_refund_invalid_writes_nothing(client, pound_keeper, refund_due):
    client.force_login(pound_keeper)

    response = client.post(
        reverse("impounding:deposit_refund", args=[refund_due.pk]), {"mode": "upi"}
    )

    assert response.status_code == 200
    assert response.context["form"].errors["reference"]
    assert Deposit.objects.get().status == Deposit.Status.REFUND_DUE
    assert not Transaction.objects.filter(kind=TransactionKind.DEPOSIT_REFUNDED).exists()


def test_deposit_refund_of_a_held_deposit_is_refused(client, pound_keeper, held):
    client.force_login(pound_keeper)

    response = client.post(reverse("impounding:deposit_refund", args=[held.pk]), {"mode": "cash"})

    assert response.status_code == 200
    assert "not due for refund" in response.content.decode()
    assert Deposit.objects.get().status == Deposit.Status.HELD
