"""Lost-cattle reports from the public (ADR 0079): the form and its one-time code, matching by
tag and by description, the keeper's decision, the owner's message, limits and lapsing."""

import importlib
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.apps import apps as django_apps
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from impounding import lost_notify
from impounding.models import LostMatch, LostNotice, LostReport, PhoneCode
from impounding.services import lost as services
from kernel.models import Event
from messaging.models import Message
from tests.impounding.factories import cow, goat, make_entry

IST = ZoneInfo("Asia/Kolkata")
TAG = "123456789010"


def ist(day, hour=10):
    return datetime(2026, 3, day, hour, tzinfo=IST)


@pytest.fixture(autouse=True)
def now(time_machine):
    time_machine.move_to(ist(15, 12), tick=False)


@pytest.fixture
def codes(monkeypatch):
    """The codes sent, by phone, as the messages component would deliver them."""
    sent = {}
    real = lost_notify.send_verification_code

    def capture(*, report, phone, code, language):
        sent[phone] = code
        real(report=report, phone=phone, code=code, language=language)

    monkeypatch.setattr(lost_notify, "send_verification_code", capture)
    return sent


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=ist(13, 16),
        seized_at=ist(13, 11),
        seizure_place="Nigohan canal",
        animals=[cow(colour="White with brown patches", ear_tag=TAG), goat()],
    )


def details(district, **kw):
    return {
        "species": "cattle",
        "colour": "White",
        "marks": "",
        "ear_tag": "",
        "place": "Nigohan",
        "state": district.state_id,
        "district": district.pk,
        "lost_on": "2026-03-12",
        "phone": "9876543210",
    } | kw


def report_through_the_form(client, codes, district, **kw):
    answer = client.post(reverse("lost_report"), details(district, **kw))
    assert answer.status_code == 302 and answer["Location"] == reverse("lost_code")
    phone = kw.get("phone", "9876543210")
    answer = client.post(reverse("lost_code"), {"code": codes[phone]})
    assert answer["Location"] == reverse("lost_check")
    assert client.get(reverse("lost_check")).status_code == 200
    answer = client.post(reverse("lost_check"))
    assert answer["Location"] == reverse("lost_done")
    done = client.get(reverse("lost_done"))
    report = LostReport.objects.latest("pk")
    assert report.reference in done.content.decode()
    return report


def confirm(client, keeper, match):
    client.force_login(keeper)
    entry_page = client.get(reverse("impounding:entry", args=[match.animal.impoundment_id]))
    assert match.report.reference in entry_page.content.decode()
    answer = client.post(
        reverse("impounding:lost_decide", args=[match.pk]), {"decision": "confirm"}
    )
    assert answer.status_code == 302


@pytest.fixture
def sms_templates():
    """The messages' templates as their data migrations seed them, again if a transactional
    test on this database flushed them."""
    for name in ("0002_seed_templates", "0003_lost_match_templates"):
        importlib.import_module(f"messaging.migrations.{name}").seed(django_apps, None)


def test_a_report_by_tag_finds_the_cow_and_the_owner_is_told(
    client, codes, district, entry, pound_keeper, sms_templates
):
    report = report_through_the_form(client, codes, district, ear_tag="1234 5678 9010")
    assert report.state == LostReport.State.OPEN and report.phone_verified
    match = LostMatch.objects.get(report=report)
    assert match.by_tag and match.score == 100 and match.animal.ear_tag == TAG
    confirm(client, pound_keeper, match)
    match.refresh_from_db()
    assert match.state == LostMatch.State.CONFIRMED and match.decided_by == pound_keeper
    event = Event.objects.get(action="lost.match_confirmed")
    assert event.section == "s.13" and event.by == pound_keeper
    assert event.animal_id == match.animal_id and event.data["report"] == report.reference
    notice = LostNotice.objects.get(report=report, kind=LostNotice.Kind.MATCH)
    assert notice.phone == "9876543210"
    assert entry.pound.name in notice.text and "₹" in notice.text
    assert LostReport.objects.get(pk=report.pk).state == LostReport.State.FOUND
    # Both went to the messages component: the code at once, the match on its DLT template.
    sent = {m.event: m for m in Message.objects.filter(recipient="9876543210")}
    assert set(sent) == {"one_time_code", "lost_match"} and sent["one_time_code"].urgent
    found = sent["lost_match"]
    assert found.impoundment_id == entry.pk
    assert report.reference in found.text and entry.pound.name in found.text
    assert found.variables["amount"] in notice.text  # the same dues, in Indian grouping


