"""Check your answers before the s.8 entry is made (GOV.UK pattern, ADR 0030): the
register entry is a legal record, so the keeper sees every answer once more, each with a link
back to its question."""

from datetime import datetime

from django import forms
from django.utils.translation import gettext as _

from kernel.formatting import indatetime

from ..models import SeizureBasis

SECTIONS = [
    (
        "arrival",
        [
            "pound",
            "arrived_at",
            "seized_at",
            "seizure_place",
            "seizure_village",
            "basis",
            "basis_other",
            "s11_site",
            "s11_ground",
            "pound_choice_reason",
            "damage_description",
        ],
    ),
    ("seizer", ["seizer_name", "seizer_residence", "seizer_capacity", "seizer_phone"]),
    ("owner", ["owner_name", "owner_residence", "owner_phone"]),
]
ANIMAL_FIELDS = ["species", "sex", "age_class", "colour", "marks", "ear_tag", "photo"]
# Questions asked only for one basis of seizure (the form shows them only then).
ONLY_FOR = {
    "basis_other": SeizureBasis.OTHER,
    "s11_site": SeizureBasis.S11_PUBLIC,
    "s11_ground": SeizureBasis.S11_PUBLIC,
    "pound_choice_reason": SeizureBasis.S11_PUBLIC,
}
# Posted to the check page by its buttons, not answers to carry on.
NOT_ANSWERS = {"csrfmiddlewaretoken", "confirm", "change", "add_animal", "use_owner"}


def _shown(bound):
    value = bound.form.cleaned_data.get(bound.name)
    if value in (None, "", [], ()):
        return ""
    if isinstance(bound.field, forms.ModelChoiceField):
        return getattr(value, "label", None) or str(value)
    if isinstance(bound.field, forms.FileField):
        return getattr(value, "name", "") or str(value)
    if isinstance(bound.field, forms.ChoiceField):
        return str(dict(bound.field.choices).get(value, value))
    if isinstance(value, datetime):
        return indatetime(value)
    return str(value)


def _row(bound):
    return {"label": bound.label, "value": _shown(bound), "anchor": bound.id_for_label}


def entry_answers(form, formset):
    """The check page's context: the answers by section, the animals, and the POST to replay."""
    basis = form.cleaned_data.get("basis")
    titles = {
        "arrival": _("Arrival and seizure"),
        "seizer": _("Seizer (s.8(c))"),
        "owner": _("Owner, if known (s.8(d))"),
    }
    sections = []
    for key, names in SECTIONS:
        rows = [
            _row(form[name])
            for name in names
            if ONLY_FOR.get(name, basis) == basis
            and not (name == "pound" and form.fields["pound"].widget.is_hidden)
        ]
        sections.append({"title": titles[key], "rows": rows})
    animals = [
        {
            "number": n,
            "rows": [_row(f[name]) for name in ANIMAL_FIELDS],
            "anchor": f["species"].id_for_label,
        }
        for n, f in enumerate(formset.forms, start=1)
        if f.cleaned_data
    ]
    replay = [(k, v) for k, v in form.data.lists() if k not in NOT_ANSWERS]
    return {"sections": sections, "animals": animals, "replay": replay}
