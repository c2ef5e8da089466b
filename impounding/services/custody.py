"""s.9 custody: the daily feeding log, deaths, escapes, rescues (s.24), recaptures and births."""

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from accounts import todos
from accounts.roles import Permission
from accounts.scoping import authorise
from kernel import clock
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import Message

from ..actions import Action
from ..models import (
    OUT_OF_POUND,
    TERMINAL,
    AgeClass,
    Animal,
    AnimalState,
    CustodyEvent,
    FeedingLog,
    Sex,
    canonical_colour,
)
from ..selectors import animals_in_custody_on
from .common import ensure_transition


def _lock(animal):
    return (
        Animal.objects.select_for_update(of=("self",))
        .select_related("impoundment__pound")
        .get(pk=animal.pk)
    )


def _check_time(animal, at):
    if at > clock.now(animal.impoundment.pound):
        raise ValidationError({"at": _("The time cannot be in the future.")})
    if at < (animal.born_at or animal.impoundment.arrived_at):
        raise ValidationError({"at": _("The time is before the animal came to the pound.")})
    last = animal.custody_events.order_by("-at").first()
    if last and at < last.at:
        raise ValidationError({"at": _("The time is before the animal's last recorded event.")})


def end_custody(animals, *, state, at, release=None, court_order=None):
    """Move the animals to an end of custody: a release (s.13, s.15, a court's order), a sale, a
    disposal, a return after a s.16 sale, a death, or an escape or rescue.

    Every animal must be allowed the move (`ensure_transition`), or none moves. An end for good
    sets `custody_ended_at` to `at`: feeding accrues until then. An escape or rescue leaves it
    empty, as the animal may come back and its feeding only pauses (docs/domain.md decision 12).
    A release names its `release`, one by a court's order its `court_order`.

    The caller locks the animals, writes first the record the end rests on (the database refuses
    an end without it: docs/decisions/0005), and writes its own event and postings."""
    if state not in TERMINAL | OUT_OF_POUND:
        raise ValueError(f"{state} is not an end of custody")
    for animal in animals:
        ensure_transition(animal, state)
    fields = ["state"]
    if state in TERMINAL:
        fields.append("custody_ended_at")
    if release is not None:
        fields.append("release")
    if court_order is not None:
        fields.append("court_order")
    for animal in animals:
        animal.state = state
        if state in TERMINAL:
            animal.custody_ended_at = at
        if release is not None:
            animal.release = release
        if court_order is not None:
            animal.court_order = court_order
        animal.save(update_fields=fields)


def _captured(captured_at):
    """The field app's time of capture on the phone, for the event beside the server's time."""
    return {"captured_at": captured_at} if captured_at else {}


def _custody_event(animal, kind, at, by, to_state, section, summary, captured_at=None, **details):
    ensure_transition(animal, to_state)
    _check_time(animal, at)
    event = CustodyEvent(animal=animal, kind=kind, at=at, recorded_by=by, **details)
    event.full_clean()
    event.save()
    old = animal.state
    if to_state == AnimalState.IMPOUNDED:
        # Back in the pound: custody goes on, and feeding accrues again.
        animal.state = to_state
        animal.save(update_fields=["state"])
    else:
        end_custody([animal], state=to_state, at=at)
    record_event(
        action=Action(f"custody.{kind}"),
        section=section,
        summary=summary,
        by=by,
        animal=animal,
        at=None,
        data={"from": old, "to": to_state, "at": at, **details, **_captured(captured_at)},
    )
    return event


@transaction.atomic
def record_death(
    *, animal, by, at, cause, vet_name="", certificate="", carcass_disposal="", captured_at=None
):
    """Death ends custody: feeding stops accruing at the time of death (docs/domain.md,
    decision 12)."""
    animal = _lock(animal)
    authorise(by, Permission.RECORD_CUSTODY, animal.impoundment.pound)
    if not cause.strip():
        raise ValidationError({"cause": _("Record the cause of death, as far as it is known.")})
    return _custody_event(
        animal,
        CustodyEvent.Kind.DIED,
        at,
        by,
        AnimalState.DIED,
        "s.9",
        Message(gettext_noop("%(animal)s died: %(cause)s"), animal=animal.reference, cause=cause),
        cause=cause,
        captured_at=captured_at,
        vet_name=vet_name,
        certificate=certificate,
        carcass_disposal=carcass_disposal,
    )


@transaction.atomic
def record_escape(
    *, animal, by, at, rescued=False, police_reference="", notes="", captured_at=None
):
    """Escape, or rescue by force from custody (s.24). Feeding pauses while it is out."""
    animal = _lock(animal)
    authorise(by, Permission.RECORD_CUSTODY, animal.impoundment.pound)
    if rescued:
        return _custody_event(
            animal,
            CustodyEvent.Kind.RESCUED,
            at,
            by,
            AnimalState.RESCUED,
            "s.24",
            Message(gettext_noop("%(animal)s rescued from custody"), animal=animal.reference),
            police_reference=police_reference,
            notes=notes,
            captured_at=captured_at,
        )
    return _custody_event(
        animal,
        CustodyEvent.Kind.ESCAPED,
        at,
        by,
        AnimalState.ESCAPED,
        "s.9",
        Message(gettext_noop("%(animal)s escaped"), animal=animal.reference),
        police_reference=police_reference,
        notes=notes,
        captured_at=captured_at,
    )


