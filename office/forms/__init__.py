"""The office's forms, one module per area as in impounding/forms and auctions/forms: money
(remittances, surplus, claims), returns, and the office's approvals. The money forms are also
importable from the package itself (`from office.forms import RemittanceForm`)."""

from .money import *  # noqa: F403
