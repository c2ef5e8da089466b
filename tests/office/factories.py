"""Builders for the District Magistrate's office tests: fines collected and remitted, a s.14
sale with a surplus, the surplus received into deposit, and what a refused step could touch."""

import itertools
from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.utils import timezone

from accounts.models import Counter, IssuedDocument, ToDo
from auctions import services as auctions
from auctions.models import Shortfall
from impounding.models import CourtOrder, Deposit
from kernel.models import Event
from ledger.models import Account, Posting, Transaction
from office import services as office
from office.models import Remittance, SurplusClaim, SurplusDeposit
from tests.auctions.factories import ready_for_sale, register, schedule
from tests.impounding.factories import make_entry, pay

IST = ZoneInfo("Asia/Kolkata")


def noon(day):
    """12:00 IST on `day`, for time_machine.move_to()."""
    return datetime(day.year, day.month, day.day, 12, tzinfo=IST)


def fines_collected(pound, keeper, mode="cash"):
    """A cow released on payment today: ₹20,000 of fines for the District Magistrate."""
    return pay(make_entry(pound=pound, by=keeper), keeper, mode=mode)


_challans = itertools.count(1)


def remit(pound, by, amount, **kw):
    fields = (
        dict(
            challan_number=f"CH-{next(_challans)}",  # a challan proves one remittance
            treasury="District Treasury",
            remitted_on=timezone.localdate(),
        )
        | kw
    )
    return office.send_remittance(pound=pound, by=by, amount=Decimal(amount), **fields)


def s14_sale(pound, keeper, officer, price="40000.00", mode="cash"):
    """A cow impounded 20 days ago, under a notice whose eighth day has come, sold today.
    Her dues are ₹30,500 (fine ₹20,000, feeding 21 days at ₹500): ₹40,000 leaves ₹9,500."""
    entry, _notice = ready_for_sale(pound=pound, keeper=keeper, officer=officer)
    auction = schedule(pound, officer, [[entry.animals.get()]])
    bidder = register(auction, officer)
    return auctions.sell_lot(
        lot=auction.lots.get(),
        buyer=bidder,
        price=Decimal(price),
        by=officer,
        payment_mode=mode,
        payment_reference="" if mode == "cash" else "UPI-77",
    )


def received_surplus(pound, keeper, officer, clerk, received_on=None, **kw):
    """A s.14 surplus of ₹9,500 sold today and received by the office today (or received_on)."""
    sale = s14_sale(pound, keeper, officer, **kw)
    return office.receive_surplus(
        deposit=sale.surplus_deposit, by=clerk, received_on=received_on or timezone.localdate()
    )


def claim(deposit, by, **kw):
    fields = (
        dict(
            claimant_name="Shyam Lal",
            claimant_address="Samesi",
            capacity="Owner",
            proof="Register entry and ear-tag record",
            filed_on=timezone.localdate(),
        )
        | kw
    )
    return office.file_surplus_claim(deposit=deposit, by=by, **fields)


def balance(district, kind, pound=None):
    account = Account.objects.filter(district=district, kind=kind, pound=pound).first()
    return account.balance() if account else Decimal("0.00")


def written():
    """Every table a refused step of the office could have touched."""
    return (
        Transaction.objects.count(),
        Posting.objects.count(),
        Event.objects.count(),
        IssuedDocument.objects.count(),
        list(Counter.objects.order_by("key").values_list("key", "value")),
        list(Remittance.objects.order_by("pk").values_list("status", "confirmed_by")),
        list(
            SurplusDeposit.objects.order_by("pk").values_list(
                "status", "received_on", "expires_on", "destination", "transfer_memo"
            )
        ),
        list(SurplusClaim.objects.order_by("pk").values_list("status", "decided_by")),
        list(Deposit.objects.order_by("pk").values_list("status", "application_confirmed_by")),
        list(Shortfall.objects.order_by("pk").values_list("status", "decided_by")),
        list(CourtOrder.objects.order_by("pk").values_list("reviewed_by", "reviewed_at")),
        list(ToDo.objects.order_by("pk").values_list("key", "done_at")),
    )
