from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RulepacksConfig(AppConfig):
    name = "rulepacks"
    verbose_name = _("Rule packs")
