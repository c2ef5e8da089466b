"""What ADR 0080 left on real time, now on the district's own clock: deposits and complaints,
court orders, the office's money, the officer's lists and the API. Each test moves a training
district's clock and shows the area follow it, and a real district in the same run keep to
real today."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from accounts.training import day_of, move_clock
from auctions import selectors
from impounding.models import Complaint, Deposit
from impounding.services import deposit_awaiting_application
from kernel.events import verify_chain
from ledger.checks import run_checks
from office import returns, treasury
from office.models import SurplusDeposit
from office.remittances import confirm_remittance
from tests.accounts.factories import staff
from tests.api.conftest import bearer
from tests.auctions.factories import report_and_notice, unclaimed_entry
from tests.auctions.test_training import t_officer, t_pound, trainer, training  # noqa: F401
from tests.impounding.factories import court_order, deposit, make_entry
from tests.impounding.test_deposits import complain, decide
from tests.office.factories import fines_collected, received_surplus, remit

API = "/api/v1"


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def t_keeper(t_pound):  # noqa: F811
    return staff(Role.POUND_KEEPER, "t_keeper", pound=t_pound)


def _advance(training, trainer, days):  # noqa: F811
    training.refresh_from_db()
    move_clock(training, by=trainer, seen=training.clock_offset, days=days)


def test_deposits_follow_the_training_clock_in_the_service_the_page_and_the_api(
    client,
    pound,
    pound_keeper,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,
    trainer,  # noqa: F811
):
    deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    deposit(make_entry(pound=t_pound, by=t_keeper), t_keeper)
    real = Deposit.objects.get(release__impoundment__pound=pound)
    trainee = Deposit.objects.get(release__impoundment__pound=t_pound)
    assert not deposit_awaiting_application(trainee)
    _advance(training, trainer, 60)  # past the complaint window, on the training clock
    assert deposit_awaiting_application(trainee) and not deposit_awaiting_application(real)

    client.force_login(t_keeper)
    page = client.get(reverse("impounding:deposits"))
    assert [d.pk for d in page.context["awaiting"]] == [trainee.pk]
    client.force_login(pound_keeper)
    page = client.get(reverse("impounding:deposits"))
    assert [d.pk for d in page.context["held"]] == [real.pk] and not page.context["awaiting"]

    for keeper, held, awaits in ((t_keeper, trainee, True), (pound_keeper, real, False)):
        body = client.get(f"{API}/deposits/{held.pk}/", **bearer(keeper)).json()
        assert body["awaiting_application"] is awaits
        listed = client.get(f"{API}/deposits/", **bearer(keeper)).json()["results"]
        assert [d["awaiting_application"] for d in listed] == [awaits]


def test_a_remittance_and_a_court_order_may_be_dated_on_the_training_clocks_today(
    pound,
    pound_keeper,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,
    trainer,  # noqa: F811
):
    fines_collected(pound, pound_keeper)
    fines_collected(t_pound, t_keeper)
    _advance(training, trainer, 7)
    ahead = timezone.localdate() + timedelta(days=5)
    sent = remit(t_pound, t_keeper, Decimal("20000.00"), remitted_on=ahead)
    # The clerk confirms it against a scroll dated on the training clock's today.
    t_clerk = staff(Role.DM_CLERK, "t_clerk", district=training)
    scroll = {"cin": "CIN-1", "scroll_number": "S-1", "scroll_date": ahead}
    confirm_remittance(remittance=sent, by=t_clerk, **scroll)
    with pytest.raises(ValidationError, match="future"):
        remit(pound, pound_keeper, Decimal("20000.00"), remitted_on=ahead)

    court_order(make_entry(pound=t_pound, by=t_keeper), t_keeper, order_date=ahead)
    with pytest.raises(ValidationError, match="future"):
        court_order(make_entry(pound=pound, by=pound_keeper), pound_keeper, order_date=ahead)


def test_a_surplus_transfer_s_challan_may_carry_a_scroll_of_the_training_clocks_today(
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,
    t_officer,  # noqa: F811
    trainer,  # noqa: F811
):
    t_clerk = staff(Role.DM_CLERK, "t_clerk", district=training)
    held = received_surplus(t_pound, t_keeper, t_officer, t_clerk)
    _advance(training, trainer, 100)  # the move's run credits it to the State's revenues
    held.refresh_from_db()
    assert (held.status, held.destination) == (
        SurplusDeposit.Status.TRANSFERRED,
        SurplusDeposit.Destination.STATE_REVENUE,
    )
    ahead = timezone.localdate() + timedelta(days=100)
    scroll = {"cin": "0002390260511200099", "scroll_number": "SC-T1", "scroll_date": ahead}
    challan = treasury.record_surplus_transfer(deposit=held, by=t_clerk, grn="GRN-T-1", **scroll)
    treasury.confirm_treasury_challan(challan=challan, by=trainer)
    challan.refresh_from_db()
    assert challan.scroll_date == ahead and challan.confirmed_by == trainer


def test_the_officers_lists_count_from_his_districts_day(
    pound,
    pound_keeper,
    police_officer,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,
    t_officer,  # noqa: F811
    trainer,  # noqa: F811
):
    for keeper, officer, where in (
        (pound_keeper, police_officer, pound),
        (t_keeper, t_officer, t_pound),
    ):
        entry = unclaimed_entry(pound=where, keeper=keeper, days_ago=10)
        report_and_notice(entry, keeper, officer, sent_days_ago=2, posted_days_ago=1)
    _advance(training, trainer, 10)  # the training notice's eighth day has come
    assert day_of([t_pound.pk]) == timezone.localdate() + timedelta(days=10)
    assert day_of([pound.pk, t_pound.pk]) == timezone.localdate()

    def counts(officer):
        return {s.key: s.count for s in selectors.officer_sections(officer)}

    assert counts(t_officer)[selectors.MAY_BE_SOLD] == 1
    assert counts(police_officer)[selectors.MAY_BE_SOLD] == 0
    assert counts(police_officer)[selectors.IN_PERIOD] == 1


def test_a_complaint_is_filed_and_decided_on_the_training_clocks_today(
    pound,
    pound_keeper,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,
    trainer,  # noqa: F811
):
    real = make_entry(pound=pound, by=pound_keeper)
    trainee = make_entry(pound=t_pound, by=t_keeper)
    _advance(training, trainer, 3)
    ahead = timezone.localdate() + timedelta(days=2)
    complaint = complain(trainee, t_keeper, filed_on=ahead)
    t_magistrate = staff(Role.MAGISTRATE, "t_magistrate2", district=training)
    decide(complaint, t_magistrate, Complaint.Outcome.DISMISSED, decided_on=ahead)
    with pytest.raises(ValidationError, match="future"):
        complain(real, pound_keeper, filed_on=ahead)


def test_this_months_return_is_complete_once_the_training_month_is_over(
    pound,
    pound_keeper,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,
    trainer,  # noqa: F811
):
    today = timezone.localdate()
    assert not returns.pound_return(t_pound, today.year, today.month)["complete"]
    _advance(training, trainer, 32)
    assert returns.pound_return(t_pound, today.year, today.month)["complete"]
    assert not returns.pound_return(pound, today.year, today.month)["complete"]


def test_the_to_dos_and_the_api_tariffs_count_from_the_districts_day(
    client,
    district,
    pound,
    pound_keeper,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,
    trainer,  # noqa: F811
):
    make_entry(pound=t_pound, by=t_keeper, arrived_at=timezone.now() - timedelta(days=1))
    _advance(training, trainer, 7)  # the move's run opens the s.14 report's to-do
    ahead = timezone.localdate() + timedelta(days=7)
    client.force_login(t_keeper)
    page = client.get(reverse("office:todos"))
    assert page.context["today"] == ahead and page.context["count"] >= 1
    client.force_login(pound_keeper)
    assert client.get(reverse("office:todos")).context["today"] == timezone.localdate()

    for keeper, where, on in ((t_keeper, training, ahead), (pound_keeper, district, None)):
        body = client.get(f"{API}/tariffs/?district={where.pk}", **bearer(keeper)).json()
        assert body["on"] == (on or timezone.localdate()).isoformat()
