import base64
import io
import uuid
from datetime import timedelta
from decimal import Decimal

from django.contrib import admin
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from PIL import Image
from pypdf import PdfReader

from impounding import services
from impounding.models import Animal, AnimalState, CourtOrder, Receipt, Release
from ledger.models import Transaction
from tests.impounding.factories import cow, goat, make_entry, pay
from tests.pdfs import SCAN_PDF


def claim_data(animals, **over):
    data = {
        "animals": [a.pk for a in animals],
        "claimant_name": "Shyam Lal",
        "claimant_address": "Samesi",
        "claimant_role": "owner",
        "payment_mode": "cash",
        "acknowledgement": "register_page",
        "register_page": "14",
    }
    data.update(over)
    return data


def _check_page(client, url, data):
    response = client.post(url, data)
    assert response.status_code == 200
    assert "Check the answers" in response.content.decode()
    confirm = response.context["confirm"]
    return response, {
        **data,
        "idempotency_key": str(confirm.initial["idempotency_key"]),
        "amount": str(confirm.initial["amount"]),
        "confirm": "1",
    }


def test_release_step_one_moves_no_money(client, pound_keeper, pound, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), goat()])
    client.force_login(pound_keeper)
    url = reverse("impounding:release", args=[entry.pk])
    response, _ = _check_page(client, url, claim_data(entry.animals.all()[:1]))
    assert "₹20,500.00" in response.content.decode()
    assert Release.objects.count() == Receipt.objects.count() == Transaction.objects.count() == 0


def test_release_confirm_releases_and_issues_receipt(client, pound_keeper, pound, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), goat()])
    first = entry.animals.get(number=1)
    client.force_login(pound_keeper)
    url = reverse("impounding:release", args=[entry.pk])
    _, data = _check_page(client, url, claim_data([first]))
    response = client.post(url, data)
    assert response.status_code == 302
    first.refresh_from_db()
    assert first.state == AnimalState.RELEASED_PAID
    assert entry.animals.get(number=2).state == AnimalState.IMPOUNDED
    release = Release.objects.get()
    assert release.amount == Decimal("20500.00")
    assert Transaction.objects.count() == 1


