"""The register's page drawn the light way (impounding.views.register_page) shows what the
templates showed: the rows as the template loop drew them, and the search fields as crispy-forms
draws them, the kept drawing only where it is the same drawing (the language, the pounds
offered, nothing searched)."""

import re

import pytest
from django.template import engines
from django.urls import reverse
from django.utils import translation

from impounding.forms.register import RegisterSearchForm
from tests.accounts.factories import PoundFactory
from tests.impounding.factories import cow, goat, make_entry

# The row and the fields as the register's template drew them before (ADR 0067).
TEMPLATE_ROWS = """{% load i18n %}{% for e in entries %}
<tr>
  <th scope="row">
    <a class="text-nowrap" href="{{ e.get_absolute_url }}">{{ e.register_number }}</a>
    <div class="small fw-normal">{{ e.pound.label }}</div>
  </th>
  <td data-label="{% translate "Arrived" %}">{{ e.arrived_at|indatetime }}</td>
  <td data-label="{% translate "Owner" %}">{{ e.owner_name|default:"—" }}</td>
  <td class="text-end" data-label="{% translate "Animals" %}">{{ e.animal_count }}</td>
  <td class="text-end" data-label="{% translate "In the pound" %}">{{ e.in_pound }}</td>
</tr>{% endfor %}"""
TEMPLATE_FIELDS = """{% load crispy_forms_tags %}
<div class="col-12 col-md-4">{{ form.q|as_crispy_field }}</div>
<div class="col-12 col-md-3">{{ form.pound|as_crispy_field }}</div>
<div class="col-6 col-md-2">{{ form.date_from|as_crispy_field }}</div>
<div class="col-6 col-md-2">{{ form.date_to|as_crispy_field }}</div>"""


def _squeezed(html):
    """The HTML without the white space between tags and at the lines' ends."""
    return re.sub(r">\s+<", "><", re.sub(r"\s*\n\s*", "\n", str(html))).strip()


def _drawn(source, **context):
    return _squeezed(engines["django"].from_string(source).render(context))


def _search_fields(html):
    form = re.search(r'<form method="get".*?</form>', html, re.S).group(0)
    start = form.index("<div")
    return _squeezed(form[start : form.rindex('<div class="col-12 col-md-1 mb-3">')])


@pytest.fixture
def entries(pound, pound_keeper, tariffs):
    named = make_entry(pound=pound, by=pound_keeper, owner_name="Gita <Devi> & sons")
    unnamed = make_entry(pound=pound, by=pound_keeper, owner_name="", animals=[cow(), goat()])
    return [named, unnamed]


@pytest.mark.parametrize("language", ["en", "hi", "mr", "ta"])
@pytest.mark.parametrize("params", [{}, {"q": "gita"}, {"date_from": "x"}, {"q": "", "pound": ""}])
def test_the_page_draws_what_the_templates_drew(client, pound_keeper, entries, language, params):
    client.force_login(pound_keeper)
    client.cookies["django_language"] = language
    for _twice in range(2):  # drawn, then kept
        response = client.get(reverse("impounding:register"), params)
        html = response.content.decode()
        with translation.override(language):
            rows = _drawn(TEMPLATE_ROWS, entries=response.context["entries"])
            fields = _drawn(TEMPLATE_FIELDS, form=response.context["form"])
        assert _squeezed(response.context["rows"]) == rows
        assert _search_fields(html) == fields
    if not params:
        assert "Gita &lt;Devi&gt; &amp; sons" in html
        assert "—" in html


def test_the_kept_search_fields_are_each_users_pounds_in_each_language(
    client, pound, pound_keeper, outsider, other_pound, dm_clerk, district
):
    second = PoundFactory(district=district, name="Second Kanji House", name_hi="दूसरा कांजी हाउस")
    url = reverse("impounding:register")

    def offered(user, language="en"):
        client.force_login(user)
        client.cookies["django_language"] = language
        html = client.get(url).content.decode()
        return re.findall(r'<option value="(\d+)"[^>]*>([^<]*)</option>', _search_fields(html))

    assert offered(pound_keeper) == [(str(pound.pk), pound.name)]
    assert offered(outsider) == [(str(other_pound.pk), other_pound.name)]
    assert offered(dm_clerk) == [(str(p.pk), p.name) for p in sorted([pound, second], key=str)]
    assert (str(second.pk), second.name_hi) in offered(dm_clerk, "hi")
    # A pound renamed is another key: the next page offers the new name.
    second.name = "Renamed Kanji House"
    second.save()
    assert (str(second.pk), "Renamed Kanji House") in offered(dm_clerk)
    assert offered(pound_keeper) == [(str(pound.pk), pound.name)]


def test_a_search_typed_is_drawn_with_its_values(client, pound_keeper, pound):
    client.force_login(pound_keeper)
    url = reverse("impounding:register")
    client.get(url)  # the empty fields kept
    html = client.get(url, {"q": "Shyam", "pound": pound.pk}).content.decode()
    fields = _search_fields(html)
    assert 'value="Shyam"' in fields
    assert re.search(rf'<option value="{pound.pk}" selected>', fields)
    form = RegisterSearchForm({"q": "Shyam", "pound": pound.pk}, pounds=type(pound).objects.all())
    assert _drawn(TEMPLATE_FIELDS, form=form).count("Shyam") == fields.count("Shyam")
