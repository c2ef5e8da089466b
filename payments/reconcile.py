"""Reconciling the bank statement with the payments (docs/decisions/0082).

An import stores each line once (the district and the line's key are unique), then matches
each credit: our reference or the gateway's in the narration, or the UTR, naming one payment of
the same amount settles it (a payment pending or unknown becomes succeeded, through the state
machine of payments.services); anything else waits in the review queue, where a person other
than the importer matches the line to a payment or sets it aside. Every step is an event.
Matching moves no money: the release posts a gateway payment's money when it takes it (ADR 0075).
"""

import hashlib
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, Func, IntegerField, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import District
from accounts.roles import Permission
from accounts.scoping import authorise
from kernel.events import record_event
from kernel.formatting import inr
from kernel.locks import advisory_lock
from kernel.messages import Message

from . import services, statements, upi_direct
from .actions import Action
from .models import (
    BankStatement,
    LineState,
    Payment,
    PaymentState,
    StatementLine,
)

# The states of a payment a statement line may show: the money may have left the payer.
MATCHABLE = (
    PaymentState.PENDING,
    PaymentState.UNKNOWN,
    PaymentState.SUCCEEDED,
    PaymentState.RECONCILED,
)


def _key(read, line, digest):
    """A transfer's UTR is unique across banks' files; else the bank's reference on its day."""
    if line.utr:
        return f"utr:{line.utr}:{'C' if line.amount > 0 else 'D'}"
    if line.bank_reference:
        return f"ref:{line.bank_reference}:{line.value_date.isoformat()}:{line.amount}"
    return f"line:{read.statement_id or digest[:16]}:{line.number}"


def import_statement(*, district, by, data, kind, bank="", file_name=""):
    """Store a statement's lines, once each, and match its credits. Returns (statement,
    new lines). The same file twice is refused; a line already stored is skipped. Two imports
    in one district run one after the other (two overlapping statements would otherwise wait
    on each other's lines), each in one transaction."""
    authorise(by, Permission.PREPARE_ORDERS, district)
    with advisory_lock(f"statement-import:{district.pk}", wait=True):
        return _import(district, by, data, kind, bank, file_name)


@transaction.atomic
def _import(district, by, data, kind, bank, file_name):
    digest = hashlib.sha256(data).hexdigest()
    if BankStatement.objects.filter(district=district, digest=digest).exists():
        raise ValidationError({"file": _("This statement was imported before.")})
    read = statements.read_mt940(data) if kind == "mt940" else statements.read_csv(data, bank)
    statement = BankStatement(
        district=district,
        kind=kind,
        bank=bank,
        statement_id=read.statement_id[:80],
        digest=digest,
        file_name=file_name[:200],
        imported_by=by,
    )
    try:
        with transaction.atomic():
            statement.save()
    except IntegrityError:
        raise ValidationError({"file": _("This statement was imported before.")}) from None
    new = []
    for line in read.lines:
        row = StatementLine(
            statement=statement,
            district=district,
            key=_key(read, line, digest)[:120],
            value_date=line.value_date,
            amount=line.amount,
            narration=line.narration,
            bank_reference=line.bank_reference[:80],
            utr=line.utr[:40],
            state=LineState.UNMATCHED if line.amount > 0 else LineState.DEBIT,
            imported_by=by,
        )
        try:
            with transaction.atomic():
                row.save()
        except IntegrityError:
            continue  # this line came in an earlier statement
        new.append(row)
    matched = sum(1 for row in new if row.state != LineState.DEBIT and _auto_match(row, by))
    record_event(
        action=Action.STATEMENT_IMPORTED,
        section="s.13",
        by=by,
        district=district,
        summary=Message(
            gettext_noop("Statement %(statement)s: %(new)s new lines, %(matched)s matched"),
            statement=str(statement),
            new=len(new),
            matched=matched,
        ),
        data={"statement": statement.pk, "lines": len(new), "matched": matched},
    )
    return statement, new


def _compact(text):
    return "".join((text or "").upper().split())


def candidates(line):
    """The district's payments the line may show: ours or the gateway's reference in its
    narration or reference, or its UTR as the gateway's reference."""
    text = _compact(f"{line.narration} {line.bank_reference}")
    payments = Payment.objects.filter(
        impoundment__pound__district_id=line.district_id,
        state__in=MATCHABLE,
        statement_line__isnull=True,
    )
    named = Q(gateway_reference=line.utr) if line.utr else Q(pk__in=[])
    found = []
    # A payment started after the money reached the bank is not this line's.
    started = Q(created_at__date__lte=line.value_date + timedelta(days=1))
    for payment in payments.filter(named | started).only(
        "pk", "reference", "gateway_reference", "amount", "state"
    ):
        refs = {payment.reference.upper(), (payment.gateway_reference or "").upper()} - {""}
        if (line.utr and line.utr.upper() in refs) or any(ref in text for ref in refs):
            found.append(payment)
    return found


