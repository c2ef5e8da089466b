"""A UPI payment made straight from the QR code of the demand slip (docs/decisions/0082): no
gateway order was made, so no Payment exists until the bank statement shows the credit. Its
narration carries the reference printed beside the QR (`tr`: the entry's register number,
letters and digits only, and the IST day of the dues, impounding.upi.dues_reference). When the
credit equals the entry's dues of that day, the import records the payment of those dues for the
entry, as a gateway's would have been, and the line settles it: succeeded, then reconciled when
the release takes it. Anything else stays in the review queue with its reason."""

import re
from datetime import datetime, time
from zoneinfo import ZoneInfo

from django.db import IntegrityError, transaction
from django.utils.translation import gettext_noop

from accounts.models import Pound
from impounding.dues import dues
from impounding.models import Animal, Impoundment
from impounding.upi import dues_reference
from kernel import clock

from .models import Payment, PaymentEvent, PaymentState

GATEWAY = "upi_qr"  # no gateway: the payer's bank app, read from the QR code
IST = ZoneInfo("Asia/Kolkata")
UNNAMED = gettext_noop("No payment names this line's reference.")


def _alnum(text):
    return re.sub(r"[^A-Z0-9]", "", text.upper())


def referenced_entry(line):
    """(entry, the reference, the day of its dues) that the line's narration names, or None.
    The narration is read without spaces, as a bank may break it across its lines; what
    follows the reference's six digits of the day may be glued to it."""
    text = "|".join("".join(part.upper().split()) for part in (line.narration, line.bank_reference))
    for pound in Pound.objects.filter(district_id=line.district_id).only("pk", "code"):
        code = _alnum(pound.code)
        pattern = rf"{re.escape(code)}(\d{{4}})(\d{{5,}})-(\d{{6}})"
        for year, serial, stamp in re.findall(pattern, text):
            try:
                day = datetime.strptime(stamp, "%d%m%y").date()  # noqa: DTZ007 (a day)
            except ValueError:
                continue
            number = f"{pound.code.upper()}/{year}/{int(serial):05d}"
            entry = Impoundment.objects.filter(pound=pound, register_number=number).first()
            if entry is not None:
                return entry, f"{code}{year}{serial}-{stamp}", day
    return None


def _dues_of(animals, day, entry):
    """The dues as the slip showed them on `day`: at its end in IST, or now if that is sooner,
    on the entry's pound's clock (ADR 0080: a training slip is stamped with its clock's day)."""
    end = datetime.combine(day, time(23, 59, 59), tzinfo=IST)
    return dues(animals, as_of=min(end, clock.now(entry)))


def record_from_line(line, *, by):
    """The payment of the entry whose UPI reference the line names, recorded and settled by
    the line (the caller's _settle), or a reason (gettext_noop) it waits for a person."""
    found = referenced_entry(line)
    if found is None:
        return None, UNNAMED
    entry, reference, day = found
    entry = Impoundment.objects.select_for_update(of=("self",)).get(pk=entry.pk)
    if reference != dues_reference(entry, datetime.combine(day, time(12), tzinfo=IST)):
        return None, UNNAMED
    if Payment.objects.filter(reference=reference).exists():
        return None, gettext_noop("A payment with this UPI reference is already recorded.")
    if Payment.objects.filter(impoundment=entry).open().exists():
        return None, gettext_noop("A payment of these dues is already in progress.")
    animals = list(Animal.objects.claimable_in(entry))
    if not animals or _dues_of(animals, day, entry).total != line.amount:
        return None, gettext_noop(
            "The line names an entry's UPI reference, for another amount than its dues."
        )
    payment = Payment(
        impoundment=entry,
        animal_ids=[a.pk for a in animals],
        amount=line.amount,
        gateway=GATEWAY,
        reference=reference,
        gateway_reference=line.utr,
        created_by=by,
        state=PaymentState.PENDING,
    )
    try:
        with transaction.atomic():
            payment.save()
    except IntegrityError:
        return None, gettext_noop("A payment of these dues is already in progress.")
    PaymentEvent.objects.create(
        payment=payment,
        new_state=PaymentState.PENDING,
        by=by,
        source="statement",
        data={"line": line.pk, "upi_reference": reference},
    )
    return payment, ""
