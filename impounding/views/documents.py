"""Downloads of the register's documents as PDFs. Each looks the record up within the user's
jurisdiction (404 outside it), then asks impounding.documents for the bytes. No view here runs
in a transaction: a document that must be registered is registered in its own short one, and
the PDF is drawn after it has committed."""

from datetime import date

from django.contrib import messages
from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _

from accounts.decorators import require_permission
from accounts.models import IssuedDocument, SlipPaper
from accounts.roles import Permission
from kernel import clock
from kernel.documents import pdf_response

from .. import documents
from ..models import Receipt
from ..tariffs import TariffMissing
from .common import get_entry, get_pound


def _paper(request):
    """?paper=a4 or ?paper=roll80 chooses the paper of a slip; otherwise the pound's choice."""
    paper = request.GET.get("paper")
    return paper if paper in SlipPaper.values else None


def _filename(*parts):
    return "-".join(str(p).replace("/", "-") for p in parts) + ".pdf"


@require_permission(Permission.VIEW_RECORDS)
def entry_copy_pdf(request, pk):
    """The s.8 copy of a register entry for the seizer."""
    entry = get_entry(request, pk, Permission.VIEW_RECORDS)
    pdf = documents.register_copy(entry, by=request.user, paper=_paper(request))
    return pdf_response(pdf, _filename("register-copy", entry.register_number))


@require_permission(Permission.VIEW_RECORDS)
def statement_pdf(request, pk):
    """The dues statement of an entry: its animals in the pound, or those named by ?animal=."""
    entry = get_entry(request, pk, Permission.VIEW_RECORDS)
    animals = entry.animals.in_custody()
    chosen = request.GET.getlist("animal")
    if chosen:
        if not all(c.isdigit() for c in chosen):
            return HttpResponseBadRequest()
        animals = animals.filter(pk__in=chosen)
    try:
        pdf = documents.dues_statement(entry, animals=list(animals), paper=_paper(request))
    except TariffMissing as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect(entry)
    return pdf_response(pdf, _filename("dues", entry.register_number))


@require_permission(Permission.VIEW_RECORDS)
def receipt_pdf(request, pk):
    """A receipt (s.13) or deposit receipt (s.15) of a pound the user can see."""
    receipt = get_object_or_404(
        Receipt.objects.for_user(request.user).select_related("document"),
        pk=pk,
    )
    get_pound(request, receipt.pound_id, Permission.VIEW_RECORDS)  # 403 without the permission
    paper = _paper(request) or receipt.pound.slip_paper
    # The receipt as issued, whose fingerprint /verify/ shows, is the A4 one, kept from its first
    # download; its slip on the 80 mm roll is kept beside it the same way. A cancelled receipt
    # is drawn afresh each time, saying so across the page.
    pdf = IssuedDocument.objects.kept_pdf(
        receipt.document,
        lambda: documents.receipt_pdf(receipt, paper=paper),
        as_issued=receipt.cancelled_at is None,
        slip=paper != SlipPaper.A4,
    )
    return pdf_response(pdf, _filename("receipt", receipt.number))


@require_permission(Permission.VIEW_RECORDS)
def schedule_pdf(request, pk):
    """The wall schedule of fines and feeding rates in force at a pound, today or on ?on=."""
    pound = get_pound(request, pk, Permission.VIEW_RECORDS)
    on = clock.today(pound)
    if request.GET.get("on"):
        try:
            on = date.fromisoformat(request.GET["on"])
        except ValueError:
            return HttpResponseBadRequest(_("Give the date as YYYY-MM-DD."))
    try:
        pdf = documents.tariff_schedule(pound, on, by=request.user)
    except TariffMissing as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("impounding:tariffs")
    return pdf_response(pdf, _filename("schedule", pound.code, f"{on:%Y%m%d}"))
