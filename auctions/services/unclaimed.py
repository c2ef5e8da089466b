"""Unclaimed cattle (s.14): the report to the officer, his notice and the proclamation, and the
District Magistrate's standing order that sets the place, time and conditions of sale."""

from datetime import timedelta
from decimal import Decimal

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts import todos
from accounts.models import District, IssuedDocument
from accounts.roles import Permission
from accounts.scoping import authorise, has_permission
from impounding.models import Animal
from impounding.services.intake import resize_photo
from kernel import clock
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import Message, bilingual, in_both

from ..actions import Action
from ..clocks import appointed_officer, days_or_refuse, notice_dates, report_due, reports_due
from ..models import CONDITION_TEXTS, AuctionConditions, Notice, Proclamation, Report
from ..tasks import keep_notice_pdf, keep_report_pdf
from .common import ZERO, serial, today

# --- The first clock: the report (s.14) -----------------------------------------------------


def _reportable(entry, day):
    """The entry's row of the reports due on `day` and its animals, locked: still in the
    pound and not reported yet; else why not."""
    rows = [r for r in reports_due([entry.pound_id], day) if r["entry"].pk == entry.pk]
    if not rows:
        days_or_refuse(entry, "claim_days")
        due = report_due(entry)
        if day < due:
            raise ValidationError(
                _(
                    "The seven days for a claim run until the end of %(end)s (s.14). The report is "
                    "due from %(due)s."
                )
                % {
                    "end": (due - timedelta(days=1)).strftime("%d-%m-%Y"),
                    "due": due.strftime("%d-%m-%Y"),
                }
            )
        raise ValidationError(_("No animal of this entry is left unclaimed and unreported."))
    row = rows[0]
    animals = list(
        Animal.objects.select_for_update(of=("self",))
        .in_custody()
        .filter(pk__in=[a.pk for a in row["animals"]])
    )
    if len(animals) != len(row["animals"]):
        raise ValidationError(_("An animal was released meanwhile: look at the entry again."))
    if Report.objects.filter(animals__in=animals).exists():
        raise ValidationError(_("These animals have already been reported."))
    return row, animals


@transaction.atomic
def send_report(*, entry, by, at=None):
    """The pound-keeper reports the entry's unclaimed animals to the officer."""
    pound = entry.pound
    authorise(by, Permission.SEND_REPORT, pound)
    at = at or clock.now(pound)
    day = timezone.localtime(at).date()
    row, animals = _reportable(entry, day)
    number = serial("rep", pound, day.year)
    document = IssuedDocument.objects.issue(
        kind=IssuedDocument.Kind.S14_REPORT,
        number=number,
        by=by,
        subject_type="auctions.report",
        pound=pound,
        issued_at=at,
    )
    report = Report.objects.create(
        pound=pound,
        impoundment=entry,
        number=number,
        police_station=pound.nearest_police_station,
        officer=appointed_officer(pound, day),
        due_on=row["due_on"],
        sent_at=at,
        sent_by=by,
        document=document,
    )
    report.animals.set(animals)
    IssuedDocument.objects.link(document, report)
    station = report.police_station
    to = (
        report.officer.get_full_name()
        if report.officer
        else bilingual(station.name, station.name_hi)
    )
    record_event(
        action=Action.S14_REPORTED,
        section="s.14",
        by=by,
        impoundment=entry,
        at=None,
        summary=Message(
            gettext_noop("%(number)s: %(count)s unclaimed animal(s) reported to %(to)s"),
            number=number,
            count=len(animals),
            to=to,
        ),
        data={
            "report": number,
            "animals": [a.reference for a in animals],
            "due_on": row["due_on"],
            "days_late": report.days_late,
        },
    )
    todos.close(f"report_due:{entry.pk}")
    # Drawn and kept by the worker once this commits, not by the first download.
    transaction.on_commit(lambda: keep_report_pdf.enqueue(report.pk), robust=True)
    return report


# --- The second clock: notice and proclamation (s.14) ---------------------------------------


def _notice_particulars(report, seizure_place):
    """What the notice must state (s.14): (a) the number and description of the cattle, (b) the
    place where they were seized, (c) the place where they are impounded. (b) is the place the
    register gave fit to publish (the description confirmed at intake, or the village chosen
    from the list), or else the one the officer states now; a stated place names no one."""
    entry = report.impoundment
    animals = list(report.animals.all())
    if not animals or any(not (a.species and a.colour.strip()) for a in animals):
        raise ValidationError(
            _("The notice needs the number and description of the cattle (a): complete them.")
        )
    if not report.pound.name.strip():
        raise ValidationError(_("The notice needs the place where the cattle are impounded (c)."))
    if seizure_place:
        if entry.names_someone(seizure_place):
            raise ValidationError(
                {
                    "seizure_place": _(
                        "Give the place without the owner's or the seizer's name: the notice "
                        "is public (s.14)."
                    )
                }
            )
    elif not (entry.notice_description.strip() or entry.seizure_village_id):
        raise ValidationError(
            {
                "seizure_place": _(
                    "The register gives no place of seizure fit to publish: state where the cattle "
                    "were seized (b), without anyone's name."
                )
            }
        )


