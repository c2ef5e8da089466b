"""The auctions app's models: s.14 reports and notices (unclaimed), auctions and s.16 cases
(base), and the District Magistrate's proviso disposals. Import them from here, never from
a submodule."""

from .base import (
    Auction,
    AuctionConditions,
    Bid,
    Bidder,
    BidderQuerySet,
    ConditionsQuerySet,
    DisposalOrder,
    Lot,
    LotAnimal,
    LotQuerySet,
    S16Case,
    Sale,
    Shortfall,
)
from .disposal import DisposalTerms
from .gaushala import (
    HOLDING_MOVES,
    MOVED_IN,
    Gaushala,
    Handover,
    HoldingEnd,
    UpkeepClaim,
    UpkeepOverpayment,
    UpkeepRecovery,
)
from .secondlanguage import TEXTS as CONDITION_TEXTS
from .unclaimed import Notice, Proclamation, Report

__all__ = [
    "CONDITION_TEXTS",
    "Auction",
    "AuctionConditions",
    "Bid",
    "Bidder",
    "BidderQuerySet",
    "ConditionsQuerySet",
    "DisposalOrder",
    "DisposalTerms",
    "Gaushala",
    "Handover",
    "HOLDING_MOVES",
    "MOVED_IN",
    "HoldingEnd",
    "Lot",
    "LotAnimal",
    "LotQuerySet",
    "Notice",
    "Proclamation",
    "Report",
    "S16Case",
    "Sale",
    "Shortfall",
    "UpkeepClaim",
    "UpkeepOverpayment",
    "UpkeepRecovery",
]
