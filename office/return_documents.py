"""The periodic returns (s.7) as documents: the monthly return of a pound, the district's
consolidation and the daily cash book, each as a PDF and as a CSV file. One small function each;
the figures all come from office.returns.

The PDFs are bilingual like the register's documents (impounding.documents). A return for a
month that is over is registered as an IssuedDocument (one per pound, or district, per month) the
first time it is printed, in its own short transaction, and carries a QR code; its PDF is kept
as first drawn and served again while its figures stay the same (_return_pdf). A return for the
month in progress shows figures to date, says so, and is not registered. The cash book is a
working record of the pound, not a return sent to the office: it is not registered, but its PDF
is kept as last drawn and served again while the book says the same (cash_book_pdf).

CSV files open in Excel as they are: UTF-8 with a byte-order mark, one header row, amounts as
plain decimals (no ₹ sign, no grouping) and counts as plain integers.
"""

import csv
import io
import logging

from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.dateformat import format as date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from accounts.letterhead import letterhead
from accounts.models import District, IssuedDocument, Pound
from kernel.anchors import printed as printed_checkpoint
from kernel.documents import Both, both, html_basis, render_pdf, verification_context
from kernel.languages import in_district_language, second_language
from kernel.uploads import stored_name

from . import returns
from .models import KeptCashBook
from .returns import ANIMAL_COLUMNS, CASH_COLUMNS, COLUMN_LABELS, MONEY_COLUMNS

logger = logging.getLogger(__name__)

CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
# The headings the PDF tables share, in both languages.
HEADINGS = {
    "category": gettext_lazy("Category"),
    "pound": gettext_lazy("Pound"),
    "no_animals": gettext_lazy("No animals on the register in the month."),
    "no_pounds": gettext_lazy("No pound of the district was open in the month."),
}
BOM = "\ufeff"


def plain(value):
    """A figure for a CSV cell: 12 or 1234.50, never 1,234.50 or ₹1,234.50."""
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    return format(value, ".2f")


def csv_bytes(header, rows):
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return (BOM + buffer.getvalue()).encode("utf-8")


# The columns that bracket a row (the animals on the register at the start and at the end) are
# shaded, so that the eye finds them in a row of counts.
_END_COLUMNS = {"opening", "closing"}


def _columns(keys):
    return [
        {
            "key": k,
            "label": both(COLUMN_LABELS[k]),
            "css": "num end" if k in _END_COLUMNS else "num",
        }
        for k in keys
    ]


def _cells(figures, keys):
    """A row's figures as (value, css class) pairs, in the order of `keys`."""
    return [(figures[k], "num end" if k in _END_COLUMNS else "num") for k in keys]


def _species(code):
    """A category's name in English and in Hindi, whatever the language of the request."""
    return both(lambda: returns.species_label(code))


def _month_name(day):
    """The month and year ("March 2025") in English and in Hindi."""
    return both(lambda: date_format(day, "F Y"))


def _district_offices(district):
    with translation.override("en"):
        office = str(district.office_label)
    with translation.override(second_language() or "en"):
        office_hi = str(district.office_label)
    return {
        "district_name": Both(district.name, district.name_hi or district.name),
        "district_office": Both(office, office_hi),
    }


@transaction.atomic
def _register(
    *, number, lock, by, subject_type, subject_id, pound=None, district=None, office=None
):
    """The IssuedDocument numbered `number`: the one already issued, or a new one. The row
    `lock` (the pound or district) is locked so that two first downloads register one."""
    document = IssuedDocument.objects.filter(number=number).first()
    if document is not None:
        return document
    type(lock).objects.select_for_update(of=("self",)).get(pk=lock.pk)
    document = IssuedDocument.objects.filter(number=number).first()
    if document is not None:
        return document
    return IssuedDocument.objects.issue(
        kind=IssuedDocument.Kind.RETURN,
        number=number,
        by=by,
        subject_type=subject_type,
        subject_id=subject_id,
        pound=pound,
        district=district,
        office=office,
    )


def return_number(pound, year, month):
    return f"RET/{pound.code.upper()}/{year:04d}-{month:02d}"


def district_return_number(district, year, month):
    # One segment more than a pound's number, so no pound code can collide with it.
    return f"RET/{district.code.upper()}/DISTRICT/{year:04d}-{month:02d}"


def monthly_return_document(pound, year, month, by):
    return _register(
        number=return_number(pound, year, month),
        lock=pound,
        by=by,
        pound=pound,
        subject_type="accounts.pound",
        subject_id=pound.pk,
    )


def district_return_document(district, year, month, by):
    office = _district_offices(district)["district_office"]
    return _register(
        number=district_return_number(district, year, month),
        lock=district,
        by=by,
        district=district,
        office=(office.en, office.hi),
        subject_type="accounts.district",
        subject_id=district.pk,
    )


# --- The monthly return of a pound ----------------------------------------------------------


