from datetime import timedelta
from decimal import Decimal

import time_machine
from django.core.management import call_command
from django.utils import timezone

from auctions import services as auctions
from auctions.models import Auction
from kernel.dates import add_months
from kernel.events import verify_chain
from ledger.checks import run_checks
from office import services as office
from office.models import Remittance, SurplusDeposit
from tests.auctions.factories import conditions, report_and_notice, unclaimed_entry
from tests.impounding.factories import make_entry, pay


def test_remit_confirm_surplus_claim_and_transfer(
    pound, pound_keeper, police_officer, dm_clerk, magistrate, district, tariffs, capsys
):
    pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    due = office.unremitted_fines(pound)
    assert due == Decimal("20000.00")
    remittance = office.send_remittance(
        pound=pound,
        by=pound_keeper,
        amount=due,
        challan_number="CH-1",
        treasury="Lucknow treasury",
        remitted_on=timezone.localdate(),
    )
    office.confirm_remittance(remittance=remittance, by=dm_clerk)
    assert Remittance.objects.get().status == "confirmed"
    assert office.unremitted_fines(pound) == 0

    conditions(district)
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    report_and_notice(entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9)
    auction = auctions.schedule_auction(
        pound=pound,
        kind=Auction.Kind.UNCLAIMED,
        by=police_officer,
        scheduled_for=timezone.now(),
        lots=[[entry.animals.get().pk]],
        officer=police_officer,
    )
    bidder = auctions.register_bidder(
        auction=auction,
        by=police_officer,
        name="Mohd. Salim",
        address="x",
        id_kind="voter",
        id_number="UPV1",
        phone="9999911111",
        declaration_signed=True,
    )
    sale = auctions.sell_lot(
        lot=auction.lots.get(), buyer=bidder, price=Decimal("50000.00"), by=police_officer
    )
    deposit = SurplusDeposit.objects.get()
    assert deposit.amount == sale.surplus
    today = timezone.localdate()
    office.receive_surplus(deposit=deposit, by=dm_clerk, received_on=today)
    deposit.refresh_from_db()
    assert deposit.expires_on == add_months(today, 3)
    claim = office.file_surplus_claim(
        deposit=deposit,
        by=dm_clerk,
        claimant_name="Shyam Lal",
        claimant_address="Samesi",
        capacity="Owner",
        proof="Ear-tag record",
        filed_on=today,
    )
    office.decide_surplus_claim(
        claim=claim, by=magistrate, allow=False, decision="Tag record does not match"
    )
    call_command("run_deadlines")
    assert SurplusDeposit.objects.get().status == "held"
    later = deposit.expires_on + timedelta(days=1)
    # --date may not run ahead of the calendar: travel to the day instead.
    with time_machine.travel(
        timezone.localtime().replace(year=later.year, month=later.month, day=later.day)
    ):
        call_command("run_deadlines", date=later)
        call_command("run_deadlines")
    assert SurplusDeposit.objects.get().status == "transferred"
    assert "surplus transferred 0" in capsys.readouterr().out.strip().splitlines()[-1]
    assert run_checks() == []
    assert verify_chain() == []
