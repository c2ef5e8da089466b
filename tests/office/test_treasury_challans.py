"""Treasury transfers proved by their challan (ADR 0076): the GRN, the bank's CIN and the
treasury scroll's number and date; a GRN defaced once settles no second transfer, of either
kind; whoever records a GRN does not confirm it."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from office import services as office
from office import treasury
from office.models import Remittance, TreasuryChallan
from tests.auctions.factories import conditions
from tests.office.factories import fines_collected, received_surplus, remit, written

TODAY = timezone.localdate


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def sent(pound, pound_keeper, tariffs):
    fines_collected(pound, pound_keeper)
    return remit(pound, pound_keeper, "5000.00", challan_number="GRN 2026 0001")


@pytest.fixture
def transferred(district, pound, pound_keeper, police_officer, dm_clerk, tariffs):
    conditions(district, by=dm_clerk)
    held = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    return office.transfer_expired_surplus(deposit=held, today=held.expires_on + timedelta(days=1))


def scroll(**kw):
    return {"cin": "0002390260511200012", "scroll_number": "SC-77", "scroll_date": TODAY()} | kw


def test_a_remittance_sent_defaces_its_grn(sent, pound_keeper):
    challan = TreasuryChallan.objects.get(remittance=sent)
    assert (challan.grn, challan.recorded_by, challan.confirmed_by) == (
        "GRN 2026 0001",
        pound_keeper,
        None,
    )


def test_confirming_a_remittance_records_the_cin_and_the_scroll(sent, dm_clerk):
    office.confirm_remittance(
        remittance=sent, by=dm_clerk, challan_number="grn20260001", **scroll()
    )
    challan = TreasuryChallan.objects.get(remittance=sent)
    assert (challan.cin, challan.scroll_number, challan.scroll_date) == (
        "0002390260511200012",
        "SC-77",
        TODAY(),
    )
    assert challan.confirmed_by == dm_clerk and challan.confirmed_at is not None


def test_a_confirmation_with_half_the_scroll_is_refused_whole(sent, dm_clerk):
    with pytest.raises(ValidationError) as refused:
        office.confirm_remittance(remittance=sent, by=dm_clerk, cin="0002390260511200012")
    assert set(refused.value.message_dict) == {"scroll_number", "scroll_date"}
    sent.refresh_from_db()
    assert sent.status == Remittance.Status.SENT


def test_a_surplus_transfer_records_its_challan_and_another_person_confirms_it(
    transferred, dm_clerk, magistrate
):
    challan = treasury.record_surplus_transfer(
        deposit=transferred, by=dm_clerk, grn="GRN-S-1", **scroll()
    )
    assert Event.objects.filter(action="treasury.grn_recorded").count() == 1
    with pytest.raises(PermissionDenied, match="another person confirms it"):
        treasury.confirm_treasury_challan(challan=challan, by=dm_clerk)
    done = treasury.confirm_treasury_challan(challan=challan, by=magistrate)
    assert done.confirmed_by == magistrate
    with pytest.raises(ValidationError, match="already confirmed"):
        treasury.confirm_treasury_challan(challan=challan, by=magistrate)


def test_the_database_refuses_the_recorder_as_confirmer(sent, pound_keeper):
    challan = TreasuryChallan.objects.get(remittance=sent)
    challan.cin, challan.scroll_number, challan.scroll_date = "C", "S", TODAY()
    challan.confirmed_by, challan.confirmed_at = pound_keeper, timezone.now()
    with pytest.raises(IntegrityError), transaction.atomic():
        challan.save()


@pytest.mark.parametrize("given", ["GRN 2026 0001", "grn20260001", " GRN2026 0001 "])
def test_a_remittance_s_grn_settles_no_surplus_transfer(sent, transferred, dm_clerk, given):
    before = written()
    with pytest.raises(ValidationError, match="already defaced"):
        treasury.record_surplus_transfer(deposit=transferred, by=dm_clerk, grn=given, **scroll())
    assert written() == before


def test_a_surplus_grn_settles_no_remittance(transferred, pound, pound_keeper, dm_clerk):
    treasury.record_surplus_transfer(deposit=transferred, by=dm_clerk, grn="GRN-S-2", **scroll())
    fines_collected(pound, pound_keeper)
    with pytest.raises(ValidationError) as refused:
        remit(pound, pound_keeper, "100.00", challan_number="grn-s-2")
    assert "challan_number" in refused.value.message_dict
    assert not Remittance.objects.exists()


def test_a_surplus_kept_for_the_local_fund_or_not_yet_transferred_has_no_state_challan(
    district, pound, pound_keeper, police_officer, dm_clerk, tariffs
):
    conditions(district, by=dm_clerk)
    held = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    with pytest.raises(ValidationError, match="State's revenues"):
        treasury.record_surplus_transfer(deposit=held, by=dm_clerk, grn="GRN-X", **scroll())


def test_only_the_office_records_a_surplus_challan(transferred, pound_keeper):
    with pytest.raises(PermissionDenied):
        treasury.record_surplus_transfer(
            deposit=transferred, by=pound_keeper, grn="GRN-Y", **scroll()
        )


def test_a_scroll_dated_tomorrow_is_refused(transferred, dm_clerk, magistrate):
    challan = treasury.record_surplus_transfer(
        deposit=transferred, by=dm_clerk, grn="GRN-Z", **scroll()
    )
    with pytest.raises(ValidationError) as refused:
        treasury.confirm_treasury_challan(
            challan=challan, by=magistrate, scroll_date=TODAY() + timedelta(days=1)
        )
    assert "scroll_date" in refused.value.message_dict
    challan.refresh_from_db()
    assert challan.confirmed_by is None
