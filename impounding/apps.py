from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ImpoundingConfig(AppConfig):
    name = "impounding"
    verbose_name = _("Pound register")

    def ready(self):
        # Imported here: these modules load models, which wait for the app registry.
        from ledger.checks import EXPECTATIONS
        from poundadmin.events import register_actions
        from poundadmin.models import register_subject

        from .actions import Action
        from .ledger_checks import expectations
        from .models import Animal, Impoundment

        register_actions(Action)
        register_subject("impoundment", Impoundment)
        register_subject("animal", Animal)
        if expectations not in EXPECTATIONS:
            EXPECTATIONS.append(expectations)
