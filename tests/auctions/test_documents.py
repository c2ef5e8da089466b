"""The PDFs of the unclaimed-cattle and sale workflow: the s.14 report and notice, the sale
certificate and the s.16 account. English text is read back with pypdf (tests/readpdf.py); Hindi
is not (the reader scrambles Devanagari), so the Devanagari fonts are checked instead.

The records are made with the services, at 12:00 IST today (the suite's clock), so dates are
counted back from today. Set PA_DOC_ARTIFACTS=<dir> to keep the PDFs, e.g. to look at them.
"""

import io
import os
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from accounts.roles import Role
from auctions import documents, services
from auctions.models import Auction, S16Case
from impounding.models import Impoundment
from kernel.formatting import amount_in_words, inr
from tests import readpdf
from tests.accounts.factories import staff
from tests.auctions.factories import conditions, report_and_notice, unclaimed_entry
from tests.impounding.factories import cow, goat, make_entry

NOTO = {"Noto-Sans", "Noto-Sans-Bold", "Noto-Sans-Devanagari", "Noto-Sans-Devanagari-Bold"}
BUYER = {
    "name": "Mohd. Salim",
    "address": "Bakshi ka Talab",
    "id_kind": "voter",
    "id_number": "UP/12/345/678",
    "phone": "9999911111",
    "declaration_signed": True,
}


def _keep(name, pdf):
    folder = os.environ.get("PA_DOC_ARTIFACTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / name).write_bytes(pdf)


def _text(pdf, tmp_path):
    text = readpdf.text(pdf)
    return " ".join(text.split())  # a sentence wrapped over two lines reads as one


def _lines(pdf, tmp_path):
    """The text laid out as on the page (as pdftotext -layout), one string per line, so that a
    label and its figure on the same row can be read together."""
    out = readpdf.text(pdf, layout=True)
    return [" ".join(line.split()) for line in out.splitlines()]


def _row(lines, label, figure):
    """Some line holds `label` and ends with `figure`."""
    return any(label in line and line.endswith(f" {figure}") for line in lines)


def _pages(pdf, tmp_path):
    return readpdf.pages(pdf)


def _images(pdf, tmp_path):
    return readpdf.images(pdf)


def _all_noto_embedded(pdf, tmp_path):
    fonts = {name: "yes" if emb else "no" for name, emb in readpdf.fonts(pdf).items()}
    assert NOTO <= set(fonts), fonts
    assert all(fonts[name] == "yes" for name in NOTO), fonts


def _is_pdf(response):
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("attachment;")
    assert response.content.startswith(b"%PDF")
    return response.content


def _one_a4_page(pdf, tmp_path):
    pages, size = _pages(pdf, tmp_path)
    assert pages == 1
    assert size.startswith("595.") and "x 841." in size, size  # A4 in points


def _has_number(text, number):
    """A document or register number is printed. A long one may wrap at a "/" in a narrow
    cell, which pdftotext reads as a space: compare without spaces."""
    return number in text.replace(" ", "")


def _verifies(text, document):
    """The document's verification address is printed. The footer may wrap it, and pdftotext
    drops a hyphen at the end of a line: compare without spaces and hyphens."""
    flat = text.replace(" ", "").replace("-", "")
    return f"/verify/{document.token}/".replace("-", "") in flat


def _d(days_ago):
    return (timezone.localdate() - timedelta(days=days_ago)).strftime("%d-%m-%Y")


def _photo(colour):
    out = io.BytesIO()
    Image.new("RGB", (640, 480), colour).save(out, format="JPEG")
    return ContentFile(out.getvalue(), name="photo.jpg")


# The records, made with the services ---------------------------------------------------------


@pytest.fixture
def standing_order(district, tariffs):
    """The District Magistrate's conditions of sale, and the fines and feeding rates."""
    return conditions(district)


@pytest.fixture
def unclaimed(pound, pound_keeper, police_officer, standing_order):
    """A cow and a goat that arrived 20 days ago; reported 11 days ago (one day late), the
    notice posted 9 days ago: claims until 2 days ago, sale from yesterday."""
    entry = unclaimed_entry(
        pound=pound,
        keeper=pound_keeper,
        days_ago=20,
        animals=[cow(ear_tag="UP-TAG-0042", marks="Notch in the left ear"), goat()],
    )
    report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9
    )
    return entry, report, notice


