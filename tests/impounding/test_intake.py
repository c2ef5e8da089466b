"""s.8: entering cattle in the register on arrival, the intake warnings, and amendments."""

import io
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image
from stdnum import verhoeff

from accounts.models import Counter, DistrictPolicy
from accounts.roles import Role
from impounding.models import (
    Amendment,
    Animal,
    Impoundment,
    S11Ground,
    S11Site,
    SeizerCapacity,
    SeizureBasis,
)
from impounding.services import amend_entry, create_entry
from impounding.tags import tag_check_fails
from impounding.warnings import describe_warnings
from kernel.models import Event
from ledger.models import DISTRICT_ACCOUNTS, POUND_ACCOUNTS, Account
from tests.accounts.factories import PoundFactory, VillageFactory, staff
from tests.impounding.factories import cow, goat, make_entry

IST = ZoneInfo("Asia/Kolkata")
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=IST)

pytestmark = pytest.mark.time_machine(NOW, tick=False)

TAG_BODY = "50123456789"
VALID_TAG = TAG_BODY + verhoeff.calc_check_digit(TAG_BODY)
WRONG_TAG = TAG_BODY + str((int(verhoeff.calc_check_digit(TAG_BODY)) + 1) % 10)


def ist(month, day, hour=12, minute=0, year=2026):
    return datetime(year, month, day, hour, minute, tzinfo=IST)


def nothing_written():
    return (
        Impoundment.objects.count() == 0
        and Animal.objects.count() == 0
        and Event.objects.filter(pound__isnull=False).count() == 0
        and not Counter.objects.filter(key__startswith="register:", value__gt=0).exists()
    )


def served_village(pound):
    return pound.village_links.get().village


# --- register numbers ---


def test_entry_is_numbered_per_pound_per_year(pound, pound_keeper):
    first = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(11, 20, 9))
    second = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(11, 21, 9))

    code = pound.code.upper()
    assert first.register_number == f"{code}/2026/00001"
    assert second.register_number == f"{code}/2026/00002"
    assert (second.register_year, second.register_serial) == (2026, 2)


def test_register_numbers_restart_in_a_new_ist_year(time_machine, pound, pound_keeper):
    time_machine.move_to(datetime(2027, 1, 2, 12, 0, tzinfo=IST), tick=False)
    old_year = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(12, 31, 18))
    # 19:00 UTC on 31 December is 00:30 IST on 1 January: the new year's register.
    new_year = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=datetime(2026, 12, 31, 19, 0, tzinfo=ZoneInfo("UTC")),
    )

    assert old_year.register_number.endswith("/2026/00001")
    assert new_year.register_number.endswith("/2027/00001")
    assert new_year.register_year == 2027


def test_each_pound_keeps_its_own_register(pound, pound_keeper, district):
    sister = PoundFactory(district=district)
    sister_keeper = staff(Role.POUND_KEEPER, "sister_keeper", pound=sister)
    make_entry(pound=pound, by=pound_keeper)

    entry = make_entry(pound=sister, by=sister_keeper)

    assert entry.register_number == f"{sister.code.upper()}/2026/00001"


# --- the record and its event ---


def test_entry_records_the_s8_particulars_and_an_event_on_the_pound_chain(pound, pound_keeper):
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=ist(11, 25, 9),
        seized_at=ist(11, 25, 6),
        seizure_village=served_village(pound),
        animals=[cow(ear_tag=VALID_TAG, marks="Notch in left ear"), goat()],
    )

    assert entry.recorded_by == pound_keeper
    assert entry.warnings == []
    assert [(a.number, a.species, a.state) for a in entry.animals.all()] == [
        (1, "cattle", "impounded"),
        (2, "goat", "impounded"),
    ]
    assert entry.animals.get(number=1).ear_tag == VALID_TAG
    event = Event.objects.get(action="register.entered")
    assert event.chain == f"pound:{pound.pk}"
    assert (event.seq, event.section, event.by, event.at) == (1, "s.8", pound_keeper, NOW)
    assert (event.pound, event.impoundment, event.district) == (pound, entry, pound.district)
    assert event.data["register_number"] == entry.register_number
    assert event.data["seizer_capacity"] == "cultivator"
    # The seizer's name and residence are kept apart from the link (docs/decisions/0010).
    assert event.personal["seizer"][:2] == ["Ram Prasad", "Nigohan"]
    assert "Ram Prasad" not in str(event.payload())
    assert [a["number"] for a in event.data["animals"]] == [1, 2]


def test_entry_opens_the_pounds_ledger_accounts(pound, pound_keeper):
    make_entry(pound=pound, by=pound_keeper)

    assert Account.objects.filter(pound=pound).count() == len(POUND_ACCOUNTS)
    assert Account.objects.filter(district=pound.district, pound=None).count() == len(
        DISTRICT_ACCOUNTS
    )


