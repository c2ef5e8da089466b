"""Downloads of the unclaimed-cattle and sale documents as PDFs. Each looks the record up within
the user's jurisdiction (404 outside it), checks that he may see the records there (403), then
asks auctions.documents for the bytes. The documents were registered by the services that made
their records, so nothing here writes to the database or runs in a transaction."""

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404

from accounts.decorators import require_permission
from accounts.models import IssuedDocument
from accounts.roles import Permission
from accounts.scoping import has_permission
from kernel.documents import pdf_response

from .. import documents
from ..models import DisposalOrder, Notice, Report, S16Case, Sale


def _filename(*parts):
    return "-".join(str(p).replace("/", "-") for p in parts) + ".pdf"


def _may_view(request, pound):
    if not has_permission(request.user, Permission.VIEW_RECORDS, pound):
        raise PermissionDenied


@require_permission(Permission.VIEW_RECORDS)
def report_pdf(request, pk):
    """The pound-keeper's report of unclaimed cattle to the officer (s.14)."""
    report = get_object_or_404(
        Report.objects.for_user(request.user).select_related("pound", "document"), pk=pk
    )
    _may_view(request, report.pound)
    pdf = IssuedDocument.objects.kept_pdf(report.document, lambda: documents.report_pdf(report))
    return pdf_response(pdf, _filename("report", report.number))


@require_permission(Permission.VIEW_RECORDS)
def notice_pdf(request, pk):
    """The officer's notice for the wall of his office (s.14)."""
    notice = get_object_or_404(
        Notice.objects.for_user(request.user).select_related("pound", "document"), pk=pk
    )
    _may_view(request, notice.pound)
    pdf = IssuedDocument.objects.kept_pdf(
        notice.document,
        lambda: documents.notice_pdf(notice),
        basis=documents.notice_basis(notice),
    )
    return pdf_response(pdf, _filename("notice", notice.number))


@require_permission(Permission.VIEW_RECORDS)
def sale_certificate_pdf(request, pk):
    """The certificate of sale to the purchaser of a lot (ss.14, 16, 19)."""
    sale = get_object_or_404(
        Sale.objects.for_user(request.user).select_related("lot__auction__pound", "certificate"),
        pk=pk,
    )
    _may_view(request, sale.lot.auction.pound)
    pdf = IssuedDocument.objects.kept_pdf(
        sale.certificate, lambda: documents.sale_certificate_pdf(sale)
    )
    return pdf_response(pdf, _filename("sale-certificate", sale.certificate.number))


@require_permission(Permission.VIEW_RECORDS)
def s16_account_pdf(request, pk):
    """The account of items (a)-(f) given to the owner with the remaining cattle and the balance
    (s.16). There is none until the case is settled: 404 before then."""
    case = get_object_or_404(
        S16Case.objects.for_user(request.user).select_related("pound", "account_document"),
        pk=pk,
    )
    _may_view(request, case.pound)
    if case.account_document is None:
        raise Http404("The account is made when the case is settled.")
    try:
        pdf = IssuedDocument.objects.kept_pdf(
            case.account_document, lambda: documents.s16_account_pdf(case)
        )
    except documents.NotSettled as exc:
        raise Http404("The account is made when the case is settled.") from exc
    return pdf_response(pdf, _filename("s16-account", case.account_document.number))


@require_permission(Permission.VIEW_RECORDS)
def disposal_order_pdf(request, pk):
    """The District Magistrate's disposal order under the proviso to s.14, with its terms."""
    order = get_object_or_404(
        DisposalOrder.objects.for_user(request.user).select_related("pound"), pk=pk
    )
    _may_view(request, order.pound)
    return pdf_response(
        documents.disposal_order_pdf(order), _filename("disposal-order", order.number)
    )
