"""The District Magistrate's office's event actions, each with its timeline label. The values
keep the "ledger." prefix they were first recorded with: the chain's stored events use them."""

from django.utils.translation import gettext_lazy as _

from kernel.events import EventAction


class Action(EventAction):
    REMITTANCE_SENT = "ledger.remittance_sent", _("Fines remitted to the District Magistrate")
    REMITTANCE_CONFIRMED = "ledger.remittance_confirmed", _("Remittance of fines confirmed")
    SURPLUS_RECEIVED = "ledger.surplus_received", _("Surplus received in deposit")
    SURPLUS_CLAIMED = "ledger.surplus_claimed", _("Claim to the surplus filed")
    SURPLUS_CLAIM_ALLOWED = "ledger.surplus_claim_allowed", _("Claim to the surplus allowed: paid")
    SURPLUS_CLAIM_REJECTED = "ledger.surplus_claim_rejected", _("Claim to the surplus rejected")
    SURPLUS_TRANSFERRED = "ledger.surplus_transferred", _("Surplus credited to revenue")
    TREASURY_GRN_RECORDED = "treasury.grn_recorded", _("Treasury challan's GRN recorded")
    TREASURY_GRN_CONFIRMED = "treasury.grn_confirmed", _("Treasury challan's GRN confirmed")
    TREASURY_SCROLL_IMPORTED = "treasury.scroll_imported", _("Treasury scroll imported")
    SHORTFALL_WRITTEN_OFF = "ledger.shortfall_written_off", _("Shortfall written off")
    # Recorded before ADR 0056 moved the check ahead of the release (impounding's actions now):
    # kept so that the events already in the log keep their label.
    COURT_ORDER_REVIEWED = "ledger.court_order_reviewed", _("Court order checked by the office")
    PERSONAL_DATA_ERASED = "retention.personal_data_erased", _("Personal data erased (retention)")
    DEPOSIT_APPLICATION_CONFIRMED = (
        "deposit.application_confirmed",
        _("Application of the deposit confirmed"),
    )
