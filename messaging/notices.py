"""The messages to an owner, queued where the Act's steps are recorded (ADR 0077).

The kernel tells `listener` of each event as it is written (settings.EVENT_LISTENERS), in a
savepoint of its own: a fault here is logged and the intake, release or sale goes on. Each
message goes to every phone recorded for the entry (`record_contact`), in its holder's language,
once: its key is the event, the entry, the step's own number and the phone. Each names the pound,
the amount due, and how to pay or claim; those naming the dues carry the owner's pay page's
short link (docs/decisions/0085).

- intake: when the owner's phone is recorded on the entry (at intake, or later);
- s14_report: the s.14 report of unclaimed cattle sent to the police;
- notice_posted: the s.14 notice posted, with the earliest day and the place of sale;
- auction_tomorrow: the day before an auction of the entry's cattle (`remind_auctions`, daily);
- released: a release on payment, with the receipt's number and its /verify/ link;
- deposit: a release on deposit (s.15), with its receipt;
- surplus: the surplus of a sale received in deposit, which the owner may claim (s.17).
"""

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from auctions.actions import Action as SalesAction
from auctions.models import Auction, AuctionConditions, Notice
from impounding.actions import Action as ImpoundingAction
from impounding.dues import dues
from impounding.models import Animal, AnimalState, Impoundment, Receipt
from kernel.documents import public_url
from kernel.formatting import indate, indatetime, lakh
from office.actions import Action as OfficeAction
from office.models import SurplusDeposit
from payments.owner import short_link

from . import services
from .models import Contact, Event


def _pound_name(pound, language):
    return (pound.name_hi or pound.name) if language != "en" else pound.name


def _owed(entry):
    """The dues now and the owner's pay page (docs/decisions/0085), for the messages that name
    what is owed."""
    return {"amount": _due(entry), "paylink": short_link(entry)}


def _due(entry):
    animals = (
        Animal.objects.filter(impoundment=entry, state=AnimalState.IMPOUNDED)
        .select_related("impoundment__pound__district")
        .prefetch_related("custody_events")
    )
    try:
        return lakh(dues(animals).total)
    except Exception:  # a missing tariff must not stop the message: the pound tells the amount
        return "-"


def _send(entry, event, step, variables, contacts):
    """Queue `event` about `entry` to each of its phones, in the phone's language."""
    for contact in contacts:
        language = contact.language
        services.queue(
            event=event,
            recipient=contact.phone.number,
            language=language,
            variables={"pound": _pound_name(entry.pound, language), "entry": entry.register_number}
            | variables,
            key=f"{event}:{entry.pk}:{step}:{contact.phone.number}",
            impoundment=entry,
        )


def _contacts(entry):
    return list(Contact.objects.filter(impoundment=entry).select_related("phone"))


def record_contact(*, impoundment, number, by, language="hi"):
    """The owner's phone on the entry: the intake message goes to it at once (in daytime)."""
    contact, made = Contact.objects.get_or_create(
        impoundment=impoundment,
        phone=services.phone(number),
        defaults={"language": language, "recorded_by": by},
    )
    if made:
        intake(impoundment, contacts=[contact])
    return contact


def intake(entry, contacts):
    variables = _owed(entry) | {"phone": entry.pound.phone or "-"}
    _send(entry, Event.INTAKE, "0", variables, contacts)


def s14_report(entry, event, contacts):
    variables = _owed(entry)
    _send(entry, Event.S14_REPORT, event.data.get("report", ""), variables, contacts)


def notice_posted(entry, event, contacts):
    notice = Notice.objects.filter(number=event.data.get("notice")).first()
    if notice is None:
        return
    conditions = (
        AuctionConditions.objects.filter(district=entry.pound.district)
        .in_force(notice.earliest_sale)
        .first()
    )
    place = conditions.place if conditions else entry.pound.name
    variables = {"date": indate(notice.earliest_sale), "place": place} | _owed(entry)
    _send(entry, Event.NOTICE_POSTED, notice.number, variables, contacts)


def released(entry, event, contacts, kind):
    receipt = Receipt.objects.filter(number=event.data.get("receipt")).first()
    if receipt is None:
        return
    variables = {
        "amount": lakh(receipt.amount),
        "receipt": receipt.number,
        "link": public_url(receipt.document.get_absolute_url()),
    }
    _send(entry, kind, receipt.number, variables, contacts)


def surplus(event):
    deposit = (
        SurplusDeposit.objects.filter(pk=event.data.get("deposit"))
        .select_related("sale__lot")
        .first()
    )
    if deposit is None:
        return
    entries = (
        Impoundment.objects.filter(animals__lots=deposit.sale.lot)
        .select_related("pound")
        .distinct()
    )
    variables = {"amount": lakh(deposit.amount), "date": indate(deposit.expires_on)}
    for entry in entries:
        _send(entry, Event.SURPLUS, str(deposit.pk), variables, _contacts(entry))


def remind_auctions(now=None):
    """The daily job: a message for each entry with cattle in an auction tomorrow."""
    now = timezone.localtime(now or timezone.now())
    tomorrow = now.date() + timedelta(days=1)
    auctions = Auction.objects.filter(
        status=Auction.Status.SCHEDULED, scheduled_for__date=tomorrow
    ).select_related("pound")
    count = 0
    for auction in auctions:
        entries = (
            Impoundment.objects.filter(
                animals__lots__auction=auction, animals__state=AnimalState.IMPOUNDED
            )
            .select_related("pound")
            .distinct()
        )
        for entry in entries:
            variables = {
                "date": indatetime(auction.scheduled_for),
                "place": auction.place,
            } | _owed(entry)
            with transaction.atomic():
                _send(entry, Event.AUCTION_TOMORROW, auction.number, variables, _contacts(entry))
            count += 1
    return count


# The steps of one entry: each called with the entry, the event and the entry's phones.
ENTRY_HOOKS = {
    SalesAction.S14_REPORTED: s14_report,
    SalesAction.S14_NOTICE_POSTED: notice_posted,
    ImpoundingAction.RELEASE_PAID: lambda *a: released(*a, kind=Event.RELEASED),
    ImpoundingAction.RELEASE_DEPOSIT: lambda *a: released(*a, kind=Event.DEPOSIT),
}


class Listener:
    """Hears the events that message an owner; others cost nothing (the kernel asks `hears`)."""

    def hears(self, event):
        return event.action in ENTRY_HOOKS or event.action == OfficeAction.SURPLUS_RECEIVED

    def __call__(self, event):
        if event.action == OfficeAction.SURPLUS_RECEIVED:
            surplus(event)
            return
        if event.impoundment_id is None:
            return
        contacts = list(
            Contact.objects.filter(impoundment_id=event.impoundment_id).select_related(
                "phone", "impoundment__pound"
            )
        )
        if contacts:  # no phone, no message: one query
            ENTRY_HOOKS[event.action](contacts[0].impoundment, event, contacts)


listener = Listener()