def _auto_match(line, by):
    found = candidates(line)
    if len(found) == 1 and found[0].amount == line.amount:
        _settle(line, found[0], by=None)
        return True
    named = bool(found)
    if not found:
        # Paid from the slip's QR code, with no gateway order: the dues reference it names.
        payment, line.reason = upi_direct.record_from_line(line, by=by)
        if payment is not None:
            _settle(line, payment, by=None)
            return True
        named = line.reason != upi_direct.UNNAMED  # an entry's reference: a person decides
    elif len(found) > 1:
        line.reason = gettext_noop("More than one payment may be this line.")
    else:
        line.reason = gettext_noop("A payment names this reference, for another amount.")
    line.state = LineState.REVIEW if named else LineState.UNMATCHED
    line.save(update_fields=["state", "reason"])
    return False


def _settle(line, payment, *, by):
    """The line shows `payment`'s money arrived: settle a payment still awaiting the gateway,
    and tie the two together, once."""
    payment = Payment.objects.select_for_update(of=("self",)).get(pk=payment.pk)
    if payment.statement_line_id:
        raise ValidationError({"payment": _("Another statement line already shows this payment.")})
    services.confirm_from_statement(payment=payment, line=line, by=by)
    line.state = LineState.MATCHED
    line.decided_by = by
    line.decided_at = timezone.now() if by else None
    line.save(update_fields=["state", "decided_by", "decided_at"])
    record_event(
        action=Action.LINE_MATCHED,
        section="s.13",
        by=by,
        pound=payment.impoundment.pound,
        impoundment=payment.impoundment,
        summary=Message(
            gettext_noop("Statement line %(line)s shows payment %(payment)s, %(amount)s"),
            line=line.bank_reference or line.key,
            payment=payment.reference,
            amount=inr(line.amount),
        ),
        data={"line": line.pk, "payment": payment.pk, "manual": by is not None},
    )


def _open_line(line, by):
    line = StatementLine.objects.select_for_update(of=("self",)).get(pk=line.pk)
    authorise(by, Permission.PREPARE_ORDERS, District.objects.get(pk=line.district_id))
    line.check_decider(by)
    if not line.is_open:
        raise ValidationError(_("This line is already settled."))
    return line


@transaction.atomic
def match_by_hand(*, line, reference, by, note=""):
    """A reviewer, not the importer, matches an open line to the payment with `reference`."""
    line = _open_line(line, by)
    payment = (
        Payment.objects.filter(
            impoundment__pound__district_id=line.district_id, state__in=MATCHABLE
        )
        .filter(Q(reference__iexact=reference.strip()))
        .select_related("impoundment__pound")
        .first()
    )
    if payment is None:
        raise ValidationError({"reference": _("No payment of this district has this reference.")})
    if payment.amount != line.amount:
        raise ValidationError(
            {
                "reference": _("This payment is for %(amount)s; the line is for another amount.")
                % {"amount": inr(payment.amount)}
            }
        )
    line.note = note.strip()[:300]
    line.save(update_fields=["note"])
    _settle(line, payment, by=by)
    return line


@transaction.atomic
def set_aside(*, line, by, note):
    """A reviewer, not the importer, sets aside a line that is no payment of ours, saying why."""
    line = _open_line(line, by)
    if not note.strip():
        raise ValidationError({"note": _("Say why this line is no payment of ours.")})
    line.state, line.note = LineState.SET_ASIDE, note.strip()[:300]
    line.decided_by, line.decided_at = by, timezone.now()
    line.save(update_fields=["state", "note", "decided_by", "decided_at"])
    record_event(
        action=Action.LINE_SET_ASIDE,
        section="s.13",
        by=by,
        district=District.objects.get(pk=line.district_id),
        summary=Message(
            gettext_noop("Statement line %(line)s set aside: %(note)s"),
            line=line.bank_reference or line.key,
            note=line.note,
        ),
        data={"line": line.pk},
    )
    return line


def _count(qs):
    return Subquery(
        qs.order_by().values(n=Func(F("pk"), function="COUNT")), output_field=IntegerField()
    )


def unreconciled_after():
    """How long a line or a confirmed payment may wait before the Magistrate's dashboard
    counts it unreconciled (the setting UNRECONCILED_AFTER_DAYS)."""
    return timedelta(days=settings.UNRECONCILED_AFTER_DAYS)


def unreconciled(district_ids, *, now=None):
    """{"lines": open statement lines, "payments": confirmed payments no statement shows},
    each older than unreconciled_after(): one query, read through the partial indexes on the
    open items only."""
    now = now or timezone.now()
    after = unreconciled_after()
    lines = StatementLine.objects.open().filter(
        district_id__in=district_ids, value_date__lte=(now - after).date()
    )
    payments = Payment.objects.filter(
        state__in=(PaymentState.SUCCEEDED, PaymentState.RECONCILED),
        statement_line__isnull=True,
        settled_at__lte=now - after,
        impoundment__pound__district_id__in=district_ids,
    )
    return (
        District.objects.filter(pk=district_ids[0])
        .annotate(lines=_count(lines), payments=_count(payments))
        .values("lines", "payments")
        .first()
    ) or {"lines": 0, "payments": 0}
