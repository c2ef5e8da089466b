"""The documents of the pound register: one small function each, returning PDF bytes.

Every document is bilingual: English, with the Hindi beside it. The templates are rendered in
English and switch to Hindi with {% language "hi" %}; values that come from choices or gettext
are passed in both languages as `Both` pairs.

The s.8 copy and the wall schedule are registered as an IssuedDocument the first time they are
printed, once (the row is locked against two first downloads at the same moment); a receipt's
IssuedDocument was made with the receipt. Registration runs in its own short transaction and the
PDF is drawn after it: no lock is held while WeasyPrint works.
"""

import base64
import logging
from datetime import date
from decimal import Decimal

from django.db import transaction
from django.db.models import Prefetch, Q
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.letterhead import letterhead
from accounts.models import DistrictPolicy, FeedingRule, IssuedDocument, Pound, SlipPaper
from kernel import clock
from kernel.dates import days_between, ist_date
from kernel.documents import (
    Both,
    both,
    kept_drawing,
    offices,
    render_pdf,
    render_roll_pdf,
    short_label,
    verification_context,
)
from kernel.events import record_event
from kernel.formatting import indate
from kernel.languages import amount_in_both, in_district_language, second_language
from kernel.messages import Message
from payments.owner import short_link

from .actions import Action
from .dues import custody_intervals, dues
from .models import (
    Animal,
    FineCategory,
    Impoundment,
    Receipt,
    Release,
    ReleaseLine,
    colour_label,
)
from .tariffs import TariffBook
from .upi import dues_qr
from .warnings import describe_warnings

log = logging.getLogger(__name__)
MAX_SIGNATURE_BYTES = 512 * 1024


def signature_uri(field):
    """The claimant's signature drawn on the screen (a PNG) as a data URI for the receipt, or
    None: a missing file never stops the receipt, which then says where it was signed."""
    if not field:
        return None
    try:
        with field.open("rb") as f:
            raw = f.read(MAX_SIGNATURE_BYTES + 1)
    except OSError as exc:
        log.warning("Signature %s could not be read for a receipt: %r", field.name, exc)
        return None
    if not raw.startswith(b"\x89PNG\r\n\x1a\n") or len(raw) > MAX_SIGNATURE_BYTES:
        return None
    return "data:image/png;base64," + base64.b64encode(raw).decode("ascii")


def _warnings(entry):
    """The intake warnings of an entry, as sentences in both languages."""
    with translation.override("en"):
        en = describe_warnings(entry.warnings)
    with translation.override(second_language() or "en"):
        hi = describe_warnings(entry.warnings)
    return [Both(e, h) for e, h in zip(en, hi, strict=True)]


def animal_row(animal):
    return {
        "number": animal.number,
        "species": both(lambda: short_label(animal.get_species_display())),
        "sex": both(animal.get_sex_display),
        "age": both(lambda: short_label(animal.get_age_class_display())),
        "colour": both(lambda: colour_label(animal.colour)),
        "marks": animal.marks,
        "ear_tag": animal.ear_tag,
    }


# s.8: the copy of the register entry for the seizer ------------------------------------------


@transaction.atomic
def register_copy_document(entry, by):
    """The IssuedDocument of an entry's s.8 copy: the one already issued, or a new one."""

    def existing():
        return IssuedDocument.objects.filter(
            kind=IssuedDocument.Kind.REGISTER_COPY,
            subject_type="impounding.impoundment",
            subject_id=entry.pk,
        ).first()

    document = existing()
    if document is not None:
        return document
    # Lock the entry so that two simultaneous first downloads register one copy, not two.
    Impoundment.objects.select_for_update(of=("self",)).get(pk=entry.pk)
    document = existing()
    if document is not None:
        return document
    document = IssuedDocument.objects.issue(
        kind=IssuedDocument.Kind.REGISTER_COPY,
        number=entry.register_number,
        by=by,
        pound=entry.pound,
        subject_type="impounding.impoundment",
        subject_id=entry.pk,
    )
    record_event(
        action=Action.REGISTER_COPY_ISSUED,
        section="s.8",
        summary=Message(
            gettext_noop("%(number)s: copy of the entry issued for the seizer"),
            number=entry.register_number,
        ),
        by=by,
        impoundment=entry,
        data={"document": document.number},
    )
    return document


