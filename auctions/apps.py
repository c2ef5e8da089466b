from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AuctionsConfig(AppConfig):
    name = "auctions"
    verbose_name = _("Unclaimed cattle and auctions")

    def ready(self):
        # Not at the top: these load models, which Django allows only once the apps are ready.
        from impounding.services.releases import RELEASE_HOOKS
        from ledger.checks import EXPECTATIONS
        from poundadmin.events import register_actions

        from .actions import Action
        from .ledger_checks import expectations
        from .services import withdraw_claimed_lots

        register_actions(Action)
        if withdraw_claimed_lots not in RELEASE_HOOKS:
            RELEASE_HOOKS.append(withdraw_claimed_lots)
        if expectations not in EXPECTATIONS:
            EXPECTATIONS.append(expectations)