def test_a_report_by_description_finds_the_cow(client, codes, district, entry, pound_keeper):
    report = report_through_the_form(client, codes, district, colour="white cow")
    match = LostMatch.objects.get(report=report)  # the goat is not among them
    assert not match.by_tag and match.animal.species == "cattle"
    assert match.score == 100  # species, colour, place, seized within three days
    confirm(client, pound_keeper, match)
    assert LostNotice.objects.filter(report=report, kind="match").count() == 1
    # Decided twice, done once.
    client.post(reverse("impounding:lost_decide", args=[match.pk]), {"decision": "confirm"})
    assert LostNotice.objects.filter(report=report, kind="match").count() == 1
    assert Event.objects.filter(action="lost.match_confirmed").count() == 1


def test_a_report_in_hindi_tells_the_owner_in_hindi(client, codes, district, entry, pound_keeper):
    client.cookies["django_language"] = "hi"
    report = report_through_the_form(client, codes, district, ear_tag=TAG)
    assert report.language == "hi"
    confirm(client, pound_keeper, LostMatch.objects.get(report=report))
    assert "PoundAdmin:" in LostNotice.objects.get(kind="match").text
    assert "report" not in LostNotice.objects.get(kind="match").text


def test_a_different_animal_is_no_candidate_and_a_rejection_tells_no_one(
    client, codes, district, entry, pound_keeper
):
    report = report_through_the_form(client, codes, district, colour="black", place="Elsewhere")
    assert not LostMatch.objects.filter(report=report).exists()
    report = report_through_the_form(client, codes, district, phone="9876500000")
    match = LostMatch.objects.get(report=report)
    client.force_login(pound_keeper)
    client.post(reverse("impounding:lost_decide", args=[match.pk]), {"decision": "reject"})
    match.refresh_from_db()
    assert match.state == LostMatch.State.REJECTED
    assert not LostNotice.objects.filter(kind="match").exists()
    assert Event.objects.filter(action="lost.match_rejected").count() == 1


def test_another_districts_candidate_is_a_404(client, codes, district, entry, outsider):
    report = report_through_the_form(client, codes, district, ear_tag=TAG)
    match = LostMatch.objects.get(report=report)
    client.force_login(outsider)
    answer = client.post(
        reverse("impounding:lost_decide", args=[match.pk]), {"decision": "confirm"}
    )
    assert answer.status_code == 404
    assert report.reference not in client.get(reverse("impounding:lost_matches")).content.decode()
    assert LostMatch.objects.get(pk=match.pk).state == LostMatch.State.CANDIDATE


def test_bad_answers_are_named_beside_their_fields(client, district):
    answer = client.post(
        reverse("lost_report"),
        details(district, ear_tag="12345", phone="12345", lost_on="2026-03-20", colour=""),
    )
    assert answer.status_code == 200
    form = answer.context["form"]
    assert set(form.errors) == {"ear_tag", "phone", "lost_on", "colour"}
    assert "There is a problem" in answer.content.decode()
    assert not PhoneCode.objects.exists()


def test_the_code_is_hashed_expires_and_allows_three_tries(client, codes, district):
    client.post(reverse("lost_report"), details(district))
    code = codes["9876543210"]
    stored = PhoneCode.objects.get()
    assert code not in stored.code_hash
    assert code not in LostNotice.objects.get(kind="code").text
    wrong = f"{(int(code) + 1) % 10**6:06d}"
    for _ in range(3):
        answer = client.post(reverse("lost_code"), {"code": wrong})
        assert answer.status_code == 200
    assert "Too many wrong codes" in answer.content.decode()
    answer = client.post(reverse("lost_code"), {"code": code})
    assert answer.status_code == 200  # the right code is refused after three wrong ones
    assert client.get(reverse("lost_check"))["Location"] == reverse("lost_report")
    # A new code; ten minutes later it has expired.
    client.post(reverse("lost_code"), {"resend": "1"})
    fresh = codes["9876543210"]
    PhoneCode.objects.filter(used_at__isnull=True).update(
        expires_at=ist(15, 12) - timedelta(seconds=1)
    )
    answer = client.post(reverse("lost_code"), {"code": fresh})
    assert "has expired" in answer.content.decode()


