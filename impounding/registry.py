"""The owner of an ear tag, asked of the State's registry (ADR 0078).

No public lookup of the 12-digit national ear tag (INAPH, now Bharat Pashudhan) is published; a
State may grant its own. So the registry sits behind one interface:

- "none" (the default): no registry; nothing is asked, nothing is suggested;
- "http": the State's service, speaking the JSON protocol of ADR 0078 (GET {URL}/tags/{tag}
  with the token in an `X-Registry-Token` header);

and the tests run a fake of it on loopback (tests/impounding/fakeregistry.py).

A lookup is kept in the database with its age (`TagLookup`), shared by every process. It never
blocks the intake: a short timeout, and a failure (no answer, an error, an answer that makes no
sense) is recorded and answered as "no suggestion". What the registry says is only a
suggestion: the keeper confirms it before it fills the entry's owner.
"""

import json
import logging
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from kernel.formatting import mask_phone

from .models import TagLookup
from .tags import is_pashu_aadhaar, normalise_tag

log = logging.getLogger(__name__)

# A failed lookup is asked again after this long, not on every form.
RETRY_AFTER = timedelta(minutes=10)
PHONE = re.compile(r"^\+?[0-9]{10,13}$")


@dataclass(frozen=True)
class Owner:
    name: str
    phone: str
    village: str


class RegistryFailed(Exception):
    """The registry gave no usable answer."""


class NoRegistry:
    name = "none"

    def owner_of(self, tag):
        return None


class HttpRegistry:
    """A State's registry over HTTPS: 200 with the owner, 404 for a tag it knows no owner of."""

    name = "http"

    def __init__(self, url, token, timeout):
        self.url, self.token, self.timeout = url.rstrip("/"), token, timeout

    def owner_of(self, tag):
        request = urllib.request.Request(
            f"{self.url}/tags/{urllib.parse.quote(tag)}",
            headers={"X-Registry-Token": self.token, "Accept": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                body = response.read(64 * 1024)
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None
            raise RegistryFailed(f"HTTP {exc.code}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise RegistryFailed(type(exc).__name__ + ": " + str(exc)[:120]) from None
        return parse_answer(body, tag)


def parse_answer(body, tag):
    """The owner in a 200 answer, or RegistryFailed when it is not the protocol's JSON."""
    try:
        data = json.loads(body)
        owner = data["owner"]
        if data.get("tag") != tag:
            raise RegistryFailed("the answer names another tag")
        if owner is None:
            return None
        name, phone = str(owner["name"]).strip(), str(owner.get("phone") or "").strip()
        village = str(owner.get("village") or "").strip()
    except (ValueError, KeyError, TypeError, AttributeError):
        raise RegistryFailed("malformed answer") from None
    if not name or len(name) > 150 or len(village) > 150 or (phone and not PHONE.match(phone)):
        raise RegistryFailed("malformed answer")
    return Owner(name=name, phone=phone, village=village)


def registry():
    if settings.EAR_TAG_REGISTRY == "http" and settings.EAR_TAG_REGISTRY_URL:
        return HttpRegistry(
            settings.EAR_TAG_REGISTRY_URL,
            settings.EAR_TAG_REGISTRY_TOKEN,
            settings.EAR_TAG_REGISTRY_TIMEOUT,
        )
    return NoRegistry()


def _fresh(row, now):
    if row.outcome == TagLookup.Outcome.FAILED:
        return now - row.looked_up_at < RETRY_AFTER
    return now - row.looked_up_at < timedelta(hours=settings.EAR_TAG_REGISTRY_MAX_AGE_HOURS)


def _owner(row):
    # A failed lookup keeps the owner an earlier one found: a stale answer beats none.
    if not row.owner_name:
        return None
    return Owner(name=row.owner_name, phone=row.owner_phone, village=row.owner_village)


def cached_owner(tag):
    """What the last lookup of `tag` found, whatever its age; no registry is asked."""
    row = TagLookup.objects.filter(tag=normalise_tag(tag or "")).first()
    return _owner(row) if row is not None else None


def cached_owners(tags):
    """{tag: Owner} of what the last lookups of `tags` found: one query, no registry asked."""
    rows = TagLookup.objects.filter(tag__in=[normalise_tag(t or "") for t in tags])
    return {row.tag: owner for row in rows if (owner := _owner(row)) is not None}


def look_up(tag, *, source=None):
    """The owner the registry names for `tag`, from the cache while it is fresh, else asked
    (within the timeout). None: no registry, no owner known, or the registry failed (recorded,
    asked again after RETRY_AFTER). Never raises for the registry's sake."""
    source = source or registry()
    tag = normalise_tag(tag or "")
    if source.name == "none" or not is_pashu_aadhaar(tag):
        return None
    now = timezone.now()
    row = TagLookup.objects.filter(tag=tag).first()
    if row is not None and _fresh(row, now):
        return _owner(row)
    fields = {"registry": source.name, "looked_up_at": now, "error": ""}
    try:
        owner = source.owner_of(tag)
    except RegistryFailed as exc:
        log.warning("ear-tag registry failed for a tag: %s", exc)
        fields |= {"outcome": TagLookup.Outcome.FAILED, "error": str(exc)[:200]}
        fields["failures"] = (row.failures if row else 0) + 1
        owner = _owner(row) if row is not None else None
    else:
        found = owner is not None
        fields |= {
            "outcome": TagLookup.Outcome.FOUND if found else TagLookup.Outcome.UNKNOWN,
            "owner_name": owner.name if found else "",
            "owner_phone": owner.phone if found else "",
            "owner_village": owner.village if found else "",
            "failures": 0,
        }
    _store(tag, fields)
    return owner


def _store(tag, fields):
    try:
        with transaction.atomic():
            TagLookup.objects.update_or_create(tag=tag, defaults=fields)
    except IntegrityError:  # another process stored the same tag first: its answer stands
        pass


def suggested_owners(tags, *, known, ask=True):
    """The owners the registry names for `tags`, but the one `known` ((name, phone)) already:
    asked within the registry's timeout in all, the rest from the cache (`ask` False: from the
    cache only, one query). The web intake's check page, the field app's entries on arrival
    (api.intake) and the entry's page share it."""
    source, started = registry(), time.monotonic()
    tags = [t for t in dict.fromkeys(normalise_tag(t) for t in tags) if is_pashu_aadhaar(t)]
    if source.name == "none" or not tags:
        return []
    cached = {} if ask else cached_owners(tags)
    shown, owners = [], {tuple(known)}
    for tag in tags:
        if ask and time.monotonic() - started < settings.EAR_TAG_REGISTRY_TIMEOUT:
            owner = look_up(tag, source=source)
        else:
            owner = cached.get(tag) if not ask else cached_owner(tag)
        if owner is None or (owner.name, owner.phone) in owners:
            continue
        owners.add((owner.name, owner.phone))
        shown.append(
            {
                "tag": tag,
                "name": owner.name,
                "phone": mask_phone(owner.phone),
                "village": owner.village,
            }
        )
    return shown
