"""Read models of the office that both its screens and the API list."""

from django.db.models import Q

from .models import SurplusDeposit

SURPLUS_PAGE = 25  # rows of each list of the surplus register, paged by keyset

# Each list of the register: which deposits, and the order it pages in by keyset.
SURPLUS_LISTS = {
    "awaiting": (Q(status=SurplusDeposit.Status.AWAITING_RECEIPT), ("sale_date", "pk")),
    "held": (Q(status=SurplusDeposit.Status.HELD), ("expires_on", "sale_date", "pk")),
    "closed": (
        Q(status__in=[SurplusDeposit.Status.PAID, SurplusDeposit.Status.TRANSFERRED]),
        ("-sale_date", "-pk"),
    ),
}