# --- warnings never refuse an arrival (docs/domain.md decision 13) ---


def test_late_transfer_is_warned_but_the_entry_is_made(pound, pound_keeper):
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=ist(11, 25, 9),
        seized_at=ist(11, 24, 3),
        seizure_village=served_village(pound),
    )

    assert entry.warnings == [{"code": "late_transfer", "hours": 30, "limit": 24}]
    assert Event.objects.get(impoundment=entry).data["warnings"] == entry.warnings


def test_transfer_limit_follows_the_district_policy(pound, pound_keeper, district):
    DistrictPolicy.objects.create(district=district, transfer_limit_hours=48)

    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=ist(11, 25, 9),
        seized_at=ist(11, 24, 3),
        seizure_village=served_village(pound),
    )

    assert entry.warnings == []


def test_village_not_served_by_this_pound_is_warned_for_s10(pound, pound_keeper, district):
    elsewhere = VillageFactory(district=district, name="Bakshi Ka Talab")

    entry = make_entry(pound=pound, by=pound_keeper, seizure_village=elsewhere)

    assert entry.warnings == [{"code": "village_not_served", "village": "Bakshi Ka Talab"}]
    assert Impoundment.objects.filter(pk=entry.pk).exists()


def test_village_is_not_checked_for_an_s11_seizure(pound, pound_keeper, district):
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        basis=SeizureBasis.S11_PUBLIC,
        s11_site=S11Site.ROAD,
        s11_ground=S11Ground.STRAYING,
        seizer_capacity=SeizerCapacity.POLICE_OFFICER,
        seizure_village=VillageFactory(district=district),
        pound_choice_reason="Nearest pound to the highway",
    )

    assert entry.warnings == []


def test_seizer_not_entitled_on_the_basis_is_warned(pound, pound_keeper):
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        seizer_capacity=SeizerCapacity.POLICE_OFFICER,
        seizure_village=served_village(pound),
    )

    assert entry.warnings == [{"code": "capacity_mismatch", "basis": "s10", "capacity": "police"}]
    assert entry.animals.count() == 1


# --- refusals ---


def test_arrival_in_the_future_is_refused(pound, pound_keeper):
    with pytest.raises(ValidationError) as exc:
        make_entry(pound=pound, by=pound_keeper, arrived_at=NOW + timedelta(hours=1))

    assert "arrived_at" in exc.value.message_dict
    assert nothing_written()


def test_seizure_after_arrival_is_refused(pound, pound_keeper):
    with pytest.raises(ValidationError) as exc:
        make_entry(
            pound=pound, by=pound_keeper, arrived_at=ist(11, 25, 9), seized_at=ist(11, 25, 10)
        )

    assert "seized_at" in exc.value.message_dict
    assert nothing_written()


def test_entry_needs_an_animal(pound, pound_keeper):
    with pytest.raises(ValidationError):
        create_entry(
            pound=pound,
            by=pound_keeper,
            arrived_at=ist(11, 25, 9),
            seized_at=ist(11, 25, 8),
            seizure_place="Road",
            basis=SeizureBasis.S10_LAND,
            seizer_name="A",
            seizer_residence="B",
            seizer_capacity=SeizerCapacity.CULTIVATOR,
            animals=[],
        )

    assert nothing_written()


def test_pashu_aadhaar_failing_its_check_digit_is_held_until_the_keeper_confirms(
    pound, pound_keeper
):
    assert not tag_check_fails(VALID_TAG) and tag_check_fails(WRONG_TAG)

    with pytest.raises(ValidationError) as exc:
        make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow(ear_tag=WRONG_TAG)])

    assert "check digit" in exc.value.message_dict["ear_tag"][0]
    assert nothing_written()


def test_a_confirmed_tag_failing_the_check_is_kept_and_recorded(pound, pound_keeper):
    """No published INAPH specification says the tags carry a Verhoeff digit: a real tag
    must not be refused at the gate (impounding/tags.py)."""
    entry = make_entry(
        pound=pound, by=pound_keeper, animals=[cow(), cow(ear_tag=WRONG_TAG, tag_confirmed=True)]
    )

    assert entry.animals.get(number=2).ear_tag == WRONG_TAG
    warning = {"code": "tag_check_failed", "animal": 2, "tag": WRONG_TAG}
    entry.refresh_from_db()
    assert warning in entry.warnings
    event = Event.objects.get(action="register.entered", impoundment=entry)
    assert warning in event.data["warnings"]
    assert "fails the Pashu Aadhaar check digit" in " ".join(describe_warnings(entry.warnings))


