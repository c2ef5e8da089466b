"""Periodic returns (s.7), the daily cash book and the exports of the register and the ledger.

A known month is built through the services (March 2025, with a day before and after it), and
every figure of the return is worked out here by hand from the demo tariffs: a cow's fine is
₹20,000 and her feeding ₹500 a day; a goat's ₹1,400 and ₹300; a day counts from arrival to
release, both included.
"""

import csv
import io
import tracemalloc
from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.db import connection
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import IssuedDocument
from accounts.roles import Role
from auctions import services as auctions
from impounding import services as impounding
from impounding.models import AgeClass, Deposit, Receipt, Sex, Species
from ledger import services as ledger
from ledger.models import Account, AccountKind, Posting, Transaction, TransactionKind
from office import exports, returns
from office import services as office
from office.return_documents import csv_text
from tests import readpdf
from tests.accounts.factories import PoundFactory, staff
from tests.auctions.factories import conditions, ready_for_sale, register, schedule
from tests.impounding.factories import cow, deposit, goat, make_entry, pay, set_tariffs

IST = ZoneInfo("Asia/Kolkata")
D = Decimal
ZERO = D("0.00")


def at(month, day, hour=12, minute=0, year=2025):
    return datetime(year, month, day, hour, minute, tzinfo=IST)


def read_csv(content):
    text = content.decode("utf-8")
    assert text.startswith("\ufeff"), "Excel needs the byte-order mark to read UTF-8"
    return list(csv.reader(io.StringIO(text[1:])))


def streamed(response):
    assert response.streaming is True
    return b"".join(response.streaming_content)


def pdf_text(content, tmp_path, layout=False):
    return readpdf.text(content, layout=layout)


# --- The known month --------------------------------------------------------------------------


@pytest.fixture
def march(time_machine, pound, district, pound_keeper, police_officer, magistrate, tariffs):
    """March 2025 at the home pound, built through the services:

    - 25 Feb: a cow (A) arrives; she is claimed on 3 Mar (cash): 7 days.
    - 1 Mar: a cow (S) arrives, unclaimed; reported 10 Mar, notice 11 Mar, sold 20 Mar for
      ₹50,000 (cash): 20 days.
    - 5 Mar: two cows (B, C) and a goat (G) arrive. B and G are claimed on 6 Mar (UPI): 2 days;
      C is released on deposit on 7 Mar (cash): 3 days; the deposit is applied on 17 Mar.
    - 10 Mar: a goat (H) arrives; she dies on 12 Mar.
    - 12 Mar: a cow (E) arrives; she calves on 13 Mar. Both are in the pound at the month's end.
    - 25 Mar: ₹20,000 of fines remitted from cash.
    - 2 Apr: a goat arrives and is claimed the same day (cash): after the month.
    """
    keeper = pound_keeper
    time_machine.move_to(at(2, 25), tick=False)
    entry_a = make_entry(pound=pound, by=keeper, arrived_at=at(2, 25, 10))
    time_machine.move_to(at(3, 3), tick=False)
    pay(entry_a, keeper)

    time_machine.move_to(at(3, 5), tick=False)
    entry_b = make_entry(
        pound=pound,
        by=keeper,
        arrived_at=at(3, 5, 10),
        animals=[cow(), cow(colour="Brown"), goat()],
    )
    b, c, g = entry_b.animals.order_by("number")
    time_machine.move_to(at(3, 6), tick=False)
    pay(entry_b, keeper, [b, g], mode="upi")
    time_machine.move_to(at(3, 7), tick=False)
    deposit(entry_b, keeper, [c])

    time_machine.move_to(at(3, 10), tick=False)
    entry_h = make_entry(pound=pound, by=keeper, arrived_at=at(3, 10, 10), animals=[goat()])
    time_machine.move_to(at(3, 12), tick=False)
    impounding.record_death(animal=entry_h.animals.get(), by=keeper, at=at(3, 12, 9), cause="Bloat")
    entry_e = make_entry(pound=pound, by=keeper, arrived_at=at(3, 12, 10))
    time_machine.move_to(at(3, 13), tick=False)
    impounding.record_birth(
        dam=entry_e.animals.get(), by=keeper, at=at(3, 13, 8), sex=Sex.FEMALE, colour="White"
    )

    time_machine.move_to(at(3, 17), tick=False)
    impounding.apply_deposit(deposit=Deposit.objects.get(), by=magistrate)

    time_machine.move_to(at(3, 20), tick=False)
    conditions(district)
    entry_s, _notice = ready_for_sale(
        pound=pound, keeper=keeper, officer=police_officer, days_ago=19, posted_days_ago=9
    )
    auction = schedule(pound, police_officer, [[entry_s.animals.get()]])
    bidder = register(auction, police_officer)
    sale = auctions.sell_lot(
        lot=auction.lots.get(), buyer=bidder, price=D("50000.00"), by=police_officer
    )

    time_machine.move_to(at(3, 25), tick=False)
    office.send_remittance(
        pound=pound,
        by=keeper,
        amount=D("20000.00"),
        challan_number="CH-25",
        treasury="District Treasury",
        remitted_on=date(2025, 3, 25),
    )

    time_machine.move_to(at(4, 2), tick=False)
    pay(make_entry(pound=pound, by=keeper, arrived_at=at(4, 2, 9), animals=[goat()]), keeper)

    time_machine.move_to(at(4, 10), tick=False)
    return {"sale": sale}


