from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = _("API")

    def ready(self):
        from django.db.models.signals import post_save

        from kernel.models import Event

        from . import webhooks

        # Each event of a topic gets its deliveries in its own transaction (api.webhooks).
        post_save.connect(webhooks.on_event_saved, sender=Event, dispatch_uid="api-webhooks")
