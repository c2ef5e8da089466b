"""The event actions of unclaimed cattle and sales, each with its timeline label."""

from django.utils.translation import gettext_lazy as _

from kernel.events import EventAction


class Action(EventAction):
    S14_REPORTED = "s14.reported", _("Reported to the officer as unclaimed")
    S14_NOTICE_POSTED = "s14.notice_posted", _("Notice posted")
    S14_PROCLAIMED = "s14.proclaimed", _("Proclamation made")
    S14_CONDITIONS_SET = "s14.conditions_set", _("Conditions of sale set")
    AUCTION_SCHEDULED = "auction.scheduled", _("Auction scheduled")
    AUCTION_BIDDER_REGISTERED = "auction.bidder_registered", _("Bidder registered")
    AUCTION_BIDDER_BLOCKED = "auction.bidder_blocked", _("Bidder blocked: may be staff")
    AUCTION_BLOCK_OVERRIDDEN = "auction.block_overridden", _("Bidder cleared by the Magistrate")
    AUCTION_SOLD = "auction.sold", _("Sold at auction")
    AUCTION_UNSOLD = "auction.unsold", _("Not sold at auction")
    AUCTION_WITHDRAWN = "auction.withdrawn", _("Lot withdrawn: claimed before the hammer")
    AUCTION_CLOSED = "auction.closed", _("Auction closed")
    S16_REFUSED = "s16.refused", _("Owner refused to pay: sale ordered")
    S16_COVERED = "s16.covered", _("Sale proceeds cover the dues")
    S16_SETTLED = "s16.settled", _("Remaining cattle and balance returned")
    DISPOSAL_PROPOSED = "disposal.proposed", _("Disposal proposed")
    DISPOSAL_APPROVED = "disposal.approved", _("Disposal approved")
    DISPOSAL_REJECTED = "disposal.rejected", _("Disposal not approved")
    GAUSHALA_REGISTERED = "gaushala.registered", _("Gaushala or welfare body registered")
    GAUSHALA_AMENDED = "gaushala.amended", _("Gaushala or welfare body amended")
    HANDOVER_DUES_WRITTEN_OFF = "handover.dues_written_off", _("Dues written off on a handover")
    GAUSHALA_ANIMAL_DIED = "gaushala.animal_died", _("Death at a gaushala recorded")
    GAUSHALA_ANIMAL_ESCAPED = "gaushala.animal_escaped", _("Escape from a gaushala recorded")
    GAUSHALA_ANIMAL_RECAPTURED = (
        "gaushala.animal_recaptured",
        _("Recapture by a gaushala recorded"),
    )
    GAUSHALA_ANIMAL_FOUND_DEAD = (
        "gaushala.animal_found_dead",
        _("Escaped animal found dead recorded"),
    )
    GAUSHALA_ANIMAL_RETURNED = (
        "gaushala.animal_returned",
        _("Return to the owner from a gaushala recorded"),
    )
    GAUSHALA_ANIMAL_TRANSFERRED = (
        "gaushala.animal_transferred",
        _("Transfer between gaushalas recorded"),
    )
    UPKEEP_CLAIMED = "upkeep.proposed", _("Upkeep claim prepared")
    UPKEEP_APPROVED = "upkeep.approved", _("Upkeep claim approved")
    UPKEEP_REJECTED = "upkeep.rejected", _("Upkeep claim not approved")
    UPKEEP_PAID = "upkeep.paid", _("Upkeep paid")
    UPKEEP_OVERPAID = "upkeep.overpaid", _("Upkeep over-paid: to recover from the next claim")
