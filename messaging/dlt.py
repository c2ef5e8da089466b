"""The telecom rules a message must keep (ADR 0077), as pure functions.

- **Matching.** An operator checks every SMS against its registered template: the fixed text
  must be the same, character for character, and each `{#var#}` may stand for up to 30
  characters. `render` fills the variables (cut to 30) and `matches` checks a text as the
  operator would; the fake gateways in the tests refuse what does not match.
- **Segments.** Text in the GSM 7-bit alphabet takes 160 characters in one SMS and 153 a part
  when split; anything else (Devanagari, Tamil) goes as UCS-2: 70, then 67 a part.
- **Daytime.** Promotional messages may not be sent at night (TRAI); ours are transactional
  or service messages, which may, but a notice that is not urgent waits for MESSAGING_DAYTIME
  all the same. Urgent ones (a one-time code) go at once.
"""

import re
from datetime import datetime, time, timedelta

from django.conf import settings
from django.utils import timezone

VAR = "{#var#}"
VAR_MAX = 30
GSM7 = set(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "ÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM7_EXT = set("^{}\\[~]|€")  # each takes two septets


def placeholders(text):
    return text.count(VAR)


def pattern(text):
    """The operator's pattern of a registered text: the fixed parts exactly, each variable any
    0 to 30 characters."""
    parts = [re.escape(part) for part in text.split(VAR)]
    return re.compile("".join(_join(parts)), re.S)


def _join(parts):
    for i, part in enumerate(parts):
        if i:
            yield f".{{0,{VAR_MAX}}}"
        yield part


def matches(registered, text):
    return pattern(registered).fullmatch(text) is not None


def clean(value):
    """A variable's value as sent: one line, at most 30 characters (a longer one is cut)."""
    value = " ".join(str(value).split())
    # "..." rather than "…", which is not in the GSM alphabet and would make the SMS Unicode.
    return value if len(value) <= VAR_MAX else value[: VAR_MAX - 3] + "..."


def render(registered, values):
    """The text with `values` (in order) in its placeholders."""
    parts = registered.split(VAR)
    if len(values) != len(parts) - 1:
        raise ValueError(f"{len(parts) - 1} variables expected, {len(values)} given")
    out = [parts[0]]
    for value, part in zip(values, parts[1:], strict=True):
        out += [clean(value), part]
    return "".join(out)


def is_gsm7(text):
    return all(c in GSM7 or c in GSM7_EXT for c in text)


def segments(text):
    """How many SMS the text costs."""
    if is_gsm7(text):
        length = sum(2 if c in GSM7_EXT else 1 for c in text)
        single, part = 160, 153
    else:
        length = len(text.encode("utf-16-be")) // 2
        single, part = 70, 67
    if length <= single:
        return 1
    return -(-length // part)


def ucs2_hex(text):
    """The text as NIC's gateway takes Unicode (msgType=UC): UTF-16 big-endian, in hex."""
    return text.encode("utf-16-be").hex().upper()


def daytime():
    start, end = settings.MESSAGING_DAYTIME.split("-")
    return time.fromisoformat(start), time.fromisoformat(end)


def next_daytime(now=None):
    """`now` if it is daytime in India, else the next daytime's start."""
    now = timezone.localtime(now or timezone.now())
    start, end = daytime()
    if start <= now.time() < end:
        return now
    day = now.date() if now.time() < start else now.date() + timedelta(days=1)
    return timezone.make_aware(datetime.combine(day, start), now.tzinfo)
