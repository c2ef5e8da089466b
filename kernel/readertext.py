"""Free text that staff write for the public, in English and in the district's second language
(ADR 0081): the page shows the reader's language where it was given, else the English with a
note saying so."""

from dataclasses import dataclass

from django.utils import translation

from .messages import for_reader


@dataclass(frozen=True)
class ReaderText:
    text: str
    # Shown in English to a reader of another language: the page says so beside it.
    english_only: bool

    def __str__(self):
        return self.text


def reader_text(english, second):
    """`english` or `second`, as `for_reader` picks for the active language, and whether the
    reader of another language is given the English."""
    text = for_reader(english, second)
    language = (translation.get_language() or "en").split("-")[0]
    return ReaderText(text, language != "en" and text == english and bool(english))
