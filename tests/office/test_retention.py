"""The retention rule: personal data of a case is erased once its last animal left the pound
longer ago than the period; open cases, recent cases and the money are untouched; login records
go after their own period; each erasure is an event, and the chain still verifies."""

import io
from datetime import timedelta

from axes.models import AccessAttempt
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.utils import timezone
from PIL import Image

from impounding.models import Impoundment, Release
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from tests.impounding.factories import make_entry, pay


def png():
    out = io.BytesIO()
    Image.new("RGBA", (90, 30), (0, 0, 0, 0)).save(out, format="PNG")
    return out.getvalue()


def test_old_closed_cases_lose_their_personal_data_and_nothing_else(
    pound, pound_keeper, tariffs, time_machine, settings
):
    settings.RETENTION_PERSONAL_YEARS = 8
    old = make_entry(pound=pound, by=pound_keeper, owner_phone="9876543210")
    release = pay(
        old,
        pound_keeper,
        acknowledgement="signature",
        register_page="",
        signature=ContentFile(png(), name="s.png"),
    )
    signature = Release.objects.get(pk=release.pk).signature
    storage, signature_name = signature.storage, signature.name
    time_machine.move_to(timezone.now() + timedelta(days=365 * 9), tick=False)
    recent = make_entry(pound=pound, by=pound_keeper)
    pay(recent, pound_keeper)
    still_in = make_entry(pound=pound, by=pound_keeper)
    AccessAttempt.objects.create(username="x", ip_address="10.0.0.1", failures_since_start=1)
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(days=200))
    out = io.StringIO()

    call_command("apply_retention", stdout=out)

    erased = Impoundment.objects.get(pk=old.pk)
    assert (erased.seizer_name, erased.owner_name, erased.seizer_residence) == ("[erased]", "", "")
    assert erased.owner_phone == ""
    kept = Release.objects.get(pk=release.pk)
    assert (kept.claimant_name, kept.claimant_address, kept.signature.name) == ("[erased]", "", "")
    assert not storage.exists(signature_name)
    assert kept.amount == release.amount and kept.receipt.number == release.receipt.number
    assert Impoundment.objects.get(pk=recent.pk).seizer_name == "Ram Prasad"
    assert Impoundment.objects.get(pk=still_in.pk).owner_name == "Shyam Lal"
    assert not AccessAttempt.objects.exists()
    assert out.getvalue().startswith("apply_retention: entries 1, ")
    event = Event.objects.get(action="retention.personal_data_erased")
    assert (event.impoundment_id, event.section) == (old.pk, "DPDP Act 2023 s.8(7)")
    assert verify_chain() == [] and run_checks() == []

    call_command("apply_retention", stdout=out)  # a second run finds nothing more to do

    assert Event.objects.filter(action="retention.personal_data_erased").count() == 1
