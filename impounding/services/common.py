from django.core.exceptions import ValidationError
from django.forms import Field as FormField
from django.utils.translation import gettext as _

from ..models import TRANSITIONS, AnimalState

# Django's own words for a blank answer, in its catalogue: as a screen's field says it.
REQUIRED = FormField.default_error_messages["required"]


def blank_errors(answers, names):
    """{name: REQUIRED} for each of `names` answered blank. An answer missing from `answers`
    failed its own field's check, which said so: it is not looked at again."""
    return {n: REQUIRED for n in names if n in answers and not str(answers[n] or "").strip()}


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
