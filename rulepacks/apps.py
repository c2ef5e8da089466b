from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RulepacksConfig(AppConfig):
    name = "rulepacks"
    verbose_name = _("Rule packs")

    def ready(self):
        from django.db.models.signals import post_migrate

        from kernel import languages

        from . import services

        # A document's second half is in the language the district's pack names (ADR 0069).
        languages.register(services.document_language)

        # The parsed packs are kept by id for the process's life (a loaded version never
        # changes); a database flushed or migrated afresh may give an id to another pack.
        post_migrate.connect(
            lambda **kwargs: services.forget_packs(), dispatch_uid="rulepacks.forget", weak=False
        )
