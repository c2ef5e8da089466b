"""The public notice board at /notices/: animals under a s.14 notice, for anyone to see, with no
personal data of owners or seizers, searchable, paged, and quick on a phone."""

import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from accounts.models import IssuedDocument
from accounts.roles import Role
from auctions import selectors, services
from auctions.models import Notice
from impounding.dues import dues
from impounding.models import Animal
from impounding.services import custody
from tests.accounts.factories import VillageFactory, staff
from tests.auctions.factories import (
    conditions,
    ready_for_sale,
    report_and_notice,
    schedule,
    unclaimed_entry,
)
from tests.impounding.factories import cow, goat, make_entry, pay, set_tariffs

BOARD = "/notices/"

OWNER = {"owner_name": "Shyam Lal Yadav", "owner_residence": "Ward 7, Samesi Khurd"}
SEIZER = {
    "seizer_name": "Ram Prasad Tiwari",
    "seizer_residence": "House 12, Nigohan Kalan",
    "seizer_phone": "9876501234",
}


def under_notice(pound, keeper, officer, *, animals=None, posted_days_ago=2):
    """A register entry reported and put under notice `posted_days_ago` days ago."""
    entry = unclaimed_entry(
        pound=pound, keeper=keeper, days_ago=posted_days_ago + 9, animals=animals
    )
    _report, notice = report_and_notice(
        entry, keeper, officer, sent_days_ago=posted_days_ago, posted_days_ago=posted_days_ago
    )
    return entry, notice


@pytest.fixture
def entry(pound, pound_keeper, police_officer, tariffs):
    village = VillageFactory(district=pound.district, name="Nigohan")
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=timezone.now() - timedelta(days=11),
        animals=[cow(marks="White star on the forehead"), goat()],
        seizure_village=village,
        notice_description="Cow with a white star on the forehead, from the canal fields",
        **OWNER,
        **SEIZER,
    )
    report_and_notice(entry, pound_keeper, police_officer, sent_days_ago=2, posted_days_ago=2)
    return entry


def html_of(response):
    return response.content.decode()


def shown(response):
    return [row["animal"].pk for row in response.context["page"].rows]


def test_board_is_public(client, entry):
    response = client.get(BOARD)
    assert response.status_code == 200
    assert reverse("board") == BOARD


def test_board_shows_the_animals_under_notice_with_what_a_claimant_needs(client, pound, entry):
    cow_, goat_ = entry.animals.order_by("number")
    response = client.get(BOARD)
    html = html_of(response)
    assert shown(response) == [cow_.pk, goat_.pk]
    assert entry.notice_description in html  # the description the keeper confirmed
    assert "Goat" in html
    assert "Nigohan" in html
    assert pound.name in html
    notice = entry.reports.get().notice
    assert f"<strong>{notice.last_day_to_claim:%d-%m-%Y}</strong>" in html
    assert "Proof that the animal is yours" in html
    assert "An identity document" in html


def test_board_gives_the_approximate_dues_as_of_today(client, entry):
    cow_ = entry.animals.get(number=1)
    response = client.get(BOARD)
    expected = dues([cow_]).total
    assert response.context["page"].rows[0]["dues"] == expected
    assert expected > Decimal("0")
    assert "about ₹" in html_of(response)
    assert "approximate" in html_of(response)


def test_board_says_ask_at_the_pound_when_no_tariff_covers_it(client, other_pound):
    """A district whose office has recorded no fine scale: the board still shows the animal."""
    keeper = staff(Role.POUND_KEEPER, "lone_keeper", pound=other_pound)
    officer = staff(
        Role.POLICE_OFFICER, "lone_officer", police_station=other_pound.nearest_police_station
    )
    under_notice(other_pound, keeper, officer)
    response = client.get(BOARD)
    assert response.status_code == 200
    assert response.context["page"].rows[0]["dues"] is None
    assert "ask at the pound" in html_of(response)


