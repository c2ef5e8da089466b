"""Messages to owners (docs/decisions/0077): the State's registered templates, the owner's phone
on an entry (with the owner's opting out and consent to WhatsApp), and every message, from its
queueing to its delivery report."""

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Event(models.TextChoices):
    """What a message is about: one registered template per event and language."""

    INTAKE = "intake", _("Cattle brought to the pound")
    S14_REPORT = "s14_report", _("Reported to the police as unclaimed (s.14)")
    NOTICE_POSTED = "notice_posted", _("Notice of sale posted (s.14)")
    AUCTION_TOMORROW = "auction_tomorrow", _("Auction tomorrow")
    RELEASED = "released", _("Released: receipt issued")
    DEPOSIT = "deposit", _("Released on deposit (s.15)")
    SURPLUS = "surplus", _("Surplus of the sale may be claimed (s.17)")
    ONE_TIME_CODE = "one_time_code", _("One-time code")
    LOST_MATCH = "lost_match", _("A lost animal may be at a pound")
    OPT_OUT_CODE = "opt_out_code", _("One-time code to stop or restart messages")


class Category(models.TextChoices):
    """The DLT content categories a template is registered under."""

    TRANSACTIONAL = "transactional", _("Transactional")
    SERVICE_IMPLICIT = "service_implicit", _("Service (implicit)")
    SERVICE_EXPLICIT = "service_explicit", _("Service (explicit)")


class Template(models.Model):
    """One (event, language): the text as registered on DLT, `{#var#}` for each variable in
    order. The DLT id is left blank until the State registers the text: a message of a template
    without one is held, never sent to a gateway that would block it."""

    event = models.CharField(_("event"), max_length=30, choices=Event)
    language = models.CharField(_("language"), max_length=8)
    text = models.TextField(_("registered text"))
    # The variables' names, in the order of the text's {#var#}.
    variables = models.JSONField(default=list)
    dlt_template_id = models.CharField(_("DLT template id"), max_length=30, blank=True)
    category = models.CharField(
        _("category"), max_length=20, choices=Category, default=Category.SERVICE_IMPLICIT
    )
    # The 6-character header registered with the template; blank: MESSAGING_SENDER.
    sender = models.CharField(_("sender"), max_length=6, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["event", "language"]
        constraints = [
            models.UniqueConstraint(fields=["event", "language"], name="msgtemplate_one"),
        ]

    def __str__(self):
        return f"{self.event} ({self.language})"


class Phone(models.Model):
    """A phone number of the public, with what its holder said: opted out of messages (honoured
    for every entry), consent to WhatsApp."""

    number = models.CharField(max_length=15, unique=True)
    opted_out_at = models.DateTimeField(null=True, blank=True)
    whatsapp_consent_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return self.number


class Contact(models.Model):
    """The owner's phone on a register entry, and the language the owner reads."""

    impoundment = models.ForeignKey(
        "impounding.Impoundment", on_delete=models.PROTECT, related_name="contacts"
    )
    phone = models.ForeignKey(Phone, on_delete=models.PROTECT, related_name="contacts")
    language = models.CharField(max_length=8, default="hi")
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["impoundment", "phone"], name="contact_one_per_entry"),
        ]

    def __str__(self):
        return f"{self.impoundment_id} {self.phone_id}"


class Message(models.Model):
    """One message to one recipient, from its queueing to the gateway's report."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting to be sent")
        HELD = "held", _("Held")
        SENT = "sent", _("Sent")
        DELIVERED = "delivered", _("Delivered")
        FAILED = "failed", _("Not delivered")
        REFUSED = "refused", _("Not sent")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # What makes it one message: the event, the entry (or the code's request), the recipient.
    key = models.CharField(max_length=200, unique=True)
    template = models.ForeignKey(Template, on_delete=models.PROTECT, related_name="+")
    event = models.CharField(max_length=30, choices=Event)
    language = models.CharField(max_length=8)
    variables = models.JSONField(default=dict)
    text = models.TextField()
    dlt_template_id = models.CharField(max_length=30, blank=True)
    segments = models.PositiveSmallIntegerField(default=1)
    recipient = models.CharField(max_length=254)
    channel = models.CharField(max_length=20)
    urgent = models.BooleanField(default=False)
    impoundment = models.ForeignKey(
        "impounding.Impoundment",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="messages",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    reason = models.CharField(max_length=200, blank=True)
    provider_id = models.CharField(max_length=100, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    # When it is next due; also the lease of a sender at work (messaging.services.claim).
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    # The gateway's delivery report (messaging.reports, ADR 0084): when it reached us, and the
    # status the gateway gave (DELIVRD, UNDELIV, EXPIRED ...), as it gave it.
    reported_at = models.DateTimeField(null=True, blank=True)
    report_status = models.CharField(max_length=20, blank=True, default="", db_default="")

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                name="message_due",
                condition=models.Q(status="queued"),
            ),
            models.Index(fields=["impoundment", "created_at"], name="message_entry"),
            models.Index(fields=["provider_id"], name="message_provider_id"),
        ]

    def __str__(self):
        return f"{self.event} {self.id}"


class OptOutCode(models.Model):
    """A one-time code sent to a phone whose holder asks to stop (or restart) the messages, as
    the lost-cattle form's codes are (ADR 0079, 0084): kept hashed, good for a few minutes and
    a few tries, one live code a phone."""

    phone = models.ForeignKey(Phone, on_delete=models.CASCADE, related_name="codes")
    code_hash = models.CharField(max_length=128)
    sent_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    tries = models.PositiveSmallIntegerField(default=0)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["phone", "sent_at"], name="optoutcode_phone")]

    def __str__(self):
        return f"code for {self.phone_id}"


class EarlyReport(models.Model):
    """A gateway's final delivery report that reached us before the message's provider id was
    saved (the gateway answered the send, and pushed its report, before the sender recorded the
    answer). Kept until the id is saved, then applied by the same transitions and deleted in
    that save's transaction (messaging.services); one per provider and id, the first kept. One
    never matched is deleted by the retention run after `MESSAGING_EARLY_REPORT_DAYS`."""

    provider = models.CharField(max_length=20)
    provider_id = models.CharField(max_length=100)
    delivered = models.BooleanField()
    status = models.CharField(max_length=20, blank=True)  # the gateway's own word
    at = models.DateTimeField(null=True, blank=True)  # the handset's time, as the gateway gave it
    received_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "provider_id"], name="early_report_one_per_message"
            )
        ]
        indexes = [models.Index(fields=["received_at"], name="early_report_received")]

    def __str__(self):
        return f"{self.provider} {self.provider_id}"
