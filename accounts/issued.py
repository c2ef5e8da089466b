"""Every document the system issues (IssuedDocument), with its unguessable token for the QR
code's verification page and the PDF kept as first drawn. Defined here to keep accounts.models
short; imported there, so `accounts.models.IssuedDocument` is the name to use.

A kept PDF is drawn again only on an explicit reissue (`accounts.services.reissue_document`),
with a reason and an event: the file issued before is kept, with its fingerprint, as an
EarlierFile, and the next download draws and keeps the new one."""

import hashlib
import logging
import secrets

from django.core.files.base import ContentFile
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from kernel.messages import for_reader
from kernel.uploads import UploadName, stored_name

logger = logging.getLogger(__name__)


def new_token():
    # 128 bits of randomness, URL-safe: unguessable, so a verification link reveals nothing else.
    return secrets.token_urlsafe(16)


class IssuedDocumentManager(models.Manager):
    def issue(
        self,
        *,
        kind,
        number,
        by,
        subject_type,
        subject_id=0,
        pound=None,
        district=None,
        office=None,
        issued_at=None,
        valid_until=None,
        amount=None,
        animal_count=None,
        replaces=None,
    ):
        """Register one document issued: the only way an IssuedDocument is made.

        The issuing office is `office`, an (English, Hindi) pair, or else the pound's name; the
        district is the pound's unless given. `subject_id` may be 0 until the record the document
        is about has been saved (see `link`). `replaces`: the cancelled document this one
        corrects, named on both verification pages."""
        if office is None:
            office = (pound.name, pound.name_hi or pound.name)
        fields = {"issued_at": issued_at} if issued_at is not None else {}
        return self.create(
            kind=kind,
            number=number,
            issued_by=by,
            district=district or (pound.district if pound is not None else None),
            pound=pound,
            issuing_office=office[0],
            issuing_office_hi=office[1],
            valid_until=valid_until,
            subject_type=subject_type,
            subject_id=subject_id,
            amount=amount,
            animal_count=animal_count,
            replaces=replaces,
            **fields,
        )

    def kept_pdf(self, document, render, *, as_issued=True, basis="", slip=False):
        """The document's PDF as issued: drawn by `render()` the first time, stored, and hashed;
        every later call reads the stored file. Two first downloads at once both draw it, and the
        first stored wins. `as_issued=False` (the record has changed since, say a cancelled
        receipt that says so across the page) draws it afresh and stores nothing: the stored
        file stays the one that was issued.

        `basis` is the fingerprint of what a document computed from the books is drawn from (a
        return's figures, see kernel.documents.html_basis): kept with the first file, and a
        later call whose basis differs (an entry amended since, say) draws afresh and stores
        nothing, so a kept file is served only while it still says what a new drawing would.

        `slip=True` keeps the same document drawn for an 80 mm roll printer, in `slip_file`,
        the same way; the fingerprint /verify/ shows stays the A4 file's."""
        if not as_issued:
            return render()
        field = "slip_file" if slip else "file"
        stored = getattr(document, field)
        if stored:
            if not slip and document.drawn_from != basis:
                return render()
            return _read_kept(document, stored, render)
        pdf = render()
        name = stored.storage.save(
            UploadName("documents")(document, stored_name("pdf")), ContentFile(pdf)
        )
        fields = {field: name}
        if not slip:
            fields |= {"sha256": hashlib.sha256(pdf).hexdigest(), "drawn_from": basis}
        if self.filter(pk=document.pk, **{field: ""}).update(**fields):
            for key, value in fields.items():
                setattr(document, key, value)
            return pdf
        stored.storage.delete(name)  # another request stored it first: keep that one
        document.refresh_from_db(fields=list(fields))
        if not slip and document.drawn_from != basis:
            return pdf
        with getattr(document, field).open("rb") as handle:
            return handle.read()

    def link(self, document, record):
        """Point a document issued before its record was saved at that record."""
        self.filter(pk=document.pk).update(subject_id=record.pk)