def test_board_shows_no_personal_data_of_owners_or_seizers(client, entry):
    html = html_of(client.get(BOARD))
    for value in [*OWNER.values(), *SEIZER.values()]:
        assert value not in html
    for part in ["Shyam", "Yadav", "Samesi", "Tiwari", "Kalan", "98765"]:
        assert part not in html


def test_board_keeps_the_ear_tag_back_for_the_owner_to_prove(
    client, pound, pound_keeper, police_officer, tariffs
):
    under_notice(pound, pound_keeper, police_officer, animals=[cow(ear_tag="TAG-4455-XY")])
    assert "TAG-4455-XY" not in html_of(client.get(BOARD))


def test_board_leaves_out_animals_reported_but_not_yet_under_notice(
    client, pound, pound_keeper, tariffs
):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=10)
    services.send_report(entry=entry, by=pound_keeper)
    assert shown(client.get(BOARD)) == []


def test_claimed_animal_leaves_the_board(client, pound_keeper, entry):
    cow_, goat_ = entry.animals.order_by("number")
    pay(entry, pound_keeper, animals=[goat_])
    assert shown(client.get(BOARD)) == [cow_.pk]


def test_animal_disposed_of_by_the_magistrates_order_leaves_the_board(
    client, pound, dm_clerk, magistrate, entry
):
    cow_, goat_ = entry.animals.order_by("number")
    order = services.propose_disposal(
        pound=pound,
        animal_ids=[cow_.pk],
        by=dm_clerk,
        reason="Old and infirm: no bidder expected",
        mode="gaushala",
        recipient="Shri Krishna Gaushala",
    )
    services.decide_disposal(order=order, by=magistrate, approve=True)
    assert shown(client.get(BOARD)) == [goat_.pk]


def test_animal_that_died_leaves_the_board(client, pound_keeper, entry):
    cow_, goat_ = entry.animals.order_by("number")
    custody.record_death(
        animal=cow_, by=pound_keeper, at=timezone.now() - timedelta(hours=1), cause="Old age"
    )
    assert shown(client.get(BOARD)) == [goat_.pk]


def test_board_after_the_claim_period_says_the_owner_may_still_claim(
    client, pound, pound_keeper, police_officer, tariffs
):
    under_notice(pound, pound_keeper, police_officer, posted_days_ago=9)
    html = html_of(client.get(BOARD))
    assert "the owner may still claim it until it is sold" in html


def test_board_filters_by_district_pound_and_species(
    client, entry, pound, other_pound, other_district, tariffs
):
    set_tariffs(other_district)
    keeper = staff(Role.POUND_KEEPER, "other_keeper", pound=other_pound)
    officer = staff(
        Role.POLICE_OFFICER, "other_officer", police_station=other_pound.nearest_police_station
    )
    far, _ = under_notice(other_pound, keeper, officer, animals=[goat(colour="Brown")])
    home_ids = sorted(entry.animals.values_list("pk", flat=True))
    far_id = far.animals.get().pk
    cow_, goat_ = entry.animals.order_by("number")

    assert sorted(shown(client.get(BOARD))) == sorted([*home_ids, far_id])
    assert sorted(shown(client.get(BOARD, {"district": pound.district_id}))) == home_ids
    assert shown(client.get(BOARD, {"pound": other_pound.pk})) == [far_id]
    assert sorted(shown(client.get(BOARD, {"species": "goat"}))) == sorted([goat_.pk, far_id])
    assert shown(client.get(BOARD, {"species": "goat", "pound": pound.pk})) == [goat_.pk]


def test_board_with_a_bad_filter_shows_the_error_and_everything(client, entry):
    response = client.get(BOARD, {"district": "999999", "species": "dragon"})
    assert response.status_code == 200
    assert response.context["form"].errors.keys() == {"district", "species"}
    assert len(shown(response)) == 2