CATTLE = {
    "opening": 1,  # A
    "impounded": 4,  # S, B, C, E
    "born": 1,  # E's calf
    "claimed": 2,  # A, B
    "deposit": 1,  # C
    "court": 0,
    "sold": 1,  # S
    "returned": 0,
    "disposed": 0,
    "died": 0,
    "closing": 2,  # E and her calf
}
GOATS = dict.fromkeys(returns.ANIMAL_COLUMNS, 0) | {"impounded": 2, "claimed": 1, "died": 1}
# Per head: A 20,000 + 7 x 500; B 20,000 + 2 x 500; G 1,400 + 2 x 300; C (deposit applied)
# 20,000 + 3 x 500; S (from the sale) 20,000 + 20 x 500.
FINES = 4 * D("20000.00") + D("1400.00")
FEEDING = (7 + 2 + 3 + 20) * D("500.00") + 2 * D("300.00")
MONEY = {
    "fines": FINES,
    "feeding": FEEDING,
    "deposits_received": D("21500.00"),
    "deposits_applied": D("21500.00"),
    "deposits_refunded": ZERO,
    "proceeds": D("50000.00"),
    "sale_expenses": ZERO,
    "surplus": D("50000.00") - D("20000.00") - 20 * D("500.00"),
    "remitted": D("20000.00"),
    "cash_opening": ZERO,
    # A 23,500 cash; B and G 23,000 UPI; C's deposit 21,500 cash; the sale 50,000 cash.
    "cash_in": D("118000.00"),
    "cash_out": D("20000.00"),
    "cash_closing": D("98000.00"),
}


def test_monthly_return_counts_animals_by_species_and_outcome(march, pound):
    r = returns.pound_return(pound, 2025, 3)

    rows = {row["species"]: row for row in r["animals"]}
    assert set(rows) == {Species.CATTLE, Species.GOAT}
    assert {c: rows[Species.CATTLE][c] for c in returns.ANIMAL_COLUMNS} == CATTLE
    assert {c: rows[Species.GOAT][c] for c in returns.ANIMAL_COLUMNS} == GOATS
    assert r["totals"]["impounded"] == 6 and r["totals"]["closing"] == 2
    for row in [*r["animals"], r["totals"]]:
        left = sum(row[c] for c in returns.OUTCOME_COLUMNS)
        assert row["opening"] + row["impounded"] + row["born"] - left == row["closing"]
    assert r["complete"] is True
    assert (r["first"], r["last"]) == (date(2025, 3, 1), date(2025, 3, 31))


def test_monthly_return_money_follows_the_ledger(march, pound):
    r = returns.pound_return(pound, 2025, 3)

    assert r["money"] == MONEY
    assert [rem.challan_number for rem in r["remittances"]] == ["CH-25"]
    # The fines credited to the District Magistrate in the month, less those remitted, are
    # what the office still waits for (April's goat adds ₹1,400).
    assert office.unremitted_fines(pound) == FINES - D("20000.00") + D("1400.00")


