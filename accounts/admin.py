"""The admin is for superuser repair. Role changes go through the same services as the app."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.core.exceptions import ValidationError

from kernel.admin import ReadOnlyAdmin
from kernel.forms import DayField

from . import models, services


@admin.register(models.User)
class UserAdmin(BaseUserAdmin):
    fieldsets = BaseUserAdmin.fieldsets + (
        ("PoundAdmin", {"fields": ("name_hi", "phone", "id_number", "preferred_language")}),
    )
    list_display = ("username", "first_name", "last_name", "phone", "is_active")
    readonly_fields = ("is_service_account",)


class StateDocumentFormInline(admin.TabularInline):
    model = models.StateDocumentForm
    extra = 0


@admin.register(models.State)
class StateAdmin(admin.ModelAdmin):
    list_display = ("name", "name_hi", "code", "government_line")
    inlines = [StateDocumentFormInline]


@admin.register(models.District)
class DistrictAdmin(admin.ModelAdmin):
    list_display = ("name", "state", "code", "training")
    list_filter = ("state",)


@admin.register(models.PoliceStation)
class PoliceStationAdmin(admin.ModelAdmin):
    list_display = ("name", "district", "code")
    list_filter = ("district",)


class PoundVillageInline(admin.TabularInline):
    model = models.PoundVillage
    extra = 0


@admin.register(models.Pound)
class PoundAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "district",
        "nearest_police_station",
        "slip_paper",
        "active_from",
        "active_to",
    )
    list_filter = ("district", "slip_paper")
    inlines = [PoundVillageInline]


@admin.register(models.Village)
class VillageAdmin(admin.ModelAdmin):
    list_display = ("name", "district", "has_market")
    list_filter = ("district",)
    search_fields = ("name", "name_hi")


class EndAssignmentForm(forms.Form):
    # Optional on the action bar, which every action shares; the action itself asks for both.
    on = DayField(label="End on", required=False)
    reason = forms.CharField(label="Reason", required=False, max_length=200)


class StaffAssignmentActionForm(ActionForm, EndAssignmentForm):
    pass


@admin.register(models.StaffAssignment)
class StaffAssignmentAdmin(admin.ModelAdmin):
    list_display = (
        "user",
        "role",
        "state",
        "district",
        "police_station",
        "pound",
        "valid_from",
        "valid_to",
    )
    list_filter = ("role",)
    action_form = StaffAssignmentActionForm
    actions = ["end_assignments"]

    def has_change_permission(self, request, obj=None):
        # Appointments are added and ended through services, so each change is audited.
        return False

    def save_model(self, request, obj, form, change):
        created = services.assign_role(
            user=obj.user,
            role=obj.role,
            by=request.user,
            valid_from=obj.valid_from,
            valid_to=obj.valid_to,
            order_reference=obj.order_reference,
            state=obj.state,
            district=obj.district,
            police_station=obj.police_station,
            pound=obj.pound,
        )
        obj.pk = created.pk

    @admin.action(description="End on a date, with a reason")
    def end_assignments(self, request, queryset):
        form = EndAssignmentForm(request.POST)
        if not form.is_valid() or not form.cleaned_data["on"] or not form.cleaned_data["reason"]:
            self.message_user(
                request, "Give the day the appointment ends and the reason.", messages.ERROR
            )
            return
        ended = 0
        for assignment in queryset:
            try:
                services.end_assignment(
                    assignment=assignment,
                    by=request.user,
                    on=form.cleaned_data["on"],
                    reason=form.cleaned_data["reason"],
                )
            except ValidationError as exc:
                self.message_user(
                    request, f"{assignment}: {' '.join(exc.messages)}", messages.ERROR
                )
            else:
                ended += 1
        if ended:
            self.message_user(request, f"{ended} appointment(s) ended.", messages.SUCCESS)


@admin.register(models.IssuedDocument)
class IssuedDocumentAdmin(admin.ModelAdmin):
    list_display = ("number", "kind", "issued_at", "issuing_office", "valid_until", "revoked_at")
    readonly_fields = [f.name for f in models.IssuedDocument._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(models.StaffEvent)
class StaffEventAdmin(admin.ModelAdmin):
    list_display = ("at", "user", "action", "by", "note")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


admin.site.register(models.DistrictPolicy, ReadOnlyAdmin)


@admin.register(models.ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """Tokens are made and revoked on their pages, which record who did it. Never the secret's
    digest here: only the hint its owner sees."""

    list_display = (
        "name",
        "user",
        "hint",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked_at",
    )
    list_filter = ("user__is_service_account",)
    fields = (
        "name",
        "user",
        "hint",
        "created_at",
        "last_used_at",
        "expires_at",
        "rate_per_minute",
        "revoked_at",
    )
    readonly_fields = fields
