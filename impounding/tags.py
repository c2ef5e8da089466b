"""Ear-tag numbers. A 12-digit Pashu Aadhaar (INAPH / Bharat Pashudhan) tag carries a check digit.

We check it with the Verhoeff scheme, the one Aadhaar numbers use. [R] The INAPH tag
specification was not available to check against; tags of other shapes (RFID, local numbers)
are accepted as written.
"""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

_D = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    (1, 2, 3, 4, 0, 6, 7, 8, 9, 5),
    (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
    (3, 4, 0, 1, 2, 8, 9, 5, 6, 7),
    (4, 0, 1, 2, 3, 9, 5, 6, 7, 8),
    (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2),
    (7, 6, 5, 9, 8, 2, 1, 0, 4, 3),
    (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
    (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)
_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    (1, 5, 7, 6, 2, 8, 3, 0, 9, 4),
    (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
    (8, 9, 1, 6, 0, 4, 3, 5, 2, 7),
    (9, 4, 5, 3, 1, 2, 6, 8, 7, 0),
    (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5),
    (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)
_INV = (0, 4, 3, 2, 1, 5, 6, 7, 8, 9)


def verhoeff_valid(number: str) -> bool:
    c = 0
    for i, digit in enumerate(reversed(number)):
        c = _D[c][_P[i % 8][int(digit)]]
    return c == 0


def verhoeff_check_digit(body: str) -> str:
    c = 0
    for i, digit in enumerate(reversed(body)):
        c = _D[c][_P[(i + 1) % 8][int(digit)]]
    return str(_INV[c])


def normalise_tag(value: str) -> str:
    return "".join(value.split())


def is_pashu_aadhaar(value: str) -> bool:
    tag = normalise_tag(value)
    return len(tag) == 12 and tag.isdigit()


def validate_ear_tag(value):
    tag = normalise_tag(value or "")
    if is_pashu_aadhaar(tag) and not verhoeff_valid(tag):
        raise ValidationError(
            {
                "ear_tag": _(
                    "This 12-digit Pashu Aadhaar number fails its check digit. Read the "
                    "tag again: a digit is wrong or two are swapped."
                )
            }
        )