def test_the_months_before_and_after_march_keep_their_own_figures(march, pound):
    february = returns.pound_return(pound, 2025, 2)
    april = returns.pound_return(pound, 2025, 4)

    assert february["totals"]["impounded"] == 1 and february["totals"]["closing"] == 1
    assert february["money"]["fines"] == ZERO
    assert april["totals"]["opening"] == 2
    assert april["money"]["fines"] == D("1400.00")
    assert april["money"]["cash_opening"] == MONEY["cash_closing"]


def test_a_reversal_takes_its_money_back_out_of_the_month(march, pound, dm_clerk, time_machine):
    # B's and G's payment of 6 March (UPI), reversed on 30 March.
    payment = Transaction.objects.filter(kind=TransactionKind.PAYMENT_S13).order_by("at")[1]
    time_machine.move_to(at(3, 30), tick=False)
    ledger.reverse(txn=payment, by=dm_clerk, reason="Keyed twice")
    time_machine.move_to(at(4, 10), tick=False)

    r = returns.pound_return(pound, 2025, 3)

    assert r["money"]["fines"] == FINES - D("21400.00")
    assert r["money"]["feeding"] == FEEDING - D("1600.00")
    assert r["money"]["cash_out"] == D("20000.00") + D("23000.00")


def test_district_return_sums_its_pounds(march, district, police_station, other_pound, pound):
    second = PoundFactory(district=district, nearest_police_station=police_station, name="Bakshi")
    keeper = staff(Role.POUND_KEEPER, "keeper2", pound=second)
    buffalo = {"species": Species.BUFFALO, "sex": Sex.FEMALE, "age_class": AgeClass.ADULT}
    entry = make_entry(
        pound=second,
        by=keeper,
        arrived_at=at(3, 8, 10),
        seized_at=at(3, 8, 7),
        animals=[cow(**buffalo)],
    )
    pay(entry, keeper, at=at(3, 9, 11))
    outsider_keeper = staff(Role.POUND_KEEPER, "far", pound=other_pound)
    set_tariffs(other_pound.district)
    make_entry(pound=other_pound, by=outsider_keeper, arrived_at=at(3, 8, 10))

    r = returns.district_return(district, 2025, 3, [pound, second])
    rows = {row["pound"].pk: row for row in r["pounds"]}

    assert set(rows) == {pound.pk, second.pk}
    assert rows[second.pk]["money"]["fines"] == D("20000.00")
    assert rows[second.pk]["money"]["feeding"] == 2 * D("500.00")
    for column in returns.ANIMAL_COLUMNS:
        assert r["totals"][column] == sum(row["totals"][column] for row in r["pounds"])
    for column in returns.MONEY_COLUMNS + returns.CASH_COLUMNS:
        assert r["money"][column] == sum(row["money"][column] for row in r["pounds"])
    assert r["money"]["fines"] == FINES + D("20000.00")
    by_species = {line["species"]: line for line in r["animals"]}
    assert by_species[Species.BUFFALO]["claimed"] == 1
    assert by_species[Species.CATTLE]["impounded"] == CATTLE["impounded"]


# --- The cash book ----------------------------------------------------------------------------


def test_cash_book_of_a_day_in_the_month(march, pound):
    book = returns.cash_book(pound, date(2025, 3, 6))

    assert book["opening"] == {"cash": D("23500.00"), "digital": ZERO, "total": D("23500.00")}
    assert [(line["receipt"], line["cash"]) for line in book["lines"]] == [(D("23000.00"), False)]
    assert book["lines"][0]["reference"] == Receipt.objects.get(payment_mode="upi").number
    assert book["closing"]["total"] == D("46500.00")
    remitted = returns.cash_book(pound, date(2025, 3, 25))
    assert remitted["payments"] == D("20000.00")
    assert remitted["lines"][0]["reference"].startswith("REM/")


def test_cash_book_balances_and_agrees_with_the_ledger(pound, pound_keeper, tariffs):
    pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    pay(make_entry(pound=pound, by=pound_keeper, animals=[goat()]), pound_keeper, mode="upi")
    office.send_remittance(
        pound=pound,
        by=pound_keeper,
        amount=D("5000.00"),
        challan_number="CH-9",
        treasury="District Treasury",
        remitted_on=timezone.localdate(),
    )

    book = returns.cash_book(pound, timezone.localdate())

    assert (
        book["opening"]["total"] + book["receipts"] - book["payments"] == book["closing"]["total"]
    )
    cash = Account.objects.get(pound=pound, kind=AccountKind.POUND_CASH).balance()
    upi = Account.objects.get(pound=pound, kind=AccountKind.POUND_DIGITAL).balance()
    assert book["closing"] == {"cash": cash, "digital": upi, "total": cash + upi}
    assert book["lines"][-1]["balance"] == cash + upi
    assert book["receipts"] == D("20500.00") + D("1700.00")