@pytest.fixture
def sale(unclaimed, pound, police_officer):
    entry, _report, _notice = unclaimed
    cow_, goat_ = entry.animals.order_by("number")
    auction = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.UNCLAIMED,
        by=police_officer,
        scheduled_for=timezone.now(),
        lots=[[cow_.pk], [goat_.pk]],
        officer=police_officer,
    )
    bidder = services.register_bidder(auction=auction, by=police_officer, **BUYER)
    return services.sell_lot(
        lot=auction.lots.get(number=1),
        buyer=bidder,
        price=Decimal("40000.00"),
        by=police_officer,
        payment_mode="upi",
        payment_reference="UPI-778899",
        expenses=Decimal("150.00"),
    )


def _s16_case(pound, pound_keeper, police_officer, prices, expenses="100.00"):
    """Two cows and a goat that arrived 3 days ago; the owner refused to pay 2 days ago; lots
    sold in order at `prices` until the dues are covered (or the lots run out)."""
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        animals=[cow(ear_tag="UP-TAG-1001"), cow(colour="Brown"), goat(marks="White blaze")],
        arrived_at=timezone.now() - timedelta(days=3),
    )
    case = services.open_s16_case(
        entry=entry,
        animal_ids=list(entry.animals.values_list("pk", flat=True)),
        by=pound_keeper,
        owner_name="Shyam Lal",
        owner_address="Samesi",
    )
    S16Case.objects.filter(pk=case.pk).update(recorded_at=timezone.now() - timedelta(days=2))
    case.refresh_from_db()
    a1, a2, a3 = entry.animals.order_by("number")
    auction = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.OWNER_REFUSED,
        by=police_officer,
        s16_case=case,
        scheduled_for=timezone.now(),
        lots=[[a1.pk], [a2.pk], [a3.pk]],
        officer=police_officer,
    )
    bidder = services.register_bidder(auction=auction, by=police_officer, **BUYER)
    for lot, price in zip(auction.lots.order_by("sequence"), prices, strict=False):
        case.refresh_from_db()
        if case.status != S16Case.Status.OPEN:
            break
        services.sell_lot(
            lot=lot,
            buyer=bidder,
            price=Decimal(price),
            by=police_officer,
            expenses=Decimal(expenses),
        )
    return case


@pytest.fixture
def s16_open(pound, pound_keeper, police_officer, standing_order):
    return _s16_case(pound, pound_keeper, police_officer, ["30000.00", "30000.00"])


@pytest.fixture
def s16_settled(s16_open, police_officer):
    return services.settle_s16_case(
        case=s16_open,
        by=police_officer,
        acknowledgement="register_page",
        register_page="9",
        balance_mode="upi",
        balance_reference="UPI-4455",
    )


# s.14: the report -------------------------------------------------------------------------


def test_report_names_the_entry_the_cattle_and_the_dates(
    client, pound, pound_keeper, unclaimed, tmp_path
):
    entry, report, _notice = unclaimed
    client.force_login(pound_keeper)
    pdf = _is_pdf(client.get(reverse("auctions:report_pdf", args=[report.pk])))
    _keep("report.pdf", pdf)
    text = _text(pdf, tmp_path)
    assert _has_number(text, report.number)
    assert "Report of unclaimed cattle (s.14)" in text
    assert _has_number(text, entry.register_number)
    assert f"{_d(11)} 12:00 IST" in text  # sent
    assert _d(12) in text and "sent 1 day late" in text  # due on D+8
    assert f"{_d(20)} 12:00 IST" in text  # impounded
    assert "Field near the canal" in text  # the place of seizure
    assert pound.name in text  # the place impounded
    assert "The officer in charge of the police station" in text
    assert pound.nearest_police_station.name in text
    assert "UP-TAG-0042" in text and "Notch in the left ear" in text
    assert "Cattle" in text and "Goat" in text
    assert "not been claimed within seven days" in text
    assert pound_keeper.get_full_name() in text
    assert _verifies(text, report.document)
    _one_a4_page(pdf, tmp_path)
    _all_noto_embedded(pdf, tmp_path)


