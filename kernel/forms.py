from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_noop

from .uploads import check_photo

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


class PhotoField(forms.FileField):
    """A photo, checked from its size and its header before a pixel is decoded, each refusal
    naming its problem: larger than 12 MB, too many pixels, or not an image. Django's ImageField
    decodes it to check it, and calls a photo with too many pixels "not an image"."""

    def to_python(self, data):
        upload = super().to_python(data)
        if upload is None:
            return None
        try:
            check_photo(upload, "photo")
        except ValidationError as exc:
            raise ValidationError(exc.message_dict["photo"], code="photo") from None
        return upload
