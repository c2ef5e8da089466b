"""The register's month totals (docs/decisions/0066) say what the animals add up to after every
kind of business, and the kept documents built on them are served again without the work they
save: a kept district return reads no animal, a kept cash book is not drawn again, and each is
drawn afresh when a late entry changes what it says."""

import uuid
from datetime import datetime, timedelta
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from impounding import months
from impounding import services as impounding
from impounding.models import Animal, AnimalMonth, AnimalState, Sex, Species
from office import return_documents, returns
from office.models import KeptCashBook
from tests.impounding.factories import cow, goat, make_entry, pay

IST = ZoneInfo("Asia/Kolkata")


def _must_not_draw(*args, **kwargs):
    raise AssertionError("a kept document was drawn again")


def _last_month_day(day=10, hour=11):
    last = timezone.localdate().replace(day=1) - timedelta(days=1)
    return last, datetime(last.year, last.month, day, hour, tzinfo=IST)


def _this_month(pound):
    today = timezone.localdate()
    return returns.pound_return(pound, today.year, today.month)


def test_the_totals_follow_intake_birth_death_release_and_a_cancelled_receipt(
    pound, pound_keeper, dm_clerk, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow(), goat()])
    first, second, kid = entry.animals.order_by("number")
    now = timezone.now()
    impounding.record_birth(dam=first, by=pound_keeper, at=now, sex=Sex.FEMALE, colour="White")
    impounding.record_death(animal=kid, by=pound_keeper, at=now, cause="Bloat")
    paid = pay(entry, pound_keeper, [second])
    assert months.months_disagree() == []
    totals = _this_month(pound)["totals"]
    assert (totals["impounded"], totals["born"], totals["claimed"], totals["died"]) == (3, 1, 1, 1)

    asked = impounding.ask_receipt_cancellation(
        receipt=paid.receipt, by=pound_keeper, reason="Wrong animal released by mistake"
    )
    impounding.decide_receipt_cancellation(cancellation=asked, by=dm_clerk, approve=True)

    assert months.months_disagree() == []
    totals = _this_month(pound)["totals"]
    assert (totals["claimed"], totals["closing"]) == (0, 3)  # both cows and the calf


