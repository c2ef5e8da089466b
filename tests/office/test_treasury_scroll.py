"""The treasury scroll, imported and matched to the office's challans (docs/decisions/0082):
CIN and scroll filled where missing, and the lines that disagree flagged."""

from pathlib import Path

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from office import scroll
from office.models import ScrollLine, TreasuryChallan
from tests.office.factories import fines_collected, remit

SCROLL = Path(__file__).parents[1] / "payments" / "statements" / "scroll-2026-12.csv"


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def challans(pound, pound_keeper, tariffs):
    """GRN …0001 awaits its CIN; …0002 was for ₹5,000, not the scroll's ₹4,000; …0003 already
    names another CIN (entered by hand from another scroll)."""
    fines_collected(pound, pound_keeper)
    remit(pound, pound_keeper, "5000.00", challan_number="GRN20260001")
    remit(pound, pound_keeper, "5000.00", challan_number="GRN 2026 0002")
    third = remit(pound, pound_keeper, "3000.00", challan_number="grn20260003")
    TreasuryChallan.objects.filter(remittance=third).update(cin="0002390260511200012")
    return TreasuryChallan.objects.order_by("pk")


def test_the_scroll_fills_in_the_cin_and_flags_what_disagrees(district, dm_clerk, challans):
    new = scroll.import_scroll(district=district, by=dm_clerk, data=SCROLL.read_bytes())
    assert [(line.grn, line.outcome) for line in new] == [
        ("GRN20260001", "filled"),
        ("GRN20260002", "amount"),
        ("GRN20269999", "unknown"),
        ("GRN20260003", "defaced"),
    ]
    first = challans[0]
    assert (first.cin, first.scroll_number, str(first.scroll_date)) == (
        "0002390260511200012",
        "SC-77",
        "2026-12-04",
    )
    assert first.confirmed_by is None  # filling in is not the confirmation
    assert challans[1].cin == "" and challans[2].cin == "0002390260511200012"
    assert Event.objects.filter(action="treasury.scroll_imported").count() == 1


def test_the_same_scroll_twice_stores_each_line_once(district, dm_clerk, challans):
    scroll.import_scroll(district=district, by=dm_clerk, data=SCROLL.read_bytes())
    again = scroll.import_scroll(district=district, by=dm_clerk, data=SCROLL.read_bytes())
    assert again == [] and ScrollLine.objects.count() == 4


def test_a_bad_line_refuses_the_whole_scroll(district, dm_clerk, challans):
    bad = b"grn,cin,amount,scroll_number,scroll_date\nGRN20260001,C,5000.00,SC-1,31-02-2026\n"
    with pytest.raises(ValidationError, match="Line 1"):
        scroll.import_scroll(district=district, by=dm_clerk, data=bad)
    tomorrow = b"grn,cin,amount,scroll_number,scroll_date\nGRN20260001,C,5000.00,SC-1,01-01-2999\n"
    with pytest.raises(ValidationError, match="future"):
        scroll.import_scroll(district=district, by=dm_clerk, data=tomorrow)
    with pytest.raises(ValidationError, match="scroll_date"):
        scroll.import_scroll(district=district, by=dm_clerk, data=b"grn,cin,amount\n")
    assert ScrollLine.objects.count() == 0


def test_only_the_office_imports_the_scroll(district, pound_keeper):
    with pytest.raises(PermissionDenied):
        scroll.import_scroll(district=district, by=pound_keeper, data=SCROLL.read_bytes())


def test_another_district_s_scroll_finds_none_of_ours(other_district, challans):
    from tests.accounts.factories import staff

    clerk = staff("dm_clerk", "other-clerk", district=other_district)
    new = scroll.import_scroll(district=other_district, by=clerk, data=SCROLL.read_bytes())
    assert {line.outcome for line in new} == {"unknown"}
    assert TreasuryChallan.objects.exclude(cin="").count() == 1


def test_the_scroll_page_imports_and_lists_the_flagged_lines(client, district, dm_clerk, challans):
    client.force_login(dm_clerk)
    url = reverse("office:treasury_scroll")
    with SCROLL.open("rb") as f:
        assert client.post(url, {"district": district.pk, "file": f}).status_code == 302
    page = client.get(url).content.decode()
    assert "GRN20269999" in page and "GRN20260002" in page and "GRN20260001" not in page
