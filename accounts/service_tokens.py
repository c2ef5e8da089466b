"""The administrator's screens for the State systems' service tokens (docs/decisions/0041):
make one for a role and a jurisdiction with an expiry date (its secret shown once), see each
one's last use, revoke one. The work is done by services.create_service_token and
services.revoke_service_token, which record every change as a StaffEvent."""

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from kernel.views import add_service_errors

from . import services
from .decorators import require_permission
from .forms import ServiceTokenForm
from .models import ApiToken, District, PoliceStation, Pound, StaffAssignment, State
from .roles import Permission
from .scoping import has_permission

P = Permission.MANAGE_STAFF


def managed_service_tokens(user):
    """The service tokens of the jurisdictions the administrator manages, newest first, each
    with its account's appointment (`token.assignment`)."""
    tokens = (
        ApiToken.objects.of_services()
        .select_related("user")
        .prefetch_related(
            Prefetch(
                "user__assignments",
                queryset=StaffAssignment.objects.select_related(
                    "state", "district", "police_station", "pound"
                ),
                to_attr="service_assignments",
            )
        )
    )
    shown = []
    for token in tokens:
        token.assignment = next(iter(token.user.service_assignments), None)
        place = token.assignment and services.place_of(token.assignment)
        if place is not None and has_permission(user, P, place):
            shown.append(token)
    return shown


def _form(user, data=None):
    return ServiceTokenForm(
        data,
        states=State.objects.filter(
            pk__in=[s.pk for s in State.objects.all() if has_permission(user, P, s)]
        ),
        districts=District.objects.for_user(user, P).select_related("state"),
        police_stations=PoliceStation.objects.for_user(user, P).select_related("district"),
        pounds=Pound.objects.for_user(user, P).select_related("district"),
        usual_rate=settings.API_RATE_PER_MINUTE,
    )


@require_permission(P)
def service_tokens(request):
    form = _form(request.user, request.POST or None)
    secret = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            _token, secret = services.create_service_token(
                by=request.user,
                name=data["name"],
                role=data["role"],
                expires_on=data["expires_on"],
                state=data["state"],
                district=data["district"],
                police_station=data["police_station"],
                pound=data["pound"],
                rate_per_minute=data["rate_per_minute"],
                idempotency_key=data["idempotency_key"],
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            if secret is None:  # the same form sent again: its secret was shown the first time
                messages.info(request, _("That token was already made; its secret was shown once."))
                return redirect("accounts:service_tokens")
            form = _form(request.user)
    return render(
        request,
        "accounts/service_tokens.html",
        {
            "form": form,
            "tokens": managed_service_tokens(request.user),
            "secret": secret,
            "usual_rate": settings.API_RATE_PER_MINUTE,
        },
    )


@require_POST
@require_permission(P)
def service_token_revoke(request, pk):
    token = get_object_or_404(ApiToken.objects.of_services(), pk=pk)
    if token not in managed_service_tokens(request.user):
        raise Http404  # another State's system: as if there were none
    services.revoke_service_token(token=token, by=request.user)
    messages.success(request, _("Service token “%(name)s” revoked.") % {"name": token.name})
    return redirect("accounts:service_tokens")
