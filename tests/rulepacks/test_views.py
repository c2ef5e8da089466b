"""The rule pack pages: who reads them, whose district, and the diff of two versions."""

import io

import pytest
from django.urls import reverse
from pypdf import PdfReader

from accounts.roles import Role
from kernel.models import Event
from rulepacks import services
from rulepacks.models import RulePack
from tests.accounts.factories import staff
from tests.auctions.test_documents import standing_order, unclaimed  # noqa: F401
from tests.impounding.factories import make_entry
from tests.rulepacks.factories import take


@pytest.mark.parametrize("role", ["magistrate", "administrator", "dm_clerk", "auditor"])
def test_the_pack_in_force_is_read_by_those_who_read_reports(client, role_users, district, role):
    client.force_login(role_users[role])

    index = client.get(reverse("rulepacks:index"))
    page = client.get(reverse("rulepacks:district", args=[district.pk]))

    assert index.status_code == page.status_code == 200
    assert "Cattle-Trespass Act, 1871" in page.content.decode()
    assert "needs the State" not in page.content.decode()


@pytest.mark.parametrize("role", ["pound_keeper", "police_officer"])
def test_the_pages_are_refused_to_the_pound_and_the_police(client, role_users, district, role):
    client.force_login(role_users[role])

    assert client.get(reverse("rulepacks:index")).status_code == 403
    assert client.get(reverse("rulepacks:district", args=[district.pk])).status_code == 403


def test_another_districts_pack_is_a_404(client, magistrate, other_district):
    client.force_login(magistrate)

    assert client.get(reverse("rulepacks:district", args=[other_district.pk])).status_code == 404


def test_anonymous_is_sent_to_sign_in(client, district):
    response = client.get(reverse("rulepacks:district", args=[district.pk]))

    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_a_draft_pack_says_it_is_unverified_and_what_the_state_must_fill(
    client, magistrate, district
):
    take(district, "up")
    client.force_login(magistrate)

    html = client.get(reverse("rulepacks:district", args=[district.pk])).content.decode()

    assert "Unverified: needs the State's notification." in html
    assert "Left for the State to fill" in html
    assert "Uttar Pradesh Prevention of Cow Slaughter Act, 1955" in html


def test_the_pack_page_is_in_hindi(client, magistrate, district):
    client.force_login(magistrate)
    client.cookies["django_language"] = "hi"

    html = client.get(reverse("rulepacks:district", args=[district.pk])).content.decode()

    assert "पशु अतिचार अधिनियम, 1871" in html


def test_the_diff_shows_only_the_rules_that_differ(client, auditor):
    services.load_shipped()
    central, up = RulePack.objects.get(code="central"), RulePack.objects.get(code="up")
    client.force_login(auditor)

    response = client.get(reverse("rulepacks:diff"), {"old": central.pk, "new": up.pk})

    changes = dict((path, (a, b)) for path, a, b in response.context["changes"])
    assert changes["status"] == ("verified", "unverified")
    assert changes["disposal[cattle].routes"] == (None, "gaushala, other_lawful")
    assert "clocks.claim_days" not in changes


def test_the_diff_of_an_unknown_version_is_a_404(client, auditor):
    client.force_login(auditor)

    assert client.get(reverse("rulepacks:diff"), {"old": "x", "new": "1"}).status_code == 404


# --- The administrator's choice of a district's pack -----------------------------------------


def _choose(client, district, pack, key, *, confirm=True):
    data = {"pack": pack.pk, "idempotency_key": key}
    if confirm:
        data["confirm"] = "1"
    return client.post(reverse("rulepacks:choose", args=[district.pk]), data)


def test_the_administrator_checks_the_choice_then_makes_it_once(client, administrator, district):
    services.load_shipped("central")
    district.state.code = "up"
    district.state.save()
    services.load_shipped("up")
    up = RulePack.objects.latest_of("up")
    client.force_login(administrator)
    url = reverse("rulepacks:choose", args=[district.pk])

    form = client.get(url).content.decode()
    check = _choose(client, district, up, "5f0c7f3e-1f7e-4d8e-9b4e-2c3d4e5f6a7b", confirm=False)
    first = _choose(client, district, up, "5f0c7f3e-1f7e-4d8e-9b4e-2c3d4e5f6a7b")
    again = _choose(client, district, up, "5f0c7f3e-1f7e-4d8e-9b4e-2c3d4e5f6a7b")

    assert "Uttar Pradesh (draft)" in form and "unverified" in form
    # Checked before it is made: nothing changes until confirmed, and the rules that differ show.
    assert check.status_code == 200 and "Rules that differ" in check.content.decode()
    assert "disposal" in check.content.decode()
    assert first.status_code == again.status_code == 302
    assert services.pack_for(district).code == "up"
    chosen = Event.objects.filter(action="rulepack.chosen", district_id=district.pk)
    assert chosen.count() == 1
    assert chosen.get().by_id == administrator.pk


