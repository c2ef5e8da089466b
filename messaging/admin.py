"""The template registry in the admin, where the State's administrator fills in each template's
DLT id and sender once the operator has approved it (ADR 0077). Its text is the registered one
and is not edited here: a new text is a new registration. The messages are read only."""

from django.contrib import admin

from kernel.admin import ReadOnlyAdmin

from . import models


@admin.register(models.Template)
class TemplateAdmin(admin.ModelAdmin):
    list_display = ("event", "language", "dlt_template_id", "category", "sender")
    list_filter = ("event", "language")
    fields = ("event", "language", "text", "variables", "dlt_template_id", "category", "sender")
    readonly_fields = ("event", "language", "text", "variables")

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(models.Message)
class MessageAdmin(ReadOnlyAdmin):
    list_display = ("event", "language", "channel", "status", "attempts", "created_at")
    list_filter = ("status", "event", "channel")
