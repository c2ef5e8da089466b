"""The API's register entries with dues and photos, its receipts and its s.15 deposits: scoped
per role as their screens are, paged once per row, 400 on bad input, a fixed number of queries
per page, dues equal to impounding.dues, photos only to a token that reads the entry, ETags."""

import io
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from accounts.roles import Role
from impounding import services
from impounding.dues import dues
from impounding.models import Deposit
from tests.accounts.factories import PoundFactory, staff
from tests.api.conftest import bearer
from tests.impounding.factories import cow, deposit, goat, make_entry, pay, set_tariffs

API = "/api/v1"


def _problem(response, status):
    assert response.status_code == status
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["status"] == status
    return response.json()


# The receipts for payment alone: each deposit has its receipt too.
LISTS = {"receipts": "receipts/?kind=payment", "deposits": "deposits/"}


def _all(client, url, headers):
    seen = []
    while url:
        body = client.get(url, **headers).json()
        seen += [row["id"] for row in body["results"]]
        url = body["next"]
    return seen


def _photo():
    out = io.BytesIO()
    Image.new("RGB", (64, 48), "sienna").save(out, format="JPEG")
    return SimpleUploadedFile("IMG_0001.jpg", out.getvalue(), content_type="image/jpeg")


@pytest.fixture
def home(pound, pound_keeper, tariffs):
    """A paid release and a deposit in the home pound."""
    paid = pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    held = deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    return {"receipt": paid.receipt, "deposit": held.deposit}


@pytest.fixture
def theirs(other_pound, other_district, outsider):
    set_tariffs(other_district)
    paid = pay(make_entry(pound=other_pound, by=outsider), outsider)
    held = deposit(make_entry(pound=other_pound, by=outsider), outsider)
    return {"receipt": paid.receipt, "deposit": held.deposit}


@pytest.fixture
def second_pound(pound):
    """Another pound of the home district, with its own keeper, a receipt and a deposit."""
    second = PoundFactory(district=pound.district)
    keeper = staff(Role.POUND_KEEPER, "second_keeper", pound=second)
    paid = pay(make_entry(pound=second, by=keeper), keeper)
    held = deposit(make_entry(pound=second, by=keeper), keeper)
    return {"receipt": paid.receipt, "deposit": held.deposit}


# --- Scope ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["receipts", "deposits"])
def test_keeper_reads_own_pound_and_another_district_is_404(
    client, pound_keeper, home, theirs, kind
):
    headers = bearer(pound_keeper)
    own, other = home[kind.rstrip("s")], theirs[kind.rstrip("s")]

    listed = client.get(f"{API}/{LISTS[kind]}", **headers).json()["results"]

    assert [row["id"] for row in listed] == [own.pk]
    assert client.get(f"{API}/{kind}/{own.pk}/", **headers).status_code == 200
    _problem(client.get(f"{API}/{kind}/{other.pk}/", **headers), 404)


@pytest.mark.parametrize("kind", ["receipts", "deposits"])
def test_auditor_reads_the_whole_district_only(client, auditor, home, second_pound, theirs, kind):
    one = kind.rstrip("s")
    listed = client.get(f"{API}/{LISTS[kind]}", **bearer(auditor)).json()["results"]

    assert {row["id"] for row in listed} == {home[one].pk, second_pound[one].pk}
    _problem(client.get(f"{API}/{kind}/{theirs[one].pk}/", **bearer(auditor)), 404)


def test_receipts_need_the_register_and_deposits_the_books(
    client, home, administrator, police_officer
):
    receipt, held = home["receipt"], home["deposit"]
    # The administrator reads no register: no receipt at all.
    _problem(client.get(f"{API}/receipts/", **bearer(administrator)), 404)
    _problem(client.get(f"{API}/receipts/{receipt.pk}/", **bearer(administrator)), 404)
    # The police read the register, so its receipts, but not the pound's books.
    police = bearer(police_officer)
    assert client.get(f"{API}/receipts/{receipt.pk}/", **police).status_code == 200
    _problem(client.get(f"{API}/deposits/", **police), 404)
    _problem(client.get(f"{API}/deposits/{held.pk}/", **police), 404)


