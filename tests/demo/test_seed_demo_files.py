"""`manage.py seed_demo` stores one of each kind of file, where staff meet it: an animal's photo
(the entry page, the public board), a proclamation's photo (the s.14 report), a drawn signature
(the release) and a court order's scan (the office's check)."""

import io

from PIL import Image

from auctions.models import Proclamation
from demo import register as register_demo
from demo import staff as demo
from demo import unclaimed as auction_demo
from impounding.models import Animal, CourtOrder, Release


def _image(fieldfile, fmt):
    with fieldfile.open("rb") as handle, Image.open(io.BytesIO(handle.read())) as image:
        return image.format == fmt and min(image.size) >= 100


def test_the_demo_stores_a_photo_a_proclamation_photo_a_signature_and_a_scan():
    # seed_demo's own steps for Lucknow; Barabanki's year of history adds no kind of file.
    demo.seed_all()
    register_demo.seed_tariffs()
    register_demo.seed_register()
    auction_demo.seed_conditions()
    auction_demo.seed_unclaimed()

    photo = Animal.objects.exclude(photo="").first()
    proclamation = Proclamation.objects.exclude(photo="").first()
    release = Release.objects.exclude(signature="").first()
    order = CourtOrder.objects.exclude(scan="").first()
    assert _image(photo.photo, "JPEG") and photo.photo.name.startswith("animals/")
    assert _image(proclamation.photo, "JPEG")
    assert _image(release.signature, "PNG") and release.signature.name.startswith("signatures/")
    with order.scan.open("rb") as handle:
        assert handle.read(5) == b"%PDF-"
    # The board shows a photo too: an animal under notice has one.
    assert Animal.objects.exclude(photo="").count() >= 2
