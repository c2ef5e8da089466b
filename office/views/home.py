"""The home page: one panel for each role the user holds, gathering every app's work."""

from django.db.models import Count
from django.shortcuts import render

from accounts.models import District, Pound, StaffAssignment, User
from accounts.roles import SYSTEM_USERNAME, Permission, Role
from accounts.scoping import grants_for, visible_district_ids, visible_pound_ids
from accounts.views import pound_queryset
from auctions import selectors as auction_selectors

from .. import statements


def fines_to_remit(user):
    """The keeper's fines due to the District Magistrate (s.17) at the pounds he may remit
    from, one row a pound with something due, for his home page and its link to sending them."""
    ids = set(visible_pound_ids(user, Permission.RECORD_PAYMENT)) & set(
        visible_pound_ids(user, Permission.VIEW_LEDGER)
    )
    if not ids:
        return []
    pounds = Pound.objects.filter(pk__in=ids).select_related("district").order_by("name")
    return [p for p in statements.pound_positions(pounds).values() if p.fines_due > 0]


def home(request):
    """Each role's home page. A user with several roles sees one panel per role."""
    user = request.user
    roles = {g.role for g in grants_for(user)}
    context = {"roles": roles, "Role": Role}
    if roles & {Role.POUND_KEEPER, Role.POLICE_OFFICER}:
        context["my_pounds"] = pound_queryset(user)
    if Role.POUND_KEEPER in roles:
        context["keeper_panel"] = auction_selectors.keeper_dashboard(user)
        context["fines_due"] = fines_to_remit(user)
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
