"""The UPI QR code for the exact dues (ADR 0076): on the dues statement, A4 and 80 mm roll, the
code turned to PNG decodes to the link kernel.upi builds for the statement's own total; on the
entry's page; and nowhere, with a word for the administrator, while no VPA is set."""

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pypdfium2
import pytest
import zxingcpp
from django.urls import reverse
from django.utils import timezone

from impounding import documents
from impounding.dues import dues
from impounding.upi import dues_qr
from tests.impounding.factories import cow, goat, make_entry
from tests.impounding.test_documents import _keep, _text


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(pound=pound, by=pound_keeper, animals=[cow(), goat()])


@pytest.fixture
def vpa(pound):
    district = pound.district
    district.upi_vpa, district.upi_payee_name = "dm.lucknow@sbi", "District Magistrate Lucknow"
    district.save(update_fields=["upi_vpa", "upi_payee_name"])


def qr_texts(pdf):
    """The text of every QR code on the PDF's pages, read from a 300 dpi rendering."""
    texts = []
    document = pypdfium2.PdfDocument(pdf)
    for page in document:
        image = page.render(scale=300 / 72).to_pil()
        texts += [r.text for r in zxingcpp.read_barcodes(image) if r.format == zxingcpp.QRCode]
    return texts


@pytest.mark.parametrize("paper", ["a4", "roll80"])
def test_the_slip_s_qr_code_decodes_to_the_link_for_the_exact_dues(entry, vpa, paper):
    as_of = timezone.now() + timedelta(days=2)
    animals = list(entry.animals.in_custody())
    expected = dues_qr(entry, dues(animals, as_of=as_of))

    pdf = documents.dues_statement(entry, as_of=as_of, paper=paper)
    _keep(f"dues_statement_upi_{paper}.pdf", pdf)

    assert qr_texts(pdf) == [expected.link]
    values = {k: v for k, [v] in parse_qs(urlsplit(expected.link).query).items()}
    assert values["am"] == f"{dues(animals, as_of=as_of).total:.2f}"
    assert values["pa"] == "dm.lucknow@sbi" and values["cu"] == "INR"
    assert values["tr"] == expected.reference
    assert entry.register_number in values["tn"] and entry.pound.name in values["tn"]


def test_the_reference_is_printed_beside_the_code(entry, vpa, tmp_path):
    pdf = documents.dues_statement(entry)
    qr = dues_qr(entry, dues(list(entry.animals.in_custody())))
    assert qr.reference in _text(pdf, tmp_path)


def test_the_url_is_the_entry_s_verify_link_once_its_copy_is_issued(entry, vpa, pound_keeper):
    statement = dues(list(entry.animals.in_custody()))
    assert "url" not in parse_qs(urlsplit(dues_qr(entry, statement).link).query)
    document = documents.register_copy_document(entry, pound_keeper)
    url = parse_qs(urlsplit(dues_qr(entry, statement).link).query)["url"][0]
    assert url.endswith(document.get_absolute_url()) and "/verify/" in url


def test_the_pound_s_own_vpa_comes_before_the_district_s(entry, vpa):
    pound = entry.pound
    pound.upi_vpa, pound.upi_payee_name = "kanjihouse.one@okaxis", "Kanji House One"
    pound.save(update_fields=["upi_vpa", "upi_payee_name"])
    entry.refresh_from_db()
    link = dues_qr(entry, dues(list(entry.animals.in_custody()))).link
    assert "pa=kanjihouse.one%40okaxis" in link


def test_no_vpa_means_no_code_on_the_slip(entry):
    assert qr_texts(documents.dues_statement(entry, paper="roll80")) == []
    assert qr_texts(documents.dues_statement(entry, paper="a4")) == []


def test_the_entry_page_shows_the_code_or_tells_the_administrator(client, entry, pound_keeper):
    client.force_login(pound_keeper)
    url = reverse("impounding:entry", args=[entry.pk])
    page = client.get(url).text
    assert "No UPI ID is set for this pound or its district" in page
    assert "data-upi-link" not in page

    district = entry.pound.district
    district.upi_vpa, district.upi_payee_name = "dm.lucknow@sbi", "DM Lucknow"
    district.save(update_fields=["upi_vpa", "upi_payee_name"])
    page = client.get(url).text
    assert 'data-upi-link="upi://pay?pa=dm.lucknow%40sbi&amp;pn=DM%20Lucknow&amp;am=' in page
    assert "No UPI ID is set" not in page