@in_district_language(lambda obj, *args, **kwargs: obj.pound.district_id)
def register_copy(entry, by, paper=None):
    """s.8: the copy of the register entry for the seizer or his agent, attested by the
    pound-keeper, on A4 or an 80 mm roll (`paper`; default: the pound's choice)."""
    document = register_copy_document(entry, by)
    entry = (
        Impoundment.objects.select_related("pound__district", "recorded_by", "seizure_village")
        .prefetch_related("amendments__animal")
        .get(pk=entry.pk)
    )
    # Calves born in the pound were not brought by the seizer: they are not on his copy.
    animals = [animal_row(a) for a in entry.animals.filter(born_at__isnull=True)]
    keeper = entry.recorded_by
    context = {
        "entry": entry,
        "animals": animals,
        "basis": both(lambda: short_label(entry.get_basis_display())),
        "basis_full": both(entry.get_basis_display),
        "s11_site": both(entry.get_s11_site_display) if entry.s11_site else None,
        "s11_ground": both(entry.get_s11_ground_display) if entry.s11_ground else None,
        "capacity": both(entry.get_seizer_capacity_display),
        "warnings": _warnings(entry),
        "keeper": Both(keeper.get_full_name() or keeper.username, keeper.name_hi or ""),
        "amendments": list(entry.amendments.all()),
        "printed_at": clock.now(entry.pound),
        **letterhead(IssuedDocument.Kind.REGISTER_COPY, pound=entry.pound),
        **verification_context(document),
    }
    roll = (paper or entry.pound.slip_paper) == SlipPaper.ROLL_80
    template = "pdf/roll/register_copy.html" if roll else "pdf/register_copy.html"
    return kept_drawing(
        "register-copy", template, context, stamps=["printed_at"], roll=roll, language="en"
    )


# s.13 and s.15: receipts ------------------------------------------------------------------------


def _feeding_detail(line):
    """The feeding periods of a release line, as stored when the animal was released."""
    periods = []
    for first, last, days, rate, order in line.detail.get("periods", []):
        periods.append(
            {
                "first": date.fromisoformat(first),
                "last": date.fromisoformat(last),
                "days": days,
                "rate": rate,
                "order": order,
            }
        )
    return periods


def _categories(lines):
    """{line id: the line's fine category in both languages}. Lines kept before the release
    stored both names carry only the one shown at the time: the scale gives the other."""
    known = {}
    missing = [line for line in lines if "category_en" not in line.detail]
    if missing:
        names = {line.category for line in missing}
        for cat in FineCategory.objects.filter(Q(label__in=names) | Q(label_hi__in=names)):
            known.setdefault((cat.code, cat.label), cat)
            known.setdefault((cat.code, cat.label_hi), cat)
    result = {}
    for line in lines:
        if "category_en" in line.detail:
            en, hi = line.detail["category_en"], line.detail["category_hi"]
        else:
            cat = known.get((line.detail.get("code", ""), line.category))
            en, hi = (cat.label, cat.label_hi) if cat else (line.category, "")
        result[line.pk] = Both(en or line.category, hi or en or line.category)
    return result


def _render_slip(template_name, context, paper, pound):
    """A slip (receipt, deposit receipt, s.8 copy) on `paper`, or on the pound's choice."""
    if (paper or pound.slip_paper) == SlipPaper.ROLL_80:
        return render_roll_pdf(f"pdf/roll/{template_name}", context, language="en")
    return render_pdf(f"pdf/{template_name}", context, language="en")