def _check_posting_day(report, posted_on):
    """The day the notice went up: not before the report was sent, nor after today. Returns
    the day the report was sent."""
    sent = timezone.localtime(report.sent_at).date()
    if posted_on < sent:
        raise ValidationError(
            {
                "posted_on": _("The notice cannot be posted before the report was sent (%(date)s).")
                % {"date": sent.strftime("%d-%m-%Y")}
            }
        )
    if posted_on > today(report.pound):
        raise ValidationError(
            {"posted_on": _("Record the notice on or after the day it is posted, not before.")}
        )
    return sent


@transaction.atomic
def post_notice(*, report, by, posted_on, posted_at, seizure_place=""):
    """The officer records the day he stuck up the notice in his office: the second clock. The
    notice states (a), (b) and (c) of s.14; `seizure_place` is (b) in his words, required when
    the register gave none fit to publish."""
    report = (
        Report.objects.select_for_update(of=("self",))
        .select_related("pound", "impoundment")
        .get(pk=report.pk)
    )
    pound = report.pound
    authorise(by, Permission.HANDLE_UNCLAIMED, pound)
    if hasattr(report, "notice"):
        raise ValidationError(_("The notice for this report is already recorded."))
    seizure_place = seizure_place.strip()
    _notice_particulars(report, seizure_place)
    sent = _check_posting_day(report, posted_on)
    last_day, earliest = notice_dates(posted_on, entry=report.impoundment)
    number = serial("ntc", pound, posted_on.year)
    document = IssuedDocument.objects.issue(
        kind=IssuedDocument.Kind.S14_NOTICE,
        number=number,
        by=by,
        subject_type="auctions.notice",
        pound=pound,
    )
    notice = Notice.objects.create(
        report=report,
        pound=pound,
        number=number,
        posted_on=posted_on,
        posted_at=posted_at,
        seizure_place=seizure_place,
        last_day_to_claim=last_day,
        earliest_sale=earliest,
        recorded_by=by,
        document=document,
    )
    IssuedDocument.objects.link(document, notice)
    # The public board's mark (Animal.notice_posted_on); PostgreSQL's trigger sets it as well.
    later = Q(notice_posted_on__isnull=True) | Q(notice_posted_on__lt=posted_on)
    report.animals.filter(later).update(notice_posted_on=posted_on)
    late = (posted_on - sent).days
    record_event(
        action=Action.S14_NOTICE_POSTED,
        section="s.14",
        by=by,
        impoundment=report.impoundment,
        summary=Message(
            gettext_noop(
                "%(number)s posted on %(posted_on)s at %(place)s; claims until %(last_day)s; "
                "sale not before %(earliest)s"
            ),
            number=number,
            posted_on=posted_on,
            place=posted_at,
            last_day=last_day,
            earliest=earliest,
        ),
        data={
            "notice": number,
            "posted_on": posted_on,
            "last_day": last_day,
            "earliest_sale": earliest,
            "days_after_report": late,
            # (b) as the officer stated it, when the register gave none fit to publish.
            "seizure_place_stated": seizure_place,
        },
    )
    todos.close(f"notice_due:{report.pk}")
    transaction.on_commit(lambda: keep_notice_pdf.enqueue(notice.pk), robust=True)
    return notice


