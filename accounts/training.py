"""The training district's clock (ADR 0080): a trainer moves it forward, never back.

The offset lives on the district's row, so every process (the web, the worker, the daily run)
reads one clock. Each move is an event on the district's chain: who, when (real time), from
what offset to what, and by how much. The form carries the offset it was drawn with: sent twice
(a double click, a reload) the second sending finds the clock already moved and moves nothing.
"""

from datetime import datetime, timedelta

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from kernel import clock
from kernel.events import record_event
from kernel.messages import Message

from .actions import Action
from .models import District, Pound
from .roles import Permission
from .scoping import has_permission


def may_move(user, district):
    """A trainer: the Magistrate of the training district, or its administrator."""
    return district.training and (
        has_permission(user, Permission.APPROVE, district)
        or has_permission(user, Permission.MANAGE_STAFF, district)
    )


def _days_hours(delta):
    hours = int(delta.total_seconds() // 3600)
    return f"{hours // 24}d {hours % 24}h"


@transaction.atomic
def move_clock(district, *, by, seen, days=None, to=None):
    """Move `district`'s clock forward by `days`, or to the moment `to`. `seen` is the offset
    the trainer's form showed. Returns the district, with `moved` False when the clock had
    already moved since (a form sent again)."""
    district = District.objects.select_for_update(of=("self",)).get(pk=district.pk)
    if not may_move(by, district):
        raise PermissionDenied(_("Only a trainer of a training district may move its clock."))
    if seen != district.clock_offset:
        district.moved = False
        return district
    before = district.clock_offset
    if days is not None:
        after = before + timedelta(days=days)
    elif isinstance(to, datetime):
        after = to - timezone.now()
    else:
        raise ValueError("move_clock needs days or to")
    if after <= before:
        raise ValidationError(
            _("The training clock only moves forward: that moment has already passed.")
        )
    district.clock_offset = after
    district.save(update_fields=["clock_offset"])
    record_event(
        action=Action.TRAINING_CLOCK_MOVED,
        section="",
        summary=Message(
            gettext_noop("Training clock moved forward by %(by)s, to %(to)s"),
            by=_days_hours(after - before),
            to=clock.now(district),
        ),
        by=by,
        district=district,
        data={
            "from_seconds": int(before.total_seconds()),
            "to_seconds": int(after.total_seconds()),
            "by_seconds": int((after - before).total_seconds()),
        },
    )
    district.moved = True
    return district


def pound_offsets(pound_ids):
    """{pound id: how far its clock runs ahead} for the pounds of training districts among
    `pound_ids`; a pound of a real district is absent (its clock is real time). One query."""
    return dict(
        Pound.objects.filter(pk__in=pound_ids, district__training=True).values_list(
            "pk", "district__clock_offset"
        )
    )


def pounds_by_day(pound_ids):
    """{the day it is: [pound ids]} for `pound_ids`: real today for pounds of real districts,
    each training district's day for its own. One query, of the training pounds alone."""
    training = pound_offsets(pound_ids)
    days = {}
    for pk in pound_ids:
        moment = timezone.now() + training.get(pk, timedelta(0))
        days.setdefault(timezone.localtime(moment).date(), []).append(pk)
    return days


def day_of(pound_ids):
    """The day a page over `pound_ids` counts from: their own day when they share one (a
    training district's staff see its clock's day), else real today (a person over several
    districts, real and training, sees the real one). One query, as pounds_by_day."""
    days = pounds_by_day(list(pound_ids))
    return next(iter(days)) if len(days) == 1 else timezone.localdate()
