"""Receipts (s.13, s.15) and s.15 deposits through the API, scoped as their screens are.

- A receipt is read by whoever reads the register of its pound (VIEW_RECORDS), as its PDF is
  (impounding.views.documents.receipt_pdf), and shows the payer's name, as the receipt does.
- A deposit is read by whoever reads the pound's books (VIEW_LEDGER), as on the deposits screen
  (impounding.views.court.deposits), with the depositor's name, as that screen shows it.

Another district's record, or a role without the permission, is a 404. Lists are keyset pages,
newest first, with a fixed number of queries whatever their length."""

import functools
import re
from datetime import date, datetime

from django import forms
from django.shortcuts import get_object_or_404
from ninja import Field, Query, Router, Schema

from accounts.models import Pound
from accounts.roles import Permission
from accounts.scoping import visible_pound_ids
from accounts.training import day_of
from impounding.models import Deposit, Receipt
from impounding.services import deposit_awaiting_application
from kernel import clock
from kernel.documents import public_url

from .common import (
    MONEY,
    PoundFilters,
    dump,
    filters,
    in_days,
    iso,
    keyset_list,
    money,
    require,
    with_etag,
)
from .schemas import Problem, page_of

router = Router(tags=["custody"])
PAGE_SIZE = 25
RECEIPT_ORDER = ["-issued_at", "-pk"]
DEPOSIT_ORDER = ["-complaint_deadline", "-pk"]
# The cursors: the last row's issue time (as stored, UTC) and id; its last day to complain and id.
RECEIPT_CURSOR = re.compile(
    r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}:\d{2}\|\d{1,18}"
)
DEPOSIT_CURSOR = re.compile(r"\d{4}-\d{2}-\d{2}\|\d{1,18}")


class ReceiptFilters(PoundFilters):
    kind = forms.ChoiceField(choices=Receipt.Kind.choices, required=False)
    date_from = forms.DateField(required=False)
    date_to = forms.DateField(required=False)


class DepositFilters(PoundFilters):
    status = forms.ChoiceField(choices=Deposit.Status.choices, required=False)


# --- Shapes --------------------------------------------------------------------------------


class ReceiptRef(Schema):
    id: int
    number: str


class ReceiptOut(Schema):
    id: int
    number: str
    kind: str = Field(description="payment (s.13) or deposit (s.15)")
    pound: int
    entry: int | None = Field(description="The register entry released against this receipt.")
    issued_at: str
    payer_name: str
    amount: str = Field(description=MONEY)
    fines: str | None = Field(description=MONEY)
    feeding: str | None = Field(description=MONEY)
    payment_mode: str
    payment_reference: str
    cancelled: bool
    cancelled_at: str | None
    cancellation_pending: bool = Field(description="A cancellation asked for awaits the office.")
    replaces: ReceiptRef | None = Field(description="The cancelled receipt this one corrects.")
    replaced_by: ReceiptRef | None = Field(description="The receipt that corrects this one.")
    verification_url: str = Field(description="The page its QR code opens (/verify/...).")


class ReceiptItemOut(Schema):
    animal: int
    animal_number: int
    category: str
    fine: str = Field(description=MONEY)
    feeding_days: int
    feeding: str = Field(description=MONEY)
    total: str = Field(description=MONEY)
    cancelled: bool


class ReceiptDetailOut(ReceiptOut):
    cancelled_reason: str
    items: list[ReceiptItemOut]


ReceiptPage = page_of(ReceiptOut)


class DepositOut(Schema):
    id: int
    receipt: ReceiptRef
    entry: int
    register_number: str
    pound: int
    deposited_by: str
    deposited_at: str
    fines: str = Field(description=MONEY)
    feeding: str = Field(description=MONEY)
    amount: str = Field(description=MONEY)
    complaint_deadline: str = Field(description="The last day to complain (s.20).")
    status: str = Field(description="held, refund_due, refunded or applied")
    awaiting_application: bool = Field(
        description="Held, and its complaint dismissed or none made in time: to be applied."
    )
    application_confirmed_at: str | None
    applied_at: str | None
    refunded_at: str | None
    refund_mode: str | None


DepositPage = page_of(DepositOut)


# --- Receipts ------------------------------------------------------------------------------


def _receipts(user):
    require(user, Permission.VIEW_RECORDS)
    receipts = Receipt.objects.for_user(user, Permission.VIEW_RECORDS)
    return receipts.select_related("release", "replaces", "replaced_by", "document")


def _ref(receipt):
    return {"id": receipt.pk, "number": receipt.number} if receipt is not None else None


