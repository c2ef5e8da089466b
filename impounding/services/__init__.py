"""Every change to the register is a function here: atomic, audited, and the only way in.

Views, the admin and management commands all call these; none of them changes a row itself.
"""

from ledger.services import may_pay_from_till

from .cancellations import ask_receipt_cancellation, decide_receipt_cancellation
from .claims import decide_claims, ensure_no_hold, may_decide_claims, record_claim
from .common import ReleaseRefused, TransitionNotAllowed, ensure_transition
from .court_orders import check_court_order, record_court_order
from .custody import (
    end_custody,
    log_feeding,
    record_birth,
    record_death,
    record_escape,
    record_return,
)
from .deposits import (
    apply_deposit,
    awaiting_application,
    decide_complaint,
    deposit_awaiting_application,
    pay_deposit_refund,
    record_complaint,
    release_on_deposit,
)
from .inspections import record_inspection
from .intake import amend_entry, confirm_owner_from_tag, create_entry, intake_warnings
from .releases import (
    ReleaseStatement,
    claimable_animals,
    release_on_payment,
    release_statement,
)

__all__ = [
    "ReleaseRefused",
    "ReleaseStatement",
    "TransitionNotAllowed",
    "amend_entry",
    "ask_receipt_cancellation",
    "check_court_order",
    "claimable_animals",
    "apply_deposit",
    "confirm_owner_from_tag",
    "create_entry",
    "decide_claims",
    "decide_complaint",
    "decide_receipt_cancellation",
    "awaiting_application",
    "deposit_awaiting_application",
    "end_custody",
    "ensure_no_hold",
    "ensure_transition",
    "intake_warnings",
    "log_feeding",
    "may_decide_claims",
    "may_pay_from_till",
    "pay_deposit_refund",
    "record_birth",
    "record_claim",
    "record_court_order",
    "record_complaint",
    "record_death",
    "record_escape",
    "record_inspection",
    "record_return",
    "release_on_deposit",
    "release_on_payment",
    "release_statement",
]
