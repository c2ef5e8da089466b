"""The colour box: free text, with the usual colours offered in the reader's language (ADR
0081). A colour picked or typed from the list is kept in English (`canonical_colour`) and shown
in each reader's language."""

from django import forms
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from ..models import canonical_colour, colour_suggestions


class ColourInput(forms.TextInput):
    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        context["widget"]["attrs"]["list"] = context["widget"]["attrs"]["id"] + "-colours"
        return context

    def render(self, name, value, attrs=None, renderer=None):
        box = super().render(name, value, attrs, renderer)
        list_id = (attrs or {}).get("id", self.attrs.get("id", name)) + "-colours"
        options = format_html_join("", '<option value="{}">', ((c,) for c in colour_suggestions()))
        return format_html('{}<datalist id="{}">{}</datalist>', box, list_id, options)


class ColourField(forms.CharField):
    widget = ColourInput

    def __init__(self, **kwargs):
        kwargs.setdefault("label", _("Colour"))
        kwargs.setdefault("max_length", 80)
        super().__init__(**kwargs)

    def clean(self, value):
        return canonical_colour(super().clean(value))
