"""Contract tests of three writes (api.writes): the s.14 report, a proclamation of its notice, and
the office's confirmation of a fines remittance. Each: the screen's service, form, permission and
scope; the Idempotency-Key; refusals as translated problems that leave nothing written."""

import json
import threading
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from accounts.models import IssuedDocument
from accounts.roles import Role
from api.models import IdempotentRequest
from auctions.models import Notice, Proclamation, Report
from kernel.models import Event
from ledger.models import Transaction
from office.models import Remittance
from tests.accounts.factories import VillageFactory, staff
from tests.api.conftest import bearer
from tests.auctions.factories import report_and_notice, unclaimed_entry
from tests.impounding.factories import cow, goat
from tests.office.factories import fines_collected, remit

REPORTS = "/api/v1/reports/"


def proclamations_url(notice):
    return f"/api/v1/notices/{notice.pk}/proclamations/"


def confirm_url(remittance):
    return f"/api/v1/remittances/{remittance.pk}/confirm/"


def post(client, url, body, user, *, key="key-00000001", lang=None, headers=None):
    extra = dict(headers or bearer(user))
    if key is not None:
        extra["HTTP_IDEMPOTENCY_KEY"] = key
    if lang:
        extra["HTTP_ACCEPT_LANGUAGE"] = lang
    return client.post(url, json.dumps(body), content_type="application/json", **extra)


def problem_of(response, status):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == status
    return body


def fields(body):
    return {e["field"]: e["message"] for e in body.get("errors", [])}


def snapshot():
    """What these writes could leave behind: compared before and after a refused request."""
    return (
        Report.objects.count(),
        Notice.objects.count(),
        Proclamation.objects.count(),
        Event.objects.count(),
        IssuedDocument.objects.count(),
        Transaction.objects.count(),
        IdempotentRequest.objects.count(),
        sorted(Remittance.objects.values_list("pk", "status")),
    )


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    """Impounded ten days ago: the report was due two days ago."""
    return unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=10, animals=[cow(), goat()])


@pytest.fixture
def notice(entry, pound_keeper, police_officer):
    _report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=1, posted_days_ago=0, drums=False
    )
    return notice


@pytest.fixture
def other_officer(other_pound):
    return staff(
        Role.POLICE_OFFICER, "other_officer", police_station=other_pound.nearest_police_station
    )


@pytest.fixture
def other_clerk(other_district):
    return staff(Role.DM_CLERK, "other_clerk", district=other_district)


@pytest.fixture
def remittance(pound, pound_keeper, tariffs):
    fines_collected(pound, pound_keeper)
    return remit(pound, pound_keeper, "15000.00", challan_number="CH-0042")


def drum(**kw):
    return {
        "channel": "drum_village",
        "made_on": timezone.localdate().isoformat(),
        "place": "Chaupal",
        "made_by": "Ram Lal, chowkidar",
    } | kw


# --- The s.14 report -------------------------------------------------------------------------


def test_report_is_sent_through_the_service(client, entry, pound_keeper, police_station):
    response = post(client, REPORTS, {"entry": entry.pk}, pound_keeper)

    assert response.status_code == 201, response.content
    body = response.json()
    report = Report.objects.get()
    assert body["id"] == report.pk and body["number"] == report.number
    assert response["Location"] == f"/api/v1/reports/{report.pk}/"
    assert (body["entry"], body["pound"], body["police_station"]) == (
        entry.pk,
        entry.pound_id,
        police_station.pk,
    )
    assert [a["number"] for a in body["animals"]] == [1, 2]
    assert body["days_late"] == 2 and "+05:30" in body["sent_at"]
    assert body["message"] == f"Report {report.number} sent to {body['sent_to']}."
    assert Event.objects.filter(action="s14.reported", impoundment_id=entry.pk).count() == 1


def test_report_replayed_key_answers_the_first_time_and_reports_once(client, entry, pound_keeper):
    headers = bearer(pound_keeper)
    first = post(client, REPORTS, {"entry": entry.pk}, pound_keeper, headers=headers)
    again = post(client, REPORTS, {"entry": entry.pk}, pound_keeper, headers=headers)

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.content == first.content
    assert again["Location"] == first["Location"]
    assert again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert Report.objects.count() == 1


