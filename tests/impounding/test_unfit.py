"""An animal found unfit at the veterinary inspection (ADR 0071, "Found unfit"): rule 3(b) of the
Prevention of Cruelty to Animals (Care and Maintenance of Case Property Animals) Rules, 2017 lets
the Magistrate direct it to be housed at an infirmary, pinjrapole, SPCA, animal welfare
organisation or gaushala while the case is pending. The animal is flagged on the entry and the
today board, the keeper has a to-do with no due date (the Rules give none) until the direction
is recorded, and the record is on the timeline with the rule and the pack."""

import uuid
from datetime import date

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import ToDo
from impounding.models import Direction, Fitness
from impounding.selectors import inspection_record, pound_day_board
from impounding.services.directions import record_direction
from kernel.models import Event
from office import deadlines
from tests.impounding.factories import cow, make_entry
from tests.impounding.test_inspections import _page, finding, ist, record
from tests.rulepacks.factories import inspecting


@pytest.fixture(autouse=True)
def now(time_machine):
    time_machine.move_to(ist(15, 12), tick=False)


@pytest.fixture
def entry(district, pound, pound_keeper):
    inspecting(district, within_hours=24)
    return make_entry(pound=pound, by=pound_keeper, arrived_at=ist(15, 8), animals=[cow(), cow()])


@pytest.fixture
def unfit(entry, pound_keeper):
    first, second = entry.animals.order_by("number")
    inspection = record(
        entry,
        pound_keeper,
        findings=[
            finding(first, Fitness.UNFIT, condition="Weak, a deep wound on the hind leg"),
            finding(second),
        ],
    )
    return inspection.findings.get(fitness=Fitness.UNFIT)


def todo(found):
    return ToDo.objects.filter(key=f"unfit_direction:{found.pk}", done_at__isnull=True).first()


FIELDS = {
    "place_kind": "infirmary",
    "place_name": "Veterinary infirmary, Mohanlalganj",
    "magistrate_name": "Smt. R. Sharma",
    "order_reference": "DM/PCA/2026/41",
    "ordered_on": date(2026, 3, 15),
}


def direct(found, by, *, key=None, **over):
    return record_direction(finding=found, by=by, idempotency_key=key, **(FIELDS | over))


def url(found):
    entry_pk = found.inspection.impoundment_id
    return reverse("impounding:direction_new", kwargs={"pk": entry_pk, "finding": found.pk})


def post_data(**over):
    data = {
        k: str(v) if not isinstance(v, date) else v.strftime("%d-%m-%Y") for k, v in FIELDS.items()
    }
    return {"idempotency_key": str(uuid.uuid4())} | data | over


# The flag and the to-do ---------------------------------------------------------------------


def test_an_unfit_finding_opens_the_keepers_todo_with_no_due_date(unfit):
    due = todo(unfit)
    assert due is not None and due.role == "pound_keeper"
    assert due.due_on is None  # the Rules give no time limit
    assert due.url == url(unfit)
    assert "rule 3(b)" in due.title


def test_fit_and_treatment_findings_open_no_direction_todo(entry, pound_keeper):
    record(entry, pound_keeper)
    assert not ToDo.objects.filter(key__startswith="unfit_direction:").exists()


def test_the_unfit_animal_is_flagged_on_the_board_and_the_entry(unfit, entry, pound, pound_keeper):
    assert [f.pk for f in pound_day_board([pound])[0]["unfit"]] == [unfit.pk]
    page = _page(pound_keeper, entry.get_absolute_url())
    assert 'data-testid="unfit"' in page and "awaiting the Magistrate" in page
    assert url(unfit) in page
    assert url(unfit) in _page(pound_keeper, reverse("impounding:today"))


def test_recording_the_direction_clears_the_todo_and_the_board(unfit, pound, pound_keeper):
    direct(unfit, pound_keeper)
    assert todo(unfit) is None
    assert pound_day_board([pound])[0]["unfit"] == []
    deadlines.run()
    assert todo(unfit) is None


