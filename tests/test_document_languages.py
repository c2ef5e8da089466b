"""A document's second half is in its district's language, the one the district's rule pack
names (docs/decisions/0069): Hindi for the central Act, Marathi for Maharashtra, Tamil for Tamil
Nadu; English alone, saying so, for a pack whose language is not shipped yet (Kerala's
Malayalam). Every bilingual document draws every glyph from the vendored Noto fonts: a missing
glyph (a box, or a system font WeasyPrint fell back to) fails here, for each shipped language."""

import os
import re
from decimal import Decimal
from pathlib import Path

import pytest

from accounts.models import SlipPaper
from auctions import documents as auction_documents
from impounding import documents
from kernel.formatting import amount_in_words
from kernel.languages import documents_for, second_language
from office import return_documents
from tests import readpdf
from tests.auctions.test_documents import (  # noqa: F401
    s16_open,
    s16_settled,
    sale,
    standing_order,
    unclaimed,
)
from tests.impounding.test_documents import entry, released  # noqa: F401
from tests.rulepacks.factories import take

PACKS = {"central": "hi", "mh": "mr", "tn": "ta"}
FONTS = {
    "hi": "Noto-Sans-Devanagari",
    "mr": "Noto-Sans-Devanagari",
    "ta": "Noto-Sans-Tamil",
}


def _keep(name, pdf):
    folder = os.environ.get("PA_DOC_ARTIFACTS")
    if folder and name:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / name).write_bytes(pdf)


def _drawn(pdf, language, name):
    _keep(name, pdf)
    assert readpdf.missing_glyphs(pdf) == {}
    fonts = readpdf.fonts(pdf)
    assert fonts.get(FONTS[language]) is True, fonts
    return fonts


@pytest.mark.parametrize("code", PACKS)
def test_the_pack_chooses_the_second_language(district, code):
    take(district, code)
    with documents_for(district.pk):
        assert second_language() == PACKS[code]


def test_a_language_not_shipped_gives_english_alone(district):
    take(district, "kl")
    with documents_for(district.pk):
        assert second_language() is None
    with documents_for(None):
        assert second_language() == "hi"


@pytest.mark.parametrize("code", PACKS)
def test_receipt_and_statement_have_every_glyph(district, released, code):  # noqa: F811
    paid, held = released
    take(district, code)
    language = PACKS[code]
    for receipt in (paid.receipt, held.receipt):
        _drawn(documents.receipt_pdf(receipt), language, f"receipt-{language}-{receipt.pk}.pdf")


@pytest.mark.parametrize("code", PACKS)
def test_register_copy_and_dues_statement_have_every_glyph(district, entry, pound_keeper, code):  # noqa: F811
    take(district, code)
    language = PACKS[code]
    _drawn(documents.register_copy(entry, pound_keeper), language, f"register-{language}.pdf")
    _drawn(documents.dues_statement(entry), language, f"dues-{language}.pdf")


@pytest.mark.parametrize("code", PACKS)
def test_auction_documents_have_every_glyph(district, unclaimed, sale, code):  # noqa: F811
    _entry, report, notice = unclaimed
    take(district, code)
    language = PACKS[code]
    _drawn(auction_documents.report_pdf(report), language, f"report-{language}.pdf")
    _drawn(auction_documents.notice_pdf(notice), language, f"notice-{language}.pdf")
    _drawn(auction_documents.sale_certificate_pdf(sale), language, f"sale-{language}.pdf")


@pytest.mark.parametrize("code", PACKS)
def test_roll_slips_wall_schedule_and_returns_have_every_glyph(
    district,
    pound,
    released,  # noqa: F811
    pound_keeper,
    dm_clerk,
    code,
):
    paid, _held = released
    take(district, code)
    language = PACKS[code]
    roll = documents.receipt_pdf(paid.receipt, paper=SlipPaper.ROLL_80)
    _drawn(roll, language, f"receipt-roll-{language}.pdf")
    _drawn(documents.tariff_schedule(pound), language, f"tariffs-{language}.pdf")
    monthly = return_documents.monthly_return_pdf(pound, 2026, 1, by=dm_clerk)
    _drawn(monthly, language, f"monthly-{language}.pdf")
    _drawn(return_documents.cash_book_pdf(pound, paid.receipt.issued_at.date()), language, "")


@pytest.mark.parametrize("code", PACKS)
def test_s16_account_has_every_glyph(district, s16_settled, code):  # noqa: F811
    take(district, code)
    pdf = auction_documents.s16_account_pdf(s16_settled)
    _drawn(pdf, PACKS[code], f"s16-{PACKS[code]}.pdf")


