"""Competing claimants (docs/domain.md decision 14). The Act is silent; the product's rule:
a second person may claim cattle someone is already claiming, and is recorded as a claimant.
While two claims stand, every release path (payment, deposit, the s.16 settlement) is refused
with a message that names the hold. A police officer or the District Magistrate's office
decides on the proof, which is recorded; the decision lifts the hold for the winner alone."""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.roles import Permission
from accounts.scoping import authorise, has_permission
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import THE_CLAIMANT, Message

from ..actions import Action
from ..models import Claim, Impoundment


def may_decide_claims(user, pound):
    return has_permission(user, Permission.HANDLE_UNCLAIMED, pound) or has_permission(
        user, Permission.PREPARE_ORDERS, pound
    )


def _same(a, b):
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def ensure_no_hold(entry, claimant_name):
    """Refuse a release while two claims stand, or to anyone but the claimant the decision
    upheld. Called inside every release's transaction, with the entry locked."""
    claims = list(entry.claims.exclude(status=Claim.Status.REJECTED))
    standing = [c for c in claims if c.status == Claim.Status.STANDING]
    if len(standing) >= 2:
        raise ValidationError(
            _(
                "Release on hold: %(count)s people claim these cattle (%(names)s). A police "
                "officer or the District Magistrate's office decides between them first."
            )
            % {"count": len(standing), "names": ", ".join(c.claimant_name for c in standing)}
        )
    upheld = next((c for c in claims if c.status == Claim.Status.UPHELD), None)
    if upheld is not None and not _same(upheld.claimant_name, claimant_name):
        raise ValidationError(
            _("The competing claims were decided for %(name)s: only he may take the cattle.")
            % {"name": upheld.claimant_name}
        )


@transaction.atomic
def record_claim(
    *, entry, by, claimant_name, claimant_address, proof, claimant_phone="", idempotency_key=None
):
    """The pound-keeper records a person claiming the entry's cattle, with the proof offered.
    Once for each `idempotency_key`: the same form sent again returns the claim it recorded,
    never a second claim by the same person (which would hold the release as a rival's)."""
    entry = (
        Impoundment.objects.select_for_update(of=("self",)).select_related("pound").get(pk=entry.pk)
    )
    authorise(by, Permission.RELEASE_ANIMAL, entry.pound)
    done = made_with_key(Claim, idempotency_key, impoundment_id=entry.pk, recorded_by_id=by.pk)
    if done is not None:
        return done
    if not entry.animals.in_custody().exists():
        raise ValidationError(_("No animal of this entry is in the pound to be claimed."))
    if entry.claims.filter(status=Claim.Status.UPHELD).exists():
        raise ValidationError(_("The claims to these cattle have been decided already."))
    if not claimant_name.strip() or not proof.strip():
        raise ValidationError({"proof": _("Record the claimant and the proof he offers.")})
    claim = Claim(
        impoundment=entry,
        claimant_name=claimant_name.strip(),
        claimant_address=claimant_address,
        claimant_phone=claimant_phone,
        proof=proof,
        recorded_by=by,
        idempotency_key=idempotency_key,
    )
    claim.full_clean(exclude=["idempotency_key"])
    claim.save()
    record_event(
        action=Action.CLAIM_RECORDED,
        section="s.13",  # the release it holds; the Act is silent on rival claims
        summary=Message(gettext_noop("Claimant recorded: %(name)s"), name=THE_CLAIMANT),
        by=by,
        impoundment=entry,
        data={"claim": claim.pk},
        personal={
            "name": claim.claimant_name,
            "address": claim.claimant_address,
            "phone": claim.claimant_phone,
        },
    )
    standing = entry.claims.filter(status=Claim.Status.STANDING).count()
    if standing == 2:
        record_event(
            action=Action.CLAIMS_HELD,
            section="s.13",  # the release it holds; the Act is silent on rival claims
            summary=Message(gettext_noop("Release on hold: two people claim these cattle")),
            by=by,
            impoundment=entry,
            data={"claims": list(entry.claims.standing().values_list("pk", flat=True))},
        )
    return claim


@transaction.atomic
def decide_claims(*, entry, by, winner, findings):
    """A police officer or the office decides between the standing claims, on the proof."""
    entry = (
        Impoundment.objects.select_for_update(of=("self",)).select_related("pound").get(pk=entry.pk)
    )
    if not may_decide_claims(by, entry.pound):
        raise PermissionDenied(_("A police officer or the District Magistrate's office decides."))
    standing = list(entry.claims.standing().select_for_update(of=("self",)))
    if len(standing) < 2:
        raise ValidationError(_("There are no competing claims to decide."))
    chosen = next((c for c in standing if c.pk == getattr(winner, "pk", winner)), None)
    if chosen is None:
        raise ValidationError({"winner": _("Choose one of the standing claims.")})
    if not findings.strip():
        raise ValidationError({"findings": _("Record the findings on the proof.")})
    now = timezone.now()
    for claim in standing:
        claim.status = Claim.Status.UPHELD if claim is chosen else Claim.Status.REJECTED
        claim.decided_by, claim.decided_at, claim.findings = by, now, findings.strip()
        claim.save(update_fields=["status", "decided_by", "decided_at", "findings"])
    record_event(
        action=Action.CLAIMS_DECIDED,
        section="s.13",  # the release it holds; the Act is silent on rival claims
        summary=Message(gettext_noop("Competing claims decided for %(name)s"), name=THE_CLAIMANT),
        by=by,
        impoundment=entry,
        personal={"name": chosen.claimant_name},
        data={
            "upheld": chosen.pk,
            "rejected": [c.pk for c in standing if c is not chosen],
            "findings": findings.strip(),
        },
    )
    return chosen