class IssuedDocument(models.Model):
    """Every PDF the system issues is registered here, so that its QR code can be verified."""

    class Kind(models.TextChoices):
        APPOINTMENT_CARD = "appointment_card", _("Appointment card")
        REGISTER_COPY = "register_copy", _("Copy of the register entry (s.8)")
        RECEIPT = "receipt", _("Receipt for fines and feeding charges (s.13)")
        DEPOSIT_RECEIPT = "deposit_receipt", _("Deposit receipt (s.15)")
        TARIFF_SCHEDULE = "tariff_schedule", _("Schedule of fines and feeding rates (ss.5, 12)")
        S14_REPORT = "s14_report", _("Report of unclaimed cattle (s.14)")
        S14_NOTICE = "s14_notice", _("Notice of unclaimed cattle (s.14)")
        SALE_CERTIFICATE = "sale_certificate", _("Sale certificate (ss.14, 16)")
        HANDOVER_CERTIFICATE = (
            "handover_certificate",
            _("Certificate of handover to a gaushala (s.14 proviso)"),
        )
        S16_ACCOUNT = "s16_account", _("Account to the owner after a sale (s.16)")
        TRANSFER_MEMO = "transfer_memo", _("Memo of transfer of surplus to revenue (s.17)")
        RETURN = "return", _("Periodic return (s.7)")

    token = models.CharField(max_length=32, unique=True, default=new_token, editable=False)
    kind = models.CharField(_("document"), max_length=40, choices=Kind.choices)
    number = models.CharField(_("number"), max_length=60, unique=True)
    issued_at = models.DateTimeField(_("issued at"), default=timezone.now)
    issued_by = models.ForeignKey(
        "accounts.User", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    district = models.ForeignKey(
        "accounts.District", on_delete=models.PROTECT, null=True, blank=True
    )
    pound = models.ForeignKey("accounts.Pound", on_delete=models.PROTECT, null=True, blank=True)
    issuing_office = models.CharField(_("issuing office"), max_length=200)
    issuing_office_hi = models.CharField(max_length=200, blank=True)
    valid_until = models.DateField(_("valid until"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("cancelled at"), null=True, blank=True)
    revoked_reason = models.CharField(_("reason for cancellation"), max_length=200, blank=True)
    # What proves a paper copy (shown on /verify/, no personal data): its amount, how many
    # animals it is about, and the SHA-256 of the PDF as first drawn and stored.
    amount = models.DecimalField(
        _("amount"), max_digits=12, decimal_places=2, null=True, blank=True
    )
    animal_count = models.PositiveIntegerField(_("animals"), null=True, blank=True)
    # A corrected document names the cancelled one it replaces (a receipt, decision 11); each
    # verification page names the other, by number only.
    replaces = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="replaced_by",
        editable=False,
    )
    # The record the document is about, for the issuing app's own lookups (never shown publicly).
    subject_type = models.CharField(max_length=60)
    subject_id = models.PositiveBigIntegerField()
    # The PDF as issued, kept in the storage, and its SHA-256 (shown on the verification page).
    file = models.FileField(upload_to=UploadName("documents"), blank=True, editable=False)
    sha256 = models.CharField(max_length=64, blank=True, editable=False)
    # For a document computed from the books (a return): the SHA-256 of what the kept file was
    # drawn from, so that a download whose figures have changed since is drawn afresh.
    drawn_from = models.CharField(max_length=64, blank=True, editable=False)
    # The same document drawn for an 80 mm roll printer, kept like `file` (a receipt's slip).
    slip_file = models.FileField(upload_to=UploadName("documents"), blank=True, editable=False)

    objects = IssuedDocumentManager()

    class Meta:
        verbose_name = _("issued document")
        verbose_name_plural = _("issued documents")
        indexes = [models.Index(fields=["subject_type", "subject_id"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(revoked_at__isnull=True, revoked_reason="")
                | Q(revoked_at__isnull=False) & ~Q(revoked_reason=""),
                name="document_revoked_with_reason",
            )
        ]

    def __str__(self):
        return f"{self.get_kind_display()} {self.number}"

    def get_absolute_url(self):
        return reverse("verify", kwargs={"token": self.token})

    @property
    def office_label(self):
        return for_reader(self.issuing_office, self.issuing_office_hi)

    def is_valid(self, on=None):
        on = on or timezone.localdate()
        if self.revoked_at is not None:
            return False
        return self.valid_until is None or self.valid_until >= on


class EarlierFile(models.Model):
    """A file a document was issued as before it was reissued: kept, with its SHA-256, so a
    paper printed from it can still be checked against its fingerprint."""

    document = models.ForeignKey(
        IssuedDocument, on_delete=models.PROTECT, related_name="earlier_files"
    )
    file = models.FileField(upload_to=UploadName("documents"), editable=False)
    sha256 = models.CharField(max_length=64, editable=False)
    set_aside_at = models.DateTimeField(_("reissued at"), default=timezone.now)
    set_aside_by = models.ForeignKey(
        "accounts.User", on_delete=models.PROTECT, null=True, related_name="+"
    )
    reason = models.CharField(_("reason for reissue"), max_length=200)

    class Meta:
        verbose_name = _("earlier file of a document")
        verbose_name_plural = _("earlier files of documents")
        ordering = ["set_aside_at", "pk"]

    def __str__(self):
        return f"{self.document} as issued before {self.set_aside_at:%Y-%m-%d}"


def _read_kept(document, stored, render):
    """The kept file; if the store has lost it, a fresh drawing, and an error in the log for
    the operators to restore the file from the backup. The record keeps the issued file's name
    and hash: a fresh drawing is not what was issued, so it is not stored in its place."""
    try:
        with stored.open("rb") as handle:
            return handle.read()
    except FileNotFoundError:
        logger.error(
            "kept file missing from the store: %s (document %s); drawn afresh, not stored",
            stored.name,
            document.pk,
        )
        return render()
