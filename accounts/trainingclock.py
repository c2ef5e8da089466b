"""A district's training mark and clock (ADR 0080), as fields of District. Defined here to keep
accounts.models short; moving the clock is accounts.training's."""

from datetime import timedelta

from django.db import models
from django.utils.translation import gettext_lazy as _


class TrainingClockFields(models.Model):
    """A district for training staff: its clock runs `clock_offset` ahead of real time, its
    documents say TRAINING, and its chains stay out of the State's checkpoints."""

    training = models.BooleanField(
        _("for training"),
        default=False,
        db_default=False,  # the previous release writes districts without it (ADR 0062)
        help_text=_(
            "A training district's clock can be moved forward and its documents say TRAINING. "
            "Only a district with no records yet can be marked, and the mark is never removed."
        ),
    )
    clock_offset = models.DurationField(
        _("training clock ahead by"),
        default=timedelta(0),
        db_default=timedelta(0),
        editable=False,
    )

    class Meta:
        abstract = True
