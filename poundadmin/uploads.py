"""Checks on uploaded scans: the type is read from the file's first bytes, not its name."""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

MAX_SCAN_BYTES = 5 * 1024 * 1024
SIGNATURES = {b"%PDF-": "PDF", b"\xff\xd8\xff": "JPEG", b"\x89PNG\r\n\x1a\n": "PNG"}


def validate_order_scan(upload):
    if upload is None:
        raise ValidationError({"scan": _("Attach a scan of the order.")})
    if upload.size > MAX_SCAN_BYTES:
        raise ValidationError(
            {"scan": _("The scan is larger than 5 MB. Scan it again at a lower resolution.")}
        )
    upload.seek(0)
    head = upload.read(8)
    upload.seek(0)
    if not any(head.startswith(sig) for sig in SIGNATURES):
        raise ValidationError({"scan": _("The scan must be a PDF, JPEG or PNG file.")})
