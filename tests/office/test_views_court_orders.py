"""The check of a court order before the release, on the screens: the office confirms or
rejects it; the keeper and the office see it waiting on their to-dos (docs/decisions/0056)."""

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import ToDo
from accounts.roles import Role
from impounding.models import AnimalState, CourtOrder, CourtOrderCheck
from kernel.models import Event
from tests.accounts.factories import StaffAssignmentFactory, staff
from tests.office.test_views_office import court_release

CHECKED = {"how": "certified_copy", "reference": "CC 41/2026"}


@pytest.fixture
def court_order(pound, pound_keeper, tariffs):
    return court_release(pound, pound_keeper)


def review(order):
    return reverse("office:court_order_review", args=[order.pk])


def post(client, order, **data):
    return client.post(review(order), {"idempotency_key": str(uuid.uuid4())} | CHECKED | data)


def in_pound(order):
    return set(order.impoundment.animals.values_list("state", flat=True)) == {AnimalState.IMPOUNDED}


@pytest.mark.parametrize("role", ["dm_clerk", "magistrate"])
def test_the_office_confirms_the_order_and_only_then_the_animals_leave(
    client, role_users, court_order, role
):
    user = role_users[role]
    client.force_login(user)
    html = client.get(review(court_order)).content.decode()
    assert f'href="{reverse("impounding:court_order_scan", args=[court_order.pk])}"' in html
    assert "Misc. 12/2026" in html and 'name="idempotency_key"' in html
    assert in_pound(court_order)

    response = post(client, court_order, outcome="confirmed")

    assert response.status_code == 302
    assert response["Location"] == reverse("office:approvals")
    court_order.refresh_from_db()
    assert court_order.status == CourtOrder.Status.RELEASED
    assert court_order.reviewed_by == user
    assert set(court_order.impoundment.animals.values_list("state", flat=True)) == {
        AnimalState.RELEASED_BY_ORDER
    }
    event = Event.objects.order_by("pk").last()
    assert (event.action, event.section, event.by) == ("release.court_order", "s.19", user)


def test_a_rejection_needs_its_reason_and_leaves_the_animals(client, dm_clerk, court_order):
    client.force_login(dm_clerk)

    refused = post(client, court_order, outcome="rejected", reason="")
    assert refused.status_code == 200
    assert refused.context["form"].errors["reason"]
    assert not CourtOrderCheck.objects.exists()

    response = post(client, court_order, outcome="rejected", reason="No such case on the file")

    assert response.status_code == 302
    court_order.refresh_from_db()
    assert court_order.status == CourtOrder.Status.REJECTED
    assert in_pound(court_order)
    told = ToDo.objects.get(key=f"court_order_rejected:{court_order.pk}", done_at__isnull=True)
    assert told.role == Role.POUND_KEEPER and "No such case on the file" in told.title


def test_whoever_recorded_the_order_cannot_check_it_on_the_screen(client, pound, district, tariffs):
    both = StaffAssignmentFactory(role=Role.POUND_KEEPER, pound=pound).user
    StaffAssignmentFactory(user=both, role=Role.DM_CLERK, district=district)
    order = court_release(pound, both)
    client.force_login(both)

    html = client.get(review(order)).content.decode()
    assert "someone else in the office checks it" in html
    response = post(client, order, outcome="confirmed")

    assert response.status_code == 200
    order.refresh_from_db()
    assert order.status == CourtOrder.Status.AWAITING and in_pound(order)
    approvals = client.get(reverse("office:approvals")).content.decode()
    assert review(order) not in approvals


def test_a_court_order_is_checked_once(client, dm_clerk, court_order):
    client.force_login(dm_clerk)
    post(client, court_order, outcome="confirmed")

    response = post(client, court_order, outcome="rejected", reason="Changed my mind")

    assert response.status_code == 200
    assert "already been checked" in str(response.context["form"].non_field_errors())
    court_order.refresh_from_db()
    assert court_order.status == CourtOrder.Status.RELEASED


def test_another_districts_order_is_a_404(client, court_order, other_district):
    elsewhere = staff(Role.MAGISTRATE, "other_magistrate", district=other_district)
    client.force_login(elsewhere)

    assert client.get(review(court_order)).status_code == 404
    assert post(client, court_order, outcome="confirmed").status_code == 404
    assert in_pound(court_order)


def test_the_keeper_cannot_open_the_check(client, pound_keeper, court_order):
    client.force_login(pound_keeper)

    assert post(client, court_order, outcome="confirmed").status_code == 403
    assert in_pound(court_order)


def test_the_waiting_order_shows_on_the_keepers_and_the_offices_lists(
    client, pound_keeper, dm_clerk, court_order
):
    client.force_login(pound_keeper)
    home = client.get(reverse("home")).content.decode()
    assert "Court-order release awaiting its check" in home and "Misc. 12/2026" in home
    todos = client.get(reverse("office:todos")).content.decode()
    assert "awaits the office" in todos
    entry = client.get(court_order.impoundment.get_absolute_url()).content.decode()
    assert 'data-testid="awaiting-order"' in entry

    client.force_login(dm_clerk)
    tasks = dict(
        (str(label), count) for label, _url, count in client.get("/").context["office_tasks"]
    )
    assert tasks["Check court orders before their release (s.19)"] == 1
    approvals = client.get(reverse("office:approvals")).content.decode()
    assert review(court_order) in approvals


def test_the_keepers_home_takes_the_same_queries_however_many_orders(
    client, pound, pound_keeper, tariffs
):
    court_release(pound, pound_keeper)
    client.force_login(pound_keeper)
    client.get(reverse("home"))

    def count():
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(reverse("home")).status_code == 200
        return len(ctx.captured_queries)

    few = count()
    for n in range(4):
        court_release(pound, pound_keeper, case_number=f"Misc. {20 + n}/2026")
    assert count() == few