# --- The views: PDFs and CSVs ---------------------------------------------------------------


def test_monthly_return_csv_matches_the_figures(march, client, pound, pound_keeper):
    client.force_login(pound_keeper)
    url = reverse("office:monthly_return", args=[pound.pk, 2025, 3, "csv"])

    response = client.get(url)

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith("attachment;")
    header, *rows = read_csv(response.content)
    assert header[:4] == ["Pound code", "Pound", "Month", "Category"]
    columns = returns.ANIMAL_COLUMNS + returns.MONEY_COLUMNS + returns.CASH_COLUMNS
    assert len(header) == 4 + len(columns)
    by_category = {row[3]: dict(zip(columns, row[4:], strict=True)) for row in rows}
    assert list(by_category) == ["Cattle", "Goat", "All categories"]
    assert {c: int(by_category["Cattle"][c]) for c in returns.ANIMAL_COLUMNS} == CATTLE
    assert by_category["Goat"]["fines"] == ""
    total = by_category["All categories"]
    assert {c: D(total[c]) for c in returns.MONEY_COLUMNS + returns.CASH_COLUMNS} == MONEY
    assert total["fines"] == "81400.00"  # a plain decimal: no ₹, no grouping
    assert rows[0][:3] == [pound.code, pound.name, "2025-03"]


def test_monthly_return_pdf_is_registered_once_with_a_qr(march, client, pound, dm_clerk, tmp_path):
    client.force_login(dm_clerk)
    url = reverse("office:monthly_return", args=[pound.pk, 2025, 3, "pdf"])

    first, second = client.get(url), client.get(url)

    assert first.status_code == second.status_code == 200
    assert first["Content-Type"] == "application/pdf"
    assert first.content.startswith(b"%PDF")
    document = IssuedDocument.objects.get(kind=IssuedDocument.Kind.RETURN)
    assert document.number == f"RET/{pound.code.upper()}/2025-03"
    assert (document.pound, document.issued_by) == (pound, dm_clerk)
    text = pdf_text(first.content, tmp_path)
    assert pound.name in text
    assert document.number in text
    assert "81,400.00" in text  # the fines
    assert "98,000.00" in text  # cash and UPI at the month's end
    # The verification address under the QR code, which may wrap at the token's "-".
    assert document.token in "".join(text.split())


def test_a_hindi_reader_gets_the_same_bilingual_pdf(march, client, pound, dm_clerk, tmp_path):
    client.force_login(dm_clerk)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "hi"
    url = reverse("office:monthly_return", args=[pound.pk, 2025, 3, "pdf"])

    text = pdf_text(client.get(url).content, tmp_path)

    # English first, whatever the language of the screen (pdftotext scrambles the Hindi).
    assert "Cattle" in text and "Monthly return of the pound (s.7)" in text


def test_a_month_in_progress_is_provisional_and_not_registered(client, pound, dm_clerk, tmp_path):
    client.force_login(dm_clerk)
    today = timezone.localdate()
    url = reverse("office:monthly_return", args=[pound.pk, today.year, today.month, "pdf"])

    response = client.get(url)

    assert response.status_code == 200
    assert not IssuedDocument.objects.filter(kind=IssuedDocument.Kind.RETURN).exists()
    assert "Provisional" in pdf_text(response.content, tmp_path)


@pytest.mark.parametrize(
    ("year", "month", "fmt"), [(2025, 13, "pdf"), (2025, 3, "xls"), (2999, 1, "pdf")]
)
def test_bad_or_future_months_are_not_found(client, pound, dm_clerk, year, month, fmt):
    client.force_login(dm_clerk)

    response = client.get(reverse("office:monthly_return", args=[pound.pk, year, month, fmt]))

    assert response.status_code == 404


