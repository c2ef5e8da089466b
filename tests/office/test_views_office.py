"""The District Magistrate's office: its home page with charts, the approvals waiting for it and
the three decided here (a shortfall written off, a court order checked, a deposit confirmed for
application), and each user's to-do list."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import ToDo
from accounts.roles import Role
from auctions import services as auction_services
from auctions.models import Shortfall
from impounding import services as impounding_services
from impounding.models import CourtOrder, Deposit
from impounding.selectors import missing_feeding_days
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import Transaction, TransactionKind
from office import dashboard as selectors
from office import overdue
from office import services as office
from office.charts import month_label
from office.models import SurplusDeposit
from tests.accounts.factories import PoundFactory, staff
from tests.auctions.factories import conditions, ready_for_sale, refused, register, schedule
from tests.impounding.factories import cow, deposit, goat, make_entry, pay
from tests.pdfs import SCAN_PDF

PDF = SCAN_PDF


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def other_magistrate(other_district):
    return staff(Role.MAGISTRATE, "other_magistrate", district=other_district)


@pytest.fixture
def standing_order(district, dm_clerk):
    return conditions(district, by=dm_clerk)


def sell(pound, keeper, officer, price):
    """A cow impounded 20 days ago (dues: fine ₹20,000 and 21 days of feeding at ₹500) sold
    today at `price`."""
    entry, _notice = ready_for_sale(pound=pound, keeper=keeper, officer=officer)
    auction = schedule(pound, officer, [[entry.animals.get()]])
    bidder = register(auction, officer)
    return auction_services.sell_lot(
        lot=auction.lots.get(), buyer=bidder, price=Decimal(price), by=officer
    )


@pytest.fixture
def shortfall(pound, pound_keeper, police_officer, standing_order, tariffs):
    return Shortfall.objects.get(sale=sell(pound, pound_keeper, police_officer, "5000.00"))


def court_release(pound, keeper, **kw):
    entry = make_entry(pound=pound, by=keeper)
    fields = dict(
        kind=CourtOrder.Kind.MAGISTRATE,
        court="Court of the Sub-Divisional Magistrate, Mohanlalganj",
        case_number="Misc. 12/2026",
        order_date=timezone.localdate(),
        scan=SimpleUploadedFile("order.pdf", PDF),
        dues_payable_by="Ram Prasad (seizer)",
    )
    return impounding_services.record_court_order(
        entry=entry, by=keeper, animal_ids=[a.pk for a in entry.animals.all()], **fields | kw
    )


@pytest.fixture
def court_order(pound, pound_keeper, tariffs):
    return court_release(pound, pound_keeper)


@pytest.fixture
def deposit_in_window(pound, pound_keeper, tariffs):
    """Seized this morning: the complaint window runs ten more days."""
    release = deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    return release.deposit


@pytest.fixture
def deposit_expired(pound, pound_keeper, tariffs):
    """Seized twelve days ago, no complaint: it may be applied now."""
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=12))
    return deposit(entry, pound_keeper).deposit


@pytest.fixture
def claim(pound, pound_keeper, police_officer, dm_clerk, standing_order, tariffs):
    sale = sell(pound, pound_keeper, police_officer, "40000.00")
    surplus = office.receive_surplus(
        deposit=SurplusDeposit.objects.get(sale=sale),
        by=dm_clerk,
        received_on=timezone.localdate(),
    )
    return office.file_surplus_claim(
        deposit=surplus,
        by=dm_clerk,
        claimant_name="Shyam Lal",
        claimant_address="Samesi",
        capacity="Owner",
        proof="Ear-tag record",
        filed_on=timezone.localdate(),
    )


def snapshot():
    return (
        Event.objects.count(),
        Transaction.objects.count(),
        list(Shortfall.objects.order_by("pk").values_list("status", "decided_by")),
        list(CourtOrder.objects.order_by("pk").values_list("reviewed_at", "review_note")),
        list(
            Deposit.objects.order_by("pk").values_list(
                "status", "application_confirmed_by", "applied_by"
            )
        ),
    )


ACTIONS = ["shortfall_write_off", "court_order_review", "deposit_confirm_application"]


@pytest.fixture
def records(shortfall, court_order, deposit_in_window):
    return {
        "shortfall_write_off": shortfall,
        "court_order_review": court_order,
        "deposit_confirm_application": deposit_in_window,
    }


def url(name, records=None):
    if name in ACTIONS:
        return reverse(f"office:{name}", args=[records[name].pk])
    return reverse(f"office:{name}")


# --- Who may open the pages ------------------------------------------------------------------

REFUSED = {
    "office": ["pound_keeper", "police_officer", "outsider"],
    "approvals": ["pound_keeper", "police_officer", "outsider"],
    "shortfall_write_off": ["pound_keeper", "police_officer", "dm_clerk", "auditor"],
    "court_order_review": ["pound_keeper", "police_officer", "auditor"],
    "deposit_confirm_application": ["pound_keeper", "police_officer", "dm_clerk", "auditor"],
}


@pytest.mark.parametrize("name", [*REFUSED, "todos"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_office_pages_send_anonymous_visitor_to_login(client, records, name, method):
    before = snapshot()
    response = getattr(client, method)(url(name, records), {"note": "x"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert snapshot() == before


@pytest.mark.parametrize("name", list(REFUSED))
@pytest.mark.parametrize("method", ["get", "post"])
def test_office_pages_refuse_roles_without_the_permission(
    client, role_users, records, name, method
):
    for role in REFUSED[name]:
        before = snapshot()
        client.force_login(role_users[role])
        response = getattr(client, method)(url(name, records), {"note": "Seen"})
        assert response.status_code == 403, role
        assert snapshot() == before


@pytest.mark.parametrize("name", ACTIONS)
@pytest.mark.parametrize("method", ["get", "post"])
def test_another_districts_record_is_not_found(client, records, other_magistrate, name, method):
    before = snapshot()
    client.force_login(other_magistrate)
    response = getattr(client, method)(url(name, records), {"note": "Seen"})
    assert response.status_code == 404
    assert snapshot() == before


@pytest.mark.parametrize(
    ("name", "role"),
    [
        ("office", "magistrate"),
        ("office", "dm_clerk"),
        ("office", "auditor"),
        ("approvals", "magistrate"),
        ("approvals", "auditor"),
        ("todos", "pound_keeper"),
        ("shortfall_write_off", "magistrate"),
        ("court_order_review", "dm_clerk"),
        ("court_order_review", "magistrate"),
        ("deposit_confirm_application", "magistrate"),
    ],
)
def test_get_shows_the_page_and_writes_nothing(client, role_users, records, name, role):
    before = snapshot()
    client.force_login(role_users[role])
    response = client.get(url(name, records))
    assert response.status_code == 200
    assert snapshot() == before


def test_another_districts_magistrate_sees_nothing_of_this_district(
    client, records, claim, other_magistrate, district
):
    client.force_login(other_magistrate)

    page = client.get(reverse("office:office"), {"district": district.pk})
    waiting = client.get(reverse("office:approvals")).context["waiting"]

    assert page.context["board"].district != district
    assert page.context["board"].deposits == []
    assert waiting.total == 0


# --- The home page -------------------------------------------------------------------------------


def test_dashboard_shows_deposits_surplus_fines_approvals_and_overdue(
    client, magistrate, pound, pound_keeper, deposit_in_window, deposit_expired, shortfall, claim
):
    pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    # A cow impounded nine days ago and not reported: the report is overdue (s.14).
    late = make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=9))
    client.force_login(magistrate)

    response = client.get(reverse("office:office"))

    board = response.context["board"]
    assert [d.pk for d in board.deposits] == [deposit_expired.pk, deposit_in_window.pk]
    assert [d.days_left for d in board.deposits] == [-2, 10]
    assert [d.complaint_status for d in board.deposits] == ["none", "none"]
    assert [s.status for s in board.surplus] == [SurplusDeposit.Status.HELD]
    assert board.surplus[0].pending_claims == [claim]
    (fines,) = board.fines
    assert (fines.credited, fines.unremitted) == (
        # The claimed cow's fine, and that of the cow sold with a surplus; the cow sold short
        # paid no fine (proceeds go to expenses, then feeding, then fines).
        Decimal("40000.00"),
        office.unremitted_fines(pound),
    )
    a = board.approvals
    assert [d.pk for d in a.deposits_to_apply] == [deposit_expired.pk]
    assert [d.pk for d in a.deposits_in_window] == [deposit_in_window.pk]
    assert (a.shortfalls, a.claims) == ([shortfall], [claim])
    (overdue,) = board.overdue
    assert overdue.reports == 1 and overdue.feeding_days
    html = response.content.decode()
    assert late.register_number not in html  # the overdue list gives counts, with links
    # Counts the Magistrate may read; no link to pages only the pound-keeper may open (ADR 0032).
    assert "1 report of unclaimed cattle not sent (s.14)" in html
    assert reverse("auctions:reports_due") not in html
    assert reverse("impounding:feeding_log", args=[pound.pk]) not in html
    assert reverse("office:feeding_statement", args=[pound.pk]) in html
    assert reverse("office:approvals") + "#shortfalls" in html
    for chart in ("impoundments", "money", "custody", "outcomes"):
        assert f'id="chart-{chart}-table"' in html
    assert html.count("<svg") == 4
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids))  # four charts, each with its own title and description
    assert "style=" not in html.split('<main id="main"')[1]


def test_fines_by_pound_are_those_of_the_remittance_service(
    pound, pound_keeper, dm_clerk, district, police_station, tariffs
):
    second = PoundFactory(district=district, nearest_police_station=police_station)
    keeper2 = staff(Role.POUND_KEEPER, "keeper2", pound=second)
    for _ in range(2):
        pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    pay(make_entry(pound=second, by=keeper2, animals=[goat()]), keeper2)
    sent = office.send_remittance(
        pound=pound,
        by=pound_keeper,
        amount=Decimal("20000.00"),
        challan_number="CH-1",
        treasury="Lucknow",
        remitted_on=timezone.localdate(),
    )
    office.send_remittance(
        pound=pound,
        by=pound_keeper,
        amount=Decimal("5000.00"),
        challan_number="CH-2",
        treasury="Lucknow",
        remitted_on=timezone.localdate(),
    )
    office.confirm_remittance(remittance=sent, by=dm_clerk)

    rows = {r.pound: r for r in selectors.fines_by_pound([pound, second])}

    assert (rows[pound].credited, rows[pound].confirmed, rows[pound].sent) == (
        Decimal("40000.00"),
        Decimal("20000.00"),
        Decimal("5000.00"),
    )
    for p in (pound, second):
        assert rows[p].unremitted == office.unremitted_fines(p)


def test_missing_feeding_days_agree_with_the_pound_selector(
    pound, pound_keeper, district, police_station, tariffs
):
    second = PoundFactory(district=district, nearest_police_station=police_station)
    keeper2 = staff(Role.POUND_KEEPER, "keeper2", pound=second)
    make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=5))
    make_entry(pound=second, by=keeper2, arrived_at=timezone.now() - timedelta(days=3))
    today = timezone.localdate()
    impounding_services.log_feeding(
        pound=pound,
        by=pound_keeper,
        date=today - timedelta(days=2),
        animals_fed=1,
        fodder="Green fodder",
    )
    first, last = today - timedelta(days=7), today - timedelta(days=1)

    missing = overdue.missing_feeding_days([pound.pk, second.pk], first, last)

    for p in (pound, second):
        assert missing[p.pk] == missing_feeding_days(p, first, last)
    assert len(missing[pound.pk]) == 4 and len(missing[second.pk]) == 3


def test_overdue_lists_reports_notices_and_auctions_per_pound(
    pound, pound_keeper, police_officer, standing_order, tariffs
):
    today = timezone.localdate()
    make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=9))
    reported = make_entry(
        pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=10)
    )
    auction_services.send_report(entry=reported, by=pound_keeper)
    ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)

    (row,) = overdue.overdue_by_pound([pound], today)

    assert (row.reports, row.notices, row.auctions) == (1, 1, 1)


def test_district_selector_shows_each_district_to_a_state_auditor(
    client, state, district, other_district, pound, other_pound, pound_keeper, tariffs
):
    auditor = staff(Role.AUDITOR, "state_auditor", state=state)
    make_entry(pound=pound, by=pound_keeper)
    client.force_login(auditor)

    first = client.get(reverse("office:office"))
    second = client.get(reverse("office:office"), {"district": other_district.pk})

    assert 'name="district"' in first.content.decode()
    assert first.context["board"].district == district
    assert second.context["board"].district == other_district
    assert second.context["board"].pounds == [other_pound]
    assert second.context["board"].charts[0].rows[-1][1] == [0]


def test_charts_tables_hold_the_figures_of_a_known_month(
    client, magistrate, district, pound, pound_keeper, police_station, tariffs
):
    second = PoundFactory(district=district, nearest_police_station=police_station, name="Zeta")
    keeper2 = staff(Role.POUND_KEEPER, "keeper2", pound=second)
    now = timezone.now()
    # This month: pound one takes in two entries (one claimed after three days in the pound,
    # one released on deposit the same day); pound two takes in one goat, still there.
    claimed = make_entry(
        pound=pound, by=pound_keeper, arrived_at=now - timedelta(days=3), animals=[cow(), cow()]
    )
    release = pay(claimed, pound_keeper)
    held = deposit(make_entry(pound=pound, by=pound_keeper, arrived_at=now), pound_keeper)
    make_entry(pound=second, by=keeper2, animals=[goat()], arrived_at=now - timedelta(hours=1))
    month_of_claim = timezone.localtime(claimed.arrived_at).date().replace(day=1)
    client.force_login(magistrate)

    response = client.get(reverse("office:office"))

    charts = {c.key: c for c in response.context["board"].charts}
    impounded = dict(charts["impoundments"].rows)
    assert charts["impoundments"].columns == [pound.label, "Zeta"]
    if month_of_claim == timezone.localdate().replace(day=1):
        assert impounded[month_label(month_of_claim)] == [2, 1]
    assert sum(sum(values) for values in impounded.values()) == 3
    money = dict(charts["money"].rows)
    assert money["Fines to the District Magistrate (s.17)"] == [release.fines]
    assert money["Feeding money kept by the pound-keepers (s.17)"] == [release.feeding]
    assert money["Deposits held under s.15"] == [held.amount]
    assert money["Surplus sale proceeds held (s.17)"] == [Decimal("0.00")]
    this_month = month_label(timezone.localdate().replace(day=1))
    custody = dict(charts["custody"].rows)
    # Two cows of three days each and one animal released within the hour: (3 + 3 + 0) / 3.
    assert custody[this_month][0] == 3
    assert custody[this_month][1] == Decimal("2.0")
    outcomes = dict(charts["outcomes"].rows)
    assert charts["outcomes"].columns[:2] == ["Claimed (s.13)", "On deposit (s.15)"]
    assert outcomes[this_month] == [2, 1, 0, 0, 0, 0, 0]
    html = response.content.decode()
    table = html.split('id="chart-money-table"')[1].split("</table>")[0]
    assert f'<td class="text-end text-nowrap">₹{release.fines:,}</td>' in table
    assert "Claimed (s.13)" in html.split('id="chart-outcomes"')[1].split("</svg>")[0]


def populate(pound, keeper, officer, n):
    """n claimed entries, n deposits, n sales (half of them short) and n court orders awaiting
    their check."""
    for i in range(n):
        entry = make_entry(pound=pound, by=keeper, arrived_at=timezone.now() - timedelta(days=i))
        pay(entry, keeper)
        deposit(make_entry(pound=pound, by=keeper), keeper)
        sell(pound, keeper, officer, "5000.00" if i % 2 else "40000.00")
        court_release(pound, keeper)


def count_queries(client, path):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(path)
    assert response.status_code == 200
    return len(ctx.captured_queries)


PAGES = ["office", "approvals", "todos"]


def test_page_query_counts_do_not_grow_with_the_records(
    client,
    magistrate,
    pound,
    pound_keeper,
    police_officer,
    standing_order,
    tariffs,
    django_assert_max_num_queries,
):
    populate(pound, pound_keeper, police_officer, 1)
    call_command("run_deadlines")
    client.force_login(magistrate)
    # Once first: the charts keep each closed month the first time it is charted (ChartMonth).
    client.get(reverse("office:office"))
    few = {name: count_queries(client, reverse(f"office:{name}")) for name in PAGES}

    populate(pound, pound_keeper, police_officer, 6)
    call_command("run_deadlines")
    assert Deposit.objects.count() == 7 and Shortfall.objects.count() == 3

    many = {name: count_queries(client, reverse(f"office:{name}")) for name in PAGES}
    assert many == few
    # 42: one is the session's second factor (ADR 0053), one the cattle still in the pound
    # (the court orders' animals stay until the orders are checked, docs/decisions/0056).
    for name in PAGES:
        with django_assert_max_num_queries(42):
            client.get(reverse(f"office:{name}"))


# --- Approvals -----------------------------------------------------------------------------------


def test_approvals_lists_everything_waiting_with_the_magistrates_buttons(
    client, magistrate, shortfall, court_order, deposit_in_window, deposit_expired, claim
):
    client.force_login(magistrate)

    response = client.get(reverse("office:approvals"))

    html = response.content.decode()
    for href in (
        reverse("impounding:deposit_apply", args=[deposit_expired.pk]),
        reverse("office:deposit_confirm_application", args=[deposit_in_window.pk]),
        reverse("office:shortfall_write_off", args=[shortfall.pk]),
        reverse("office:court_order_review", args=[court_order.pk]),
        reverse("office:claim_decide", args=[claim.pk]),
        reverse("impounding:court_order_scan", args=[court_order.pk]),
    ):
        assert f'href="{href}"' in html, href
    assert reverse("office:deposit_confirm_application", args=[deposit_expired.pk]) not in html


def test_clerk_checks_court_orders_but_sees_no_approval_buttons(
    client, dm_clerk, shortfall, court_order, deposit_in_window, deposit_expired, claim
):
    client.force_login(dm_clerk)

    html = client.get(reverse("office:approvals")).content.decode()

    assert reverse("office:court_order_review", args=[court_order.pk]) in html
    for hidden in (
        reverse("impounding:deposit_apply", args=[deposit_expired.pk]),
        reverse("office:deposit_confirm_application", args=[deposit_in_window.pk]),
        reverse("office:shortfall_write_off", args=[shortfall.pk]),
        reverse("office:claim_decide", args=[claim.pk]),
    ):
        assert hidden not in html
    assert "Awaiting the District Magistrate" in html


def test_auditor_reads_the_approvals_without_any_button(client, auditor, records):
    client.force_login(auditor)

    response = client.get(reverse("office:approvals"))

    assert response.context["waiting"].total == 3
    html = response.content.decode()
    assert "btn-primary mt-1" not in html and "btn-outline-primary mt-1" not in html


# --- Writing off a shortfall ----------------------------------------------------------------------


def test_magistrate_writes_off_a_shortfall(client, magistrate, shortfall):
    call_command("run_deadlines")
    assert ToDo.objects.get(key=f"shortfall_writeoff:{shortfall.pk}").done_at is None
    client.force_login(magistrate)
    page = client.get(reverse("office:shortfall_write_off", args=[shortfall.pk]))
    # The fine, and 21 days of feeding at ₹500 less the ₹5,000 the sale paid.
    assert "₹25,500.00" in page.content.decode()
    txns, events = Transaction.objects.count(), Event.objects.count()

    response = client.post(
        reverse("office:shortfall_write_off", args=[shortfall.pk]),
        {"note": "Owner untraceable; the cow was old"},
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("office:approvals")
    shortfall.refresh_from_db()
    assert (shortfall.status, shortfall.decided_by) == (Shortfall.Status.WRITTEN_OFF, magistrate)
    event = Event.objects.order_by("pk").last()
    assert (event.action, event.section, event.by) == (
        "ledger.shortfall_written_off",
        "s.17",
        magistrate,
    )
    assert event.data["note"] == "Owner untraceable; the cow was old"
    assert (Transaction.objects.count(), Event.objects.count()) == (txns, events + 1)
    # Done: it leaves the magistrate's to-do list at once.
    assert ToDo.objects.get(key=f"shortfall_writeoff:{shortfall.pk}").done_at is not None


def test_write_off_needs_a_reason(client, magistrate, shortfall):
    client.force_login(magistrate)
    before = snapshot()

    response = client.post(reverse("office:shortfall_write_off", args=[shortfall.pk]), {})

    assert response.status_code == 200
    assert response.context["form"].errors["note"]
    assert snapshot() == before


def test_a_shortfall_is_written_off_once(client, magistrate, shortfall):
    office.write_off_shortfall(shortfall=shortfall, by=magistrate, note="First")
    client.force_login(magistrate)
    before = snapshot()

    response = client.post(
        reverse("office:shortfall_write_off", args=[shortfall.pk]), {"note": "Again"}
    )

    assert response.status_code == 200
    assert "already been written off" in str(response.context["form"].non_field_errors())
    assert snapshot() == before


def test_magistrate_writes_off_the_shortfall_of_a_s16_sale(
    client, magistrate, pound, pound_keeper, police_officer, standing_order, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=3))
    case = refused(entry, pound_keeper)
    auction = schedule(pound, police_officer, [entry.animals.all()], kind="s16", s16_case=case)
    bidder = register(auction, police_officer)
    auction_services.sell_lot(
        lot=auction.lots.get(), buyer=bidder, price=Decimal("1000.00"), by=police_officer
    )
    auction_services.settle_s16_case(
        case=case, by=police_officer, acknowledgement="register_page", register_page="7"
    )
    record = Shortfall.objects.get(s16_case=case)
    path = reverse("office:shortfall_write_off", args=[record.pk])
    client.force_login(magistrate)

    html = client.get(path).content.decode()
    response = client.post(path, {"note": "Owner has nothing more"})

    assert case.get_absolute_url() in html and "Shyam Lal" in html
    assert response.status_code == 302
    record.refresh_from_db()
    assert record.status == Shortfall.Status.WRITTEN_OFF


# --- Confirming a deposit's application -----------------------------------------------------------


def test_magistrate_confirms_in_advance_inside_the_complaint_window(
    client, magistrate, deposit_in_window
):
    client.force_login(magistrate)
    path = reverse("office:deposit_confirm_application", args=[deposit_in_window.pk])
    page = client.get(path).content.decode()
    assert "unless a complaint is made in time" in page
    txns = Transaction.objects.count()

    response = client.post(path)

    assert response.status_code == 302
    assert response["Location"] == reverse("office:approvals")
    deposit_in_window.refresh_from_db()
    assert deposit_in_window.status == Deposit.Status.HELD
    assert deposit_in_window.application_confirmed_by == magistrate
    event = Event.objects.order_by("pk").last()
    assert (event.action, event.section) == ("deposit.application_confirmed", "s.15")
    assert Transaction.objects.count() == txns
    # Confirmed: it leaves the approvals list.
    waiting = client.get(reverse("office:approvals")).context["waiting"]
    assert waiting.deposits_in_window == []


def test_confirming_after_the_window_applies_the_deposit_now(client, magistrate, deposit_expired):
    client.force_login(magistrate)
    path = reverse("office:deposit_confirm_application", args=[deposit_expired.pk])
    assert "confirming applies the deposit now" in client.get(path).content.decode()

    response = client.post(path)

    assert response.status_code == 302
    deposit_expired.refresh_from_db()
    assert (deposit_expired.status, deposit_expired.applied_by) == (
        Deposit.Status.APPLIED,
        magistrate,
    )
    assert Event.objects.order_by("pk").last().action == "deposit.applied"
    assert Transaction.objects.order_by("pk").last().kind == TransactionKind.DEPOSIT_APPLIED
    # The confirmation panel: the deposit receipt is the reference and the paper to print.
    page = client.get(response["Location"]).content.decode()
    receipt = deposit_expired.release.receipt
    assert 'data-testid="confirmation-panel"' in page
    assert f"Deposit {receipt.number} applied as payment of the fines and charges." in page
    assert reverse("impounding:receipt_pdf", args=[receipt.pk]) in page


def test_a_deposit_no_longer_held_cannot_be_confirmed(client, magistrate, deposit_expired):
    impounding_services.apply_deposit(deposit=deposit_expired, by=magistrate)
    client.force_login(magistrate)
    before = snapshot()

    response = client.post(reverse("office:deposit_confirm_application", args=[deposit_expired.pk]))

    assert response.status_code == 200
    assert "no longer held" in str(response.context["form"].non_field_errors())
    assert snapshot() == before


# --- To-dos and the menu --------------------------------------------------------------------------


def test_todos_are_grouped_by_due_date_and_link_to_their_pages(
    client, magistrate, pound_keeper, pound, shortfall, deposit_expired, tariffs
):
    make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=9))
    call_command("run_deadlines")
    client.force_login(magistrate)

    response = client.get(reverse("office:todos"))

    groups = response.context["groups"]
    keys = {t.key.split(":")[0] for g in groups for t in g["items"]}
    assert keys == {"shortfall_writeoff", "deposit_apply"}
    html = response.content.decode()
    assert reverse("impounding:deposit_apply", args=[deposit_expired.pk]) in html
    assert f"To do ({response.context['count']})" in html
    assert "No due date" in html


def test_pound_keeper_sees_his_own_todos_with_their_due_date(
    client, pound_keeper, magistrate, pound, shortfall, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=9))
    call_command("run_deadlines")
    client.force_login(pound_keeper)

    response = client.get(reverse("office:todos"))

    groups = response.context["groups"]
    yesterday = timezone.localdate() - timedelta(days=1)
    # Seven days without a feeding record (one group a day), and the report due yesterday.
    assert [g["due_on"] for g in groups] == [
        yesterday - timedelta(days=k) for k in range(6, -1, -1)
    ]
    assert all(g["overdue"] for g in groups)
    keys = [t.key for t in groups[-1]["items"]]
    assert f"report_due:{entry.pk}" in keys
    assert not any(k.startswith("shortfall") for g in groups for t in g["items"] for k in [t.key])
    html = response.content.decode()
    assert "Overdue" in html and "To do (8)" in html
    assert reverse("auctions:report_send", args=[entry.pk]) in html


def test_todo_count_in_the_menu_costs_one_query(client, magistrate, shortfall):
    call_command("run_deadlines")
    client.force_login(magistrate)
    response = client.get(reverse("home"))
    assert "To do (1)" in response.content.decode()
    ToDo.objects.update(done_at=timezone.now())

    with CaptureQueriesContext(connection) as ctx:
        client.get(reverse("home"))

    todo_queries = [q["sql"] for q in ctx.captured_queries if "accounts_todo" in q["sql"]]
    # The menu's count, and on the home page the task list's one read of the keys (ADR 0032).
    assert len(todo_queries) == 2 and sum("COUNT(" in q for q in todo_queries) == 1


@pytest.mark.parametrize(
    ("role", "shown"),
    [("magistrate", True), ("auditor", True), ("dm_clerk", True), ("pound_keeper", False)],
)
def test_district_office_is_in_the_menu_of_those_who_see_reports(client, role_users, role, shown):
    client.force_login(role_users[role])

    nav = client.get(reverse("home")).context["nav_items"]

    assert (reverse("office:office") in [item["url"] for item in nav]) is shown


def test_only_the_todo_item_is_current_on_the_todo_page(client, magistrate):
    client.force_login(magistrate)

    nav = client.get(reverse("office:todos")).context["nav_items"]

    assert [item["url"] for item in nav if item["current"]] == [reverse("office:todos")]


def test_home_links_to_the_office_pages(client, dm_clerk):
    client.force_login(dm_clerk)

    html = client.get(reverse("home")).content.decode()

    for name in ("office", "approvals", "remittances", "surplus", "returns"):
        assert f'href="{reverse(f"office:{name}")}"' in html
    assert "issue #5" not in html