def test_no_token_is_401(client, home):
    _problem(client.get(f"{API}/receipts/"), 401)
    _problem(client.get(f"{API}/deposits/{home['deposit'].pk}/"), 401)


# --- What a receipt and a deposit say ----------------------------------------------------


def test_receipt_has_items_amounts_mode_and_verification(client, pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), goat()])
    release = pay(entry, pound_keeper, mode="upi")

    body = client.get(f"{API}/receipts/{release.receipt_id}/", **bearer(pound_keeper)).json()

    lines = {line.animal_id: line for line in release.lines.all()}
    assert {i["animal"] for i in body["items"]} == set(lines)
    for item in body["items"]:
        line = lines[item["animal"]]
        assert item["fine"] == str(line.fine) and item["feeding"] == str(line.feeding)
        assert item["total"] == str(line.fine + line.feeding)
    assert body["amount"] == str(release.amount) == str(release.fines + release.feeding)
    assert (body["fines"], body["feeding"]) == (str(release.fines), str(release.feeding))
    assert isinstance(body["amount"], str) and "." in body["amount"]
    assert (body["payment_mode"], body["payment_reference"]) == ("upi", "UPI-123")
    assert (body["entry"], body["kind"], body["payer_name"]) == (entry.pk, "payment", "Shyam Lal")
    token = release.receipt.document.token
    assert body["verification_url"] == f"{settings.PUBLIC_BASE_URL}/verify/{token}/"
    assert client.get(urlparse(body["verification_url"]).path).status_code == 200
    assert not body["cancelled"] and body["replaces"] is None and body["replaced_by"] is None


def test_receipt_shows_cancellation_asked_then_cancelled_and_replaced(
    client, pound, pound_keeper, dm_clerk, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper)
    first = pay(entry, pound_keeper).receipt
    headers, url = bearer(pound_keeper), f"{API}/receipts/{first.pk}/"
    asked = services.ask_receipt_cancellation(receipt=first, by=pound_keeper, reason="Wrong")

    assert client.get(url, **headers).json()["cancellation_pending"] is True

    services.decide_receipt_cancellation(cancellation=asked, by=dm_clerk, approve=True)
    second = pay(entry, pound_keeper, replaces=first).receipt
    old, new = client.get(url, **headers).json(), None
    new = client.get(f"{API}/receipts/{second.pk}/", **headers).json()

    assert old["cancelled"] and old["cancelled_reason"] == "Wrong" and old["cancelled_at"]
    assert not old["cancellation_pending"]
    assert old["replaced_by"] == {"id": second.pk, "number": second.number}
    assert new["replaces"] == {"id": first.pk, "number": first.number}
    assert [i["cancelled"] for i in old["items"]] == [True]


def test_deposit_has_status_amounts_and_its_fate(client, pound_keeper, magistrate, home):
    held = home["deposit"]
    headers, url = bearer(pound_keeper), f"{API}/deposits/{held.pk}/"

    body = client.get(url, **headers).json()

    assert body["status"] == "held" and body["applied_at"] is None
    assert body["refunded_at"] is None and body["refund_mode"] is None
    assert (body["fines"], body["feeding"], body["amount"]) == (
        str(held.fines),
        str(held.feeding),
        str(held.amount),
    )
    assert body["receipt"]["number"] == held.release.receipt.number
    assert body["complaint_deadline"] == held.complaint_deadline.isoformat()
    assert body["awaiting_application"] is False  # the time to complain still runs

    Deposit.objects.filter(pk=held.pk).update(status=Deposit.Status.REFUND_DUE)
    assert client.get(url, **headers).json()["status"] == "refund_due"
    listed = client.get(f"{API}/deposits/?status=held", **headers).json()["results"]
    assert listed == []


# --- Pages, filters, bad input -------------------------------------------------------------


