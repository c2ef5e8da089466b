from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ImpoundingConfig(AppConfig):
    name = "impounding"
    verbose_name = _("Pound register")
