from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from .roles import Permission
from .scoping import has_permission, roles_of


def navigation(request):
    """The role-aware menu: an entry appears only for a user who may use it somewhere."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": [], "user_roles": []}
    items = [(_("Home"), reverse("home"), None)]
    if has_permission(user, Permission.VIEW_RECORDS):
        items += [
            (_("Today's animals"), reverse("impounding:today"), None),
            (_("Register"), reverse("impounding:register"), None),
            (_("Tariffs"), reverse("impounding:tariffs"), None),
            (_("Jurisdiction"), reverse("accounts:jurisdiction"), None),
        ]
    if has_permission(user, Permission.VIEW_LEDGER):
        items.insert(3, (_("Deposits"), reverse("impounding:deposits"), None))
    if has_permission(user, Permission.MANAGE_STAFF):
        items.append((_("Staff"), reverse("accounts:staff"), None))
    items.append((_("My appointments"), reverse("accounts:profile"), None))
    path = request.path
    nav = [
        {
            "label": label,
            "url": url,
            "current": path == url or (url != "/" and path.startswith(url)),
        }
        for label, url, _unused in items
    ]
    return {"nav_items": nav, "user_roles": roles_of(user)}
