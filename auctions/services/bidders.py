"""One person, one bidder number at an auction (s.19, docs/decisions/0057): the same phone or
the same identity document registered twice in one auction is refused, so that a bidder
cannot stand four times in the register under one name, or buy again under another number
after a block."""

import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ..bidders import Bidder


def _phone10(value):
    return re.sub(r"\D", "", value or "")[-10:]


def _ident(value):
    return re.sub(r"[^0-9A-Z]", "", (value or "").upper())


def refuse_second_registration(auction, *, phone, id_kind, id_number):
    """Refuse, beside the field, a phone or an identity number (as written, less spaces and
    punctuation) already registered at `auction`. The last four digits of an Aadhaar number are
    shared by many people and are not compared. Call under the auction's lock."""
    errors = {}
    phone10, ident = _phone10(phone), _ident(id_number)
    registered = auction.bidders.values_list("number", "phone", "id_kind", "id_number")
    for number, other_phone, other_kind, other_id in registered:
        if "phone" not in errors and len(phone10) == 10 and _phone10(other_phone) == phone10:
            errors["phone"] = _(
                "Bidder %(number)s is already registered at this auction with this phone."
            ) % {"number": number}
        aadhaar = Bidder.IdKind.AADHAAR
        if (
            "id_number" not in errors
            and ident
            and aadhaar not in (id_kind, other_kind)
            and _ident(other_id) == ident
        ):
            errors["id_number"] = _(
                "Bidder %(number)s is already registered at this auction with this document."
            ) % {"number": number}
    if errors:
        raise ValidationError(errors)
