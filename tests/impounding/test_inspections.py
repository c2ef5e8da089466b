"""The veterinary inspection at intake (ADR 0071): due while the entry's pack requires it and
none is recorded, on the keeper's to-dos and today board, overdue past the pack's hours; recorded
by the keeper with the officer's findings, on the entry's timeline with the pack that required it;
and nothing of it under a pack that does not require it (the central Act's)."""

import uuid
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import ToDo
from impounding import services
from impounding.models import Finding, Fitness, Inspection
from impounding.selectors import pound_day_board
from kernel.models import Event
from office import deadlines
from tests.impounding.factories import cow, goat, make_entry
from tests.rulepacks.factories import inspecting

IST = ZoneInfo("Asia/Kolkata")


def ist(day, hour=10, minute=0):
    return datetime(2026, 3, day, hour, minute, tzinfo=IST)


@pytest.fixture(autouse=True)
def now(time_machine):
    time_machine.move_to(ist(15, 12), tick=False)


@pytest.fixture
def pack(district):
    return inspecting(district, within_hours=24)


@pytest.fixture
def entry(pack, pound, pound_keeper):
    return make_entry(pound=pound, by=pound_keeper, arrived_at=ist(15, 8), animals=[cow(), goat()])


def todo(entry):
    return ToDo.objects.filter(key=f"vet_inspection:{entry.pk}", done_at__isnull=True).first()


def finding(animal, fitness=Fitness.FIT, **kw):
    return {
        "animal_id": animal.pk,
        "condition": "Healthy, well nourished",
        "injuries": "",
        "marks": "Notch in the left ear",
        "marking_applied": "Ear tag UP-2026-17",
        "fitness": fitness,
    } | kw


def record(entry, by, *, at=None, key=None, findings=None):
    animals = entry.animals.order_by("number")
    return services.record_inspection(
        entry=entry,
        by=by,
        visited_at=at or ist(15, 11),
        officer_name="Dr. Anita Verma",
        officer_designation="Veterinary Officer, Government Veterinary Hospital, Mohanlalganj",
        officer_registration="UPSVC-4471",
        findings=findings or [finding(a) for a in animals],
        idempotency_key=key,
    )


def post_data(entry, **over):
    animals = list(entry.animals.order_by("number"))
    data = {
        "idempotency_key": str(uuid.uuid4()),
        "visited_at": "15-03-2026 11:00",
        "officer_name": "Dr. Anita Verma",
        "officer_designation": "Veterinary Officer",
        "officer_registration": "UPSVC-4471",
        "findings-TOTAL_FORMS": str(len(animals)),
        "findings-INITIAL_FORMS": "0",
    }
    for i, animal in enumerate(animals):
        data |= {
            f"findings-{i}-animal_id": str(animal.pk),
            f"findings-{i}-condition": "Healthy",
            f"findings-{i}-marks": "White star",
            f"findings-{i}-marking_applied": "Ear tag",
            f"findings-{i}-fitness": "fit" if i == 0 else "treatment",
        }
    return data | over


def url(entry):
    return reverse("impounding:inspection_new", kwargs={"pk": entry.pk})


# The rule: due under a pack that requires it, cleared when recorded --------------------------


def test_a_pack_requiring_an_inspection_opens_the_keepers_todo_due_by_its_hours(entry):
    due = todo(entry)
    assert due is not None and due.role == "pound_keeper"
    assert due.due_on == ist(16, 8).date()  # 24 hours from arrival
    assert due.url == url(entry)


def test_recording_the_inspection_clears_the_todo_and_the_board(entry, pound, pound_keeper):
    assert [e.pk for e in pound_day_board([pound])[0]["inspections_due"]] == [entry.pk]
    record(entry, pound_keeper)
    assert todo(entry) is None
    assert pound_day_board([pound])[0]["inspections_due"] == []
    assert deadlines.run()["inspections_due"] == 0
    assert todo(entry) is None


def test_the_daily_run_opens_the_todo_and_keeps_it_while_due(entry, time_machine):
    ToDo.objects.all().delete()
    deadlines.run()
    assert todo(entry) is not None
    time_machine.move_to(ist(17, 12), tick=False)
    deadlines.run()
    assert todo(entry) is not None


