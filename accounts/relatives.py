"""The household members and close relatives a member of staff declares, for the s.19 bar: no
officer of police, pound-keeper or other officer under the Act may buy "directly or indirectly",
so a keeper's brother bidding under his own name is checked as she would be
(auctions.staffcheck; docs/decisions/0057-s19-relatives-screen.md).

A declaration is the staff member's own personal data and her relatives': she keeps it herself,
an administrator sees and corrects it for the districts he manages, and the retention rule
erases it once she has left the service long enough (office.retention)."""

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .roles import Permission, Scope
from .scoping import grants_for, visible_district_ids


def staff_in_reach(user, perm=Permission.MANAGE_STAFF):
    """The users whose declarations `user` may keep: her own, and, holding `perm`, those of
    anyone who holds or held an appointment in a district where she holds it, or in a State
    she holds it for (everyone, for a system-wide grant). A filter for the User queryset."""
    grants = [g for g in grants_for(user) if g.allows(perm)]
    if any(g.scope == Scope.NONE for g in grants):
        return Q()
    districts = visible_district_ids(user, perm)
    states = [g.scope_id for g in grants if g.scope == Scope.STATE]
    return (
        Q(pk=user.pk)
        | Q(assignments__state_id__in=states)
        | Q(assignments__district_id__in=districts)
        | Q(assignments__pound__district_id__in=districts)
        | Q(assignments__police_station__district_id__in=districts)
    )


class DeclaredRelativeQuerySet(models.QuerySet):
    def for_user(self, user, perm=Permission.MANAGE_STAFF):
        """The declarations `user` may see: a lookup through it is a 404 outside them."""
        from .models import User  # accounts.models imports this module: a cycle

        return self.filter(user__in=User.objects.filter(staff_in_reach(user, perm)))


class DeclaredRelative(models.Model):
    """One household member or close relative a member of staff has declared (s.19)."""

    class Relation(models.TextChoices):
        SPOUSE = "spouse", _("Husband or wife")
        CHILD = "child", _("Son or daughter")
        PARENT = "parent", _("Father or mother")
        SIBLING = "sibling", _("Brother or sister")
        CHILD_IN_LAW = "child_in_law", _("Son-in-law or daughter-in-law")
        PARENT_IN_LAW = "parent_in_law", _("Father-in-law or mother-in-law")
        SIBLING_IN_LAW = "sibling_in_law", _("Brother-in-law or sister-in-law")
        HOUSEHOLD = "household", _("Other member of the household")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="relatives"
    )
    name = models.CharField(_("name"), max_length=150)
    name_hi = models.CharField(_("name in the second language"), max_length=150, blank=True)
    relation = models.CharField(_("relation"), max_length=20, choices=Relation.choices)
    phone = models.CharField(_("mobile number"), max_length=15, blank=True)
    id_number = models.CharField(
        _("identity document number"),
        max_length=40,
        blank=True,
        help_text=_("Voter ID, PAN or driving licence: what they would show at an auction."),
    )
    declared_at = models.DateTimeField(default=timezone.now)
    declared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    # The declaration form's single-use key: sent twice, one relative.
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = DeclaredRelativeQuerySet.as_manager()

    class Meta:
        verbose_name = _("declared relative")
        verbose_name_plural = _("declared relatives")
        ordering = ["user", "declared_at", "pk"]

    def __str__(self):
        return f"{self.name} ({self.get_relation_display()})"

    def clean(self):
        errors = {}
        if self.phone and len(re.sub(r"\D", "", self.phone)) < 10:
            errors["phone"] = _("Give a phone number of at least ten digits.")
        if self.id_number and len(re.sub(r"[^0-9A-Za-z]", "", self.id_number)) < 4:
            errors["id_number"] = _(
                "Give the whole document number: at least four letters or digits."
            )
        if errors:
            raise ValidationError(errors)
