"""A form's single-use key (docs/DEVELOPERS.md): a form that creates or moves something carries
a hidden `idempotency_key`, made when the form is drawn, and its service records one row for one
key. The same form sent again (a double click, a reload, a retry) finds the row it made."""

import uuid
from operator import attrgetter

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _


def made_with_key(model, key, **owner):
    """The row of `model` an earlier sending of the form made with `key`, marked `replayed`,
    or None. A key is its own form's: presented for another record or by another person (an
    `owner` value that differs, named by attribute, e.g. `requested_by_id=by.pk`, or through a
    relation, `animal__dam_id=dam.pk`), it is
    refused, not replayed. Call it under the lock the service takes before it writes, so that
    two sendings at once make one row. No key (a row made by code), no earlier row."""
    if key is None:
        return None
    done = model._default_manager.filter(idempotency_key=key).first()
    if done is None:
        return None
    if any(attrgetter(name.replace("__", "."))(done) != value for name, value in owner.items()):
        raise ValidationError(_("This form has already been used: open a new one."))
    done.replayed = True
    return done


def replayed_row(request, model, **owner):
    """The row of `model` this POST's form already made, for a view whose form would refuse
    the sending again (its choices are gone once used): the same result, shown again. None
    when the POST carries no key of such a row, or of another record or person."""
    try:
        key = uuid.UUID(request.POST.get("idempotency_key", ""))
    except ValueError:
        return None
    return model._default_manager.filter(idempotency_key=key, **owner).first()