def test_board_pages_by_keyset_newest_notice_first(
    client, pound, pound_keeper, police_officer, tariffs, monkeypatch
):
    monkeypatch.setattr(selectors, "BOARD_SIZE", 2)
    entries = [
        under_notice(pound, pound_keeper, police_officer, posted_days_ago=days)[0]
        for days in (5, 3, 1)
    ]
    extra, _ = under_notice(
        pound, pound_keeper, police_officer, posted_days_ago=3, animals=[cow(), cow()]
    )
    expected = [
        entries[2].animals.get().pk,
        entries[1].animals.get().pk,
        *extra.animals.order_by("pk").values_list("pk", flat=True),
        entries[0].animals.get().pk,
    ]
    expected[1:4] = sorted(expected[1:4])  # same posting day: by animal id
    seen, params = [], {}
    for _ in range(5):
        response = client.get(BOARD, params)
        seen += shown(response)
        cursor = response.context["page"].next_cursor
        if not cursor:
            break
        assert "Older notices" in html_of(response)
        params = {"after": cursor}
    assert seen == expected


def test_board_query_count_is_flat(
    client, pound, pound_keeper, police_officer, tariffs, django_assert_max_num_queries
):
    under_notice(pound, pound_keeper, police_officer, animals=[cow(), goat()])
    with django_assert_max_num_queries(15) as few:
        client.get(BOARD)
    for _ in range(6):
        under_notice(pound, pound_keeper, police_officer, animals=[cow(), goat(), cow()])
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get(BOARD)
    assert len(shown(response)) == 20  # a small page, for a phone


def test_board_shows_the_photo_lazily_with_alt_text(client, entry):
    animal = entry.animals.get(number=1)
    out = io.BytesIO()
    Image.new("RGB", (80, 60), "brown").save(out, format="JPEG")
    animal.photo.save("cow.jpg", ContentFile(out.getvalue()))
    html = html_of(client.get(BOARD))
    # Through the board's own public view, never the storage's URL.
    assert f'src="{reverse("auctions:board_photo", args=[animal.pk])}"' in html
    assert animal.photo.url not in html
    assert 'loading="lazy"' in html
    assert "Photo of the animal: Cattle, Female, Adult, White" in html


def test_board_in_hindi_names_the_pound_in_hindi(client, pound, entry):
    client.cookies["django_language"] = "hi"
    html = html_of(client.get(BOARD))
    assert '<html lang="hi">' in html
    assert pound.name_hi in html


def test_board_is_linked_from_the_footer_and_the_login_page(client):
    assert f'href="{BOARD}"' in html_of(client.get(reverse("login")))
    assert html_of(client.get(reverse("login"))).count(f'href="{BOARD}"') == 2


def test_board_get_writes_nothing(client, entry):
    before = Animal.objects.values_list("pk", "state").order_by("pk")
    client.get(BOARD)
    assert list(Animal.objects.values_list("pk", "state").order_by("pk")) == list(before)


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_board_refuses_other_methods(client, method):
    assert getattr(client, method)(BOARD).status_code == 405


def test_notice_posted_on_a_later_day_moves_the_animal_up(
    client, pound, pound_keeper, police_officer, tariffs
):
    older, _ = under_notice(pound, pound_keeper, police_officer, posted_days_ago=4)
    newer, _ = under_notice(pound, pound_keeper, police_officer, posted_days_ago=1)
    assert shown(client.get(BOARD)) == [newer.animals.get().pk, older.animals.get().pk]


def test_board_shows_no_free_text_but_the_confirmed_description(
    client, pound, pound_keeper, police_officer
):
    """A seizure place or marks typed with someone's name stay in the register: the board
    shows only the description the keeper confirmed fit to publish."""
    named = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=timezone.now() - timedelta(days=11),
        seizure_place="Field of Kallu Yadav",
        animals=[cow(marks="Owner Mohan Lal brand")],
    )
    report_and_notice(named, pound_keeper, police_officer, sent_days_ago=2, posted_days_ago=2)

    html = html_of(client.get(BOARD))

    assert "Cattle, Female, Adult" in html
    assert "Kallu Yadav" not in html and "Mohan Lal" not in html


# The public board: where the animals are kept, once a pound; the auction; the search ---------