def test_the_daily_run_keeps_the_todo_while_the_direction_is_awaited(unfit):
    ToDo.objects.filter(key=f"unfit_direction:{unfit.pk}").delete()
    deadlines.run()
    assert todo(unfit) is not None


def test_a_later_visit_finding_the_animal_fit_closes_the_todo(unfit, entry, pound_keeper):
    record(entry, pound_keeper, at=ist(15, 11, 30))
    deadlines.run()
    assert todo(unfit) is None


def test_an_unfit_animal_that_left_the_pound_is_no_longer_awaited(unfit, pound):
    type(unfit.animal).objects.filter(pk=unfit.animal_id).update(state="died")
    assert pound_day_board([pound])[0]["unfit"] == []
    deadlines.run()
    assert todo(unfit) is None


def test_the_board_counts_the_same_queries_for_one_unfit_animal_or_many(unfit, pound, pound_keeper):
    with CaptureQueriesContext(connection) as one:
        pound_day_board([pound])
    for hour in (9, 10):
        other = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(15, hour), animals=[cow()])
        record(other, pound_keeper, findings=[finding(other.animals.get(), Fitness.UNFIT)])
    with CaptureQueriesContext(connection) as three:
        board = pound_day_board([pound])
    assert len(board[0]["unfit"]) == 3
    assert len(three) == len(one)


# The record ---------------------------------------------------------------------------------


def test_the_direction_is_on_the_timeline_with_the_rule_and_the_pack(unfit, entry, pound_keeper):
    direction = direct(unfit, pound_keeper)
    event = Event.objects.get(action="custody.unfit_directed")
    assert event.impoundment_id == entry.pk and event.animal_id == unfit.animal_id
    assert event.by_id == pound_keeper.pk
    assert event.data["rule"]["section"] == "rule 3(b)"
    assert "Case Property Animals" in event.data["rule"]["instrument"]
    assert event.data["_pack"]["pack"] == "vetcheck" and event.data["_pack"]["version"] == "1.0"
    assert event.data["order"] == "DM/PCA/2026/41" and event.data["ordered_on"] == "2026-03-15"
    assert event.data["place"] == "Veterinary infirmary, Mohanlalganj"
    assert event.data["magistrate"] == "Smt. R. Sharma"
    assert event.data["direction"] == direction.pk
    record_ = inspection_record(entry)
    assert [f.given for f in record_["unfit"]] == [direction]
    page = _page(pound_keeper, entry.get_absolute_url())
    assert "DM/PCA/2026/41" in page and "Veterinary infirmary, Mohanlalganj" in page


def test_a_finding_not_unfit_is_refused(entry, pound_keeper):
    fit = record(entry, pound_keeper).findings.first()
    with pytest.raises(ValidationError, match="did not find this animal unfit"):
        direct(fit, pound_keeper)
    assert not Direction.objects.exists()


def test_a_second_direction_for_the_finding_is_refused(unfit, pound_keeper):
    direct(unfit, pound_keeper)
    with pytest.raises(ValidationError, match="recorded already"):
        direct(unfit, pound_keeper, order_reference="DM/PCA/2026/42")
    assert Direction.objects.count() == 1


def test_an_animal_no_longer_in_the_pound_is_refused(unfit, pound_keeper):
    type(unfit.animal).objects.filter(pk=unfit.animal_id).update(state="died")
    with pytest.raises(ValidationError, match="no longer in the pound"):
        direct(unfit, pound_keeper)


@pytest.mark.parametrize(
    ("day", "message"),
    [(date(2026, 3, 16), "in the future"), (date(2026, 3, 14), "before the inspection")],
)
def test_an_order_dated_in_the_future_or_before_the_inspection_is_refused(
    unfit, pound_keeper, day, message
):
    with pytest.raises(ValidationError, match=message):
        direct(unfit, pound_keeper, ordered_on=day)
    assert not Direction.objects.exists() and todo(unfit) is not None


