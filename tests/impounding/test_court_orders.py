"""s.19: a release by a court's order waits for its check against the court's record, by
someone other than whoever recorded it (docs/decisions/0056)."""

import io
import uuid
from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from accounts.models import ToDo
from accounts.roles import Role
from impounding import services
from impounding.models import AnimalState, CourtOrder, CourtOrderCheck
from kernel.models import Event
from kernel.uploads import MAX_SCAN_BYTES
from ledger.models import Transaction
from tests.accounts.factories import StaffAssignmentFactory
from tests.impounding.factories import cow, goat, make_entry
from tests.pdfs import SCAN_PDF, pdf_of_size

IST = ZoneInfo("Asia/Kolkata")
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=IST)

pytestmark = pytest.mark.time_machine(NOW, tick=False)


def _image(fmt):
    out = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(out, format=fmt)
    return out.getvalue()


JPEG, PNG = _image("JPEG"), _image("PNG")


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=datetime(2026, 11, 24, 9, tzinfo=IST),
        seized_at=datetime(2026, 11, 24, 6, tzinfo=IST),
        animals=[cow(), cow(), goat()],
    )


def scan(content=SCAN_PDF, name="order.pdf"):
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


def order(entry, by, animals, *, kind=CourtOrder.Kind.MAGISTRATE, **kw):
    fields = (
        dict(
            court="Court of the Sub-Divisional Magistrate, Mohanlalganj",
            case_number="Misc. 12/2026",
            order_date=date(2026, 11, 25),
            scan=scan(),
            order_text="The two cows of Shyam Lal be released to him.",
            dues_payable_by="Ram Prasad (seizer)",
        )
        | kw
    )
    return services.record_court_order(
        entry=entry, by=by, animal_ids=[a.pk for a in animals], kind=kind, **fields
    )


def check(order, by, outcome="confirmed", **kw):
    fields = {"how": "court_website", "reference": "CNR UPLK020012342026"} | kw
    return services.check_court_order(order=order, by=by, outcome=outcome, **fields)


def states(entry):
    return list(entry.animals.order_by("number").values_list("state", flat=True))


def open_todos():
    return set(ToDo.objects.filter(done_at__isnull=True).values_list("key", "role"))


def test_a_recorded_order_releases_nothing_until_it_is_checked(entry, pound_keeper):
    a1, _a2, a3 = entry.animals.order_by("number")

    recorded = order(entry, pound_keeper, [a1, a3])

    assert recorded.status == CourtOrder.Status.AWAITING
    assert set(states(entry)) == {AnimalState.IMPOUNDED}
    assert set(recorded.animals_named.all()) == {a1, a3}
    assert not entry.animals.filter(court_order__isnull=False).exists()
    assert not Event.objects.filter(action="release.court_order").exists()
    event = Event.objects.get(action="release.court_order_recorded")
    assert (event.section, event.by) == ("s.19", pound_keeper)
    assert event.data["order_text"] == "The two cows of Shyam Lal be released to him."
    # The office is asked to check it; the keeper sees it waiting.
    assert open_todos() == {
        (f"court_order_review:{recorded.pk}", Role.DM_CLERK),
        (f"court_order_waiting:{recorded.pk}", Role.POUND_KEEPER),
    }


@pytest.mark.parametrize("checker", ["dm_clerk", "magistrate"])
def test_confirmed_by_the_office_the_animals_are_released_and_the_event_says_so(
    request, entry, pound_keeper, checker
):
    by = request.getfixturevalue(checker)
    a1, _a2, a3 = entry.animals.order_by("number")
    recorded = order(entry, pound_keeper, [a1, a3])

    checked = check(recorded, by)

    assert checked.status == CourtOrder.Status.RELEASED
    assert states(entry) == [
        AnimalState.RELEASED_BY_ORDER,
        AnimalState.IMPOUNDED,
        AnimalState.RELEASED_BY_ORDER,
    ]
    a1.refresh_from_db()
    assert (a1.court_order, a1.release, a1.custody_ended_at) == (checked, None, NOW)
    assert (checked.reviewed_by, checked.reviewed_at) == (by, NOW)
    verification = checked.verification
    assert (verification.how, verification.reference) == ("court_website", "CNR UPLK020012342026")
    assert (checked.unpaid_fines, checked.unpaid_feeding) == (
        Decimal("21400.00"),
        Decimal("1600.00"),
    )
    assert not Transaction.objects.exists()
    event = Event.objects.get(action="release.court_order")
    assert (event.section, event.by, event.at) == ("s.19", by, NOW)
    assert event.data["case"] == "Misc. 12/2026"
    assert event.data["recorded_by"] == pound_keeper.pk
    assert event.data["reference"] == "CNR UPLK020012342026"
    assert event.data["unpaid_fines"] == "21400.00"
    assert open_todos() == set()


