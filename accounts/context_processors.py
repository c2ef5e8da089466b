from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from . import todos
from .models import District
from .roles import Permission
from .scoping import has_permission, roles_of, training_district_ids, visible_district_ids


def navigation(request):
    """The role-aware menu: an entry appears only for a user who may use it somewhere."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": [], "user_roles": []}
    items = [(_("Home"), reverse("home"), None)]
    # One COUNT query: the to-dos open for the user's roles in his jurisdiction.
    open_todos = todos.for_user(user).count()
    items.append(
        (gettext("To do (%(count)s)") % {"count": open_todos}, reverse("office:todos"), None)
    )
    if has_permission(user, Permission.VIEW_REPORTS):
        items.append((_("District office"), reverse("office:office"), None))
        items.append((_("Rule pack"), reverse("rulepacks:index"), None))
    if has_permission(user, Permission.VIEW_RECORDS):
        items += [
            (_("Today's animals"), reverse("impounding:today"), None),
            (_("Register"), reverse("impounding:register"), None),
            (_("Auctions"), reverse("auctions:auctions"), None),
            (_("Tariffs"), reverse("impounding:tariffs"), None),
            (_("Jurisdiction"), reverse("accounts:jurisdiction"), None),
        ]
    if has_permission(user, Permission.RECORD_IMPOUNDMENT):
        # The keeper's phone app, for a pound where the signal comes and goes (ADR 0073).
        items.append((_("Field app"), reverse("field_app"), None))
    if has_permission(user, Permission.VIEW_LEDGER):
        after_register = next(
            (i + 1 for i, item in enumerate(items) if item[1] == reverse("impounding:register")),
            len(items),
        )
        items.insert(after_register, (_("Deposits"), reverse("impounding:deposits"), None))
    if has_permission(user, Permission.MANAGE_STAFF):
        items.append((_("Staff"), reverse("accounts:staff"), None))
    items.append((_("My appointments"), reverse("accounts:profile"), None))
    path = request.path
    # The page belongs to the item with the longest matching address (/office/todos/ is "To
    # do", not "District office").
    matching = [
        url for _l, url, _u in items if path == url or (url != "/" and path.startswith(url))
    ]
    current = max(matching, key=len, default=None)
    nav = [{"label": label, "url": url, "current": url == current} for label, url, _unused in items]
    return {"nav_items": nav, "user_roles": roles_of(user), "training": _training(user)}


def _training(user):
    """The training district, for the banner on every page (ADR 0080), when every district the
    user works in is one: its staff; not staff of the State or the whole system, who see real
    districts too. Told from the districts' flags read with the user's grants, so a user of real
    districts (nearly all) costs no query; training staff, one for the district's name."""
    ids = visible_district_ids(user)
    if not ids or not set(ids) <= training_district_ids(user):
        return None
    return (
        District.objects.filter(pk__in=ids)
        .order_by("pk")
        .only("pk", "name", "name_hi", "training")
        .first()
    )
