"""Read models of the jurisdictions that several apps' screens show."""

from django.db.models import Count, Q
from django.utils import timezone

from .models import Pound, PoundVillage


def pounds_with_villages(user, on=None):
    """The pounds the user sees, each with its district, police station and the number of
    villages it serves on `on` (today): the jurisdiction page's and the home page's list."""
    villages_today = PoundVillage.objects.in_force(on or timezone.localdate())
    return (
        Pound.objects.for_user(user)
        .select_related("district", "nearest_police_station")
        .annotate(
            village_count=Count(
                "village_links", filter=Q(village_links__in=villages_today), distinct=True
            )
        )
        .order_by("district__name", "name")
    )
