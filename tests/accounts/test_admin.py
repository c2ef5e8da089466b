"""The admin is for superuser repair: an appointment ends there only through the service."""

from datetime import date, timedelta

from django.urls import reverse
from django.utils import timezone

from accounts.models import StaffEvent

CHANGELIST = "admin:accounts_staffassignment_changelist"


def end_action(client, assignment, **fields):
    return client.post(
        reverse(CHANGELIST),
        {"action": "end_assignments", "_selected_action": [assignment.pk], "index": 0} | fields,
        follow=True,
    )


def test_admin_action_ends_an_appointment_through_the_service(client, administrator, pound_keeper):
    assignment = pound_keeper.assignments.get()
    last_day = timezone.localdate() + timedelta(days=3)
    client.force_login(administrator)

    response = end_action(
        client, assignment, on=last_day.isoformat(), reason="Transferred to Banki pound"
    )

    assert response.status_code == 200
    assignment.refresh_from_db()
    assert assignment.valid_to == last_day
    event = StaffEvent.objects.get(assignment=assignment, action=StaffEvent.Action.ENDED)
    assert (event.user, event.by, event.note) == (
        pound_keeper,
        administrator,
        "Transferred to Banki pound",
    )


def test_admin_action_without_a_reason_ends_nothing(client, administrator, pound_keeper):
    assignment = pound_keeper.assignments.get()
    client.force_login(administrator)

    end_action(client, assignment, on=date(2030, 1, 1).isoformat(), reason="  ")

    assignment.refresh_from_db()
    assert assignment.valid_to is None
    assert not StaffEvent.objects.filter(action=StaffEvent.Action.ENDED).exists()
