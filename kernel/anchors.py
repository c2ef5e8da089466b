"""Signed checkpoints: each chain's head, signed with a key the database never holds.

The hash chain shows an edit made behind the application's back, but someone who can write the
tables can also rehash a chain from the edited link onwards and move its head, or cut the last
links and step the head back, and the chain then holds together again. So every hour
(`manage.py sign_checkpoint`, deploy/poundadmin-sign.timer) and again at the end of the daily
run, after its own work, every chain's head (its link number and hash) is signed with an
Ed25519 key read from the environment or a file, and the signed checkpoint is stored outside the
database, in the file storage (the object store in production), under
`checkpoints/<installation>/<local time>.json` (`2026-12-04T193000.123456+0530.json`; the
checkpoints of before were named by their day, `2026-12-04.json`, and still read). The
installation id is this database's own (`Installation`), so a second database on the same
bucket, or a restored copy, never reads another's checkpoints. When no head has moved since the
latest checkpoint, none is signed: the latest still covers every link.

Each checkpoint is also written to a bucket with Object Lock (`kernel/locked.py`), where no
one can delete or overwrite it before its retention ends, and the latest is published in the
database for the public /verify/ page. The daily cash book and the monthly return print the
latest one's digest and signature, so a paper copy anchors it too. `verify_chain` holds every
chain to the latest signed checkpoint, the storage's or the lock bucket's, whichever is later:
a chain that no longer has the signed link is named as cut, one whose signed link has another
hash as rehashed. What an owner can still remove unseen is what was written since the latest
checkpoint: at most an hour.

Before signing, the links written since the previous signed checkpoint are walked from that
checkpoint's link, so a checkpoint never signs a chain that does not extend the last one
(Certificate Transparency's consistency check; docs/decisions/0020-signed-checkpoints.md). A
chain no signed checkpoint names yet is walked from the link `verify_chain` last found sound,
so the first checkpoint too reads only the links since (`--full`: from the first link).
"""

import base64
import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.files.base import ContentFile
from django.core.files.storage import InvalidStorageError, storages
from django.utils import timezone

from . import locked
from .models import ChainHead, Event, Installation, PublishedCheckpoint

PREFIX = "checkpoints"
VERSION = 2  # 1: named by the day; 2: by the local time it was issued at
STAMP = "%Y-%m-%dT%H%M%S.%f%z"


def storage():
    """The "checkpoints" storage when configured, otherwise the default one."""
    try:
        return storages["checkpoints"]
    except InvalidStorageError:
        return storages["default"]


# --- Keys ------------------------------------------------------------------------------------