def test_past_the_packs_hours_the_inspection_is_overdue(entry, pound, pound_keeper, time_machine):
    assert not pound_day_board([pound])[0]["inspections_due"][0].overdue
    time_machine.move_to(ist(16, 9), tick=False)
    assert pound_day_board([pound])[0]["inspections_due"][0].overdue
    client_page = _page(pound_keeper, reverse("impounding:today"))
    assert "Overdue" in client_page


def test_without_published_hours_the_inspection_has_no_deadline_but_stays_due(
    district, pound, pound_keeper, time_machine
):
    inspecting(district, within_hours=None, code="nohours")
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(15, 8))
    assert todo(entry).due_on is None
    time_machine.move_to(ist(28, 12), tick=False)
    (shown,) = pound_day_board([pound])[0]["inspections_due"]
    assert shown.pk == entry.pk and shown.due_at is None and not shown.overdue
    deadlines.run()
    assert todo(entry) is not None


def test_under_the_central_act_no_inspection_is_due(pound, pound_keeper):
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(15, 8))
    assert todo(entry) is None
    assert pound_day_board([pound])[0]["inspections_due"] == []
    deadlines.run()
    assert todo(entry) is None
    page = _page(pound_keeper, entry.get_absolute_url())
    assert "requires a veterinary inspection" not in page
    assert "Overdue" not in page


def test_an_entry_whose_animals_have_left_is_not_due(entry, pound, pound_keeper, tariffs):
    from tests.impounding.factories import pay

    pay(entry, pound_keeper)
    assert pound_day_board([pound])[0]["inspections_due"] == []
    deadlines.run()
    assert todo(entry) is None


def test_the_board_counts_the_same_queries_for_one_entry_or_many(pack, pound, pound_keeper):
    make_entry(pound=pound, by=pound_keeper, arrived_at=ist(15, 8))
    with CaptureQueriesContext(connection) as one:
        pound_day_board([pound])
    for hour in (9, 10, 11):
        make_entry(pound=pound, by=pound_keeper, arrived_at=ist(15, hour), animals=[cow(), cow()])
    with CaptureQueriesContext(connection) as four:
        board = pound_day_board([pound])
    assert len(board[0]["inspections_due"]) == 4
    assert len(four) == len(one)


# The record: the timeline, with the pack --------------------------------------------------------


def test_the_record_is_on_the_timeline_with_the_rule_and_the_pack(entry, pound_keeper):
    inspection = record(entry, pound_keeper)
    assert inspection.findings.count() == 2
    event = Event.objects.get(impoundment=entry, action="custody.inspected")
    assert event.section == "s.8"
    assert event.data["_pack"]["pack"] == "vetcheck" and event.data["_pack"]["version"] == "1.0"
    assert "Case Property Animals" in event.data["rule"]["instrument"]
    assert event.data["officer"] == "Dr. Anita Verma"
    assert event.summary == (
        "Veterinary inspection by Dr. Anita Verma: 2 fit, 0 needing treatment, 0 unfit"
    )
    page = _page(pound_keeper, entry.get_absolute_url())
    assert "Veterinary inspection recorded" in page and "UPSVC-4471" in page


@pytest.mark.parametrize(
    ("at", "message"),
    [(ist(15, 7), "before the animals came"), (ist(15, 13), "in the future")],
)
def test_a_visit_before_arrival_or_in_the_future_is_refused(entry, pound_keeper, at, message):
    with pytest.raises(ValidationError, match=message):
        record(entry, pound_keeper, at=at)
    assert not Inspection.objects.exists() and not Finding.objects.exists()
    assert todo(entry) is not None


def test_findings_of_another_entrys_animal_are_refused(entry, pound, pound_keeper):
    other = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(15, 8))
    with pytest.raises(ValidationError, match="this entry's animals"):
        record(entry, pound_keeper, findings=[finding(other.animals.get())])
    assert not Inspection.objects.exists()


def test_the_same_key_records_one_inspection(entry, pound_keeper):
    key = uuid.uuid4()
    first = record(entry, pound_keeper, key=key)
    again = record(entry, pound_keeper, key=key)
    assert again.pk == first.pk and again.replayed
    assert Inspection.objects.count() == 1
    assert Event.objects.filter(action="custody.inspected").count() == 1


# The form ------------------------------------------------------------------------------------


def _page(user, path):
    from django.test import Client

    client = Client()
    client.force_login(user)
    response = client.get(path)
    assert response.status_code == 200
    return response.content.decode()


