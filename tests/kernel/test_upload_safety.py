"""What an upload keeps and how it is served: scans lose their EXIF data, a PDF with active content
is refused, a PDF is always downloaded, never shown inline, a held photo is written again like a
kept one and swept a day later, and a photo's refusal names its problem."""

import io
import os
import time
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, InMemoryStorage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from PIL import Image
from pypdf import PdfWriter
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    NameObject,
    TextStringObject,
)

from kernel import held_uploads
from kernel.files import serve_stored
from kernel.forms import PhotoField
from kernel.uploads import MAX_PHOTO_BYTES, clean_scan, reencode_image, validate_order_scan

from .test_uploads import png_header_only

GPS_IFD = 0x8825
MAKE = 0x010F


def exif_jpeg(size=(400, 300), orientation=None):
    """A phone's JPEG: its make and a GPS position in the EXIF data."""
    exif = Image.Exif()
    exif[MAKE] = "PhoneMaker"
    exif.get_ifd(GPS_IFD).update({1: "N", 2: (26.0, 55.0, 12.0), 3: "E", 4: (81.0, 12.0, 3.0)})
    if orientation:
        exif[0x0112] = orientation
    out = io.BytesIO()
    Image.new("RGB", size, "white").save(out, format="JPEG", exif=exif.tobytes())
    return out.getvalue()


def exif_png():
    exif = Image.Exif()
    exif[MAKE] = "ScannerMaker"
    exif.get_ifd(GPS_IFD).update({1: "N", 2: (26.0, 55.0, 12.0)})
    out = io.BytesIO()
    Image.new("L", (300, 400), 255).save(out, format="PNG", exif=exif.tobytes())
    return out.getvalue()


def has_metadata(data):
    with Image.open(io.BytesIO(data)) as image:
        exif = image.getexif()
        return bool(exif) or bool(exif.get_ifd(GPS_IFD)) or "exif" in image.info


def upload(content, name="file.bin"):
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


# --- Scans lose their EXIF data -----------------------------------------------------------------


@pytest.mark.parametrize(("content", "ext"), [(exif_jpeg(), "jpg"), (exif_png(), "png")])
def test_a_scan_image_is_stored_without_its_exif_data(content, ext):
    assert has_metadata(content)

    stored = clean_scan(upload(content, "order.jpg"))

    data = stored.read()
    assert stored.name == f"upload.{ext}"
    assert not has_metadata(data)
    assert b"PhoneMaker" not in data and b"ScannerMaker" not in data


def test_a_scan_keeps_its_resolution_and_is_turned_upright():
    stored = clean_scan(upload(exif_jpeg(size=(400, 300), orientation=6), "order.jpg"))

    with Image.open(io.BytesIO(stored.read())) as image:
        assert image.size == (300, 400)  # turned as the phone said, at full resolution


# --- PDFs: no active content ----------------------------------------------------------------


def pdf_with(**catalog):
    """A one-page PDF whose catalog carries the given entries."""
    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    for key, value in catalog.items():
        writer._root_object[NameObject(f"/{key}")] = value
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def js_action():
    return DictionaryObject(
        {
            NameObject("/S"): NameObject("/JavaScript"),
            NameObject("/JS"): TextStringObject("app.alert(1)"),
        }
    )


def plain_pdf():
    return pdf_with()


ACTIVE = {
    "open_action_js": lambda: pdf_with(OpenAction=js_action()),
    "additional_actions": lambda: pdf_with(AA=DictionaryObject({NameObject("/O"): js_action()})),
    "launch": lambda: pdf_with(
        OpenAction=DictionaryObject(
            {
                NameObject("/S"): NameObject("/Launch"),
                NameObject("/F"): TextStringObject("cmd.exe"),
            }
        )
    ),
    "embedded_file": lambda: pdf_with(
        Names=DictionaryObject({NameObject("/EmbeddedFiles"): DictionaryObject()})
    ),
    "rich_media": lambda: pdf_with(
        Extra=ArrayObject([DictionaryObject({NameObject("/Subtype"): NameObject("/RichMedia")})])
    ),
    "document_javascript": lambda: _with_document_js(),
    "escaped_name": lambda: plain_pdf().replace(
        b"/Type /Catalog", b"/Type /Catalog /Open#41ction << /S /J#61vaScript /JS (x) >>"
    ),
}