def test_report_same_key_other_body_is_422(client, entry, pound, pound_keeper):
    other = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=10)
    headers = bearer(pound_keeper)
    post(client, REPORTS, {"entry": entry.pk}, pound_keeper, headers=headers)
    before = snapshot()

    body = problem_of(
        post(client, REPORTS, {"entry": other.pk}, pound_keeper, headers=headers), 422
    )

    assert "Idempotency-Key" in fields(body)
    assert snapshot() == before


def test_report_without_key_is_400_and_sends_nothing(client, entry, pound_keeper):
    before = snapshot()
    body = problem_of(post(client, REPORTS, {"entry": entry.pk}, pound_keeper, key=None), 400)
    assert "Idempotency-Key" in fields(body)
    assert snapshot() == before


def test_report_without_entry_is_400(client, entry, pound_keeper):
    before = snapshot()
    body = problem_of(post(client, REPORTS, {}, pound_keeper), 400)
    assert fields(body) == {"entry": "Name the register entry to report."}
    assert snapshot() == before


def test_report_before_the_seven_days_is_refused_naming_s14(client, pound, pound_keeper, tariffs):
    early = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=2)
    before = snapshot()

    body = problem_of(post(client, REPORTS, {"entry": early.pk}, pound_keeper), 422)

    assert body["title"] == "The report cannot be sent."
    assert "The seven days for a claim run until the end of" in body["detail"]
    assert "(s.14)" in body["detail"]
    assert snapshot() == before  # nor the key: corrected, the same key may be sent again


def test_report_refusal_is_in_hindi(client, pound, pound_keeper, tariffs):
    early = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=2)
    body = problem_of(post(client, REPORTS, {"entry": early.pk}, pound_keeper, lang="hi"), 422)
    assert body["title"] == "रिपोर्ट नहीं भेजी जा सकती।"
    assert "धारा 14" in body["detail"] and "seven days" not in body["detail"]


def test_report_of_entry_already_reported_is_refused(client, entry, pound_keeper):
    post(client, REPORTS, {"entry": entry.pk}, pound_keeper)
    body = problem_of(
        post(client, REPORTS, {"entry": entry.pk}, pound_keeper, key="key-2-abcdef"), 422
    )
    assert body["detail"] == "No animal of this entry is left unclaimed and unreported."
    assert Report.objects.count() == 1


def test_report_of_another_districts_entry_is_404(client, entry, outsider):
    before = snapshot()
    problem_of(post(client, REPORTS, {"entry": entry.pk}, outsider), 404)
    assert snapshot() == before


@pytest.mark.parametrize("role", ["police_officer", "dm_clerk", "auditor", "administrator"])
def test_report_by_another_role_is_403_as_on_the_screen(client, request, entry, role):
    before = snapshot()
    body = problem_of(
        post(client, REPORTS, {"entry": entry.pk}, request.getfixturevalue(role)), 403
    )
    assert body["detail"] == "Your role does not allow this action."
    assert snapshot() == before


@pytest.mark.parametrize(
    "payload",
    ['{"entry": "x"}', "[1, 2]", "not json", '{"entry": 1e400}', "[" * 100_000, b"\xff\xfe"],
)
def test_report_bad_body_is_400_never_500(client, entry, pound_keeper, payload):
    response = client.post(
        REPORTS,
        payload,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="key-00000001",
        **bearer(pound_keeper),
    )
    assert response.status_code == 400
    assert Report.objects.count() == 0


def test_report_of_an_entry_that_does_not_exist_is_404(client, pound_keeper):
    problem_of(post(client, REPORTS, {"entry": 2**62}, pound_keeper), 404)


# --- A proclamation of the notice --------------------------------------------------------------


def test_proclamation_is_recorded_through_the_service(client, notice, police_officer):
    response = post(client, proclamations_url(notice), drum(), police_officer)

    assert response.status_code == 201, response.content
    body = response.json()
    made = Proclamation.objects.get()
    assert response["Location"] == f"/api/v1/proclamations/{made.pk}/"
    assert (made.channel, made.place, made.made_by, made.recorded_by) == (
        "drum_village",
        "Chaupal",
        "Ram Lal, chowkidar",
        police_officer,
    )
    assert (body["id"], body["notice"], body["report"]) == (made.pk, notice.pk, notice.report_id)
    assert body["made_on"] == timezone.localdate().isoformat()
    assert body["message"].startswith("Proclamation recorded: Beat of drum in the village on ")
    assert Event.objects.filter(action="s14.proclaimed").count() == 1


