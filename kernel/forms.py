from django import forms
from django.utils.translation import gettext_noop

# Django's empty choice of a select, which Django's own Hindi catalogue does not translate: named
# here so that `make messages` keeps it in ours.
EMPTY_CHOICE = gettext_noop("- Select an option -")


class DateTimeLocalInput(forms.DateTimeInput):
    """A phone-friendly date-and-time picker; the value is IST wall-clock time."""

    input_type = "datetime-local"

    def __init__(self, attrs=None):
        super().__init__(attrs=attrs, format="%Y-%m-%dT%H:%M")


class DateInput(forms.DateInput):
    input_type = "date"

    def __init__(self, attrs=None):
        super().__init__(attrs=attrs, format="%Y-%m-%d")
