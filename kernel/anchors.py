"""Signed checkpoints: each chain's head, signed with a key the database never holds.

The hash chain shows an edit made behind the application's back, but someone who can write the
tables can also rehash a chain from the edited link onwards and move its head, or cut the last
links and step the head back, and the chain then holds together again. So once a day the daily
run signs every chain's head (its link number and hash) with an Ed25519 key read from the
environment or a file, and stores the signed checkpoint outside the database, in the file
storage (the object store in production), under `checkpoints/<installation>/<date>.json`: the
installation id is this database's own (`Installation`), so a second database on the same bucket,
or a restored copy, never reads another's checkpoints. The daily cash book
and the monthly return print the latest one's digest and signature, so a paper copy anchors it
too. `verify_chain` holds every chain to the latest signed checkpoint: a chain that no longer
has the signed link is named as cut, one whose signed link has another hash as rehashed.

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
from datetime import date
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.files.base import ContentFile
from django.core.files.storage import InvalidStorageError, storages
from django.utils import timezone

from .models import ChainHead, Event, Installation

PREFIX = "checkpoints"
VERSION = 1


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


def file_name(day, installation=None):
    return f"{folder(installation)}/{day.isoformat()}.json"


def checkpoint_names(store=None):
    """The names of this database's checkpoint files in `store` (the checkpoints' storage),
    oldest first."""
    store, mine = store or storage(), folder()
    try:
        _dirs, files = store.listdir(mine)
    except FileNotFoundError:
        return []
    return [f"{mine}/{f}" for f in sorted(files) if f.endswith(".json")]


def latest_checkpoint(store=None):
    """The latest signed checkpoint of this database in `store` (the checkpoints' storage, or a
    backup's copy of it), its signature checked; None when there is none. Raises
    CheckpointProblem when it does not verify (the file was changed), or when there is a
    checkpoint but no key to verify it with."""
    store = store or storage()
    names = checkpoint_names(store)
    if not names:
        return None
    name = names[-1]
    with store.open(name, "rb") as handle:
        try:
            checkpoint = SignedCheckpoint.from_file(handle.read().decode())
        except (ValueError, KeyError) as error:
            raise CheckpointProblem(f"{name} cannot be read: {error}") from error
    key = public_key()
    if key is None:
        raise CheckpointProblem(f"{name} cannot be verified: no CHECKPOINT_PUBLIC_KEY is set")
    if checkpoint.body.get("key_id") != key_id(key) or not checkpoint.verifies(key):
        raise CheckpointProblem(f"{name}: its signature does not verify; the file was changed")
    return checkpoint


def against_checkpoint(name, head, checkpoint):
    """(chain, seq, problem) when chain `name`, whose head is `head` (or None), no longer holds
    the link `checkpoint` signed; None when it does, or the checkpoint names no such chain."""
    signed = checkpoint.heads.get(name)
    if signed is None:
        return None
    seq, signed_hash = signed
    day = checkpoint.day.isoformat()
    ends = head.seq if head else 0
    link = Event.objects.filter(chain=name, seq=seq).values_list("hash", flat=True).first()
    if ends < seq or link is None:
        return (
            name,
            ends + 1,
            f"tail cut: the checkpoint signed on {day} holds links to {seq}, "
            f"the chain now ends at {ends}",
        )
    if link != signed_hash:
        return (
            name,
            seq,
            f"rehashed: link {seq} is not the link the checkpoint signed on {day} holds",
        )
    return None


def write_checkpoint(*, on=None, full=False):
    """Sign today's checkpoint and store it, once a day. Returns (checkpoint, problems):
    (None, []) without a signing key; (None, problems) when a chain does not extend the last
    signed checkpoint, which is then not signed over. Each chain is walked from the last
    signed link, or else from the link `verify_chain` last found sound; `full` walks every
    chain from its first link instead."""
    from .events import consistency_problems  # a cycle: events imports this module at load

    key = signing_key()
    if key is None:
        return None, []
    on = on or timezone.localdate()
    store, name = storage(), file_name(on)
    if store.exists(name):
        with store.open(name, "rb") as handle:
            return SignedCheckpoint.from_file(handle.read().decode()), []
    try:
        previous = latest_checkpoint()
    except CheckpointProblem as problem:
        return None, [("checkpoints", 0, str(problem))]
    heads = list(ChainHead.objects.order_by("chain"))
    problems = consistency_problems(heads, previous, full=full)
    if problems:
        return None, problems
    body = {
        "version": VERSION,
        "date": on.isoformat(),
        "issued_at": timezone.now().isoformat(timespec="seconds"),
        "key_id": key_id(key.public_key()),
        "chains": {h.chain: {"seq": h.seq, "hash": h.hash} for h in heads},
    }
    checkpoint = SignedCheckpoint(body=body, signature=key.sign(_canonical(body)))
    saved = store.save(name, ContentFile(checkpoint.to_file().encode()))
    if saved != name:  # a run alongside stored the day's first: keep that one
        store.delete(saved)
    return checkpoint, []


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