def test_codes_are_limited_per_address_and_per_phone(client, district, settings, codes):
    settings.LOST_CODES_PER_ADDRESS_HOUR = 2
    settings.LOST_CODES_PER_PHONE_DAY = 1
    assert client.post(reverse("lost_report"), details(district)).status_code == 302
    client.cookies.clear()  # a new session, the same phone, another address
    answer = client.post(reverse("lost_report"), details(district), REMOTE_ADDR="10.0.0.9")
    assert answer.status_code == 429 and "this number today" in answer.content.decode()
    for phone in ("9876500001", "9876500002"):
        client.cookies.clear()
        answer = client.post(reverse("lost_report"), details(district, phone=phone))
    assert answer.status_code == 429 and "this connection" in answer.content.decode()
    assert PhoneCode.objects.count() == 2


def test_an_unproved_report_cannot_be_sent(client, codes, district):
    client.post(reverse("lost_report"), details(district))
    assert client.post(reverse("lost_check"))["Location"] == reverse("lost_report")
    assert LostReport.objects.get().state == LostReport.State.DRAFT


def test_a_report_lapses_after_its_period_and_its_personal_data_goes(
    client, codes, district, settings
):
    report = report_through_the_form(client, codes, district)
    assert report.expires_at == report.submitted_at + timedelta(days=settings.LOST_REPORT_DAYS)
    assert services.lapse_and_erase(ist(15, 12) + timedelta(days=29)) == 0
    assert services.lapse_and_erase(ist(15, 12) + timedelta(days=31)) == 1
    report.refresh_from_db()
    assert report.state == LostReport.State.LAPSED and report.phone == ""
    assert not report.notices.exists()
    assert services.lapse_and_erase(ist(15, 12) + timedelta(days=32)) == 0


def test_a_draft_left_a_day_is_deleted(client, codes, district):
    client.post(reverse("lost_report"), details(district))
    services.lapse_and_erase(ist(16, 13))
    assert not LostReport.objects.exists()


def test_the_candidates_page_reads_a_fixed_number_of_queries(
    client, codes, district, pound, pound_keeper, tariffs
):
    def one_more():
        make_entry(pound=pound, by=pound_keeper, animals=[cow()], seizure_place="Nigohan")
        report_through_the_form(client, codes, district, lost_on=date(2026, 3, 14).isoformat())

    def count():
        client.force_login(pound_keeper)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("impounding:lost_matches")).status_code == 200
        client.logout()
        return len(queries)

    one_more()
    first = count()
    for _ in range(3):
        one_more()
    assert LostMatch.objects.count() > 3
    assert count() == first


@pytest.mark.parametrize("days", [14, None])
def test_the_period_is_the_packs_or_else_the_product_default(district, settings, days):
    """A State that fills clocks.lost_report_days sets the period; the central pack leaves it
    empty (no Act gives one) and the product's default applies."""
    from django.utils import timezone

    from rulepacks.models import DistrictRulePack, RulePack
    from rulepacks.services import forget_packs, load_shipped

    load_shipped("central")
    central = RulePack.objects.latest_of("central")
    assert central.pack.clocks.lost_report_days is None
    rules = dict(central.rules, version=f"9.{days or 0}")
    rules["clocks"] = dict(rules["clocks"], lost_report_days=days)
    pack = RulePack.objects.create(
        code="central", version=f"9.{days or 0}", title=central.title, verified=True,
        effective_from=central.effective_from, rules=rules, digest="0" * 64,
    )  # fmt: skip
    DistrictRulePack.objects.create(district=district, pack=pack, chosen_at=timezone.now())
    forget_packs()
    settings.LOST_REPORT_DAYS = 30
    assert services.open_days(district) == (days or 30)


def test_matching_reads_a_fixed_number_of_queries(client, codes, district, pound, pound_keeper):
    def sent_with(n_entries, phone):
        for _ in range(n_entries):
            make_entry(pound=pound, by=pound_keeper, animals=[cow(ear_tag=TAG)])
        client.cookies.clear()
        client.post(reverse("lost_report"), details(district, phone=phone, ear_tag=TAG))
        client.post(reverse("lost_code"), {"code": codes[phone]})
        with CaptureQueriesContext(connection) as queries:
            client.post(reverse("lost_check"))
        return len(queries), LostMatch.objects.filter(report__phone=phone).count()

    one, found_one = sent_with(1, "9876500011")
    five, found_five = sent_with(4, "9876500012")
    assert (found_one, found_five) == (1, 5)
    assert five == one


