"""Demo register: tariffs for every district, and a live pound with animals in every state.

Built through the same services as the application, back-dated so that the clocks have run.
Safe to run twice: it does nothing when the demo pound already has entries.
"""

import uuid
from datetime import date, timedelta
from decimal import Decimal

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from accounts.models import District, Pound, User, Village
from accounts.roles import Role
from impounding import services, tariffs
from impounding.dues import dues
from impounding.models import (
    AgeClass,
    Animal,
    Complaint,
    CourtOrder,
    FeedingRateOrder,
    FineScale,
    Impoundment,
    SeizerCapacity,
    SeizureBasis,
    Sex,
    Species,
)

from . import media as demo_media
from . import tariffs as demo_tariffs

DEMO_POUND = "lko-mlg-kh"
# A one-page PDF, for the demo court order's "scan": a sound file (its cross-reference table
# included), since an upload is read before it is kept (kernel/uploads.py).
DEMO_SCAN = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>endobj\n"
    b"xref\n0 4\n0000000000 65535 f \n0000000009 00000 n \n0000000052 00000 n \n"
    b"0000000101 00000 n \ntrailer<</Size 4/Root 1 0 R>>\nstartxref\n164\n%%EOF\n"
)

COW, BUFFALO, GOAT = Species.CATTLE, Species.BUFFALO, Species.GOAT
FEMALE, MALE, CASTRATED = Sex.FEMALE, Sex.MALE, Sex.CASTRATED
ADULT, YOUNG = AgeClass.ADULT, AgeClass.YOUNG


# The first feeding order's rates (large animals, small): the scale data set's earlier order
# (demo/scale/master.py) is at the same rates.
FIRST_FEEDING_RATES = ("450.00", "250.00")


def district_clerks():
    """Each district that has a DM's clerk, with its first: who records the district's tariffs."""
    for district in District.objects.all():
        clerk = User.objects.filter(
            assignments__role=Role.DM_CLERK, assignments__district=district
        ).first()
        if clerk is not None:
            yield district, clerk


def seed_tariffs():
    for district, clerk in district_clerks():
        if not FineScale.objects.filter(district=district).exists():
            tariffs.create_fine_scale(
                district=district,
                by=clerk,
                notification_number="Notification No. 12/2024-LG",
                notification_date=date(2024, 3, 15),
                valid_from=date(2024, 4, 1),
                title="Fines for cattle impounded (s.12)",
                categories=demo_tariffs.FINE_CATEGORIES,
                rules=demo_tariffs.FINE_RULES,
            )
        if not FeedingRateOrder.objects.filter(district=district).exists():
            tariffs.create_feeding_order(
                district=district,
                by=clerk,
                order_reference=f"DM/{district.code.upper()}/s.5/2024",
                order_date=date(2024, 3, 20),
                valid_from=date(2024, 4, 1),
                rates=demo_tariffs.feeding_rates(*FIRST_FEEDING_RATES),
            )
            # The rates were raised this year: a rate change that stays in mid-stay show.
            tariffs.create_feeding_order(
                district=district,
                by=clerk,
                order_reference=f"DM/{district.code.upper()}/s.5/2026",
                order_date=timezone.localdate() - timedelta(days=12),
                valid_from=timezone.localdate() - timedelta(days=5),
                rates=demo_tariffs.feeding_rates("500.00", "300.00"),
            )


def entry_days_ago(pound, keeper, days_ago, animals, hours_in_transit=3, **kw):
    arrived = timezone.now() - timedelta(days=days_ago, hours=2)
    fields = dict(
        seizure_place="Sugarcane field near the Sai canal",
        basis=SeizureBasis.S10_LAND,
        seizer_name="Ram Prasad Maurya",
        seizer_residence="Nigohan",
        seizer_capacity=SeizerCapacity.CULTIVATOR,
        seizure_village=Village.objects.filter(code="lko-nigohan").first(),
        damage_description="Standing sugarcane trampled and grazed",
    )
    fields.update(kw)
    return services.create_entry(
        pound=pound,
        by=keeper,
        arrived_at=arrived,
        seized_at=arrived - timedelta(hours=hours_in_transit),
        animals=animals,
        **fields,
    )


def animal(species, sex, age, colour, marks="", tag="", photo=None):
    return {
        "species": species,
        "sex": sex,
        "age_class": age,
        "colour": colour,
        "marks": marks,
        "ear_tag": tag,
        "photo": photo,
    }


def _claim(entry, keeper, animals, at, *, deposit=False, **kw):
    statement = dues(animals, as_of=at)
    common = dict(
        entry=entry,
        by=keeper,
        animal_ids=[a.pk for a in animals],
        idempotency_key=uuid.uuid4(),
        amount_tendered=statement.total,
        at=at,
        claimant_address=kw.pop("address", "Samesi"),
        claimant_role=kw.pop("claimant_role", "owner"),
        payment_mode=kw.pop("mode", "cash"),
        acknowledgement=kw.pop("acknowledgement", "register_page"),
        register_page=kw.pop("page", "41"),
    )
    if deposit:
        return services.release_on_deposit(ground=kw.pop("ground"), **common, **kw)
    return services.release_on_payment(**common, **kw)