def _with_document_js():
    """A script run when the document opens, in the catalog's /Names tree."""
    tree = DictionaryObject(
        {NameObject("/Names"): ArrayObject([TextStringObject("x"), js_action()])}
    )
    return pdf_with(Names=DictionaryObject({NameObject("/JavaScript"): tree}))


def test_a_plain_pdf_scan_is_accepted_and_kept_as_sent():
    content = plain_pdf()

    assert validate_order_scan(upload(content, "order.pdf")) == "pdf"
    assert clean_scan(upload(content, "order.pdf")).read() == content


@pytest.mark.parametrize("kind", sorted(ACTIVE))
def test_a_pdf_with_active_content_is_refused_with_a_message_beside_the_field(kind):
    content = ACTIVE[kind]()
    assert content.startswith(b"%PDF")

    with pytest.raises(ValidationError) as caught:
        validate_order_scan(upload(content, "order.pdf"), field="proof_scan")

    (message,) = caught.value.message_dict["proof_scan"]
    assert message.startswith("The PDF holds scripts, actions or attached files")


def test_a_pdf_that_cannot_be_read_is_refused():
    with pytest.raises(ValidationError) as caught:
        validate_order_scan(upload(b"%PDF-1.7\n" + b"\x00garbage" * 50, "order.pdf"))

    assert "cannot be read" in caught.value.message_dict["scan"][0]


# --- Serving: a PDF is a download, never inline ----------------------------------------------


class Stored:
    """Enough of a FieldFile for serve_stored."""

    def __init__(self, storage, name):
        self.storage, self.name = storage, name

    def __bool__(self):
        return True

    def open(self, mode="rb"):
        return self.storage.open(self.name, mode)


def test_a_stored_pdf_is_served_as_an_attachment_with_nosniff(tmp_path):
    storage = FileSystemStorage(location=tmp_path)
    name = storage.save("orders/x.pdf", ContentFile(plain_pdf()))

    response = serve_stored(Stored(storage, name), download_name="court-order-1")

    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["X-Content-Type-Options"] == "nosniff"
    response.close()


def test_a_stored_photo_is_still_shown_inline_with_nosniff(tmp_path):
    storage = FileSystemStorage(location=tmp_path)
    name = storage.save("animals/x.jpg", ContentFile(exif_jpeg()))

    response = serve_stored(Stored(storage, name), download_name="animal-1")

    assert response["Content-Disposition"].startswith("inline;")
    assert response["X-Content-Type-Options"] == "nosniff"
    response.close()


def test_on_the_object_store_a_pdf_is_presigned_as_an_attachment(settings):
    settings.UPLOAD_URL_SECONDS = 60
    asked = {}

    def url(name, parameters, expire):
        asked.update(parameters)
        return "https://store.invalid/signed"

    storage = SimpleNamespace(bucket_name="files", url=url)

    serve_stored(Stored(storage, "orders/x.pdf"), download_name="court-order-1")

    assert asked["ResponseContentDisposition"].startswith("attachment;")


# --- Held photos: written again, swept a day later ---------------------------------------------