def test_report_to_an_appointed_officer_names_him(pound, pound_keeper, standing_order, tmp_path):
    appointed = staff(Role.POLICE_OFFICER, "appointed_officer", pound=pound)
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=timezone.now() - timedelta(days=8),
        seizure_village=pound.village_links.get().village,
    )
    report = services.send_report(entry=entry, by=pound_keeper)
    assert report.officer == appointed
    text = _text(documents.report_pdf(report), tmp_path)
    assert appointed.get_full_name() in text
    assert "Officer appointed by the District Magistrate for this pound" in text
    assert "day late" not in text and "days late" not in text  # sent on the day it fell due
    assert f"village {entry.seizure_village.name}" in text


# s.14: the notice poster ---------------------------------------------------------------------


def test_notice_poster_states_a_b_c_and_the_last_day(
    client, pound, police_officer, unclaimed, tmp_path
):
    entry, _report, notice = unclaimed
    client.force_login(police_officer)
    pdf = _is_pdf(client.get(reverse("auctions:notice_pdf", args=[notice.pk])))
    _keep("notice.pdf", pdf)
    text = _text(pdf, tmp_path)
    assert _has_number(text, notice.number)
    assert "NOTICE" in text
    assert "(a) Number and description of the cattle" in text
    assert "(b) Place where they were seized" in text
    assert "(c) Place where they are impounded" in text
    assert "2 animals" in text
    assert "UP-TAG-0042" in text
    # The register's free text (the place typed, the marks) stays off a public wall.
    assert "Notch in the left ear" not in text and "Field near the canal" not in text
    assert pound.name in text
    assert f"Posted on {_d(9)} at Notice board, PS office" in text
    assert _d(2) in text  # the last day to claim
    assert f"public auction on or after {_d(1)}" in text
    assert "an identity document" in text
    assert pound.nearest_police_station.name in text
    assert _verifies(text, notice.document)
    # No owner or seizer on a public wall.
    assert "Shyam Lal" not in text and "Ram Prasad" not in text
    _one_a4_page(pdf, tmp_path)
    _all_noto_embedded(pdf, tmp_path)


def test_notice_poster_gives_the_confirmed_description_never_the_free_text(
    pound, pound_keeper, police_officer, standing_order, tmp_path
):
    """The notice is posted on a public wall: like the board it gives the place of seizure as
    the keeper confirmed it fit to publish, and the village, never what was typed in the
    register, which may name someone."""
    entry = unclaimed_entry(
        pound=pound, keeper=pound_keeper, days_ago=20, animals=[cow(marks="Owner Mohan Lal brand")]
    )
    Impoundment.objects.filter(pk=entry.pk).update(
        seizure_place="Field of Kallu Yadav",
        notice_description="Brown cow with a white star, from the canal fields",
    )
    _report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9
    )
    text = " ".join(_text(documents.notice_pdf(notice), tmp_path).split())

    assert "Brown cow with a white star, from the canal fields" in text
    assert "Kallu Yadav" not in text and "Mohan Lal" not in text
    entry.refresh_from_db()
    if entry.seizure_village:
        assert f"village {entry.seizure_village.name}" in text


