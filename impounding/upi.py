"""The UPI QR code for an entry's exact dues (ADR 0076): on the entry's page and on the dues
statement, A4 or the 80 mm roll. Reads the dues already computed; computes nothing again.

The reference (`tr`) is printed beside the QR code, so that the payment, when the bank statement
or a gateway reports it, is matched to the entry and the moment of the dues; the note (`tn`)
names the pound and the entry; `url` is the page that verifies the entry's s.8 copy, when one
has been issued. Without a collection VPA, for the pound or its district, there is no QR code."""

import re
from dataclasses import dataclass

from django.utils import timezone

from accounts.models import IssuedDocument
from accounts.upi import collection_payee
from kernel.documents import public_url, qr_svg
from kernel.upi import REFERENCE_MAX, UpiPayee, pay_link


@dataclass(frozen=True)
class DuesQr:
    link: str
    reference: str
    payee: UpiPayee
    svg: str


def dues_reference(entry, as_of):
    """The entry's register number, letters and digits only, and the IST day of the dues
    (which change each day): `LKO2026000123-051226`."""
    number = re.sub(r"[^A-Za-z0-9]", "", entry.register_number).upper()
    stamp = timezone.localtime(as_of).strftime("%d%m%y")
    return f"{number[: REFERENCE_MAX - len(stamp) - 1]}-{stamp}"


def entry_verify_url(entry):
    """The public page that verifies the entry's s.8 copy, or "" before one is issued."""
    document = IssuedDocument.objects.filter(
        kind=IssuedDocument.Kind.REGISTER_COPY,
        subject_type="impounding.impoundment",
        subject_id=entry.pk,
    ).first()
    return public_url(document.get_absolute_url()) if document else ""


def dues_qr(entry, statement):
    """The QR code paying `statement` (impounding.dues) for `entry`, or None when nothing is
    owed or no VPA is set for the pound or its district."""
    payee = collection_payee(entry.pound)
    if payee is None or statement is None or statement.total <= 0:
        return None
    reference = dues_reference(entry, statement.as_of)
    link = pay_link(
        payee=payee,
        amount=statement.total,
        reference=reference,
        note=f"{entry.pound.name} {entry.register_number}",
        url=entry_verify_url(entry),
    )
    return DuesQr(link=link, reference=reference, payee=payee, svg=qr_svg(link))