def _in_the_pound(pound, keeper, now):
    # 1. Arrived this morning: two cows in the pound, one with a Pashu Aadhaar tag.
    entry_days_ago(
        pound,
        keeper,
        0,
        [
            animal(
                COW,
                FEMALE,
                ADULT,
                "White with brown patches",
                "Notched left ear",
                "123456789010",
                photo=demo_media.animal_photo(),
            ),
            animal(COW, MALE, YOUNG, "Brown"),
        ],
        owner_name="",
        hours_in_transit=2,
    )
    # 2. Three days in: a buffalo and a goat; the goat escaped and the buffalo is still in.
    e2 = entry_days_ago(
        pound,
        keeper,
        3,
        [
            animal(BUFFALO, FEMALE, ADULT, "Black", "Horns curved back"),
            animal(GOAT, MALE, ADULT, "Black and white"),
        ],
        owner_name="Shyam Lal",
        owner_residence="Samesi",
    )
    services.record_escape(
        animal=e2.animals.get(number=2),
        by=keeper,
        at=now - timedelta(days=1, hours=5),
        notes="Broke the gate at night",
    )
    # 3. Ten days in, unclaimed: report to the police is due (s.14). A calf was born to the cow.
    e3 = entry_days_ago(
        pound,
        keeper,
        10,
        [
            animal(COW, FEMALE, ADULT, "Grey", "Brand 'RK' on the left flank"),
            animal(COW, CASTRATED, ADULT, "White", "Nose rope"),
        ],
        hours_in_transit=30,
        seizure_place="Grazing ground beside the highway",
        basis=SeizureBasis.S11_PUBLIC,
        s11_site="road",
        s11_ground="straying",
        seizer_name="HC Dinesh Kumar",
        seizer_residence="PS Mohanlalganj",
        seizer_capacity=SeizerCapacity.POLICE_OFFICER,
        seizure_village=None,
        pound_choice_reason="Nearest pound to the highway stretch",
        damage_description="",
    )
    services.record_birth(
        dam=e3.animals.get(number=1),
        by=keeper,
        at=now - timedelta(days=6),
        sex=FEMALE,
        colour="Grey",
    )


def _claimed_on_payment(pound, keeper, now):
    # 4. Released on payment by two owners: one cow each (s.13), and one bullock died.
    e4 = entry_days_ago(
        pound,
        keeper,
        20,
        [
            animal(COW, FEMALE, ADULT, "Red Sindhi, red"),
            animal(COW, FEMALE, ADULT, "Sahiwal, light brown"),
            animal(COW, CASTRATED, ADULT, "White bullock", "Left horn broken"),
        ],
        owner_name="Sita Devi and Mohan Singh",
        owner_residence="Gosainganj",
    )
    a1, a2, a3 = e4.animals.order_by("number")
    _claim(
        e4,
        keeper,
        [a1],
        now - timedelta(days=18),
        claimant_name="Sita Devi",
        owner_name="Sita Devi",
        # She signs on the pound-keeper's phone: the demo's drawn signature.
        acknowledgement="signature",
        page="",
        signature=demo_media.drawn_signature(),
    )
    # The second owner sends an agent, with a letter of authority.
    _claim(
        e4,
        keeper,
        [a2],
        now - timedelta(days=17),
        claimant_name="Raju Yadav",
        owner_name="Mohan Singh",
        mode="upi",
        payment_reference="UPI 612345678901",
        claimant_role="agent",
        agent_authority="Letter signed by Mohan Singh, 10-11-2026",
    )
    services.record_death(
        animal=a3,
        by=keeper,
        at=now - timedelta(days=16),
        cause="Bloat after grazing wet clover",
        vet_name="Dr. A. K. Shukla",
        certificate="VH/MLG/2026/118",
        carcass_disposal="Buried at the pound",
    )


def _deposit_not_disputed(pound, keeper, now):
    # 5. Released on deposit (s.15), no complaint made in time: awaiting the DM's confirmation.
    e5 = entry_days_ago(
        pound,
        keeper,
        25,
        [animal(BUFFALO, MALE, ADULT, "Black", "Ring in the nose")],
        owner_name="Abdul Rahman",
        owner_residence="Nigohan",
    )
    _claim(
        e5,
        keeper,
        list(e5.animals.all()),
        now - timedelta(days=24),
        deposit=True,
        claimant_name="Abdul Rahman",
        owner_name="Abdul Rahman",
        ground="The buffalo was tied on my own land; it was taken from there",
    )


