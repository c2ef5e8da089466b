"""Maker-checker: whoever prepared a record does not decide it.

A disposal order, a claim to a surplus, a receipt's cancellation and a remittance are each
prepared (or asked for, or sent) by one person and decided (or confirmed) by another. Each model's
check constraint refuses the same person in both places; this mixin is where the services, the
screens and the API ask first, so that they refuse in the record's own words before the database
has to.
"""

from django.core.exceptions import PermissionDenied
from django.db import models


class MakerChecker(models.Model):
    """A record one person prepares and another decides.

    `maker_field` names the foreign key to the user who prepared it, and `maker_refusal` tells
    that user, in the record's own words, that another person decides it.
    """

    maker_field = "prepared_by"
    maker_refusal = None  # each record sets its own translatable sentence

    class Meta:
        abstract = True

    def may_be_decided_by(self, user):
        """Whether `user` may decide this record: anyone but whoever prepared it."""
        return getattr(self, self._meta.get_field(self.maker_field).attname) != user.pk

    def check_decider(self, user):
        """Refuse `user`, with PermissionDenied, when he prepared this record."""
        if not self.may_be_decided_by(user):
            raise PermissionDenied(str(self.maker_refusal))