def test_notice_poster_without_a_confirmed_description_gives_the_place_the_officer_stated(
    pound, pound_keeper, police_officer, standing_order, tmp_path
):
    """(b) is never left to "ask at the pound": the officer states the place when posting."""
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    Impoundment.objects.filter(pk=entry.pk).update(seizure_village=None)
    _report, notice = report_and_notice(
        entry,
        pound_keeper,
        police_officer,
        sent_days_ago=11,
        posted_days_ago=9,
        seizure_place="Grazing ground by the canal bridge",
    )
    text = " ".join(_text(documents.notice_pdf(notice), tmp_path).split())

    assert "Field near the canal" not in text
    assert "Grazing ground by the canal bridge" in text
    assert "Ask at the pound" not in text


def test_notice_poster_shows_photos_and_skips_a_missing_one(unclaimed, tmp_path):
    entry, _report, notice = unclaimed
    cow_, goat_ = entry.animals.order_by("number")
    cow_.photo.save("cow.jpg", _photo("saddlebrown"))
    goat_.photo.save("goat.jpg", _photo("black"))
    Path(goat_.photo.path).unlink()  # the file is gone: the poster still prints
    pdf = documents.notice_pdf(notice)
    _keep("notice_photos.pdf", pdf)
    assert _images(pdf, tmp_path) == 1  # the cow's; the goat's is skipped
    _one_a4_page(pdf, tmp_path)


@pytest.mark.parametrize("count", [4, 12, 20])
def test_notice_poster_of_many_animals_stays_on_one_page(
    pound, pound_keeper, police_officer, standing_order, tmp_path, count
):
    tags = [f"UP-TAG-{n:03d}" for n in range(1, count + 1)]
    entry = unclaimed_entry(
        pound=pound,
        keeper=pound_keeper,
        days_ago=20,
        animals=[cow(ear_tag=tag, colour="Brown", marks="Short horns") for tag in tags],
    )
    for animal in entry.animals.filter(number__lte=2):
        animal.photo.save("cow.jpg", _photo("grey"))
    _report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9
    )
    pdf = documents.notice_pdf(notice)
    _keep(f"notice_{count}.pdf", pdf)
    text = _text(pdf, tmp_path)
    assert f"{count} animals" in text
    assert all(tag in text for tag in tags)
    assert _d(2) in text  # the last day to claim
    _one_a4_page(pdf, tmp_path)


# The sale certificate ----------------------------------------------------------------------


def test_sale_certificate_states_the_sale_the_price_and_the_declarations(
    client, police_officer, unclaimed, sale, tmp_path
):
    entry, _report, _notice = unclaimed
    client.force_login(police_officer)
    pdf = _is_pdf(client.get(reverse("auctions:sale_certificate_pdf", args=[sale.pk])))
    _keep("sale_certificate.pdf", pdf)
    text = _text(pdf, tmp_path)
    auction = sale.lot.auction
    assert _has_number(text, sale.certificate.number)
    assert _has_number(text, auction.number)
    assert "Unclaimed cattle (s.14)" in text
    assert timezone.localtime(sale.sold_at).strftime("%d-%m-%Y %H:%M") in text
    assert "Cattle market, Mohanlalganj" in text  # the place of sale
    assert _has_number(text, f"{entry.register_number}/1") and "UP-TAG-0042" in text
    assert "Goat" not in text  # lot 1 is the cow alone
    assert "Mohd. Salim, Bakshi ka Talab" in text
    assert "₹40,000.00" in text
    assert "Rupees forty thousand only" in text
    assert "UPI-778899" in text
    assert "DM/Auction/1/2024" in text  # the conditions of sale
    assert "I am not an officer of police or a pound-keeper." in text  # the buyer's, s.19
    assert "I have not, directly or indirectly, purchased any cattle at this sale." in text
    assert police_officer.get_full_name() in text
    assert "under section 14 of the Cattle-Trespass Act" in text
    assert _verifies(text, sale.certificate)
    _one_a4_page(pdf, tmp_path)
    _all_noto_embedded(pdf, tmp_path)


