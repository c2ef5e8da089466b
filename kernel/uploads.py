"""Uploaded files: the type is read from the content (filetype), never from the client's name.

Photos and drawn signatures are decoded and written again (re-encoded), which drops EXIF data and
anything hidden after the image; scans are kept as sent, once their type and size are checked.
Every stored name is random (`UploadName`): a UUID under a per-kind prefix, with the extension of
the detected type. SVG and HTML are refused outright: a browser would run their scripts.
"""

import io
import uuid
import warnings

import filetype
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.utils import timezone
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext as _
from PIL import Image, ImageOps

MAX_SCAN_BYTES = 5 * 1024 * 1024
SIGNATURE_MAX_PX = 1200
# A phone photo is 12-50 megapixels; a decoded RGBA image costs 4 bytes a pixel. Pillow refuses
# an image over twice this limit on open, and `check_pixels` refuses anything over it before a
# single pixel is decoded, so a 1 KB "pixel bomb" never costs more than this bound in memory.
MAX_IMAGE_PIXELS = 50_000_000
Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS

SCAN_TYPES = {"pdf", "jpg", "png"}
PHOTO_TYPES = {"jpg", "png", "webp", "gif", "bmp", "tif"}
# What is stored: uploads of these types, and the files the system makes (PDFs, CSV exports).
STORED_EXTENSIONS = {"pdf", "jpg", "png", "csv"}
CONTENT_TYPES = {
    "pdf": "application/pdf",
    "jpg": "image/jpeg",
    "png": "image/png",
    "csv": "text/csv; charset=utf-8",
}
_MARKUP = (b"<svg", b"<?xml", b"<!doctype", b"<html", b"<script", b"<body", b"<head")


@deconstructible
class UploadName:
    """upload_to: `<prefix>/<yyyy>/<mm>/<uuid>.<ext>`, `ext` from the name the service gives
    (`stored_name`), which carries the detected type. Anything else is stored as `.bin`."""

    def __init__(self, prefix):
        self.prefix = prefix

    def __call__(self, instance, filename):
        ext = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
        ext = ext if ext in STORED_EXTENSIONS else "bin"
        return f"{self.prefix}/{timezone.now():%Y/%m}/{uuid.uuid4().hex}.{ext}"

    def __eq__(self, other):
        return isinstance(other, UploadName) and other.prefix == self.prefix

    def __hash__(self):
        return hash(self.prefix)


def stored_name(ext):
    """The name to hand to `FieldFile.save`: only its extension survives (`UploadName`)."""
    return f"upload.{ext}"


def _head(upload, size=8192):
    upload.seek(0)
    head = upload.read(size)
    upload.seek(0)
    return head


def detect_type(upload):
    """The extension of the upload's real type ("pdf", "jpg", ...), or None. Markup (SVG, HTML,
    XML) is None whatever else it looks like."""
    head = _head(upload)
    if any(tag in head[:1024].lower() for tag in _MARKUP):
        return None
    kind = filetype.guess(head)
    return kind.extension if kind else None


def check_pixels(upload, field):
    """Refuse an image with more than MAX_IMAGE_PIXELS pixels, reading only its header."""
    upload.seek(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(upload) as image:
                width, height = image.size
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ValidationError({field: _("The image is too large to open.")}) from exc
    except Exception as exc:  # Pillow raises many kinds for a file that is not an image
        raise ValidationError({field: _("That file is not a photo we can read.")}) from exc
    finally:
        upload.seek(0)
    if width * height > MAX_IMAGE_PIXELS:
        raise ValidationError({field: _("The image is too large to open.")})


def validate_order_scan(upload, field="scan"):
    """A scan of an order or a proof: PDF, JPEG or PNG by content, at most 5 MB. Returns the
    detected extension."""
    if upload is None:
        raise ValidationError({field: _("Attach a scan of the order.")})
    if upload.size > MAX_SCAN_BYTES:
        raise ValidationError(
            {field: _("The scan is larger than 5 MB. Scan it again at a lower resolution.")}
        )
    ext = detect_type(upload)
    if ext not in SCAN_TYPES:
        raise ValidationError({field: _("The scan must be a PDF, JPEG or PNG file.")})
    if ext != "pdf":
        check_pixels(upload, field)
    return ext


def reencode_image(upload, *, field, max_px, fmt="JPEG"):
    """Decode a photo or a drawn signature and write it again: at most `max_px` on a side,
    upright, with no EXIF data (the GPS position, the phone's make). JPEG for photos, PNG (with
    its transparency) for signatures. Returns a ContentFile named for `UploadName`."""
    if detect_type(upload) not in PHOTO_TYPES:
        raise ValidationError({field: _("That file is not a photo we can read.")})
    check_pixels(upload, field)
    try:
        image = ImageOps.exif_transpose(Image.open(upload))
        image = image.convert("RGB" if fmt == "JPEG" else "RGBA")
        image.thumbnail((max_px, max_px))
    except Exception as exc:  # a truncated or corrupt file fails only when decoded
        raise ValidationError({field: _("That file is not a photo we can read.")}) from exc
    out = io.BytesIO()
    if fmt == "JPEG":
        image.save(out, format="JPEG", quality=82, optimize=True)
        return ContentFile(out.getvalue(), name=stored_name("jpg"))
    image.save(out, format="PNG", optimize=True)
    return ContentFile(out.getvalue(), name=stored_name("png"))
