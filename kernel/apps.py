from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class KernelConfig(AppConfig):
    """The kernel every app builds on: the hash-chained event log, dates, formats, documents."""

    name = "kernel"
    verbose_name = _("PoundAdmin")
