"""/verify/ shows what a forger would change: the amount, the date, the number, the office, the
animal count and the SHA-256 of the PDF as issued; and still no personal data (issue 11)."""

import hashlib

from django.urls import reverse

from kernel.formatting import inr
from tests.impounding.factories import cow, make_entry, pay


def test_the_verify_page_shows_the_amount_and_the_animals_and_no_names(
    client, pound, pound_keeper, tariffs
):
    release = pay(make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()]), pound_keeper)
    document = release.receipt.document

    page = client.get(document.get_absolute_url()).text

    assert "Valid." in page and document.number in page
    assert inr(release.amount) in page
    assert '<dt class="col-sm-5">Animals</dt><dd class="col-sm-7">2</dd>' in page
    assert pound.name in page  # the issuing office
    for personal in ("Shyam Lal", "Samesi", "Ram Prasad", pound_keeper.username):
        assert personal not in page


def test_the_verify_page_gives_the_hash_of_the_pdf_as_issued(client, pound, pound_keeper, tariffs):
    release = pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:receipt_pdf", args=[release.receipt.pk])

    first, second = client.get(url).content, client.get(url).content
    client.logout()
    page = client.get(release.receipt.document.get_absolute_url()).text

    assert first == second  # every copy is the stored file
    assert hashlib.sha256(first).hexdigest() in page