def test_district_return_csv_and_pdf(march, client, district, pound, auditor, tmp_path):
    client.force_login(auditor)

    csv_response = client.get(reverse("office:district_return", args=[district.pk, 2025, 3, "csv"]))
    pdf_response = client.get(reverse("office:district_return", args=[district.pk, 2025, 3, "pdf"]))

    header, *rows = read_csv(csv_response.content)
    assert [row[0] for row in rows] == [pound.code, district.code]
    assert rows[0][4:] == rows[1][4:]  # one pound: the district's total is that pound's row
    fines = header.index("Fines (s.12)")
    assert rows[1][fines] == "81400.00"
    assert pdf_response.status_code == 200 and pdf_response.content.startswith(b"%PDF")
    text = pdf_text(pdf_response.content, tmp_path)
    assert pound.name in text and "81,400.00" in text
    number = f"RET/{district.code.upper()}/DISTRICT/2025-03"
    assert IssuedDocument.objects.filter(number=number, district=district).exists()


def test_cash_book_csv_and_pdf(march, client, pound, pound_keeper, tmp_path):
    client.force_login(pound_keeper)

    csv_response = client.get(reverse("office:cash_book", args=[pound.pk, "2025-03-06", "csv"]))
    pdf_response = client.get(reverse("office:cash_book", args=[pound.pk, "2025-03-06", "pdf"]))

    header, opening, line, closing = read_csv(csv_response.content)
    assert header[-3:] == ["Receipt", "Payment", "Balance"]
    assert opening[2:] == ["Opening balance", "", "", "", "", "23500.00"]
    assert line[4:] == ["UPI or other", "23000.00", "", "46500.00"]
    assert closing[-3:] == ["23000.00", "0.00", "46500.00"]
    assert pdf_response.content.startswith(b"%PDF")
    text = pdf_text(pdf_response.content, tmp_path)
    assert pound.name in text and "46,500.00" in text and "06-03-2025" in text


def test_cash_book_rejects_bad_and_future_days(client, pound, pound_keeper):
    client.force_login(pound_keeper)
    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()

    for day in ("2025-3-6", "2025-02-30", tomorrow):
        assert (
            client.get(reverse("office:cash_book", args=[pound.pk, day, "pdf"])).status_code == 404
        )


# --- Who may see what -----------------------------------------------------------------------


def _urls(pound, district):
    return {
        "monthly": reverse("office:monthly_return", args=[pound.pk, 2025, 3, "csv"]),
        "district": reverse("office:district_return", args=[district.pk, 2025, 3, "csv"]),
        "cash_book": reverse("office:cash_book", args=[pound.pk, "2025-03-06", "csv"]),
        "returns": reverse("office:returns"),
        "register": reverse("office:export_register"),
        "ledger": reverse("office:export_ledger"),
    }


EXPECTED = {
    #                 monthly district cash_book returns register ledger
    "pound_keeper": (200, 403, 200, 200, 200, 200),
    "police_officer": (403, 403, 403, 403, 403, 403),
    "dm_clerk": (200, 200, 200, 200, 200, 200),
    "magistrate": (200, 200, 200, 200, 200, 200),
    "auditor": (200, 200, 200, 200, 200, 200),
    "administrator": (403, 403, 403, 403, 403, 403),
    # A pound-keeper of another district: his role has no consolidation anywhere (403).
    "outsider": (404, 403, 404, 200, 200, 200),
}


@pytest.mark.parametrize("role", EXPECTED)
def test_role_table(client, role_users, pound, district, role):
    client.force_login(role_users[role])
    urls = _urls(pound, district)

    got = tuple(client.get(url).status_code for url in urls.values())

    assert got == EXPECTED[role]


def test_another_districts_office_finds_no_district_return(client, district, other_district):
    clerk = staff(Role.DM_CLERK, "far_clerk", district=other_district)
    client.force_login(clerk)

    response = client.get(reverse("office:district_return", args=[district.pk, 2025, 3, "pdf"]))

    assert response.status_code == 404
    own = reverse("office:district_return", args=[other_district.pk, 2025, 3, "csv"])
    assert client.get(own).status_code == 200


def test_anonymous_visitors_are_sent_to_sign_in(client, pound, district):
    for url in _urls(pound, district).values():
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_returns_are_get_only(client, pound, district, dm_clerk):
    client.force_login(dm_clerk)
    for url in _urls(pound, district).values():
        assert client.post(url).status_code == 405
    assert not IssuedDocument.objects.exists()


