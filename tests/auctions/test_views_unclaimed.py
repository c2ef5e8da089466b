"""The s.14 screens before the auction: the pound-keeper's reports due and the report, the
officer's incoming reports, the notice and the proclamations, and the home-page panels."""

import io
import uuid
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from accounts.models import IssuedDocument
from accounts.roles import Role
from auctions import selectors, services
from auctions.models import Notice, Proclamation, Report
from kernel import confirmations
from kernel.models import Event
from tests.accounts.factories import StaffAssignmentFactory, VillageFactory, staff
from tests.auctions.factories import report_and_notice, unclaimed_entry
from tests.impounding.factories import cow, goat, pay

NOT_KEEPERS = ["police_officer", "dm_clerk", "magistrate", "auditor", "administrator"]
NOT_OFFICERS = ["pound_keeper", "dm_clerk", "magistrate", "auditor", "administrator"]


@pytest.fixture
def other_officer(other_pound):
    """The officer of another district's police station: the home district is a 404 to him."""
    return staff(
        Role.POLICE_OFFICER, "other_officer", police_station=other_pound.nearest_police_station
    )


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    """Impounded ten days ago: the report was due two days ago."""
    return unclaimed_entry(
        pound=pound, keeper=pound_keeper, days_ago=10, animals=[cow(), goat(marks="Cut ear")]
    )


@pytest.fixture
def report(entry, pound_keeper):
    return services.send_report(entry=entry, by=pound_keeper, at=timezone.now() - timedelta(days=1))


@pytest.fixture
def notice(report, police_officer):
    return services.post_notice(
        report=report,
        by=police_officer,
        posted_on=timezone.localdate(),
        posted_at="Notice board, Police Station office",
        seizure_place="Canal road",
    )


def snapshot():
    """What these screens could write: compared before and after a refused request."""
    return (
        Report.objects.count(),
        Notice.objects.count(),
        Proclamation.objects.count(),
        Event.objects.count(),
        IssuedDocument.objects.count(),
    )


def body(response):
    return response.content.decode()


def login_redirect(response):
    return response.status_code == 302 and response["Location"].startswith(reverse("login"))


# The pound-keeper's list of reports due --------------------------------------------------------


def test_reports_due_sends_anonymous_visitor_to_login(client):
    assert login_redirect(client.get(reverse("auctions:reports_due")))


@pytest.mark.parametrize("role", NOT_KEEPERS)
def test_reports_due_refused_to_roles_that_do_not_keep_a_pound(client, role_users, role):
    client.force_login(role_users[role])
    assert client.get(reverse("auctions:reports_due")).status_code == 403


def test_reports_due_lists_entries_from_the_eighth_day_with_days_overdue(
    client, pound, pound_keeper, entry
):
    on_eighth_day = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=8)
    on_seventh_day = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=7)
    client.force_login(pound_keeper)
    before = snapshot()
    response = client.get(reverse("auctions:reports_due"))
    assert response.status_code == 200
    html = body(response)
    assert entry.register_number in html
    assert "2 days overdue" in html
    assert on_eighth_day.register_number in html
    assert "due today" in html
    assert on_seventh_day.register_number not in html
    assert reverse("auctions:report_send", kwargs={"pk": entry.pk}) in html
    assert snapshot() == before


def test_reports_due_leaves_out_reported_and_claimed_entries(client, pound, pound_keeper, report):
    claimed = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=9)
    pay(claimed, pound_keeper)
    client.force_login(pound_keeper)
    html = body(client.get(reverse("auctions:reports_due")))
    assert report.impoundment.register_number not in html
    assert claimed.register_number not in html
    assert "No report is due" in html


def test_reports_due_shows_another_districts_keeper_nothing_of_ours(client, outsider, entry):
    client.force_login(outsider)
    response = client.get(reverse("auctions:reports_due"))
    assert response.status_code == 200
    assert entry.register_number not in body(response)


def test_today_page_links_the_report_due_badge_to_the_list(client, pound_keeper, entry):
    client.force_login(pound_keeper)
    html = body(client.get(reverse("impounding:today")))
    assert "report due (s.14)" in html
    assert reverse("auctions:reports_due") in html