def test_proclamation_replayed_key_records_once(client, notice, police_officer):
    headers = bearer(police_officer)
    first = post(client, proclamations_url(notice), drum(), police_officer, headers=headers)
    again = post(client, proclamations_url(notice), drum(), police_officer, headers=headers)

    assert again.status_code == 201 and again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert Proclamation.objects.count() == 1


def test_proclamation_same_key_other_body_is_422(client, notice, police_officer):
    headers = bearer(police_officer)
    post(client, proclamations_url(notice), drum(), police_officer, headers=headers)
    other = drum(channel="drum_market", place="Haat")
    problem_of(post(client, proclamations_url(notice), other, police_officer, headers=headers), 422)
    assert Proclamation.objects.count() == 1


def test_same_key_on_another_notice_is_another_operation(
    client, notice, police_officer, pound, pound_keeper
):
    """The key is for one request: sent to another record's path, it is refused."""
    second_entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=10)
    _r, second = report_and_notice(
        second_entry, pound_keeper, police_officer, sent_days_ago=1, posted_days_ago=0, drums=False
    )
    headers = bearer(police_officer)
    post(client, proclamations_url(notice), drum(), police_officer, headers=headers)
    problem_of(
        post(client, proclamations_url(second), drum(), police_officer, headers=headers), 422
    )
    assert Proclamation.objects.count() == 1


def test_proclamation_without_key_is_400(client, notice, police_officer):
    before = snapshot()
    problem_of(post(client, proclamations_url(notice), drum(), police_officer, key="short"), 400)
    assert snapshot() == before


def test_proclamation_form_errors_are_the_screens_in_hindi(client, notice, police_officer):
    before = snapshot()
    response = post(
        client,
        proclamations_url(notice),
        {"channel": "tom-tom", "made_on": "yesterday"},
        police_officer,
        lang="hi",
    )
    body = problem_of(response, 400)
    errors = fields(body)
    assert set(errors) == {"channel", "made_on", "made_by"}
    assert body["title"] == "अनुरोध में त्रुटियाँ हैं।"
    assert all("required" not in m and "valid" not in m for m in errors.values())
    assert snapshot() == before


def test_proclamation_form_errors_in_english(client, notice, police_officer):
    body = problem_of(
        post(client, proclamations_url(notice), drum(made_by=""), police_officer), 400
    )
    assert fields(body) == {"made_by": "This field is required."}


def test_proclamation_before_the_notice_is_refused_by_the_service(client, notice, police_officer):
    before = snapshot()
    day = (notice.posted_on - timedelta(days=1)).isoformat()
    body = problem_of(
        post(client, proclamations_url(notice), drum(made_on=day), police_officer), 422
    )
    assert body["title"] == "The proclamation cannot be recorded."
    assert fields(body) == {
        "made_on": "The date must fall between the posting of the notice and today."
    }
    assert snapshot() == before


def test_drum_without_a_place_is_refused_naming_the_field(client, notice, police_officer):
    body = problem_of(post(client, proclamations_url(notice), drum(place=""), police_officer), 422)
    assert fields(body) == {"place": "Name the village or the market-place."}


def test_proclamation_on_another_districts_notice_is_404(client, notice, other_officer):
    before = snapshot()
    problem_of(post(client, proclamations_url(notice), drum(), other_officer), 404)
    assert snapshot() == before


@pytest.mark.parametrize("role", ["pound_keeper", "dm_clerk", "auditor"])
def test_proclamation_by_another_role_is_403_as_on_the_screen(client, request, notice, role):
    before = snapshot()
    problem_of(post(client, proclamations_url(notice), drum(), request.getfixturevalue(role)), 403)
    assert snapshot() == before


def test_proclamation_village_of_another_district_is_a_form_error(
    client, notice, police_officer, other_district
):
    far = VillageFactory(district=other_district)
    body = problem_of(
        post(client, proclamations_url(notice), drum(village=far.pk), police_officer), 400
    )
    assert set(fields(body)) == {"village"}


