"""The letterhead every document prints: set per State (the government line, the form numbers
its rules give) and per district and pound (the office, its address and telephone).

`letterhead(kind, pound=...)` or `letterhead(kind, district=...)` gives the template context of
templates/pdf/_office.html, in English and Hindi, with the older keys (`pound_name`,
`district_name`, `district_office`) that the templates also use. It costs at most two small
queries (the State, its form number), whatever the size of the document.
"""

from dataclasses import dataclass

from django.utils import translation
from django.utils.translation import gettext_lazy as _

from kernel.documents import Both, offices
from kernel.languages import second_language

from .models import StateDocumentForm


@dataclass(frozen=True)
class Letterhead:
    government: Both
    office: Both
    unit: Both | None  # the pound, on a pound's documents
    address: Both
    phone: str
    form: Both | None  # "Form III", where the State's rules give the document one
    form_rules: str


def _pair(en, hi):
    return Both(en, hi or en)


def government_line(state):
    if state.government_line:
        return _pair(state.government_line, state.government_line_hi)
    with translation.override("en"):
        en = str(_("Government of %(state)s") % {"state": state.name})
    with translation.override(second_language() or "en"):
        hi = str(_("Government of %(state)s") % {"state": state.name_hi or state.name})
    return Both(en, hi)


def _form(state, kind):
    if not kind:
        return None
    return StateDocumentForm.objects.filter(state=state, kind=kind).first()


def letterhead(kind=None, *, pound=None, district=None):
    """The letterhead of a document of `kind` (an IssuedDocument.Kind, or None) issued by
    `pound`, or by the office of `district` when no pound is given."""
    if pound is not None:
        district = pound.district
        context = offices(pound)
    else:
        context = _district_names(district)
    state = district.state
    form = _form(state, kind)
    if pound is not None:
        address = _pair(pound.address, pound.address_hi)
        phone = pound.phone or district.dm_office_phone
    else:
        address = _pair(district.dm_office_address, district.dm_office_address_hi)
        phone = district.dm_office_phone
    context["training"] = district.training  # TRAINING across the page (ADR 0080)
    context["letterhead"] = Letterhead(
        government=government_line(state),
        office=context["district_office"],
        unit=context["pound_name"] if pound is not None else None,
        address=address,
        phone=phone,
        form=_pair(form.number, form.number_hi) if form else None,
        form_rules=form.rules if form else "",
    )
    return context


def _district_names(district):
    with translation.override("en"):
        office_en = str(district.office_label)
    with translation.override(second_language() or "en"):
        office_hi = str(district.office_label)
    name = _pair(district.name, district.name_hi)
    return {
        "pound_name": name,
        "district_name": name,
        "district_office": Both(office_en, office_hi),
    }