@in_district_language(lambda obj, *args, **kwargs: obj.pound.district_id)
def receipt_pdf(receipt, paper=None):
    """The receipt for fines and feeding charges (s.13; Kerala Form III), or the deposit receipt
    (s.15), on A4 or an 80 mm roll (`paper`, a SlipPaper; default: the pound's choice). A
    cancelled receipt keeps its number and says so across the page."""
    receipt = Receipt.objects.select_related(
        "pound__district", "issued_by", "document", "replaces"
    ).get(pk=receipt.pk)
    try:
        # The release with its deposit in one query, its lines with their animals in one more.
        release = (
            Release.objects.select_related("impoundment", "receipt", "deposit")
            .prefetch_related(
                Prefetch("lines", queryset=ReleaseLine.objects.select_related("animal"))
            )
            .get(receipt=receipt)
        )
    except Release.DoesNotExist:
        release = None
    deposit = getattr(release, "deposit", None) if release is not None else None
    lines = []
    if release is not None:
        release_lines = list(release.lines.all())
        categories = _categories(release_lines)
        for line in release_lines:
            lines.append(
                {
                    "line": line,
                    "category": categories[line.pk],
                    "animal": animal_row(line.animal),
                    "periods": _feeding_detail(line),
                    "total": line.fine + line.feeding,
                }
            )
    issuer = receipt.issued_by
    context = {
        "receipt": receipt,
        "is_deposit": receipt.kind == Receipt.Kind.DEPOSIT,
        "release": release,
        "signature": signature_uri(release.signature) if release else None,
        "deposit": deposit,
        "entry": release.impoundment if release else None,
        "lines": lines,
        "claimant_role": both(release.get_claimant_role_display) if release else None,
        "payment_mode": both(receipt.get_payment_mode_display),
        "deposit_status": both(deposit.get_status_display) if deposit else None,
        **amount_in_both(receipt.amount),
        "issuer": Both(issuer.get_full_name() or issuer.username, issuer.name_hi or ""),
        "printed_at": clock.now(receipt.pound),
        **letterhead(receipt.document.kind, pound=receipt.pound),
        **verification_context(receipt.document),
    }
    return _render_slip("receipt.html", context, paper, receipt.pound)


# The demand or dues statement, before release ----------------------------------------------------


@in_district_language(lambda obj, *args, **kwargs: obj.pound.district_id)
def dues_statement(entry, animals=None, as_of=None, paper=None):
    """What is owed for the animals of an entry (default: those still in the pound) at `as_of`
    (default: now): fine, days in custody and feeding periods per animal, and the totals, with
    the UPI QR code for the total when a VPA is set (impounding.upi), on A4 or an 80 mm roll
    (`paper`; default: the pound's choice). Not a receipt, so not registered; it carries the
    moment it was made. Raises TariffMissing when no order covers a day."""
    entry = Impoundment.objects.select_related("pound__district").get(pk=entry.pk)
    if animals is None:
        animals = entry.animals.in_custody()
    animals = (
        Animal.objects.filter(pk__in=[a.pk for a in animals], impoundment=entry)
        .select_related("impoundment__pound__district")
        .prefetch_related("custody_events")
        .order_by("number")
    )
    now = clock.now(entry.pound)
    statement = dues(animals, as_of=as_of or now)
    as_of_date = timezone.localtime(statement.as_of).date()
    # What one more day in the pound adds: the rate of each animal's current feeding period.
    per_day = sum(
        (
            line.periods[-1].rate
            for line in statement.lines
            if line.periods and line.periods[-1].last == as_of_date
        ),
        start=Decimal("0.00"),
    )
    rows = []
    for line in statement.lines:
        animal = line.animal
        rows.append(
            {
                "line": line,
                "animal": animal_row(animal),
                "calf_of": animal.dam.number if animal.dam_id else None,
                "days_in_custody": _days_in_custody(animal, statement.as_of),
            }
        )
    context = {
        "entry": entry,
        "statement": statement,
        "rows": rows,
        "per_day": per_day,
        "rule": both(lambda: FeedingRule(statement.rule).label),
        "generated_at": now,
        "as_of": statement.as_of,
        "dues_qr": dues_qr(entry, statement),
        # The owner's pay page (docs/decisions/0085), short, under the UPI code.
        "pay_url": short_link(entry) if statement.total > 0 else "",
        **amount_in_both(statement.total),
        **letterhead(pound=entry.pound),
    }
    roll = (paper or entry.pound.slip_paper) == SlipPaper.ROLL_80
    template = "pdf/roll/dues_statement.html" if roll else "pdf/dues_statement.html"
    return kept_drawing(
        "dues", template, context, stamps=["generated_at", "as_of"], roll=roll, language="en"
    )


def _days_in_custody(animal, as_of):
    """The IST calendar days the animal spent any part of in the pound, up to `as_of`."""
    days = set()
    for start, end in custody_intervals(animal, as_of):
        days.update(days_between(ist_date(start), ist_date(end)))
    return len(days)


# ss.5 and 12: the schedule of fines and feeding rates for the pound's wall --------------------


def _natural(code):
    return (len(code), code)