@transaction.atomic
def record_return(*, animal, by, at, notes=""):
    """The animal is back in the pound; feeding accrues again from that day."""
    animal = _lock(animal)
    authorise(by, Permission.RECORD_CUSTODY, animal.impoundment.pound)
    return _custody_event(
        animal,
        CustodyEvent.Kind.RETURNED,
        at,
        by,
        AnimalState.IMPOUNDED,
        "s.9",
        Message(gettext_noop("%(animal)s back in the pound"), animal=animal.reference),
        notes=notes,
    )


@transaction.atomic
def record_birth(*, dam, by, at, sex, colour, marks="", idempotency_key=None, captured_at=None):
    """A calf born in the pound: a new animal linked to its dam, with no fine (decision 12).
    Once for each `idempotency_key`: the same form sent again returns the calf it entered."""
    dam = _lock(dam)
    authorise(by, Permission.RECORD_CUSTODY, dam.impoundment.pound)
    if dam.state != AnimalState.IMPOUNDED:
        raise ValidationError(_("Only an animal in the pound can give birth there."))
    if dam.sex != Sex.FEMALE:
        raise ValidationError(_("Only a female animal can be recorded as giving birth."))
    _check_time(dam, at)
    entry = dam.impoundment
    # Lock the entry so that two births recorded at once get different numbers.
    type(entry).objects.select_for_update(of=("self",)).get(pk=entry.pk)
    born = made_with_key(CustodyEvent, idempotency_key, animal__dam_id=dam.pk, recorded_by_id=by.pk)
    if born is not None:
        return born.animal
    number = (entry.animals.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    calf = Animal(
        impoundment=entry,
        number=number,
        species=dam.species,
        sex=sex,
        age_class=AgeClass.YOUNG,
        colour=canonical_colour(colour),
        marks=marks,
        dam=dam,
        born_at=at,
    )
    calf.full_clean(exclude=["impoundment", "release", "court_order", "dam"])
    calf.save()
    CustodyEvent.objects.create(
        animal=calf,
        kind=CustodyEvent.Kind.BORN,
        at=at,
        recorded_by=by,
        notes=_("Dam: %(dam)s") % {"dam": dam.reference},
        idempotency_key=idempotency_key,
    )
    record_event(
        action=Action.CUSTODY_BORN,
        section="s.9",
        summary=Message(
            gettext_noop("%(calf)s born to %(dam)s"), calf=calf.reference, dam=dam.reference
        ),
        by=by,
        animal=calf,
        data={
            "dam": dam.reference,
            "at": at,
            "sex": sex,
            "colour": colour,
            **_captured(captured_at),
        },
    )
    return calf


def _check_not_fed_yet(pound, date, earlier, animals_fed):
    """A later round of `date` feeds only animals that the earlier rounds did not."""
    if not earlier:
        return
    left = animals_in_custody_on(pound, date) - sum(log.animals_fed for log in earlier)
    if left <= 0:
        raise ValidationError(
            {"date": _("Every animal in the pound that day is already recorded as fed.")}
        )
    if animals_fed > left:
        raise ValidationError(
            {
                "animals_fed": ngettext(
                    "Only %(left)s animal in the pound that day is not yet recorded as fed.",
                    "Only %(left)s animals in the pound that day are not yet recorded as fed.",
                    left,
                )
                % {"left": left}
            }
        )


@transaction.atomic
def log_feeding(
    *,
    pound,
    by,
    date,
    animals_fed,
    fodder,
    watered=True,
    cost=None,
    remarks="",
    idempotency_key=None,
    captured_at=None,
):
    """The day's feeding and watering record (s.9). A day may have a second round (and more)
    for animals that came after the first: together the rounds feed no more animals than were
    in the pound that day. Once for each `idempotency_key`: the same form sent again returns
    the round it recorded, never a second round."""
    authorise(by, Permission.RECORD_CUSTODY, pound)
    owner = {"pound_id": pound.pk, "recorded_by_id": by.pk}
    if (done := made_with_key(FeedingLog, idempotency_key, **owner)) is not None:
        return done
    if date > clock.today(pound):
        raise ValidationError({"date": _("The date cannot be in the future.")})
    earlier = list(FeedingLog.objects.filter(pound=pound, date=date).order_by("round"))
    _check_not_fed_yet(pound, date, earlier, animals_fed)
    log = FeedingLog(
        pound=pound,
        date=date,
        round=len(earlier) + 1,
        animals_fed=animals_fed,
        fodder=fodder,
        watered=watered,
        cost=cost,
        remarks=remarks,
        recorded_by=by,
        idempotency_key=idempotency_key,
    )
    log.full_clean(exclude=["pound", "idempotency_key"])
    try:
        with transaction.atomic():
            log.save()
    except IntegrityError as exc:
        # The same form, sent at the same time, recorded first: its round is this one.
        if (done := made_with_key(FeedingLog, idempotency_key, **owner)) is not None:
            return done
        # Another round of the same day was recorded meanwhile.
        raise ValidationError(
            {"date": _("Another record for this day was made meanwhile: look again.")}
        ) from exc
    record_event(
        action=Action.CUSTODY_FED,
        section="s.9",
        summary=Message(
            gettext_noop("Fed and watered %(count)s animal(s) on %(date)s"),
            count=animals_fed,
            date=date,
        ),
        by=by,
        pound=pound,
        data={
            "date": date,
            "animals": animals_fed,
            "fodder": fodder,
            "watered": watered,
            "cost": cost,
            "round": log.round,
            **_captured(captured_at),
        },
    )
    todos.close(f"feeding_missed:{pound.pk}:{date.isoformat()}")
    return log
