from django.core.exceptions import PermissionDenied, ValidationError
from django.utils.translation import gettext as _

from accounts.roles import Permission
from accounts.scoping import has_permission

from ..models import TRANSITIONS, AnimalState


class TransitionNotAllowed(ValidationError):
    pass


def ensure_transition(animal, to):
    """Refuse a move the state table does not allow; return the state it leaves."""
    if to not in TRANSITIONS.get(animal.state, set()):
        raise TransitionNotAllowed(
            _("Animal %(animal)s is %(state)s: it cannot become %(to)s.")
            % {
                "animal": animal.reference,
                "state": AnimalState(animal.state).label,
                "to": AnimalState(to).label,
            }
        )
    return animal.state


def authorise(by, perm, obj, message=None):
    """Services check the permission too, so no entry point can skip it."""
    if not has_permission(by, Permission(perm), obj):
        raise PermissionDenied(message or _("Your role does not allow this here."))
