"""Bidders at an auction, and who of them may buy: no officer of police, pound-keeper or other
officer under the Act may buy, directly or indirectly (s.19).

The rule lives here twice over, as `Bidder.check_may_buy` for one bidder and as
`BidderQuerySet.may_buy` for the forms' choices; the services check each bid and each sale with
the first, and again against the staff records of the day (`auctions.services.auction`).
"""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.scoping import PoundScopedQuerySet


class BidderQuerySet(PoundScopedQuerySet):
    scope = "auction__pound_id"

    def may_buy(self):
        """The bidders `Bidder.check_may_buy` lets buy, as a filter."""
        return self.filter(declaration_signed=True).exclude(blocked=True, override_by__isnull=True)


class Bidder(models.Model):
    """A bidder registered for one auction, checked against the staff records (s.19)."""

    class IdKind(models.TextChoices):
        AADHAAR = "aadhaar", _("Aadhaar (last four digits)")
        VOTER = "voter", _("Voter ID")
        PAN = "pan", _("PAN")
        DRIVING = "driving", _("Driving licence")
        OTHER = "other", _("Other")

    auction = models.ForeignKey(
        "auctions.Auction", on_delete=models.PROTECT, related_name="bidders"
    )
    number = models.PositiveSmallIntegerField(_("bidder number"))
    name = models.CharField(_("name"), max_length=150)
    address = models.CharField(_("address"), max_length=250)
    id_kind = models.CharField(_("identity document"), max_length=10, choices=IdKind.choices)
    id_number = models.CharField(_("document number"), max_length=40)
    phone = models.CharField(_("phone"), max_length=15)
    declaration_signed = models.BooleanField(_("signed the buyer's declaration (s.19)"))
    # The s.19 check: matches against staff, the block, and any override by the Magistrate.
    matches = models.JSONField(default=list, blank=True)
    blocked = models.BooleanField(default=False)
    override_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    override_reason = models.CharField(max_length=300, blank=True)
    override_at = models.DateTimeField(null=True, blank=True)
    registered_at = models.DateTimeField(default=timezone.now)
    registered_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    # A registration made before one person could register only once (0057): the number he
    # was first registered under at this auction. Never set since; the constraints skip these.
    same_as = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    # The bidder form's single-use key: sent twice, one bidder (null when registered by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = BidderQuerySet.as_manager()

    class Meta:
        verbose_name = _("bidder")
        verbose_name_plural = _("bidders")
        ordering = ["auction", "number"]
        constraints = [
            models.UniqueConstraint(fields=["auction", "number"], name="bidder_number"),
            models.CheckConstraint(
                condition=Q(override_by__isnull=True) | ~Q(override_reason=""),
                name="bidder_override_has_reason",
            ),
            # One person, one registration at an auction (s.19, ADR 0057): the service compares
            # the numbers as written less punctuation; these hold the same number as typed.
            models.UniqueConstraint(
                fields=["auction", "phone"],
                condition=~Q(phone="") & Q(same_as__isnull=True),
                name="bidder_once_per_phone",
            ),
            models.UniqueConstraint(
                fields=["auction", "id_number"],
                condition=~Q(id_number="") & ~Q(id_kind="aadhaar") & Q(same_as__isnull=True),
                name="bidder_once_per_id_number",
            ),
        ]

    def __str__(self):
        return f"{self.number}. {self.name}"

    def check_may_buy(self):
        """Refuse, with the reason, a bidder who has not signed the declaration, or who is blocked
        as possibly an officer or a pound-keeper and not cleared by the Magistrate (s.19)."""
        if not self.declaration_signed:
            raise ValidationError(gettext("This bidder has not signed the declaration (s.19)."))
        if self.blocked and self.override_by_id is None:
            raise ValidationError(
                gettext("This bidder is blocked: he may be an officer or pound-keeper (s.19).")
            )

    @property
    def may_buy(self):
        try:
            self.check_may_buy()
        except ValidationError:
            return False
        return True
