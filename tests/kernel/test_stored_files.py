"""Stored files are served only through views that check the record's permissions: the right
role gets the file, another district, another role and anonymous visitors a 404. On S3 the view
redirects to a short-lived presigned URL, tested against moto's S3 server over real HTTP."""

import io
import socket
import urllib.request
from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from accounts.roles import Role
from auctions import services as auctions
from impounding import services as impounding
from impounding.models import CourtOrder
from tests.accounts.factories import staff
from tests.auctions.factories import report_and_notice, unclaimed_entry
from tests.impounding.factories import cow, make_entry, pay
from tests.pdfs import SCAN_PDF

PDF = SCAN_PDF


def jpeg(size=(64, 48), colour="red"):
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="JPEG")
    return out.getvalue()


def png_signature():
    out = io.BytesIO()
    Image.new("RGBA", (300, 100), (0, 0, 0, 0)).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def files(pound, pound_keeper, police_officer, tariffs):
    """One of each kind of stored file, in the home district."""
    photo = SimpleUploadedFile("IMG_0001.jpg", jpeg(), content_type="image/jpeg")
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(photo=photo), cow()])
    first, second = entry.animals.order_by("number")
    release = pay(
        entry,
        pound_keeper,
        [second],
        acknowledgement="signature",
        register_page="",
        signature=ContentFile(png_signature(), name="signature.png"),
    )
    order_entry = make_entry(pound=pound, by=pound_keeper)
    order = impounding.record_court_order(
        entry=order_entry,
        animal_ids=[order_entry.animals.get().pk],
        by=pound_keeper,
        kind=CourtOrder.Kind.CIVIL_COURT,
        court="Civil Judge (Junior Division)",
        case_number="OS 12/2026",
        order_date=timezone.localdate(),
        scan=SimpleUploadedFile("order.pdf", PDF),
    )
    return {
        "animal": first,
        "photo": reverse("impounding:animal_photo", args=[first.pk]),
        "signature": reverse("impounding:release_signature", args=[release.pk]),
        "scan": reverse("impounding:court_order_scan", args=[order.pk]),
    }


@pytest.fixture
def outsiders(other_pound, other_district, administrator):
    return {
        "other_keeper": staff(Role.POUND_KEEPER, "other_keeper", pound=other_pound),
        "other_clerk": staff(Role.DM_CLERK, "other_clerk", district=other_district),
        # The administrator keeps the staff list and reads no register.
        "administrator": administrator,
    }


def body(response):
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.parametrize("kind", ["photo", "signature", "scan"])
@pytest.mark.parametrize("reader", ["pound_keeper", "dm_clerk", "magistrate", "auditor"])
def test_the_right_roles_of_the_district_get_the_file(client, files, role_users, kind, reader):
    client.force_login(role_users[reader])

    response = client.get(files[kind])

    assert response.status_code == 200
    data = body(response)
    expected = {"photo": "image/jpeg", "signature": "image/png", "scan": "application/pdf"}
    assert response["Content-Type"] == expected[kind]
    # The file view's own header, which the signed-in pages' no-store middleware extends.
    assert {"private", "no-store"} <= {v.strip() for v in response["Cache-Control"].split(",")}
    assert response["X-Content-Type-Options"] == "nosniff"
    assert data.startswith({"photo": b"\xff\xd8", "signature": b"\x89PNG", "scan": b"%PDF"}[kind])


@pytest.mark.parametrize("kind", ["photo", "signature", "scan"])
@pytest.mark.parametrize("outsider", ["other_keeper", "other_clerk", "administrator", None])
def test_another_district_another_role_and_anonymous_get_404(
    client, files, outsiders, kind, outsider
):
    if outsider:
        client.force_login(outsiders[outsider])

    response = client.get(files[kind])

    assert response.status_code == 404


def test_no_upload_is_reachable_under_media_url(client, files, role_users, settings):
    client.force_login(role_users["pound_keeper"])
    name = files["animal"].photo.name

    assert client.get(f"{settings.MEDIA_URL}{name}").status_code == 404


def test_stored_names_are_random_and_typed_by_content(files):
    animal = files["animal"]
    assert animal.photo.name.startswith(f"animals/{timezone.now():%Y/%m}/")
    assert animal.photo.name.endswith(".jpg") and "IMG_0001" not in animal.photo.name


