"""The treasury scroll, imported and matched to our challans (docs/decisions/0082).

The scroll is a CSV of the treasury's lines: GRN, CIN, amount, scroll number and scroll date. Each
line is matched by its GRN to the TreasuryChallan that defaced it: a challan without its CIN or
scroll gets them; one that agrees is left alone; the rest are flagged for the office: an amount
other than the transfer's, a GRN no challan of ours recorded, or a GRN whose challan already
names another CIN or scroll (defaced by another transfer). A line imported twice is one row.
Filling in the CIN and scroll is not the confirmation: another person than the GRN's recorder
still confirms the challan (treasury.confirm_treasury_challan)."""

import csv
import io
from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Value
from django.db.models.functions import Replace, Upper
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.roles import Permission
from accounts.scoping import authorise
from kernel.events import record_event
from kernel.messages import Message

from .actions import Action
from .models import ScrollLine, TreasuryChallan

COLUMNS = ("grn", "cin", "amount", "scroll_number", "scroll_date")
DATE_FORMATS = ("%d-%m-%Y", "%Y-%m-%d", "%d/%m/%Y")


def _date(value):
    for fmt in DATE_FORMATS:
        try:
            return datetime.strptime(value.strip(), fmt).date()  # noqa: DTZ007 (a day)
        except ValueError:
            continue
    raise ValidationError(_("%(value)s is not a date (DD-MM-YYYY).") % {"value": value})


def read_scroll(data):
    """[(grn, cin, amount, scroll_number, scroll_date)] from the scroll's CSV; a bad line is
    refused with its number, and nothing is stored."""
    text = data.decode("utf-8-sig", errors="replace")
    reader = csv.DictReader(io.StringIO(text))
    fields = {(f or "").strip().lower(): f for f in reader.fieldnames or ()}
    missing = [c for c in COLUMNS if c not in fields]
    if missing:
        raise ValidationError(
            _("The scroll lacks the columns: %(columns)s") % {"columns": ", ".join(missing)}
        )
    rows = []
    for number, row in enumerate(reader, start=1):
        values = {c: (row[fields[c]] or "").strip() for c in COLUMNS}
        if not any(values.values()):
            continue
        try:
            amount = Decimal(values["amount"].replace(",", "")).quantize(Decimal("0.01"))
        except InvalidOperation:
            raise ValidationError(
                _("Line %(number)s: %(value)s is not an amount.")
                % {"number": number, "value": values["amount"]}
            ) from None
        try:
            scroll_date = _date(values["scroll_date"])
        except ValidationError as exc:
            raise ValidationError(
                _("Line %(number)s: %(error)s") % {"number": number, "error": exc.messages[0]}
            ) from None
        if scroll_date > timezone.localdate():
            raise ValidationError(
                _("Line %(number)s: the scroll's date is in the future.") % {"number": number}
            )
        if not values["grn"]:
            raise ValidationError(_("Line %(number)s has no GRN.") % {"number": number})
        rows.append((values["grn"], values["cin"], amount, values["scroll_number"], scroll_date))
    return rows


def _challans(district, keys):
    key = Upper(Replace("grn", Value(" "), Value("")))
    found = (
        TreasuryChallan.objects.annotate(key=key)
        .filter(key__in=keys)
        .select_related("remittance__pound", "surplus")
    )
    return {
        c.key: c
        for c in found
        if (c.remittance.pound.district_id if c.remittance else c.surplus.district_id)
        == district.pk
    }


def _outcome(challan, cin, amount, scroll_number, scroll_date):
    if challan is None:
        return ScrollLine.Outcome.UNKNOWN
    transfer = challan.remittance or challan.surplus
    if transfer.amount != amount:
        return ScrollLine.Outcome.AMOUNT
    given = {"cin": cin, "scroll_number": scroll_number, "scroll_date": scroll_date}
    if any(getattr(challan, f) and getattr(challan, f) != v for f, v in given.items()):
        return ScrollLine.Outcome.DEFACED
    if all(getattr(challan, f) for f in given):
        return ScrollLine.Outcome.AGREES
    for field, value in given.items():
        setattr(challan, field, value)
    challan.save(update_fields=list(given))
    return ScrollLine.Outcome.FILLED


@transaction.atomic
def import_scroll(*, district, by, data):
    """Store and match the scroll's lines. Returns the new ScrollLine rows (a line stored
    before is skipped)."""
    authorise(by, Permission.PREPARE_ORDERS, district)
    rows = read_scroll(data)
    challans = _challans(district, {TreasuryChallan.grn_key(r[0]) for r in rows})
    new = []
    for grn, cin, amount, scroll_number, scroll_date in rows:
        key = TreasuryChallan.grn_key(grn)
        if ScrollLine.objects.filter(
            district=district, grn=key, scroll_number=scroll_number
        ).exists():
            continue
        challan = challans.get(key)
        if challan is not None:
            challan = TreasuryChallan.objects.select_for_update(of=("self",)).get(pk=challan.pk)
            challans[key] = challan
        line = ScrollLine(
            district=district,
            grn=key,
            cin=cin,
            amount=amount,
            scroll_number=scroll_number,
            scroll_date=scroll_date,
            challan=challan,
            outcome=_outcome(challans.get(key), cin, amount, scroll_number, scroll_date),
            imported_by=by,
        )
        try:
            with transaction.atomic():
                line.save()
        except IntegrityError:
            raise ValidationError(_("The scroll lists GRN %(grn)s twice.") % {"grn": grn}) from None
        new.append(line)
    flagged = sum(1 for line in new if line.outcome in ScrollLine.FLAGGED)
    record_event(
        action=Action.TREASURY_SCROLL_IMPORTED,
        section="s.17",
        by=by,
        district=district,
        summary=Message(
            gettext_noop("Treasury scroll: %(new)s new lines, %(flagged)s flagged"),
            new=len(new),
            flagged=flagged,
        ),
        data={
            "lines": [line.pk for line in new],
            "flagged": flagged,
            "filled": [line.challan_id for line in new if line.outcome == "filled"],
        },
    )
    return new
