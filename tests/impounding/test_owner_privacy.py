"""Privacy of the owner (ADR 0078): the phone masked but to the keeper and the release clerk,
and nothing personal on the public board, the /verify/ pages or the public API."""

from datetime import timedelta

import pytest
from django.template import Context, Template
from django.utils import timezone

from accounts.roles import Role
from kernel.formatting import mask_phone
from tests.accounts.factories import staff
from tests.auctions.factories import report_and_notice
from tests.impounding.factories import cow, make_entry, pay

OWNER = {"owner_name": "Shyam Lal Yadav", "owner_residence": "Samesi Khurd"}
PHONE = "9876543210"
PERSONAL = ("Shyam Lal Yadav", "Samesi Khurd", PHONE, "3210", "Ram Prasad", "9811122233")


@pytest.mark.parametrize(
    ("value", "shown"),
    [("9876543210", "******3210"), ("+91 98765 43210", "********3210"), ("", ""), ("123", "***")],
)
def test_the_filter_masks_all_but_the_last_four_digits(value, shown):
    assert mask_phone(value) == shown
    assert Template("{{ p|mask_phone }}").render(Context({"p": value})) == shown


@pytest.fixture
def entry(pound, pound_keeper, police_officer, tariffs):
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=timezone.now() - timedelta(days=11),
        animals=[cow(ear_tag="123456789010"), cow()],
        owner_phone=PHONE,
        seizer_name="Ram Prasad",
        seizer_phone="9811122233",
        **OWNER,
    )
    report_and_notice(entry, pound_keeper, police_officer, sent_days_ago=2, posted_days_ago=2)
    return entry


def _clean(body):
    for value in PERSONAL:
        assert value not in body, value


def test_the_keeper_sees_the_phones_and_others_see_them_masked(
    client, entry, pound_keeper, auditor, magistrate, police_officer
):
    client.force_login(pound_keeper)
    body = client.get(entry.get_absolute_url()).content.decode()
    assert PHONE in body and "9811122233" in body
    for user in (auditor, magistrate, police_officer):
        client.force_login(user)
        body = client.get(entry.get_absolute_url()).content.decode()
        assert PHONE not in body and "******3210" in body
        assert "9811122233" not in body and "******2233" in body


def test_whoever_releases_at_the_pound_sees_the_phone(client, entry, pound):
    # The release is the pound's staff's (RELEASE_ANIMAL): they call the owner.
    clerk = staff(Role.POUND_KEEPER, "release_clerk", pound=pound)
    client.force_login(clerk)
    assert PHONE in client.get(entry.get_absolute_url()).content.decode()


def test_nothing_personal_on_the_board_or_its_api(client, entry):
    board = client.get("/notices/")
    assert board.status_code == 200 and entry.animals.first().reference in board.content.decode()
    _clean(board.content.decode())
    api = client.get("/api/v1/board/")
    assert api.status_code == 200 and api.json()["results"]
    _clean(api.content.decode())


def test_nothing_personal_on_verify_or_its_api(client, entry, pound_keeper):
    release = pay(entry, pound_keeper, claimant_name="Shyam Lal Yadav", owner_name="Shyam Lal")
    token = release.receipt.document.token
    page = client.get(f"/verify/{token}/")
    assert page.status_code == 200
    _clean(page.content.decode())
    api = client.get(f"/api/v1/verify/{token}/")
    assert api.status_code == 200
    _clean(api.content.decode())