def test_a_pack_of_another_state_cannot_be_chosen(client, administrator, district):
    services.load_shipped("mh")
    mh = RulePack.objects.latest_of("mh")
    client.force_login(administrator)

    response = _choose(client, district, mh, "6f0c7f3e-1f7e-4d8e-9b4e-2c3d4e5f6a7b")

    assert response.status_code == 200
    assert "Choose one of the packs listed." in response.content.decode()
    assert services.pack_for(district).code == "central"


@pytest.mark.parametrize("role", ["magistrate", "dm_clerk", "auditor", "pound_keeper"])
def test_only_the_administrator_chooses(client, role_users, district, role):
    client.force_login(role_users[role])

    assert client.get(reverse("rulepacks:choose", args=[district.pk])).status_code == 403


def test_another_districts_choice_is_a_404(client, district, other_district):
    """An administrator of one district (not the whole system's) does not see another's."""
    client.force_login(staff(Role.ADMINISTRATOR, "district_admin", district=district))

    assert client.get(reverse("rulepacks:choose", args=[district.pk])).status_code == 200

    assert client.get(reverse("rulepacks:choose", args=[other_district.pk])).status_code == 404


def test_an_entry_under_a_draft_pack_says_so_on_its_page_and_its_documents(
    client, pound_keeper, district, pound
):
    """Every screen and document that applies a draft pack says that it awaits the State's
    notification; under the central Act, nothing is said."""
    central_entry = make_entry(pound=pound, by=pound_keeper)
    take(district, "up")
    draft_entry = make_entry(pound=pound, by=pound_keeper)
    assert draft_entry.rule_pack.code == "up"
    client.force_login(pound_keeper)

    def says(entry):
        page = client.get(reverse("impounding:entry", args=[entry.pk])).content.decode()
        pdf = client.get(reverse("impounding:entry_copy_pdf", args=[entry.pk]))
        text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.content)).pages)
        return "needs the State" in page, "needs the State" in text

    assert says(draft_entry) == (True, True)
    assert says(central_entry) == (False, False)


def test_the_s14_notice_of_a_district_under_a_draft_pack_says_so(district, request):
    """The notice on the police station's wall applies the draft's clocks: it says that the pack
    awaits the State's notification."""
    from auctions import documents as auction_documents

    take(district, "up")
    _entry, _report, notice = request.getfixturevalue("unclaimed")

    assert "needs the State" in readpdf_text(auction_documents.notice_pdf(notice))


def readpdf_text(pdf):
    return "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)


def test_an_older_choice_sent_again_does_not_bring_its_pack_back(client, administrator, district):
    services.load_shipped("central")
    district.state.code = "up"
    district.state.save()
    services.load_shipped("up")
    up, central = RulePack.objects.latest_of("up"), RulePack.objects.latest_of("central")
    client.force_login(administrator)
    first, second = "7f0c7f3e-1f7e-4d8e-9b4e-2c3d4e5f6a7b", "8f0c7f3e-1f7e-4d8e-9b4e-2c3d4e5f6a7b"

    _choose(client, district, up, first)
    _choose(client, district, central, second)
    again = _choose(client, district, up, first)

    assert again.status_code == 302
    assert services.pack_for(district).code == "central"
    assert Event.objects.filter(action="rulepack.chosen", district_id=district.pk).count() == 2


def test_change_on_the_check_page_goes_back_to_the_choice(client, administrator, district):
    services.load_shipped("central")
    central = RulePack.objects.latest_of("central")
    client.force_login(administrator)
    data = {"pack": central.pk, "idempotency_key": "9f0c7f3e-1f7e-4d8e-9b4e-2c3d4e5f6a7b"}

    response = client.post(reverse("rulepacks:choose", args=[district.pk]), data | {"change": "1"})

    assert response.status_code == 200
    assert "rulepacks/choose.html" in [t.name for t in response.templates]