def test_today_page_drops_the_report_due_badge_once_the_report_names_the_animals(
    client, pound_keeper, report
):
    client.force_login(pound_keeper)
    html = body(client.get(reverse("impounding:today")))
    assert report.impoundment.register_number in html  # still in the pound, unclaimed
    assert "report due (s.14)" not in html


# Sending the report -----------------------------------------------------------------------------


def send_url(entry):
    return reverse("auctions:report_send", kwargs={"pk": entry.pk})


@pytest.mark.parametrize("method", ["get", "post"])
def test_report_send_sends_anonymous_visitor_to_login(client, entry, method):
    assert login_redirect(getattr(client, method)(send_url(entry)))


@pytest.mark.parametrize("role", NOT_KEEPERS)
@pytest.mark.parametrize("method", ["get", "post"])
def test_report_send_refused_to_roles_that_do_not_keep_the_pound(
    client, role_users, entry, role, method
):
    before = snapshot()
    client.force_login(role_users[role])
    assert getattr(client, method)(send_url(entry)).status_code == 403
    assert snapshot() == before


@pytest.mark.parametrize("method", ["get", "post"])
def test_report_send_is_not_found_for_another_districts_keeper(client, outsider, entry, method):
    before = snapshot()
    client.force_login(outsider)
    assert getattr(client, method)(send_url(entry)).status_code == 404
    assert snapshot() == before


def test_report_send_get_shows_what_the_report_says_and_writes_nothing(
    client, pound, pound_keeper, entry
):
    client.force_login(pound_keeper)
    before = snapshot()
    response = client.get(send_url(entry))
    assert response.status_code == 200
    html = body(response)
    assert entry.register_number in html
    assert "Cut ear" in html and "White" in html  # the animals' descriptions
    assert entry.seizure_place in html
    assert pound.name in html
    assert entry.arrived_at.astimezone(timezone.get_current_timezone()).strftime("%d-%m-%Y") in html
    assert f"The officer in charge, {pound.nearest_police_station.name}" in html
    assert 'type="submit"' in html
    assert snapshot() == before


def test_report_send_names_the_officer_the_magistrate_appointed(client, pound, pound_keeper, entry):
    appointed = staff(Role.POLICE_OFFICER, "appointed", pound=pound)
    appointed.first_name, appointed.last_name = "Anil", "Verma"
    appointed.save()
    client.force_login(pound_keeper)
    html = body(client.get(send_url(entry)))
    assert "Anil Verma" in html
    assert "appointed by the District Magistrate" in html


def test_report_send_post_records_the_report_and_its_event(client, pound_keeper, entry):
    client.force_login(pound_keeper)
    response = client.post(send_url(entry))
    report = Report.objects.get(impoundment=entry)
    assert response.status_code == 302
    assert response["Location"] == reverse("auctions:report", kwargs={"pk": report.pk})
    assert report.animals.count() == 2
    assert report.sent_by == pound_keeper
    event = Event.objects.get(action="s14.reported", impoundment=entry)
    assert event.section == "s.14"
    # The confirmation panel: the reference and the report to print (ADR 0030).
    panel = client.session[confirmations.KEY]
    assert report.number in panel["title"] and panel["reference"] == report.number
    assert panel["document_url"] == reverse("auctions:report_pdf", kwargs={"pk": report.pk})
    page = client.get(response["Location"]).content.decode()
    assert 'data-testid="confirmation-panel"' in page and "Print the report (PDF)" in page


def test_report_send_post_too_early_shows_the_due_date_and_writes_nothing(
    client, pound, pound_keeper, tariffs
):
    early = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=5)
    client.force_login(pound_keeper)
    html = body(client.get(send_url(early)))
    assert "the report is due from" in html
    before = snapshot()
    response = client.post(send_url(early))
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert "The report is due from" in body(response)
    assert snapshot() == before


def test_report_send_twice_refused_and_links_the_first_report(client, pound_keeper, report):
    client.force_login(pound_keeper)
    url = send_url(report.impoundment)
    assert report.get_absolute_url() in body(client.get(url))
    before = snapshot()
    response = client.post(url)
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert snapshot() == before


