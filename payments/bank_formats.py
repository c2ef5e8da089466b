"""The columns of each bank's CSV statement (docs/decisions/0082), as data: a new bank is a new
entry here, nothing else. Each map names the header of the value date, the narration, the
bank's reference, and either one signed amount column or a credit and a debit column; the
UTR column is optional (without it the UTR is read from the narration)."""

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class ColumnMap:
    label: str
    value_date: str
    date_formats: tuple[str, ...]
    narration: str
    reference: str
    credit: str = ""
    debit: str = ""
    amount: str = ""  # one signed column, where the bank gives no credit and debit columns
    utr: str = ""


BANKS = {
    # The State Bank of India's account statement, downloaded from its corporate internet banking
    # as CSV (the same columns as its XLS): Txn Date, Value Date, Description, Ref No./Cheque No.,
    # Debit, Credit, Balance.
    "sbi": ColumnMap(
        label=_("State Bank of India"),
        value_date="Value Date",
        date_formats=("%d %b %Y", "%d-%m-%Y", "%d/%m/%Y"),
        narration="Description",
        reference="Ref No./Cheque No.",
        credit="Credit",
        debit="Debit",
    ),
    # Any other bank: the accounts staff rename the columns of the bank's file to these.
    "generic": ColumnMap(
        label=_("Any bank (the documented columns)"),
        value_date="value_date",
        date_formats=("%Y-%m-%d", "%d-%m-%Y"),
        narration="narration",
        reference="bank_reference",
        amount="amount",
        utr="utr",
    ),
}
