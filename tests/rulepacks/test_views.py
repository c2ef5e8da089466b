"""The rule pack pages: who reads them, whose district, and the diff of two versions."""

import pytest
from django.urls import reverse

from rulepacks import services
from rulepacks.models import RulePack
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
