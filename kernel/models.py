"""The event log: every state change, who made it, when, and the section of the Act relied on.

Each pound's events form a hash chain: an event stores the hash of the one before it, and its own
hash covers its content and that link. Editing or deleting a row outside the application breaks
the chain at that row, and `manage.py verify_chain` names the first broken link.

The kernel sits below every app, so an event names the records it is about by their ids only
(the acting user, the district, the pound, the register entry, the animal), never by a relation
to an upper floor's model. Lookups may still pass the records themselves
(`Event.objects.filter(animal=animal)`): the queryset reads their primary keys. The apps that own
those records are named in settings.EVENT_SUBJECTS, so `event.animal` reads the animal without
the kernel importing the app it lives in.
"""

import hashlib
import json
import secrets

from django.apps import apps
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .messages import Message

GENESIS = "0" * 64

# The records an event names, each by the id of its row; settings.EVENT_SUBJECTS names the
# model each is a row of.
SUBJECTS = ("by", "district", "pound", "impoundment", "animal")


def subject_model(name):
    """The model whose row an event's `name`_id is (settings.EVENT_SUBJECTS)."""
    return apps.get_model(settings.EVENT_SUBJECTS[name])


class ChainHead(models.Model):
    """The latest link of one chain. Appending locks this row, so links are strictly ordered."""

    chain = models.CharField(max_length=40, unique=True)
    seq = models.PositiveBigIntegerField(default=0)
    hash = models.CharField(max_length=64, default=GENESIS)
    # A training district's chain (ADR 0080): verified like any other, never signed into the
    # State's checkpoints.
    training = models.BooleanField(default=False, db_default=False)

    def __str__(self):
        return f"{self.chain}#{self.seq}"


class ChainCheckpoint(models.Model):
    """The last link of a chain found sound by `verify_chain`: the next run starts here and walks
    only the links written since. `verify_chain --full` still walks from the first link, and
    also holds the chain to this hash, so a chain rewritten from its start is caught too."""

    chain = models.CharField(max_length=40, unique=True)
    seq = models.PositiveBigIntegerField()
    hash = models.CharField(max_length=64)
    verified_at = models.DateTimeField()

    class Meta:
        verbose_name = _("chain checkpoint")
        verbose_name_plural = _("chain checkpoints")

    def __str__(self):
        return f"{self.chain}#{self.seq}"


def _by_id(kwargs):
    """`animal=obj` -> `animal_id=obj.pk`; `pound__in=[...]` -> `pound_id__in=[...]`."""
    out = {}
    for key, value in kwargs.items():
        name, _sep, rest = key.partition("__")
        if name in SUBJECTS:
            key = f"{name}_id" + (f"__{rest}" if rest else "")
            if rest == "in":
                value = [getattr(v, "pk", v) for v in value]
            else:
                value = getattr(value, "pk", value)
        out[key] = value
    return out


class EventQuerySet(models.QuerySet):
    def _filter_or_exclude(self, negate, args, kwargs):
        return super()._filter_or_exclude(negate, args, _by_id(kwargs))

    def with_actors(self):
        """Evaluate, and give each event its acting user from one query (no query per row)."""
        events = list(self)
        ids = {e.by_id for e in events if e.by_id is not None}
        users = subject_model("by").objects.in_bulk(ids) if ids else {}
        for event in events:
            event._subjects = {"by": users.get(event.by_id)}
        return events


class Event(models.Model):
    chain = models.CharField(max_length=40)
    seq = models.PositiveBigIntegerField()
    at = models.DateTimeField(default=timezone.now)
    by_id = models.BigIntegerField(null=True, blank=True)
    action = models.CharField(_("what"), max_length=60)
    section = models.CharField(_("section of the Act"), max_length=40, blank=True)
    summary = models.CharField(max_length=300)
    district_id = models.BigIntegerField()
    pound_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    impoundment_id = models.BigIntegerField(null=True, blank=True)
    animal_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    data = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    # The digest of the event's personal fields (EventPersonal), which the hash covers in their
    # place; empty for an event that has none, and for every link written before they were
    # kept apart.
    personal_digest = models.CharField(max_length=64, blank=True, default="")
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    objects = EventQuerySet.as_manager()

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        ordering = ["chain", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["chain", "seq"], name="event_chain_seq"),
        ]
        indexes = [models.Index(fields=["impoundment_id", "at"], name="event_impoundment_at")]

    def __str__(self):
        return f"{self.chain}#{self.seq} {self.action}"

    def _subject(self, name):
        cache = self.__dict__.setdefault("_subjects", {})
        if name not in cache:
            pk = getattr(self, f"{name}_id")
            model = subject_model(name)
            cache[name] = model.objects.filter(pk=pk).first() if pk is not None else None
        return cache[name]

    # The records the event is about, read on demand (None where the event names none).
    by = property(lambda self: self._subject("by"))
    district = property(lambda self: self._subject("district"))
    pound = property(lambda self: self._subject("pound"))
    impoundment = property(lambda self: self._subject("impoundment"))
    animal = property(lambda self: self._subject("animal"))

    @property
    def personal(self):
        """The event's personal fields while they exist: {} once erased, or when it had none."""
        try:
            return self.personal_fields.fields
        except EventPersonal.DoesNotExist:
            return {}

    @property
    def summary_text(self):
        """The summary in the reader's language, when it was stored as a message
        (kernel.messages); the English text otherwise. While the personal fields exist, a
        person the summary names by role ("the claimant") is named by the field of that name."""
        message = Message.from_data(self.data.get("_summary"))
        if message is None:
            return self.summary
        personal = self.personal if self.personal_digest else {}
        message.args |= {k: v for k, v in personal.items() if k in message.args}
        return str(message)

    @property
    def label(self):
        from .events import action_label  # events imports this module's Event at load

        return action_label(self.action)

    def payload(self):
        """The content the hash covers, in a canonical form. A link with personal fields covers
        their digest (the key "personal"), never the fields: a link without has no such key, so
        the links written before the fields were kept apart hash as they always did."""
        payload = {
            "chain": self.chain,
            "seq": self.seq,
            "at": self.at.astimezone(timezone.UTC).isoformat(timespec="microseconds"),
            "by": self.by_id,
            "action": self.action,
            "section": self.section,
            "summary": self.summary,
            "district": self.district_id,
            "pound": self.pound_id,
            "impoundment": self.impoundment_id,
            "animal": self.animal_id,
            "data": self.data,
            "prev": self.prev_hash,
        }
        if self.personal_digest:
            payload["personal"] = self.personal_digest
        return payload

    def compute_hash(self):
        return hashlib.sha256(canonical(self.payload()).encode()).hexdigest()


