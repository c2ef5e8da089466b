"""One answer to "may this user do X here?", and the jurisdiction filters built on it.

A user's grants are worked out once per request (cached on the user object): each active
assignment gives a set of permissions over a jurisdiction. Records are scoped by the pound or
district they belong to, so another district's record is simply not in the queryset (a 404).
The daily run is one more user, `system_actor()`, whose single grant is written in code
(roles.SYSTEM_PERMISSIONS) and checked by the same functions.
"""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import Q
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from .roles import (
    ROLE_PERMISSIONS,
    SYSTEM_PERMISSIONS,
    SYSTEM_ROLE,
    SYSTEM_USERNAME,
    Permission,
    Scope,
)

_CACHE_ATTR = "_poundadmin_grants"


@dataclass(frozen=True)
class Grant:
    role: str
    scope: Scope
    scope_id: int | None
    permissions: frozenset

    def allows(self, perm):
        return perm is None or Permission(perm) in self.permissions


SYSTEM_GRANT = Grant(SYSTEM_ROLE, Scope.NONE, None, SYSTEM_PERMISSIONS)


def is_system_actor(user):
    """The daily run's own user: its name, and no password anybody could sign in with. Given a
    password, it would be an ordinary user again, with only the roles assigned to it."""
    return user.username == SYSTEM_USERNAME and not user.has_usable_password()


def system_actor():
    """The user the daily run acts as, created on first use with an unusable password. Refuses to
    hand back a user that would not be recognised (deactivated, or given a password), so that the
    run stops at once rather than failing one step after another."""
    user, _created = get_user_model().objects.get_or_create(
        username=SYSTEM_USERNAME, defaults={"password": make_password(None)}
    )
    if not (user.is_active and is_system_actor(user)):
        raise PermissionDenied(f"{SYSTEM_USERNAME} is inactive or has a password: it cannot act.")
    return user


def grants_for(user):
    if user is None or not user.is_authenticated or not user.is_active:
        return ()
    cached = getattr(user, _CACHE_ATTR, None)
    if cached is not None:
        return cached
    if is_system_actor(user):
        # Its grant is in code: an assignment made to it in the admin gives it nothing more.
        grants = (SYSTEM_GRANT,)
    else:
        grants = tuple(_assignment_grants(user))
    setattr(user, _CACHE_ATTR, grants)
    return grants


def _assignment_grants(user):
    from .models import StaffAssignment  # accounts.models imports this module: a cycle

    for a in StaffAssignment.objects.active().filter(user=user):
        scope = a.scope
        scope_id = None if scope == Scope.NONE else getattr(a, f"{scope.value}_id")
        yield Grant(a.role, scope, scope_id, ROLE_PERMISSIONS.get(a.role, frozenset()))


def forget_grants(user):
    for attr in (_CACHE_ATTR, "_poundadmin_pound_index", "_poundadmin_district_index"):
        if hasattr(user, attr):
            delattr(user, attr)


def roles_of(user):
    return sorted({g.role for g in grants_for(user)})


def _covers_pound(grant, pound):
    pound_id, district_id, station_id, state_id, _training = pound
    match grant.scope:
        case Scope.NONE:
            return True
        case Scope.POUND:
            return grant.scope_id == pound_id
        case Scope.POLICE_STATION:
            return grant.scope_id == station_id
        case Scope.DISTRICT:
            return grant.scope_id == district_id
        case Scope.STATE:
            return grant.scope_id == state_id
    return False


def _pound_index(user):
    """(pound, district, police station, state) ids of every pound any grant reaches, and
    whether its district is a training one: one query per request, whatever permissions are
    asked about afterwards."""
    from .models import Pound  # accounts.models imports this module: a cycle

    cached = getattr(user, "_poundadmin_pound_index", None)
    if cached is not None:
        return cached
    grants = grants_for(user)
    q = Q(pk__in=[])
    for g in grants:
        if g.scope == Scope.NONE:
            q = Q()
            break
        q |= {
            Scope.POUND: Q(pk=g.scope_id),
            Scope.POLICE_STATION: Q(nearest_police_station_id=g.scope_id),
            Scope.DISTRICT: Q(district_id=g.scope_id),
            Scope.STATE: Q(district__state_id=g.scope_id),
        }[g.scope]
    cached = (
        list(
            Pound.objects.filter(q).values_list(
                "pk",
                "district_id",
                "nearest_police_station_id",
                "district__state_id",
                "district__training",
            )
        )
        if grants
        else []
    )
    user._poundadmin_pound_index = cached
    return cached


def _district_index(user):
    """(district, state) ids of the districts a district-, State- or system-wide grant reaches,
    and whether each is a training district."""
    from .models import District  # accounts.models imports this module: a cycle

    cached = getattr(user, "_poundadmin_district_index", None)
    if cached is not None:
        return cached
    wide = [g for g in grants_for(user) if g.scope in (Scope.NONE, Scope.STATE, Scope.DISTRICT)]
    q = Q(pk__in=[])
    for g in wide:
        if g.scope == Scope.NONE:
            q = Q()
            break
        q |= Q(pk=g.scope_id) if g.scope == Scope.DISTRICT else Q(state_id=g.scope_id)
    fields = ("pk", "state_id", "training")
    cached = list(District.objects.filter(q).values_list(*fields)) if wide else []
    user._poundadmin_district_index = cached
    return cached


