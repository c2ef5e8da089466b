"""The home page: one panel for each role the user holds, gathering every app's work."""

from django.db.models import Count
from django.shortcuts import render

from accounts.models import District, StaffAssignment, User
from accounts.roles import SYSTEM_USERNAME, Permission, Role
from accounts.scoping import grants_for, visible_district_ids
from accounts.views import pound_queryset
from auctions import selectors as auction_selectors


def home(request):
    """Each role's home page. A user with several roles sees one panel per role."""
    user = request.user
    roles = {g.role for g in grants_for(user)}
    context = {"roles": roles, "Role": Role}
    if roles & {Role.POUND_KEEPER, Role.POLICE_OFFICER}:
        context["my_pounds"] = pound_queryset(user)
    if Role.POUND_KEEPER in roles:
        context["keeper_panel"] = auction_selectors.keeper_dashboard(user)
    if Role.POLICE_OFFICER in roles:
        context["officer_panel"] = auction_selectors.officer_dashboard(user)
    if roles & {Role.DM_CLERK, Role.MAGISTRATE, Role.AUDITOR}:
        context["my_districts"] = (
            District.objects.filter(pk__in=visible_district_ids(user, Permission.VIEW_REPORTS))
            .select_related("state")
            .annotate(
                pound_count=Count("pounds", distinct=True),
                station_count=Count("police_stations", distinct=True),
                village_count=Count("villages", distinct=True),
            )
        )
    if Role.ADMINISTRATOR in roles:
        # People only: the daily run's system actor is no member of staff.
        people = User.objects.filter(is_active=True).exclude(username=SYSTEM_USERNAME)
        context["staff_count"] = people.count()
        context["assignment_count"] = StaffAssignment.objects.active().count()
    return render(request, "office/home.html", context)