def test_receipt_and_deposit_pages_give_each_row_once(client, pound, pound_keeper, monkeypatch):
    set_tariffs(pound.district)
    monkeypatch.setattr("api.custody.PAGE_SIZE", 2)
    receipts, deposits = set(), set()
    for _ in range(5):
        receipts.add(pay(make_entry(pound=pound, by=pound_keeper), pound_keeper).receipt_id)
        deposits.add(deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper).deposit.pk)
    headers = bearer(pound_keeper)

    seen = _all(client, f"{API}/receipts/?kind=payment", headers)
    assert sorted(seen) == sorted(receipts)
    seen = _all(client, f"{API}/deposits/", headers)
    assert sorted(seen) == sorted(deposits)


def test_receipt_filters_pound_kind_and_dates(client, auditor, home, second_pound):
    headers = bearer(auditor)
    pound_id = home["receipt"].pound_id
    today = home["receipt"].issued_at.astimezone().date()

    def ids(query):
        rows = client.get(f"{API}/receipts/?{query}", **headers).json()["results"]
        return {r["id"] for r in rows}

    assert ids(f"pound={pound_id}") == {home["receipt"].pk, home["deposit"].release.receipt_id}
    assert ids(f"pound={pound_id}&kind=deposit") == {home["deposit"].release.receipt_id}
    assert len(ids(f"date_from={today}&date_to={today}")) == 4
    assert ids(f"date_to={today.replace(year=today.year - 1)}") == set()
    deposits = client.get(f"{API}/deposits/?pound={pound_id}", **headers).json()["results"]
    assert [d["id"] for d in deposits] == [home["deposit"].pk]


@pytest.mark.parametrize(
    "query",
    [
        "receipts/?after=nonsense",
        "receipts/?after=2026-13-45%2010:00:00%2B00:00|1",
        "receipts/?after=2026-01-01|1",
        "receipts/?date_from=2026-02-30",
        "receipts/?pound=abc",
        "receipts/?pound=99999999999999999999",
        "receipts/?kind=gift",
        "deposits/?after=2026-02-30|1",
        "deposits/?after=1|2",
        "deposits/?status=lost",
        "deposits/?pound=abc",
        "entries/?q=" + "x" * 101,
    ],
)
def test_bad_input_is_400_with_field_errors(client, pound_keeper, query):
    body = _problem(client.get(f"{API}/{query}", **bearer(pound_keeper)), 400)
    assert body["errors"] and {"field", "message"} == set(body["errors"][0])


def test_another_districts_pound_is_not_a_filter(client, pound_keeper, other_pound):
    _problem(client.get(f"{API}/receipts/?pound={other_pound.pk}", **bearer(pound_keeper)), 400)


def test_entries_search_text_is_the_registers(client, pound, pound_keeper):
    make_entry(pound=pound, by=pound_keeper)
    wanted = make_entry(pound=pound, by=pound_keeper, owner_name="Kamla Devi")
    headers = bearer(pound_keeper)

    for q in ("kamla", wanted.register_number):
        listed = client.get(f"{API}/entries/", {"q": q}, **headers).json()["results"]
        assert [e["id"] for e in listed] == [wanted.pk]


@pytest.mark.parametrize("rows", [2, 6])
def test_queries_do_not_grow_with_rows(
    client, pound, pound_keeper, rows, django_assert_max_num_queries
):
    set_tariffs(pound.district)
    for _ in range(rows):
        pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
        deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    headers = bearer(pound_keeper)
    # The token, its last use, the grants (two), the pounds, the page, its cancellations.
    with django_assert_max_num_queries(9):
        assert len(client.get(f"{API}/receipts/", **headers).json()["results"]) == 2 * rows
    # ... the page, the deposits' complaints and their entries' complaints.
    with django_assert_max_num_queries(10):
        assert len(client.get(f"{API}/deposits/", **headers).json()["results"]) == rows


