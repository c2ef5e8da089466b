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


# Marathi number names 0-99: as irregular as the Hindi ones.
_MR_0_99 = (
    "शून्य एक दोन तीन चार पाच सहा सात आठ नऊ "
    "दहा अकरा बारा तेरा चौदा पंधरा सोळा सतरा अठरा एकोणीस "
    "वीस एकवीस बावीस तेवीस चोवीस पंचवीस सव्वीस सत्तावीस अठ्ठावीस एकोणतीस "
    "तीस एकतीस बत्तीस तेहेतीस चौतीस पस्तीस छत्तीस सदतीस अडतीस एकोणचाळीस "
    "चाळीस एक्केचाळीस बेचाळीस त्रेचाळीस चव्वेचाळीस पंचेचाळीस सेहेचाळीस सत्तेचाळीस अठ्ठेचाळीस एकोणपन्नास "
    "पन्नास एक्कावन्न बावन्न त्रेपन्न चोपन्न पंचावन्न छप्पन्न सत्तावन्न अठ्ठावन्न एकोणसाठ "
    "साठ एकसष्ट बासष्ट त्रेसष्ट चौसष्ट पासष्ट सहासष्ट सदुसष्ट अडुसष्ट एकोणसत्तर "
    "सत्तर एकाहत्तर बाहत्तर त्र्याहत्तर चौऱ्याहत्तर पंच्याहत्तर शहात्तर सत्याहत्तर अठ्ठ्याहत्तर एकोणऐंशी "
    "ऐंशी एक्याऐंशी ब्याऐंशी त्र्याऐंशी चौऱ्याऐंशी पंच्याऐंशी शहाऐंशी सत्त्याऐंशी अठ्ठ्याऐंशी एकोणनव्वद "
    "नव्वद एक्याण्णव ब्याण्णव त्र्याण्णव चौऱ्याण्णव पंचाण्णव शहाण्णव सत्त्याण्णव अठ्ठ्याण्णव नव्व्याण्णव"
).split()
assert len(_MR_0_99) == 100


def _marathi_number(n):
    """A whole number in Marathi words, grouped the Indian way (कोटी, लाख, हजार, -शे)."""
    if n < 100:
        return _MR_0_99[n]
    parts = []
    crore, n = divmod(n, 10_000_000)
    if crore:
        parts.append(f"{_marathi_number(crore)} कोटी")
    for size, name in ((100_000, "लाख"), (1000, "हजार")):
        count, n = divmod(n, size)
        if count:
            parts.append(f"{_MR_0_99[count]} {name}")
    hundreds, n = divmod(n, 100)
    if hundreds:  # दोनशे, तीनशे; a hundred alone is शंभर, before more एकशे
        parts.append("शंभर" if hundreds == 1 and not n else f"{_MR_0_99[hundreds]}शे")
    if n:
        parts.append(_MR_0_99[n])
    return " ".join(parts)


# Tamil: the units and the teens are names; the tens take a joining form before a unit
# (இருபத்து ஒன்று), the hundreds before what follows (நூற்று ஐந்து).
_TA_0_19 = (
    "பூஜ்ஜியம் ஒன்று இரண்டு மூன்று நான்கு ஐந்து ஆறு ஏழு எட்டு ஒன்பது "
    "பத்து பதினொன்று பன்னிரண்டு பதின்மூன்று பதினான்கு பதினைந்து பதினாறு பதினேழு பதினெட்டு பத்தொன்பது"
).split()
_TA_TENS = "_ _ இருபது முப்பது நாற்பது ஐம்பது அறுபது எழுபது எண்பது தொண்ணூறு".split()
_TA_TENS_JOIN = "_ _ இருபத்து முப்பத்து நாற்பத்து ஐம்பத்து அறுபத்து எழுபத்து எண்பத்து தொண்ணூற்று".split()
_TA_HUNDREDS = "_ நூறு இருநூறு முந்நூறு நானூறு ஐநூறு அறுநூறு எழுநூறு எண்ணூறு தொள்ளாயிரம்".split()
_TA_HUNDREDS_JOIN = (
    "_ நூற்று இருநூற்று முந்நூற்று நானூற்று ஐநூற்று அறுநூற்று எழுநூற்று எண்ணூற்று தொள்ளாயிரத்து"
).split()