@pytest.mark.parametrize(
    "tag",
    [
        VALID_TAG,
        f"{VALID_TAG[:4]} {VALID_TAG[4:8]} {VALID_TAG[8:]}",  # as printed on the tag
        "RFID-00A7",  # other shapes are accepted as written
        "12345",
    ],
)
def test_valid_or_other_ear_tags_are_accepted(pound, pound_keeper, tag):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(ear_tag=tag)])

    assert entry.animals.get().ear_tag == tag


def test_adjacent_digits_swapped_fail_the_check():
    swapped = VALID_TAG[:3] + VALID_TAG[4] + VALID_TAG[3] + VALID_TAG[5:]
    assert swapped != VALID_TAG

    assert tag_check_fails(swapped)


@pytest.mark.parametrize("who", ["outsider", "police_officer", "dm_clerk", "auditor"])
def test_only_this_pounds_keeper_may_enter_cattle(request, pound, who):
    user = request.getfixturevalue(who)

    with pytest.raises(PermissionDenied):
        make_entry(pound=pound, by=user)

    assert nothing_written()


# --- photos ---


def phone_photo(size=(3000, 2000)):
    image = Image.new("RGB", size, "sienna")
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: the phone was held upright
    exif[0x010F] = "PhoneMaker"  # make
    exif[0x0110] = "Model X"  # model
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif.tobytes())
    return SimpleUploadedFile("IMG_0001.jpg", out.getvalue(), content_type="image/jpeg")


def test_photo_is_shrunk_turned_upright_and_stripped_of_exif(pound, pound_keeper, media_root):
    upload = phone_photo()
    assert Image.open(io.BytesIO(upload.read())).getexif()[0x010F] == "PhoneMaker"
    upload.seek(0)

    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(photo=upload)])

    animal = entry.animals.get()
    assert animal.photo.name.startswith("animals/2026/11/")
    assert "IMG_0001" not in animal.photo.name
    with Image.open(animal.photo.path) as stored:
        assert stored.format == "JPEG"
        assert max(stored.size) <= 1280
        assert stored.size == (853, 1280)  # portrait: the orientation was applied
        assert "exif" not in stored.info
        assert len(stored.getexif()) == 0
    assert str(media_root) in animal.photo.path


def test_small_photo_is_not_enlarged(pound, pound_keeper):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(photo=phone_photo((400, 300)))])

    with Image.open(entry.animals.get().photo.path) as stored:
        assert stored.size == (300, 400)


def test_a_file_that_is_not_a_photo_is_refused(pound, pound_keeper):
    upload = SimpleUploadedFile("cow.jpg", b"not an image at all", content_type="image/jpeg")

    with pytest.raises(ValidationError) as exc:
        make_entry(pound=pound, by=pound_keeper, animals=[cow(photo=upload)])

    assert "photo" in exc.value.message_dict
    assert nothing_written()


# --- amendments (docs/domain.md decision 10) ---


@pytest.fixture
def entry(pound, pound_keeper):
    return make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=ist(11, 24, 9),
        seized_at=ist(11, 24, 6),
        animals=[cow(), goat()],
    )


def test_amendment_keeps_the_old_value_the_reason_who_and_when(entry, pound_keeper, time_machine):
    time_machine.move_to(NOW + timedelta(hours=1), tick=False)

    (amendment,) = amend_entry(
        entry=entry,
        by=pound_keeper,
        reason="Owner's full name given by the sarpanch",
        changes={"owner_name": "Shyam Lal Yadav", "seizer_name": "Ram Prasad"},
    )

    entry.refresh_from_db()
    assert entry.owner_name == "Shyam Lal Yadav"
    assert (amendment.field, amendment.old_value, amendment.new_value) == (
        "owner_name",
        "Shyam Lal",
        "Shyam Lal Yadav",
    )
    assert amendment.field_label == "owner's name, if known"
    assert amendment.reason == "Owner's full name given by the sarpanch"
    assert (amendment.by, amendment.at) == (pound_keeper, NOW + timedelta(hours=1))
    assert Amendment.objects.get().pk == amendment.pk
    event = Event.objects.get(action="register.amended")
    assert (event.section, event.by, event.impoundment) == ("s.8", pound_keeper, entry)
    assert event.data["changes"] == []  # a name: in the event's personal fields, not its link
    assert event.personal["changes"] == [["owner_name", "Shyam Lal", "Shyam Lal Yadav"]]
    assert event.data["reason"] == amendment.reason