def _kinds(rows):
    """The kinds of animal a set of rules names, grouped by age and sex: "Goat, Sheep; Young:
    Buffalo, Cattle", in both languages."""

    def text():
        groups = {}
        for row in rows:
            qualifier = ", ".join(
                str(q)
                for q in (
                    short_label(row.get_age_class_display()) if row.age_class else "",
                    row.get_sex_display() if row.sex else "",
                )
                if q
            )
            groups.setdefault(qualifier, []).append(short_label(row.get_species_display()))
        parts = []
        for qualifier in sorted(groups, key=lambda q: (q != "", q)):
            names = ", ".join(sorted(groups[qualifier]))
            parts.append(f"{qualifier}: {names}" if qualifier else names)
        return "; ".join(parts)

    return both(text)


def _in_force(what, number, dated, order):
    text = what % {"number": number, "date": indate(dated)}
    if order.valid_to:
        period = _("in force from %(start)s to %(end)s") % {
            "start": indate(order.valid_from),
            "end": indate(order.valid_to),
        }
    else:
        period = _("in force from %(start)s") % {"start": indate(order.valid_from)}
    return f"{text}, {period}"


@transaction.atomic
def schedule_document(pound, on, by=None, valid_until=None):
    """The IssuedDocument of the pound's schedule for the day `on`: one per pound per date."""
    number = f"SCH/{pound.code.upper()}/{on:%Y%m%d}"
    document = IssuedDocument.objects.filter(number=number).first()
    if document is not None:
        return document
    Pound.objects.select_for_update(of=("self",)).get(pk=pound.pk)
    document = IssuedDocument.objects.filter(number=number).first()
    if document is not None:
        return document
    office = offices(pound)["district_office"]
    return IssuedDocument.objects.issue(
        kind=IssuedDocument.Kind.TARIFF_SCHEDULE,
        number=number,
        by=by,
        pound=pound,
        office=(office.en, office.hi),
        valid_until=valid_until,
        subject_type="accounts.pound",
        subject_id=pound.pk,
    )


@in_district_language(lambda pound, *args, **kwargs: pound.district_id)
def tariff_schedule(pound, on=None, *, by=None):
    """The list of fines (s.12) and feeding and watering rates (s.5) in force at the pound on
    `on` (default: today), large enough to be read on the pound's wall. Raises TariffMissing
    when no scale or order covers the day."""
    pound = Pound.objects.select_related("district").get(pk=pound.pk)
    on = on or timezone.localdate()
    book = TariffBook(pound)
    scale = book.scale_on(on)
    order = book.feeding_order_on(on)
    ends = [d for d in (scale.valid_to, order.valid_to) if d is not None]
    document = schedule_document(pound, on, by=by, valid_until=min(ends) if ends else None)
    rules = list(scale.rules.all())
    categories = [
        {
            "category": c,
            "kinds": _kinds([r for r in rules if r.category_id == c.pk]),
        }
        for c in sorted(scale.categories.all(), key=lambda c: _natural(c.code))
    ]
    groups = {}
    for rate in order.rates.all():
        key = (rate.amount, rate.label, rate.label_hi)
        groups.setdefault(key, []).append(rate)
    rates = [
        {"amount": amount, "label": Both(label, label_hi or label), "kinds": _kinds(rows)}
        for (amount, label, label_hi), rows in sorted(
            groups.items(), key=lambda item: (-item[0][0], item[0][1])
        )
    ]
    policy = DistrictPolicy.for_district(pound.district)
    context = {
        "scale_source": both(
            lambda: _in_force(
                _("Notification %(number)s dated %(date)s"),
                scale.notification_number,
                scale.notification_date,
                scale,
            )
        ),
        "order_source": both(
            lambda: _in_force(
                _("Order %(number)s dated %(date)s"), order.order_reference, order.order_date, order
            )
        ),
        "pound": pound,
        "on": on,
        "scale": scale,
        "order": order,
        "categories": categories,
        "rates": rates,
        "rule": both(lambda: FeedingRule(policy.feeding_rule).label),
        "complaint_days": policy.complaint_days,
        **letterhead(IssuedDocument.Kind.TARIFF_SCHEDULE, pound=pound),
        **verification_context(document),
    }
    return kept_drawing("schedule", "pdf/tariff_schedule.html", context, language="en")
