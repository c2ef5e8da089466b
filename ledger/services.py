"""The only way money moves: one balanced transaction, inside the business change's transaction."""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import connection, transaction

from poundadmin.formatting import PAISA

from .models import (
    DISTRICT_ACCOUNTS,
    POUND_ACCOUNTS,
    Account,
    Posting,
    Transaction,
    TransactionKind,
)


def account(*, district, kind, pound=None):
    """The district's (or the pound's) account of `kind`, created on first use."""
    if kind in POUND_ACCOUNTS:
        if pound is None:
            raise ValueError(f"{kind} is kept per pound")
        acc, _ = Account.objects.get_or_create(district=district, pound=pound, kind=kind)
    elif kind in DISTRICT_ACCOUNTS:
        acc, _ = Account.objects.get_or_create(district=district, pound=None, kind=kind)
    else:
        raise ValueError(f"unknown account kind {kind}")
    return acc


def open_accounts(*, pound):
    """Create a pound's chart of accounts (and its district's) ahead of the first money."""
    for kind in POUND_ACCOUNTS:
        account(district=pound.district, pound=pound, kind=kind)
    for kind in DISTRICT_ACCOUNTS:
        account(district=pound.district, kind=kind)


def post(
    *, district, kind, memo, lines, by, source, pound=None, section="", impoundment_id=None, at=None
):
    """Post one balanced transaction. `lines` is a list of (Account, Decimal); debits positive.

    Must run inside the atomic block of the business change it records, so that the money and
    the change commit or roll back together.
    """
    if not connection.in_atomic_block:
        raise RuntimeError("ledger.post() must run inside the business transaction")
    clean = []
    for acc, amount in lines:
        if not isinstance(amount, Decimal):
            raise TypeError("ledger amounts must be Decimal")
        if amount != amount.quantize(PAISA):
            raise ValidationError(f"{amount} is not a whole number of paise")
        if acc.district_id != district.pk:
            raise ValidationError("every posting must be in the transaction's district")
        if amount:
            clean.append((acc, amount))
    if not clean:
        raise ValidationError("a transaction needs at least one non-zero posting")
    if sum(a for _, a in clean) != Decimal("0.00"):
        raise ValidationError("the postings of a transaction must sum to zero")
    extra = {"at": at} if at is not None else {}
    txn = Transaction.objects.create(
        district=district,
        pound=pound,
        kind=kind,
        memo=memo[:300],
        by=by,
        source=source,
        section=section,
        impoundment_id=impoundment_id,
        **extra,
    )
    Posting.objects.bulk_create(Posting(transaction=txn, account=a, amount=v) for a, v in clean)
    return txn


@transaction.atomic
def reverse(*, txn, by, reason):
    """Undo a posted transaction with its mirror image. A transaction is reversed at most once."""
    txn = Transaction.objects.select_for_update().get(pk=txn.pk)
    if hasattr(txn, "reversed_by"):
        raise ValidationError("this transaction has already been reversed")
    mirror = Transaction.objects.create(
        district=txn.district,
        pound=txn.pound,
        kind=TransactionKind.REVERSAL,
        memo=f"Reversal of #{txn.pk}: {reason}"[:300],
        by=by,
        source=txn.source,
        section=txn.section,
        impoundment_id=txn.impoundment_id,
        reverses=txn,
    )
    Posting.objects.bulk_create(
        Posting(transaction=mirror, account=p.account, amount=-p.amount) for p in txn.postings.all()
    )
    return mirror
