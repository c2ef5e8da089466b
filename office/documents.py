"""The documents of the District Magistrate's money (s.17): one small function each, returning
PDF bytes.

- the memo of the transfer of an unclaimed surplus to the revenues of the State, or to the local
  fund where a s.31 notification applies.

Bilingual like the register's documents (impounding.documents): English, with the Hindi beside
it. The memo was registered as an IssuedDocument by the transfer itself (office.services), so this
only reads and renders: no transaction, no lock.
"""

from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.letterhead import letterhead
from accounts.models import DistrictPolicy, IssuedDocument
from impounding.documents import animal_row
from impounding.models import Animal
from kernel import clock
from kernel.documents import Both, both, render_pdf, verification_context
from kernel.languages import amount_in_both, in_district_language

from .models import SurplusClaim, SurplusDeposit


@in_district_language(lambda deposit: deposit.district_id)
def transfer_memo_pdf(deposit):
    """The memo crediting a surplus held three months to revenue (s.17), or to the local fund
    (s.31): the memo number, the sale, the amount in figures and in words, the dates (sale,
    received, held until, credited), the claims made and their fate, and the section."""
    deposit = SurplusDeposit.objects.select_related(
        "district", "pound", "sale__lot__auction", "transfer_memo", "received_by"
    ).get(pk=deposit.pk)
    document = deposit.transfer_memo
    sale, district = deposit.sale, deposit.district
    local = deposit.destination == SurplusDeposit.Destination.LOCAL_FUND
    # Read, never created: the policy was settled when the transfer was made.
    policy = DistrictPolicy.objects.filter(district=district).first()
    if local:
        fund = (policy.local_fund_name if policy else "") or ""
        destination = Both(fund, fund) if fund else both(lambda: _("the local fund"))
    else:
        destination = both(lambda: _("the revenues of the State"))
    animals = []
    for animal in (
        Animal.objects.filter(lotanimal__lot=sale.lot)
        .select_related("impoundment")
        .order_by("impoundment_id", "number")
    ):
        row = animal_row(animal)
        row["reference"] = animal.reference
        animals.append(row)
    claims = list(
        SurplusClaim.objects.filter(deposit=deposit)
        .select_related("decided_by")
        .order_by("filed_on", "pk")
    )
    context = {
        "deposit": deposit,
        "sale": sale,
        "auction": sale.lot.auction,
        "lot": sale.lot,
        "animals": animals,
        "claims": [{"claim": c, "status": both(c.get_status_display)} for c in claims],
        "local": local,
        "destination": destination,
        "section": "s.31" if local else "s.17",
        "notification": policy.s31_notification if (policy and local) else "",
        "credited_on": timezone.localtime(deposit.transferred_at).date(),
        **amount_in_both(deposit.amount),
        **letterhead(IssuedDocument.Kind.TRANSFER_MEMO, district=district),
        "pound_name": Both(deposit.pound.name, deposit.pound.name_hi or deposit.pound.name),
        "printed_at": clock.now(deposit.pound),
        **verification_context(document),
    }
    return render_pdf("pdf/office/transfer_memo.html", context, language="en")
