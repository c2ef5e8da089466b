"""Form errors the GOV.UK way: each message names its field and says what to do, and every page
with errors opens with a summary that links to each field (issue 12, item 3).

Django's own messages ("This field is required.") do not say which field. Rather than give each
of the apps' forms its own messages, the few generic ones are reworded where they are shown, by
their code: the summary at the top of the page (`summary`) and the message beside the field
(`field_messages`, used by the crispy templates in `templates/bootstrap5/layout/`). A message a
form wrote itself ("Say which public work.") is shown as written.
"""

from django import forms
from django.utils.translation import gettext as _

# Django's generic codes, whose messages do not name the field.
GENERIC = {
    "invalid",
    "invalid_choice",
    "invalid_list",
    "invalid_pk_value",
    "invalid_image",
    "invalid_date",
    "invalid_time",
    "empty",
    "missing",
    "contradiction",
    "max_length",
    "min_length",
    "max_value",
    "min_value",
    "max_digits",
    "max_decimal_places",
    "max_whole_digits",
    "step_size",
    "overflow",
}
CHOOSING = (forms.Select, forms.RadioSelect, forms.CheckboxSelectMultiple, forms.SelectMultiple)


def _required(field):
    label = field.label
    widget = field.field.widget
    if isinstance(widget, forms.FileInput):
        return _("Choose a file for “%(label)s”.") % {"label": label}
    if isinstance(widget, forms.CheckboxInput):
        return _("Tick “%(label)s” to go on.") % {"label": label}
    if isinstance(widget, CHOOSING):
        return _("Choose “%(label)s”.") % {"label": label}
    return _("Enter “%(label)s”.") % {"label": label}


def field_messages(field):
    """The messages of one bound field, each naming the field."""
    errors = field.form.errors.as_data().get(field.name, [])
    messages = []
    for error in errors:
        message = " ".join(error.messages)
        if error.code == "required":
            message = _required(field)
        elif error.code in GENERIC:
            message = _("“%(label)s”: %(message)s") % {"label": field.label, "message": message}
        messages.append(message)
    return messages


def _form_items(form, prefix=""):
    items = [{"text": prefix + str(m), "href": ""} for m in form.non_field_errors()]
    for name in form.fields:
        field = form[name]
        if name in form.errors:
            target = field.id_for_label or field.auto_id
            if isinstance(field.field.widget, (forms.RadioSelect, forms.CheckboxSelectMultiple)):
                target = f"{field.auto_id}_0"  # the first choice: the group has no input
            if field.is_hidden:
                target = ""  # drawn or chosen by a script (a signature): its message is beside it
            for message in field_messages(field):
                items.append({"text": prefix + message, "href": f"#{target}" if target else ""})
    return items


def summary(values):
    """The summary's lines ({text, href}) for the bound forms and formsets among `values` (a
    page's context), in the order they come."""
    items, seen = [], set()
    for value in values:
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, forms.BaseForm) and value.is_bound:
            items += _form_items(value)
        elif isinstance(value, forms.BaseFormSet) and value.is_bound:
            items += [{"text": str(m), "href": ""} for m in value.non_form_errors()]
            label = getattr(value, "item_label", None) or _("Row %(number)s")
            for number, form in enumerate(value.forms, start=1):
                if form.errors:
                    prefix = f"{label % {'number': number}}: "
                    items += _form_items(form, prefix)
    return items
