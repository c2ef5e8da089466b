"""The s.19 purchase bar: no officer of police, pound-keeper or other officer under the Act may
buy, directly or indirectly. Every bidder is checked against the staff records: the same phone
or identity number, or a name that reads the same (a fuzzy match, rapidfuzz's token-set ratio,
so that "Sunil Verma" matches "Sunil Kumar Verma", while a one-word name must match whole)."""

import re
import unicodedata

from rapidfuzz import fuzz

from accounts.models import StaffAssignment, User

NAME_THRESHOLD = 88


def _digits(value):
    return re.sub(r"\D", "", value or "")


def _norm_id(value):
    return re.sub(r"[^0-9A-Z]", "", (value or "").upper())


# Titles, in English and in Hindi, say nothing about who the person is.
TITLES = {"shri", "sri", "smt", "mr", "mrs", "ms", "dr", "km", "kumari", "hc", "si", "asi"}
TITLES |= {"श्री", "श्रीमती", "सुश्री", "कुमारी", "डॉ"}


def _norm_name(value):
    # The vowel signs and viramas of Indian scripts are Unicode marks, which \w does not count
    # as word characters: kept, so that "सुनील" stays one word and not three consonants.
    text = unicodedata.normalize("NFC", (value or "").lower())
    text = "".join(
        c if c.isalnum() or c.isspace() or unicodedata.category(c).startswith("M") else " "
        for c in text
    )
    return " ".join(w for w in text.split() if w not in TITLES)


def staff_users():
    """Everyone who holds, or has held, an appointment: past officers count too."""
    ids = StaffAssignment.objects.values("user_id")
    return User.objects.filter(pk__in=ids).only(
        "id", "first_name", "last_name", "name_hi", "phone", "id_number", "username"
    )


def staff_matches(*, name, phone="", id_number="", staff=None):
    """A list of {"user": id, "staff": name, "why": [...], "score": n} for every staff member
    the bidder may be. Empty when the bidder is nobody on the staff records."""
    phone10 = _digits(phone)[-10:]
    ident = _norm_id(id_number)
    bidder = _norm_name(name)
    matches = []
    for user in staff if staff is not None else staff_users():
        why, score = [], 0
        if phone10 and len(phone10) == 10 and _digits(user.phone)[-10:] == phone10:
            why.append("phone")
            score = 100
        if ident and len(ident) >= 4 and _norm_id(user.id_number) == ident:
            why.append("id")
            score = 100
        for staff_name in (user.get_full_name(), user.name_hi):
            candidate = _norm_name(staff_name)
            if not bidder or not candidate:
                continue
            ratio = fuzz.token_sort_ratio(bidder, candidate)
            if min(len(bidder.split()), len(candidate.split())) >= 2:
                # "Sunil Verma" and "Sunil Kumar Verma": every word of one is in the other.
                ratio = max(ratio, fuzz.token_set_ratio(bidder, candidate))
            if ratio >= NAME_THRESHOLD:
                why.append("name")
                score = max(score, int(ratio))
                break
        if why:
            matches.append(
                {
                    "user": user.pk,
                    "staff": user.get_full_name() or user.username,
                    "why": sorted(set(why)),
                    "score": score,
                }
            )
    return sorted(matches, key=lambda m: -m["score"])
