"""Uploaded files: the type is read from the content (filetype), never from the client's name.

Every image that is kept, photo, drawn signature or scan, is decoded and written again
(re-encoded), which drops its EXIF data (the GPS position, the phone's make) and anything hidden
after the image. A PDF is kept as sent once pypdf finds no active content in it (scripts,
actions, attached files). Every stored name is random (`UploadName`): a UUID under a per-kind
prefix, with the extension of the detected type. SVG and HTML are refused outright: a browser
would run their scripts.

Memory is bounded before a pixel is decoded (docs/DEVELOPERS.md, "Stored files"): the header
says how many pixels an image has and what decoding it would cost; an image over either bound is
refused with a message that says so, and a JPEG is decoded at a reduced scale (`Image.draft`)
when it is larger than what is kept.
"""

import io
import math
import uuid
import warnings

import filetype
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.utils import timezone
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext as _
from PIL import Image, ImageOps
from pypdf import PdfReader
from pypdf.errors import PyPdfError
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, NameObject

MAX_SCAN_BYTES = 5 * 1024 * 1024
MAX_PHOTO_BYTES = 12 * 1024 * 1024
SIGNATURE_MAX_PX = 1200
# Pillow refuses an image over twice this limit on open, and `open_image` refuses anything over it
# before a single pixel is decoded.
MAX_IMAGE_PIXELS = 50_000_000
Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
# What the decoded pixels of one upload may take in memory. A photo's reduced copies and a scan
# turned upright at most double it, so an upload stays under 100 MB whatever its pixel count
# (tests/kernel/test_upload_memory.py measures it). A JPEG is decoded at 1/2, 1/4 or 1/8 scale
# to fit; a PNG has no reduced decode, so one over the bound is refused.
DECODE_BUDGET = 40 * 1024 * 1024
# Bytes a decoded pixel takes in Pillow, by mode (RGB is stored in four bytes; an image with
# alpha is copied premultiplied to be resized); libwebp and libtiff decode into buffers of their
# own before Pillow copies them.
_PIXEL_BYTES = {"1": 1, "L": 1, "P": 1, "I;16": 2, "I;16B": 2, "I;16L": 2, "LA": 8, "RGBA": 8}
_DECODE_FACTOR = {"WEBP": 4, "TIFF": 2}
# JPEG, and the multi-picture JPEG of many phones (its first picture is what is kept).
_JPEG_FORMATS = {"JPEG", "MPO"}

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
# What a PDF viewer would run or open: scripts, actions on opening or on a page, launching a
# program, attached files, embedded media, XFA forms (which carry scripts).
ACTIVE_PDF_NAMES = frozenset(
    {
        "/JavaScript",
        "/JS",
        "/OpenAction",
        "/AA",
        "/Launch",
        "/EmbeddedFile",
        "/EmbeddedFiles",
        "/FileAttachment",
        "/RichMedia",
        "/XFA",
        "/SubmitForm",
        "/ImportData",
        "/GoToE",
    }
)
_PDF_MAX_OBJECTS = 200_000


def not_an_image():
    return _("That file is not a photo we can read.")


