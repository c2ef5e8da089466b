"""An uploaded photo kept while its form is shown again (ADR 0030).

A browser cannot put a file back into a file input, so a photo chosen on a form that came back
with an error, or that goes on to a check-your-answers page, would be lost. `hold` writes the
photo again as a kept photo is written (`kernel.uploads.reencode_image`: no EXIF data, no GPS
position) and stores it under `held/` in the default storage, and returns a signed token, which
the page carries in a hidden field; `take` gives the file back for the same user within a day,
and removes it. The token names a random file name and the user, and is signed with the secret
key, so no one can point it at another file or take someone else's. A file whose form was
abandoned is removed by the daily run a day later (`sweep`).
"""

import logging
import secrets
from datetime import timedelta
from pathlib import PurePosixPath

from django.core import signing
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from .sweep import remove_older
from .uploads import reencode_image

logger = logging.getLogger(__name__)

SALT = "poundadmin.held-upload"
MAX_AGE = 24 * 60 * 60
FOLDER = "held"


def hold(upload, user, *, max_px, field="photo"):
    """Store the photo `upload`, written again at most `max_px` on a side, for a while; returns
    the token that gives it back to `user`. Raises the ValidationError of `reencode_image` when
    the photo cannot be read."""
    photo = reencode_image(upload, field=field, max_px=max_px)
    stored = default_storage.save(f"{FOLDER}/{secrets.token_urlsafe(18)}.jpg", photo)
    upload.seek(0)
    payload = {
        "path": stored,
        "name": PurePosixPath(upload.name or "upload").name[:100],
        "type": "image/jpeg",
        "user": user.pk,
    }
    return signing.dumps(payload, salt=SALT)


def peek(token, user):
    """The token's payload when it is sound and the user's, else None."""
    try:
        payload = signing.loads(token, salt=SALT, max_age=MAX_AGE)
    except signing.BadSignature:
        return None
    if payload.get("user") != user.pk or not str(payload.get("path", "")).startswith(FOLDER):
        return None
    return payload


def take(token, user):
    """The held file as an upload, removed from storage; None when the token is not good."""
    payload = peek(token, user)
    if payload is None or not default_storage.exists(payload["path"]):
        return None
    with default_storage.open(payload["path"], "rb") as stored:
        content = stored.read()
    default_storage.delete(payload["path"])
    return SimpleUploadedFile(payload["name"], content, content_type=payload["type"])


def sweep(now=None, storage=None):
    """Remove the held files older than a token lives (their forms were abandoned); returns how
    many. On the filesystem and on the object store alike (kernel.sweep)."""
    cutoff = (now or timezone.now()) - timedelta(seconds=MAX_AGE)
    return remove_older(FOLDER, cutoff, storage=storage)
