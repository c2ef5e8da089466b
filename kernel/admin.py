"""The read-only admin every app uses for its records, and the event log's own pages."""

from django.contrib import admin

from .models import ChainCheckpoint, Event


class ReadOnlyAdmin(admin.ModelAdmin):
    """For records that change only through a service: nothing is added, changed or deleted."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


admin.site.register(Event, ReadOnlyAdmin)


@admin.register(ChainCheckpoint)
class ChainCheckpointAdmin(ReadOnlyAdmin):
    """Where each chain was last found sound, and when: `verify_chain` moves it, nobody else."""

    list_display = ["chain", "seq", "verified_at"]