# The officer's list -------------------------------------------------------------------------


def test_reports_list_sends_anonymous_visitor_to_login(client):
    assert login_redirect(client.get(reverse("auctions:reports")))


def test_reports_list_refused_to_the_administrator(client, administrator):
    client.force_login(administrator)
    assert client.get(reverse("auctions:reports")).status_code == 403


@pytest.mark.parametrize("role", ["pound_keeper", "police_officer", "dm_clerk", "auditor"])
def test_reports_list_open_to_those_who_read_the_records(client, role_users, report, role):
    client.force_login(role_users[role])
    response = client.get(reverse("auctions:reports"))
    assert response.status_code == 200
    assert report.number in body(response)


def test_reports_list_hides_another_districts_reports(client, other_officer, report):
    client.force_login(other_officer)
    response = client.get(reverse("auctions:reports"))
    assert response.status_code == 200
    assert report.number not in body(response)


def three_stages(pound, keeper, officer):
    """One report awaiting its notice, one notice in its period, one whose period ran out."""
    awaiting = services.send_report(
        entry=unclaimed_entry(pound=pound, keeper=keeper, days_ago=12),
        by=keeper,
        at=timezone.now() - timedelta(days=3),
    )
    in_period, _ = report_and_notice(
        unclaimed_entry(pound=pound, keeper=keeper, days_ago=14),
        keeper,
        officer,
        sent_days_ago=5,
        posted_days_ago=4,
    )
    run_out, _ = report_and_notice(
        unclaimed_entry(pound=pound, keeper=keeper, days_ago=20),
        keeper,
        officer,
        sent_days_ago=11,
        posted_days_ago=9,
    )
    return awaiting, in_period, run_out


def test_reports_list_sorts_reports_into_the_three_stages(
    client, pound, pound_keeper, police_officer, tariffs
):
    awaiting, in_period, run_out = three_stages(pound, pound_keeper, police_officer)
    client.force_login(police_officer)
    before = snapshot()
    response = client.get(reverse("auctions:reports"))
    sections = {s.key: [r.pk for r in s.rows] for s in response.context["sections"]}
    assert sections == {
        "awaiting": [awaiting.pk],
        "in_period": [in_period.pk],
        "may_be_sold": [run_out.pk],
    }
    html = body(response)
    assert "3 days ago" in html
    assert in_period.notice.last_day_to_claim.strftime("%d-%m-%Y") in html
    assert "may be sold" in html
    assert snapshot() == before


def test_reports_list_drops_a_report_whose_animals_were_all_claimed(
    client, pound_keeper, police_officer, report
):
    pay(report.impoundment, pound_keeper)
    client.force_login(police_officer)
    response = client.get(reverse("auctions:reports"))
    assert all(not s.rows for s in response.context["sections"])


def test_reports_list_pages_one_list_by_keyset(
    client, pound, pound_keeper, police_officer, tariffs, monkeypatch
):
    monkeypatch.setattr(selectors, "LIST_SIZE", 2)
    sent = [
        services.send_report(
            entry=unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12),
            by=pound_keeper,
            at=timezone.now() - timedelta(hours=5 - i),
        )
        for i in range(5)
    ]
    newest_first = [r.pk for r in reversed(sent)]
    client.force_login(police_officer)
    overview = client.get(reverse("auctions:reports"))
    awaiting = overview.context["sections"][0]
    assert (awaiting.count, [r.pk for r in awaiting.rows]) == (5, newest_first[:2])
    assert "?list=awaiting" in body(overview)
    seen, params = [], {"list": "awaiting"}
    for _ in range(5):
        response = client.get(reverse("auctions:reports"), params)
        (section,) = response.context["sections"]
        seen += [r.pk for r in section.rows]
        if not section.next_cursor:
            break
        params["after"] = section.next_cursor
    assert seen == newest_first


def test_reports_list_query_count_is_flat(
    client, pound, pound_keeper, police_officer, tariffs, django_assert_max_num_queries
):
    three_stages(pound, pound_keeper, police_officer)
    client.force_login(police_officer)
    with django_assert_max_num_queries(20) as few:
        client.get(reverse("auctions:reports"))
    for _ in range(3):
        three_stages(pound, pound_keeper, police_officer)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get(reverse("auctions:reports"))
    assert [s.count for s in response.context["sections"]] == [4, 4, 4]