def canonical(value):
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), cls=DjangoJSONEncoder, ensure_ascii=False
    )


def new_salt():
    return secrets.token_hex(16)


def personal_digest(salt, fields):
    """sha256(salt || canonical JSON of the fields): what an event's hash covers in place of its
    personal fields. The salt, erased with the fields, stops a short name being found again by
    hashing candidate names (docs/decisions/0010)."""
    return hashlib.sha256(bytes.fromhex(salt) + canonical(fields).encode()).hexdigest()


class EventPersonal(models.Model):
    """The personal fields of one event (names, addresses, phones of the public) and their salt,
    kept apart from the hashed link. Erasure under the retention rule deletes the row; the
    link keeps the digest, so the chain still verifies. The row is never changed: PostgreSQL
    refuses UPDATE, and `verify_chain` recomputes the digest of every row that is left."""

    event = models.OneToOneField(
        Event, primary_key=True, on_delete=models.CASCADE, related_name="personal_fields"
    )
    fields = models.JSONField(encoder=DjangoJSONEncoder)
    salt = models.CharField(max_length=32)

    class Meta:
        verbose_name = _("personal fields of an event")
        verbose_name_plural = _("personal fields of events")

    def __str__(self):
        return f"personal fields of event {self.event_id}"

    def digest(self):
        try:
            return personal_digest(self.salt, self.fields)
        except ValueError:  # a salt that is not hex was not written by record_event
            return ""


class WorkerLease(models.Model):
    """One worker process's lease on the task it runs (docs/decisions/0052). Its heartbeat
    renews the row every third of WORKER_LEASE_SECONDS, by the database's clock; a task whose
    worker stopped renewing goes back to the queue (kernel/worker.py). The task is named by id,
    not by a relation, so pruning the task results never meets this table. A worker with no
    task renews its lease too: a live row is a live worker."""

    worker_id = models.CharField(max_length=64, primary_key=True)
    host = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    # The running task (a django-tasks-db result's id), and the PostgreSQL backend running it.
    task_id = models.UUIDField(null=True, blank=True)
    backend_pid = models.PositiveIntegerField(null=True, blank=True)
    application_name = models.CharField(max_length=63, blank=True)
    started_at = models.DateTimeField()
    renewed_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        verbose_name = _("worker lease")
        verbose_name_plural = _("worker leases")

    def __str__(self):
        return f"worker {self.worker_id} on {self.host}:{self.pid}"


class Installation(models.Model):
    """This database's own name, made once by the migration that adds the table and kept by a
    restored copy (pg_dump carries the row). Signed checkpoints are stored under it, so two
    databases on one bucket never read each other's (docs/decisions/0020-signed-checkpoints.md).
    """

    key = models.CharField(max_length=32, unique=True, editable=False)
    made_at = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self):
        return self.key

    @classmethod
    def current(cls):
        """This database's installation id, made here when the row is missing (a test database
        flushed between tests; the migration makes it everywhere else)."""
        key = cls.objects.order_by("pk").values_list("key", flat=True).first()
        if key is None:
            key = cls.objects.get_or_create(pk=1, defaults={"key": secrets.token_hex(16)})[0].key
        return key


class PublishedCheckpoint(models.Model):
    """The latest signed checkpoint, as its file holds it, for the public /verify/ page: one
    row, read in one query, so anyone can keep a copy of every chain's signed head without the
    page reading the checkpoints' history (kernel/anchors.py). The signature, not this row, is
    what proves it: a copy kept elsewhere checks against the public key."""

    name = models.CharField(max_length=80)
    issued_at = models.DateTimeField()
    text = models.TextField()

    def __str__(self):
        return self.name
