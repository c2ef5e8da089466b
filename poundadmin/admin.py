"""The read-only admin every app uses for its records, and the event log's own page."""

from django.contrib import admin

from .models import Event


class ReadOnlyAdmin(admin.ModelAdmin):
    """For records that change only through a service: nothing is added, changed or deleted."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


admin.site.register(Event, ReadOnlyAdmin)