def test_sale_certificate_with_a_full_letterhead_keeps_the_signatures_on_page_one(
    pound, sale, tmp_path
):
    pound.address = "Near the tehsil, Sultanpur Road, Mohanlalganj, Lucknow 226301"
    pound.address_hi = "तहसील के पास, सुल्तानपुर रोड, मोहनलालगंज, लखनऊ 226301"
    pound.phone = "0522-2911234"
    pound.save()
    pdf = documents.sale_certificate_pdf(sale)
    _keep("sale_certificate_letterhead.pdf", pdf)
    pages = readpdf.page_texts(pdf)
    assert len(pages) == 1
    assert "Conducting officer" in pages[0] and "Office seal" in pages[0]
    assert "0522-2911234" in pages[0]


def test_sale_certificate_names_the_deputed_officer(
    pound, police_officer, police_station, unclaimed, tmp_path
):
    entry, _report, _notice = unclaimed
    deputy = staff(Role.POLICE_OFFICER, "deputy_officer", police_station=police_station)
    auction = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.UNCLAIMED,
        by=police_officer,
        scheduled_for=timezone.now(),
        lots=[[entry.animals.get(number=2).pk]],
        officer=police_officer,
        deputy=deputy,
        deputation_order="PS/Dep/7/2026",
    )
    bidder = services.register_bidder(auction=auction, by=deputy, **BUYER)
    sold = services.sell_lot(
        lot=auction.lots.get(), buyer=bidder, price=Decimal("5250.50"), by=deputy
    )
    pdf = documents.sale_certificate_pdf(sold)
    _keep("sale_certificate_deputy.pdf", pdf)
    text = _text(pdf, tmp_path)
    assert deputy.get_full_name() in text and "PS/Dep/7/2026" in text
    assert "₹5,250.50" in text
    assert "Rupees five thousand two hundred and fifty and fifty paise only" in text


# The s.16 account ---------------------------------------------------------------------------


def test_s16_account_has_items_a_to_f_and_the_owners_receipt(
    client, police_officer, s16_settled, tmp_path
):
    case = s16_settled
    assert case.balance > 0 and case.shortfall == 0
    client.force_login(police_officer)
    pdf = _is_pdf(client.get(reverse("auctions:s16_account_pdf", args=[case.pk])))
    _keep("s16_account.pdf", pdf)
    text = _text(pdf, tmp_path)
    assert _has_number(text, case.account_document.number)
    assert "Account to the owner after a sale (s.16)" in text
    assert "Shyam Lal, Samesi" in text
    assert _has_number(text, case.impoundment.register_number)
    rows = _lines(pdf, tmp_path)
    total = case.fines + case.feeding + case.expenses
    assert case.fines + case.feeding + case.expenses + case.balance == Decimal("60000.00")
    assert _row(rows, "(a) Number of cattle seized", "3")
    assert _row(rows, "(b) Time during which they have been impounded", "4 days")
    assert f"Arrived {_d(3)} 12:00 IST" in text  # 3 days ago to today, both counted
    assert _row(rows, "(c) Amount of fines and charges incurred", inr(total))
    assert _row(rows, "Fines (s.12)", inr(case.fines))
    assert _row(rows, "Feeding and watering (s.5)", inr(case.feeding))
    assert _row(rows, "Expenses of the sale", "₹200.00")  # two lots' sale expenses
    assert _row(rows, "(d) Number of cattle sold", "2")
    assert "lot 1" in text and "lot 2" in text and "₹30,000.00" in text  # each lot
    assert _row(rows, "(e) Proceeds of sale", "₹60,000.00")
    assert _row(rows, "(f) Manner in which the proceeds have been disposed of", "₹60,000.00")
    assert _row(rows, "Fines: to the District Magistrate (s.17)", inr(case.fines))
    assert _row(rows, "Feeding and watering: to the pound-keeper (s.17)", inr(case.feeding))
    assert _row(rows, "Balance paid to the owner", inr(case.balance))
    assert amount_in_words(case.balance, "en") in text
    assert "White blaze" in text  # the goat, returned
    assert "the balance in the register, page 9 (s.16)" in text
    assert "UPI-4455" in text
    assert "shortfall" not in text.lower()
    assert _verifies(text, case.account_document)
    _all_noto_embedded(pdf, tmp_path)


