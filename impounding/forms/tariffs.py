"""Forms for the District Magistrate's tariffs: s.12 fine scales and s.5 feeding-rate orders.

The forms only check and tidy what was typed; impounding.tariffs decides (overlaps, coverage of
every species, superseding the order in force). A page is one order form plus its rows, so the
forms of a page travel together in a small bundle that the view binds, checks and hands over.

A new order starts from the rows of the district's own order in force, when the clerk records
for one district and it has one; otherwise from empty rows. Never from the demo's amounts: a
district's fines are its Gazette's, not an example's (ADR 0049).
"""

import uuid

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from accounts.models import District, Pound
from accounts.roles import Permission
from kernel import clock
from kernel.forms import DayField

from ..models import AgeClass, FeedingRateOrder, FineScale, Sex, Species


class PoundChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj):
        return f"{obj.label} ({obj.district.label})"


class TariffOrderForm(forms.Form):
    """The fields every order shares: which district, which area of it, and when; and the
    form's single-use key."""

    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    district = forms.ModelChoiceField(
        label=_("District"),
        queryset=District.objects.none(),
        empty_label=_("Choose the district"),
    )
    district_wide = forms.TypedChoiceField(
        label=_("Area"),
        choices=[
            ("1", _("The whole district")),
            ("0", _("Only the pounds ticked below")),
        ],
        coerce=lambda v: v == "1",
        initial="1",
        widget=forms.RadioSelect,
    )
    pounds = PoundChoiceField(
        label=_("Pounds"),
        queryset=Pound.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Only for an order that covers named pounds, not the whole district."),
    )
    valid_from = DayField(label=_("In force from"))
    valid_to = DayField(
        label=_("In force until"),
        required=False,
        help_text=_(
            "Leave empty for an order without an end date: it then ends the open-ended order "
            "in force for the same area on the day before this one starts."
        ),
    )

    def __init__(self, user, *args, **kwargs):
        super().__init__(*args, **kwargs)
        districts = District.objects.for_user(user, Permission.MANAGE_TARIFFS)
        self.fields["district"].queryset = districts
        self.districts = districts
        if len(districts) == 1:
            self.fields["district"].initial = districts[0].pk
        self.fields["pounds"].queryset = (
            Pound.objects.filter(district__in=districts)
            .select_related("district")
            .order_by("district__name", "name")
        )

    def clean(self):
        data = super().clean()
        valid_from, valid_to = data.get("valid_from"), data.get("valid_to")
        if valid_from and valid_to and valid_to < valid_from:
            self.add_error("valid_to", _("The end date cannot be before the start date."))
        district, pounds = data.get("district"), data.get("pounds") or []
        if data.get("district_wide"):
            data["pounds"] = []
        elif "district_wide" in data:
            if not pounds:
                self.add_error("pounds", _("Tick the pounds, or choose the whole district."))
            elif district and any(p.district_id != district.pk for p in pounds):
                self.add_error("pounds", _("Tick only pounds of the district chosen."))
        return data


class FineScaleForm(TariffOrderForm):
    notification_number = forms.CharField(label=_("Notification number"), max_length=120)
    notification_date = DayField(label=_("Notification date"))
    title = forms.CharField(
        label=_("Title"),
        max_length=200,
        required=False,
        help_text=_("As printed in the Gazette, if it has one."),
    )

    field_order = ["notification_number", "notification_date", "title", "district"]


class FeedingOrderForm(TariffOrderForm):
    order_reference = forms.CharField(label=_("Order reference"), max_length=120)
    order_date = DayField(label=_("Order date"))

    field_order = ["order_reference", "order_date", "district"]


def _optional(choices, blank_label):
    return [("", blank_label), *choices]


class RowForm(forms.Form):
    """A row of a table typed as a form: `layout` gives each field its grid columns, narrow on a
    phone and one line on a wide screen."""

    layout = ()

    def layout_fields(self):
        return [(self[name], cols) for name, cols in self.layout if name in self.fields]