def too_many_pixels(limit):
    return _(
        "The image has too many pixels: at most %(limit)s megapixels can be taken. "
        "Send a copy taken at a lower resolution."
    ) % {"limit": max(1, limit // 1_000_000)}


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


# --- Images: checked from the header, decoded within the budget --------------------------------


def _jpeg_coefficient_bytes(image):
    """A progressive JPEG is decoded from every DCT coefficient of the image at once, whatever
    the scale: two bytes each, 64 to a block, per component at its sampling."""
    width, height = image.size
    layers = getattr(image, "layer", None) or [("", 1, 1, 0)] * len(image.getbands())
    h_max = max(layer[1] for layer in layers)
    v_max = max(layer[2] for layer in layers)
    blocks = sum(
        math.ceil(width * layer[1] / h_max / 8) * math.ceil(height * layer[2] / v_max / 8)
        for layer in layers
    )
    return blocks * 128


def decode_cost(image, max_px=None):
    """The bytes decoding `image` (opened, not loaded) would take, and the JPEG scale (1, 2, 4
    or 8, for `Image.draft`) to decode it at, read from its header alone. With `max_px` the
    scale is the largest that still gives `max_px` on the longest side; without, the smallest
    whose pixels fit the budget."""
    width, height = image.size
    per_pixel = _PIXEL_BYTES.get(image.mode, 4) * _DECODE_FACTOR.get(image.format, 1)
    if image.format not in _JPEG_FORMATS:
        return width * height * per_pixel, 1
    fixed = _jpeg_coefficient_bytes(image) if image.info.get("progressive") else 0

    def cost(scale):
        return fixed + math.ceil(width / scale) * math.ceil(height / scale) * per_pixel

    scales = [s for s in (1, 2, 4, 8) if min(width, height) // s >= 1]
    if max_px:
        scale = max(s for s in scales if s == 1 or max(width, height) // s >= max_px)
    else:
        scale = next((s for s in scales if cost(s) <= DECODE_BUDGET), scales[-1])
    return cost(scale), scale


def _pixel_limit(image):
    """The most pixels an image of this kind may have, for the message that refuses it."""
    pixels = max(1, image.size[0] * image.size[1])
    if image.format in _JPEG_FORMATS:
        if not image.info.get("progressive"):
            return MAX_IMAGE_PIXELS
        per_pixel = _jpeg_coefficient_bytes(image) / pixels + 1  # and the reduced decode
    else:
        per_pixel = decode_cost(image)[0] / pixels
    return min(MAX_IMAGE_PIXELS, int(DECODE_BUDGET / per_pixel))


def open_image(upload, field, *, max_px=None):
    """The upload opened with Pillow, its pixels not yet decoded, once its header shows that
    decoding it stays within MAX_IMAGE_PIXELS and DECODE_BUDGET; a JPEG is set to decode at the
    scale that `max_px` (the longest side kept) or the budget allows. Raises a ValidationError
    naming the problem: too many pixels, or not an image."""
    upload.seek(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(upload)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ValidationError({field: too_many_pixels(MAX_IMAGE_PIXELS)}) from exc
    except Exception as exc:  # Pillow raises many kinds for a file that is not an image
        raise ValidationError({field: not_an_image()}) from exc
    width, height = image.size
    cost, scale = decode_cost(image, max_px)
    if width * height > MAX_IMAGE_PIXELS or cost > DECODE_BUDGET:
        raise ValidationError({field: too_many_pixels(_pixel_limit(image))})
    if scale > 1:
        image.draft(None, (width // scale, height // scale))
    return image


def check_pixels(upload, field):
    """Refuse an image whose pixels are too many to decode, reading only its header."""
    open_image(upload, field)  # not closed: that would close the upload too
    upload.seek(0)


def _decode(upload, *, field, max_px):
    """The upright image, at most `max_px` on a side (or as it came when None), decoded within
    the budget. EXIF is read for the orientation and goes no further."""
    image = open_image(upload, field, max_px=max_px)
    try:
        if max_px:
            image.thumbnail((max_px, max_px))  # loads only when it shrinks
        image.load()
        ImageOps.exif_transpose(image, in_place=True)
    except MemoryError as exc:
        raise ValidationError({field: too_many_pixels(_pixel_limit(image))}) from exc
    except Exception as exc:  # a truncated or corrupt file fails only when decoded
        raise ValidationError({field: not_an_image()}) from exc
    finally:
        upload.seek(0)
    return image


def _written(image, ext, **options):
    out = io.BytesIO()
    image.save(out, format="JPEG" if ext == "jpg" else "PNG", **options)
    return ContentFile(out.getvalue(), name=stored_name(ext))


def reencode_image(upload, *, field, max_px, fmt="JPEG"):
    """Decode a photo or a drawn signature and write it again: at most `max_px` on a side,
    upright, with no EXIF data (the GPS position, the phone's make). JPEG for photos, PNG (with
    its transparency) for signatures. Returns a ContentFile named for `UploadName`."""
    if detect_type(upload) not in PHOTO_TYPES:
        raise ValidationError({field: not_an_image()})
    image = _decode(upload, field=field, max_px=max_px)
    if fmt == "JPEG":
        return _written(image.convert("RGB"), "jpg", quality=82, optimize=True)
    return _written(image.convert("RGBA"), "png", optimize=True)


def check_photo(upload, field="photo"):
    """What a form checks of a photo before it is accepted, each refusal naming its problem:
    too large (bytes), not an image, or too many pixels. Nothing is decoded."""
    if upload.size > MAX_PHOTO_BYTES:
        raise ValidationError({field: _("The photo is larger than 12 MB.")})
    if detect_type(upload) not in PHOTO_TYPES:
        raise ValidationError({field: not_an_image()})
    check_pixels(upload, field)


# --- Scans of orders and proofs ---------------------------------------------------------------


def _pdf_children(obj):
    if isinstance(obj, DictionaryObject):  # a stream is a dictionary too
        for key, value in dict.items(obj):
            yield key
            yield value
    elif isinstance(obj, ArrayObject):
        yield from list.__iter__(obj)


def pdf_active_content(reader):
    """The names of active content the PDF holds (sorted), walking every object it lists and
    every one reachable from its trailer; names escaped as `/J#61vaScript` count too."""
    found, seen = set(), set()
    stack = [reader.trailer]
    stack += [IndirectObject(num, gen, reader) for gen, nums in reader.xref.items() for num in nums]
    stack += [IndirectObject(num, 0, reader) for num in reader.xref_objStm]
    while stack:
        obj = stack.pop()
        if isinstance(obj, IndirectObject):
            if (obj.idnum, obj.generation) in seen:
                continue
            seen.add((obj.idnum, obj.generation))
            if len(seen) > _PDF_MAX_OBJECTS:
                raise PyPdfError("too many objects")
            obj = obj.get_object()
        if isinstance(obj, NameObject) and obj in ACTIVE_PDF_NAMES:
            found.add(str(obj))
        stack.extend(_pdf_children(obj))
    return sorted(found)


def check_pdf(upload, field):
    """Refuse a PDF that pypdf cannot read, that is locked by a password, or that holds active
    content (ACTIVE_PDF_NAMES): kept on our origin, it must be a document and nothing more."""
    upload.seek(0)
    try:
        reader = PdfReader(io.BytesIO(upload.read()), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise ValidationError(
                {field: _("The PDF is locked with a password. Attach a copy without one.")}
            )
        active = pdf_active_content(reader)
    except ValidationError:
        raise
    except Exception as exc:  # pypdf raises many kinds for a broken file
        raise ValidationError(
            {field: _("That PDF cannot be read. Scan the paper order again and attach that.")}
        ) from exc
    finally:
        upload.seek(0)
    if active:
        raise ValidationError(
            {
                field: _(
                    "The PDF holds scripts, actions or attached files, which cannot be kept. "
                    "Scan the paper order, or print the PDF to a new one, and attach that."
                )
            }
        )


def validate_order_scan(upload, field="scan"):
    """A scan of an order or a proof: PDF, JPEG or PNG by content, at most 5 MB, an image within
    the pixel bounds, a PDF with no active content. Returns the detected extension."""
    if upload is None:
        raise ValidationError({field: _("Attach a scan of the order.")})
    if upload.size > MAX_SCAN_BYTES:
        raise ValidationError(
            {field: _("The scan is larger than 5 MB. Scan it again at a lower resolution.")}
        )
    ext = detect_type(upload)
    if ext not in SCAN_TYPES:
        raise ValidationError({field: _("The scan must be a PDF, JPEG or PNG file.")})
    if ext == "pdf":
        check_pdf(upload, field)
    else:
        check_pixels(upload, field)
    return ext


def clean_scan(upload, field="scan"):
    """The scan as it is to be stored, once `validate_order_scan` passes: a PDF as sent, an
    image written again upright at its own resolution (or the budget's, for a very large JPEG),
    without its EXIF data. Returns a ContentFile named for `UploadName`."""
    ext = validate_order_scan(upload, field)
    if ext == "pdf":
        upload.seek(0)
        return ContentFile(upload.read(), name=stored_name("pdf"))
    image = _decode(upload, field=field, max_px=None)
    if ext == "jpg":
        if image.mode not in ("L", "RGB"):  # CMYK; a converted copy, where RGB would be a copy
            image = image.convert("RGB")
        return _written(image, "jpg", quality=90)
    if image.mode not in ("1", "L", "P", "RGB", "RGBA"):
        image = image.convert("RGBA" if "A" in image.getbands() else "RGB")
    return _written(image, "png")
