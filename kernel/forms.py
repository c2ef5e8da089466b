from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_noop

from .dayfields import DayField, DayInput, DayTimeField, DayTimeInput
from .uploads import check_photo

__all__ = ["EMPTY_CHOICE", "DayField", "DayInput", "DayTimeField", "DayTimeInput", "PhotoField"]

# Django's empty choice of a select, which Django's own Hindi catalogue does not translate: named
# here so that `make messages` keeps it in ours.
EMPTY_CHOICE = gettext_noop("- Select an option -")


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
