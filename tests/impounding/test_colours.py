"""Colours in the reader's language (ADR 0081): a listed colour is kept in English whatever
language it is typed in, and shown translated; any other colour is shown as written."""

import pytest
from django.utils import translation

from impounding.forms.custody import BirthForm
from impounding.forms.register import AnimalForm
from impounding.models import canonical_colour, colour_label


@pytest.mark.parametrize("typed", ["Brown", "brown", "  BROWN ", "भूरा", "तपकिरी", "பழுப்பு"])
def test_a_listed_colour_is_kept_in_english_in_whatever_language_it_is_typed(typed):
    assert canonical_colour(typed) == "Brown"


def test_spellings_and_unlisted_colours():
    assert canonical_colour("gray") == "Grey"
    assert canonical_colour("Black & white") == "Black and white"
    assert canonical_colour("brown with a  white face") == "brown with a white face"


@pytest.mark.parametrize(
    "lang, shown", [("en", "Brown"), ("hi", "भूरा"), ("mr", "तपकिरी"), ("ta", "பழுப்பு")]
)
def test_a_listed_colour_is_shown_in_the_readers_language(lang, shown):
    with translation.override(lang):
        assert colour_label("Brown") == shown
        assert colour_label("भूरा") == shown  # an old row typed in Hindi
        assert colour_label("Roan with a blaze") == "Roan with a blaze"


def test_the_colour_box_offers_the_list_and_keeps_english():
    with translation.override("hi"):
        html = str(AnimalForm(prefix="animals-0")["colour"])
        assert 'list="id_animals-0-colour-colours"' in html
        assert '<option value="भूरा">' in html
        form = AnimalForm(data={"colour": "भूरा"})
        form.is_valid()
        assert form.cleaned_data["colour"] == "Brown"
    assert "colour" in BirthForm.base_fields


def test_the_public_description_is_in_the_readers_language(db):
    from impounding.models import Animal

    animal = Animal(species="cattle", sex="female", age_class="adult", colour="Brown")
    with translation.override("hi"):
        assert "भूरा" in animal.public_description
    with translation.override("en"):
        assert "Brown" in animal.public_description
