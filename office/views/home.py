"""The home page: one panel for each role the user holds, gathering every app's work."""

from collections import Counter

from django.db.models import Count
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from accounts import todos
from accounts.models import District, Pound, StaffAssignment, User
from accounts.roles import SYSTEM_USERNAME, Permission, Role
from accounts.scoping import grants_for, visible_pound_ids
from accounts.selectors import pounds_with_villages
from auctions import selectors as auction_selectors
from impounding import selectors as impounding_selectors
from kernel.replica import reads_from_replica

from .. import statements


def fines_to_remit(user):
    """The keeper's fines due to the District Magistrate (s.17) at the pounds he may remit
    from, one row a pound with something due, for his home page and its link to sending them."""
    ids = set(visible_pound_ids(user, Permission.PAY_FROM_TILL)) & set(
        visible_pound_ids(user, Permission.VIEW_LEDGER)
    )
    if not ids:
        return []
    pounds = Pound.objects.filter(pk__in=ids).select_related("district").order_by("name")
    return [p for p in statements.pound_positions(pounds).values() if p.fines_due > 0]


# The office's home is a task list (GOV.UK pattern): each kind of work waiting, with its count
# and the page where it is done. The counts are the open to-dos, which the daily run opens and
# the services close as the work is done.
TASKS = [
    (
        Role.DM_CLERK,
        "remittance_confirm:",
        _("Confirm remittances of fines (s.17)"),
        "office:remittances",
    ),
    (
        Role.DM_CLERK,
        "surplus_receive:",
        _("Receive surplus sale proceeds (s.17)"),
        "office:surplus",
    ),
    (
        Role.DM_CLERK,
        "court_order_review:",
        _("Check court orders before their release (s.19)"),
        "office:approvals",
    ),
    (
        Role.MAGISTRATE,
        "deposit_apply:",
        _("Confirm deposits to apply as payment (s.15)"),
        "office:approvals",
    ),
    (
        Role.MAGISTRATE,
        "surplus_claim:",
        _("Decide claims to surplus proceeds (s.17)"),
        "office:approvals",
    ),
    (
        Role.MAGISTRATE,
        "disposal_decide:",
        _("Decide disposal orders (s.14 proviso)"),
        "office:approvals",
    ),
    (
        Role.MAGISTRATE,
        "shortfall_writeoff:",
        _("Write off shortfalls after sales"),
        "office:approvals",
    ),
]


def office_tasks(user, roles):
    """[(label, url, count)] of the office's work waiting for this user, in one query."""
    mine = [t for t in TASKS if t[0] in roles]
    if not mine:
        return []
    waiting = Counter(
        key.split(":", 1)[0] + ":" for key in todos.for_user(user).values_list("key", flat=True)
    )
    return [(label, reverse(url), waiting[prefix]) for _role, prefix, label, url in mine]


@reads_from_replica
def home(request):
    """Each role's home page. A user with several roles sees one panel per role."""
    user = request.user
    roles = {g.role for g in grants_for(user)}
    context = {"roles": roles, "Role": Role}
    if roles & {Role.POUND_KEEPER, Role.POLICE_OFFICER}:
        context["my_pounds"] = pounds_with_villages(user)
    if Role.POUND_KEEPER in roles:
        context["keeper_panel"] = auction_selectors.keeper_dashboard(user)
        context["fines_due"] = fines_to_remit(user)
        context["court_orders"] = impounding_selectors.court_orders_for_keeper(user)
    if Role.POLICE_OFFICER in roles:
        context["officer_panel"] = auction_selectors.officer_dashboard(user)
    context["office_tasks"] = office_tasks(user, roles)
    if roles & {Role.DM_CLERK, Role.MAGISTRATE, Role.AUDITOR}:
        context["my_districts"] = (
            District.objects.for_user(user, Permission.VIEW_REPORTS)
            .select_related("state")
            .annotate(
                pound_count=Count("pounds", distinct=True),
                station_count=Count("police_stations", distinct=True),
                village_count=Count("villages", distinct=True),
            )
        )
    if Role.ADMINISTRATOR in roles:
        # People only: the daily run's system actor and the State systems' service accounts
        # (their tokens are counted on their own page) are no members of staff.
        people = User.objects.filter(is_active=True, is_service_account=False).exclude(
            username=SYSTEM_USERNAME
        )
        context["staff_count"] = people.count()
        context["assignment_count"] = (
            StaffAssignment.objects.active().filter(user__is_service_account=False).count()
        )
    return render(request, "office/home.html", context)