def test_s16_account_records_a_shortfall(
    pound, pound_keeper, police_officer, standing_order, tmp_path
):
    case = _s16_case(
        pound, pound_keeper, police_officer, ["1000.00", "1000.00", "500.00"], expenses="50.00"
    )
    case = services.settle_s16_case(
        case=case,
        by=police_officer,
        acknowledgement="signature",
        signature=ContentFile(_png_signature(), name="signature.png"),
    )
    assert case.shortfall > 0 and case.balance == 0
    pdf = documents.s16_account_pdf(case)
    _keep("s16_account_shortfall.pdf", pdf)
    text = _text(pdf, tmp_path)
    rows = _lines(pdf, tmp_path)
    assert _row(rows, "(d) Number of cattle sold", "3")
    assert _row(rows, "(e) Proceeds of sale", "₹2,500.00")
    assert f"fell short of the dues by {inr(case.shortfall)}" in text
    assert "for the District Magistrate to write off" in text
    assert "None: every animal had to be sold." in text
    assert "₹0.00" in text and "Rupees" not in text  # no balance to put in words
    assert "the balance on the screen (s.16)" in text


def _png_signature():
    image = Image.new("RGBA", (600, 200), (0, 0, 0, 0))
    for x in range(50, 550):
        image.putpixel((x, 100 + (x % 40) - 20), (0, 0, 80, 255))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def test_s16_account_before_settlement_is_a_404(client, police_officer, s16_open):
    client.force_login(police_officer)
    response = client.get(reverse("auctions:s16_account_pdf", args=[s16_open.pk]))
    assert response.status_code == 404
    with pytest.raises(documents.NotSettled):
        documents.s16_account_pdf(s16_open)


# Who may download ------------------------------------------------------------------------


@pytest.fixture
def urls(unclaimed, sale, s16_settled):
    _entry, report, notice = unclaimed
    return [
        reverse("auctions:report_pdf", args=[report.pk]),
        reverse("auctions:notice_pdf", args=[notice.pk]),
        reverse("auctions:sale_certificate_pdf", args=[sale.pk]),
        reverse("auctions:s16_account_pdf", args=[s16_settled.pk]),
    ]


def test_outsider_gets_404_for_every_document(client, outsider, urls):
    client.force_login(outsider)
    for url in urls:
        assert client.get(url).status_code == 404, url


def test_anonymous_is_sent_to_login(client, urls):
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login"))


def test_administrator_without_records_is_refused(client, administrator, urls):
    client.force_login(administrator)
    for url in urls:
        assert client.get(url).status_code == 403, url


@pytest.mark.parametrize("role", ["pound_keeper", "police_officer", "magistrate", "auditor"])
def test_staff_of_the_jurisdiction_may_download(client, role_users, urls, role):
    client.force_login(role_users[role])
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.content.startswith(b"%PDF")


def test_unknown_records_are_a_404(client, pound_keeper):
    client.force_login(pound_keeper)
    for name in ("report_pdf", "notice_pdf", "sale_certificate_pdf", "s16_account_pdf"):
        assert client.get(reverse(f"auctions:{name}", args=[999999])).status_code == 404


# The veterinary inspection at intake on the s.16 account (ADR 0071) ----------------------------


@pytest.fixture
def inspecting_pack(district):
    from tests.rulepacks.factories import inspecting

    return inspecting(district, within_hours=24)


def _settle(case, police_officer):
    return services.settle_s16_case(
        case=case, by=police_officer, acknowledgement="register_page", register_page="9"
    )


