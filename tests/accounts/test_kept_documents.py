"""Documents are drawn once and kept: the first download stores the PDF and its SHA-256 on the
IssuedDocument, later downloads read the stored file, and /verify/ shows the fingerprint."""

import hashlib

from django.urls import reverse

from accounts.models import IssuedDocument
from impounding import documents
from tests.impounding.factories import make_entry, pay


def test_a_receipt_is_drawn_once_stored_hashed_and_served_from_storage(
    client, pound, pound_keeper, auditor, tariffs, monkeypatch
):
    receipt = pay(make_entry(pound=pound, by=pound_keeper), pound_keeper).receipt
    url = reverse("impounding:receipt_pdf", args=[receipt.pk])
    client.force_login(pound_keeper)

    first = client.get(url).content

    document = IssuedDocument.objects.get(pk=receipt.document_id)
    assert first.startswith(b"%PDF-")
    assert document.file.name.startswith("documents/") and document.file.name.endswith(".pdf")
    assert document.sha256 == hashlib.sha256(first).hexdigest()
    with document.file.open("rb") as handle:
        assert handle.read() == first

    def must_not_draw(*args, **kwargs):
        raise AssertionError("a kept document was drawn again")

    monkeypatch.setattr(documents, "receipt_pdf", must_not_draw)
    client.force_login(auditor)
    assert client.get(url).content == first


def test_the_verification_page_shows_the_fingerprint_of_the_file_issued(
    client, pound, pound_keeper, tariffs
):
    receipt = pay(make_entry(pound=pound, by=pound_keeper), pound_keeper).receipt
    client.force_login(pound_keeper)
    pdf = client.get(reverse("impounding:receipt_pdf", args=[receipt.pk])).content
    client.logout()

    page = client.get(receipt.document.get_absolute_url()).content.decode()

    assert hashlib.sha256(pdf).hexdigest() in page


def test_a_second_store_of_the_same_document_keeps_the_first(pound, pound_keeper, tariffs):
    receipt = pay(make_entry(pound=pound, by=pound_keeper), pound_keeper).receipt
    stale = IssuedDocument.objects.get(pk=receipt.document_id)
    kept = IssuedDocument.objects.kept_pdf(
        IssuedDocument.objects.get(pk=receipt.document_id), lambda: b"%PDF-first"
    )

    # A request that read the row before the first stored it draws, then finds it taken.
    again = IssuedDocument.objects.kept_pdf(stale, lambda: b"%PDF-second")

    assert kept == again == b"%PDF-first"
    assert IssuedDocument.objects.get(pk=receipt.document_id).sha256 == (
        hashlib.sha256(b"%PDF-first").hexdigest()
    )


def test_a_receipts_roll_slip_is_kept_beside_the_a4_and_not_drawn_again(
    client, pound, pound_keeper, tariffs, monkeypatch
):
    receipt = pay(make_entry(pound=pound, by=pound_keeper), pound_keeper).receipt
    url = reverse("impounding:receipt_pdf", args=[receipt.pk])
    client.force_login(pound_keeper)
    a4 = client.get(url).content

    slip = client.get(url, {"paper": "roll80"}).content

    document = IssuedDocument.objects.get(pk=receipt.document_id)
    assert slip != a4 and document.slip_file.name.endswith(".pdf")
    with document.slip_file.open("rb") as handle:
        assert handle.read() == slip
    # The fingerprint /verify/ shows stays the A4 receipt's.
    assert document.sha256 == hashlib.sha256(a4).hexdigest()

    def must_not_draw(*args, **kwargs):
        raise AssertionError("a kept slip was drawn again")

    monkeypatch.setattr(documents, "receipt_pdf", must_not_draw)
    assert client.get(url, {"paper": "roll80"}).content == slip
    assert client.get(url).content == a4


def test_a_document_kept_on_one_basis_is_drawn_afresh_on_another(pound, pound_keeper, tariffs):
    receipt = pay(make_entry(pound=pound, by=pound_keeper), pound_keeper).receipt
    document = IssuedDocument.objects.get(pk=receipt.document_id)
    kept = IssuedDocument.objects.kept_pdf(document, lambda: b"%PDF-march", basis="march")

    same = IssuedDocument.objects.kept_pdf(document, lambda: b"%PDF-other", basis="march")
    changed = IssuedDocument.objects.kept_pdf(document, lambda: b"%PDF-amended", basis="amended")

    assert kept == same == b"%PDF-march"
    assert changed == b"%PDF-amended"
    document.refresh_from_db()
    assert document.sha256 == hashlib.sha256(b"%PDF-march").hexdigest()  # the first stays


def test_a_kept_file_lost_from_the_store_is_drawn_afresh_and_logged(
    client, pound, pound_keeper, tariffs, caplog
):
    receipt = pay(make_entry(pound=pound, by=pound_keeper), pound_keeper).receipt
    url = reverse("impounding:receipt_pdf", args=[receipt.pk])
    client.force_login(pound_keeper)
    client.get(url)
    document = IssuedDocument.objects.get(pk=receipt.document_id)
    issued = (document.file.name, document.sha256)
    document.file.storage.delete(document.file.name)  # a store restored without it, say

    response = client.get(url)

    assert response.status_code == 200 and response.content.startswith(b"%PDF-")
    assert "kept file missing from the store" in caplog.text
    document.refresh_from_db()
    assert (document.file.name, document.sha256) == issued  # the record still names the issued
