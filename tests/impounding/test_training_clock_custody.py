"""The last of ADR 0080's real-time list, on the pound's own clock: the veterinary visit's and a
field photo's "not in the future", the custody counts and the feeding gaps, the keeper's today
board, and the s.16 running account's end. Each test moves a training district's clock so that
its cattle came in after real now, and shows the area follow the training clock, while a real
district in the same run keeps real time."""

import io
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from accounts.models import Pound
from auctions import services as auctions
from impounding import selectors
from impounding.dues import dues
from impounding.models import Animal
from impounding.services.field import add_photo
from kernel import clock
from tests.auctions.test_training import t_officer, t_pound, trainer, training  # noqa: F401
from tests.impounding.factories import make_entry
from tests.impounding.test_inspections import record
from tests.office.test_training_pages import _advance, books_stay_whole, t_keeper  # noqa: F401
from tests.rulepacks.factories import inspecting


def _came(pound, keeper, hours_ago):
    """An entry that came in `hours_ago` hours before the pound's own now."""
    return make_entry(
        pound=pound, by=keeper, arrived_at=clock.now(pound) - timedelta(hours=hours_ago)
    )


def test_the_veterinary_visit_is_judged_and_offered_on_the_pounds_clock(
    client,
    pound,
    pound_keeper,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,  # noqa: F811
    trainer,  # noqa: F811
):
    inspecting(training, within_hours=24)
    _advance(training, trainer, 3)
    late = _came(t_pound, t_keeper, 30)  # past its 24 hours on the training clock
    fresh = _came(t_pound, t_keeper, 2)
    # The board and the entry's page call the late one overdue, on the training clock.
    (board,) = selectors.pound_day_board(
        [Pound.objects.select_related("district").get(pk=t_pound.pk)]
    )
    assert [(e.pk, e.overdue) for e in board["inspections_due"]] == [
        (late.pk, True),
        (fresh.pk, False),
    ]
    assert selectors.inspection_record(late)["overdue"] is True
    # The form offers the training minute, and the visit an hour ago is taken.
    client.force_login(t_keeper)
    form = client.get(reverse("impounding:inspection_new", args=[fresh.pk])).context["form"]
    assert form["visited_at"].initial.date() == clock.today(t_pound)
    record(fresh, t_keeper, at=clock.now(t_pound) - timedelta(hours=1))
    # A real pound's visit two days on is still the future.
    real = make_entry(pound=pound, by=pound_keeper)
    with pytest.raises(ValidationError) as refused:
        record(real, pound_keeper, at=timezone.now() + timedelta(days=2))
    assert "visited_at" in refused.value.message_dict


def _jpeg():
    out = io.BytesIO()
    Image.new("RGB", (80, 60), "brown").save(out, format="JPEG")
    return SimpleUploadedFile("cow.jpg", out.getvalue(), content_type="image/jpeg")


def test_a_field_photo_is_judged_on_the_pounds_clock(
    pound,
    pound_keeper,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,  # noqa: F811
    trainer,  # noqa: F811
):
    _advance(training, trainer, 3)
    animal = _came(t_pound, t_keeper, 1).animals.get()
    taken = clock.now(t_pound) - timedelta(minutes=30)  # two days and more after real now
    assert add_photo(animal=animal, by=t_keeper, photo=_jpeg(), taken_at=taken).photo
    real = make_entry(pound=pound, by=pound_keeper).animals.get()
    with pytest.raises(ValidationError) as refused:
        add_photo(animal=real, by=pound_keeper, photo=_jpeg(), taken_at=taken)
    assert "taken_at" in refused.value.message_dict


def test_custody_and_feeding_gaps_count_to_each_pounds_own_day(
    pound,
    pound_keeper,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,  # noqa: F811
    trainer,  # noqa: F811
):
    _advance(training, trainer, 5)
    t_today, today = clock.today(t_pound), timezone.localdate()
    _came(t_pound, t_keeper, 3 * 24)  # three training days ago: two real days from now
    make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=2))
    t_days = [t_today - timedelta(days=n) for n in (3, 2, 1, 0)]
    assert selectors.custody_counts(t_pound, t_days[0], t_today) == dict.fromkeys(t_days, 1)
    assert selectors.missing_feeding_days(t_pound, t_days[0], t_today) == t_days
    assert selectors.past_feeding_gaps(t_pound) == t_days[:3]
    # Both pounds at once: the real one's gaps end at real today, the training one's at its day.
    days = [today - timedelta(days=n) for n in (2, 1, 0)]
    gaps = selectors.missing_feeding_by_pound([pound.pk, t_pound.pk], days[0], t_today)
    assert gaps == {pound.pk: days, t_pound.pk: t_days}
    # The today board, over both, reckons each pound on its own clock.
    pounds = list(Pound.objects.select_related("district").filter(pk__in=[pound.pk, t_pound.pk]))
    board = {b["pound"].pk: b for b in selectors.pound_day_board(pounds)}
    assert [r["days"] for r in board[t_pound.pk]["rows"]] == [4]
    assert [r["days"] for r in board[pound.pk]["rows"]] == [3]
    assert board[t_pound.pk]["missing_feeding"] == t_days
    animals = list(Animal.objects.filter(pound=t_pound).select_related("impoundment__pound"))
    line = board[t_pound.pk]["rows"][0]["dues"]
    assert line.feeding_days == 4
    assert line.total == dues(animals, as_of=clock.now(t_pound)).lines[0].total


def test_the_s16_running_account_ends_at_the_pounds_now(
    client,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,  # noqa: F811
    trainer,  # noqa: F811
):
    _advance(training, trainer, 5)
    entry = _came(t_pound, t_keeper, 2 * 24)
    case = auctions.open_s16_case(
        entry=entry,
        animal_ids=[entry.animals.get().pk],
        by=t_keeper,
        owner_name="Shyam Lal",
        owner_address="Samesi",
    )
    client.force_login(t_keeper)
    account = client.get(reverse("auctions:s16_case", args=[case.pk])).context["account"]
    assert timezone.localtime(account["b_to"]).date() == clock.today(t_pound)
    assert account["b_days"] == 3
