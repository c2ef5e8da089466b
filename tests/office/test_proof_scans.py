"""A claimant's proof scan: an image is stored without its EXIF data, a PDF with active content
is refused beside the field."""

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from office.models import SurplusClaim
from tests.kernel.test_upload_safety import ACTIVE, exif_jpeg, has_metadata
from tests.office.test_views_money import claim_data, errors, held, surplus  # noqa: F401 (fixtures)


def test_a_proof_scan_photographed_on_a_phone_is_stored_without_its_exif_data(
    client,
    dm_clerk,
    held,  # noqa: F811
):
    client.force_login(dm_clerk)
    scan = SimpleUploadedFile("tag.jpg", exif_jpeg(), content_type="image/jpeg")

    response = client.post(
        reverse("office:claim_new", kwargs={"pk": held.pk}), claim_data(proof_scan=scan)
    )

    assert response.status_code == 302
    with SurplusClaim.objects.get().proof_scan.open("rb") as stored:
        data = stored.read()
    assert not has_metadata(data) and b"PhoneMaker" not in data


def test_a_proof_pdf_with_javascript_is_refused_beside_the_field(
    client,
    dm_clerk,
    held,  # noqa: F811
):
    client.force_login(dm_clerk)
    scan = SimpleUploadedFile("tag.pdf", ACTIVE["document_javascript"](), "application/pdf")

    response = client.post(
        reverse("office:claim_new", kwargs={"pk": held.pk}), claim_data(proof_scan=scan)
    )

    assert response.status_code == 200
    assert errors(response, "proof_scan")[0].startswith("The PDF holds scripts")
    assert not SurplusClaim.objects.exists()
