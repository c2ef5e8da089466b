"""Read-only: posted transactions are never edited or deleted, only reversed by a service."""

from django.contrib import admin

from kernel.admin import ReadOnlyAdmin

from . import models


class PostingInline(admin.TabularInline):
    model = models.Posting
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(models.Transaction)
class TransactionAdmin(ReadOnlyAdmin):
    list_display = ("pk", "at", "kind", "memo", "section")
    list_filter = ("kind", "district")
    inlines = [PostingInline]


@admin.register(models.Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "district", "pound", "kind")


@admin.register(models.AccountMonth)
class AccountMonthAdmin(ReadOnlyAdmin):
    """A derived cache of the postings: read-only here, kept by post() and reverse()."""

    list_display = ("account", "pound", "kind", "month", "debit", "credit", "postings")
    list_filter = ("kind", "month")
    list_select_related = ("account__district", "account__pound", "pound")
