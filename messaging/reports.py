"""The gateways' delivery reports (ADR 0084): what each gateway calls back with, read through one
mapping per provider, and the status each report moves a message to.

Neither NIC nor C-DAC publishes the parameters of its delivery-report push; the names below are
those a State confirms against the document its gateway gives it, and changes here, in one place
per provider. The statuses are SMPP's `stat` values (DELIVRD, UNDELIV, EXPIRED ...), which both
gateways' reports carry, and the plain words some of their consoles show.

The transitions are these, and only these: a message the gateway accepted (`sent`) becomes
`delivered` or `failed`; `delivered` and `failed` are final. A report for a message in any other
state (a second report, a late "delivered" after "failed", an interim "enroute") changes nothing.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

DELIVERED, FAILED, INTERIM = "delivered", "failed", "interim"
STATUSES = {
    "DELIVRD": DELIVERED,
    "DELIVERED": DELIVERED,
    "UNDELIV": FAILED,
    "UNDELIVERED": FAILED,
    "FAILED": FAILED,
    "REJECTD": FAILED,
    "REJECTED": FAILED,
    "EXPIRED": FAILED,
    "DELETED": FAILED,
    "ACCEPTD": INTERIM,
    "ACCEPTED": INTERIM,
    "ENROUTE": INTERIM,
    "SUBMITTED": INTERIM,
    "PENDING": INTERIM,
    "UNKNOWN": INTERIM,
}
TIME_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y/%m/%d/%H/%M", "%d-%m-%Y %H:%M:%S")


@dataclass(frozen=True)
class Mapping:
    """Where a provider's report puts the message's id, its status and the handset's time."""

    id: str
    status: str
    at: str


# The provider's names, to be confirmed by the State against its gateway's document.
MAPPINGS = {
    # NIC's HttpLink: the "Request ID" it answered the send with.
    "nic": Mapping(id="requestid", status="status", at="donetime"),
    # C-DAC's Mobile Seva: the "MsgID" of its "402,MsgID = ..." answer.
    "mobileseva": Mapping(id="msgid", status="status", at="deliverytime"),
}


class BadReport(ValueError):
    """The report names no message or no status."""


@dataclass(frozen=True)
class Report:
    provider_id: str
    outcome: str  # DELIVERED, FAILED, INTERIM or "" (a status we do not know)
    status: str  # the gateway's own word
    at: datetime | None  # the handset's time, as the gateway gave it


def read(provider, params):
    """The report in the provider's parameters (a QueryDict or a dict of strings)."""
    mapping = MAPPINGS[provider]
    provider_id = (params.get(mapping.id) or "").strip()[:100]
    status = (params.get(mapping.status) or "").strip().upper()[:20]
    if not provider_id or not status:
        raise BadReport(f"{mapping.id} and {mapping.status} are needed")
    return Report(provider_id, STATUSES.get(status, ""), status, _time(params.get(mapping.at)))


def _time(value):
    """The gateway's time (IST where it names no zone); None if unreadable or in the future."""
    value = (value or "").strip()
    for form in TIME_FORMATS:
        try:
            at = datetime.strptime(value, form)  # noqa: DTZ007 (made aware below)
        except ValueError:
            continue
        at = timezone.make_aware(at, timezone.get_fixed_timezone(330))
        return at if at <= timezone.now() + timedelta(minutes=5) else None
    return None
