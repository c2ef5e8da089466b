"""A kept document is drawn again only on an explicit reissue (issue 10 item 2): the pound-keeper
or the office gives a reason, an event records it, the old file stays with its fingerprint
(still listed on /verify/), and the new one is served from then on."""

import hashlib

import pytest
from django.urls import reverse

from accounts.actions import Action
from accounts.models import EarlierFile, IssuedDocument
from kernel.events import verify_chain
from kernel.models import Event
from tests.impounding.factories import make_entry, pay

FIRST, SECOND = b"%PDF-first drawing", b"%PDF-second drawing"


def must_not_draw():
    raise AssertionError("a kept document was drawn again")


@pytest.fixture
def kept(pound, pound_keeper, tariffs):
    """A receipt whose PDF has been drawn and kept."""
    receipt = pay(make_entry(pound=pound, by=pound_keeper), pound_keeper).receipt
    document = IssuedDocument.objects.get(pk=receipt.document_id)
    IssuedDocument.objects.kept_pdf(document, lambda: FIRST)
    return IssuedDocument.objects.get(pk=document.pk)


def test_a_reissue_keeps_the_old_file_and_serves_the_new_one(client, kept, pound_keeper):
    client.force_login(pound_keeper)
    url = reverse("accounts:reissue", args=[kept.token])
    assert client.get(url).status_code == 200

    response = client.post(url, {"reason": "Printed with the wrong paper size"})

    assert response.status_code == 302 and response["Location"] == kept.get_absolute_url()
    earlier = EarlierFile.objects.get(document=kept)
    assert earlier.sha256 == hashlib.sha256(FIRST).hexdigest()
    assert (earlier.reason, earlier.set_aside_by) == (
        "Printed with the wrong paper size",
        pound_keeper,
    )
    with earlier.file.open("rb") as handle:  # the old file is kept, and still matches its hash
        assert hashlib.sha256(handle.read()).hexdigest() == earlier.sha256
    event = Event.objects.get(action=Action.DOCUMENT_REISSUED)
    assert (event.pound_id, event.by_id) == (kept.pound_id, pound_keeper.pk)
    assert event.data["earlier_sha256"] == earlier.sha256
    assert event.data["reason"] == "Printed with the wrong paper size"
    assert verify_chain() == []

    document = IssuedDocument.objects.get(pk=kept.pk)
    assert IssuedDocument.objects.kept_pdf(document, lambda: SECOND) == SECOND
    document = IssuedDocument.objects.get(pk=kept.pk)
    assert document.sha256 == hashlib.sha256(SECOND).hexdigest()
    assert document.file.name != earlier.file.name
    # From then on the new one is served, never drawn again.
    assert IssuedDocument.objects.kept_pdf(document, must_not_draw) == SECOND
    client.logout()
    page = client.get(kept.get_absolute_url()).content.decode()
    assert document.sha256 in page and earlier.sha256 in page


def test_without_a_reissue_the_kept_file_is_never_drawn_again(kept):
    assert IssuedDocument.objects.kept_pdf(kept, must_not_draw) == FIRST


def test_a_reissue_needs_a_reason(client, kept, pound_keeper):
    client.force_login(pound_keeper)
    response = client.post(reverse("accounts:reissue", args=[kept.token]), {"reason": " "})

    assert response.status_code == 200
    assert not EarlierFile.objects.exists()
    assert IssuedDocument.objects.get(pk=kept.pk).sha256 == hashlib.sha256(FIRST).hexdigest()


def test_another_district_and_the_auditor_may_not_reissue(client, kept, outsider, auditor):
    url = reverse("accounts:reissue", args=[kept.token])
    for user in (outsider, auditor):
        client.force_login(user)
        assert client.post(url, {"reason": "x"}).status_code == 404
    client.logout()
    assert client.post(url, {"reason": "x"}).status_code == 302  # to the sign-in page
    assert not EarlierFile.objects.exists()


def test_a_cancelled_document_is_not_reissued(client, kept, pound_keeper):
    IssuedDocument.objects.filter(pk=kept.pk).update(
        revoked_at=kept.issued_at, revoked_reason="Cancelled in error"
    )
    client.force_login(pound_keeper)
    response = client.post(reverse("accounts:reissue", args=[kept.token]), {"reason": "x"})

    assert response.status_code == 200 and not EarlierFile.objects.exists()
