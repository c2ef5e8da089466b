"""The rest of ADR 0080's real-time list, on the district's own clock: the standing orders'
pages, the public board's "today", the returns' month, the jurisdiction page, the public
lost-cattle form, the slip's UPI reference and the surplus challan's scroll date. Each test
moves a training district's clock and shows the area follow it, while a real district in the
same run keeps real today."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from accounts.models import PoundVillage
from accounts.roles import Role
from auctions.models import AuctionConditions
from impounding.dues import dues
from impounding.models import Animal, FineScale
from kernel import clock
from office import services as office
from office import treasury
from payments.upi_direct import _dues_of
from tests.accounts.factories import staff
from tests.auctions.factories import conditions, report_and_notice, unclaimed_entry
from tests.auctions.test_training import t_officer, t_pound, trainer, training  # noqa: F401
from tests.impounding.factories import make_entry
from tests.impounding.test_lost_reports import details
from tests.office.factories import received_surplus
from tests.office.test_training_pages import _advance, books_stay_whole, t_keeper  # noqa: F401


def _ahead(days):
    return timezone.localdate() + timedelta(days=days)


def test_the_tariffs_and_conditions_pages_count_each_order_from_its_districts_day(
    client,
    district,
    magistrate,
    tariffs,
    training,  # noqa: F811
    trainer,  # noqa: F811
):

    conditions(district)
    # Every order ends in three days: in training, seven days on, they are history.
    for model in (FineScale, AuctionConditions):
        model.objects.update(valid_to=_ahead(3))
    _advance(training, trainer, 7)
    for user, day, ended in ((trainer, _ahead(7), True), (magistrate, _ahead(0), False)):
        client.force_login(user)
        page = client.get(reverse("impounding:tariffs")).context
        assert {o.today for o in page["scales"] + page["scale_history"]} == {day}
        assert bool(page["scale_history"]) is ended and bool(page["scales"]) is not ended
        page = client.get(reverse("auctions:conditions")).context
        assert bool(page["history"]) is ended and bool(page["current"]) is not ended
        scale = FineScale.objects.for_user(user).get()
        page = client.get(reverse("impounding:fine_scale", args=[scale.pk])).context
        assert (page["today"], page["in_force"]) == (day, not ended)


def test_the_board_says_ended_on_each_pounds_own_day(
    client,
    pound,
    pound_keeper,
    police_officer,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,  # noqa: F811
    t_officer,  # noqa: F811
    trainer,  # noqa: F811
):
    for keeper, officer, where in (
        (pound_keeper, police_officer, pound),
        (t_keeper, t_officer, t_pound),
    ):
        entry = unclaimed_entry(pound=where, keeper=keeper, days_ago=10)
        report_and_notice(entry, keeper, officer, sent_days_ago=2, posted_days_ago=1)
    _advance(training, trainer, 30)  # the training notice's period is over
    page = client.get("/notices/")
    days = {r["animal"].impoundment.pound_id: r["today"] for r in page.context["page"].rows}
    assert days == {pound.pk: _ahead(0), t_pound.pk: _ahead(30)}
    assert page.content.decode().count("Ended on") == 1


def test_the_returns_month_and_its_404_follow_the_pounds_clock(
    client,
    pound,
    pound_keeper,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,  # noqa: F811
    trainer,  # noqa: F811
):
    _advance(training, trainer, 40)  # next month at least, on the training clock
    ahead = _ahead(40)
    client.force_login(t_keeper)
    form = client.get(reverse("office:returns")).context["form"]
    assert form.cleaned_data["day"] == ahead
    assert form.cleaned_data["month"] < ahead.replace(day=1)
    assert form.cleaned_data["month"] >= _ahead(0).replace(day=1)
    args = [t_pound.pk, ahead.year, ahead.month, "csv"]
    assert client.get(reverse("office:monthly_return", args=args)).status_code == 200
    client.force_login(pound_keeper)
    assert client.get(reverse("office:returns")).context["form"].cleaned_data["day"] == _ahead(0)
    args = [pound.pk, ahead.year, ahead.month, "csv"]
    assert client.get(reverse("office:monthly_return", args=args)).status_code == 404


def test_the_jurisdiction_page_counts_from_the_districts_day(
    client,
    pound,
    pound_keeper,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,  # noqa: F811
    trainer,  # noqa: F811
):
    # The training pound's villages end in three days: seven days on, it serves none.
    PoundVillage.objects.filter(pound=t_pound).update(valid_to=_ahead(3))
    _advance(training, trainer, 7)
    client.force_login(t_keeper)
    page = client.get(reverse("accounts:jurisdiction")).context
    assert page["today"] == _ahead(7)
    assert [p.current_links for p in page["pounds"]] == [[]]
    client.force_login(pound_keeper)
    page = client.get(reverse("accounts:jurisdiction")).context
    assert page["today"] == _ahead(0) and all(p.current_links for p in page["pounds"])


def test_the_lost_cattle_form_takes_the_chosen_districts_today(
    client,
    district,
    training,  # noqa: F811
    trainer,  # noqa: F811
):
    _advance(training, trainer, 5)
    lost_on = _ahead(3).isoformat()
    answer = client.post(reverse("lost_report"), details(training, lost_on=lost_on))
    assert answer.status_code == 302
    answer = client.post(reverse("lost_report"), details(district, lost_on=lost_on))
    assert "lost_on" in answer.context["form"].errors


def test_the_slips_upi_reference_is_checked_against_the_dues_on_its_pounds_clock(
    pound,
    pound_keeper,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,  # noqa: F811
    trainer,  # noqa: F811
):
    real = make_entry(pound=pound, by=pound_keeper)
    trainee = make_entry(pound=t_pound, by=t_keeper)
    _advance(training, trainer, 5)
    # The training slip is stamped with its clock's day: its dues are of that day, not real now.
    animals = list(Animal.objects.claimable_in(trainee))
    assert _dues_of(animals, _ahead(5), trainee).total == (
        dues(animals, as_of=clock.now(t_pound)).total
    )
    assert _dues_of(animals, _ahead(5), trainee).total > dues(animals, as_of=timezone.now()).total
    animals = list(Animal.objects.claimable_in(real))
    assert _dues_of(animals, _ahead(5), real).total == dues(animals).total


def test_a_surplus_challans_scroll_may_be_dated_on_the_training_clocks_today(
    client,
    district,
    pound,
    pound_keeper,
    police_officer,
    dm_clerk,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,  # noqa: F811
    t_officer,  # noqa: F811
    trainer,  # noqa: F811
):
    from tests.auctions.factories import conditions

    conditions(district, by=dm_clerk)
    t_clerk = staff(Role.DM_CLERK, "t_clerk", district=training)
    moved = {}
    for where, keeper, officer, clerk in (
        (pound, pound_keeper, police_officer, dm_clerk),
        (t_pound, t_keeper, t_officer, t_clerk),
    ):
        held = received_surplus(where, keeper, officer, clerk)
        day = held.expires_on + timedelta(days=1)
        moved[where.pk] = office.transfer_expired_surplus(deposit=held, today=day)
    _advance(training, trainer, 5)
    ahead = {"grn": "GRN-T", "cin": "CIN-T", "scroll_number": "S-1", "scroll_date": _ahead(3)}
    treasury.record_surplus_transfer(deposit=moved[t_pound.pk], by=t_clerk, **ahead)
    url = reverse("office:surplus_challan_new", args=[moved[pound.pk].pk])
    with pytest.raises(ValidationError, match="future"):
        treasury.record_surplus_transfer(deposit=moved[pound.pk], by=dm_clerk, **ahead)
    client.force_login(dm_clerk)
    form = client.get(url).context["form"]
    assert form.fields["scroll_date"].widget.attrs["max"] == _ahead(0).isoformat()
