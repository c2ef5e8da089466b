from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ..models import TRANSITIONS, AnimalState


class TransitionNotAllowed(ValidationError):
    pass


class ReleaseRefused(ValidationError):
    """Every reason a release on payment or on deposit is refused, one type for its callers: the
    field a reason concerns, where it has one, names it (`message_dict`), so a screen puts it
    beside the field and the API names the field in its problem."""


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
