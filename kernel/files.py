"""Serving a stored file after the caller's view has checked who may see it.

Files are never public: no web server serves MEDIA_ROOT, and the bucket grants nothing. On the
filesystem the file is streamed by Django; on S3 the browser is sent to a presigned URL that
lives for UPLOAD_URL_SECONDS (one minute by default), so the object store does the sending.

A PDF is always a download (`Content-Disposition: attachment`), never shown inline: a viewer
inside the browser would run it on our origin. Every response says `nosniff`, so a browser takes
the type we name and never guesses another from the bytes.
"""

from django.conf import settings
from django.http import FileResponse, Http404, HttpResponseRedirect

from .uploads import CONTENT_TYPES, detect_type


def _extension(fieldfile):
    ext = fieldfile.name.rsplit(".", 1)[-1].lower() if "." in fieldfile.name else ""
    if ext in CONTENT_TYPES:
        return ext
    # A file stored before names carried the detected type: read its first bytes.
    with fieldfile.open("rb") as handle:
        ext = detect_type(handle)
    if ext not in CONTENT_TYPES:
        raise Http404
    return ext


def is_object_store(storage):
    return hasattr(storage, "bucket_name")


def serve_stored(fieldfile, *, download_name, attachment=False):
    """The response for `fieldfile`, shown inline (or downloaded) as `<download_name>.<ext>`;
    a PDF is always downloaded. 404 if empty."""
    if not fieldfile:
        raise Http404
    ext = _extension(fieldfile)
    filename = f"{download_name}.{ext}"
    attachment = attachment or ext == "pdf"
    disposition = "attachment" if attachment else "inline"
    storage = fieldfile.storage
    if is_object_store(storage):
        url = storage.url(
            fieldfile.name,
            parameters={
                "ResponseContentType": CONTENT_TYPES[ext],
                "ResponseContentDisposition": f'{disposition}; filename="{filename}"',
                "ResponseCacheControl": "private, no-store",
            },
            expire=settings.UPLOAD_URL_SECONDS,
        )
        response = HttpResponseRedirect(url)
    else:
        try:
            handle = storage.open(fieldfile.name, "rb")
        except FileNotFoundError:
            raise Http404 from None
        response = FileResponse(
            handle, content_type=CONTENT_TYPES[ext], filename=filename, as_attachment=attachment
        )
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response
