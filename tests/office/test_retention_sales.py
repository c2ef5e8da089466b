"""The retention rule on the sales' people (docs/retention.md): a bidder's name, address, phone
and document number, and a private buyer's (s.14 proviso), are erased once the period has run;
the auction, the order, their numbers and their money stay. Two runs at once: one works, the
other says so in one line."""

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.scoping import system_actor
from auctions import services
from auctions.models import Bidder, DisposalOrder, DisposalTerms
from kernel.events import verify_chain
from kernel.locks import advisory_lock
from kernel.models import Event
from ledger.checks import run_checks
from office.retention import ERASED, apply_retention
from tests.auctions.factories import conditions, ready_for_sale, register, schedule
from tests.auctions.test_disposal_money import BUYER, propose
from tests.impounding.factories import cow
from tests.impounding.test_concurrency import race


@pytest.fixture
def sold_privately(pound, district, pound_keeper, police_officer, dm_clerk, magistrate, tariffs):
    conditions(district)
    entry, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow()]
    )
    order = propose(pound, dm_clerk, entry, **BUYER)
    services.decide_disposal(order=order, by=magistrate, approve=True)
    return order


def test_a_private_buyer_is_named_apart_from_the_chain(sold_privately):
    event = Event.objects.get(action="disposal.proposed")
    assert "Ram Prakash" not in event.summary
    assert "Ram Prakash" not in str(event.data)
    assert event.personal["recipient"] == "Ram Prakash"
    assert "Ram Prakash" in event.summary_text  # the timeline names him while he is kept


def test_a_private_buyer_is_erased_after_the_period_and_the_money_stays(
    sold_privately, settings, time_machine
):
    settings.RETENTION_PERSONAL_YEARS = 8
    assert apply_retention(by=system_actor())["private_buyers"] == 0
    time_machine.move_to(timezone.now() + timedelta(days=365 * 8 + 3), tick=False)

    assert apply_retention(by=system_actor())["private_buyers"] == 1

    order = DisposalOrder.objects.get(pk=sold_privately.pk)
    terms = DisposalTerms.objects.get(order=order)
    assert order.recipient == ERASED
    assert (terms.address, terms.phone, terms.id_number) == ("", "", "")
    assert terms.price == BUYER["price"] and order.number == sold_privately.number
    assert Event.objects.get(action="disposal.proposed").personal == {}
    assert apply_retention(by=system_actor())["private_buyers"] == 0  # idempotent
    assert run_checks() == []
    assert verify_chain() == []


def test_a_bidder_loses_his_document_number_with_his_name(
    pound, district, pound_keeper, police_officer, tariffs, settings, time_machine
):
    settings.RETENTION_PERSONAL_YEARS = 8
    conditions(district)
    entry, _ = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    auction = schedule(pound, police_officer, [entry.animals.all()])
    bidder = register(auction, police_officer)
    time_machine.move_to(auction.scheduled_for + timedelta(days=365 * 8 + 3), tick=False)

    assert apply_retention(by=system_actor())["bidders"] == 1

    bidder = Bidder.objects.get(pk=bidder.pk)
    assert (bidder.name, bidder.address, bidder.phone, bidder.id_number) == (ERASED, "", "", "")
    assert bidder.number == 1 and bidder.id_kind == "voter"


LOCKED_LINE = "Another retention run is in progress; this one did nothing."


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_retention_run_while_another_holds_the_lock_exits_with_one_line():
    def command():
        out = io.StringIO()
        call_command("apply_retention", stdout=out)
        return out.getvalue().strip()

    with advisory_lock("apply_retention") as held:
        assert held
        results, errors = race(command)

    assert errors == [None]
    assert results == [LOCKED_LINE]