def test_the_form_records_the_findings_and_goes_back_to_the_entry(client, entry, pound_keeper):
    client.force_login(pound_keeper)
    assert client.get(url(entry)).status_code == 200
    response = client.post(url(entry), post_data(entry))
    assert response.status_code == 302 and response["Location"] == entry.get_absolute_url()
    inspection = Inspection.objects.get()
    assert inspection.recorded_by == pound_keeper
    assert [f.fitness for f in inspection.findings.order_by("animal__number")] == [
        "fit",
        "treatment",
    ]
    assert todo(entry) is None


def test_the_form_sent_twice_records_once(client, entry, pound_keeper):
    client.force_login(pound_keeper)
    data = post_data(entry)
    assert client.post(url(entry), data).status_code == 302
    assert client.post(url(entry), data).status_code == 302
    assert Inspection.objects.count() == 1


def test_the_form_shows_each_error_beside_its_field_and_in_the_summary(client, entry, pound_keeper):
    client.force_login(pound_keeper)
    data = post_data(entry, officer_name="")
    del data["findings-1-fitness"]
    response = client.post(url(entry), data)
    assert response.status_code == 200
    body = response.content.decode()
    assert "There is a problem" in body
    assert "Enter “Veterinary officer&#x27;s name”." in body
    assert "Animal 2: Choose “Fitness”." in body
    assert not Inspection.objects.exists()


def test_the_form_asks_for_every_animals_finding(client, entry, pound_keeper):
    client.force_login(pound_keeper)
    data = {k: v for k, v in post_data(entry, officer_name="").items() if "findings-" not in k}
    data |= {"findings-TOTAL_FORMS": "2", "findings-INITIAL_FORMS": "0"}
    body = client.post(url(entry), data).content.decode()
    assert "Enter “Veterinary officer&#x27;s name”." in body
    assert "Animal 1: Enter “Health and condition”." in body
    assert "Animal 2: Choose “Fitness”." in body
    assert not Inspection.objects.exists()


def test_the_form_puts_a_refused_visit_time_beside_the_field(client, entry, pound_keeper):
    client.force_login(pound_keeper)
    response = client.post(url(entry), post_data(entry, visited_at="15-03-2026 07:00"))
    assert response.status_code == 200
    assert response.context["form"].errors["visited_at"] == [
        "The visit cannot be before the animals came to the pound."
    ]
    assert not Inspection.objects.exists()


@pytest.mark.parametrize("method", ["get", "post"])
def test_another_districts_entry_is_a_404(client, entry, outsider, method):
    client.force_login(outsider)
    response = getattr(client, method)(url(entry), post_data(entry) if method == "post" else None)
    assert response.status_code == 404
    assert not Inspection.objects.exists()


def test_a_role_without_custody_is_refused(client, entry, auditor):
    client.force_login(auditor)
    assert client.post(url(entry), post_data(entry)).status_code == 403
    assert not Inspection.objects.exists()


def test_the_api_entry_shows_the_inspection_read_only(client, entry, pound_keeper):
    from tests.api.conftest import bearer

    path = f"/api/v1/entries/{entry.pk}/"
    before = client.get(path, **bearer(pound_keeper)).json()["inspection"]
    assert before == {
        "required": True,
        "due_at": "2026-03-16T08:00:00+05:30",
        "overdue": False,
        "latest": None,
    }
    record(entry, pound_keeper)
    after = client.get(path, **bearer(pound_keeper, "again")).json()["inspection"]
    assert after["latest"]["officer_registration"] == "UPSVC-4471"
    assert [f["fitness"] for f in after["latest"]["findings"]] == ["fit", "fit"]


def test_findings_for_an_animal_that_left_meanwhile_are_refused_not_shifted(
    client, pound_keeper, entry
):
    """The form was drawn for animals 1 and 2; animal 1 died before it was sent. The findings
    are refused, not moved onto the next animal."""
    client.force_login(pound_keeper)
    data = post_data(entry)
    first = entry.animals.order_by("number").first()
    type(first).objects.filter(pk=first.pk).update(state="died")

    response = client.post(url(entry), data)

    assert response.status_code == 200
    assert "have changed since this form was opened" in response.content.decode()
    assert not entry.inspections.exists()