# The report's page --------------------------------------------------------------------------


def report_url(report):
    return reverse("auctions:report", kwargs={"pk": report.pk})


def test_report_page_sends_anonymous_visitor_to_login(client, report):
    assert login_redirect(client.get(report_url(report)))


def test_report_page_refused_to_the_administrator(client, administrator, report):
    client.force_login(administrator)
    assert client.get(report_url(report)).status_code == 403


@pytest.mark.parametrize("who", ["outsider", "other_officer"])
def test_report_page_is_not_found_in_another_district(client, request, report, who):
    client.force_login(request.getfixturevalue(who))
    assert client.get(report_url(report)).status_code == 404


def test_report_page_before_the_notice(client, police_officer, report):
    client.force_login(police_officer)
    before = snapshot()
    html = body(client.get(report_url(report)))
    assert report.number in html
    assert report.impoundment.seizure_place in html
    assert reverse("auctions:report_pdf", kwargs={"pk": report.pk}) in html
    assert reverse("auctions:notice_post", kwargs={"pk": report.pk}) in html
    assert "The officer has not yet recorded the notice." in html
    assert snapshot() == before


def test_report_page_shows_a_claimed_animal_as_released(
    client, pound_keeper, police_officer, report
):
    claimed = report.animals.get(species="goat")
    pay(report.impoundment, pound_keeper, animals=[claimed])
    client.force_login(police_officer)
    html = body(client.get(report_url(report)))
    assert "Released on payment (s.13)" in html
    assert "In the pound" in html


def test_report_page_warns_while_either_drum_proclamation_is_missing(
    client, police_officer, notice
):
    client.force_login(police_officer)
    url = report_url(notice.report)
    html = body(client.get(url))
    assert "No drum proclamation in the village is recorded." in html
    assert "No drum proclamation at the market-place is recorded." in html
    assert reverse("auctions:notice_pdf", kwargs={"pk": notice.pk}) in html
    assert notice.last_day_to_claim.strftime("%d-%m-%Y") in html
    assert notice.earliest_sale.strftime("%d-%m-%Y") in html

    for channel, place in [("drum_village", "Chaupal"), ("sms", "")]:
        services.record_proclamation(
            notice=notice,
            by=police_officer,
            channel=channel,
            made_on=notice.posted_on,
            made_by="Chowkidar Ram",
            place=place,
            details="To 40 numbers" if channel == "sms" else "",
        )
    html = body(client.get(url))
    assert "No drum proclamation in the village is recorded." not in html
    assert "No drum proclamation at the market-place is recorded." in html
    drums, further = html.split(">Further channels<", 1)
    assert "Chaupal" in drums and "To 40 numbers" not in drums
    assert "To 40 numbers" in further

    services.record_proclamation(
        notice=notice,
        by=police_officer,
        channel="drum_market",
        made_on=notice.posted_on,
        made_by="Chowkidar Ram",
        place="Haat",
    )
    assert "Proclamation by beat of drum not recorded" not in body(client.get(url))


def test_report_page_offers_the_auction_once_the_notice_has_run_out(
    client, pound, pound_keeper, police_officer, tariffs
):
    _, _, run_out = three_stages(pound, pound_keeper, police_officer)
    client.force_login(police_officer)
    html = body(client.get(report_url(run_out)))
    assert f"{reverse('auctions:auction_new')}?report={run_out.pk}" in html


def test_report_page_says_when_the_auction_may_be_held(client, police_officer, notice):
    client.force_login(police_officer)
    html = body(client.get(report_url(notice.report)))
    assert reverse("auctions:auction_new") not in html
    assert f"An auction may be held from {notice.earliest_sale:%d-%m-%Y}" in html


def test_report_page_for_the_keeper_has_no_officer_actions(client, pound_keeper, notice):
    client.force_login(pound_keeper)
    response = client.get(report_url(notice.report))
    assert response.status_code == 200
    html = body(response)
    assert reverse("auctions:proclamation_new", kwargs={"pk": notice.pk}) not in html


