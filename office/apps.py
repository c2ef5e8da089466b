from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OfficeConfig(AppConfig):
    name = "office"
    verbose_name = _("District Magistrate's office")

    def ready(self):
        # Not at the top: these load models, which Django allows only once the apps are ready.
        from auctions.services import SALE_HOOKS
        from ledger.checks import EXPECTATIONS
        from poundadmin.events import register_actions

        from .actions import Action
        from .ledger_checks import expectations
        from .services import open_surplus_deposit

        register_actions(Action)
        if open_surplus_deposit not in SALE_HOOKS:
            SALE_HOOKS.append(open_surplus_deposit)
        if expectations not in EXPECTATIONS:
            EXPECTATIONS.append(expectations)