def _deposit_complaint_upheld(pound, keeper, magistrate, now):
    # 6. Released on deposit, complaint filed in time and upheld: deposit due for refund.
    e6 = entry_days_ago(
        pound,
        keeper,
        14,
        [animal(COW, FEMALE, ADULT, "Black")],
        owner_name="Kamla Devi",
        owner_residence="Samesi",
    )
    _claim(
        e6,
        keeper,
        list(e6.animals.all()),
        now - timedelta(days=13),
        deposit=True,
        claimant_name="Kamla Devi",
        owner_name="Kamla Devi",
        ground="The field was fenced and the seizer opened the gate",
    )
    dep6 = e6.releases.get().deposit
    complaint = services.record_complaint(
        entry=e6,
        by=keeper,
        deposit=dep6,
        complainant_name="Kamla Devi",
        mode=Complaint.Mode.WRITTEN,
        court="Court of the Sub-Divisional Magistrate, Mohanlalganj",
        case_number="Misc. 44/2026",
        filed_on=e6.seizure_date() + timedelta(days=3),
    )
    services.decide_complaint(
        complaint=complaint,
        by=magistrate,
        outcome=Complaint.Outcome.UPHELD,
        decided_on=timezone.localdate() - timedelta(days=2),
        order_reference="Order in Misc. 44/2026",
        compensation=Decimal("500.00"),
        payable_by="Ram Prasad Maurya, the seizer",
    )


def _deposit_complaint_pending(pound, keeper, now):
    # 7. Released on deposit, complaint pending.
    e7 = entry_days_ago(
        pound,
        keeper,
        6,
        [animal(GOAT, FEMALE, ADULT, "Brown")],
        owner_name="Gita",
        owner_residence="Gosainganj",
    )
    _claim(
        e7,
        keeper,
        list(e7.animals.all()),
        now - timedelta(days=5),
        deposit=True,
        claimant_name="Gita",
        owner_name="Gita",
        ground="The goat was on the village common",
    )
    services.record_complaint(
        entry=e7,
        by=keeper,
        deposit=e7.releases.get().deposit,
        complainant_name="Gita",
        mode=Complaint.Mode.ORAL,
        substance="Seized from the village common, not from a field",
        court="Court of the Sub-Divisional Magistrate, Mohanlalganj",
        filed_on=timezone.localdate() - timedelta(days=2),
    )


def _released_by_order(pound, keeper, now):
    # 8. Released by a Civil Court's order (s.19), and one rescued by force (s.24).
    e8 = entry_days_ago(
        pound,
        keeper,
        9,
        [
            animal(COW, FEMALE, ADULT, "White", "Tag torn"),
            animal(BUFFALO, FEMALE, ADULT, "Black"),
        ],
        owner_name="Harish Chandra",
        owner_residence="Samesi",
    )
    order = services.record_court_order(
        entry=e8,
        by=keeper,
        animal_ids=[e8.animals.get(number=1).pk],
        kind=CourtOrder.Kind.CIVIL_COURT,
        court="Civil Judge (Junior Division), Mohanlalganj",
        case_number="O.S. 112/2026",
        order_date=timezone.localdate() - timedelta(days=4),
        scan=ContentFile(DEMO_SCAN, name="order.pdf"),
        order_text="The white cow of Harish Chandra be released to him pending the suit.",
        dues_payable_by="As the suit decides",
    )
    # Released once the District Magistrate's office has checked the order (s.19).
    clerk = User.objects.filter(
        assignments__role=Role.DM_CLERK, assignments__district=pound.district
    ).first()
    if clerk is not None:
        services.check_court_order(
            order=order,
            by=clerk,
            outcome="confirmed",
            how="court_website",
            reference="CNR UPLK020011122026",
        )
    services.record_escape(
        animal=e8.animals.get(number=2),
        by=keeper,
        rescued=True,
        at=now - timedelta(days=3),
        police_reference="FIR 221/2026, PS Mohanlalganj",
        notes="Taken from the gate by three men",
    )


def _feeding_logs(pound, keeper):
    # Feeding logs for the last ten days, except the day before yesterday (flagged, s.27).
    for back in range(10, -1, -1):
        day = timezone.localdate() - timedelta(days=back)
        if back == 2:
            continue
        count = sum(
            1
            for a in Animal.objects.filter(impoundment__pound=pound)
            if a.impoundment.arrival_date() <= day
        )
        services.log_feeding(
            pound=pound,
            by=keeper,
            date=day,
            animals_fed=max(count, 1),
            fodder="Dry fodder (bhusa) and green fodder",
            watered=True,
            cost=Decimal("850.00"),
        )


@transaction.atomic
def seed_register():
    pound = Pound.objects.filter(code=DEMO_POUND).first()
    if pound is None or Impoundment.objects.filter(pound=pound).exists():
        return 0
    keeper = User.objects.get(username="keeper")
    magistrate = User.objects.get(username="magistrate")
    now = timezone.now()
    _in_the_pound(pound, keeper, now)
    _claimed_on_payment(pound, keeper, now)
    _deposit_not_disputed(pound, keeper, now)
    _deposit_complaint_upheld(pound, keeper, magistrate, now)
    _deposit_complaint_pending(pound, keeper, now)
    _released_by_order(pound, keeper, now)
    _feeding_logs(pound, keeper)
    return Impoundment.objects.filter(pound=pound).count()
