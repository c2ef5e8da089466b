"""s.8: entering cattle in the register on arrival, and correcting the register."""

import logging
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import Counter, DistrictPolicy, PoundVillage
from accounts.roles import Permission
from accounts.scoping import authorise
from kernel import clock, languages
from kernel.events import record_event
from kernel.messages import Message, in_both
from kernel.uploads import check_pixels, reencode_image
from ledger import services as ledger
from messaging import notices
from rulepacks import services as rulepacks

from ..actions import Action
from ..models import (
    CAPACITIES_FOR_BASIS,
    Amendment,
    Animal,
    Impoundment,
    SeizureBasis,
    TagLookup,
    canonical_colour,
)
from ..registry import cached_owner
from ..repeats import prior_seizures
from ..tags import normalise_tag, tag_check_fails, tag_warning, validate_ear_tag
from ..tasks import match_later
from .common import blank_errors
from .field import flag_device_clock
from .inspections import open_inspection_todo

logger = logging.getLogger(__name__)

PHOTO_MAX_PX = 1280


def resize_photo(upload, field="photo"):
    """Shrink a phone photo to at most 1280 px, turned upright, as a JPEG with no EXIF data
    (which would carry the GPS position and the phone's make)."""
    return reencode_image(upload, field=field, max_px=PHOTO_MAX_PX)