def visible_pound_ids(user, perm=None):
    """Ids of the pounds where the user holds `perm` (any permission when perm is None)."""
    grants = [g for g in grants_for(user) if g.allows(perm)]
    if not grants:
        return []
    return [p[0] for p in _pound_index(user) if any(_covers_pound(g, p) for g in grants)]


def visible_district_ids(user, perm=None):
    """Districts where the user holds `perm` over the whole district, or over a pound in it."""
    grants = [g for g in grants_for(user) if g.allows(perm)]
    if not grants:
        return []
    ids = {p[1] for p in _pound_index(user) if any(_covers_pound(g, p) for g in grants)}
    for district_id, state_id, _training in _district_index(user):
        for g in grants:
            if (
                g.scope == Scope.NONE
                or (g.scope == Scope.DISTRICT and g.scope_id == district_id)
                or (g.scope == Scope.STATE and g.scope_id == state_id)
            ):
                ids.add(district_id)
                break
    return sorted(ids)


def training_district_ids(user):
    """The training districts (ADR 0080) among those any of the user's grants reach, read from
    the indexes the grants already read: no query of its own."""
    flags = {p[1]: p[4] for p in _pound_index(user)}
    flags.update((district_id, training) for district_id, _s, training in _district_index(user))
    return {district_id for district_id, training in flags.items() if training}


def _jurisdiction_of(obj):
    """(pound_id, district_id, state_id) of a jurisdiction object or of a record that has one."""
    from .models import District, PoliceStation, Pound, State  # a cycle, as above

    if isinstance(obj, Pound):
        return obj.pk, obj.district_id, None
    if isinstance(obj, District):
        return None, obj.pk, obj.state_id
    if isinstance(obj, PoliceStation):
        return None, obj.district_id, None
    if isinstance(obj, State):
        return None, None, obj.pk
    pound_id = getattr(obj, "pound_id", None)
    if pound_id is not None:
        return pound_id, None, None
    district_id = getattr(obj, "district_id", None)
    if district_id is not None:
        return None, district_id, None
    raise TypeError(f"{type(obj).__name__} has no pound or district to check permissions against")


def has_permission(user, perm, obj=None):
    """May `user` exercise `perm` over `obj` (a jurisdiction, or a record in one)?

    With obj=None: does the user hold `perm` anywhere at all (used to show menus).
    """
    grants = [g for g in grants_for(user) if g.allows(perm)]
    if not grants:
        return False
    if obj is None:
        return True
    if any(g.scope == Scope.NONE for g in grants):
        return True
    from .models import PoliceStation  # a cycle, as above

    pound_id, district_id, state_id = _jurisdiction_of(obj)
    if isinstance(obj, PoliceStation):
        if any(g.scope == Scope.POLICE_STATION and g.scope_id == obj.pk for g in grants):
            return True
    if pound_id is not None:
        return pound_id in visible_pound_ids(user, perm)
    if district_id is not None:
        return district_id in visible_district_ids(user, perm)
    if state_id is not None:
        return any(g.scope == Scope.STATE and g.scope_id == state_id for g in grants)
    return False


def authorise(by, perm, obj, message=None):
    """Services check the permission too, so no entry point can skip it."""
    if not has_permission(by, Permission(perm), obj):
        raise PermissionDenied(message or _("Your role does not allow this here."))


class PoundScopedQuerySet(models.QuerySet):
    """Records that belong to a pound. `for_user` keeps those of the pounds where the user holds
    `perm` (any permission when None): another district's record is not in the queryset, so a
    lookup through it is a 404. `scope` is the lookup that leads to the pound's id."""

    scope = "pound_id"

    @classmethod
    def through(cls, scope):
        """This queryset, for a model whose pound is reached through `scope` (a lookup such as
        "lot__auction__pound_id")."""
        return type(f"{cls.__name__}Through", (cls,), {"scope": scope})

    def for_user(self, user, perm=None):
        return self.filter(**{f"{self.scope}__in": visible_pound_ids(user, perm)})


class DistrictScopedQuerySet(models.QuerySet):
    """Records that belong to a district, scoped as `PoundScopedQuerySet` is, by district."""

    scope = "district_id"

    def for_user(self, user, perm=None):
        return self.filter(**{f"{self.scope}__in": visible_district_ids(user, perm)})


def lookup(user, queryset, pk, perm=None):
    """The one step from an id to a record, for the screens and the API alike: `queryset`'s row
    `pk` among those `user` may see (Http404 outside them, as if it did not exist), then, with
    `perm`, the action checked over it (PermissionDenied: seen, but not this)."""
    record = get_object_or_404(queryset.for_user(user), pk=pk)
    if perm is not None and not has_permission(user, Permission(perm), record):
        raise PermissionDenied
    return record
