"""Drawn stand-ins for the demo's stored files: a photo of an animal, a photo of a drum
proclamation, and a signature drawn on the screen. Pillow draws them, so the demo needs no file
from outside; the services store them as they would a phone's."""

import io
import math

from django.core.files.base import ContentFile
from PIL import Image, ImageDraw


def animal_photo(coat=(235, 230, 220), patches=(140, 80, 40)):
    """A cow standing in a field, as a JPEG."""
    image = Image.new("RGB", (960, 720), (150, 190, 230))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 430, 960, 720), fill=(110, 150, 70))
    draw.ellipse((250, 250, 690, 470), fill=coat)  # body
    draw.ellipse((330, 290, 440, 370), fill=patches)
    draw.ellipse((640, 200, 790, 330), fill=coat)  # head
    draw.polygon([(660, 215), (640, 170), (680, 205)], fill=(240, 235, 200))  # horn
    draw.polygon([(770, 215), (790, 170), (750, 205)], fill=(240, 235, 200))
    draw.ellipse((735, 285, 790, 325), fill=(230, 170, 170))  # muzzle
    for x in (300, 360, 570, 630):  # legs
        draw.rectangle((x, 440, x + 30, 600), fill=coat)
        draw.rectangle((x, 590, x + 30, 612), fill=(60, 50, 40))
    draw.line([(252, 330), (205, 450)], fill=coat, width=10)  # tail
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=85)
    return ContentFile(out.getvalue(), name="animal.jpg")


def proclamation_photo():
    """A drummer at a village chaupal under a neem tree, as a JPEG."""
    image = Image.new("RGB", (960, 720), (240, 210, 160))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 480, 960, 720), fill=(190, 150, 100))
    draw.rectangle((90, 180, 130, 500), fill=(100, 70, 40))  # the tree
    draw.ellipse((-20, 40, 260, 260), fill=(60, 120, 50))
    draw.ellipse((470, 210, 540, 280), fill=(120, 80, 50))  # the drummer's head
    draw.rectangle((465, 280, 545, 460), fill=(240, 240, 230))  # his kurta
    draw.ellipse((540, 330, 660, 430), fill=(200, 60, 40))  # the drum
    draw.line([(600, 330), (640, 260)], fill=(90, 60, 30), width=8)  # the stick
    for x in (250, 330, 720, 800):  # listeners
        draw.ellipse((x, 300, x + 50, 350), fill=(110, 75, 45))
        draw.rectangle((x - 5, 350, x + 55, 480), fill=(180, 170, 200))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=85)
    return ContentFile(out.getvalue(), name="proclamation.jpg")


def drawn_signature():
    """A signature as the screen's canvas sends it: dark strokes on a transparent PNG."""
    image = Image.new("RGBA", (600, 200), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    points = [
        (40 + t * 4.6, 110 - 45 * math.sin(t / 6.0) * math.exp(-t / 140.0) + (t % 17) * 0.8)
        for t in range(110)
    ]
    draw.line(points, fill=(20, 20, 60, 255), width=4, joint="curve")
    draw.line([(60, 160), (540, 150)], fill=(20, 20, 60, 255), width=3)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return ContentFile(out.getvalue(), name="signature.png")
