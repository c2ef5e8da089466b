"""The rule packs' event actions, each with the label the district's timeline shows."""

from django.utils.translation import gettext_lazy as _

from kernel.events import EventAction


class Action(EventAction):
    PACK_CHOSEN = "rulepack.chosen", _("Rule pack chosen for the district")
