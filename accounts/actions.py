"""The event actions of accounts (the documents the system issues, a reset second factor), each
with its timeline label."""

from django.utils.translation import gettext_lazy as _

from kernel.events import EventAction


class Action(EventAction):
    DOCUMENT_REISSUED = "document.reissued", _("Document reissued")
    SECOND_FACTOR_RESET = "account.second_factor_reset", _("Second factor reset")
    TRAINING_CLOCK_MOVED = "training.clock_moved", _("Training clock moved")