def test_a_held_photo_is_stored_without_its_exif_data(pound_keeper, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    photo = upload(exif_jpeg(), "IMG_0001.jpg")

    token = held_uploads.hold(photo, pound_keeper, max_px=1280)

    (held,) = (tmp_path / "held").iterdir()
    assert not has_metadata(held.read_bytes())
    assert b"PhoneMaker" not in held.read_bytes()
    assert held_uploads.take(token, pound_keeper).name == "IMG_0001.jpg"


def test_held_files_older_than_a_day_are_swept_on_the_filesystem(tmp_path):
    storage = FileSystemStorage(location=tmp_path)
    old = storage.save("held/old.jpg", ContentFile(b"x"))
    fresh = storage.save("held/fresh.jpg", ContentFile(b"x"))
    kept_elsewhere = storage.save("animals/2026/01/a.jpg", ContentFile(b"x"))
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(tmp_path / old, (two_days_ago, two_days_ago))

    assert held_uploads.sweep(storage=storage) == 1

    assert not storage.exists(old)
    assert storage.exists(fresh) and storage.exists(kept_elsewhere)


def test_held_files_are_swept_through_the_storage_api_alone():
    """InMemoryStorage has no path: only listdir, get_modified_time and delete, as on S3."""
    storage = InMemoryStorage()
    storage.save("held/abandoned.jpg", ContentFile(b"x"))

    assert held_uploads.sweep(storage=storage) == 0  # not a day old yet
    assert held_uploads.sweep(now=timezone.now() + timedelta(days=1, minutes=1), storage=storage)
    assert storage.listdir("held") == ([], [])


def test_sweeping_an_empty_store_finds_nothing():
    assert held_uploads.sweep(storage=InMemoryStorage()) == 0


# --- A photo's refusal names its problem ----------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (png_header_only(8000, 7000), "too many pixels"),  # 56 MP: Pillow only warns
        (png_header_only(100_000, 100_000), "too many pixels"),  # Pillow refuses it on open
        (png_header_only(7071, 7071), "too many pixels"),  # 50 MP, but too big to decode
        (b"GIF89a" + b"\x00" * 20, "not a photo"),
        (b"%PDF-1.4 hello", "not a photo"),
    ],
)
def test_the_photo_field_names_the_real_problem(content, expected):
    with pytest.raises(ValidationError) as caught:
        PhotoField().clean(upload(content, "cow.jpg"))

    assert expected in caught.value.messages[0]


def test_a_photo_over_12_mb_is_called_too_large():
    big = upload(exif_jpeg() + b"\x00" * MAX_PHOTO_BYTES, "cow.jpg")

    with pytest.raises(ValidationError) as caught:
        PhotoField().clean(big)

    assert caught.value.messages == ["The photo is larger than 12 MB."]


def test_a_sound_photo_passes_the_field():
    photo = upload(exif_jpeg(), "cow.jpg")

    assert PhotoField().clean(photo) is photo


def test_a_phones_multi_picture_jpeg_is_decoded_reduced_like_any_jpeg():
    """Many phones write MPO (a JPEG with a second picture): 12 megapixels are accepted."""
    out = io.BytesIO()
    extra = Image.new("RGB", (400, 300), "black")
    Image.new("RGB", (4000, 3000), "white").save(
        out, format="MPO", save_all=True, append_images=[extra]
    )

    stored = reencode_image(upload(out.getvalue(), "IMG_0002.jpg"), field="photo", max_px=1280)

    with Image.open(io.BytesIO(stored.read())) as image:
        assert image.size == (1280, 960)


def test_a_small_photo_whose_pixels_are_broken_is_refused_not_an_error():
    """A sound header over a body that fails to decode: refused, not a server error."""
    broken = png_header_only(300, 200).replace(b"IDAT", b"IDAT\x00\xff\x13garbage", 1)

    with pytest.raises(ValidationError) as caught:
        reencode_image(upload(broken, "cow.png"), field="photo", max_px=1280)

    assert caught.value.message_dict == {"photo": ["That file is not a photo we can read."]}


def test_the_animal_forms_photo_names_too_many_pixels():
    """The register's form uses PhotoField: Django's ImageField said "not an image" here."""
    from impounding.forms.register import AnimalForm

    form = AnimalForm(data={}, files={"photo": upload(png_header_only(100_000, 100_000), "c.png")})

    assert "too many pixels" in form.errors["photo"][0]
