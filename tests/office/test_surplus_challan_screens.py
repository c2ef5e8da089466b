"""The screens of a surplus transfer's challan (s.17; ADR 0076): the clerk records the GRN, the
bank's CIN and the scroll, checks the answers and sees the confirmation; another person, the
Magistrate, confirms it. A GRN already used by a remittance is refused beside the field, the
same form sent twice records one challan, and another district's surplus is a 404."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from kernel.events import PACK_KEY, verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from office import scroll
from office import services as office
from office.models import ScrollLine, TreasuryChallan
from tests.accounts.factories import staff
from tests.auctions.factories import conditions
from tests.office.factories import fines_collected, received_surplus, remit


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def transferred(district, pound, pound_keeper, police_officer, dm_clerk, tariffs):
    conditions(district, by=dm_clerk)
    held = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    return office.transfer_expired_surplus(deposit=held, today=held.expires_on + timedelta(days=1))


def answers(key="7b0f4a51-6a36-4c4e-9a3e-4c1e2f0d9a11", **kw):
    today = timezone.localdate().strftime("%d-%m-%Y")
    return {
        "idempotency_key": key,
        "grn": "GRN 2026 5001",
        "cin": "0002390260511200099",
        "scroll_number": "SC-91",
        "scroll_date": today,
    } | kw


def test_the_clerk_records_checks_and_sees_the_confirmation(client, transferred, dm_clerk):
    client.force_login(dm_clerk)
    new = reverse("office:surplus_challan_new", args=[transferred.pk])
    assert client.get(new).status_code == 200
    check = client.post(new, answers())
    assert check.status_code == 200
    assert b"GRN 2026 5001" in check.content and b'name="confirm"' in check.content
    assert not TreasuryChallan.objects.exists()  # checking records nothing

    change = client.post(new, answers(change="1"))
    assert b'value="GRN 2026 5001"' in change.content and b'name="confirm"' not in change.content

    done = client.post(new, answers(confirm="1"), follow=True)
    assert done.redirect_chain[-1][0] == reverse("office:surplus_challan", args=[transferred.pk])
    assert b"confirmation-panel" in done.content
    challan = TreasuryChallan.objects.get(surplus=transferred)
    assert (challan.grn, challan.cin, challan.scroll_number, challan.recorded_by) == (
        "GRN 2026 5001",
        "0002390260511200099",
        "SC-91",
        dm_clerk,
    )
    event = Event.objects.get(action="treasury.grn_recorded")
    assert event.section == "s.17" and event.by == dm_clerk
    assert event.data[PACK_KEY]  # the rule pack and its version

    # The same form sent again (a double click): one challan, the same confirmation.
    again = client.post(new, answers(confirm="1"))
    assert again.status_code == 302
    assert TreasuryChallan.objects.count() == 1
    assert Event.objects.filter(action="treasury.grn_recorded").count() == 1


def test_the_recorder_may_not_confirm_and_the_magistrate_does(
    client, transferred, dm_clerk, magistrate
):
    client.force_login(dm_clerk)
    client.post(
        reverse("office:surplus_challan_new", args=[transferred.pk]),
        answers(confirm="1", cin="", scroll_number="", scroll_date=""),
    )
    page = reverse("office:surplus_challan", args=[transferred.pk])
    mine = client.get(page)
    assert b'name="checked"' not in mine.content
    client.post(page, {"checked": "on", "cin": "C1", "scroll_number": "S1"})
    assert TreasuryChallan.objects.get().confirmed_by is None

    client.force_login(magistrate)
    half = client.post(page, {"checked": "on", "cin": "0002390260511200099"})
    assert half.status_code == 200 and "scroll_number" in half.context["form"].errors
    today = timezone.localdate().strftime("%d-%m-%Y")
    done = client.post(
        page,
        {
            "checked": "on",
            "cin": "0002390260511200099",
            "scroll_number": "SC-91",
            "scroll_date": today,
        },
        follow=True,
    )
    assert b"confirmation-panel" in done.content
    challan = TreasuryChallan.objects.get()
    assert challan.confirmed_by == magistrate and challan.scroll_number == "SC-91"
    event = Event.objects.get(action="treasury.grn_confirmed")
    assert event.section == "s.17" and event.by == magistrate and event.data[PACK_KEY]


@pytest.mark.parametrize("given", ["GRN20260001", "grn 2026 0001"])
def test_a_grn_a_remittance_used_is_refused_beside_the_field(
    client, transferred, pound, pound_keeper, dm_clerk, given
):
    fines_collected(pound, pound_keeper)
    remit(pound, pound_keeper, "1000.00", challan_number="GRN 2026 0001")
    client.force_login(dm_clerk)
    response = client.post(
        reverse("office:surplus_challan_new", args=[transferred.pk]),
        answers(grn=given, confirm="1"),
    )
    assert response.status_code == 200
    assert "already defaced" in response.context["form"].errors["grn"][0]
    assert b"error-summary" in response.content
    assert not TreasuryChallan.objects.filter(surplus=transferred).exists()


def test_a_future_scroll_date_is_refused_beside_the_field(client, transferred, dm_clerk):
    client.force_login(dm_clerk)
    tomorrow = (timezone.localdate() + timedelta(days=1)).strftime("%d-%m-%Y")
    response = client.post(
        reverse("office:surplus_challan_new", args=[transferred.pk]),
        answers(scroll_date=tomorrow, confirm="1"),
    )
    assert "scroll_date" in response.context["form"].errors
    assert not TreasuryChallan.objects.exists()


def test_another_district_s_surplus_is_a_404(client, transferred, other_district):
    clerk = staff(Role.DM_CLERK, "other-clerk", district=other_district)
    client.force_login(clerk)
    for name in ("surplus_challan_new", "surplus_challan"):
        url = reverse(f"office:{name}", args=[transferred.pk])
        assert client.get(url).status_code == 404
        assert client.post(url, answers(confirm="1")).status_code == 404
    assert not TreasuryChallan.objects.exists()


def test_the_register_links_the_transfer_to_its_challan(client, transferred, dm_clerk):
    client.force_login(dm_clerk)
    register = client.get(reverse("office:surplus"), {"list": "closed"})
    assert reverse("office:surplus_challan_new", args=[transferred.pk]).encode() in (
        register.content
    )
    client.post(reverse("office:surplus_challan_new", args=[transferred.pk]), answers(confirm="1"))
    register = client.get(reverse("office:surplus"), {"list": "closed"})
    assert reverse("office:surplus_challan", args=[transferred.pk]).encode() in register.content


def test_the_scroll_fills_in_a_surplus_challan_as_it_does_a_remittance_s(
    client, district, transferred, dm_clerk, magistrate
):
    client.force_login(dm_clerk)
    client.post(
        reverse("office:surplus_challan_new", args=[transferred.pk]),
        answers(confirm="1", cin="", scroll_number="", scroll_date=""),
    )
    line = f"GRN20265001,0002390260511200099,{transferred.amount},SC-91,04-12-2026\n"
    data = ("grn,cin,amount,scroll_number,scroll_date\n" + line).encode()
    [read] = scroll.import_scroll(district=district, by=magistrate, data=data)
    assert read.outcome == ScrollLine.Outcome.FILLED
    challan = TreasuryChallan.objects.get()
    assert (challan.cin, challan.scroll_number) == ("0002390260511200099", "SC-91")
    assert challan.confirmed_by is None  # filling in is not confirming
