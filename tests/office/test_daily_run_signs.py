"""The daily run signs the chains' heads at its end, after its own work: the surplus it credits
to revenue (s.17) and the deposit it applies (s.15) are in the checkpoint it signs, not left
for the next hour's (docs/decisions/0058-hourly-checkpoints.md)."""

from datetime import date, timedelta

from kernel import anchors
from kernel.events import verify_chain
from kernel.models import ChainHead, Event
from office import services as office
from office.deadlines import run
from tests.impounding.factories import deposit, make_entry
from tests.kernel.test_signed_checkpoints import forge_as_the_owner, signing_key
from tests.office.factories import noon, received_surplus
from tests.office.test_system_actor import standing_order

__all__ = ["signing_key", "standing_order"]  # fixtures used here


def test_the_daily_run_signs_its_own_transfers_at_its_end(
    time_machine,
    signing_key,
    standing_order,
    pound,
    pound_keeper,
    police_officer,
    dm_clerk,
    magistrate,
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    confirmed = deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper).deposit
    office.confirm_deposit_application(deposit=confirmed, by=magistrate)
    time_machine.move_to(noon(date(2026, 12, 1)) - timedelta(hours=1), tick=False)
    before, _problems = anchors.write_checkpoint()  # the hour's checkpoint, before the run
    time_machine.move_to(noon(date(2026, 12, 1)), tick=False)

    done = run()

    assert (done["surplus_transferred"], done["deposits_applied"]) == (1, 1)
    assert done["checkpoint_signed"] == 1 and done["checkpoint_refused"] == 0
    signed = anchors.latest_checkpoint()
    assert signed != before
    assert signed.heads == {h.chain: (h.seq, h.hash) for h in ChainHead.objects.all()}
    for action in ("ledger.surplus_transferred", "deposit.applied"):
        event = Event.objects.get(action=action)
        assert signed.heads[event.chain][0] >= event.seq > before.heads.get(event.chain, (0,))[0]
    # Cutting the run's own links afterwards is named against the run's checkpoint.
    transfer = Event.objects.get(action="ledger.surplus_transferred")
    head = ChainHead.objects.get(chain=transfer.chain)
    forge_as_the_owner(transfer.chain, cut=head.seq - transfer.seq + 1)
    assert [p[2].split(":")[0] for p in verify_chain()] == ["tail cut"]
