from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class KernelConfig(AppConfig):
    """The kernel every app builds on: the hash-chained event log, dates, formats, documents."""

    name = "kernel"
    verbose_name = _("PoundAdmin")

    def ready(self):
        from django.contrib.auth.signals import user_logged_in

        from .login import stamp_sign_in

        user_logged_in.connect(stamp_sign_in, dispatch_uid="kernel.login.stamp_sign_in")
