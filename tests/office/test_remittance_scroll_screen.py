"""The web remittance-confirm screen takes the challan's CIN and treasury scroll, all three or
none, as the API does (docs/decisions/0076, 0083)."""

import pytest
from django.urls import reverse
from django.utils import timezone

from office.models import Remittance, TreasuryChallan
from tests.office.test_views_money import fined, remittance  # noqa: F401 - fixtures


def _post(client, sent, **scroll):
    url = reverse("office:remittance_confirm", kwargs={"pk": sent.pk})
    return client.post(url, {"checked": "on", **scroll})


def test_the_screen_confirms_the_grn_with_cin_and_scroll(client, dm_clerk, remittance):  # noqa: F811
    client.force_login(dm_clerk)
    today = timezone.localdate()
    response = _post(
        client, remittance, cin="CIN0001234", scroll_number="SC-17", scroll_date=today.isoformat()
    )
    assert response.status_code == 302
    challan = TreasuryChallan.objects.get(remittance=remittance)
    assert (challan.cin, challan.scroll_number, challan.scroll_date) == (
        "CIN0001234",
        "SC-17",
        today,
    )
    assert challan.confirmed_by == dm_clerk


@pytest.mark.parametrize("given", [{"cin": "CIN1"}, {"cin": "CIN1", "scroll_number": "S1"}])
def test_part_of_the_scroll_is_refused_beside_the_fields(client, dm_clerk, remittance, given):  # noqa: F811
    client.force_login(dm_clerk)
    response = _post(client, remittance, **given)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "scroll_date" in errors
    assert "together, or none" in response.content.decode()
    remittance.refresh_from_db()
    assert remittance.status == Remittance.Status.SENT


def test_none_of_the_scroll_confirms_as_before(client, dm_clerk, remittance):  # noqa: F811
    client.force_login(dm_clerk)
    assert _post(client, remittance).status_code == 302
    remittance.refresh_from_db()
    assert remittance.status == Remittance.Status.CONFIRMED
    assert not TreasuryChallan.objects.filter(remittance=remittance, cin__gt="").exists()
