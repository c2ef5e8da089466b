"""The only way money moves: one balanced transaction, inside the business change's transaction."""

from decimal import Decimal

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.utils.translation import gettext as _

from accounts.roles import Permission
from accounts.scoping import has_permission
from kernel.formatting import PAISA

from .models import (
    DISTRICT_ACCOUNTS,
    DISTRICT_ACCOUNTS_ON_USE,
    POUND_ACCOUNTS,
    Account,
    AccountMonth,
    Posting,
    Transaction,
    TransactionKind,
    month_of,
    months_of_postings,
    till,
)

ZERO = Decimal("0.00")

# Adds a transaction's postings to the month totals in one statement; the row of each account
# is locked by its upsert until the business transaction commits (docs/decisions/0006).
# Django's bulk_create(update_conflicts=True) would overwrite the totals, not add to them.
UPSERT = """
INSERT INTO ledger_accountmonth (account_id, pound_id, kind, month, debit, credit, postings)
VALUES {values}
ON CONFLICT (account_id, kind, month{pound}) WHERE pound_id IS {null} DO UPDATE SET
    debit = ledger_accountmonth.debit + excluded.debit,
    credit = ledger_accountmonth.credit + excluded.credit,
    postings = ledger_accountmonth.postings + excluded.postings
"""


def account(*, district, kind, pound=None):
    """The district's (or the pound's) account of `kind`, created on first use."""
    if kind in POUND_ACCOUNTS:
        if pound is None:
            raise ValueError(f"{kind} is kept per pound")
        acc, _ = Account.objects.get_or_create(district=district, pound=pound, kind=kind)
    elif kind in DISTRICT_ACCOUNTS or kind in DISTRICT_ACCOUNTS_ON_USE:
        acc, _ = Account.objects.get_or_create(district=district, pound=None, kind=kind)
    else:
        raise ValueError(f"unknown account kind {kind}")
    return acc


def till_account(pound, mode):
    """The pound's account that money paid in `mode` lands in (`till`), created on first use."""
    return account(district=pound.district, pound=pound, kind=till(mode))


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
    _add_to_months(txn, clean)
    return txn


@transaction.atomic
def reverse(*, txn, by, reason):
    """Undo a posted transaction with its mirror image. A transaction is reversed at most once."""
    txn = Transaction.objects.select_for_update(of=("self",)).get(pk=txn.pk)
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
    lines = [(p.account, -p.amount) for p in txn.postings.all()]
    Posting.objects.bulk_create(
        Posting(transaction=mirror, account=acc, amount=amount) for acc, amount in lines
    )
    _add_to_months(mirror, lines)
    return mirror


def _add_to_months(txn, lines):
    """Add a transaction's (Account, amount) lines to its month's AccountMonth rows. The rows
    go in account order, so that two transactions meeting on the same accounts lock them in
    the same order."""
    totals: dict[int, tuple[Decimal, Decimal, int]] = {}
    for acc, amount in lines:
        debit, credit, count = totals.get(acc.pk, (ZERO, ZERO, 0))
        if amount > 0:
            debit += amount
        else:
            credit -= amount
        totals[acc.pk] = (debit, credit, count + 1)
    ops = connection.ops
    month = ops.adapt_datefield_value(month_of(txn.at))
    params = []
    for account_id, (debit, credit, count) in sorted(totals.items()):
        amounts = [ops.adapt_decimalfield_value(v, 16, 2) for v in (debit, credit)]
        params += [account_id, txn.pound_id, txn.kind, month, *amounts, count]
    sql = UPSERT.format(
        values=", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(totals)),
        pound=", pound_id" if txn.pound_id else "",
        null="NOT NULL" if txn.pound_id else "NULL",
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def rebuild_months():
    """Set the month totals afresh from the postings: for rows written past post(), such as a
    bulk load. Two statements and one grouped query; memory grows with the month rows."""
    if not connection.in_atomic_block:
        raise RuntimeError("ledger.rebuild_months() must run inside a transaction")
    AccountMonth.objects.all().delete()
    AccountMonth.objects.bulk_create(
        (AccountMonth(**row) for row in months_of_postings().iterator()), batch_size=5000
    )


# --- Cash out of a pound's till --------------------------------------------------------------


def may_pay_from_till(user, pound):
    """Cash out of a pound's till (a refund, a remittance of fines) is the pound-keeper's, or the
    office's on a recorded authority: never the police's, nor anyone's who may only take
    payments."""
    return has_permission(user, Permission.PAY_FROM_TILL, pound) or has_permission(
        user, Permission.PAY_FROM_TILL_ON_AUTHORITY, pound
    )


def keeps_till(user, pound):
    """Whether `user` pays out of the pound's till on his own office (its keeper), needing no
    written authority."""
    return has_permission(user, Permission.PAY_FROM_TILL, pound)


def authorise_till_payment(by, pound, authority):
    """Refuse a payment out of `pound`'s till by anyone but its keeper, or the office naming
    the written authority it pays on (`authority`, recorded with the payment)."""
    if keeps_till(by, pound):
        return
    if not has_permission(by, Permission.PAY_FROM_TILL_ON_AUTHORITY, pound):
        raise PermissionDenied(
            _("Only the pound-keeper, or the office on a written authority, pays out of the till.")
        )
    if not authority.strip():
        raise ValidationError(
            {"authority": _("Name the written authority for paying out of the pound's till.")}
        )
