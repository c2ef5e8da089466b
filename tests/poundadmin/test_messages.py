"""Timeline entries and to-dos are stored as a template and its arguments and shown in the
reader's language (poundadmin.messages; docs/decisions/0038)."""

from datetime import date

import pytest
from django.urls import reverse
from django.utils import translation

from accounts import todos
from accounts.models import ToDo
from accounts.roles import Role
from poundadmin.events import verify_chain
from poundadmin.messages import Message, bilingual, shown
from poundadmin.models import Event
from tests.impounding.factories import cow, goat, make_entry


@pytest.fixture(autouse=True)
def english_after():
    # A request in Hindi leaves Hindi active in the thread: later tests read English.
    yield
    translation.activate("en")


TITLE = "Report the unclaimed cattle of %(entry)s to the officer (s.14)"


def test_a_message_is_translated_when_it_is_shown():
    message = Message(TITLE, entry="LKO/2026/00001")
    assert (
        message.english() == "Report the unclaimed cattle of LKO/2026/00001 to the officer (s.14)"
    )
    with translation.override("hi"):
        hindi = str(message)
    assert "LKO/2026/00001" in hindi and "(धारा 14)" in hindi


def test_a_name_in_both_languages_follows_the_reader_and_dates_are_formatted():
    message = Message(
        "No feeding record for %(date)s at %(pound)s (ss.9, 27)",
        date=date(2026, 3, 5),
        pound=bilingual("Dewa Kanji House", "देवा कांजी हाउस"),
    )
    assert message.english() == "No feeding record for 05-03-2026 at Dewa Kanji House (ss.9, 27)"
    with translation.override("hi"):
        assert "देवा कांजी हाउस" in str(message) and "Dewa" not in str(message)


def test_stored_data_round_trips_and_old_rows_fall_back_to_their_text():
    message = Message(TITLE, entry="X/1")
    assert Message.from_data(message.as_data()) == message
    assert shown({}, "the old English text") == "the old English text"
    assert shown({"msgid": "A template no catalogue knows %(n)s", "args": {"n": 2}}, "x") == (
        "A template no catalogue knows 2"
    )


def test_timeline_entry_is_stored_as_a_message_and_shown_in_hindi(
    client, pound, pound_keeper, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), goat()])
    event = Event.objects.filter(impoundment_id=entry.pk).order_by("seq").first()
    assert event.summary == f"{entry.register_number}: 2 animal(s) entered"  # the English kept
    assert event.data["_summary"]["args"] == {"number": entry.register_number, "count": 2}
    assert verify_chain() == []  # the message is in the hashed data
    client.force_login(pound_keeper)
    client.cookies["django_language"] = "hi"
    html = client.get(reverse("impounding:entry", args=[entry.pk])).content.decode()
    assert f"{entry.register_number}: 2 पशु दर्ज किए गए" in html
    assert "animal(s) entered" not in html


def test_todo_title_is_kept_in_english_and_shown_in_the_readers_language(district, pound):
    todo, created = todos.upsert(
        key="report_due:test",
        role=Role.POUND_KEEPER,
        district=district,
        pound=pound,
        title=Message(TITLE, entry="HOME/2026/00007"),
        url="/",
        mail=False,
    )
    todo = ToDo.objects.get(pk=todo.pk)
    assert created and todo.title.startswith("Report the unclaimed cattle of HOME/2026/00007")
    with translation.override("hi"):
        assert "HOME/2026/00007" in todo.title_text and "(धारा 14)" in todo.title_text
    with translation.override("en"):
        assert todo.title_text == todo.title
