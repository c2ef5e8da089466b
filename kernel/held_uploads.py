"""An uploaded file kept while its form is shown again (issue 12, item 3).

A browser cannot put a file back into a file input, so a photo chosen on a form that came back
with an error, or that goes on to a check-your-answers page, would be lost. `hold` stores the
upload under `held/` in the default storage and returns a signed token, which the page carries in
a hidden field; `take` gives the file back for the same user within a day, and removes it. The
token names a random file name and the user, and is signed with the secret key, so no one can
point it at another file or take someone else's.
"""

import secrets
from pathlib import PurePosixPath

from django.core import signing
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile

SALT = "poundadmin.held-upload"
MAX_AGE = 24 * 60 * 60
FOLDER = "held"


def hold(upload, user):
    """Store `upload` for a while; returns the token that gives it back to `user`."""
    suffix = PurePosixPath(upload.name or "").suffix.lower()[:10]
    upload.seek(0)
    stored = default_storage.save(
        f"{FOLDER}/{secrets.token_urlsafe(18)}{suffix}", ContentFile(upload.read())
    )
    upload.seek(0)
    payload = {
        "path": stored,
        "name": PurePosixPath(upload.name or "upload").name[:100],
        "type": getattr(upload, "content_type", "") or "application/octet-stream",
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