def test_a_photo_is_checked_and_stored_re_encoded(client, codes, district):
    from io import BytesIO

    from django.core.files.uploadedfile import SimpleUploadedFile
    from PIL import Image

    buffer = BytesIO()
    Image.new("RGB", (40, 30), "white").save(buffer, "PNG")
    photo = SimpleUploadedFile("cow.png", buffer.getvalue(), content_type="image/png")
    client.post(reverse("lost_report"), details(district) | {"photo": photo})
    report = LostReport.objects.get()
    assert report.photo.name.endswith(".jpg") and report.photo.storage.exists(report.photo.name)
    not_a_photo = SimpleUploadedFile("cow.png", b"not an image", content_type="image/png")
    client.cookies.clear()
    answer = client.post(reverse("lost_report"), details(district) | {"photo": not_a_photo})
    assert "photo" in answer.context["form"].errors


# --- The district list, filtered by the State (issue 25) ---------------------------------------


@pytest.fixture
def far_district():
    from tests.accounts.factories import DistrictFactory, StateFactory

    kerala = StateFactory(code="kl", name="Kerala", name_hi="केरल")
    return DistrictFactory(state=kerala, code="tvm", name="Thiruvananthapuram", name_hi="")


def district_options(page):
    from html.parser import HTMLParser

    found, inside = [], []

    class Options(HTMLParser):
        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if tag == "select":
                inside.append(attrs.get("name"))
            elif tag == "option" and inside and inside[-1] == "district" and attrs["value"]:
                found.append(int(attrs["value"]))

        def handle_endtag(self, tag):
            if tag == "select":
                inside.pop()

    Options().feed(page.content.decode())
    return found


def test_the_district_list_offers_only_the_chosen_states_districts(
    client, district, other_district, far_district
):
    # Two States: the State is asked first, and no district is offered before it is chosen.
    first = client.get(reverse("lost_report"))
    assert district_options(first) == []
    assert "Choose the State first" in first.content.decode()
    # From the page's address.
    by_address = client.get(reverse("lost_report") + "?state=" + far_district.state.code)
    assert district_options(by_address) == [far_district.pk]
    # Without JavaScript: "Show its districts" sends the form back as typed, nothing judged.
    answer = client.post(
        reverse("lost_report"),
        {"state": district.state_id, "colour": "White", "show_districts": "1"},
    )
    assert answer.status_code == 200 and not answer.context["form"].errors
    assert sorted(district_options(answer)) == sorted([district.pk, other_district.pk])
    assert 'value="White"' in answer.content.decode()
    assert not LostReport.objects.exists()
    # Every State's districts go with the page, for the script that filters them in place.
    listed = answer.context["form"].all_districts
    assert listed[str(far_district.state_id)] == [[far_district.pk, "Thiruvananthapuram"]]


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_a_district_of_another_state_is_refused_beside_the_field(
    client, district, far_district, lang
):
    client.cookies["django_language"] = lang
    answer = client.post(reverse("lost_report"), details(far_district, state=district.state_id))
    assert answer.status_code == 200 and not LostReport.objects.exists()
    errors = answer.context["form"].errors
    assert list(errors) == ["district"]
    expected = {"en": "Choose a district of the State you chose.", "hi": "चुने हुए राज्य"}[lang]
    assert expected in errors["district"][0]
    # No State: its own message, and the district's says to choose it first.
    answer = client.post(reverse("lost_report"), details(district, state=""))
    errors = answer.context["form"].errors
    assert set(errors) == {"state", "district"}
    assert {"en": "Choose the State first.", "hi": "पहले राज्य"}[lang] in errors["district"][0]


def test_one_state_is_chosen_for_the_public(client, codes, district):
    """A deployment of one State asks nothing of it: its districts are offered at once."""
    assert district_options(client.get(reverse("lost_report"))) == [district.pk]
    data = details(district)
    del data["state"]  # an older page, or a form sent without the State
    assert client.post(reverse("lost_report"), data).status_code == 200