def test_a_rejected_order_leaves_the_animals_and_tells_the_keeper(entry, pound_keeper, dm_clerk):
    recorded = order(entry, pound_keeper, list(entry.animals.all()))

    with pytest.raises(ValidationError) as exc:
        check(recorded, dm_clerk, "rejected", reason="   ")
    assert "reason" in exc.value.message_dict

    rejected = check(
        recorded, dm_clerk, "rejected", how="court_office", reason="No such case on the file"
    )

    assert rejected.status == CourtOrder.Status.REJECTED
    assert set(states(entry)) == {AnimalState.IMPOUNDED}
    assert not entry.animals.filter(court_order__isnull=False).exists()
    event = Event.objects.get(action="release.court_order_rejected")
    assert (event.section, event.by) == ("s.19", dm_clerk)
    assert event.data["reason"] == "No such case on the file"
    assert open_todos() == {(f"court_order_rejected:{recorded.pk}", Role.POUND_KEEPER)}
    # Decided once: neither confirmed afterwards nor rejected again.
    with pytest.raises(ValidationError):
        check(rejected, dm_clerk)
    assert set(states(entry)) == {AnimalState.IMPOUNDED}


def test_whoever_recorded_the_order_may_not_check_it(entry, pound, district):
    both = StaffAssignmentFactory(role=Role.POUND_KEEPER, pound=pound).user
    StaffAssignmentFactory(user=both, role=Role.DM_CLERK, district=district)
    recorded = order(entry, both, list(entry.animals.all()))

    with pytest.raises(PermissionDenied):
        check(recorded, both)

    recorded.refresh_from_db()
    assert recorded.status == CourtOrder.Status.AWAITING
    assert set(states(entry)) == {AnimalState.IMPOUNDED}
    assert not CourtOrderCheck.objects.exists()


@pytest.mark.parametrize("who", ["pound_keeper", "police_officer", "auditor", "outsider"])
def test_only_the_office_of_the_district_checks_an_order(request, entry, pound_keeper, who):
    recorded = order(entry, pound_keeper, list(entry.animals.all()))

    with pytest.raises(PermissionDenied):
        check(recorded, request.getfixturevalue(who))

    assert set(states(entry)) == {AnimalState.IMPOUNDED}


def test_another_districts_magistrate_may_not_check_an_order(entry, pound_keeper, other_district):
    elsewhere = StaffAssignmentFactory(role=Role.MAGISTRATE, district=other_district).user
    recorded = order(entry, pound_keeper, list(entry.animals.all()))

    with pytest.raises(PermissionDenied):
        check(recorded, elsewhere)


def test_the_same_check_sent_twice_decides_once(entry, pound_keeper, dm_clerk):
    recorded = order(entry, pound_keeper, list(entry.animals.all()))
    key = uuid.uuid4()

    check(recorded, dm_clerk, idempotency_key=key)
    again = check(recorded, dm_clerk, idempotency_key=key)

    assert again.status == CourtOrder.Status.RELEASED
    assert CourtOrderCheck.objects.count() == 1
    assert Event.objects.filter(action="release.court_order").count() == 1


def test_an_animal_gone_meanwhile_stops_the_confirmation(entry, pound_keeper, dm_clerk):
    a1 = entry.animals.get(number=1)
    recorded = order(entry, pound_keeper, [a1])
    services.record_escape(animal=a1, by=pound_keeper, at=NOW - timedelta(minutes=5))

    with pytest.raises(ValidationError):
        check(recorded, dm_clerk)

    recorded.refresh_from_db()
    assert recorded.status == CourtOrder.Status.AWAITING
    assert not CourtOrderCheck.objects.exists()


def test_an_animal_is_named_in_one_waiting_order_at_a_time(entry, pound_keeper, dm_clerk):
    a1 = entry.animals.get(number=1)
    first = order(entry, pound_keeper, [a1])

    with pytest.raises(ValidationError) as exc:
        order(entry, pound_keeper, [a1], case_number="Misc. 13/2026")
    assert "animals" in exc.value.message_dict

    check(first, dm_clerk, "rejected", reason="Wrong case number")
    again = order(entry, pound_keeper, [a1], case_number="Misc. 13/2026")
    assert again.status == CourtOrder.Status.AWAITING