def _return_pdf(template_name, context, document, *, checkpoint=False):
    """A return's PDF. A month in progress (no `document`) is drawn afresh, with figures to the
    minute. A month that is over is drawn once and kept (IssuedDocument.objects.kept_pdf), on
    the basis of what it says but its print time: a later download gets the file first printed
    while its figures are the same, and is drawn afresh when they have changed since (an entry
    amended late, say), so a kept return never serves figures the books no longer give."""

    def draw():
        printed = {"printed_at": timezone.now()}
        if checkpoint:
            printed["checkpoint"] = printed_checkpoint()
        return render_pdf(template_name, context | printed, language="en")

    if document is None:
        return draw()
    unprinted = context | {"printed_at": None, "checkpoint": None}
    basis = html_basis(template_name, unprinted, language="en")
    return IssuedDocument.objects.kept_pdf(document, draw, basis=basis)


@in_district_language(lambda pound, *args, **kwargs: pound.district_id)
def monthly_return_pdf(pound, year, month, *, by):
    """The monthly return of a pound (s.7): animals by category and how they left, and the money
    of the month. Registered, with a QR code, once the month is over."""
    pound = Pound.objects.select_related("district").get(pk=pound.pk)
    figures = returns.pound_return(pound, year, month)
    document = monthly_return_document(pound, year, month, by) if figures["complete"] else None
    context = {
        "r": figures,
        "number": document.number if document else return_number(pound, year, month),
        "month_name": _month_name(figures["first"]),
        "animal_columns": _columns(ANIMAL_COLUMNS),
        "animal_rows": [
            {"label": _species(row["species"]), "cells": _cells(row, ANIMAL_COLUMNS)}
            for row in figures["animals"]
        ],
        "animal_totals": _cells(figures["totals"], ANIMAL_COLUMNS),
        "money_rows": [(both(COLUMN_LABELS[c]), figures["money"][c]) for c in MONEY_COLUMNS],
        "cash_rows": [(both(COLUMN_LABELS[c]), figures["money"][c]) for c in CASH_COLUMNS],
        "labels": {key: both(text) for key, text in HEADINGS.items()},
        **letterhead(IssuedDocument.Kind.RETURN, pound=pound),
        **(verification_context(document) if document else {}),
    }
    return _return_pdf("pdf/office/monthly_return.html", context, document, checkpoint=True)


def _header():
    return [
        _("Pound code"),
        _("Pound"),
        _("Month"),
        _("Category"),
        *[str(COLUMN_LABELS[c]) for c in ANIMAL_COLUMNS + MONEY_COLUMNS + CASH_COLUMNS],
    ]


def _row(code, name, month, category, animals, money=None):
    money = money or {}
    return [
        code,
        csv_text(name),
        month,
        category,
        *[plain(animals[c]) for c in ANIMAL_COLUMNS],
        *[plain(money.get(c)) for c in MONEY_COLUMNS + CASH_COLUMNS],
    ]


def monthly_return_csv(pound, year, month):
    """One row per category with its animals, then the pound's total row with the money."""
    figures = returns.pound_return(pound, year, month)
    period = f"{year:04d}-{month:02d}"
    rows = [
        _row(pound.code, pound.name, period, line["label"], line) for line in figures["animals"]
    ]
    rows.append(
        _row(
            pound.code,
            pound.name,
            period,
            _("All categories"),
            figures["totals"],
            figures["money"],
        )
    )
    return csv_bytes(_header(), rows)


# --- The district's consolidation -----------------------------------------------------------


def _district_pounds(district):
    return Pound.objects.filter(district=district).order_by("name")


@in_district_language(lambda district, *args, **kwargs: district.pk)
def district_return_pdf(district, year, month, *, by):
    """The consolidated monthly return of a district: one row per pound and the district's
    totals, for animals and for money."""
    district = District.objects.get(pk=district.pk)
    figures = returns.district_return(district, year, month, _district_pounds(district))
    document = district_return_document(district, year, month, by) if figures["complete"] else None

    def name(pound):
        return Both(pound.name, pound.name_hi or pound.name)

    rows = figures["pounds"]
    context = {
        "r": figures,
        "number": document.number if document else district_return_number(district, year, month),
        "month_name": _month_name(figures["first"]),
        "animal_columns": _columns(ANIMAL_COLUMNS),
        "animal_rows": [
            {"label": name(row["pound"]), "cells": _cells(row["totals"], ANIMAL_COLUMNS)}
            for row in rows
        ],
        "animal_totals": _cells(figures["totals"], ANIMAL_COLUMNS),
        "category_rows": [
            {"label": _species(line["species"]), "cells": _cells(line, ANIMAL_COLUMNS)}
            for line in figures["animals"]
        ],
        "money_columns": _columns(MONEY_COLUMNS),
        "money_rows": [
            {"label": name(row["pound"]), "cells": _cells(row["money"], MONEY_COLUMNS)}
            for row in rows
        ],
        "money_totals": _cells(figures["money"], MONEY_COLUMNS),
        "cash_columns": _columns(CASH_COLUMNS),
        "cash_rows": [
            {"label": name(row["pound"]), "cells": _cells(row["money"], CASH_COLUMNS)}
            for row in rows
        ],
        "cash_totals": _cells(figures["money"], CASH_COLUMNS),
        "labels": {key: both(text) for key, text in HEADINGS.items()},
        **letterhead(IssuedDocument.Kind.RETURN, district=district),
        **(verification_context(document) if document else {}),
    }
    return _return_pdf("pdf/office/district_return.html", context, document)