# --- Confirming a remittance -------------------------------------------------------------------


def confirmation(**kw):
    return {"challan_number": "CH-0042", "checked": True} | kw


def test_remittance_is_confirmed_through_the_service(client, remittance, dm_clerk):
    response = post(client, confirm_url(remittance), confirmation(), dm_clerk)

    assert response.status_code == 200, response.content
    body = response.json()
    remittance.refresh_from_db()
    assert (remittance.status, remittance.confirmed_by) == (Remittance.Status.CONFIRMED, dm_clerk)
    assert (body["status"], body["amount"], body["number"]) == (
        "confirmed",
        "15000.00",
        remittance.number,
    )
    assert "+05:30" in body["confirmed_at"]
    assert body["message"] == (
        f"Remittance {remittance.number} confirmed: ₹15,000.00 of fines received (s.17)."
    )
    assert Transaction.objects.filter(kind="remittance_confirmed").count() == 1


def test_challan_number_is_compared_without_case_or_spaces(client, remittance, magistrate):
    response = post(
        client, confirm_url(remittance), confirmation(challan_number=" ch-0042 "), magistrate
    )
    assert response.status_code == 200


def test_remittance_replayed_key_confirms_once(client, remittance, dm_clerk):
    headers = bearer(dm_clerk)
    first = post(client, confirm_url(remittance), confirmation(), dm_clerk, headers=headers)
    again = post(client, confirm_url(remittance), confirmation(), dm_clerk, headers=headers)

    assert again.status_code == 200 and again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert Transaction.objects.filter(kind="remittance_confirmed").count() == 1


def test_remittance_same_key_other_body_is_422(client, remittance, dm_clerk):
    headers = bearer(dm_clerk)
    post(client, confirm_url(remittance), confirmation(), dm_clerk, headers=headers)
    other = confirmation(challan_number="CH-0043")
    problem_of(post(client, confirm_url(remittance), other, dm_clerk, headers=headers), 422)


def test_remittance_without_key_is_400(client, remittance, dm_clerk):
    before = snapshot()
    problem_of(post(client, confirm_url(remittance), confirmation(), dm_clerk, key=None), 400)
    assert snapshot() == before


def test_unchecked_confirmation_is_the_screens_form_error(client, remittance, dm_clerk):
    before = snapshot()
    body = problem_of(
        post(client, confirm_url(remittance), {"challan_number": "CH-0042"}, dm_clerk), 400
    )
    assert fields(body) == {"checked": "This field is required."}
    assert snapshot() == before


def test_confirmation_without_challan_is_400(client, remittance, dm_clerk):
    body = problem_of(post(client, confirm_url(remittance), {"checked": True}, dm_clerk), 400)
    assert fields(body) == {"challan_number": "Enter the challan number the treasury gave."}


def test_the_scroll_given_confirms_the_grn_by_the_caller(client, remittance, dm_clerk):
    from office.models import TreasuryChallan

    scroll = {"cin": "0002390260511200012", "scroll_number": "SC-9", "scroll_date": "2020-01-15"}
    response = post(client, confirm_url(remittance), confirmation(**scroll), dm_clerk)

    assert response.status_code == 200, response.content
    challan = TreasuryChallan.objects.get(remittance=remittance)
    assert (challan.cin, challan.scroll_number, str(challan.scroll_date)) == tuple(scroll.values())
    assert (challan.recorded_by, challan.confirmed_by) == (remittance.sent_by, dm_clerk)


def test_half_a_scroll_is_409_and_confirms_nothing(client, remittance, dm_clerk):
    before = snapshot()
    response = post(client, confirm_url(remittance), confirmation(cin="0002390"), dm_clerk)
    body = problem_of(response, 409)
    assert set(fields(body)) == {"scroll_number", "scroll_date"}
    assert snapshot() == before


def test_another_challan_number_is_409_and_confirms_nothing(client, remittance, dm_clerk):
    before = snapshot()
    response = post(client, confirm_url(remittance), confirmation(challan_number="CH-9"), dm_clerk)
    body = problem_of(response, 409)
    assert set(fields(body)) == {"challan_number"}
    assert snapshot() == before