def signing_key():
    """The private key, from CHECKPOINT_SIGNING_KEY (PEM) or the file CHECKPOINT_SIGNING_KEY_FILE
    names; None when neither is set. Never stored in the database."""
    pem = settings.CHECKPOINT_SIGNING_KEY
    if not pem and settings.CHECKPOINT_SIGNING_KEY_FILE:
        pem = Path(settings.CHECKPOINT_SIGNING_KEY_FILE).read_text()
    if not pem:
        return None
    key = serialization.load_pem_private_key(pem.encode(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ImproperlyConfigured("The checkpoint signing key must be an Ed25519 key.")
    return key


def public_key():
    """The key checkpoints are verified with: CHECKPOINT_PUBLIC_KEY (the 32 raw bytes, base64),
    so a machine that only verifies needs no private key; else the signing key's own."""
    if settings.CHECKPOINT_PUBLIC_KEY:
        return Ed25519PublicKey.from_public_bytes(base64.b64decode(settings.CHECKPOINT_PUBLIC_KEY))
    key = signing_key()
    return key.public_key() if key else None


def raw_public(key):
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(key):
    """A short name for a public key: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(raw_public(key)).hexdigest()[:16]


def new_key_pem():
    """A new private key as PEM (for `manage.py checkpoint_key`)."""
    return (
        Ed25519PrivateKey.generate()
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode()
    )


# --- Checkpoints ----------------------------------------------------------------------------


def _canonical(body):
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


@dataclass(frozen=True)
class SignedCheckpoint:
    body: dict
    signature: bytes

    @property
    def day(self):
        return date.fromisoformat(self.body["date"])

    @property
    def issued_at(self):
        return datetime.fromisoformat(self.body["issued_at"])

    @property
    def when(self):
        """When it was signed, in local time, for the messages: `2026-12-04 19:30`."""
        return f"{timezone.localtime(self.issued_at):%Y-%m-%d %H:%M}"

    @property
    def base_name(self):
        """The file name its body makes: the issuing time, or the day for a version 1."""
        if self.body.get("version", 1) < 2:
            return f"{self.body['date']}.json"
        return f"{self.issued_at.strftime(STAMP)}.json"

    @property
    def heads(self):
        """{chain: (seq, hash)} as signed."""
        return {name: (h["seq"], h["hash"]) for name, h in self.body["chains"].items()}

    @property
    def digest(self):
        """SHA-256 of the signed bytes: what the paper copies print beside the signature."""
        return hashlib.sha256(_canonical(self.body)).hexdigest()

    @property
    def signature_text(self):
        return base64.b64encode(self.signature).decode()

    @property
    def key_id(self):
        return self.body["key_id"]

    def verifies(self, key):
        try:
            key.verify(self.signature, _canonical(self.body))
        except InvalidSignature:
            return False
        return True

    def to_file(self):
        return json.dumps(self.body | {"signature": self.signature_text}, indent=1, sort_keys=True)

    @classmethod
    def from_file(cls, text):
        body = json.loads(text)
        signature = base64.b64decode(body.pop("signature", ""))
        return cls(body=body, signature=signature)


class CheckpointProblem(Exception):
    """A signed checkpoint that cannot be trusted: unreadable, or its signature fails."""


def folder(installation=None):
    """Where this database's checkpoints are stored: under its installation id."""
    return f"{PREFIX}/{installation or Installation.current()}"


def file_name(at, installation=None):
    """The file of the checkpoint issued at `at` (a datetime), or of version 1's day `at`."""
    if isinstance(at, datetime):
        return f"{folder(installation)}/{timezone.localtime(at).strftime(STAMP)}.json"
    return f"{folder(installation)}/{at.isoformat()}.json"


def order(name):
    """Sort key of a checkpoint's file name: by local day, a day's name before its times, the
    times by the instant (so a change of UTC offset does not reorder them)."""
    base = name.rsplit("/", 1)[-1].removesuffix(".json")
    try:
        return base[:10], 1, datetime.strptime(base, STAMP).astimezone(UTC).isoformat()
    except ValueError:
        return base[:10], 0, base


def checkpoint_names(store=None):
    """The names of this database's checkpoint files in `store` (the checkpoints' storage),
    oldest first."""
    store, mine = store or storage(), folder()
    try:
        _dirs, files = store.listdir(mine)
    except FileNotFoundError:
        return []
    return sorted((f"{mine}/{f}" for f in files if f.endswith(".json")), key=order)


def _checked(name, text):
    """The checkpoint in `text`, read from `name`, its signature and its name checked."""
    try:
        checkpoint = SignedCheckpoint.from_file(text)
        named = checkpoint.base_name
    except (ValueError, KeyError) as error:
        raise CheckpointProblem(f"{name} cannot be read: {error}") from error
    key = public_key()
    if key is None:
        raise CheckpointProblem(f"{name} cannot be verified: no CHECKPOINT_PUBLIC_KEY is set")
    if checkpoint.body.get("key_id") != key_id(key) or not checkpoint.verifies(key):
        raise CheckpointProblem(f"{name}: its signature does not verify; the file was changed")
    if name.rsplit("/", 1)[-1] != named:
        # An older checkpoint copied under a later name, to hide the checkpoints since.
        raise CheckpointProblem(f"{name}: it holds the checkpoint {named}, not its own")
    return checkpoint


def _read_in_lock(name, names):
    """Is the lock bucket's `name` later than the storage's latest, and not set aside by a
    restore (CHECKPOINT_LOCK_FROM)?"""
    since = settings.CHECKPOINT_LOCK_FROM
    if since and order(name) < order(file_name(datetime.fromisoformat(since))):
        return False
    return not names or order(name) > order(names[-1])


def latest_checkpoint(store=None):
    """The latest signed checkpoint of this database, its signature checked; None when there
    is none. From `store` alone when given (a backup's copy); else from the checkpoints'
    storage and the lock bucket, whichever holds the later. Raises CheckpointProblem when it
    does not verify (the file was changed), when there is a checkpoint but no key to verify it
    with, or when the lock bucket cannot be read."""
    store_given, store = store is not None, store or storage()
    names = checkpoint_names(store)
    found = (names[-1], None) if names else None
    if not store_given and locked.configured():
        try:
            versions = locked.first_versions(folder(), after=names[-1] if names else "")
        except locked.LockedCopyProblem as problem:
            raise CheckpointProblem(str(problem)) from problem
        later = [(n, v) for n, v in versions.items() if _read_in_lock(n, names)]
        if later:
            found = max(later, key=lambda pair: order(pair[0]))
    if found is None:
        return None
    name, version = found
    if version is None:
        with store.open(name, "rb") as handle:
            return _checked(name, handle.read().decode())
    try:
        return _checked(name, locked.read(name, version))
    except locked.LockedCopyProblem as problem:
        raise CheckpointProblem(str(problem)) from problem


# The weekly walk (`verify_chain --full`) starts at the latest checkpoint at least this old.
WALK_BACK = timedelta(days=31)


def _issued(name):
    """When the checkpoint file `name` was issued, by its name: the instant, or for a day-named
    one (version 1) the end of its day."""
    base = name.rsplit("/", 1)[-1].removesuffix(".json")
    try:
        return datetime.strptime(base, STAMP).astimezone(UTC)
    except ValueError:
        day = date.fromisoformat(base) + timedelta(days=1)
        return datetime.combine(day, time.min, tzinfo=timezone.get_current_timezone())


def month_old_checkpoint(store=None, *, now=None):
    """The latest signed checkpoint issued WALK_BACK (a month) or more before `now`, its
    signature and name checked; None when there is none. Each chain's links up to the link it
    signed were walked, link by link, by the weekly walks of the month after it was signed,
    and its signature binds every link before: the weekly walk starts there. From the
    checkpoints' storage (or `store`, a backup's) only: a file deleted there makes the walk
    start earlier, never later. Raises CheckpointProblem when that checkpoint does not verify."""
    store = store or storage()
    cutoff = (now or timezone.now()) - WALK_BACK
    old = [name for name in checkpoint_names(store) if _issued(name) <= cutoff]
    if not old:
        return None
    with store.open(old[-1], "rb") as handle:
        return _checked(old[-1], handle.read().decode())


def against_checkpoint(name, head, checkpoint):
    """(chain, seq, problem) when chain `name`, whose head is `head` (or None), no longer holds
    the link `checkpoint` signed; None when it does, or the checkpoint names no such chain."""
    signed = checkpoint.heads.get(name)
    if signed is None:
        return None
    seq, signed_hash = signed
    day = checkpoint.when
    ends = head.seq if head else 0
    link = Event.objects.filter(chain=name, seq=seq).values_list("hash", flat=True).first()
    if ends < seq or link is None:
        return (
            name,
            ends + 1,
            f"tail cut: the checkpoint signed at {day} holds links to {seq}, "
            f"the chain now ends at {ends}",
        )
    if link != signed_hash:
        return (
            name,
            seq,
            f"rehashed: link {seq} is not the link the checkpoint signed at {day} holds",
        )
    return None


def write_checkpoint(*, at=None, full=False):
    """Sign the chains' heads as at `at` (now) and store the checkpoint, in the storage and the
    lock bucket, and publish it. Returns (checkpoint, problems): (None, []) without a signing
    key; (None, problems) when a chain does not extend the last signed checkpoint, which is
    then not signed over; (the latest, []) when no head has moved since it. Each chain is
    walked from the last signed link, or else from the link `verify_chain` last found sound;
    `full` walks every chain from its first link instead. A lock bucket that cannot be written
    is a problem too, the checkpoint being signed and stored all the same."""
    from .events import consistency_problems  # a cycle: events imports this module at load

    key = signing_key()
    if key is None:
        return None, []
    try:
        previous = latest_checkpoint()
    except CheckpointProblem as problem:
        return None, [("checkpoints", 0, str(problem))]
    heads = list(ChainHead.objects.filter(training=False).order_by("chain"))  # ADR 0080
    if previous is not None and previous.heads == {h.chain: (h.seq, h.hash) for h in heads}:
        return previous, _locked_copy(previous) + _publish(previous)
    problems = consistency_problems(heads, previous, full=full)
    if problems:
        return None, problems
    store, at = storage(), timezone.localtime(at or timezone.now())
    while store.exists(file_name(at)):  # one signed in the same microsecond (a frozen clock)
        at += timedelta(microseconds=1)
    body = {
        "version": VERSION,
        "date": at.date().isoformat(),
        "issued_at": at.isoformat(),
        "key_id": key_id(key.public_key()),
        "chains": {h.chain: {"seq": h.seq, "hash": h.hash} for h in heads},
    }
    checkpoint = SignedCheckpoint(body=body, signature=key.sign(_canonical(body)))
    name = file_name(at)
    saved = store.save(name, ContentFile(checkpoint.to_file().encode()))
    if saved != name:  # a run alongside took the name meanwhile: keep neither under another
        store.delete(saved)
        return None, [("checkpoints", 0, f"{name} was written meanwhile by another run")]
    return checkpoint, _locked_copy(checkpoint) + _publish(checkpoint)


def _locked_copy(checkpoint):
    """Write the checkpoint to the lock bucket unless it is there: [] or [a problem]."""
    if not locked.configured():
        return []
    name = f"{folder()}/{checkpoint.base_name}"
    try:
        if not locked.has(name):
            locked.put(name, checkpoint.to_file())
    except locked.LockedCopyProblem as problem:
        return [("checkpoints", 0, str(problem))]
    return []


def _publish(checkpoint):
    """The latest checkpoint, for the public /verify/ page: one row, replaced only by a later
    one."""
    row = PublishedCheckpoint.objects.filter(pk=1).first()
    if row is None or row.issued_at < checkpoint.issued_at:
        PublishedCheckpoint.objects.update_or_create(
            pk=1,
            defaults={
                "name": checkpoint.base_name,
                "issued_at": checkpoint.issued_at,
                "text": checkpoint.to_file(),
            },
        )
    return []


def printed(checkpoint=None):
    """What a paper document prints of the latest signed checkpoint, or None when none."""
    try:
        checkpoint = checkpoint or latest_checkpoint()
    except CheckpointProblem:
        return None
    if checkpoint is None:
        return None
    return {
        "day": checkpoint.day,
        "chains": len(checkpoint.body["chains"]),
        "digest": checkpoint.digest,
        "signature": checkpoint.signature_text,
        "key_id": checkpoint.key_id,
    }
