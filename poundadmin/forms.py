from django import forms


class DateTimeLocalInput(forms.DateTimeInput):
    """A phone-friendly date-and-time picker; the value is IST wall-clock time."""

    input_type = "datetime-local"

    def __init__(self, attrs=None):
        super().__init__(attrs=attrs, format="%Y-%m-%dT%H:%M")


class DateInput(forms.DateInput):
    input_type = "date"

    def __init__(self, attrs=None):
        super().__init__(attrs=attrs, format="%Y-%m-%d")
