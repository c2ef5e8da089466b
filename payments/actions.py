"""The reconciliation's event actions (docs/decisions/0082), each with its timeline label."""

from django.utils.translation import gettext_lazy as _

from kernel.events import EventAction


class Action(EventAction):
    STATEMENT_IMPORTED = "reconcile.statement_imported", _("Bank statement imported")
    LINE_MATCHED = "reconcile.line_matched", _("Bank statement line matched to a payment")
    LINE_SET_ASIDE = "reconcile.line_set_aside", _("Bank statement line set aside")
