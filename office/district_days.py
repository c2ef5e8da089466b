"""The days of the daily run (ADR 0080): each district's work is done on its own clock's day.

The real districts share one day, real today; a training district's clock runs ahead by its
offset, so its day is its own. `district_days` reads the training districts' offsets in one
query (a real district's, never), and the run does each day's work scoped to its districts
(`Day.scope`), so a training district's moved day never lifts a real district's surplus or
applies its deposits, and a real district's day never decides a training district's to-dos.

Moving a training district's clock runs its day at the new time at once (`ClockMoved`, an event
listener of the clock's event): inline, in the move's transaction, for that district alone, so
the trainer's next page shows the to-dos the new day brings. A fault there is logged and the
move stands (the kernel's savepoint); the next daily run then does the same work.
"""

import functools
from collections import Counter as Tally
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cached_property

from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from accounts.actions import Action
from accounts.models import District, Pound, User
from kernel.messages import Message as _  # to-do titles: translated when they are shown


def district_days(shift=timedelta(0), district=None):
    """[(date, training district ids)]: the real districts' day (an empty tuple of ids) first,
    then each day a training district is on, `shift` moved (a run for a past day). With
    `district`, that training district's day alone. One query."""
    training = District.objects.filter(training=True)
    if district is not None:
        training = training.filter(pk=district.pk)
    on = {}
    for pk, offset in training.values_list("pk", "clock_offset"):
        day = timezone.localtime(timezone.now() + offset).date() + shift
        on.setdefault(day, []).append(pk)
    days = [] if district is not None else [(timezone.localdate() + shift, ())]
    return days + [(day, tuple(ids)) for day, ids in sorted(on.items())]


class ClockMoved:
    """Runs a training district's day when its clock is moved (settings.EVENT_LISTENERS)."""

    def hears(self, event):
        return event.action == Action.TRAINING_CLOCK_MOVED

    def __call__(self, event):
        from .deadlines import run  # the run's module imports this one

        run(district=District.objects.get(pk=event.district_id))


clock_moved = ClockMoved()


@dataclass
class Day:
    """What the steps and the rules of one run share."""

    today: date
    actor: User
    done: Tally = field(default_factory=Tally)
    training: tuple = ()  # the training districts on this day; none: the real districts' day

    def scope(self, path="district"):
        """The rows whose district (at `path`) this day is for (ADR 0080)."""
        if self.training:
            return Q(**{f"{path}__in": self.training})
        return Q(**{f"{path}__training": False})

    def holds(self, district):
        """Whether a to-do of `district` belongs to this day: a rule's query is scoped by
        `scope`, and this keeps a rule that forgot it from acting on another district's clock."""
        return district.pk in self.training if self.training else not district.training

    @cached_property
    def pounds(self):
        return list(
            Pound.objects.filter(self.scope()).select_related("district", "nearest_police_station")
        )


_MARK = 987654321


@functools.cache
def _url_of(name):
    """reverse(name, args=[pk]) as a template filled in per row: the run makes thousands of
    to-do links a day, and reverse() costs more than the query that found them."""
    return reverse(name, args=[_MARK])


def url(name, pk):
    return _url_of(name).replace(str(_MARK), str(pk))


@dataclass(frozen=True)
class Due:
    """A to-do a rule yields. Its key is the rule's prefix followed by `condition`."""

    condition: str | int
    district: District
    pound: Pound
    title: _  # a kernel.messages.Message
    url: str
    section: str
    due_on: date | None = None