def intake_warnings(*, pound, seized_at, arrived_at, basis, seizer_capacity, seizure_village):
    """Warnings for the Magistrate (docs/domain.md decision 13). They never refuse an arrival."""
    warnings = []
    policy = DistrictPolicy.for_district(pound.district)
    if (
        seized_at
        and arrived_at
        and arrived_at - seized_at > timedelta(hours=policy.transfer_limit_hours)
    ):
        hours = int((arrived_at - seized_at).total_seconds() // 3600)
        warnings.append(
            {"code": "late_transfer", "hours": hours, "limit": policy.transfer_limit_hours}
        )
    if basis == SeizureBasis.S10_LAND and seizure_village is not None:
        day = timezone.localtime(seized_at).date() if seized_at else timezone.localdate()
        served = PoundVillage.objects.in_force(day).filter(village=seizure_village, pound=pound)
        if not served.exists():
            warnings.append({"code": "village_not_served", "village": seizure_village.name})
    if basis and seizer_capacity and seizer_capacity not in CAPACITIES_FOR_BASIS.get(basis, set()):
        warnings.append({"code": "capacity_mismatch", "basis": basis, "capacity": seizer_capacity})
    return warnings


ANIMAL_FIELDS = ("species", "sex", "age_class", "colour", "marks", "ear_tag")
ENTRY_REQUIRED = ("seizure_place", "seizer_name", "seizer_residence")
PHOTO_MAX_BYTES = 12 * 1024 * 1024


def check_entry(data):
    """The arrival's answers (s.8) as the register keeps them, or a ValidationError naming every
    answer that is wrong: the rules the arrival screen's form and the API both apply, after their
    own fields' types. Answers left from a basis changed on the way are cleared."""
    errors = blank_errors(data, ENTRY_REQUIRED)
    basis = data.get("basis")
    if basis == SeizureBasis.OTHER and not data.get("basis_other"):
        errors["basis_other"] = _("Name the notification the seizure relies on.")
    # The s.11 questions are asked only for a s.11 seizure, the notification only for another
    # basis.
    if basis != SeizureBasis.S11_PUBLIC:
        data.update(s11_site="", s11_ground="", pound_choice_reason="")
    if basis != SeizureBasis.OTHER:
        data["basis_other"] = ""
    if basis == SeizureBasis.S11_PUBLIC:
        if not data.get("s11_site"):
            errors["s11_site"] = _("Say which public work.")
        if not data.get("s11_ground"):
            errors["s11_ground"] = _("Say whether it was doing damage or straying.")
    seized, arrived = data.get("seized_at"), data.get("arrived_at")
    if seized and arrived and seized > arrived:
        errors["seized_at"] = _("The seizure must come before the arrival.")
    if data.get("notice_description") and not data.get("notice_confirmed"):
        errors["notice_confirmed"] = _(
            "Confirm the description is fit to publish, or leave it out."
        )
    data.pop("notice_confirmed", None)
    if errors:
        raise ValidationError(errors)
    return data


def check_animal(data):
    """One animal's answers on arrival, its ear tag normalised, or a ValidationError naming every
    answer that is wrong. A tag failing the Pashu Aadhaar check stands only when the keeper
    confirms that it reads as written (impounding/tags.py)."""
    errors = blank_errors(data, ["colour"])
    if data.get("colour"):  # a listed colour typed in any language is kept in English
        data["colour"] = canonical_colour(data["colour"])
    if "ear_tag" in data:
        data["ear_tag"] = normalise_tag(data["ear_tag"] or "")
        try:
            validate_ear_tag(data["ear_tag"], confirmed=data.get("tag_confirmed"))
        except ValidationError as exc:
            errors |= exc.message_dict
    photo = data.get("photo")
    if photo and photo.size > PHOTO_MAX_BYTES:
        errors["photo"] = _("The photo is larger than 12 MB.")
    elif photo:
        try:
            check_pixels(photo, "photo")  # a file that is no image, before the entry is made
        except ValidationError as exc:
            errors |= exc.message_dict
    if errors:
        raise ValidationError(errors)
    return data


def _check_arrival(*, animals, arrived_at, seized_at, pound=None):
    if not animals:
        raise ValidationError(_("Enter at least one animal."))
    if arrived_at > clock.now(pound) + timedelta(minutes=5):
        raise ValidationError({"arrived_at": _("The arrival cannot be in the future.")})
    if seized_at > arrived_at:
        raise ValidationError({"seized_at": _("The seizure must come before the arrival.")})


def _enter_animals(entry, animals):
    """Number the animals of an entry from 1, in the order given, each tag's earlier seizures
    in the State counted (to a bound) for the repeat-seizure fine (ADR 0078)."""
    created = []
    tags = [normalise_tag(d.get("ear_tag", "") or "") for d in animals]
    earlier = prior_seizures(tags, entry.pound_id)
    for number, data in enumerate(animals, start=1):
        confirmed = bool(data.get("tag_confirmed"))
        validate_ear_tag(data.get("ear_tag", ""), confirmed=confirmed)
        if tag_check_fails(data.get("ear_tag", "")):
            entry.warnings.append(tag_warning(number, data["ear_tag"]))
        animal = Animal(
            impoundment=entry,
            number=number,
            prior_seizures=earlier.get(tags[number - 1], 0),
            **{f: data.get(f, "") for f in ANIMAL_FIELDS},
        )
        if data.get("photo"):
            photo = resize_photo(data["photo"])
            animal.photo.save(photo.name, photo, save=False)
        animal.full_clean(exclude=["impoundment", "release", "court_order"])
        animal.save()
        created.append(animal)
    return created


def _record_entered(entry, animals, by):
    record_event(
        action=Action.REGISTER_ENTERED,
        section="s.8",
        summary=Message(
            gettext_noop("%(number)s: %(count)s animal(s) entered"),
            number=entry.register_number,
            count=len(animals),
        ),
        by=by,
        impoundment=entry,
        data={
            "register_number": entry.register_number,
            "arrived_at": entry.arrived_at,
            **({"captured_at": entry.captured_at} if entry.captured_at else {}),
            "seized_at": entry.seized_at,
            "seizure_place": entry.seizure_place,
            "notice_description": entry.notice_description,  # confirmed fit to publish
            "basis": entry.basis,
            "seizer_capacity": entry.seizer_capacity,
            "animals": [
                {f: getattr(a, f) for f in ANIMAL_FIELDS} | {"number": a.number} for a in animals
            ],
            "warnings": entry.warnings,
        },
        # Kept apart from the link, which hashes their digest: erased under the retention rule.
        personal={
            "seizer": [entry.seizer_name, entry.seizer_residence, entry.seizer_phone],
            "owner": [entry.owner_name, entry.owner_residence, entry.owner_phone],
        },
    )


def _record_owner_from_tag(entry, tag, by):
    """s.8(d): the keeper confirmed the owner the ear-tag registry named, before the entry was
    made (ADR 0078). Recorded only when the entry's owner is still the one suggested."""
    tag = normalise_tag(tag or "")
    found = TagLookup.objects.filter(tag=tag).exclude(owner_name="").first()
    if found is None or (found.owner_name, found.owner_phone) != (
        entry.owner_name,
        entry.owner_phone,
    ):
        return
    record_event(
        action=Action.REGISTER_OWNER_FROM_TAG,
        section="s.8",
        summary=Message(
            gettext_noop("%(number)s: owner confirmed from ear tag %(tag)s"),
            number=entry.register_number,
            tag=tag,
        ),
        by=by,
        impoundment=entry,
        data={"tag": tag, "registry": found.registry, "looked_up_at": found.looked_up_at},
        personal={"owner": [found.owner_name, found.owner_village, found.owner_phone]},
    )


def confirm_owner_from_tag(*, entry, by, tag):
    """After the entry is made (the field app's), the keeper confirms the owner the ear-tag
    registry named for one of its animals' tags (ADR 0078, addendum): the register's owner is
    corrected to it, the confirmation recorded as at intake, and the owner told. Confirmed
    twice, done once (the owner already the registry's is not corrected again)."""
    authorise(by, Permission.RECORD_IMPOUNDMENT, entry.pound)
    tag = normalise_tag(tag or "")
    owner = cached_owner(tag) if tag else None
    if owner is None or not entry.animals.filter(ear_tag=tag).exists():
        raise ValidationError(_("The registry names no owner for that tag of this entry."))
    changes = {
        "owner_name": owner.name,
        "owner_residence": owner.village,
        "owner_phone": owner.phone,
    }
    if all(getattr(entry, field) == value for field, value in changes.items()):
        return []
    with transaction.atomic():
        amendments = amend_entry(
            entry=entry,
            by=by,
            reason=_("Owner named by the ear-tag registry for tag %(tag)s, confirmed by the keeper")
            % {"tag": tag},
            changes=changes,
        )
        entry.refresh_from_db()
        _record_owner_from_tag(entry, tag, by)
        _owner_to_be_told(entry, by)
    return amendments


def create_entry(*, idempotency_key=None, **fields):
    """Enter cattle in the register (s.8), once for each `idempotency_key`: a form sent twice,
    or many times at once, gives the one entry, marked `replayed` after the first."""
    if idempotency_key is not None:
        if (entry := _entry_of_key(idempotency_key)) is not None:
            return entry
        try:
            return _create_entry(idempotency_key=idempotency_key, **fields)
        except IntegrityError:
            # The same form committed first, while this one waited on the key's unique index.
            if (entry := _entry_of_key(idempotency_key)) is None:
                raise
            return entry
    return _create_entry(**fields)


def _entry_of_key(key):
    entry = Impoundment.objects.filter(idempotency_key=key).first()
    if entry is not None:
        entry.replayed = True  # type: ignore[attr-defined]
    return entry


@transaction.atomic
def _create_entry(
    *,
    idempotency_key=None,
    pound,
    by,
    arrived_at,
    seized_at,
    seizure_place,
    basis,
    seizer_name,
    seizer_residence,
    seizer_capacity,
    animals,
    seizure_village=None,
    basis_other="",
    s11_site="",
    s11_ground="",
    damage_description="",
    pound_choice_reason="",
    seizer_phone="",
    owner_name="",
    owner_residence="",
    owner_phone="",
    owner_from_tag="",  # the tag whose registered owner the keeper confirmed (ADR 0078)
    notice_description="",
    captured_at=None,  # the field app's (services.field)
    device_now=None,
):
    """Enter cattle in the register when they are brought to the pound (s.8).
    `animals` is a list of dicts with species, sex, age_class, colour, marks, ear_tag and an
    optional photo (an uploaded file, resized here).
    """
    authorise(by, Permission.RECORD_IMPOUNDMENT, pound)
    _check_arrival(animals=animals, arrived_at=arrived_at, seized_at=seized_at, pound=pound)
    year = timezone.localtime(arrived_at).year
    serial = Counter.next(f"register:{pound.pk}:{year}")
    entry = Impoundment(
        pound=pound,
        rule_pack_id=rulepacks.district_pack_id(pound.district_id),
        register_year=year,
        register_serial=serial,
        register_number=f"{pound.code.upper()}/{year}/{serial:05d}",
        arrived_at=arrived_at,
        seized_at=seized_at,
        seizure_place=seizure_place,
        notice_description=notice_description.strip(),
        seizure_village=seizure_village,
        basis=basis,
        basis_other=basis_other,
        s11_site=s11_site,
        s11_ground=s11_ground,
        damage_description=damage_description,
        pound_choice_reason=pound_choice_reason,
        seizer_name=seizer_name,
        seizer_residence=seizer_residence,
        seizer_capacity=seizer_capacity,
        seizer_phone=seizer_phone,
        owner_name=owner_name,
        owner_residence=owner_residence,
        owner_phone=owner_phone,
        recorded_by=by,
        idempotency_key=idempotency_key,
        captured_at=captured_at,
        warnings=intake_warnings(
            pound=pound,
            seized_at=seized_at,
            arrived_at=arrived_at,
            basis=basis,
            seizer_capacity=seizer_capacity,
            seizure_village=seizure_village,
        ),
    )
    # The key's uniqueness is the database's to hold (create_entry catches the conflict).
    entry.full_clean(exclude=["idempotency_key"])
    entry.save()
    created = _enter_animals(entry, animals)
    if any(w["code"] == "tag_check_failed" for w in entry.warnings):
        entry.save(update_fields=["warnings"])
    _after_entry(entry, created, by, owner_from_tag=owner_from_tag, device_now=device_now)
    return entry


def _after_entry(entry, created, by, *, owner_from_tag, device_now):
    """The accounts, the events, the inspection's to-do and the device's clock of a new entry."""
    ledger.open_accounts(pound=entry.pound)
    _record_entered(entry, created, by)
    if owner_from_tag:
        _record_owner_from_tag(entry, owner_from_tag, by)
    open_inspection_todo(entry)
    flag_device_clock(entry, device_now)
    _owner_to_be_told(entry, by)
    match_later(a.pk for a in created)  # the open lost-cattle reports, on the worker


def _owner_to_be_told(entry, by):
    """An owner's phone known at intake (typed, or confirmed from the tag's registry) is the
    owner's for the messages (ADR 0077): the intake message goes to it, in the district's
    language. A number that is not a mobile's is kept on the entry and messaged nothing; as with
    the event listeners, a fault of the messages is rolled back to its savepoint and logged, and
    the entry stands."""
    if not entry.owner_phone:
        return
    try:
        with transaction.atomic():
            notices.record_contact(
                impoundment=entry,
                number=entry.owner_phone,
                by=by,
                language=languages.pack_language(entry.pound.district_id),
            )
    except ValueError:
        pass  # not a mobile's number
    except Exception:
        logger.exception("entry %s: the owner's intake message was not queued", entry.pk)


# Fields a correction may change, with their labels. The arrival time and the register number
# are the register's spine and are never amended; a wrong arrival is a new entry.
AMENDABLE_ENTRY_FIELDS = (
    "seized_at",
    "seizure_place",
    "seizure_village",
    "basis",
    "basis_other",
    "s11_site",
    "s11_ground",
    "damage_description",
    "pound_choice_reason",
    "seizer_name",
    "seizer_residence",
    "seizer_capacity",
    "seizer_phone",
    "owner_name",
    "owner_residence",
    "owner_phone",
)
# The personal data among them: an amendment's old and new values go to the event's personal
# fields, never into its hashed link.
PERSONAL_ENTRY_FIELDS = frozenset(
    {
        "seizer_name",
        "seizer_residence",
        "seizer_phone",
        "owner_name",
        "owner_residence",
        "owner_phone",
    }
)
# The fields a lost-cattle report is scored on (services.lost.score).
LOST_REPORT_FIELDS = frozenset(
    {"ear_tag", "species", "colour", "seized_at", "seizure_place", "seizure_village"}
)
# Every field an animal is entered with, the photo aside, may be corrected.
AMENDABLE_ANIMAL_FIELDS = ANIMAL_FIELDS


def _display(obj, field):
    value = getattr(obj, field)
    display = getattr(obj, f"get_{field}_display", None)
    if display is not None and value:
        return str(display())
    if hasattr(value, "strftime"):
        return timezone.localtime(value).strftime("%d-%m-%Y %H:%M")
    return "" if value is None else str(value)


@transaction.atomic
def amend_entry(*, entry, by, reason, changes, animal=None, tag_confirmed=False):
    """Correct the register: each changed field becomes an Amendment that keeps the original
    value, with the reason, who made it and when (docs/domain.md decision 10)."""
    authorise(by, Permission.RECORD_IMPOUNDMENT, entry.pound)
    if not reason.strip():
        raise ValidationError({"reason": _("Say why the register is being corrected.")})
    # The permission was checked against this entry's pound: the animal must be one of its own.
    if animal is not None and animal.impoundment_id != entry.pk:
        raise ValidationError(_("An animal chosen is not in this register entry."))
    target = animal or entry
    allowed = AMENDABLE_ANIMAL_FIELDS if animal else AMENDABLE_ENTRY_FIELDS
    target = type(target).objects.select_for_update(of=("self",)).get(pk=target.pk)
    amendments = []
    for field, new in changes.items():
        if field not in allowed:
            raise ValidationError(_("%(field)s cannot be amended.") % {"field": field})
        if getattr(target, field) == new:
            continue
        old_display = _display(target, field)
        setattr(target, field, new)
        if field == "ear_tag":
            validate_ear_tag(new, confirmed=tag_confirmed)
        amendments.append(
            Amendment(
                impoundment=entry,
                animal=animal,
                field=field,
                field_label=str(target._meta.get_field(field).verbose_name),
                old_value=old_display,
                new_value=_display(target, field),
                reason=reason,
                by=by,
            )
        )
    if not amendments:
        raise ValidationError(_("Nothing was changed."))
    exclude = ["impoundment", "release", "court_order"] if animal else None
    target.full_clean(exclude=exclude)
    target.save(update_fields=[a.field for a in amendments])
    Amendment.objects.bulk_create(amendments)
    if {a.field for a in amendments} & LOST_REPORT_FIELDS:  # scored again, on the worker
        match_later([animal.pk] if animal else entry.animals.values_list("pk", flat=True))
    # A change to a person's name, residence or phone goes to the event's personal fields.
    changes = {True: [], False: []}
    for a in amendments:
        changes[a.field in PERSONAL_ENTRY_FIELDS].append([a.field, a.old_value, a.new_value])
    record_event(
        action=Action.REGISTER_AMENDED,
        section="s.8",
        summary=Message(
            gettext_noop("%(number)s: %(fields)s amended (%(reason)s)"),
            number=entry.register_number,
            fields=in_both(
                lambda: ", ".join(
                    str(target._meta.get_field(a.field).verbose_name) for a in amendments
                )
            ),
            reason=reason,
        ),
        by=by,
        impoundment=entry,
        animal=animal,
        data={"changes": changes[False], "reason": reason},
        personal={"changes": changes[True]} if changes[True] else None,
    )
    return amendments
