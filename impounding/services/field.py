"""What the field app (issue 22, ADR 0074) adds to the register: the phone's time of capture
checked against the server's, and a photo sent after its entry.

A phone's clock that is off is flagged for the office, never refused: the record was made, and
the statutory clocks run from the seizure and arrival times the keeper entered, not from either
clock. A photo arrives on its own request after its entry, so that a slow upload never holds the
entry back."""

from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts import todos
from accounts.roles import Permission, Role
from accounts.scoping import authorise
from kernel import clock
from kernel.events import record_event
from kernel.messages import Message
from kernel.uploads import check_photo

from ..actions import Action
from ..models import Animal

CLOCK_TODO = "field_clock:"


def clock_warnings(entry, device_now=None):
    """The warning kept with an entry whose phone's clock was off by more than the tolerance
    (FIELD_CLOCK_TOLERANCE_MINUTES): measured when it was sent, by the phone's time then
    (`device_now`) against the server's; without it, by a capture time that is later than the
    server's receipt, or older than the app keeps a record (a record kept offline is sent later
    than it was made, so an older capture alone shows nothing)."""
    tolerance = settings.FIELD_CLOCK_TOLERANCE_MINUTES
    if device_now is not None:
        gap = round((entry.recorded_at - device_now).total_seconds() / 60)
        wrong = abs(gap) > tolerance
    elif entry.captured_at is not None:
        gap = round((entry.recorded_at - entry.captured_at).total_seconds() / 60)
        wrong = -gap > tolerance or gap > settings.IDEMPOTENCY_KEEP_DAYS * 24 * 60
    else:
        return []
    return [{"code": "device_clock", "minutes": gap}] if wrong else []


def flag_device_clock(entry, device_now=None):
    """An entry whose phone's clock was off keeps the warning, and the office has a to-do."""
    found = clock_warnings(entry, device_now)
    if not found:
        return
    warning = found[0]
    entry.warnings = [*entry.warnings, warning]
    entry.save(update_fields=["warnings"])
    todos.upsert(
        key=f"{CLOCK_TODO}{entry.pk}",
        role=Role.DM_CLERK,
        district=entry.pound.district,
        pound=entry.pound,
        title=Message(
            gettext_noop("Entry %(number)s: the phone's clock was %(minutes)s minutes off"),
            number=entry.register_number,
            minutes=abs(warning["minutes"]),
        ),
        url=entry.get_absolute_url(),
        section="s.8",
    )


@transaction.atomic
def add_photo(*, animal, by, photo, taken_at=None, place=""):
    """A photo taken at intake, sent by the field app after its entry: it becomes the animal's
    photo (shrunk, upright, without EXIF). An animal has one photo; a second is refused."""
    from .intake import resize_photo

    check_photo(photo)
    animal = (
        Animal.objects.select_for_update(of=("self",))
        .select_related("impoundment__pound__district")
        .get(pk=animal.pk)
    )
    pound = animal.impoundment.pound
    authorise(by, Permission.RECORD_IMPOUNDMENT, pound)
    if animal.photo:
        raise ValidationError({"photo": _("This animal already has a photo.")})
    # The pound's clock, a training district's (ADR 0080), with a day's grace for the phone's.
    if taken_at is not None and taken_at > clock.now(pound) + timedelta(days=1):
        raise ValidationError({"taken_at": _("The time the photo was taken is in the future.")})
    animal.photo = resize_photo(photo)
    animal.save(update_fields=["photo"])
    record_event(
        action=Action.REGISTER_PHOTO_ADDED,
        section="s.8",
        summary=Message(
            gettext_noop("Photo of %(animal)s added from the field app"),
            animal=animal.reference,
        ),
        by=by,
        animal=animal,
        data={"taken_at": taken_at, "place": place, "photo": animal.photo.name},
    )
    return animal