def test_the_totals_follow_a_corrected_species(pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    impounding.amend_entry(
        entry=entry,
        by=pound_keeper,
        reason="Entered as a cow; it is a buffalo",
        changes={"species": Species.BUFFALO},
        animal=entry.animals.get(),
    )

    assert months.months_disagree() == []
    assert [row["species"] for row in _this_month(pound)["animals"]] == [Species.BUFFALO]


# Any write to the animals, by any path: the totals are kept by the database, so a write that
# no service makes (a repair, a bulk load) keeps them too.
WRITES = st.lists(
    st.tuples(
        st.sampled_from(["end", "undo", "species", "move_end", "new"]),
        st.integers(min_value=0, max_value=20),
        st.integers(min_value=0, max_value=90),
    ),
    min_size=1,
    max_size=8,
)


@pytest.mark.postgres
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(writes=WRITES)
def test_the_totals_equal_a_recount_after_any_writes(pound, pound_keeper, tariffs, writes):
    now = timezone.now()
    for what, pick, days in writes:
        animals = list(Animal.objects.order_by("pk"))
        if what == "new" or not animals:
            make_entry(pound=pound, by=pound_keeper, animals=[goat()])
            continue
        animal = animals[pick % len(animals)]
        came = animal.born_at or animal.impoundment.arrived_at
        at = min(came + timedelta(days=days), now)
        if what == "end":
            Animal.objects.filter(pk=animal.pk).update(state=AnimalState.DIED, custody_ended_at=at)
        elif what == "undo":
            Animal.objects.filter(pk=animal.pk).update(
                state=AnimalState.IMPOUNDED, custody_ended_at=None
            )
        elif what == "species":
            Animal.objects.filter(pk=animal.pk).update(species=Species.BUFFALO)
        else:
            Animal.objects.filter(pk=animal.pk, custody_ended_at__isnull=False).update(
                custody_ended_at=F("custody_ended_at") - timedelta(days=days % 40)
            )
        assert months.months_disagree() == [], what


@pytest.mark.postgres
def test_the_check_names_a_drift_and_the_rebuild_mends_it(pound, pound_keeper, tariffs):
    make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    AnimalMonth.objects.update(animals=F("animals") + 1)

    with pytest.raises(SystemExit):
        call_command("check_register_months", stdout=StringIO(), stderr=StringIO())
    call_command("rebuild_register_months", stdout=StringIO())

    out = StringIO()
    call_command("check_register_months", stdout=out)
    assert "agree" in out.getvalue()


# --- Kept documents -----------------------------------------------------------------------------


def test_a_kept_district_return_reads_no_animal_nor_the_months_postings(
    client, pound, district, pound_keeper, auditor, tariffs, monkeypatch
):
    last, day = _last_month_day()
    pay(make_entry(pound=pound, by=pound_keeper, arrived_at=day, animals=[goat()]), pound_keeper)
    url = reverse("office:district_return", args=[district.pk, last.year, last.month, "pdf"])
    client.force_login(auditor)
    kept = client.get(url).content
    monkeypatch.setattr(return_documents, "render_pdf", _must_not_draw)

    with CaptureQueriesContext(connection) as captured:
        again = client.get(url).content

    assert again == kept
    sql = " ".join(q["sql"] for q in captured.captured_queries)
    assert '"impounding_animal"' not in sql and '"impounding_impoundment"' not in sql


def _cash_book_url(pound, day):
    return reverse("office:cash_book", args=[pound.pk, day.isoformat(), "pdf"])


def test_a_cash_book_is_kept_and_served_again_while_it_says_the_same(
    client, pound, pound_keeper, tariffs, monkeypatch
):
    last, day = _last_month_day()
    pay(make_entry(pound=pound, by=pound_keeper, arrived_at=day, animals=[goat()]), pound_keeper)
    client.force_login(pound_keeper)
    url = _cash_book_url(pound, timezone.localdate())
    first = client.get(url).content
    kept = KeptCashBook.objects.get(pound=pound, day=timezone.localdate())
    monkeypatch.setattr(return_documents, "render_pdf", _must_not_draw)

    assert client.get(url).content == first
    assert KeptCashBook.objects.get(pk=kept.pk).file.name == kept.file.name


def test_a_kept_cash_book_is_drawn_afresh_when_a_late_payment_changes_it(
    client, pound, pound_keeper, tariffs, time_machine
):
    last, day = _last_month_day()
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=day, animals=[goat(), goat()])
    one, two = entry.animals.order_by("number")
    time_machine.move_to(day + timedelta(hours=2), tick=False)
    pay(entry, pound_keeper, [one])
    client.force_login(pound_keeper)
    url = _cash_book_url(pound, day.date())
    before = client.get(url).content
    kept = KeptCashBook.objects.get(pound=pound, day=day.date())

    # A payment of the same day, recorded later.
    time_machine.move_to(day + timedelta(hours=2, minutes=10), tick=False)
    pay(entry, pound_keeper, [two], key=uuid.uuid4())
    response = client.get(url)
    assert response.status_code == 200
    after = response.content

    assert after != before
    redrawn = KeptCashBook.objects.get(pk=kept.pk)
    assert redrawn.drawn_from != kept.drawn_from and redrawn.file.name != kept.file.name
    assert not kept.file.storage.exists(kept.file.name)


@pytest.mark.parametrize("kind", ["pound", "district"])
def test_the_returns_page_reads_no_animal(client, pound, district, pound_keeper, auditor, kind):
    last, day = _last_month_day()
    make_entry(pound=pound, by=pound_keeper, arrived_at=day, animals=[goat()])
    subject = pound if kind == "pound" else district
    client.force_login(auditor)
    url = f"{reverse('office:returns')}?of={kind}-{subject.pk}&month={last:%Y-%m}"
    url += f"&day={timezone.localdate().isoformat()}"

    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)

    assert response.status_code == 200
    assert response.context["r"]["totals"]["impounded"] == 1
    sql = " ".join(q["sql"] for q in captured.captured_queries)
    assert '"impounding_animal"' not in sql and '"impounding_impoundment"' not in sql
