from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OfficeConfig(AppConfig):
    name = "office"
    verbose_name = _("District Magistrate's office")
