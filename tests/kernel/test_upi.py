"""kernel.upi: golden `upi://pay` links, their encoding, their amounts and their notes."""

from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

import pytest
import regex
from django.core.exceptions import ValidationError

from kernel.upi import UpiPayee, pay_link, truncate_graphemes, two_decimals, validate_vpa

PAYEE = UpiPayee(vpa="pound.lucknow@sbi", name="Kanji House Lucknow")


def test_the_golden_link():
    link = pay_link(
        payee=PAYEE,
        amount=Decimal("1250.5"),
        reference="LKO-2026-000123",
        note="Dues LKO/2026/123",
        url="https://pound.example.in/verify/abcDEF123_-xyz0000/",
    )
    assert link == (
        "upi://pay?pa=pound.lucknow%40sbi&pn=Kanji%20House%20Lucknow&am=1250.50"
        "&tr=LKO-2026-000123&tn=Dues%20LKO%2F2026%2F123&cu=INR"
        "&url=https%3A%2F%2Fpound.example.in%2Fverify%2FabcDEF123_-xyz0000%2F"
    )


def test_a_space_is_percent_20_never_plus():
    link = pay_link(payee=PAYEE, amount=Decimal("10"), reference="R1", note="a b+c")
    assert "+" not in link.replace("%2B", "")
    assert "tn=a%20b%2Bc" in link


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (Decimal("5"), "5.00"),
        (Decimal("5.5"), "5.50"),
        (Decimal("1234567.005"), "1234567.01"),
        (Decimal("0.01"), "0.01"),
        (Decimal("12.345"), "12.35"),
        (7, "7.00"),
    ],
)
def test_amounts_have_exactly_two_decimals(amount, shown):
    assert two_decimals(amount) == shown


def test_a_float_or_nothing_owed_is_refused():
    with pytest.raises(TypeError):
        two_decimals(10.5)
    with pytest.raises(ValueError):
        two_decimals(Decimal("0.00"))


def test_the_link_round_trips_through_urllib():
    note = "दंड और खुराकी LKO/2026/123 & more"
    url = "https://pound.example.in/verify/tok?x=1&y=2"
    link = pay_link(
        payee=UpiPayee(vpa="dm-lucknow@okaxis", name="जिला मजिस्ट्रेट लखनऊ"),
        amount=Decimal("99.9"),
        reference="LKO-7",
        note=note,
        url=url,
    )
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc) == ("upi", "pay")
    values = {k: v for k, [v] in parse_qs(parts.query, strict_parsing=True).items()}
    assert values == {
        "pa": "dm-lucknow@okaxis",
        "pn": "जिला मजिस्ट्रेट लखनऊ",
        "am": "99.90",
        "tr": "LKO-7",
        "tn": note,
        "cu": "INR",
        "url": url,
    }


def test_a_hindi_note_is_cut_between_syllables():
    # "क्षत्रिय" is three clusters: क्ष (3 code points), त्रि (4), य (1).
    note = "क्षत्रिय" * 10
    cut = truncate_graphemes(note, 6)
    assert cut == "क्ष"
    assert truncate_graphemes(note, 7) == "क्षत्रि"
    assert truncate_graphemes(note, 5) == "क्ष"
    clusters = regex.findall(r"\X", truncate_graphemes(note, 50))
    assert "".join(clusters) == note[: len("".join(clusters))]
    assert len("".join(clusters)) <= 50


def test_a_tamil_note_keeps_its_vowel_signs_and_pulli():
    note = "பாண்டியன் பட்டி " * 6
    for limit in range(1, 60):
        cut = truncate_graphemes(note, limit)
        assert len(cut) <= limit
        assert note.startswith(cut)
        # The next character is never a vowel sign or a pulli left without its consonant.
        rest = note[len(cut) :]
        assert not rest or not regex.match(r"\p{M}", rest)


def test_a_long_tamil_payee_name_in_the_link_ends_on_a_whole_letter():
    name = "மாவட்ட ஆட்சியர் அலுவலகம் கால்நடை பட்டி திருநெல்வேலி தென்காசி"
    link = pay_link(payee=UpiPayee(vpa="dc.tvl@sbi", name=name), amount=1, reference="T1", note="x")
    pn = parse_qs(urlsplit(link).query)["pn"][0]
    assert len(pn) <= 50 and name.startswith(pn)
    assert not regex.match(r"\p{M}", name[len(pn) :])


@pytest.mark.parametrize("vpa", ["pound@sbi", "dm.lucknow-1@okhdfcbank", "a_b@ybl"])
def test_a_vpa_is_name_at_handle(vpa):
    validate_vpa(vpa)


@pytest.mark.parametrize("vpa", ["", "pound", "@sbi", "pound@", "po und@sbi", "a@b@c", "x@1bank"])
def test_anything_else_is_not_a_vpa(vpa):
    with pytest.raises(ValidationError):
        validate_vpa(vpa)
