"""The pound-keeper's custody screens: deaths, escapes, rescues (s.24), recaptures and births,
and the daily feeding and watering record (s.9) with the days it is missing (s.27)."""

from datetime import timedelta

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.decorators import require_permission
from accounts.roles import Permission
from kernel import clock
from kernel.views import add_service_errors

from .. import selectors
from ..forms.custody import (
    BirthForm,
    DeathForm,
    EscapeForm,
    FeedingDayForm,
    FeedingForm,
    ReturnForm,
)
from ..forms.inspections import DirectionForm, FindingFormSet, InspectionForm
from ..models import TRANSITIONS, AnimalState, Finding, Fitness, Sex
from ..services import custody as services
from ..services import directions as direction_services
from ..services import inspections as inspection_services
from .common import get_animal, get_entry, get_pound


def _can_become(animal, state):
    return state in TRANSITIONS.get(animal.state, ())


def _call(form, service, **kwargs):
    """Run the service with the form's data. A refusal (a ValidationError, including
    TransitionNotAllowed) goes on the form beside its field, and nothing is written."""
    try:
        return service(**kwargs, **form.cleaned_data)
    except ValidationError as error:
        add_service_errors(form, error)
        return None


def _to_entry(animal):
    return redirect("impounding:entry", pk=animal.impoundment_id)


def _animal_page(request, template, animal, form, allowed):
    return render(
        request,
        f"impounding/custody/{template}",
        {"animal": animal, "entry": animal.impoundment, "form": form, "allowed": allowed},
    )


@require_http_methods(["GET", "POST"])
@require_permission(Permission.RECORD_CUSTODY)
def animal_death(request, pk):
    animal = get_animal(request, pk, Permission.RECORD_CUSTODY)
    form = DeathForm(request.POST or None, of=animal.impoundment.pound)
    if form.is_valid() and _call(form, services.record_death, animal=animal, by=request.user):
        messages.success(request, _("The death of %(animal)s is recorded.") % {"animal": animal})
        return _to_entry(animal)
    allowed = _can_become(animal, AnimalState.DIED)
    return _animal_page(request, "death.html", animal, form, allowed)


@require_http_methods(["GET", "POST"])
@require_permission(Permission.RECORD_CUSTODY)
def animal_escape(request, pk):
    animal = get_animal(request, pk, Permission.RECORD_CUSTODY)
    form = EscapeForm(request.POST or None, of=animal.impoundment.pound)
    if form.is_valid() and _call(form, services.record_escape, animal=animal, by=request.user):
        if form.cleaned_data["rescued"]:
            text = _("The rescue of %(animal)s from custody (s.24) is recorded.")
        else:
            text = _("The escape of %(animal)s is recorded.")
        messages.success(request, text % {"animal": animal})
        return _to_entry(animal)
    allowed = _can_become(animal, AnimalState.ESCAPED)
    return _animal_page(request, "escape.html", animal, form, allowed)


@require_http_methods(["GET", "POST"])
@require_permission(Permission.RECORD_CUSTODY)
def animal_return(request, pk):
    animal = get_animal(request, pk, Permission.RECORD_CUSTODY)
    form = ReturnForm(request.POST or None, of=animal.impoundment.pound)
    if form.is_valid() and _call(form, services.record_return, animal=animal, by=request.user):
        messages.success(
            request, _("%(animal)s is recorded as back in the pound.") % {"animal": animal}
        )
        return _to_entry(animal)
    allowed = _can_become(animal, AnimalState.IMPOUNDED)
    return _animal_page(request, "return.html", animal, form, allowed)


@require_http_methods(["GET", "POST"])
@require_permission(Permission.RECORD_CUSTODY)
def animal_birth(request, pk):
    dam = get_animal(request, pk, Permission.RECORD_CUSTODY)
    form = BirthForm(request.POST or None, of=dam.impoundment.pound)
    if form.is_valid():
        calf = _call(form, services.record_birth, dam=dam, by=request.user)
        if calf:
            messages.success(
                request,
                _("Calf %(calf)s, born to %(dam)s, is entered in the register.")
                % {"calf": calf.reference, "dam": dam.reference},
            )
            return _to_entry(dam)
    allowed = dam.state == AnimalState.IMPOUNDED and dam.sex == Sex.FEMALE
    return _animal_page(request, "birth.html", dam, form, allowed)


