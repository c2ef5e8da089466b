"""Sentences stored as data and translated when they are shown (docs/decisions/0038).

A timeline entry or a to-do is written once, by a service or the daily run, and read later by
people reading English or Hindi. So it is stored as its code, the English template that is also
its gettext msgid, with its arguments, and the reader's language is applied at display:

    title = Message("Report the unclaimed cattle of %(entry)s to the officer (s.14)",
                    entry=entry.register_number)
    str(title)        # in the active language
    title.english()   # what the plain-text column keeps, for mail, exports and old readers
    title.as_data()   # {"msgid": ..., "args": {...}}, for a JSON column
    shown(data, fallback)  # the stored message in the active language, or the fallback text

An argument is a plain value (a number, a reference, a date already formatted), a name in
both languages as `bilingual(en, hi)`, which is shown in the reader's language, a phrase in
every language as `in_both(text)`, or a message of
its own (`Message("the claimant")`), translated with the sentence: the words an event's summary
says in place of a person's name (kernel.models.EventPersonal). Never change the
wording of a template that rows already store: add a new one (old rows keep their English text).

`_` in a module that builds messages is `Message` itself, so that makemessages finds the
templates: `from kernel.messages import Message as _` and `_("... %(x)s ...") % {"x": 1}`.
"""

import re
from datetime import date, datetime
from decimal import Decimal

from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_noop, ngettext

from .formatting import lakh

# The script each shipped language besides English is written in: a name kept in the district's
# second language (`name_hi`: Hindi, Marathi or Tamil as the district's pack says) is shown to a
# reader of a language written in the same script.
SCRIPTS = {"hi": (0x0900, 0x097F), "mr": (0x0900, 0x097F), "ta": (0x0B80, 0x0BFF)}


def bilingual(en, hi=""):
    """A name given in English and in the district's second language (a pound, a village):
    shown in the reader's. The second is kept under "hi" whatever its language."""
    return {"en": str(en), "hi": str(hi or en)}


def in_both(text):
    """A phrase in every language shipped, as an argument: a choice's label (lazy), a callable
    that gives it (`lambda: order.get_status_display()`), or an English phrase in the catalogue.
    ("Both" from the days of English and Hindi alone: "hi" is kept for rows read before.)"""

    def say(language):
        with translation.override(language):
            if callable(text):
                return str(text())
            return gettext(text) if isinstance(text, str) else str(text)

    return {language: say(language) for language in ("en", "hi", *SCRIPTS)}


def _plain(value):
    if isinstance(value, Message):
        return value.as_data()
    if isinstance(value, dict) and "msgid" in value:
        return value
    if isinstance(value, dict):
        en = str(value.get("en", ""))
        kept = {"en": en, "hi": str(value.get("hi") or en)}
        return kept | {code: str(value[code]) for code in SCRIPTS if value.get(code)}
    if isinstance(value, datetime):
        return timezone.localtime(value).strftime("%d-%m-%Y %H:%M")
    if isinstance(value, date):
        return value.strftime("%d-%m-%Y")
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Decimal):
        return str(value)
    return str(value)


def _in_language(args):
    language = (translation.get_language() or "en").split("-")[0]
    return {key: _one_in_language(value, language) for key, value in args.items()}


def _one_in_language(value, language):
    if not isinstance(value, dict):
        return value
    if "msgid" in value:
        return str(Message.from_data(value))
    if language == "en" or language not in SCRIPTS:
        return value["en"]
    if value.get(language):
        return value[language]
    return _older(value, language)


def _older(value, language):
    """A name or phrase kept in English and Hindi alone (every row written before phrases were
    kept in every language, and every name), for a reader of `language`: the catalogue's phrase,
    else the second-language name when it is written in the reader's script, else English. The
    stored row is not changed: the event chain is hashed."""
    en, second = value["en"], value.get("hi") or value["en"]
    phrase = gettext(en) if en else en
    if phrase != en:
        return phrase
    with translation.override("hi"):
        hindi_phrase = gettext(en) if en else en
    if hindi_phrase != en and hindi_phrase == second:
        return en  # a Hindi phrase the reader's catalogue does not have: English, not Hindi
    return second if written_in(second, language) else en


def written_in(text, language):
    """Whether every letter of `text` is in the script `language` (one of SCRIPTS) is written in."""
    low, high = SCRIPTS[language]
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and all(low <= ord(c) <= high for c in letters)


def for_reader(name, second):
    """A name kept in English and in the district's second language (`name_hi`, in Hindi,
    Marathi or Tamil as its pack says), as the active language reads it: the second where it is
    written in the reader's script (Devanagari for Hindi and Marathi, Tamil for Tamil), else the
    English. A Tamil district's names are not shown to a Hindi reader in Tamil letters."""
    language = (translation.get_language() or "en").split("-")[0]
    if second and language in SCRIPTS and written_in(second, language):
        return second
    return name


# An amount after "₹" in a template is shown with Indian grouping (₹24,800.00), in rows old and
# new alike: the stored argument stays the plain Decimal string.
MONEY = re.compile(r"₹%\((\w+)\)s")


