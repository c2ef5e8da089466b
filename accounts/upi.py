"""Where the dues are paid by UPI: a pound's collection VPA and payee name, or else its
district's (ADR 0076). Defined here to keep accounts.models short."""

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from kernel.upi import UpiPayee, validate_vpa


class UpiPayeeFields(models.Model):
    """A collection VPA (`name@handle`) and the name a payer's UPI app shows for it."""

    upi_vpa = models.CharField(
        _("UPI ID for collections"),
        max_length=255,
        blank=True,
        default="",
        db_default="",  # the previous release writes pounds and districts without it (ADR 0062)
        validators=[validate_vpa],
        help_text=_("The account the dues are paid into by UPI, for example dm.lucknow@sbi."),
    )
    upi_payee_name = models.CharField(
        _("UPI payee name"), max_length=99, blank=True, default="", db_default=""
    )

    class Meta:
        abstract = True

    def clean(self):
        super().clean()
        if self.upi_vpa and not self.upi_payee_name.strip():
            raise ValidationError(
                {"upi_payee_name": _("Enter the name the bank holds for this UPI ID.")}
            )

    @property
    def own_upi_payee(self):
        if self.upi_vpa and self.upi_payee_name:
            return UpiPayee(vpa=self.upi_vpa, name=self.upi_payee_name)
        return None


def collection_payee(pound):
    """Who collects the dues of `pound` by UPI: the pound's own VPA, or its district's, or None
    when neither is set (then no QR code is printed)."""
    return pound.own_upi_payee or pound.district.own_upi_payee