@require_http_methods(["GET", "POST"])
@require_permission(Permission.RECORD_CUSTODY)
def feeding_log(request, pk):
    pound = get_pound(request, pk, Permission.RECORD_CUSTODY)
    today = clock.today(pound)
    day = FeedingDayForm(request.GET).day(today)
    form = FeedingForm(request.POST or None)
    if form.is_valid() and _call(form, services.log_feeding, pound=pound, by=request.user):
        fed_on = form.cleaned_data["date"]
        messages.success(
            request,
            _("Feeding and watering for %(date)s is recorded.")
            % {"date": fed_on.strftime("%d-%m-%Y")},
        )
        # Back on the day just recorded, where a later round can be added.
        url = reverse("impounding:feeding_log", args=[pound.pk])
        return redirect(f"{url}?date={fed_on.isoformat()}#day-heading")
    if form.is_bound and form.cleaned_data.get("date"):
        day = min(form.cleaned_data["date"], today)

    rows = selectors.feeding_days(
        pound, today - timedelta(days=selectors.FEEDING_LOG_DAYS - 1), today
    )
    shown = next((row for row in rows if row.date == day), None)
    if shown is None:  # a day before the listed period
        rounds = selectors.feeding_rounds(pound, day, day)[day]
        shown = selectors.FeedingDay(day, selectors.animals_in_custody_on(pound, day), rounds)
    if not form.is_bound:
        form = FeedingForm(initial={"date": day, "animals_fed": shown.unfed})
    context = {
        "pound": pound,
        "today": today,
        "day": shown,
        "form": form,
        "rows": rows,
        "missing": [row for row in rows if row.missing and row.date < today],
    }
    return render(request, "impounding/custody/feeding_log.html", context)


@require_http_methods(["GET", "POST"])
@require_permission(Permission.RECORD_CUSTODY)
def inspection_new(request, pk):
    """The veterinary officer's visit and findings, recorded by the pound-keeper (ADR 0071)."""
    entry = get_entry(request, pk, Permission.RECORD_CUSTODY)
    animals = entry.animals.filter(state=AnimalState.IMPOUNDED).order_by("number")
    form = InspectionForm(request.POST or None, of=entry.pound)
    findings = FindingFormSet(request.POST or None, animals=animals, prefix="findings")
    # Both validated, so that every error shows at once.
    valid = request.method == "POST" and all([form.is_valid(), findings.is_valid()])
    if valid:
        done = _call(
            form,
            inspection_services.record_inspection,
            entry=entry,
            by=request.user,
            findings=findings.findings(),
        )
        if done:
            messages.success(request, _("The veterinary inspection is recorded."))
            return redirect("impounding:entry", pk=entry.pk)
    context = {
        "entry": entry,
        "form": form,
        "findings": findings,
        "record": selectors.inspection_record(entry),
    }
    return render(request, "impounding/custody/inspection.html", context)


@require_http_methods(["GET", "POST"])
@require_permission(Permission.RECORD_CUSTODY)
def direction_new(request, pk, finding):
    """The Magistrate's direction under rule 3(b) of the 2017 Rules for an animal the officer
    found unfit, recorded by the pound-keeper from the order (ADR 0071)."""
    entry = get_entry(request, pk, Permission.RECORD_CUSTODY)
    finding = get_object_or_404(
        Finding.objects.select_related("inspection", "animal__impoundment"),
        pk=finding,
        inspection__impoundment=entry,
        fitness=Fitness.UNFIT,
    )
    given = getattr(finding, "direction", None)
    form = DirectionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():  # a replay of its key redirects too
        done = _call(form, direction_services.record_direction, finding=finding, by=request.user)
        if done:
            messages.success(request, _("The Magistrate's direction is recorded."))
            return redirect("impounding:entry", pk=entry.pk)
    context = {"entry": entry, "finding": finding, "given": given, "form": form}
    return render(request, "impounding/custody/direction.html", context)
