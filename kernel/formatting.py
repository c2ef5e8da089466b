"""Indian formats used by every screen and document: ₹ with lakh grouping, DD-MM-YYYY, IST."""

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from babel.numbers import format_currency, format_decimal
from django.utils import timezone
from num2words import num2words

PAISA = Decimal("0.01")


def to_rupees(value):
    """A Decimal rounded to paise. Floats are refused: money never passes through binary floats."""
    if value is None:
        return None
    if isinstance(value, float):
        raise TypeError("money must not be a float")
    try:
        return Decimal(value).quantize(PAISA, rounding=ROUND_HALF_UP)
    except (InvalidOperation, ValueError) as exc:
        raise ValueError(f"not an amount of money: {value!r}") from exc


def inr(value):
    """₹12,34,567.50 (Indian grouping, always two decimals)."""
    amount = to_rupees(value)
    if amount is None:
        return ""
    return format_currency(amount, "INR", locale="en_IN")


def lakh(value):
    """12,34,567.50 without the currency sign, for tables with a ₹ column heading."""
    amount = to_rupees(value)
    if amount is None:
        return ""
    return format_decimal(amount, format="#,##,##0.00", locale="en_IN")


def indian_number(value):
    """Whole numbers with lakh grouping: 1,23,456."""
    if value is None:
        return ""
    return format_decimal(value, format="#,##,##0", locale="en_IN")


def ist(value):
    """An aware datetime in Asia/Kolkata."""
    if value is None:
        return None
    if timezone.is_naive(value):
        raise ValueError("naive datetimes are not allowed; store UTC, show IST")
    return timezone.localtime(value)


def indate(value):
    """DD-MM-YYYY. A datetime is first converted to IST, so the date is the Indian calendar date."""
    if value in (None, ""):
        return ""
    if isinstance(value, datetime):
        value = ist(value).date()
    if isinstance(value, date):
        return value.strftime("%d-%m-%Y")
    return str(value)


def indatetime(value):
    """DD-MM-YYYY HH:MM in IST."""
    if value in (None, ""):
        return ""
    return ist(value).strftime("%d-%m-%Y %H:%M")


# Hindi number names 0-99: irregular, so they are listed, not composed.
_HI_0_99 = (
    "शून्य एक दो तीन चार पाँच छह सात आठ नौ "
    "दस ग्यारह बारह तेरह चौदह पंद्रह सोलह सत्रह अठारह उन्नीस "
    "बीस इक्कीस बाईस तेईस चौबीस पच्चीस छब्बीस सत्ताईस अट्ठाईस उनतीस "
    "तीस इकतीस बत्तीस तैंतीस चौंतीस पैंतीस छत्तीस सैंतीस अड़तीस उनतालीस "
    "चालीस इकतालीस बयालीस तैंतालीस चवालीस पैंतालीस छियालीस सैंतालीस अड़तालीस उनचास "
    "पचास इक्यावन बावन तिरपन चौवन पचपन छप्पन सत्तावन अट्ठावन उनसठ "
    "साठ इकसठ बासठ तिरसठ चौंसठ पैंसठ छियासठ सड़सठ अड़सठ उनहत्तर "
    "सत्तर इकहत्तर बहत्तर तिहत्तर चौहत्तर पचहत्तर छिहत्तर सतहत्तर अठहत्तर उन्यासी "
    "अस्सी इक्यासी बयासी तिरासी चौरासी पचासी छियासी सत्तासी अट्ठासी नवासी "
    "नब्बे इक्यानबे बानबे तिरानबे चौरानबे पंचानबे छियानबे सत्तानबे अट्ठानबे निन्यानबे"
).split()
assert len(_HI_0_99) == 100


def _hindi_number(n):
    """A whole number in Hindi words, grouped the Indian way (करोड़, लाख, हज़ार, सौ)."""
    if n < 100:
        return _HI_0_99[n]
    parts = []
    crore, n = divmod(n, 10_000_000)
    if crore:
        parts.append(f"{_hindi_number(crore)} करोड़")
    for size, name in ((100_000, "लाख"), (1000, "हज़ार"), (100, "सौ")):
        count, n = divmod(n, size)
        if count:
            parts.append(f"{_HI_0_99[count]} {name}")
    if n:
        parts.append(_HI_0_99[n])
    return " ".join(parts)


def _english_number(n):
    # en_IN counts in lakhs; crores are composed here, as num2words stops below 10^10. The
    # commas it puts between groups are dropped.
    crore, rest = divmod(n, 10_000_000)
    if crore:
        words = f"{_english_number(crore)} crore"
        return f"{words} {_english_number(rest)}" if rest else words
    return num2words(n, lang="en_IN").replace(",", "")


def amount_in_words(amount, lang="en"):
    """An amount as written on a receipt: "Rupees twelve lakh ... and fifty paise only", or in
    Hindi "रुपये बारह लाख ... और पचास पैसे मात्र". `lang` is "en" (or "en_IN") or "hi".

    num2words has no Hindi, so the Hindi words are built here from the names of 0-99.
    """
    amount = to_rupees(amount)
    if amount is None:
        return ""
    if amount < 0:
        raise ValueError("an amount in words cannot be negative")
    rupees = int(amount)
    paise = int((amount - rupees) * 100)
    lang = (lang or "en").lower().replace("-", "_")
    if lang.startswith("hi"):
        paise_words = f"{_hindi_number(paise)} {'पैसा' if paise == 1 else 'पैसे'}"
        if paise and not rupees:
            return f"{paise_words} मात्र"
        text = f"रुपये {_hindi_number(rupees)}"
        if paise:
            text += f" और {paise_words}"
        return f"{text} मात्र"
    if lang.startswith("en"):
        paise_words = f"{_english_number(paise)} {'paisa' if paise == 1 else 'paise'}"
        if paise and not rupees:
            return f"{paise_words[0].upper()}{paise_words[1:]} only"
        text = f"Rupees {_english_number(rupees)}"
        if paise:
            text += f" and {paise_words}"
        return f"{text} only"
    raise ValueError(f"no words for amounts in {lang!r}")
