from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts and jurisdictions")

    def ready(self):
        # Imported here: these modules load models, which wait for the app registry.
        from poundadmin.events import register_actions
        from poundadmin.models import register_subject

        from .actions import Action
        from .models import District, Pound, User

        register_actions(Action)
        register_subject("by", User)
        register_subject("district", District)
        register_subject("pound", Pound)
