"""Unclaimed cattle (s.14), sales on the owner's refusal (s.16), and where the money goes (s.17).

Every function is atomic, checks the actor's permission, locks what two people could race for,
writes its event (with the section relied on) to the pound's hash chain, and posts its money as
one balanced ledger transaction in the same database transaction.
"""

from .auction import (
    close_auction,
    mark_unsold,
    override_block,
    recheck_bidder,
    record_bid,
    register_bidder,
    schedule_auction,
    withdraw_claimed_lots,
)
from .common import ZERO, allocate
from .disposal import decide_disposal, propose_disposal
from .hammer import sell_lot, shortfall_if_sold
from .s16 import open_s16_case, s16_position, settle_s16_case
from .unclaimed import (
    conditions_on,
    post_notice,
    record_proclamation,
    send_report,
    set_auction_conditions,
)

__all__ = [
    "ZERO",
    "allocate",
    "close_auction",
    "conditions_on",
    "decide_disposal",
    "mark_unsold",
    "open_s16_case",
    "override_block",
    "post_notice",
    "propose_disposal",
    "record_bid",
    "record_proclamation",
    "recheck_bidder",
    "register_bidder",
    "s16_position",
    "schedule_auction",
    "send_report",
    "sell_lot",
    "set_auction_conditions",
    "settle_s16_case",
    "shortfall_if_sold",
    "withdraw_claimed_lots",
]