class AnimalMatchForm(RowForm):
    """Which animals a row applies to: a species, optionally narrowed by sex and age."""

    species = forms.ChoiceField(label=_("Species"), choices=_optional(Species.choices, "---------"))
    sex = forms.ChoiceField(
        label=_("Sex"), choices=_optional(Sex.choices, _("Any sex")), required=False
    )
    age_class = forms.ChoiceField(
        label=_("Age"), choices=_optional(AgeClass.choices, _("Any age")), required=False
    )

    def match_key(self):
        d = self.cleaned_data
        return (d.get("species"), d.get("sex", ""), d.get("age_class", ""))


class FineCategoryForm(RowForm):
    layout = (
        ("code", "col-4 col-md-1"),
        ("amount", "col-8 col-md-2"),
        ("label", "col-12 col-md-4"),
        ("label_hi", "col-12 col-md-4"),
        ("DELETE", "col-12 col-md-1"),
    )
    code = forms.CharField(label=_("Number"), max_length=10)
    label = forms.CharField(label=_("Category (English)"), max_length=200)
    label_hi = forms.CharField(label=_("Category (second language)"), max_length=200)
    amount = forms.DecimalField(
        label=_("Fine per head (₹)"), max_digits=10, decimal_places=2, min_value=0
    )


class FineRuleForm(AnimalMatchForm):
    layout = (
        ("species", "col-12 col-md-4"),
        ("sex", "col-6 col-md-3"),
        ("age_class", "col-6 col-md-2"),
        ("category", "col-6 col-md-2"),
        ("DELETE", "col-6 col-md-1"),
    )
    category = forms.CharField(label=_("Category number"), max_length=10)


class FeedingRateForm(AnimalMatchForm):
    layout = (
        ("species", "col-12 col-md-3"),
        ("sex", "col-6 col-md-3"),
        ("age_class", "col-6 col-md-2"),
        ("amount", "col-6 col-md-2"),
        ("DELETE", "col-6 col-md-2"),
        ("label", "col-6"),
        ("label_hi", "col-6"),
    )
    label = forms.CharField(label=_("Description (English)"), max_length=200)
    label_hi = forms.CharField(label=_("Description (second language)"), max_length=200)
    amount = forms.DecimalField(
        label=_("Per head per day (₹)"), max_digits=10, decimal_places=2, min_value=0
    )


class RowFormSet(forms.BaseFormSet):
    """Rows prefilled from the order in force are ordinary rows: a row left wholly empty is ignored
    and a row ticked "remove" is dropped, so a clerk edits the rows rather than types them."""

    def initial_form_count(self):
        # Posted rows are all "extra": an untouched empty one is then simply skipped.
        return 0 if self.is_bound else super().initial_form_count()

    def add_fields(self, form, index):
        super().add_fields(form, index)
        form.fields["DELETE"].label = _("Remove this row")

    def rows(self):
        return [
            {k: v for k, v in form.cleaned_data.items() if k != "DELETE"}
            for form in self.forms
            if form.cleaned_data and not self._should_delete_form(form)
        ]

    def live_forms(self):
        return [f for f in self.forms if f.cleaned_data and not self._should_delete_form(f)]


class CategoryFormSet(RowFormSet):
    def clean(self):
        if any(self.errors):
            return
        codes = [f.cleaned_data["code"] for f in self.live_forms()]
        if not codes:
            raise ValidationError(_("A scale needs at least one category."))
        for form in self.live_forms():
            if codes.count(form.cleaned_data["code"]) > 1:
                form.add_error("code", _("Two categories have this number."))


class MatchFormSet(RowFormSet):
    """No two rows may describe the same animals: which one would apply?"""

    def clean(self):
        if any(self.errors):
            return
        keys = [f.match_key() for f in self.live_forms()]
        if not keys:
            raise ValidationError(_("Add at least one row."))
        for form in self.live_forms():
            if keys.count(form.match_key()) > 1:
                form.add_error(
                    "species", _("Another row has the same species, sex and age. Keep one.")
                )


def _formset(form, formset, extra):
    return forms.formset_factory(form, formset=formset, extra=extra, can_delete=True)


# One spare empty row each; "add a row" gives more.
CategoryRows = _formset(FineCategoryForm, CategoryFormSet, extra=1)
FineRuleRows = _formset(FineRuleForm, MatchFormSet, extra=1)
FeedingRateRows = _formset(FeedingRateForm, MatchFormSet, extra=1)


