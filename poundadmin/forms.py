from django import forms
from django.utils import timezone


class DateTimeLocalInput(forms.DateTimeInput):
    """A phone-friendly date-and-time picker; the value is IST wall-clock time."""

    input_type = "datetime-local"

    def __init__(self, attrs=None):
        super().__init__(attrs=attrs, format="%Y-%m-%dT%H:%M")


class DateInput(forms.DateInput):
    input_type = "date"

    def __init__(self, attrs=None):
        super().__init__(attrs=attrs, format="%Y-%m-%d")


def now_local_minute():
    return timezone.localtime().replace(second=0, microsecond=0)
