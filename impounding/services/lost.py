"""Lost-cattle reports (ADR 0079): a draft proved by a one-time code, submitted, matched to the
animals in custody, and the keeper's decision on each match.

Matching reads indexed rows only and a bounded number of them: by tag, the animals in custody
with that tag (the ear-tag index); by description, the animals in custody of the report's
district of the same species, seized on or after the day lost (the (pound, state) index), at
most MATCH_LIMIT of them. Nothing here reads the event history.
"""

import secrets
from datetime import datetime, time, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, get_random_string, salted_hmac
from django.utils.translation import gettext_noop

from accounts.roles import Permission
from accounts.scoping import authorise
from accounts.throttle import hit
from kernel.events import record_event
from kernel.messages import Message
from rulepacks.services import pack_for

from .. import lost_notify
from ..actions import Action
from ..dues import dues
from ..models import Animal, LostMatch, LostReport, PhoneCode
from ..tariffs import TariffMissing
from .intake import resize_photo

CODE_MINUTES = 10
CODE_TRIES = 3
MATCH_LIMIT = 50
MIN_SCORE = 60
TAG_SCORE = 100
REFERENCE_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


class Throttled(Exception):
    """Too many codes sent from this address, or to this phone."""


class CodeRefused(Exception):
    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason  # "wrong", "expired" or "tries"


# --- The draft and its code --------------------------------------------------------------------


def save_draft(*, data, language, report=None):
    """A new draft from the form's cleaned `data`, or `report` (a draft) changed to it. A changed
    phone must be proved again."""
    report = report or LostReport(reference=_new_reference())
    photo = data.pop("photo", None)
    if data.get("phone") != report.phone:
        report.phone_verified = False
    for name, value in data.items():
        setattr(report, name, value)
    if photo:
        if report.photo:  # the photo chosen before is replaced, not left behind
            report.photo.delete(save=False)
        report.photo = resize_photo(photo)
    report.language = language
    report.save()
    return report


def _new_reference():
    return "L" + get_random_string(7, REFERENCE_CHARS)


def _hash(report, code):
    return salted_hmac(f"lost-code:{report.pk}", code, algorithm="sha256").hexdigest()