def test_board_says_once_a_pound_where_the_animals_are_kept_with_address_hours_phone(
    client, pound, pound_keeper, police_officer, entry
):
    pound.address, pound.hours, pound.phone = "Near the tehsil", "8 am to 6 pm", "0522-2911234"
    pound.save()
    html = html_of(client.get(BOARD))
    assert html.count("Kept at") == 1  # two animals, one pound: said once
    assert "Near the tehsil" in html and "8 am to 6 pm" in html
    assert 'href="tel:05222911234"' in html


def test_board_gives_the_scheduled_auction_date_time_and_place(
    client, pound, district, pound_keeper, police_officer, tariffs
):
    conditions(district)
    entry, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow(), goat()]
    )
    auction = schedule(
        pound,
        police_officer,
        [[entry.animals.get(number=1)]],
        when=timezone.now() + timedelta(days=5),
    )
    html = html_of(client.get(BOARD))
    when = timezone.localtime(auction.scheduled_for).strftime("%d-%m-%Y %H:%M")
    assert html.count(f"{when} IST, at {auction.place}") == 2  # the pound's list and the cow's card


def test_board_in_hindi_gives_the_pounds_hindi_address_and_hours(client, pound, entry):
    pound.address, pound.address_hi = "Near the tehsil", "तहसील के पास"
    pound.hours, pound.hours_hi = "8 am to 6 pm", "सुबह 8 से शाम 6"
    pound.save()
    client.cookies["django_language"] = "hi"
    html = html_of(client.get(BOARD))
    assert "तहसील के पास" in html and "सुबह 8 से शाम 6" in html
    assert "Near the tehsil" not in html


def test_board_searches_by_village_and_whole_ear_tag(
    client, pound, pound_keeper, police_officer, entry
):
    tagged, _notice = under_notice(
        pound, pound_keeper, police_officer, animals=[cow(ear_tag="UP-TAG-0042")]
    )
    nigohan = entry.seizure_village
    assert set(shown(client.get(BOARD, {"village": nigohan.pk}))) == {
        a.pk for a in entry.animals.all()
    }
    found = shown(client.get(BOARD, {"tag": "up-tag-0042"}))
    assert found == [tagged.animals.get().pk]
    assert shown(client.get(BOARD, {"tag": "TAG-00"})) == []  # a part reveals nothing


def _marks(entry):
    return sorted(entry.animals.values_list("notice_posted_on", flat=True))


@pytest.mark.postgres
def test_a_notice_written_by_any_writer_puts_its_animals_on_the_board(
    client, pound, pound_keeper, police_officer
):
    """An app server of the previous release writes the notice without the board's mark on the
    animals: PostgreSQL's trigger sets it (auctions/migrations/0023), so the animal is on the
    board all the same, and a notice moved to a later day moves it up."""
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12, animals=[cow()])
    report = services.send_report(entry=entry, by=pound_keeper)
    assert _marks(entry) == [None]
    posted_on = timezone.localdate() - timedelta(days=1)
    notice = Notice.objects.create(
        report=report,
        pound=pound,
        number="NTC/OLD/1",
        posted_on=posted_on,
        posted_at="Notice board, PS office",
        last_day_to_claim=posted_on + timedelta(days=7),
        earliest_sale=posted_on + timedelta(days=8),
        recorded_by=police_officer,
        document=IssuedDocument.objects.issue(
            kind=IssuedDocument.Kind.S14_NOTICE,
            number="NTC/OLD/1",
            by=police_officer,
            subject_type="auctions.notice",
            pound=pound,
        ),
    )
    assert _marks(entry) == [posted_on]
    assert list(selectors.board_animals()) == list(entry.animals.all())
    Notice.objects.filter(pk=notice.pk).update(posted_on=timezone.localdate())
    assert _marks(entry) == [timezone.localdate()]
    Animal.objects.filter(impoundment=entry).update(notice_posted_on=None)
    assert not selectors.board_animals().exists()  # the mark is what the board reads