def test_double_submitted_confirmation_gives_one_receipt(client, pound_keeper, pound, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:release", args=[entry.pk])
    _, data = _check_page(client, url, claim_data(entry.animals.all()))
    first = client.post(url, data)
    second = client.post(url, data)
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    assert Receipt.objects.count() == 1
    assert Transaction.objects.count() == 1


def test_changed_dues_are_shown_again_not_taken(client, pound_keeper, pound, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:release", args=[entry.pk])
    _, data = _check_page(client, url, claim_data(entry.animals.all()))
    data["amount"] = "100.00"  # what the page showed yesterday, say
    response = client.post(url, data)
    assert response.status_code == 200
    assert "The dues are now" in response.content.decode()
    assert Release.objects.count() == 0


def test_agent_without_authority_error_beside_field(client, pound_keeper, pound, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:release", args=[entry.pk])
    response = client.post(
        url, claim_data(entry.animals.all(), claimant_role="agent", owner_name="Shyam")
    )
    assert response.context["form"].errors["agent_authority"]
    assert Release.objects.count() == 0


def test_signature_drawn_on_screen_is_stored(
    client, pound_keeper, pound, tariffs, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:release", args=[entry.pk])
    _, data = _check_page(
        client, url, claim_data(entry.animals.all(), acknowledgement="signature", register_page="")
    )
    buf = io.BytesIO()
    Image.new("RGB", (60, 20), "white").save(buf, format="PNG")
    data["signature_data"] = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    assert client.post(url, data).status_code == 302
    release = Release.objects.get()
    assert release.signature.name.endswith(".png")
    # Printed on the receipt, above the claimant's name.
    response = client.get(reverse("impounding:receipt_pdf", args=[release.receipt_id]))
    pdf = b"".join(response.streaming_content) if response.streaming else response.content
    reader = PdfReader(io.BytesIO(pdf))
    assert any(page.images for page in reader.pages)
    assert "Claimant: Shyam Lal" in reader.pages[0].extract_text()


def test_signature_missing_is_refused(client, pound_keeper, pound, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:release", args=[entry.pk])
    _, data = _check_page(
        client, url, claim_data(entry.animals.all(), acknowledgement="signature", register_page="")
    )
    response = client.post(url, data)
    assert response.status_code == 200
    assert Release.objects.count() == 0
    # Back to the signature on the check page, not to page 1 (ADR 0030).
    assert response.templates[0].name == "impounding/release_check.html"
    assert response.context["confirm"].errors["signature_data"] == [
        "The claimant must sign on the screen."
    ]
    assert 'id="signature-pad"' in response.content.decode()


def test_deposit_without_its_signature_stays_on_the_signature_step(
    client, pound_keeper, pound, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:deposit", args=[entry.pk])
    _, data = _check_page(
        client,
        url,
        claim_data(
            entry.animals.all(),
            acknowledgement="signature",
            register_page="",
            ground="Seized from my own land",
        ),
    )

    response = client.post(url, data)

    assert response.templates[0].name == "impounding/release_check.html"
    assert "The claimant must sign on the screen." in response.content.decode()
    assert Release.objects.count() == 0


def test_deposit_flow_requires_ground_and_holds_money(client, pound_keeper, pound, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:deposit", args=[entry.pk])
    response = client.post(url, claim_data(entry.animals.all()))
    assert response.context["form"].errors["ground"]
    _, data = _check_page(
        client, url, claim_data(entry.animals.all(), ground="Seized from my own land")
    )
    assert client.post(url, data).status_code == 302
    release = Release.objects.get()
    assert release.kind == Release.Kind.DEPOSIT
    assert release.deposit.status == "held"


def test_release_of_other_district_is_404(client, outsider, pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(outsider)
    assert client.get(reverse("impounding:release", args=[entry.pk])).status_code == 404


def test_release_forbidden_to_auditor(client, auditor, pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(auditor)
    assert client.get(reverse("impounding:release", args=[entry.pk])).status_code == 403


def test_get_changes_nothing(client, pound_keeper, pound, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    client.get(reverse("impounding:release", args=[entry.pk]))
    assert entry.animals.get().state == AnimalState.IMPOUNDED


def pdf_scan():
    return SimpleUploadedFile("order.pdf", SCAN_PDF, content_type="application/pdf")


def test_court_order_recorded_with_its_scan_waits_for_its_check(
    client, pound_keeper, pound, tariffs, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:court_order", args=[entry.pk])
    response = client.post(
        url,
        {
            "animals": [entry.animals.get().pk],
            "kind": "civil",
            "court": "Civil Judge, Mohanlalganj",
            "case_number": "OS 12/2026",
            "order_date": "2026-11-01",
            "scan": pdf_scan(),
            "order_text": "The cow be released to its owner.",
            "dues_payable_by": "The seizer",
            "idempotency_key": str(uuid.uuid4()),
        },
    )
    assert response.status_code == 302
    # Recorded, not released: the animal waits for the office's check (s.19).
    assert entry.animals.get().state == AnimalState.IMPOUNDED
    order = CourtOrder.objects.get()
    assert order.status == CourtOrder.Status.AWAITING
    page = client.get(response.url).content.decode()
    assert "Court-order release awaiting its check" in page


def test_court_order_text_file_refused_beside_field(client, pound_keeper, pound, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:court_order", args=[entry.pk])
    fake = SimpleUploadedFile("order.pdf", b"just text", content_type="application/pdf")
    response = client.post(
        url,
        {
            "animals": [entry.animals.get().pk],
            "kind": "civil",
            "court": "Civil Judge",
            "case_number": "OS 12/2026",
            "order_date": "2026-11-01",
            "scan": fake,
        },
    )
    assert "PDF, JPEG or PNG" in str(response.context["form"].errors["scan"])
    assert entry.animals.get().state == AnimalState.IMPOUNDED


def test_court_order_pdf_with_javascript_refused_beside_field(client, pound_keeper, pound, tariffs):
    from tests.kernel.test_upload_safety import ACTIVE

    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:court_order", args=[entry.pk])
    scripted = SimpleUploadedFile("order.pdf", ACTIVE["open_action_js"](), "application/pdf")
    response = client.post(
        url,
        {
            "animals": [entry.animals.get().pk],
            "kind": "civil",
            "court": "Civil Judge",
            "case_number": "OS 12/2026",
            "order_date": "2026-11-01",
            "scan": scripted,
        },
    )
    (message,) = response.context["form"].errors["scan"]
    assert message.startswith("The PDF holds scripts, actions or attached files")
    assert entry.animals.get().state == AnimalState.IMPOUNDED


def test_no_other_release_path_in_admin(admin_client, pound_keeper, pound, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    model_admin = admin.site._registry.get(Animal)
    if model_admin is not None:
        assert not model_admin.has_change_permission(None, entry.animals.get())
    assert services  # the services are the only writers of animal state


def test_calf_whose_dam_died_can_be_released_alone(pound_keeper, pound, tariffs):
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        animals=[cow(), goat()],
        arrived_at=timezone.now() - timedelta(days=3),
    )
    dam = entry.animals.get(number=1)
    calf = services.record_birth(
        dam=dam,
        by=pound_keeper,
        at=timezone.now() - timedelta(days=2),
        sex="female",
        colour="White",
    )
    services.record_death(
        animal=dam, by=pound_keeper, at=timezone.now() - timedelta(days=1), cause="Milk fever"
    )
    # The calf now goes with the goat's owner's claim, or on its own.
    release = pay(entry, pound_keeper, [entry.animals.get(number=2), calf])
    calf.refresh_from_db()
    assert calf.state == AnimalState.RELEASED_PAID
    assert release.lines.get(animal=calf).fine == Decimal("0.00")