def send_code(report, *, address):
    """Send a new code to the draft's phone; Throttled past the address's hourly and the
    phone's daily limit (counted in the database, so every app server shares the count)."""
    now = timezone.now()
    hour, day = int(now.timestamp() // 3600), now.date().isoformat()
    if hit(f"lost-code-ip:{address}:{hour}", ttl=timedelta(hours=2)) > (
        settings.LOST_CODES_PER_ADDRESS_HOUR
    ):
        raise Throttled("address")
    if hit(f"lost-code-phone:{report.phone}:{day}", ttl=timedelta(days=2)) > (
        settings.LOST_CODES_PER_PHONE_DAY
    ):
        raise Throttled("phone")
    code = f"{secrets.randbelow(10**6):06d}"
    with transaction.atomic():
        report.codes.filter(used_at__isnull=True).update(used_at=now)  # one live code at a time
        PhoneCode.objects.create(
            report=report,
            code_hash=_hash(report, code),
            expires_at=now + timedelta(minutes=CODE_MINUTES),
        )
        lost_notify.send_verification_code(
            report=report, phone=report.phone, code=code, language=report.language
        )


def check_code(report, code):
    """Mark the draft's phone proved if `code` is its live code; CodeRefused otherwise (a wrong
    try is counted: the refusal is raised once the count is committed)."""
    if (reason := _try_code(report, code)) is not None:
        raise CodeRefused(reason)
    report.phone_verified = True


def spend_live_code(codes, digest):
    """Spend the newest unused code of `codes` (a queryset of one holder's one-time codes: the
    lost report's or the opting out's) if `digest` is its hash: None then, else the refusal's
    reason, a wrong try counted. Called in the caller's transaction; the code's row is locked."""
    now = timezone.now()
    live = codes.select_for_update(of=("self",)).filter(used_at__isnull=True)
    live = live.order_by("-sent_at").first()
    if live is None or live.expires_at <= now:
        return "expired"
    if live.tries >= CODE_TRIES:
        return "tries"
    if not constant_time_compare(live.code_hash, digest):
        live.tries += 1
        live.save(update_fields=["tries"])
        return "tries" if live.tries >= CODE_TRIES else "wrong"
    live.used_at = now
    live.save(update_fields=["used_at"])
    return None


@transaction.atomic
def _try_code(report, code):
    reason = spend_live_code(PhoneCode.objects.filter(report=report), _hash(report, code))
    if reason is None:
        LostReport.objects.filter(pk=report.pk).update(phone_verified=True)
    return reason


# --- Submitting and matching -------------------------------------------------------------------


def open_days(district):
    """The days a report stays open: the district's rule pack's, or the product's default."""
    return pack_for(district).rules.clocks.lost_report_days or settings.LOST_REPORT_DAYS


@transaction.atomic
def submit(report):
    """The proved draft becomes an open report and is matched. Sent twice, done once."""
    report = LostReport.objects.select_for_update(of=("self",)).get(pk=report.pk)
    if report.state != LostReport.State.DRAFT:
        return report
    if not report.phone_verified:
        raise CodeRefused("expired")
    now = timezone.now()
    report.state = LostReport.State.OPEN
    report.submitted_at = now
    report.expires_at = now + timedelta(days=open_days(report.district))
    report.save(update_fields=["state", "submitted_at", "expires_at"])
    match_report(report)
    return report


def _words(text):
    return {w for w in "".join(c if c.isalnum() else " " for c in text.lower()).split() if w}


def score(report, animal):
    """100 for the same tag; else species 40, colour 30, place 20, seized within three days of
    the loss 10 (a week: 5)."""
    if report.ear_tag and animal.ear_tag == report.ear_tag:
        return TAG_SCORE
    points = 40 if animal.species == report.species else 0
    if _words(report.colour) & _words(animal.colour):
        points += 30
    entry = animal.impoundment
    village = entry.seizure_village
    places = _words(entry.seizure_place) | (_words(village.name) if village else set())
    if _words(report.place) & places:
        points += 20
    days = (timezone.localtime(entry.seized_at).date() - report.lost_on).days
    points += 10 if 0 <= days <= 3 else 5 if 0 <= days <= 7 else 0
    return points


def match_report(report):
    """Record the animals in custody the report may describe: bounded, indexed reads."""
    in_custody = Animal.objects.in_custody().select_related("impoundment__seizure_village")
    found = {}
    if report.ear_tag:
        for animal in in_custody.filter(ear_tag=report.ear_tag)[:MATCH_LIMIT]:
            found[animal.pk] = (animal, TAG_SCORE, True)
    since = timezone.make_aware(datetime.combine(report.lost_on, time.min))
    described = in_custody.filter(
        pound__district=report.district,
        species=report.species,
        impoundment__seized_at__gte=since,
    ).order_by("impoundment__seized_at", "pk")[:MATCH_LIMIT]
    for animal in described:
        if animal.pk not in found and (points := score(report, animal)) >= MIN_SCORE:
            found[animal.pk] = (animal, points, False)
    LostMatch.objects.bulk_create(
        [
            LostMatch(report=report, animal=animal, score=points, by_tag=by_tag)
            for animal, points, by_tag in found.values()
        ],
        ignore_conflicts=True,
    )
    return len(found)


# --- Animals entered after the report (the worker's, ADR 0079 addendum) ------------------------


def open_reports():
    """The reports still open now: submitted, not found, not past their period (a report past it
    that the daily run has not yet lapsed is not among them)."""
    return LostReport.objects.filter(state=LostReport.State.OPEN, expires_at__gt=timezone.now())


def match_animals(animal_ids):
    """Record the open reports that the animals `animal_ids` (newly entered, or corrected) may
    be, as a report filed now would find them: by tag, the open reports with the animal's tag
    (their partial index, any district, as `match_report` reads the animals by tag); by
    description, the open reports of the animal's district and species lost on or before its
    seizure (their partial index), at most MATCH_LIMIT of each. One query for the tags and one
    for each (district, species, day of seizure) among the animals, whatever the number of
    open reports. A pair found before is not recorded again (the unique constraint)."""
    animals = list(
        Animal.objects.in_custody()
        .filter(pk__in=animal_ids)
        .select_related("impoundment__seizure_village", "pound")
    )
    found = {}
    tags = {a.ear_tag for a in animals if a.ear_tag}
    if tags:
        by_tag = open_reports().filter(ear_tag__in=tags).order_by("-submitted_at", "pk")
        for report in by_tag[: MATCH_LIMIT * len(tags)]:
            for animal in animals:
                if animal.ear_tag == report.ear_tag:
                    found[(report.pk, animal.pk)] = (report, animal, TAG_SCORE, True)
    groups: dict[tuple, list] = {}
    for animal in animals:
        seized = timezone.localtime(animal.impoundment.seized_at).date()
        groups.setdefault((animal.pound.district_id, animal.species, seized), []).append(animal)
    for (district_id, species, seized), members in groups.items():
        described = open_reports().filter(
            district_id=district_id, species=species, lost_on__lte=seized
        )
        for report in described.order_by("-lost_on", "pk")[:MATCH_LIMIT]:
            for animal in members:
                if (report.pk, animal.pk) in found:
                    continue
                if (points := score(report, animal)) >= MIN_SCORE:
                    found[(report.pk, animal.pk)] = (report, animal, points, False)
    LostMatch.objects.bulk_create(
        [
            LostMatch(report=report, animal=animal, score=points, by_tag=by_tag)
            for report, animal, points, by_tag in found.values()
        ],
        ignore_conflicts=True,
    )
    return len(found)


# --- The keeper's decision ---------------------------------------------------------------------


@transaction.atomic
def decide(match, *, by, confirm):
    """The keeper confirms the animal is the one reported (the owner is told through
    lost_notify, with the pound and the dues) or says it is not. Decided twice, done once."""
    match = (
        LostMatch.objects.select_for_update(of=("self",))
        .select_related("report", "animal__impoundment__pound__district")
        .get(pk=match.pk)
    )
    animal = match.animal
    authorise(by, Permission.RECORD_CUSTODY, animal)
    if match.state != LostMatch.State.CANDIDATE:
        return match
    match.state = LostMatch.State.CONFIRMED if confirm else LostMatch.State.REJECTED
    match.decided_by, match.decided_at = by, timezone.now()
    match.save(update_fields=["state", "decided_by", "decided_at"])
    report = match.report
    entry = animal.impoundment
    record_event(
        action=Action.LOST_MATCH_CONFIRMED if confirm else Action.LOST_MATCH_REJECTED,
        # The Act is silent on reaching an owner; the claim it leads to is one under s.13.
        section="s.13",
        summary=Message(
            gettext_noop("%(animal)s matched to lost-cattle report %(report)s")
            if confirm
            else gettext_noop("%(animal)s is not the animal of lost-cattle report %(report)s"),
            animal=animal.reference,
            report=report.reference,
        ),
        by=by,
        animal=animal,
        data={"report": report.reference, "score": match.score},
    )
    if confirm:
        LostReport.objects.filter(pk=report.pk).update(state=LostReport.State.FOUND)
        animals = Animal.objects.filter(pk=animal.pk).prefetch_related("custody_events")
        try:
            owed = dues(animals.select_related("impoundment__pound__district")).total
        except TariffMissing:  # the district's tariff is not recorded: the pound tells him
            owed = None
        lost_notify.notify_owner_of_match(
            report=report, entry=entry, dues=owed, language=report.language
        )
    return match


# --- Lapsing and retention ---------------------------------------------------------------------


def lapse_and_erase(now=None):
    """Lapse the open reports past their period; erase the phone, photo and notices of the
    lapsed and found ones past it, and delete drafts a day old. Returns the count erased."""
    now = now or timezone.now()
    LostReport.objects.filter(state=LostReport.State.OPEN, expires_at__lte=now).update(
        state=LostReport.State.LAPSED
    )
    drafts = LostReport.objects.filter(
        state=LostReport.State.DRAFT, created_at__lt=now - timedelta(days=1)
    )
    for draft in drafts.exclude(photo=""):
        draft.photo.delete(save=False)
    drafts.delete()
    due = LostReport.objects.filter(
        state__in=[LostReport.State.LAPSED, LostReport.State.FOUND],
        expires_at__lte=now,
        erased_at__isnull=True,
    )
    count = 0
    for report in due.iterator():
        if report.photo:
            report.photo.delete(save=False)
        report.notices.all().delete()
        LostReport.objects.filter(pk=report.pk).update(phone="", photo="", marks="", erased_at=now)
        count += 1
    return count


def lost_candidates(entry, in_pound):
    """The candidates waiting on the entry's animals in the pound: one indexed read, none for an
    entry with none in the pound."""
    if not in_pound:
        return []
    return list(
        LostMatch.objects.filter(
            animal_id__in=[a.pk for a in in_pound], state=LostMatch.State.CANDIDATE
        )
        .select_related("report", "animal__impoundment")
        .order_by("-score", "pk")[:MATCH_LIMIT]
    )
