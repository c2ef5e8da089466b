"""Read-only admin views of the register, for superuser inspection. Every change to the register
goes through impounding.services, so nothing here can add, change or delete a row: in
particular no animal can be released from the admin (s.19)."""

from django.contrib import admin

from kernel.admin import ReadOnlyAdmin

from . import models


@admin.register(models.Impoundment)
class ImpoundmentAdmin(ReadOnlyAdmin):
    list_display = ("register_number", "pound", "arrived_at", "owner_name", "seizer_name")
    list_filter = ("pound",)
    search_fields = ("register_number", "owner_name")


@admin.register(models.Animal)
class AnimalAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "species", "sex", "age_class", "state")
    list_filter = ("state", "species")
    search_fields = ("ear_tag", "impoundment__register_number")


for model in (
    models.Release,
    models.Receipt,
    models.Deposit,
    models.Complaint,
    models.CourtOrder,
    models.CourtOrderCheck,
    models.SeizerLiability,
    models.Amendment,
    models.CustodyEvent,
    models.FeedingLog,
    models.FineScale,
    models.FeedingRateOrder,
):
    admin.site.register(model, ReadOnlyAdmin)