def test_kerala_receipt_is_english_alone_and_says_why(district, released):  # noqa: F811
    paid, _held = released
    take(district, "kl")
    pdf = documents.receipt_pdf(paid.receipt)
    _keep("receipt-kl.pdf", pdf)
    text = " ".join(readpdf.text(pdf).split())
    assert "district's language (ml) is not yet shipped" in text
    assert readpdf.missing_glyphs(pdf) == {}


@pytest.mark.parametrize(
    ("language", "amount", "words"),
    [
        ("mr", "1234567.50", "रुपये बारा लाख चौतीस हजार पाचशे सदुसष्ट आणि पन्नास पैसे फक्त"),
        ("mr", "100", "रुपये शंभर फक्त"),
        ("mr", "105", "रुपये एकशे पाच फक्त"),
        ("mr", "100000000", "रुपये दहा कोटी फक्त"),
        (
            "ta",
            "1234567.50",
            "ரூபாய் பன்னிரண்டு லட்சம் முப்பத்து நான்கு ஆயிரம் ஐநூற்று அறுபத்து ஏழு மற்றும் ஐம்பது பைசா மட்டும்",
        ),
        ("ta", "21500", "ரூபாய் இருபத்து ஒன்று ஆயிரம் ஐநூறு மட்டும்"),
        ("ta", "100000000", "ரூபாய் பத்து கோடி மட்டும்"),
    ],
)
def test_amount_in_words_in_lakhs_and_crores(language, amount, words):
    assert amount_in_words(Decimal(amount), language) == words


def test_the_check_sees_a_missing_glyph():
    """A script none of the vendored fonts has (Malayalam, awaited for Kerala) is caught."""
    from kernel.documents import render_pdf

    with documents_for(None):
        pdf = render_pdf("pdf/base.html", {}, language="en")
    assert readpdf.missing_glyphs(pdf) == {}
    from weasyprint import HTML

    from kernel import documents as kernel_documents

    font_config, sheets = kernel_documents._stylesheets()
    drawn = HTML(string="<p>മലയാളം</p>", url_fetcher=kernel_documents._url_fetcher())
    pdf = drawn.write_pdf(stylesheets=sheets, font_config=font_config)
    assert sum(readpdf.missing_glyphs(pdf).values()) > 0


@pytest.mark.parametrize("code", ["mh", "tn", "central"])
def test_the_handover_certificate_has_every_glyph(
    district, pound, pound_keeper, police_officer, tariffs, dm_clerk, magistrate, code
):
    """A cow handed to a gaushala (under the Uttar Pradesh draft, which forbids her sale), her
    certificate then drawn in the language of the pack the district takes now."""
    from auctions.services import gaushala as gaushalas
    from tests.auctions.factories import conditions, ready_for_sale
    from tests.auctions.test_gaushala import BODY, hand_over

    take(district, "up")
    conditions(district)
    cow, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    body = gaushalas.register_gaushala(district=district, by=dm_clerk, **BODY)
    order = hand_over(pound, cow, body, dm_clerk, magistrate)
    take(district, code)
    language = PACKS[code]
    pdf = auction_documents.handover_certificate_pdf(order.handover)
    _drawn(pdf, language, f"handover-{language}.pdf")


def _separators_left(pdf):
    """The lines keeping the " / " or " · " a bilingual document puts between English and the
    second language, where there is no second language."""
    lines = [" ".join(line.split()) for line in readpdf.text(pdf).splitlines()]
    lines = [re.sub(r"\d+ / \d+", "", line) for line in lines]  # the page's number
    return [line for line in lines if re.search(r" [/·]($|\s*[^\s\w])|^[/·] ", line)]


def test_kerala_documents_keep_no_separator_for_the_language_awaited(
    district,
    pound_keeper,
    entry,  # noqa: F811
    released,  # noqa: F811
    unclaimed,  # noqa: F811
    sale,  # noqa: F811
):
    paid, _held = released
    _entry, report, notice = unclaimed
    take(district, "kl")
    pdfs = {
        "receipt": documents.receipt_pdf(paid.receipt),
        "register copy": documents.register_copy(entry, pound_keeper),
        "dues statement": documents.dues_statement(entry),
        "report": auction_documents.report_pdf(report),
        "notice": auction_documents.notice_pdf(notice),
        "sale certificate": auction_documents.sale_certificate_pdf(sale),
        "schedule": documents.tariff_schedule(entry.pound),
    }

    assert {name: _separators_left(pdf) for name, pdf in pdfs.items()} == dict.fromkeys(pdfs, [])
    assert "Receipt" in readpdf.text(pdfs["receipt"])
