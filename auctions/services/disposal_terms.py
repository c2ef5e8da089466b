"""The terms of a disposal under the proviso to s.14, and its money (docs/decisions/0055).

Each kind of disposal the District Magistrate may order has its terms, checked here when the
office prepares the order. On approval a sale by private treaty is money like a hammer's: its
price is split over the animals' dues as s.17 splits a sale's proceeds, and posted in the same
transaction; dues that no price covers (a transfer, destruction, a price below them) become a
shortfall for the Magistrate's write-off, as after a s.14 or s.16 sale."""

from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from kernel.refs import ref
from ledger import services as ledger
from ledger.models import PaymentMode, TransactionKind

from ..models import DisposalOrder, DisposalTerms
from ..staffcheck import staff_matches
from .common import ZERO, record_shortfall, s17_lines, split_dues

Mode = DisposalOrder.Mode
TEXT_FIELDS = (
    "address",
    "phone",
    "id_kind",
    "id_number",
    "registration",
    "certificate_number",
    "details",
    "payment_mode",
    "payment_reference",
    "permit_number",
)
# What each kind of disposal must say, beyond the recipient's name.
REQUIRED = {
    Mode.PRIVATE_SALE: ("address", "phone", "id_kind", "id_number", "payment_mode"),
    Mode.DESTROYED: ("certificate_number",),
    Mode.OTHER: ("details",),
}


def _messages():
    return {
        "address": _("Give the buyer's address."),
        "phone": _("Give the buyer's phone number."),
        "id_kind": _("Choose the buyer's identity document."),
        "id_number": _("Give the number of the buyer's identity document."),
        "payment_mode": _("Say how the price was paid."),
        "certificate_number": _("Give the number of the veterinary certificate."),
        "details": _("Say how the animals are to be disposed of."),
    }


def _price(value):
    if value in (None, ""):
        return None
    try:
        price = Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        raise ValidationError({"price": _("Enter the price in rupees.")}) from None
    if price != price.quantize(Decimal("0.01")):
        raise ValidationError({"price": _("Enter the price in rupees and paise.")})
    return price


def check_terms(*, mode, recipient, terms, declared=False):
    """The terms of an order of this `mode`, checked and cleaned: a dict of DisposalTerms
    fields. Raises ValidationError with every missing term beside its field. `declared`: the
    sale is the rule pack's declared sale (`routes.declared_sale`), which asks the buyer's
    declaration of the use and his permit number."""
    terms = dict(terms or {})
    clean: dict[str, object] = {f: str(terms.get(f) or "").strip() for f in TEXT_FIELDS}
    clean["declaration_signed"] = bool(terms.get("declaration_signed"))
    clean["use_declared"] = bool(terms.get("use_declared"))
    errors = {}
    if not (recipient or "").strip():
        errors["recipient"] = _("Name who receives the animals.")
    messages = _messages()
    for field in REQUIRED.get(mode, ()):
        if not clean[field]:
            errors[field] = messages[field]
    price = _price(terms.get("price"))
    if mode == Mode.PRIVATE_SALE:
        if price is None or price <= 0:
            errors["price"] = _("Enter the price the buyer pays.")
        if clean["payment_mode"] not in ("", *PaymentMode.values):
            errors["payment_mode"] = messages["payment_mode"]
        elif clean["payment_mode"] not in ("", PaymentMode.CASH) and not clean["payment_reference"]:
            errors["payment_reference"] = _("Give the payment reference.")
        if not clean["declaration_signed"]:
            errors["declaration_signed"] = _(
                "Every buyer signs the declaration that he is not an officer or pound-keeper, "
                "and does not buy for one (s.19)."
            )
        if declared:
            errors.update(_declared_sale(clean))
    else:
        if price is not None:
            errors["price"] = _("Only a sale by private treaty has a price.")
        for field in ("payment_mode", "payment_reference", "id_kind", "id_number"):
            clean[field] = ""
        clean["declaration_signed"] = False
    if mode != Mode.PRIVATE_SALE or not declared:
        clean["permit_number"], clean["use_declared"] = "", False
    if errors:
        raise ValidationError(errors)
    clean["price"] = price
    return clean


def _declared_sale(clean):
    """What the rule pack's declared sale asks beyond any sale's terms (ADR 0068)."""
    errors = {}
    if not clean["use_declared"]:
        errors["use_declared"] = _(
            "The State's law allows this sale only to a buyer who declares in writing the use "
            "he will make of the animal."
        )
    if not clean["permit_number"]:
        errors["permit_number"] = _("Give the number of the buyer's permit under the State's law.")
    return errors


def check_buyer(*, recipient, terms):
    """The s.19 bar, as for a bidder: no officer of police, pound-keeper or other officer under
    the Act buys, directly or indirectly. Returns the staff records checked (none match)."""
    matches = staff_matches(
        name=recipient,
        phone=terms.get("phone", ""),
        id_number=terms.get("id_number", ""),
        address=terms.get("address", ""),
    )
    if matches:
        raise ValidationError(
            {
                "recipient": _(
                    "The buyer may be a member of staff (%(staff)s): an officer or pound-keeper "
                    "may not buy (s.19)."
                )
                % {"staff": ", ".join(m["staff"] for m in matches)}
            }
        )
    return matches


def settle_disposal(*, order, animals, by, at):
    """On approval, in its transaction: the animals' dues at `at`, the price (if any) split over
    them and posted as s.17 splits a sale's proceeds, and the rest recorded as a shortfall.
    Returns the order's terms with the amounts."""
    terms, _made = DisposalTerms.objects.get_or_create(order=order)
    pound = order.pound
    if order.mode == Mode.PRIVATE_SALE:
        check_buyer(
            recipient=order.recipient, terms={"phone": terms.phone, "id_number": terms.id_number}
        )
    statement, split = split_dues(animals, price=terms.price or ZERO, expenses=ZERO, at=at)
    _paid_exp, paid_feed, paid_fines, surplus, short = split
    terms.fines_due, terms.feeding_due = statement.fines, statement.feeding
    terms.fines, terms.feeding, terms.surplus = paid_fines, paid_feed, surplus
    terms.shortfall = sum(short.values(), ZERO)
    terms.full_clean(exclude=["order"])
    terms.save()
    if terms.price:
        ledger.post(
            district=pound.district,
            pound=pound,
            kind=TransactionKind.SALE_S14,
            section="s.17",
            by=by,
            memo=f"{order.number}: sold by private treaty for ₹{terms.price}",
            source=ref(order),
            at=at,
            impoundment_id=animals[0].impoundment_id,
            lines=s17_lines(
                pound,
                payment_mode=terms.payment_mode,
                price=terms.price,
                expenses=ZERO,
                feeding=paid_feed,
                fines=paid_fines,
                surplus=surplus,
            ),
        )
    record_shortfall(pound, short, disposal=order)
    return terms