def test_the_board_shows_only_photos_of_animals_under_notice(
    client, pound, pound_keeper, police_officer, tariffs
):
    photo = SimpleUploadedFile("cow.jpg", jpeg(), content_type="image/jpeg")
    listed = unclaimed_entry(pound=pound, keeper=pound_keeper, animals=[cow(photo=photo)])
    report_and_notice(listed, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=2)
    other = SimpleUploadedFile("cow.jpg", jpeg(), content_type="image/jpeg")
    unlisted = make_entry(pound=pound, by=pound_keeper, animals=[cow(photo=other)])

    on_board = client.get(reverse("auctions:board_photo", args=[listed.animals.get().pk]))
    off_board = client.get(reverse("auctions:board_photo", args=[unlisted.animals.get().pk]))

    assert on_board.status_code == 200 and body(on_board).startswith(b"\xff\xd8")
    assert off_board.status_code == 404
    page = client.get(reverse("board")).content.decode()
    assert reverse("auctions:board_photo", args=[listed.animals.get().pk]) in page


def test_a_proclamation_photo_is_for_the_district_only(
    client, pound, pound_keeper, police_officer, tariffs, outsiders, role_users
):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper)
    _, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=2
    )
    proclamation = auctions.record_proclamation(
        notice=notice,
        by=police_officer,
        channel="drum_village",
        made_on=timezone.localdate() - timedelta(days=1),
        made_by="Chowkidar",
        place="Samesi",
        photo=SimpleUploadedFile("photo.jpg", jpeg(), content_type="image/jpeg"),
    )
    url = reverse("auctions:proclamation_photo", args=[proclamation.pk])

    assert client.get(url).status_code == 404
    client.force_login(outsiders["other_clerk"])
    assert client.get(url).status_code == 404
    client.force_login(police_officer)
    response = client.get(url)
    assert response.status_code == 200 and body(response).startswith(b"\xff\xd8")


# --- S3, against a real S3 HTTP endpoint (moto's server) ------------------------------------


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def s3_endpoint():
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture
def s3(settings, s3_endpoint, monkeypatch):
    import boto3

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    bucket = f"poundadmin-{free_port()}"
    client = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")
    client.create_bucket(Bucket=bucket)
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": bucket,
                "endpoint_url": s3_endpoint,
                "region_name": "us-east-1",
                "access_key": "testing",
                "secret_key": "testing",
                "default_acl": None,
                "querystring_auth": True,
                "querystring_expire": 60,
                "file_overwrite": False,
                "addressing_style": "path",
                "signature_version": "s3v4",
            },
        },
    }
    return client, bucket


def test_on_s3_the_view_redirects_to_a_short_lived_presigned_url(
    s3, client, files, role_users, outsiders
):
    s3_client, bucket = s3
    keys = {o["Key"] for o in s3_client.list_objects_v2(Bucket=bucket)["Contents"]}
    assert files["animal"].photo.name in keys and len(keys) == 3

    client.force_login(role_users["dm_clerk"])
    response = client.get(files["scan"])

    assert response.status_code == 302
    location = response["Location"]
    assert "X-Amz-Signature=" in location and "X-Amz-Expires=60" in location
    with urllib.request.urlopen(location, timeout=10) as fetched:
        assert fetched.read() == PDF
        assert fetched.headers["Content-Type"] == "application/pdf"
    # The object itself is not public: without the signature the store refuses it.
    bare = location.split("?", 1)[0]
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(bare, timeout=10)
    assert refused.value.code == 403
    client.force_login(outsiders["other_clerk"])
    assert client.get(files["scan"]).status_code == 404


def test_a_court_order_scan_from_a_phone_is_stored_without_its_exif_data(
    pound, pound_keeper, tariffs
):
    from tests.kernel.test_upload_safety import exif_jpeg, has_metadata

    entry = make_entry(pound=pound, by=pound_keeper)
    order = impounding.record_court_order(
        entry=entry,
        animal_ids=[entry.animals.get().pk],
        by=pound_keeper,
        kind=CourtOrder.Kind.CIVIL_COURT,
        court="Civil Judge (Junior Division)",
        case_number="OS 13/2026",
        order_date=timezone.localdate(),
        scan=SimpleUploadedFile("order.jpg", exif_jpeg()),
    )

    with order.scan.open("rb") as stored:
        data = stored.read()
    assert order.scan.name.endswith(".jpg") and data.startswith(b"\xff\xd8")
    assert not has_metadata(data) and b"PhoneMaker" not in data


def test_on_s3_held_files_are_swept_a_day_after_they_were_held(s3):
    from django.core.files.storage import default_storage

    from kernel import held_uploads

    default_storage.save("held/abandoned.jpg", ContentFile(b"x"))
    default_storage.save("animals/kept.jpg", ContentFile(b"x"))

    assert held_uploads.sweep() == 0
    assert held_uploads.sweep(now=timezone.now() + timedelta(days=1, minutes=1)) == 1

    assert not default_storage.exists("held/abandoned.jpg")
    assert default_storage.exists("animals/kept.jpg")
