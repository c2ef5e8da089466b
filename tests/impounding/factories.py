import uuid
from datetime import date, timedelta
from decimal import Decimal

from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from accounts.roles import Role
from demo import tariffs as demo_tariffs
from impounding import services, tariffs
from impounding.dues import dues
from impounding.models import AgeClass, CourtOrder, SeizerCapacity, SeizureBasis, Sex, Species
from tests.accounts.factories import staff
from tests.pdfs import SCAN_PDF


def tariff_officer(district):
    return staff(Role.DM_CLERK, f"tariffs-{district.code}", district=district)


def set_tariffs(
    district, *, valid_from=date(2020, 1, 1), large="500.00", small="300.00", by=None, **kw
):
    """The demo scale and feeding rates, in force for the whole district from `valid_from`."""
    by = by or tariff_officer(district)
    scale = tariffs.create_fine_scale(
        district=district,
        by=by,
        notification_number=f"Notif {valid_from.year}/12",
        notification_date=valid_from - timedelta(days=10),
        valid_from=valid_from,
        categories=demo_tariffs.FINE_CATEGORIES,
        rules=demo_tariffs.FINE_RULES,
        **kw,
    )
    order = tariffs.create_feeding_order(
        district=district,
        by=by,
        order_reference=f"DM order {valid_from.isoformat()}",
        order_date=valid_from - timedelta(days=5),
        valid_from=valid_from,
        rates=demo_tariffs.feeding_rates(large, small),
        **kw,
    )
    return scale, order


def cow(**kw):
    return {
        "species": Species.CATTLE,
        "sex": Sex.FEMALE,
        "age_class": AgeClass.ADULT,
        "colour": "White",
        "marks": "",
        "ear_tag": "",
    } | kw


def goat(**kw):
    return {
        "species": Species.GOAT,
        "sex": Sex.MALE,
        "age_class": AgeClass.ADULT,
        "colour": "Black",
        "marks": "",
        "ear_tag": "",
    } | kw


def make_entry(*, pound, by, animals=None, arrived_at=None, seized_at=None, **kw):
    arrived_at = arrived_at or timezone.now() - timedelta(hours=2)
    seized_at = seized_at or arrived_at - timedelta(hours=3)
    fields = (
        dict(
            seizure_place="Field near the canal",
            basis=SeizureBasis.S10_LAND,
            seizer_name="Ram Prasad",
            seizer_residence="Nigohan",
            seizer_capacity=SeizerCapacity.CULTIVATOR,
            owner_name="Shyam Lal",
            owner_residence="Samesi",
        )
        | kw
    )
    return services.create_entry(
        pound=pound,
        by=by,
        arrived_at=arrived_at,
        seized_at=seized_at,
        animals=animals or [cow()],
        **fields,
    )


def pay(entry, by, animals=None, *, at=None, mode="cash", key=None, **kw):
    """Release `animals` (default: all in the pound) on payment of exactly the dues."""
    animals = animals or list(entry.animals.filter(state="impounded", dam__isnull=True))
    statement = dues(animals, as_of=at)
    fields = (
        dict(
            claimant_name="Shyam Lal",
            claimant_address="Samesi",
            claimant_role="owner",
            owner_name="Shyam Lal",
            payment_mode=mode,
            payment_reference="" if mode == "cash" else "UPI-123",
            acknowledgement="register_page",
            register_page="12",
        )
        | kw
    )
    return services.release_on_payment(
        entry=entry,
        by=by,
        animal_ids=[a.pk for a in animals],
        idempotency_key=key or uuid.uuid4(),
        amount_tendered=statement.total,
        at=at,
        **fields,
    )


def deposit(entry, by, animals=None, *, at=None, key=None, **kw):
    animals = animals or list(entry.animals.filter(state="impounded", dam__isnull=True))
    statement = dues(animals, as_of=at)
    fields = (
        dict(
            claimant_name="Shyam Lal",
            claimant_address="Samesi",
            claimant_role="owner",
            owner_name="Shyam Lal",
            payment_mode="cash",
            acknowledgement="register_page",
            register_page="13",
            ground="The cattle were on my own land",
        )
        | kw
    )
    return services.release_on_deposit(
        entry=entry,
        by=by,
        animal_ids=[a.pk for a in animals],
        idempotency_key=key or uuid.uuid4(),
        amount_tendered=statement.total,
        at=at,
        **fields,
    )


ZERO = Decimal("0.00")


def court_order(entry, by, animals=None, *, checker=None, **kw):
    """A court's order releasing `animals` (all the entry's by default), recorded by `by`; with
    a `checker` (the office), confirmed against the court's record too, so released (s.19)."""
    animals = list(entry.animals.all()) if animals is None else animals
    fields = {
        "kind": CourtOrder.Kind.MAGISTRATE,
        "court": "Court of the Sub-Divisional Magistrate, Mohanlalganj",
        "case_number": "Misc. 12/2026",
        "order_date": timezone.localdate() - timedelta(days=1),
        "scan": SimpleUploadedFile("order.pdf", SCAN_PDF),
        "order_text": "The cattle named be released to their owner.",
    } | kw
    order = services.record_court_order(
        entry=entry, by=by, animal_ids=[a.pk for a in animals], **fields
    )
    if checker is not None:
        order = services.check_court_order(
            order=order,
            by=checker,
            outcome="confirmed",
            how="court_website",
            reference="CNR UPLK020012342026",
        )
    return order
