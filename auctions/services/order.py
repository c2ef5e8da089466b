"""The order of s.14 before a sale of unclaimed cattle: the notice stuck up in the officer's
office, proclaimed by beat of drum in the village and at the nearest market-place, and seven
days run from the posting. Asked when the auction is scheduled and again when the hammer falls,
so that no entry point (a screen, the API, a command, the demo) skips a step
(docs/domain.md §1.1)."""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ..models import Notice, Proclamation

DRUMS = (Proclamation.Channel.DRUM_VILLAGE, Proclamation.Channel.DRUM_MARKET)


def notice_of(animal):
    """The s.14 notice the animal is sold under: its own, or its dam's for a calf born after
    the report (docs/domain.md decision 12). None when there is none."""
    notice = Notice.objects.filter(report__animals=animal).first()
    if notice is None and animal.dam_id:
        notice = Notice.objects.filter(report__animals=animal.dam_id).first()
    return notice


def missing_drums(notice, on=None):
    """The drum proclamations of `notice` not recorded (as made by `on`, when given): the
    village's, the market-place's, both or neither, in that order."""
    made = notice.proclamations.filter(channel__in=DRUMS)
    if on is not None:
        made = made.filter(made_on__lte=on)
    recorded = set(made.values_list("channel", flat=True))
    return [channel for channel in DRUMS if channel not in recorded]


def _not_proclaimed(animal, notice, missing):
    names = {"notice": notice.number, "animal": animal.reference}
    if len(missing) == 2:
        message = _(
            "Notice %(notice)s for %(animal)s has not been proclaimed by beat of drum, neither in "
            "the village nor at the market-place: record both proclamations (who beat the drum, "
            "where and when) first (s.14)."
        )
    elif missing[0] == Proclamation.Channel.DRUM_VILLAGE:
        message = _(
            "Notice %(notice)s for %(animal)s has not been proclaimed by beat of drum in the "
            "village: record that proclamation (who beat the drum, where and when) first (s.14)."
        )
    else:
        message = _(
            "Notice %(notice)s for %(animal)s has not been proclaimed by beat of drum at the "
            "market-place: record that proclamation (who beat the drum, where and when) first "
            "(s.14)."
        )
    return message % names


def check_s14_order(animals, day, *, proclaimed_by=None):
    """Refuse a sale on `day` of `animals` unless each is under a posted notice, proclaimed by
    beat of drum in the village and at the market-place by `proclaimed_by` (the day the auction
    is scheduled; else `day`), whose seven days of claim have run out by `day`. The refusal
    names the step missing: under "lots" (no notice), at the top (the drums) or under
    "scheduled_for" (the day)."""
    for animal in animals:
        notice = notice_of(animal)
        if notice is None:
            raise ValidationError(
                {
                    "lots": _(
                        "Animal %(animal)s has no notice under s.14: report it and have the "
                        "notice posted first."
                    )
                    % {"animal": animal.reference}
                }
            )
        missing = missing_drums(notice, on=proclaimed_by or day)
        if missing:
            # At the top of the page, in its summary: the step is on the notice, not a field here.
            raise ValidationError(_not_proclaimed(animal, notice, missing))
        if day < notice.earliest_sale:
            raise ValidationError(
                {
                    "scheduled_for": _(
                        "The earliest lawful date of sale for %(animal)s is %(date)s: the notice "
                        "was posted on %(posted)s and the owner has seven days after it to claim "
                        "(s.14)."
                    )
                    % {
                        "animal": animal.reference,
                        "date": notice.earliest_sale.strftime("%d-%m-%Y"),
                        "posted": notice.posted_on.strftime("%d-%m-%Y"),
                    }
                }
            )