@transaction.atomic
def record_proclamation(
    *,
    notice,
    by,
    channel,
    made_on,
    made_by,
    place="",
    village=None,
    details="",
    photo=None,
    idempotency_key=None,
):
    """Proclamation by beat of drum in the village and at the nearest market-place (s.14), or a
    further channel, recorded separately: a further channel never replaces the drum. Once for
    each `idempotency_key`: the same form sent again returns the proclamation it recorded."""
    authorise(by, Permission.HANDLE_UNCLAIMED, notice.pound)
    Notice.objects.select_for_update(of=("self",)).get(pk=notice.pk)  # one sending at a time
    owner = {"notice_id": notice.pk, "recorded_by_id": by.pk}
    if (done := made_with_key(Proclamation, idempotency_key, **owner)) is not None:
        return done
    if made_on < notice.posted_on or made_on > today(notice.pound):
        raise ValidationError(
            {"made_on": _("The date must fall between the posting of the notice and today.")}
        )
    if channel in (Proclamation.Channel.DRUM_VILLAGE, Proclamation.Channel.DRUM_MARKET) and not (
        place.strip() or village
    ):
        raise ValidationError({"place": _("Name the village or the market-place.")})
    if village is not None and village.district_id != notice.pound.district_id:
        raise ValidationError({"village": _("The village must be in the pound's district.")})
    proclamation = Proclamation(
        notice=notice,
        channel=channel,
        made_on=made_on,
        place=place,
        village=village,
        made_by=made_by,
        details=details,
        recorded_by=by,
        idempotency_key=idempotency_key,
    )
    # Check the record before the photo is stored, so that a refusal leaves no stray file.
    proclamation.full_clean(exclude=["notice", "photo"])
    if photo:
        photo = resize_photo(photo)
        proclamation.photo.save(photo.name, photo, save=False)
    proclamation.save()
    record_event(
        action=Action.S14_PROCLAIMED,
        section="s.14",
        by=by,
        impoundment=notice.report.impoundment,
        summary=Message(
            gettext_noop("%(channel)s, %(date)s, %(place)s, by %(by)s"),
            channel=in_both(Proclamation.Channel(channel).label),
            date=made_on,
            place=place or (bilingual(village.name, village.name_hi) if village else ""),
            by=made_by,
        ),
        data={
            "notice": notice.number,
            "channel": channel,
            "made_on": made_on,
            "place": place,
            "village": village.pk if village else None,
        },
    )
    return proclamation


# --- The District Magistrate's conditions of sale -------------------------------------------


@transaction.atomic
def set_auction_conditions(
    *,
    district,
    by,
    order_reference,
    order_date,
    valid_from,
    place,
    hours,
    reserve_policy,
    earnest_money,
    buyer_declarations,
    chargeable_expenses,
    max_expenses_per_lot=ZERO,
    s16_min_gap_days=1,
    valid_to=None,
    idempotency_key=None,
    **in_second_language,
):
    """A new standing order; it ends the open-ended order before it (versioned, no overlap).
    Once for each `idempotency_key`: the same form sent again returns the order it recorded.
    `in_second_language`: the public texts in the district's language (`place_hi`, ...)."""
    unknown = set(in_second_language) - {name + "_hi" for name in CONDITION_TEXTS}
    if unknown:
        raise TypeError(f"unexpected arguments: {sorted(unknown)}")
    if not has_permission(by, Permission.PREPARE_ORDERS, district):
        raise PermissionDenied(_("Only the District Magistrate's office sets the conditions."))
    District.objects.select_for_update(of=("self",)).get(pk=district.pk)
    owner = {"district_id": district.pk, "created_by_id": by.pk}
    if (done := made_with_key(AuctionConditions, idempotency_key, **owner)) is not None:
        return done
    same = AuctionConditions.objects.filter(district=district)
    superseded = list(same.filter(valid_to__isnull=True, valid_from__lt=valid_from))
    clash = same.overlapping(valid_from, valid_to).exclude(pk__in=[o.pk for o in superseded])
    if clash.exists():
        raise ValidationError({"valid_from": _("These dates overlap another standing order.")})
    for old in superseded:
        old.valid_to = valid_from - timedelta(days=1)
        old.save(update_fields=["valid_to"])
    conditions = AuctionConditions(
        district=district,
        order_reference=order_reference,
        order_date=order_date,
        valid_from=valid_from,
        valid_to=valid_to,
        place=place,
        hours=hours,
        reserve_policy=reserve_policy,
        earnest_money=Decimal(earnest_money),
        buyer_declarations=buyer_declarations,
        chargeable_expenses=chargeable_expenses,
        max_expenses_per_lot=Decimal(max_expenses_per_lot),
        s16_min_gap_days=s16_min_gap_days,
        created_by=by,
        idempotency_key=idempotency_key,
        **in_second_language,
    )
    conditions.full_clean(exclude=["idempotency_key"])
    conditions.save()
    record_event(
        action=Action.S14_CONDITIONS_SET,
        section="s.14",
        by=by,
        district=district,
        summary=Message(
            gettext_noop("Conditions of sale %(order)s in force from %(date)s"),
            order=order_reference,
            date=valid_from,
        ),
        data={"conditions": conditions.pk, "superseded": [o.pk for o in superseded]},
    )
    return conditions


def conditions_on(district, day):
    found = AuctionConditions.objects.filter(district=district).in_force(day).first()
    if found is None:
        raise ValidationError(
            _(
                "No standing order of the District Magistrate sets the place, "
                "time and conditions of sale on %(date)s (s.14)."
            )
            % {"date": day.strftime("%d-%m-%Y")}
        )
    return found
