"""NPCI's `upi://pay` links, for paying the dues from a phone (ADR 0076).

The link names the payee (`pa`, the collection VPA, and `pn`, its name), the exact amount
(`am`, two decimals), our reference (`tr`, printed beside the QR code), a note (`tn`), the
currency (`cu=INR`) and, where there is one, the page that verifies the entry (`url`).

Values are percent-encoded with `%20` for a space, never `+`: UPI apps differ in how they read a
`+`, and some show it in the payee's name. `pn` and `tn` are cut to what apps display without
splitting a letter: a Devanagari or Tamil syllable (a consonant with its vowel sign or virama)
is one extended grapheme cluster, and `regex`'s `\\X` keeps it whole.

A link confirms nothing to the payee: it is an invitation to pay, not a payment.
"""

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import quote

import regex
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

# NPCI's linking specification: a payee name and a note of about 50 characters show in full.
PAYEE_NAME_MAX = 50
NOTE_MAX = 50
REFERENCE_MAX = 35
# `name@handle`: the name is letters, digits, dot, hyphen or underscore; the handle the bank's.
VPA_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,254}@[A-Za-z][A-Za-z0-9.-]{1,63}$")
# What `quote` may leave as it is in a query value: RFC 3986's unreserved characters only.
_SAFE = "-._~"


def validate_vpa(value):
    """A UPI virtual payment address, `name@handle`."""
    if not VPA_RE.match(value or ""):
        raise ValidationError(
            _("Enter a UPI ID in the form name@bank, for example dm.lucknow@sbi."),
            code="invalid_vpa",
        )


def truncate_graphemes(text, limit):
    """`text` cut to at most `limit` code points, at a grapheme boundary: a conjunct or a
    consonant with its vowel sign is never split. Whitespace at the cut is dropped."""
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    kept = []
    length = 0
    for cluster in regex.findall(r"\X", text):
        if length + len(cluster) > limit:
            break
        kept.append(cluster)
        length += len(cluster)
    return "".join(kept).rstrip()


def two_decimals(amount):
    """`amount` (a Decimal, or an int) as a string with exactly two decimals."""
    if isinstance(amount, float):
        raise TypeError("money is a Decimal, not a float")
    value = Decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if value <= 0:
        raise ValueError("a UPI amount is more than zero")
    return f"{value:.2f}"


@dataclass(frozen=True)
class UpiPayee:
    """Who collects: a VPA and the name the payer's app shows."""

    vpa: str
    name: str


def pay_link(*, payee, amount, reference, note, url=""):
    """The `upi://pay` link for `amount` to `payee`, with our `reference` and `note`."""
    validate_vpa(payee.vpa)
    reference = reference.strip()
    if not reference or len(reference) > REFERENCE_MAX:
        raise ValueError("a UPI reference has 1 to 35 characters")
    params = [
        ("pa", payee.vpa),
        ("pn", truncate_graphemes(payee.name, PAYEE_NAME_MAX)),
        ("am", two_decimals(amount)),
        ("tr", reference),
        ("tn", truncate_graphemes(note, NOTE_MAX)),
        ("cu", "INR"),
    ]
    if url:
        params.append(("url", url))
    query = "&".join(f"{key}={quote(value, safe=_SAFE)}" for key, value in params if value)
    return f"upi://pay?{query}"
