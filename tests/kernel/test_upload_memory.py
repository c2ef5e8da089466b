"""An upload's peak memory stays under 100 MB whatever its pixel count (kernel/uploads.py).

Pillow decodes in C, out of tracemalloc's sight, so each upload is checked in a process of its
own, which reads the growth of its peak resident size (ru_maxrss) across the call: a figure of
memory, not of time, so the machine's speed does not move it.
"""

import io
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
LIMIT_MB = 100

# What a request does with an upload: the form's check, then the service's re-encoding (a photo,
# which a re-shown form also holds) or the scan written again.
CHILD = """
import io, json, resource, sys
from django.conf import settings
settings.configure(USE_I18N=False)
import django
django.setup()
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image
from kernel.uploads import check_photo, clean_scan, reencode_image, validate_order_scan

def photo(upload):
    check_photo(upload)
    return reencode_image(upload, field="photo", max_px=1280)

def scan(upload):
    validate_order_scan(upload)
    return clean_scan(upload)

kind, path = sys.argv[1], sys.argv[2]
warm = io.BytesIO()
Image.new("RGB", (64, 64)).save(warm, "JPEG")
for step in (photo, scan):  # the libraries load before the baseline
    step(SimpleUploadedFile("warm.jpg", warm.getvalue()))
data = open(path, "rb").read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    stored = {"photo": photo, "scan": scan}[kind](SimpleUploadedFile("upload", data))
    outcome = list(Image.open(stored).size)
except ValidationError as exc:
    outcome = exc.messages[0]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({"outcome": outcome, "peak_mb": peak / 1024}))
"""


def blank_png(width, height, *, grey=False):
    """A blank PNG of width x height: a few hundred kB that decode to hundreds of MB."""
    channels, colour_type = (1, 0) if grey else (3, 2)
    squeeze = zlib.compressobj(9)
    row = b"\x00" * (1 + width * channels)
    idat = b"".join(squeeze.compress(row) for _ in range(height)) + squeeze.flush()

    def chunk(kind, body):
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    )


def jpeg(width, height, *, orientation=1):
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    image = Image.new("RGB", (width, height), "white")
    image.save(out, format="JPEG", quality=75, exif=exif.tobytes())
    return out.getvalue()


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    folder = tmp_path_factory.mktemp("uploads")
    made = {
        # The finding: 143 kB, just under the 50-megapixel cap, 380 MB decoded.
        "png_50mp": blank_png(7071, 7071),
        "png_at_budget": blank_png(3230, 3230),
        "grey_png_40mp": blank_png(6400, 6400, grey=True),
        "jpeg_50mp": jpeg(8660, 5773),
        # At the budget, and turned upright: the scan's worst case (two copies of its pixels).
        "sideways_jpeg_10mp": jpeg(3200, 3100, orientation=6),
    }
    for name, data in made.items():
        (folder / name).write_bytes(data)
    return folder, made


def measure(kind, path):
    result = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_143_kb_png_of_50_megapixels_is_refused_for_its_pixels_without_decoding(images):
    folder, made = images
    assert len(made["png_50mp"]) < 200_000

    for kind in ("photo", "scan"):
        measured = measure(kind, folder / "png_50mp")

        assert "too many pixels" in measured["outcome"]
        assert measured["peak_mb"] < 10  # the header alone, where decoding took 380 MB


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "name", "size"),
    [
        ("photo", "png_at_budget", [1280, 1280]),
        ("photo", "jpeg_50mp", [1280, 854]),  # decoded at a quarter of its size (Image.draft)
        ("scan", "grey_png_40mp", [6400, 6400]),  # a scan keeps its resolution
        ("scan", "jpeg_50mp", [2165, 1444]),
        ("scan", "sideways_jpeg_10mp", [3100, 3200]),
    ],
)
def test_an_accepted_upload_peaks_under_100_mb(images, kind, name, size):
    folder, _made = images

    measured = measure(kind, folder / name)

    assert measured["outcome"] == size
    assert measured["peak_mb"] < LIMIT_MB