@pytest.mark.parametrize("animals", [1, 5])
def test_entry_dues_take_the_same_queries_for_any_number_of_animals(
    client, pound, pound_keeper, tariffs, animals, django_assert_max_num_queries
):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow() for _ in range(animals)])
    headers = bearer(pound_keeper)
    client.get(f"{API}/entries/{entry.pk}/", **headers)  # the district's policy, made once
    with django_assert_max_num_queries(16):
        body = client.get(f"{API}/entries/{entry.pk}/", **headers).json()
    assert len(body["animals"]) == animals and body["dues"]["total"]


# --- Dues ----------------------------------------------------------------------------------


def test_entry_dues_are_what_impounding_dues_computes(client, pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), goat(), cow()])
    gone, *kept = entry.animals.order_by("number")
    pay(entry, pound_keeper, [gone])

    body = client.get(f"{API}/entries/{entry.pk}/", **bearer(pound_keeper)).json()
    statement = dues(kept)

    assert body["dues"]["total"] == str(statement.total)
    assert (body["dues"]["fines"], body["dues"]["feeding"]) == (
        str(statement.fines),
        str(statement.feeding),
    )
    assert body["dues"]["rule"] == statement.rule
    by_id = {a["id"]: a for a in body["animals"]}
    assert by_id[gone.pk]["dues"] is None and by_id[gone.pk]["state"] == "released_paid"
    for line in statement.lines:
        got = by_id[line.animal.pk]["dues"]
        assert (got["fine"], got["feeding"], got["total"]) == (
            str(line.fine),
            str(line.feeding),
            str(line.total),
        )
        assert got["feeding_days"] == line.feeding_days
        assert [p["rate"] for p in got["periods"]] == [str(p.rate) for p in line.periods]
    assert "dues" not in client.get(f"{API}/entries/", **bearer(pound_keeper)).json()["results"][0]


def test_entry_without_a_tariff_says_why_and_gives_no_dues(client, pound, pound_keeper):
    entry = make_entry(pound=pound, by=pound_keeper)
    body = client.get(f"{API}/entries/{entry.pk}/", **bearer(pound_keeper)).json()
    assert body["dues"] is None and body["tariff_problem"]
    assert body["animals"][0]["dues"] is None


# --- Photos --------------------------------------------------------------------------------


def test_photo_is_an_absolute_link_that_needs_a_token_that_reads_the_entry(
    client, pound, pound_keeper, police_officer, outsider, administrator, media_root
):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(photo=_photo()), cow()])
    with_photo, without = entry.animals.order_by("number")
    listed = client.get(f"{API}/entries/", **bearer(pound_keeper)).json()["results"][0]
    link = listed["animals"][0]["photo"]

    assert link == f"{settings.PUBLIC_BASE_URL}{API}/animals/{with_photo.pk}/photo/"
    assert listed["animals"][1]["photo"] is None
    path = urlparse(link).path
    with with_photo.photo.open("rb") as stored:
        stored_bytes = stored.read()
    for user in (pound_keeper, police_officer):
        response = client.get(path, **bearer(user))
        assert response.status_code == 200 and response["Content-Type"] == "image/jpeg"
        assert b"".join(response.streaming_content) == stored_bytes
    _problem(client.get(path), 401)
    _problem(client.get(path, **bearer(outsider)), 404)
    _problem(client.get(path, **bearer(administrator)), 404)
    _problem(client.get(f"{API}/animals/{without.pk}/photo/", **bearer(pound_keeper)), 404)
    client.force_login(outsider)
    _problem(client.get(path), 401)  # a session is not a token


# --- ETags ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["receipts", "deposits"])
def test_etag_gives_304_and_a_change_a_new_tag(client, pound_keeper, home, kind):
    headers = bearer(pound_keeper)
    for url in (f"{API}/{kind}/", f"{API}/{kind}/{home[kind.rstrip('s')].pk}/"):
        first = client.get(url, **headers)
        again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **headers)
        assert again.status_code == 304 and again.content == b""
    Deposit.objects.update(status=Deposit.Status.REFUND_DUE)
    if kind == "deposits":
        changed = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **headers)
        assert changed.status_code == 200