# --- The page -------------------------------------------------------------------------------


def test_returns_page_defaults_to_last_month(client, pound, pound_keeper):
    client.force_login(pound_keeper)

    response = client.get(reverse("office:returns"))

    assert response.status_code == 200
    today = timezone.localdate()
    last = date(today.year - (today.month == 1), (today.month - 2) % 12 + 1, 1)
    assert response.context["first"] == last
    assert response.context["subject"] == pound
    html = response.content.decode()
    # The return is made by the worker (tests/office/test_prepared.py): a button asks for it.
    assert 'name="what" value="monthly_return"' in html
    assert f'name="pk" value="{pound.pk}"' in html and f'name="month" value="{last.month}"' in html
    assert reverse("office:cash_book", args=[pound.pk, today.isoformat(), "csv"]) in html
    assert 'role="region"' in html and 'tabindex="0"' in html
    # A pound-keeper has no district consolidation to choose.
    assert "district-" not in html


def test_returns_page_offers_the_office_its_district(march, client, district, pound, dm_clerk):
    client.force_login(dm_clerk)

    response = client.get(
        reverse("office:returns"),
        {"of": f"district-{district.pk}", "month": "2025-03", "day": "2025-03-06"},
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="what" value="district_return"' in html
    assert f'name="pk" value="{district.pk}"' in html and 'name="month" value="3"' in html
    assert "₹81,400.00" in html
    assert 'name="from" value="2025-03-01"' in html and 'name="to" value="2025-03-31"' in html


def test_returns_page_refuses_another_districts_pound(client, other_pound, dm_clerk):
    client.force_login(dm_clerk)

    response = client.get(
        reverse("office:returns"),
        {"of": f"pound-{other_pound.pk}", "month": "2025-03", "day": "2025-03-06"},
    )

    assert response.status_code == 200
    assert "of" in response.context["form"].errors
    assert "r" not in response.context


# --- Exports ----------------------------------------------------------------------------------


def test_register_export_streams_one_row_per_animal(march, client, pound, pound_keeper):
    client.force_login(pound_keeper)

    response = client.get(
        reverse("office:export_register"), {"from": "2025-03-01", "to": "2025-03-31"}
    )

    assert (
        response["Content-Disposition"]
        == 'attachment; filename="register-2025-03-01_2025-03-31.csv"'
    )
    header, *rows = read_csv(streamed(response))
    assert len(header) == 24 and "Photo" not in header
    assert len(rows) == 7  # S; B, C and G; H; E and her calf (A came in February)
    states = sorted(row[header.index("State of the animal")] for row in rows)
    assert states.count("Died") == 1
    calf = next(row for row in rows if row[header.index("Calf of animal no.")])
    assert calf[header.index("Born in the pound at (IST)")] == "2025-03-13 08:00"
    assert {row[header.index("Pound code")] for row in rows} == {pound.code}


def test_register_export_keeps_to_the_jurisdiction(march, client, outsider, other_pound):
    client.force_login(outsider)

    header, *rows = read_csv(streamed(client.get(reverse("office:export_register"))))

    assert rows == []


def test_ledger_export_streams_every_posting_with_its_transaction(march, client, pound, auditor):
    client.force_login(auditor)

    response = client.get(
        reverse("office:export_ledger"), {"from": "2025-03-01", "to": "2025-03-31"}
    )

    header, *rows = read_csv(streamed(response))
    in_march = Posting.objects.filter(
        transaction__at__gte=at(3, 1, 0), transaction__at__lt=at(4, 1, 0)
    )
    assert len(rows) == in_march.count()
    debit, credit, amount = (
        header.index(h) for h in ("Debit", "Credit", "Amount (debit +, credit −)")
    )
    assert sum(D(r[debit] or 0) for r in rows) == sum(D(r[credit] or 0) for r in rows)
    assert sum(D(r[amount]) for r in rows) == 0
    sale = next(r for r in rows if r[header.index("Source record")].startswith("auctions.sale:"))
    assert sale[header.index("Register number")]
    assert {r[header.index("Pound code")] for r in rows} == {pound.code}


def test_exports_refuse_bad_dates_and_other_pounds(client, pound_keeper, other_pound):
    client.force_login(pound_keeper)

    assert client.get(reverse("office:export_ledger"), {"from": "1-3-2025"}).status_code == 400
    assert (
        client.get(reverse("office:export_register"), {"pound": other_pound.pk}).status_code == 404
    )


@pytest.fixture
def many_postings(pound, district):
    """2,000 postings: 1,000 cash receipts of ₹1 each, posted straight into the ledger."""
    cash = ledger.account(district=district, pound=pound, kind=AccountKind.POUND_CASH)
    fines = ledger.account(district=district, kind=AccountKind.FINES_DUE_DM)
    now = timezone.now()
    transactions = Transaction.objects.bulk_create(
        Transaction(
            district=district,
            pound=pound,
            kind=TransactionKind.PAYMENT_S13,
            at=now - timedelta(seconds=i),
            memo=f"Bulk receipt {i}",
            source=f"test:{i}",
        )
        for i in range(1000)
    )
    Posting.objects.bulk_create(
        posting
        for txn in transactions
        for posting in (
            Posting(transaction=txn, account=cash, amount=D("1.00")),
            Posting(transaction=txn, account=fines, amount=D("-1.00")),
        )
    )
    return 2000


def test_a_large_export_streams_without_building_a_list(
    client, dm_clerk, many_postings, monkeypatch
):
    """The export is one COPY of the postings, read as PostgreSQL sends it, never a list of the
    whole queryset. It reads nothing until the response is read, and its memory stays flat:
    reading all 2,000 rows needs little more than reading the first block."""
    copies = []
    copied = exports.copied_blocks

    def no_list(self):
        assert self.model is not Posting, "the export built a list of the postings"
        return fetch_all(self)

    def spy(head, queryset, connection):
        copies.append(queryset.model)
        return copied(head, queryset, connection)

    fetch_all = QuerySet._fetch_all
    monkeypatch.setattr(QuerySet, "_fetch_all", no_list)
    monkeypatch.setattr(exports, "copied_blocks", spy)
    # Blocks of 4 kB, so that the 2,000 postings (about 150 kB) leave in many blocks.
    monkeypatch.setattr(exports, "BLOCK_BYTES", 4096)
    client.force_login(dm_clerk)

    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("office:export_ledger"))
        # Nothing has been read yet: the rows are fetched as the response is sent.
        assert not any("ledger_posting" in q["sql"] for q in queries.captured_queries)
        assert response.streaming is True
        chunks = iter(response.streaming_content)

        tracemalloc.start()
        first = next(chunks)
        _size, first_peak = tracemalloc.get_traced_memory()
        blocks, lines = 1, first.count(b"\n")
        for chunk in chunks:  # counted, not kept
            blocks, lines = blocks + 1, lines + chunk.count(b"\n")
        _size, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()

    assert copies == [Posting]
    exported = [q["sql"] for q in queries.captured_queries if "ledger_posting" in q["sql"]]
    assert len(exported) == 1 and exported[0].startswith("COPY (SELECT")
    assert blocks > 20
    assert lines == 1 + many_postings  # the header, and a line for each posting
    assert peak < 2 * first_peak, (first_peak, peak)


def test_csv_text_keeps_formulas_out_of_spreadsheets():
    assert csv_text("=HYPERLINK(1)") == "'=HYPERLINK(1)"
    assert csv_text("-5") == "'-5"
    assert csv_text("Shyam Lal") == "Shyam Lal"


def _full_letterhead(pound):
    pound.address = "Near the tehsil, Sultanpur Road, Mohanlalganj, Lucknow 226301"
    pound.address_hi = "तहसील के पास, सुल्तानपुर रोड, मोहनलालगंज, लखनऊ 226301"
    pound.phone = "0522-2911234"
    pound.save()


def test_monthly_return_keeps_its_signatures_and_seal_on_its_one_page(march, pound, dm_clerk):
    _full_letterhead(pound)
    from office.return_documents import monthly_return_pdf

    pdf = monthly_return_pdf(pound, 2025, 3, by=dm_clerk)

    pages = readpdf.page_texts(pdf)
    assert len(pages) == 1, [p[-200:] for p in pages]
    assert "Pound-keeper: signature and date" in pages[0]
    assert "Received in the District Magistrate's office" in pages[0]
    assert "Office seal" in pages[0]
    assert "0522-2911234" in pages[0]  # the pound's telephone in the letterhead
