"""Each s.15 deposit's `complaint_state`: the state of the complaints that decide it (s.20-22),
kept on the deposit so that the office's queues of held deposits are conditions on its row
(docs/decisions/0092).

The complaints that decide a deposit are those naming it, else the entry's complaints that name
no deposit (office.dashboard.complaints_of); their state is "none" (no complaint), "pending"
(any undecided), "upheld" (any held the seizure illegal, none pending) or "dismissed" (all
dismissed). On PostgreSQL triggers keep the column (impounding/migrations/0030), whatever the
writer; on SQLite, the zero-setup `make run`, the models' save() calls `refresh` below.
"""

NONE, PENDING, UPHELD, DISMISSED = "none", "pending", "upheld", "dismissed"


def state_of(outcomes):
    """The state of a deposit's deciding complaints, from their outcomes (PENDING, UPHELD and
    DISMISSED are the complaint's outcomes too)."""
    if not outcomes:
        return NONE
    if PENDING in outcomes:
        return PENDING
    if UPHELD in outcomes:
        return UPHELD
    return DISMISSED


def refresh(entry_id):
    """The states of the deposits of one register entry, worked out again (SQLite alone: on
    PostgreSQL the triggers have done it in the same statement)."""
    from .releases import Complaint, Deposit  # releases imports this module: a cycle

    complaints = list(
        Complaint.objects.filter(impoundment_id=entry_id).values_list("deposit_id", "outcome")
    )
    loose = {outcome for deposit_id, outcome in complaints if deposit_id is None}
    for deposit in Deposit.objects.filter(release__impoundment_id=entry_id):
        linked = {outcome for deposit_id, outcome in complaints if deposit_id == deposit.pk}
        state = state_of(linked or loose)
        if deposit.complaint_state != state:
            Deposit.objects.filter(pk=deposit.pk).update(complaint_state=state)