def _in_force(model, districts):
    """The district-wide order in force today, when the clerk records for one district only."""
    if len(districts) != 1:
        return None
    return (
        model.objects.filter(district=districts[0], district_wide=True)
        .in_force(clock.today(districts[0]))
        .order_by("-valid_from", "-pk")
        .first()
    )


def _as_row(row, fields):
    return {f: str(getattr(row, f)) for f in fields if f != "category"}


def _as_rows(rows, fields):
    return [_as_row(row, fields) for row in rows]


def _typed_rows(data, prefix, fields):
    """The rows typed into a posted formset, without the empty and the removed ones."""
    try:
        total = min(int(data.get(f"{prefix}-TOTAL_FORMS", 0)), 1000)
    except ValueError:
        total = 0
    rows = []
    for i in range(total):
        row = {f: data.get(f"{prefix}-{i}-{f}", "") for f in fields}
        if any(row.values()) and not data.get(f"{prefix}-{i}-DELETE"):
            rows.append(row)
    return rows


class TariffEntry:
    """One order form and its row formsets, bound together from one POST.

    A POST with `more_rows` (the "add a row" button, without JavaScript) saves nothing: the page
    comes back with what was typed, unchecked, and spare empty rows below it.
    """

    form_class = None
    rows = {}  # formset prefix -> (formset class, fields of a row)

    def __init__(self, user, data=None):
        self.adding_rows = data is not None and "more_rows" in data
        if self.adding_rows:
            initial = {k: data.get(k) for k in data if k != "pounds"}
            initial["pounds"] = data.getlist("pounds")
            self.form = self.form_class(user, initial=initial)
            self.formsets = {
                name: formset(prefix=prefix, initial=_typed_rows(data, prefix, fields))
                for name, (prefix, formset, fields) in self.rows.items()
            }
        else:
            self.form = self.form_class(user, data)
            self.formsets = {
                name: formset(
                    data,
                    prefix=prefix,
                    initial=self.current_rows(name, fields) if data is None else None,
                )
                for name, (prefix, formset, fields) in self.rows.items()
            }

    def current_rows(self, name, fields):
        """The rows a new order starts from: see the module's docstring."""
        return []

    def is_valid(self):
        if self.adding_rows:
            return False
        valid = self.form.is_valid()
        return all([fs.is_valid() for fs in self.formsets.values()]) and valid

    def service_kwargs(self):
        rows = {name: fs.rows() for name, fs in self.formsets.items()}
        return dict(self.form.cleaned_data) | rows


class FineScaleEntry(TariffEntry):
    form_class = FineScaleForm
    rows = {
        "categories": ("cat", CategoryRows, ["code", "label", "label_hi", "amount"]),
        "rules": ("rule", FineRuleRows, ["species", "sex", "age_class", "category"]),
    }

    def current_rows(self, name, fields):
        scale = _in_force(FineScale, self.form.districts)
        if scale is None:
            return []
        if name == "categories":
            return _as_rows(scale.categories.order_by("pk"), fields)
        rules = scale.rules.select_related("category").order_by("pk")
        return [_as_row(rule, fields) | {"category": rule.category.code} for rule in rules]

    def is_valid(self):
        valid = super().is_valid()
        if self.adding_rows or not self.formsets["categories"].is_valid():
            return valid
        codes = {c["code"] for c in self.formsets["categories"].rows()}
        for form in self.formsets["rules"].live_forms():
            code = form.cleaned_data.get("category")
            if code and code not in codes:
                form.add_error("category", _("There is no category with this number."))
                valid = False
        return valid


class FeedingOrderEntry(TariffEntry):
    form_class = FeedingOrderForm
    rows = {
        "rates": (
            "rate",
            FeedingRateRows,
            ["species", "sex", "age_class", "label", "label_hi", "amount"],
        ),
    }

    def current_rows(self, name, fields):
        order = _in_force(FeedingRateOrder, self.form.districts)
        return [] if order is None else _as_rows(order.rates.order_by("pk"), fields)
