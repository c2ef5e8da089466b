"""Receipts: the serial numbers, unbroken per pound per financial year, and the corrected
receipt that names the cancelled one it replaces (docs/domain.md decision 11)."""

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Counter, IssuedDocument
from kernel.dates import financial_year

from ..models import Receipt, Release


def check_replaces(replaces, entry):
    """The cancelled receipt a corrected one replaces: of this entry, cancelled, not replaced."""
    receipt = Receipt.objects.select_for_update(of=("self",)).get(pk=replaces.pk)
    if receipt.cancelled_at is None:
        raise ValidationError(_("Only a cancelled receipt is replaced."))
    if not Release.objects.filter(receipt=receipt, impoundment=entry).exists():
        raise ValidationError(_("The receipt replaced is of another register entry."))
    if Receipt.objects.filter(replaces=receipt).exists():
        raise ValidationError(_("That receipt has been replaced already."))
    return receipt


def issue_receipt(
    *,
    pound,
    kind,
    by,
    payer_name,
    amount,
    payment_mode,
    payment_reference,
    at,
    replaces=None,
    animal_count=None,
):
    fy = financial_year(timezone.localtime(at).date())
    serial = Counter.next(f"receipt:{pound.pk}:{fy}")
    number = f"{pound.code.upper()}/{fy}/{serial:06d}"
    document = IssuedDocument.objects.issue(
        kind=IssuedDocument.Kind.RECEIPT
        if kind == Receipt.Kind.PAYMENT
        else IssuedDocument.Kind.DEPOSIT_RECEIPT,
        number=number,
        by=by,
        pound=pound,
        issued_at=at,
        subject_type="impounding.receipt",
        amount=amount,
        animal_count=animal_count,
        replaces=replaces.document if replaces is not None else None,
    )
    receipt = Receipt.objects.create(
        pound=pound,
        financial_year=fy,
        serial=serial,
        number=number,
        kind=kind,
        issued_at=at,
        issued_by=by,
        payer_name=payer_name,
        amount=amount,
        payment_mode=payment_mode,
        payment_reference=payment_reference,
        document=document,
        replaces=replaces,
    )
    IssuedDocument.objects.link(document, receipt)
    return receipt
