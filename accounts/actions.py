"""The event actions of the documents the system issues, each with its timeline label."""

from django.utils.translation import gettext_lazy as _

from kernel.events import EventAction


class Action(EventAction):
    DOCUMENT_REISSUED = "document.reissued", _("Document reissued")
