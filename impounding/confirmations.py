"""The confirmation panels of the register's money that screens of several apps show after an
action (kernel.confirmations, ADR 0030): kept below the views, so an app's views need not import
another's."""

from django.urls import reverse
from django.utils.translation import gettext as _

from kernel.confirmations import show_panel


def show_deposit_panel(request, deposit, title):
    """The confirmation panel after a deposit is applied or refunded (s.15, s.22): the deposit
    receipt's number is the reference, and the receipt is the paper it concerns."""
    receipt = deposit.release.receipt
    show_panel(
        request,
        title=title % {"receipt": receipt.number},
        reference=receipt.number,
        document_url=reverse("impounding:receipt_pdf", args=[receipt.pk]),
        document_label=_("Print the deposit receipt (PDF)"),
    )