def test_s16_account_says_the_required_inspection_was_not_recorded(
    inspecting_pack, pound, pound_keeper, police_officer, standing_order, tmp_path
):
    case = _s16_case(pound, pound_keeper, police_officer, ["30000.00", "30000.00"])
    pdf = documents.s16_account_pdf(_settle(case, police_officer))
    _keep("s16_account_inspection_missing.pdf", pdf)
    text = _text(pdf, tmp_path)
    assert "Veterinary inspection at intake" in text
    assert "Not recorded, although the rule pack of this entry requires it." in text


def test_s16_account_gives_the_inspections_date_officer_and_findings(
    inspecting_pack, pound, pound_keeper, police_officer, standing_order, tmp_path
):
    from impounding.models import Finding, Inspection

    case = _s16_case(pound, pound_keeper, police_officer, ["30000.00", "30000.00"])
    entry = case.impoundment
    visit = entry.arrived_at + timedelta(hours=5)
    inspection = Inspection.objects.create(
        impoundment=entry,
        visited_at=visit,
        officer_name="Dr. Anita Verma",
        officer_designation="Veterinary Officer",
        officer_registration="UPSVC-4471",
        recorded_by=pound_keeper,
    )
    for animal, fitness in zip(
        entry.animals.order_by("number"), ["fit", "fit", "treatment"], strict=True
    ):
        Finding.objects.create(
            inspection=inspection, animal=animal, condition="Healthy", fitness=fitness
        )
    pdf = documents.s16_account_pdf(_settle(case, police_officer))
    _keep("s16_account_inspection.pdf", pdf)
    text = _text(pdf, tmp_path)
    when = timezone.localtime(visit).strftime("%d-%m-%Y %H:%M")
    assert (
        f"{when} IST, Dr. Anita Verma, Veterinary Officer (registration no. UPSVC-4471): "
        "2 fit, 1 needing treatment, 0 unfit." in text
    )
    assert "Not recorded" not in text


def test_s16_account_gives_the_magistrates_direction_for_an_unfit_animal(
    inspecting_pack, pound, pound_keeper, police_officer, standing_order, tmp_path
):
    from datetime import date

    from impounding.models import Direction, Finding, Inspection

    case = _s16_case(pound, pound_keeper, police_officer, ["30000.00", "30000.00"])
    entry = case.impoundment
    inspection = Inspection.objects.create(
        impoundment=entry,
        visited_at=entry.arrived_at + timedelta(hours=5),
        officer_name="Dr. Anita Verma",
        officer_designation="Veterinary Officer",
        officer_registration="UPSVC-4471",
        recorded_by=pound_keeper,
    )
    animals = list(entry.animals.order_by("number"))
    for animal, fitness in zip(animals, ["fit", "fit", "unfit"], strict=True):
        Finding.objects.create(
            inspection=inspection, animal=animal, condition="Weak", fitness=fitness
        )
    Direction.objects.create(
        finding=Finding.objects.get(fitness="unfit"),
        place_kind="infirmary",
        place_name="Veterinary infirmary, Mohanlalganj",
        magistrate_name="Smt. R. Sharma",
        order_reference="DM/PCA/2026/41",
        ordered_on=date(2026, 3, 15),
        recorded_by=pound_keeper,
    )
    text = _text(documents.s16_account_pdf(_settle(case, police_officer)), tmp_path)
    assert "2 fit, 0 needing treatment, 1 unfit." in text
    flat = " ".join(text.split())
    assert f"{animals[2].reference}: To be housed at Veterinary infirmary, Mohanlalganj" in flat
    assert "(Infirmary) by the Magistrate's order DM/PCA/" in flat
    assert "of 15-03-2026, Smt. R. Sharma (rule 3(b))." in flat


def test_s16_account_under_the_central_act_has_no_inspection_line(s16_settled, tmp_path):
    text = _text(documents.s16_account_pdf(s16_settled), tmp_path)
    assert "Veterinary inspection" not in text