def test_s22_order_cites_s22_and_links_the_upheld_complaint(
    entry, pound_keeper, dm_clerk, magistrate
):
    complaint = services.record_complaint(
        entry=entry,
        by=dm_clerk,
        complainant_name="Shyam Lal",
        mode="written",
        court="Court of the District Magistrate",
        filed_on=date(2026, 11, 24),
    )
    services.decide_complaint(
        complaint=complaint,
        by=magistrate,
        outcome="upheld",
        decided_on=date(2026, 11, 25),
        payable_by="Ram Prasad",
    )

    recorded = order(entry, pound_keeper, list(entry.animals.all()), kind=CourtOrder.Kind.S22)
    check(recorded, magistrate, how="own_order", reference="Order of 25-11-2026 on file")

    assert recorded.complaint == complaint
    assert Event.objects.get(action="release.court_order").section == "s.22"


@pytest.mark.parametrize(("content", "name"), [(JPEG, "o.jpg"), (PNG, "o.png")])
def test_an_image_scan_is_written_again_without_its_exif(entry, pound_keeper, content, name):
    recorded = order(entry, pound_keeper, [entry.animals.get(number=1)], scan=scan(content, name))

    assert recorded.scan.name.startswith("orders/2026/11/")
    with recorded.scan.open("rb") as f:
        assert Image.open(io.BytesIO(f.read())).size == (8, 8)


@pytest.mark.parametrize(
    ("upload", "message"),
    [
        (None, "Attach a scan"),
        (scan(b"Order of the court: release the cattle.\n", "order.pdf"), "PDF, JPEG or PNG"),
        (scan(b"%PDF-" + b"0" * MAX_SCAN_BYTES, "big.pdf"), "larger than 5 MB"),
    ],
)
def test_court_order_needs_a_readable_scan_of_at_most_5_mb(entry, pound_keeper, upload, message):
    with pytest.raises(ValidationError) as exc:
        order(entry, pound_keeper, list(entry.animals.all()), scan=upload)

    assert message in exc.value.message_dict["scan"][0]
    assert not CourtOrder.objects.exists()


def test_scan_of_exactly_5_mb_is_accepted(entry, pound_keeper):
    order(
        entry, pound_keeper, [entry.animals.get(number=1)], scan=scan(pdf_of_size(MAX_SCAN_BYTES))
    )

    assert CourtOrder.objects.count() == 1


def test_court_order_dated_in_the_future_is_refused(entry, pound_keeper):
    with pytest.raises(ValidationError) as exc:
        order(entry, pound_keeper, list(entry.animals.all()), order_date=date(2026, 11, 26))

    assert "order_date" in exc.value.message_dict
    assert not CourtOrder.objects.exists()


def test_court_order_takes_the_calf_with_its_dam(entry, pound_keeper, dm_clerk):
    dam = entry.animals.get(number=1)
    calf = services.record_birth(
        dam=dam,
        by=pound_keeper,
        at=datetime(2026, 11, 24, 22, tzinfo=IST),
        sex="male",
        colour="Red",
    )

    checked = check(order(entry, pound_keeper, [dam]), dm_clerk)

    calf.refresh_from_db()
    assert (calf.state, calf.court_order) == (AnimalState.RELEASED_BY_ORDER, checked)


@pytest.mark.parametrize("who", ["outsider", "dm_clerk", "police_officer"])
def test_only_this_pounds_keeper_records_an_order(request, entry, who):
    with pytest.raises(PermissionDenied):
        order(entry, request.getfixturevalue(who), list(entry.animals.all()))

    assert not CourtOrder.objects.exists()


def test_an_order_released_before_the_rule_is_checked_but_not_undone(entry, pound_keeper, dm_clerk):
    legacy = order(entry, pound_keeper, [entry.animals.get(number=1)])
    CourtOrder.objects.filter(pk=legacy.pk).update(status=CourtOrder.Status.RELEASED)

    with pytest.raises(ValidationError) as exc:
        check(legacy, dm_clerk, "rejected", reason="Not on the file")
    assert "outcome" in exc.value.message_dict

    checked = check(legacy, dm_clerk)

    assert (checked.status, checked.reviewed_by) == (CourtOrder.Status.RELEASED, dm_clerk)
    assert Event.objects.get(action="release.court_order_checked").by == dm_clerk
    assert not Event.objects.filter(action="release.court_order").exists()