def _tamil_below_100(n):
    if n < 20:
        return _TA_0_19[n]
    tens, unit = divmod(n, 10)
    return f"{_TA_TENS_JOIN[tens]} {_TA_0_19[unit]}" if unit else _TA_TENS[tens]


def _tamil_number(n):
    """A whole number in Tamil words, grouped the Indian way (கோடி, லட்சம், ஆயிரம், நூறு)."""
    if n < 100:
        return _tamil_below_100(n)
    parts = []
    crore, n = divmod(n, 10_000_000)
    if crore:
        parts.append(f"{_tamil_number(crore)} கோடி")
    for size, name in ((100_000, "லட்சம்"), (1000, "ஆயிரம்")):
        count, n = divmod(n, size)
        if count:
            parts.append(f"{'ஒரு' if count == 1 else _tamil_below_100(count)} {name}")
    hundreds, n = divmod(n, 100)
    if hundreds:
        parts.append((_TA_HUNDREDS_JOIN if n else _TA_HUNDREDS)[hundreds])
    if n:
        parts.append(_tamil_below_100(n))
    return " ".join(parts)


# The words around the figure, by language: rupees, and, paisa (one), paise (more), only.
_AMOUNT_WORDS = {
    "hi": (_hindi_number, "रुपये", "और", "पैसा", "पैसे", "मात्र"),
    "mr": (_marathi_number, "रुपये", "आणि", "पैसा", "पैसे", "फक्त"),
    "ta": (_tamil_number, "ரூபாய்", "மற்றும்", "பைசா", "பைசா", "மட்டும்"),
}


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
    Hindi "रुपये बारह लाख ... और पचास पैसे मात्र". `lang` is "en" (or "en_IN"), "hi", "mr" or "ta".

    num2words (0.5.14) has none of Hindi, Marathi or Tamil, so their words are built here, in lakhs
    and crores; the Marathi and Tamil await a native-speaking official's review (ADR 0069).
    """
    amount = to_rupees(amount)
    if amount is None:
        return ""
    if amount < 0:
        raise ValueError("an amount in words cannot be negative")
    rupees = int(amount)
    paise = int((amount - rupees) * 100)
    lang = (lang or "en").lower().replace("-", "_")
    if lang[:2] in _AMOUNT_WORDS:
        number, rupee, and_, paisa, paise_, only = _AMOUNT_WORDS[lang[:2]]
        paise_words = f"{number(paise)} {paisa if paise == 1 else paise_}"
        if paise and not rupees:
            return f"{paise_words} {only}"
        text = f"{rupee} {number(rupees)}"
        if paise:
            text += f" {and_} {paise_words}"
        return f"{text} {only}"
    if lang.startswith("en"):
        paise_words = f"{_english_number(paise)} {'paisa' if paise == 1 else 'paise'}"
        if paise and not rupees:
            return f"{paise_words[0].upper()}{paise_words[1:]} only"
        text = f"Rupees {_english_number(rupees)}"
        if paise:
            text += f" and {paise_words}"
        return f"{text} only"
    raise ValueError(f"no words for amounts in {lang!r}")


def mask_phone(value):
    """A phone with all but its last four digits hidden: ******4321 (ADR 0078). Blank stays
    blank; a number too short to hide anything is hidden whole."""
    digits = "".join(ch for ch in str(value or "") if ch.isdigit())
    if not digits:
        return ""
    if len(digits) <= 4:
        return "*" * len(digits)
    return "*" * (len(digits) - 4) + digits[-4:]
