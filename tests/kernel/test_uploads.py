"""Uploads: the type comes from the content, markup is refused, pixel bombs are refused before
they are decoded, photos and signatures are written again, and stored names are random."""

import io
import struct
import tracemalloc
import zlib

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from kernel.uploads import (
    MAX_IMAGE_PIXELS,
    UploadName,
    detect_type,
    reencode_image,
    validate_order_scan,
)
from tests.pdfs import SCAN_PDF

PDF = SCAN_PDF


def image_bytes(fmt="JPEG", size=(40, 30), mode="RGB", **save):
    out = io.BytesIO()
    Image.new(mode, size, "white").save(out, format=fmt, **save)
    return out.getvalue()


def png_header_only(width, height):
    """A PNG that claims width x height pixels in a few dozen bytes: a 'pixel bomb'."""

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b""))
        + chunk(b"IEND", b"")
    )


def upload(content, name="file.bin"):
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


@pytest.mark.parametrize(
    ("content", "ext"),
    [(PDF, "pdf"), (image_bytes("JPEG"), "jpg"), (image_bytes("PNG"), "png")],
)
def test_the_type_is_read_from_the_content_not_the_name(content, ext):
    assert detect_type(upload(content, "holiday.exe")) == ext


@pytest.mark.parametrize(
    "content",
    [
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>',
        b"<!DOCTYPE html><html><body>order</body></html>",
        b"%PDF-1.4 <html><script>alert(1)</script>",
        b"\x89PNG\r\n\x1a\n<svg onload=alert(1)>",
    ],
)
def test_svg_and_html_are_refused_as_scans_and_as_photos(content):
    with pytest.raises(ValidationError):
        validate_order_scan(upload(content, "order.pdf"))
    with pytest.raises(ValidationError):
        reencode_image(upload(content, "photo.jpg"), field="photo", max_px=1280)


def test_a_scan_named_pdf_that_is_not_one_is_refused():
    with pytest.raises(ValidationError) as caught:
        validate_order_scan(upload(b"MZ\x90\x00" + b"\x00" * 100, "order.pdf"))
    assert caught.value.message_dict == {"scan": ["The scan must be a PDF, JPEG or PNG file."]}


@pytest.mark.parametrize(
    "pixels",
    [
        (8000, 7000),  # 56 MP: over the limit, under Pillow's own refusal at twice it
        (100_000, 100_000),  # 10,000 MP: Pillow refuses it on open
    ],
)
def test_a_pixel_bomb_is_refused_before_decoding_within_a_small_memory_bound(pixels):
    bomb = png_header_only(*pixels)
    assert len(bomb) < 100 and pixels[0] * pixels[1] > MAX_IMAGE_PIXELS
    assert Image.MAX_IMAGE_PIXELS == MAX_IMAGE_PIXELS

    tracemalloc.start()
    try:
        with pytest.raises(ValidationError) as photo:
            reencode_image(upload(bomb, "cow.png"), field="photo", max_px=1280)
        with pytest.raises(ValidationError) as scan:
            validate_order_scan(upload(bomb, "order.png"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert "too many pixels" in photo.value.message_dict["photo"][0]
    assert "too many pixels" in scan.value.message_dict["scan"][0]
    # Decoding would take gigabytes; the header alone costs next to nothing.
    assert peak < 5 * 1024 * 1024


def test_a_photo_is_written_again_smaller_without_exif():
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # Make
    original = image_bytes("JPEG", size=(3000, 2000), exif=exif.tobytes())

    stored = reencode_image(upload(original, "IMG_0001.HEIC"), field="photo", max_px=1280)

    assert stored.name == "upload.jpg"
    with Image.open(io.BytesIO(stored.read())) as image:
        assert image.format == "JPEG" and max(image.size) == 1280
        assert not image.getexif()


def test_a_signature_is_written_again_as_a_png_keeping_its_transparency():
    drawn = image_bytes("PNG", size=(600, 200), mode="RGBA")
    # Bytes hidden after the image's end are dropped (markup near the start is refused outright).
    trailing = drawn + b"\x00" * 2048 + b"<script>alert(1)</script>"

    stored = reencode_image(upload(trailing), field="signature", max_px=1200, fmt="PNG")

    data = stored.read()
    assert stored.name == "upload.png" and b"<script>" not in data
    with Image.open(io.BytesIO(data)) as image:
        assert (image.format, image.mode, image.size) == ("PNG", "RGBA", (600, 200))


def test_stored_names_are_random_under_the_kind_with_the_detected_extension():
    name = UploadName("proclamations")

    first, second = name(None, "upload.jpg"), name(None, "upload.jpg")

    assert first != second
    assert first.startswith("proclamations/") and first.endswith(".jpg")
    assert len(first.rsplit("/", 1)[1]) == len("0" * 32 + ".jpg")
    # A client's name never supplies an extension the type check did not give.
    assert name(None, "photo.html").endswith(".bin")
    assert name(None, "order.svg").endswith(".bin")