# Posting the notice ---------------------------------------------------------------------------


def notice_url(report):
    return reverse("auctions:notice_post", kwargs={"pk": report.pk})


def notice_data(**kw):
    return {
        "posted_on": timezone.localdate().isoformat(),
        "posted_at": "Notice board, Police Station office",
        "seizure_place": "Canal road near the bridge",
    } | kw


@pytest.mark.parametrize("method", ["get", "post"])
def test_notice_post_sends_anonymous_visitor_to_login(client, report, method):
    assert login_redirect(getattr(client, method)(notice_url(report)))


@pytest.mark.parametrize("role", NOT_OFFICERS)
@pytest.mark.parametrize("method", ["get", "post"])
def test_notice_post_refused_to_roles_other_than_the_officer(
    client, role_users, report, role, method
):
    before = snapshot()
    client.force_login(role_users[role])
    kwargs = {"data": notice_data()} if method == "post" else {}
    assert getattr(client, method)(notice_url(report), **kwargs).status_code == 403
    assert snapshot() == before


@pytest.mark.parametrize("who", ["outsider", "other_officer"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_notice_post_is_not_found_in_another_district(client, request, report, who, method):
    before = snapshot()
    client.force_login(request.getfixturevalue(who))
    kwargs = {"data": notice_data()} if method == "post" else {}
    assert getattr(client, method)(notice_url(report), **kwargs).status_code == 404
    assert snapshot() == before


def test_notice_post_get_shows_the_form_with_defaults_and_writes_nothing(
    client, police_officer, report
):
    client.force_login(police_officer)
    before = snapshot()
    response = client.get(notice_url(report))
    assert response.status_code == 200
    form = response.context["form"]
    assert form["posted_on"].value() == timezone.localdate()
    assert form["posted_at"].value() == f"Notice board, {report.police_station.name} office"
    html = body(response)
    assert 'name="posted_on"' in html and f'value="{timezone.localdate():%d-%m-%Y}"' in html
    last_day = timezone.localdate() + timedelta(days=7)
    earliest = timezone.localdate() + timedelta(days=8)
    assert f"the last day to claim is {last_day:%d-%m-%Y}" in html
    assert f"may be sold from {earliest:%d-%m-%Y}" in html
    assert "Cut ear" in html
    assert snapshot() == before


def test_notice_post_records_the_notice_and_its_event(client, police_officer, report):
    client.force_login(police_officer)
    posted_on = timezone.localdate() - timedelta(days=1)
    response = client.post(notice_url(report), notice_data(posted_on=posted_on.isoformat()))
    assert response.status_code == 302
    assert response["Location"] == report_url(report)
    notice = Notice.objects.get(report=report)
    assert notice.posted_on == posted_on
    assert notice.last_day_to_claim == posted_on + timedelta(days=7)
    assert notice.earliest_sale == posted_on + timedelta(days=8)
    event = Event.objects.get(action="s14.notice_posted", impoundment=report.impoundment)
    assert event.section == "s.14"
    panel = client.session[confirmations.KEY]
    assert f"{notice.last_day_to_claim:%d-%m-%Y}" in panel["title"]
    assert f"{notice.earliest_sale:%d-%m-%Y}" in panel["title"]
    assert panel["document_url"] == reverse("auctions:notice_pdf", kwargs={"pk": notice.pk})


@pytest.mark.parametrize(
    ("data", "field", "text"),
    [
        ({"posted_on": "2999-01-01"}, "posted_on", "on or after the day it is posted"),
        ({"posted_on": "2020-01-01"}, "posted_on", "before the report was sent"),
        ({"posted_on": ""}, "posted_on", "This field is required."),
        ({"posted_at": ""}, "posted_at", "This field is required."),
        # The register gave no place fit to publish: (b) is stated here, or nothing is posted.
        ({"seizure_place": ""}, "seizure_place", "state where the cattle were seized (b)"),
        ({"seizure_place": "Field of Shyam Lal"}, "seizure_place", "without the owner's"),
    ],
)
def test_notice_post_refused_shows_the_error_beside_the_field_and_writes_nothing(
    client, police_officer, report, data, field, text
):
    client.force_login(police_officer)
    before = snapshot()
    response = client.post(notice_url(report), notice_data(**data))
    assert response.status_code == 200
    assert any(text in e for e in response.context["form"].errors[field])
    assert snapshot() == before


def test_notice_post_a_second_time_is_refused(client, police_officer, notice):
    client.force_login(police_officer)
    url = notice_url(notice.report)
    assert notice.number in body(client.get(url))
    before = snapshot()
    response = client.post(url, notice_data())
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert snapshot() == before


# Recording a proclamation -----------------------------------------------------------------


def procl_url(notice, query=""):
    return reverse("auctions:proclamation_new", kwargs={"pk": notice.pk}) + query


def procl_data(**kw):
    return {
        "idempotency_key": str(uuid.uuid4()),
        "channel": "drum_village",
        "made_on": timezone.localdate().isoformat(),
        "village": "",
        "place": "Chaupal",
        "made_by": "Chowkidar Ram",
        "details": "",
    } | kw


def jpeg():
    out = io.BytesIO()
    Image.new("RGB", (40, 30), "green").save(out, format="JPEG")
    return SimpleUploadedFile("drum.jpg", out.getvalue(), content_type="image/jpeg")


@pytest.mark.parametrize("method", ["get", "post"])
def test_proclamation_sends_anonymous_visitor_to_login(client, notice, method):
    assert login_redirect(getattr(client, method)(procl_url(notice)))


@pytest.mark.parametrize("role", NOT_OFFICERS)
@pytest.mark.parametrize("method", ["get", "post"])
def test_proclamation_refused_to_roles_other_than_the_officer(
    client, role_users, notice, role, method
):
    before = snapshot()
    client.force_login(role_users[role])
    kwargs = {"data": procl_data()} if method == "post" else {}
    assert getattr(client, method)(procl_url(notice), **kwargs).status_code == 403
    assert snapshot() == before


@pytest.mark.parametrize("who", ["outsider", "other_officer"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_proclamation_is_not_found_in_another_district(client, request, notice, who, method):
    before = snapshot()
    client.force_login(request.getfixturevalue(who))
    kwargs = {"data": procl_data()} if method == "post" else {}
    assert getattr(client, method)(procl_url(notice), **kwargs).status_code == 404
    assert snapshot() == before


@pytest.fixture
def villages(district, pound, notice):
    """The village of seizure, a market village and an ordinary one, in the home district."""
    seizure = VillageFactory(district=district, name="Nigohan")
    market = VillageFactory(district=district, name="Mohanlalganj", has_market=True)
    plain = VillageFactory(district=district, name="Samesi")
    entry = notice.report.impoundment
    entry.seizure_village = seizure
    entry.save(update_fields=["seizure_village"])
    return seizure, market, plain


def test_proclamation_get_shows_the_form_and_writes_nothing(
    client, police_officer, notice, villages
):
    seizure, market, plain = villages
    client.force_login(police_officer)
    before = snapshot()
    response = client.get(procl_url(notice))
    assert response.status_code == 200
    form = response.context["form"]
    groups = [label for label, _ in form.fields["village"].choices[1:]]
    assert groups == [
        "Village of seizure",
        "Villages with a market-place",
        "Other villages of the district",
    ]
    assert form.fields["village"].choices[1][1] == [(seizure.pk, "Nigohan")]
    assert (market.pk, "Mohanlalganj") in form.fields["village"].choices[2][1]
    html = body(response)
    assert 'accept="image/*"' in html and 'capture="environment"' in html
    assert 'enctype="multipart/form-data"' in html
    assert snapshot() == before


def test_proclamation_get_suggests_the_village_for_the_channel_asked_for(
    client, police_officer, notice, villages
):
    seizure, market, plain = villages
    client.force_login(police_officer)
    form = client.get(procl_url(notice, "?channel=drum_village")).context["form"]
    assert (form["channel"].value(), form["village"].value()) == ("drum_village", seizure.pk)
    form = client.get(procl_url(notice, "?channel=drum_market")).context["form"]
    assert (form["channel"].value(), form["village"].value()) == ("drum_market", market.pk)


def test_proclamation_post_records_it_with_its_photo_and_event(
    client, police_officer, notice, villages
):
    seizure, market, plain = villages
    client.force_login(police_officer)
    response = client.post(
        procl_url(notice),
        procl_data(channel="drum_market", village=str(market.pk), photo=jpeg()),
    )
    assert response.status_code == 302
    assert response["Location"] == report_url(notice.report)
    proclamation = Proclamation.objects.get(notice=notice)
    assert proclamation.channel == "drum_market"
    assert proclamation.village == market
    assert proclamation.photo.name.startswith("proclamations/")
    event = Event.objects.get(action="s14.proclaimed")
    assert event.section == "s.14"
    assert event.impoundment_id == notice.report.impoundment_id


@pytest.mark.parametrize(
    ("data", "field", "text"),
    [
        ({"place": "", "village": ""}, "place", "Name the village or the market-place."),
        ({"made_on": "2020-01-01"}, "made_on", "between the posting of the notice and today"),
        ({"made_by": ""}, "made_by", "This field is required."),
        ({"channel": "telegram"}, "channel", "Select a valid choice."),
        ({"village": "999999"}, "village", "Select a valid choice."),
    ],
)
def test_proclamation_refused_shows_the_error_beside_the_field_and_writes_nothing(
    client, police_officer, notice, data, field, text
):
    client.force_login(police_officer)
    before = snapshot()
    response = client.post(procl_url(notice), procl_data(**data))
    assert response.status_code == 200
    assert any(text in e for e in response.context["form"].errors[field])
    assert snapshot() == before


def test_proclamation_refuses_a_village_of_another_district(
    client, police_officer, notice, other_district
):
    elsewhere = VillageFactory(district=other_district)
    client.force_login(police_officer)
    response = client.post(procl_url(notice), procl_data(village=str(elsewhere.pk)))
    assert response.context["form"].errors["village"]


# The home-page panels ---------------------------------------------------------------------


def test_officer_home_lists_incoming_reports_and_notices(
    client, pound, pound_keeper, police_officer, tariffs
):
    awaiting, in_period, run_out = three_stages(pound, pound_keeper, police_officer)
    client.force_login(police_officer)
    html = body(client.get(reverse("home")))
    assert "Incoming reports of unclaimed cattle (s.14)" in html
    assert "issue #4" not in html
    assert awaiting.number in html
    assert in_period.number in html
    assert run_out.number not in html  # neither awaiting a notice nor in its period
    assert reverse("auctions:reports") in html


def test_officer_home_panel_shows_five_and_the_count(
    client, pound, pound_keeper, police_officer, tariffs
):
    for _ in range(6):
        services.send_report(
            entry=unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=9), by=pound_keeper
        )
    client.force_login(police_officer)
    panel = client.get(reverse("home")).context["officer_panel"]
    assert panel["awaiting"]["count"] == 6
    assert len(panel["awaiting"]["rows"]) == 5


def test_keeper_home_counts_the_reports_due(client, pound_keeper, entry):
    client.force_login(pound_keeper)
    response = client.get(reverse("home"))
    assert response.context["keeper_panel"]["reports_due"] == 1
    html = body(response)
    assert "1 register entry has cattle not claimed within seven days" in html
    assert reverse("auctions:reports_due") in html


def test_home_of_other_roles_computes_no_s14_panel(client, dm_clerk, entry):
    client.force_login(dm_clerk)
    context = client.get(reverse("home")).context
    assert "officer_panel" not in context and "keeper_panel" not in context


def test_officer_appointed_for_a_pound_sees_its_reports(client, pound, report):
    appointed = staff(Role.POLICE_OFFICER, "appointed", pound=pound)
    client.force_login(appointed)
    assert report.number in body(client.get(reverse("home")))


def test_officer_whose_appointment_ended_sees_nothing(client, police_station, report):
    former = staff(Role.POLICE_OFFICER, "former", police_station=police_station)
    former.assignments.update(valid_to=timezone.localdate() - timedelta(days=1))
    StaffAssignmentFactory(user=former, role=Role.AUDITOR, district=police_station.district)
    client.force_login(former)
    response = client.get(reverse("home"))
    assert "officer_panel" not in response.context
