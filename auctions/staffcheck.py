"""The s.19 purchase bar: no officer of police, pound-keeper or other officer under the Act may
buy, directly or indirectly. Every bidder is checked against the staff records: the same phone
or identity number, or a name that reads the same (a fuzzy match, rapidfuzz's token-set ratio,
so that "Sunil Verma" matches "Sunil Kumar Verma", while a one-word name must match whole).

"Indirectly" (docs/decisions/0057-s19-relatives-screen.md): the bidder is checked the same way
against the household members and close relatives each member of staff declared
(accounts.relatives), and his address against the pounds' own addresses. Two queries, whatever
the number of staff, relatives and pounds: the rows are few thousand at most in a State, and the
fuzzy match is rapidfuzz's, in Python, the same for every name."""

import re
import unicodedata
from dataclasses import dataclass

from rapidfuzz import fuzz

from accounts.models import DeclaredRelative, Pound, StaffAssignment, User

NAME_THRESHOLD = 88
# An address reads as the pound's when the whole of it is this close, or when it holds every
# word of the pound's address; a pound's address of fewer words (a village's name) says nothing.
ADDRESS_THRESHOLD = 88
ADDRESS_MIN_WORDS = 3


def _digits(value):
    return re.sub(r"\D", "", value or "")


def _norm_id(value):
    return re.sub(r"[^0-9A-Z]", "", (value or "").upper())


# Titles, in English and in Hindi, say nothing about who the person is.
TITLES = {"shri", "sri", "smt", "mr", "mrs", "ms", "dr", "km", "kumari", "hc", "si", "asi"}
TITLES |= {"श्री", "श्रीमती", "सुश्री", "कुमारी", "डॉ"}


def _words(value):
    # The vowel signs and viramas of Indian scripts are Unicode marks, which \w does not count
    # as word characters: kept, so that "सुनील" stays one word and not three consonants.
    text = unicodedata.normalize("NFC", (value or "").lower())
    text = "".join(
        c if c.isalnum() or c.isspace() or unicodedata.category(c).startswith("M") else " "
        for c in text
    )
    return text.split()


def _norm_name(value):
    return " ".join(w for w in _words(value) if w not in TITLES)


@dataclass(frozen=True)
class Person:
    """Someone a bidder may be: a member of staff, or a relative she declared."""

    user: int
    staff: str
    names: tuple
    phone: str
    id_number: str
    relative: int | None = None
    relation: str = ""

    def match(self):
        found = {"user": self.user, "staff": self.staff}
        if self.relative is not None:
            found |= {"relative": self.relative, "relation": self.relation}
        return found


def staff_users():
    """Everyone who holds, or has held, an appointment: past officers count too."""
    ids = StaffAssignment.objects.values("user_id")
    return User.objects.filter(pk__in=ids).only(
        "id", "first_name", "last_name", "name_hi", "phone", "id_number", "username"
    )


STAFF_FIELDS = ("id", "first_name", "last_name", "username", "name_hi", "phone", "id_number")
RELATIVE_FIELDS = ("id", "name", "name_hi", "relation", "phone", "id_number")


def _staff_name(first, last, username):
    return f"{first} {last}".strip() or username


def _people(staff):
    """The staff and their declared relatives, as Persons. One query (the relatives joined to
    their staff member), or, for a given list of staff, one for their relatives."""
    if staff is None:
        rows = staff_users().values_list(
            *STAFF_FIELDS, *(f"relatives__{f}" for f in RELATIVE_FIELDS)
        )
    else:
        staff = list(staff)
        by_user = {u.pk: u for u in staff}
        relatives = DeclaredRelative.objects.filter(user_id__in=by_user).values_list(
            "user_id", *RELATIVE_FIELDS
        )
        own = [tuple(getattr(u, f) for f in STAFF_FIELDS) + (None,) * 6 for u in staff]
        rows = own + [
            tuple(getattr(by_user[r[0]], f) for f in STAFF_FIELDS) + r[1:] for r in relatives
        ]
    people, seen = [], set()
    for pk, first, last, username, name_hi, phone, ident, *relative in rows:
        staff_name = _staff_name(first, last, username)
        if pk not in seen:
            seen.add(pk)
            people.append(Person(pk, staff_name, (f"{first} {last}", name_hi), phone, ident))
        rel_pk, rel_name, rel_name_hi, relation, rel_phone, rel_ident = relative
        if rel_pk is not None:
            people.append(
                Person(
                    pk,
                    staff_name,
                    (rel_name, rel_name_hi),
                    rel_phone,
                    rel_ident,
                    relative=rel_pk,
                    relation=relation,
                )
            )
    return people


def _name_ratio(bidder, names):
    for name in names:
        candidate = _norm_name(name)
        if not bidder or not candidate:
            continue
        ratio = fuzz.token_sort_ratio(bidder, candidate)
        if min(len(bidder.split()), len(candidate.split())) >= 2:
            # "Sunil Verma" and "Sunil Kumar Verma": every word of one is in the other.
            ratio = max(ratio, fuzz.token_set_ratio(bidder, candidate))
        if ratio >= NAME_THRESHOLD:
            return int(ratio)
    return 0


def _person_match(person, *, bidder, phone10, ident):
    why, score = [], 0
    if phone10 and len(phone10) == 10 and _digits(person.phone)[-10:] == phone10:
        why.append("phone")
        score = 100
    if ident and len(ident) >= 4 and _norm_id(person.id_number) == ident:
        why.append("id")
        score = 100
    ratio = _name_ratio(bidder, person.names)
    if ratio:
        why.append("name")
        score = max(score, ratio)
    if not why:
        return None
    return person.match() | {"why": sorted(set(why)), "score": score}


def _address_ratio(bidder, place):
    """How far the bidder's address reads as a pound's (0 when it does not)."""
    words = place.split()
    if len(words) < ADDRESS_MIN_WORDS or not bidder:
        return 0
    if set(words) <= set(bidder.split()):
        return 100  # "Quarter 2, Kanji House, Malihabad ..." holds the pound's whole address
    ratio = fuzz.token_sort_ratio(bidder, place)
    return int(ratio) if ratio >= ADDRESS_THRESHOLD else 0


def pound_matches(address):
    """The pounds whose own address the bidder gives as his: one query."""
    bidder = " ".join(_words(address))
    if not bidder:
        return []
    found = []
    pounds = Pound.objects.exclude(address="", address_hi="").values_list(
        "id", "name", "address", "address_hi"
    )
    for pk, name, *places in pounds:
        score = max(_address_ratio(bidder, " ".join(_words(p))) for p in places)
        if score:
            found.append(
                {"user": None, "staff": name, "pound": pk, "why": ["address"], "score": score}
            )
    return found


def staff_matches(*, name, phone="", id_number="", staff=None, address=""):
    """A list of {"user": id, "staff": name, "why": [...], "score": n} for every staff member
    the bidder may be or may buy for; a match on a declared relative also names the relative
    ("relative": id, "relation": code, never his name) and the staff member who declared him,
    and a match on a pound's address names the pound ("user": None, "pound": id). Empty when
    the bidder is nobody on the staff records."""
    phone10 = _digits(phone)[-10:]
    ident = _norm_id(id_number)
    bidder = _norm_name(name)
    matches = [
        found
        for person in _people(staff)
        if (found := _person_match(person, bidder=bidder, phone10=phone10, ident=ident))
    ]
    matches += pound_matches(address)
    return sorted(matches, key=lambda m: -m["score"])


def match_key(match):
    """What a match is on: a member of staff, one of her relatives, or a pound."""
    return (match.get("user"), match.get("relative"), match.get("pound"))
