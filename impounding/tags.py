"""Ear-tag numbers, and the check of a 12-digit Pashu Aadhaar tag.

What is known: the Pashu Aadhaar tags of INAPH (now Bharat Pashudhan) carry 12 digits, and the
Aadhaar numbers of people end in a Verhoeff check digit (UIDAI). What is not known: no
published INAPH specification says that the animal tags carry a Verhoeff digit too, or any
check digit at all. [R] So a failed check is a warning, never a refusal: the keeper reads the
tag again, and when it reads as written confirms it, and the entry records that the tag failed
the check and that it was confirmed (`tag_check_failed` in the entry's warnings, and in the
event). Tags of other shapes (RFID, local numbers) are taken as written. The check itself is
python-stdnum's `verhoeff`, not tables of our own.
"""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from stdnum import verhoeff


def normalise_tag(value: str) -> str:
    return "".join(value.split())


def is_pashu_aadhaar(value: str) -> bool:
    tag = normalise_tag(value)
    return len(tag) == 12 and tag.isdigit()


def tag_check_fails(value) -> bool:
    """A 12-digit tag whose last digit is not its Verhoeff check digit."""
    tag = normalise_tag(value or "")
    return is_pashu_aadhaar(tag) and not verhoeff.is_valid(tag)


def validate_ear_tag(value, *, confirmed=False):
    """Refuse a 12-digit tag failing the check unless the keeper confirmed it reads so."""
    if tag_check_fails(value) and not confirmed:
        raise ValidationError(
            {
                "ear_tag": _(
                    "This 12-digit Pashu Aadhaar number fails its check digit. Read the tag "
                    "again: a digit may be wrong or two swapped. If it reads as written, tick "
                    "the box to keep it; the entry records that it failed the check."
                )
            }
        )


def tag_warning(number, tag):
    """The warning an entry keeps for a confirmed tag that failed the check."""
    return {"code": "tag_check_failed", "animal": number, "tag": normalise_tag(tag)}
