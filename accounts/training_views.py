"""The trainer's page of a training district (ADR 0080): its clock, moved forward by a day, a
week or to the next auction's hour, and the steps of a whole s.14 cycle, each with its screen."""

from datetime import timedelta

from django.apps import apps
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.dateparse import parse_duration
from django.utils.duration import duration_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from kernel import clock

from .models import District
from .scoping import visible_district_ids
from .training import may_move, move_clock


def _next_auction(district):
    """The district's next auction still to come on its clock: the model named, not imported,
    auctions being a floor above (kernel/refs.py does the same)."""
    auction = apps.get_model("auctions", "Auction")
    return (
        auction.objects.filter(
            pound__district=district,
            status=auction.Status.SCHEDULED,
            scheduled_for__gt=clock.now(district),
        )
        .order_by("scheduled_for")
        .first()
    )


@require_http_methods(["GET", "POST"])
def training(request, pk):
    district = get_object_or_404(
        District, pk=pk, training=True, pk__in=visible_district_ids(request.user)
    )
    trainer = may_move(request.user, district)
    auction = _next_auction(district)
    if request.method == "POST":
        if not trainer:
            raise Http404
        seen = parse_duration(request.POST.get("seen", "")) or timedelta(0)
        move = request.POST.get("move")
        try:
            if move == "auction" and auction is not None:
                moved = move_clock(district, by=request.user, seen=seen, to=auction.scheduled_for)
            elif move in ("1", "7", "30"):
                moved = move_clock(district, by=request.user, seen=seen, days=int(move))
            else:
                raise ValidationError(_("Choose how far to move the clock."))
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        else:
            if moved.moved:
                messages.success(request, _("The training clock has moved forward."))
        return redirect("accounts:training", pk=district.pk)
    return render(
        request,
        "accounts/training.html",
        {
            "district": district,
            "trainer": trainer,
            "now": clock.now(district),
            "auction": auction,
            "seen": duration_string(district.clock_offset),
        },
    )