def plural_forms(n):
    """The singular and plural of each stored template that counts with "(s)", keyed by that
    template (its code, which rows keep): shown with the reader's plural for `n` (issue 27)."""
    # fmt: off
    return {
        "%(number)s: %(count)s animal(s) entered": ngettext(
            "%(number)s: %(count)s animal entered",
            "%(number)s: %(count)s animals entered", n),
        "Fed and watered %(count)s animal(s) on %(date)s": ngettext(
            "Fed and watered %(count)s animal on %(date)s",
            "Fed and watered %(count)s animals on %(date)s", n),
        "%(count)s animal(s) released to %(name)s on payment of ₹%(amount)s (%(receipt)s)":
            ngettext(
                "%(count)s animal released to %(name)s on payment of ₹%(amount)s (%(receipt)s)",
                "%(count)s animals released to %(name)s on payment of ₹%(amount)s (%(receipt)s)",
                n),
        "%(count)s animal(s) released to %(name)s on deposit of ₹%(amount)s (%(receipt)s); "
        "complaint due by %(due)s": ngettext(
            "%(count)s animal released to %(name)s on deposit of ₹%(amount)s (%(receipt)s); "
            "complaint due by %(due)s",
            "%(count)s animals released to %(name)s on deposit of ₹%(amount)s (%(receipt)s); "
            "complaint due by %(due)s", n),
        "%(count)s animal(s) released by order of %(court)s, case %(case)s": ngettext(
            "%(count)s animal released by order of %(court)s, case %(case)s",
            "%(count)s animals released by order of %(court)s, case %(case)s", n),
        "Order of %(court)s, case %(case)s, recorded for %(count)s animal(s): they stay until "
        "it is checked": ngettext(
            "Order of %(court)s, case %(case)s, recorded for %(count)s animal: it stays until "
            "it is checked",
            "Order of %(court)s, case %(case)s, recorded for %(count)s animals: they stay until "
            "it is checked", n),
        "%(count)s animal(s) released by order of %(court)s, case %(case)s, checked against the "
        "court's record": ngettext(
            "%(count)s animal released by order of %(court)s, case %(case)s, checked against "
            "the court's record",
            "%(count)s animals released by order of %(court)s, case %(case)s, checked against "
            "the court's record", n),
        "%(auction)s on %(at)s at %(place)s: %(count)s lot(s)": ngettext(
            "%(auction)s on %(at)s at %(place)s: %(count)s lot",
            "%(auction)s on %(at)s at %(place)s: %(count)s lots", n),
        "%(number)s: %(count)s unclaimed animal(s) reported to %(to)s": ngettext(
            "%(number)s: %(count)s unclaimed animal reported to %(to)s",
            "%(number)s: %(count)s unclaimed animals reported to %(to)s", n),
        "%(number)s: %(count)s animal(s) to %(recipient)s proposed": ngettext(
            "%(number)s: %(count)s animal to %(recipient)s proposed",
            "%(number)s: %(count)s animals to %(recipient)s proposed", n),
        "%(name)s refused to pay for %(count)s animal(s): as many as necessary to be sold":
            ngettext(
                "%(name)s refused to pay for %(count)s animal: to be sold if necessary",
                "%(name)s refused to pay for %(count)s animals: as many as necessary to be sold",
                n),
        "%(name)s omitted to pay for %(count)s animal(s): as many as necessary to be sold":
            ngettext(
                "%(name)s omitted to pay for %(count)s animal: to be sold if necessary",
                "%(name)s omitted to pay for %(count)s animals: as many as necessary to be sold",
                n),
        "%(count)s animal(s) and ₹%(balance)s returned to %(name)s with account %(account)s":
            ngettext(
                "%(count)s animal and ₹%(balance)s returned to %(name)s with account %(account)s",
                "%(count)s animals and ₹%(balance)s returned to %(name)s with account "
                "%(account)s", n),
    }
    # fmt: on


def _template(msgid, args):
    """The template in the active language: the reader's plural where the code counts with
    "(s)", else the catalogue's translation."""
    count = args.get("count")
    if "(s)" in msgid and isinstance(count, int | str) and str(count).isdigit():
        plural = plural_forms(int(count)).get(msgid)
        if plural is not None:
            return plural
    return gettext(msgid)


def _with_money(template, args):
    """Each argument written after "₹" in `template`, with Indian grouping."""
    for key in MONEY.findall(template):
        try:
            args[key] = lakh(args[key])
        except (KeyError, TypeError, ValueError):
            continue
    return args


class Message:
    """A template (the gettext msgid) and its arguments, translated when made into text."""

    def __init__(self, msgid, /, **args):
        self.msgid = str(msgid)
        self.args = {key: _plain(value) for key, value in args.items()}

    def __mod__(self, args):
        return Message(self.msgid, **{**self.args, **args})

    def __str__(self):
        template = _template(self.msgid, self.args)
        args = _with_money(template, _in_language(self.args))
        try:
            return template % args if args else template
        except (KeyError, TypeError, ValueError):  # a translation that lost a placeholder
            return self.msgid % args if args else self.msgid

    def __repr__(self):
        return f"Message({self.msgid!r}, **{self.args!r})"

    def __eq__(self, other):
        return isinstance(other, Message) and (self.msgid, self.args) == (other.msgid, other.args)

    def __hash__(self):
        return hash((self.msgid, repr(sorted(self.args.items()))))

    def english(self):
        with translation.override("en"):
            return str(self)

    def as_data(self):
        return {"msgid": self.msgid, "args": self.args}

    @classmethod
    def from_data(cls, data):
        if not isinstance(data, dict) or not isinstance(data.get("msgid"), str):
            return None
        message = cls(data["msgid"])
        message.args = dict(data.get("args") or {})
        return message


def label(choice_label):
    """A choice's label (a lazy translation) as a message argument, translated when shown."""
    with translation.override("en"):
        return Message(str(choice_label))


def shown(data, fallback):
    """The message stored as `data` in the active language; `fallback` (the English text kept
    beside it) for a row written before messages were stored, or without one."""
    message = Message.from_data(data)
    return str(message) if message is not None else fallback


# Who a summary names in its hashed link; the timeline shows the name from the event's personal
# fields while they exist (docs/decisions/0010).
THE_CLAIMANT = Message(gettext_noop("the claimant"))
THE_BUYER = Message(gettext_noop("the buyer"))