def test_confirming_twice_with_a_new_key_is_409(client, remittance, dm_clerk, magistrate):
    post(client, confirm_url(remittance), confirmation(), dm_clerk)
    before = snapshot()
    body = problem_of(
        post(client, confirm_url(remittance), confirmation(), magistrate, key="key-other-1"), 409
    )
    assert body["detail"] == "This remittance is already confirmed."
    assert snapshot() == before


def test_the_sender_may_not_confirm_his_own_remittance(
    client, pound, dm_clerk, magistrate, tariffs
):
    """Maker-checker: the office may send on an authority; the same clerk then may not confirm."""
    keeper = staff(Role.POUND_KEEPER, pound=pound)
    fines_collected(pound, keeper)
    sent = remit(pound, dm_clerk, "100.00", challan_number="CH-7", authority="DM order 12/2026")
    before = snapshot()

    response = post(client, confirm_url(sent), confirmation(challan_number="CH-7"), dm_clerk)

    body = problem_of(response, 403)
    assert body["detail"] == "You sent this remittance: another person confirms it."
    assert snapshot() == before
    hindi = post(
        client, confirm_url(sent), confirmation(challan_number="CH-7"), dm_clerk, lang="hi"
    )
    assert problem_of(hindi, 403)["detail"] == "यह प्रेषण आपने भेजा है: कोई दूसरा व्यक्ति इसकी पुष्टि करेगा।"
    ok = post(client, confirm_url(sent), confirmation(challan_number="CH-7"), magistrate)
    assert ok.status_code == 200


def test_remittance_of_another_district_is_404(client, remittance, other_clerk):
    before = snapshot()
    problem_of(post(client, confirm_url(remittance), confirmation(), other_clerk), 404)
    assert snapshot() == before


@pytest.mark.parametrize("role", ["pound_keeper", "police_officer", "auditor", "administrator"])
def test_remittance_by_another_role_is_403(client, request, remittance, role):
    before = snapshot()
    problem_of(
        post(client, confirm_url(remittance), confirmation(), request.getfixturevalue(role)), 403
    )
    assert snapshot() == before


def test_remittance_refusal_is_in_hindi(client, remittance, dm_clerk):
    response = post(
        client, confirm_url(remittance), confirmation(challan_number="X"), dm_clerk, lang="hi"
    )
    body = problem_of(response, 409)
    assert body["title"] == "इस प्रेषण की पुष्टि नहीं की जा सकती।"


def test_the_writes_are_in_the_schema_with_the_key(client):
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    for path in (
        REPORTS,
        "/api/v1/notices/{pk}/proclamations/",
        "/api/v1/remittances/{pk}/confirm/",
    ):
        names = [p["name"] for p in paths[path]["post"]["parameters"]]
        assert "Idempotency-Key" in names


# --- Two at once with one key --------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_confirmations_at_once_with_one_key_get_one_answer(remittance, dm_clerk):
    """The second waits on the key, not inside the service, so it replays the first's answer
    instead of being told the remittance is already confirmed."""
    headers = bearer(dm_clerk)
    barrier = threading.Barrier(2)
    answers = [None, None]

    def run(i):
        try:
            barrier.wait(timeout=10)
            answers[i] = post(
                Client(),
                confirm_url(remittance),
                confirmation(),
                dm_clerk,
                headers=headers,
                key=f"race-{uuid.UUID(int=7)}",
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)

    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].content == answers[1].content
    assert sorted(a.get("Idempotent-Replayed", "") for a in answers) == ["", "true"]
    assert Transaction.objects.filter(kind="remittance_confirmed").count() == 1


def test_too_long_a_place_is_the_forms_message(client, notice, police_officer):
    body = problem_of(
        post(client, proclamations_url(notice), drum(place="x" * 201), police_officer), 400
    )
    assert fields(body) == {"place": "Ensure this value has at most 200 characters (it has 201)."}


def test_a_refused_role_is_told_so_whatever_it_sends(client, entry, police_officer):
    """As on the screens, the role is judged before the body is read."""
    response = client.post(
        REPORTS, "not json", content_type="application/json", **bearer(police_officer)
    )
    problem_of(response, 403)
