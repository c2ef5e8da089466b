"""A name kept in the district's second language (`name_hi`: Hindi, Marathi or Tamil as its pack
says) is shown to a reader whose language is written in its script, and to no other: a Tamil
district's pound is not shown to a Hindi reader in Tamil letters, and a Marathi reader reads a
Devanagari name (kernel.messages.for_reader)."""

import pytest
from django.utils import translation

from kernel.messages import for_reader, written_in
from tests.accounts.factories import staff

pytestmark = pytest.mark.django_db

TAMIL = "மதுரை பட்டி"
DEVANAGARI = "गृह ज़िला"


@pytest.mark.parametrize(
    "language, second, shown",
    [
        ("en", DEVANAGARI, "Home"),
        ("hi", DEVANAGARI, DEVANAGARI),
        ("mr", DEVANAGARI, DEVANAGARI),
        ("ta", DEVANAGARI, "Home"),
        ("ta", TAMIL, TAMIL),
        ("hi", TAMIL, "Home"),
        ("mr", TAMIL, "Home"),
        ("hi", "", "Home"),
        ("hi", "Home (Pvt.) गृह", "Home"),  # mixed letters: not the reader's script alone
    ],
)
def test_the_second_name_is_shown_in_its_own_script_only(language, second, shown):
    with translation.override(language):
        assert for_reader("Home", second) == shown


def test_pound_district_user_and_office_names_follow_the_script(pound, district):
    pound.name_hi = TAMIL
    pound.save()
    district.dm_office_name_hi = TAMIL
    district.save()
    keeper = staff("pound_keeper", pound=pound)
    keeper.name_hi = TAMIL
    keeper.save()
    with translation.override("ta"):
        assert (pound.label, keeper.display_name, district.office_label) == (TAMIL,) * 3
    with translation.override("hi"):
        assert pound.label == pound.name
        assert keeper.display_name == (keeper.get_full_name() or keeper.username)
        assert district.label == district.name_hi  # Devanagari: still the Hindi reader's
        assert TAMIL not in district.office_label


def test_written_in_ignores_marks_digits_and_punctuation():
    assert written_in("पशु-शाला 2", "hi") and written_in("மாட்டுத் தொழுவம், 3", "ta")
    assert not written_in("123 - ()", "hi")
