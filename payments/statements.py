"""Reading a bank statement into lines (docs/decisions/0082): MT940 through the maintained
`mt-940` parser, and CSV through a bank's column map (bank_formats.py). Reading changes nothing;
payments.reconcile stores and matches what it reads."""

import csv
import io
import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

import mt940
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from .bank_formats import BANKS

# A UPI RRN is 12 digits; an NEFT or RTGS UTR is 16 or 22 characters, starting with the bank's
# four letters. Either, standing alone in a narration, is the transfer's reference.
UTR = re.compile(r"(?<![A-Z0-9])([A-Z]{4}[RHN0-9][0-9A-Z]{10,17}|[0-9]{12})(?![A-Z0-9])")


@dataclass(frozen=True)
class Line:
    number: int
    value_date: date
    amount: Decimal  # a credit is positive, a debit negative
    narration: str
    bank_reference: str
    utr: str


@dataclass(frozen=True)
class Read:
    statement_id: str
    lines: list[Line]


def utr_in(text):
    found = UTR.search((text or "").upper())
    return found.group(1) if found else ""


def read_mt940(data):
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    transactions = mt940.models.Transactions()
    try:
        transactions.parse(text)
    except Exception as exc:  # the parser raises many kinds on a malformed file
        raise ValidationError(
            _("This is not an MT940 statement: %(error)s") % {"error": exc}
        ) from None
    head = transactions.data
    if "transaction_reference" not in head:
        raise ValidationError(_("This is not an MT940 statement: it has no :20: field."))
    statement_id = "/".join(
        str(head.get(k, "")) for k in ("account_identification", "statement_number")
    )
    lines = []
    for number, transaction in enumerate(transactions, start=1):
        t = transaction.data
        amount = Decimal(t["amount"].amount)
        narration = " ".join((t.get("transaction_details") or "").split())
        reference = (t.get("bank_reference") or "").strip()
        lines.append(
            Line(
                number=number,
                value_date=date(t["date"].year, t["date"].month, t["date"].day),
                amount=amount,
                narration=narration[:500],
                bank_reference=reference,
                utr=utr_in(reference) or utr_in(t.get("customer_reference")) or utr_in(narration),
            )
        )
    return Read(statement_id=statement_id or head["transaction_reference"], lines=lines)


def _amount(value):
    cleaned = (value or "").replace(",", "").replace("₹", "").strip()
    if not cleaned:
        return Decimal(0)
    try:
        return Decimal(cleaned).quantize(Decimal("0.01"))
    except InvalidOperation:
        raise ValidationError(_("%(value)s is not an amount.") % {"value": value}) from None


def _date(value, formats):
    for fmt in formats:
        try:
            return datetime.strptime(value.strip(), fmt).date()  # noqa: DTZ007 (a day)
        except ValueError:
            continue
    raise ValidationError(_("%(value)s is not a date in this bank's format.") % {"value": value})


def read_csv(data, bank):
    columns = BANKS[bank]
    text = data.decode("utf-8-sig", errors="replace") if isinstance(data, bytes) else data
    reader = csv.DictReader(io.StringIO(text))
    wanted = {columns.value_date, columns.narration, columns.reference}
    wanted |= {columns.amount} if columns.amount else {columns.credit, columns.debit}
    missing = wanted - set(reader.fieldnames or ())
    if missing:
        raise ValidationError(
            _("The file lacks the columns of this bank's format: %(columns)s")
            % {"columns": ", ".join(sorted(missing))}
        )
    lines = []
    for number, row in enumerate(reader, start=1):
        if not any((v or "").strip() for v in row.values()):
            continue
        try:
            if columns.amount:
                amount = _amount(row[columns.amount])
            else:
                amount = _amount(row[columns.credit]) - _amount(row[columns.debit])
            value_date = _date(row[columns.value_date], columns.date_formats)
        except ValidationError as exc:
            raise ValidationError(
                _("Line %(number)s: %(error)s") % {"number": number, "error": exc.messages[0]}
            ) from None
        narration = " ".join((row[columns.narration] or "").split())
        reference = (row[columns.reference] or "").strip()
        utr = (row.get(columns.utr) or "").strip() if columns.utr else ""
        lines.append(
            Line(
                number=number,
                value_date=value_date,
                amount=amount,
                narration=narration[:500],
                bank_reference=reference,
                utr=utr.upper() or utr_in(reference) or utr_in(narration),
            )
        )
    return Read(statement_id="", lines=lines)