def test_the_same_key_records_one_direction(unfit, pound_keeper):
    key = uuid.uuid4()
    first = direct(unfit, pound_keeper, key=key)
    again = direct(unfit, pound_keeper, key=key)
    assert again.pk == first.pk and again.replayed
    assert Event.objects.filter(action="custody.unfit_directed").count() == 1


# The form -----------------------------------------------------------------------------------


def test_the_form_records_the_direction_and_goes_back_to_the_entry(
    client, unfit, entry, pound_keeper
):
    client.force_login(pound_keeper)
    assert client.get(url(unfit)).status_code == 200
    response = client.post(url(unfit), post_data())
    assert response.status_code == 302 and response["Location"] == entry.get_absolute_url()
    direction = Direction.objects.get()
    assert direction.recorded_by == pound_keeper and direction.place_kind == "infirmary"
    assert 'data-testid="direction-given"' in client.get(url(unfit)).content.decode()


def test_the_form_sent_twice_records_once(client, unfit, pound_keeper):
    client.force_login(pound_keeper)
    data = post_data()
    assert client.post(url(unfit), data).status_code == 302
    assert client.post(url(unfit), data).status_code == 302
    assert Direction.objects.count() == 1


def test_the_form_shows_each_error_beside_its_field_and_in_the_summary(client, unfit, pound_keeper):
    client.force_login(pound_keeper)
    response = client.post(url(unfit), post_data(order_reference="", place_kind=""))
    assert response.status_code == 200
    body = response.content.decode()
    assert "There is a problem" in body
    assert "Enter “Order number”." in body
    assert not Direction.objects.exists()


def test_the_form_puts_a_refused_order_date_beside_the_field(client, unfit, pound_keeper):
    client.force_login(pound_keeper)
    response = client.post(url(unfit), post_data(ordered_on="14-03-2026"))
    assert response.status_code == 200
    assert response.context["form"].errors["ordered_on"] == [
        "The order cannot be before the inspection that found it unfit."
    ]
    assert not Direction.objects.exists()


def test_a_fit_finding_has_no_direction_form(client, entry, pound_keeper):
    fit = record(entry, pound_keeper).findings.first()
    client.force_login(pound_keeper)
    assert client.get(url(fit)).status_code == 404


@pytest.mark.parametrize("method", ["get", "post"])
def test_another_districts_entry_is_a_404(client, unfit, outsider, method):
    client.force_login(outsider)
    response = getattr(client, method)(url(unfit), post_data() if method == "post" else None)
    assert response.status_code == 404
    assert not Direction.objects.exists()


def test_a_finding_of_another_entry_is_a_404(client, unfit, pound, pound_keeper):
    other = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(15, 9))
    client.force_login(pound_keeper)
    path = reverse("impounding:direction_new", kwargs={"pk": other.pk, "finding": unfit.pk})
    assert client.post(path, post_data()).status_code == 404


def test_a_role_without_custody_is_refused(client, unfit, auditor):
    client.force_login(auditor)
    assert client.post(url(unfit), post_data()).status_code == 403
    assert not Direction.objects.exists()


@pytest.mark.parametrize("refusal", ["recorded", "gone"])
def test_a_direction_resent_with_a_new_key_after_a_refusal_shows_it_beside_the_form(
    client, unfit, pound_keeper, refusal
):
    """Sent again with a new key once the direction is recorded (or the animal has left), the
    page answers with the refusal in the error summary, not an error page or a silent redirect."""
    client.force_login(pound_keeper)
    if refusal == "recorded":
        assert client.post(url(unfit), post_data()).status_code == 302
        message = "The Magistrate&#x27;s direction for this finding is recorded already."
    else:
        type(unfit.animal).objects.filter(pk=unfit.animal_id).update(state="died")
        message = "This animal is no longer in the pound."
    response = client.post(url(unfit), post_data(order_reference="DM/PCA/2026/42"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "There is a problem" in body and message in body
    assert Direction.objects.count() == (1 if refusal == "recorded" else 0)