def district_return_csv(district, year, month):
    """One row per pound (all categories together), then the district's total row."""
    figures = returns.district_return(district, year, month, _district_pounds(district))
    period = f"{year:04d}-{month:02d}"
    everything = _("All categories")
    rows = [
        _row(
            row["pound"].code,
            row["pound"].name,
            period,
            everything,
            row["totals"],
            row["money"],
        )
        for row in figures["pounds"]
    ]
    rows.append(
        _row(
            district.code,
            _("Total: %(district)s") % {"district": district.name},
            period,
            everything,
            figures["totals"],
            figures["money"],
        )
    )
    return csv_bytes(_header(), rows)


# --- The daily cash book ----------------------------------------------------------------------


@in_district_language(lambda pound, day: pound.district_id)
def cash_book_pdf(pound, day):
    """The daily cash book of a pound: opening balance, each receipt and payment, closing
    balance, for its cash and its UPI and other collections. Kept as last drawn
    (office.models.KeptCashBook): a download whose book says what the kept file says gets that
    file, and only a changed book is drawn again."""
    pound = Pound.objects.select_related("district").get(pk=pound.pk)
    book = returns.cash_book(pound, day)
    cash, upi = both(lambda: _("Cash")), both(lambda: _("UPI or other"))
    context = {
        "book": book,
        "lines": [{**line, "mode": cash if line["cash"] else upi} for line in book["lines"]],
        "cash_label": cash,
        "upi_label": upi,
        **letterhead(pound=pound),
    }
    template = "pdf/office/cash_book.html"

    def draw():
        printed = {"printed_at": timezone.now(), "checkpoint": printed_checkpoint()}
        return render_pdf(template, context | printed, language="en")

    unprinted = context | {"printed_at": None, "checkpoint": None}
    return _kept_cash_book(pound, day, draw, html_basis(template, unprinted, language="en"))


def _kept_cash_book(pound, day, draw, basis):
    kept = KeptCashBook.objects.filter(pound=pound, day=day).first()
    if kept is not None and kept.drawn_from == basis:
        try:
            with kept.file.open("rb") as handle:
                return handle.read()
        except FileNotFoundError:
            logger.warning("kept cash book missing from the store: %s", kept.file.name)
    pdf = draw()
    fresh = KeptCashBook(pound=pound, day=day, drawn_from=basis)
    fresh.file.save(stored_name("pdf"), ContentFile(pdf), save=False)
    stale = None
    if kept is None:
        try:
            with transaction.atomic():
                fresh.save(force_insert=True)
        except IntegrityError:
            stale = fresh.file.name  # another download kept its drawing first
    elif KeptCashBook.objects.filter(pk=kept.pk, drawn_from=kept.drawn_from).update(
        file=fresh.file.name, drawn_from=basis, drawn_at=fresh.drawn_at
    ):
        stale = kept.file.name
    else:
        stale = fresh.file.name
    if stale:
        fresh.file.storage.delete(stale)
    return pdf


def cash_book_csv(pound, day):
    """The opening balance, one row per receipt or payment, and the closing balance."""
    book = returns.cash_book(pound, day)
    header = [
        _("Date and time (IST)"),
        _("Transaction"),
        _("Particulars"),
        _("Reference"),
        _("Cash or UPI"),
        pgettext("cash book column: money received", "Receipt"),
        _("Payment"),
        _("Balance"),
    ]
    day_text = day.isoformat()
    rows = [[day_text, "", _("Opening balance"), "", "", "", "", plain(book["opening"]["total"])]]
    for line in book["lines"]:
        rows.append(
            [
                timezone.localtime(line["at"]).strftime("%Y-%m-%d %H:%M"),
                line["transaction"].pk,
                csv_text(line["memo"]),
                line["reference"],
                _("Cash") if line["cash"] else _("UPI or other"),
                plain(line["receipt"]),
                plain(line["payment"]),
                plain(line["balance"]),
            ]
        )
    rows.append(
        [
            day_text,
            "",
            _("Closing balance"),
            "",
            "",
            plain(book["receipts"]),
            plain(book["payments"]),
            plain(book["closing"]["total"]),
        ]
    )
    return csv_bytes(header, rows)


# What a spreadsheet takes for the start of a formula (CSV injection), and what keeps it text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
TEXT_MARK = "'"


def csv_text(value):
    """Free text for a spreadsheet cell. A cell that starts with =, +, - or @ would be taken by
    Excel for a formula (CSV injection): a leading apostrophe keeps it text."""
    value = "" if value is None else str(value)
    if value[:1] in FORMULA_STARTS:
        return TEXT_MARK + value
    return value