def test_amendment_shows_choices_and_times_as_written(entry, pound_keeper):
    amendments = amend_entry(
        entry=entry,
        by=pound_keeper,
        reason="Read the seizure slip again",
        changes={"seizer_capacity": SeizerCapacity.VENDEE_MORTGAGEE, "seized_at": ist(11, 24, 5)},
    )

    values = {a.field: (a.old_value, a.new_value) for a in amendments}
    assert values["seizer_capacity"] == (
        "Cultivator or occupier of the land (s.10)",
        "Vendee or mortgagee of the crop or produce (s.10)",
    )
    assert values["seized_at"] == ("24-11-2026 06:00", "24-11-2026 05:00")


def test_animal_amendment_is_recorded_against_the_animal(entry, pound_keeper):
    goat_ = entry.animals.get(number=2)

    (amendment,) = amend_entry(
        entry=entry,
        by=pound_keeper,
        animal=goat_,
        reason="Colour misread at night",
        changes={"colour": "Brown"},
    )

    goat_.refresh_from_db()
    assert goat_.colour == "Brown"
    assert (amendment.animal, amendment.old_value) == (goat_, "Black")
    assert Event.objects.get(action="register.amended").animal == goat_


@pytest.mark.parametrize("reason", ["", "   "])
def test_amendment_without_a_reason_is_refused(entry, pound_keeper, reason):
    with pytest.raises(ValidationError) as exc:
        amend_entry(entry=entry, by=pound_keeper, reason=reason, changes={"owner_name": "X"})

    assert "reason" in exc.value.message_dict
    entry.refresh_from_db()
    assert entry.owner_name == "Shyam Lal"
    assert not Amendment.objects.exists()
    assert not Event.objects.filter(action="register.amended").exists()


@pytest.mark.parametrize(
    "changes",
    [
        {"arrived_at": ist(11, 24, 8)},
        {"register_number": "X/2026/00009"},
        {"recorded_by": None},
        {"owner_name": "New", "register_serial": 7},
    ],
)
def test_register_number_and_arrival_cannot_be_amended(entry, pound_keeper, changes):
    number, arrived = entry.register_number, entry.arrived_at

    with pytest.raises(ValidationError, match="cannot be amended"):
        amend_entry(entry=entry, by=pound_keeper, reason="Typo", changes=changes)

    entry.refresh_from_db()
    assert (entry.register_number, entry.arrived_at, entry.owner_name) == (
        number,
        arrived,
        "Shyam Lal",
    )
    assert not Amendment.objects.exists()


def test_amendment_that_changes_nothing_is_refused(entry, pound_keeper):
    with pytest.raises(ValidationError, match="Nothing was changed"):
        amend_entry(
            entry=entry, by=pound_keeper, reason="Check", changes={"owner_name": "Shyam Lal"}
        )

    assert not Amendment.objects.exists()


def test_amendment_cannot_move_the_seizure_after_the_arrival(entry, pound_keeper):
    with pytest.raises(ValidationError):
        amend_entry(
            entry=entry, by=pound_keeper, reason="Wrong", changes={"seized_at": ist(11, 24, 10)}
        )

    entry.refresh_from_db()
    assert entry.seized_at == ist(11, 24, 6)
    assert not Amendment.objects.exists()


def test_amendment_of_an_ear_tag_checks_the_digit(entry, pound_keeper):
    cow_ = entry.animals.get(number=1)

    with pytest.raises(ValidationError):
        amend_entry(
            entry=entry,
            by=pound_keeper,
            animal=cow_,
            reason="Tag read",
            changes={"ear_tag": WRONG_TAG},
        )

    cow_.refresh_from_db()
    assert cow_.ear_tag == ""
    assert not Amendment.objects.exists()

    amend_entry(
        entry=entry,
        by=pound_keeper,
        animal=cow_,
        reason="Tag read again: it is as written",
        changes={"ear_tag": WRONG_TAG},
        tag_confirmed=True,
    )
    cow_.refresh_from_db()
    assert cow_.ear_tag == WRONG_TAG


def test_amendment_of_an_animal_of_another_entry_is_refused(
    entry, pound_keeper, outsider, other_pound
):
    foreign = make_entry(pound=other_pound, by=outsider).animals.get()

    with pytest.raises(ValidationError):
        amend_entry(
            entry=entry, by=pound_keeper, animal=foreign, reason="x", changes={"colour": "Grey"}
        )

    foreign.refresh_from_db()
    assert foreign.colour == "White"
    assert not Amendment.objects.exists()


@pytest.mark.parametrize("who", ["outsider", "dm_clerk", "police_officer"])
def test_only_this_pounds_keeper_may_amend(request, entry, who):
    user = request.getfixturevalue(who)

    with pytest.raises(PermissionDenied):
        amend_entry(entry=entry, by=user, reason="Mine now", changes={"owner_name": "X"})

    entry.refresh_from_db()
    assert entry.owner_name == "Shyam Lal"
    assert not Amendment.objects.exists()