def receipt_row(r):
    """A receipt as the API answers it, with the release it paid for, if any."""
    release = getattr(r, "release", None)
    return dump(
        ReceiptOut,
        r,
        entry=release.impoundment_id if release else None,
        amount=money(r.amount),
        fines=money(release.fines) if release else None,
        feeding=money(release.feeding) if release else None,
        cancelled=r.cancelled_at is not None,
        cancellation_pending=any(c.status == "pending" for c in r.cancellations.all()),
        replaces=_ref(r.replaces),
        replaced_by=_ref(getattr(r, "replaced_by", None)),
        verification_url=public_url(r.document.get_absolute_url()),
    )


@router.get(
    "/receipts/",
    response={200: ReceiptPage, 400: Problem, 401: Problem, 404: Problem},
    url_name="receipts",
    summary="Receipts of the pounds whose register you read, latest issued first",
)
def receipts(
    request,
    pound: Query[str | None] = None,
    kind: Query[str | None] = None,
    date_from: Query[str | None] = None,
    date_to: Query[str | None] = None,
    after: Query[str | None] = None,
):
    qs = _receipts(request.auth)
    pounds = Pound.objects.for_user(request.auth, Permission.VIEW_RECORDS)
    params = {"pound": pound, "kind": kind, "date_from": date_from, "date_to": date_to}
    data, error = filters(ReceiptFilters, params, pounds=pounds)
    if error:
        return error
    qs = qs.filter(**{k: data[k] for k in ("pound", "kind") if data.get(k)})
    # IST days, as the screens', as a range of the issue time: its index (receipt_issued) then
    # serves the filter and the order alike; a date taken of every row's time serves neither.
    qs = in_days(qs, "issued_at", data)
    page = (RECEIPT_ORDER, RECEIPT_CURSOR, after, receipt_row, PAGE_SIZE, datetime.fromisoformat)
    return keyset_list(request, qs.prefetch_related("cancellations"), *page)


@router.get(
    "/receipts/{int:pk}/",
    response={200: ReceiptDetailOut, 401: Problem, 404: Problem},
    url_name="receipt",
    summary="One receipt, with what each animal was charged",
)
def receipt(request, pk: int):
    found = get_object_or_404(_receipts(request.auth).prefetch_related("cancellations"), pk=pk)
    release = getattr(found, "release", None)
    lines = release.lines.select_related("animal").order_by("pk") if release else []
    items = [
        dump(
            ReceiptItemOut,
            x,
            animal_number=x.animal.number,
            total=money(x.fine + x.feeding),
        )
        for x in lines
    ]
    body = receipt_row(found) | {"cancelled_reason": found.cancelled_reason, "items": items}
    return with_etag(request, body)


# --- Deposits (s.15) -----------------------------------------------------------------------


def _deposits(user):
    require(user, Permission.VIEW_LEDGER)
    return (
        Deposit.objects.for_user(user, Permission.VIEW_LEDGER)
        .select_related("release__impoundment", "release__receipt")
        # What deposit_awaiting_application reads, fetched for the whole page at once.
        .prefetch_related("complaints", "release__impoundment__complaints")
    )


def _deposit(d, today):
    release = d.release
    entry = release.impoundment
    return dump(
        DepositOut,
        d,
        receipt=_ref(release.receipt),
        entry=entry.pk,
        register_number=entry.register_number,
        pound=entry.pound_id,
        deposited_by=release.claimant_name,
        deposited_at=iso(release.released_at),
        awaiting_application=deposit_awaiting_application(d, today),
        refund_mode=d.refund_mode or None,
    )


@router.get(
    "/deposits/",
    response={200: DepositPage, 400: Problem, 401: Problem, 404: Problem},
    url_name="deposits",
    summary="s.15 deposits of the pounds whose books you read, latest last day to complain first",
)
def deposits(
    request,
    pound: Query[str | None] = None,
    status: Query[str | None] = None,
    after: Query[str | None] = None,
):
    qs = _deposits(request.auth)
    pounds = Pound.objects.for_user(request.auth, Permission.VIEW_LEDGER)
    data, error = filters(DepositFilters, {"pound": pound, "status": status}, pounds=pounds)
    if error:
        return error
    lookups = {"pound": "pound", "status": "status"}
    qs = qs.filter(**{lookups[k]: v for k, v in data.items() if v})
    # The caller's pounds' day (ADR 0080): a training district's clock may run ahead.
    today = day_of(visible_pound_ids(request.auth, Permission.VIEW_LEDGER))
    row = functools.partial(_deposit, today=today)
    return keyset_list(
        request, qs, DEPOSIT_ORDER, DEPOSIT_CURSOR, after, row, PAGE_SIZE, date.fromisoformat
    )


@router.get(
    "/deposits/{int:pk}/",
    response={200: DepositOut, 401: Problem, 404: Problem},
    url_name="deposit",
    summary="One s.15 deposit",
)
def deposit(request, pk: int):
    found = get_object_or_404(_deposits(request.auth), pk=pk)
    today = clock.today(found.release.impoundment.pound)
    return with_etag(request, _deposit(found, today))
