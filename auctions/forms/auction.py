"""Forms for the District Magistrate's conditions of sale and the auction itself (ss.14, 16, 19).

The forms check and tidy what was typed; `auctions.services` decides (the lawful date, the s.19
bar, lots of one animal or a dam with her calf, one sale per lot). A form's cleaned_data, or a
method named after the service, gives that service's keyword arguments.
"""

import uuid
from decimal import Decimal

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.utils.translation import gettext_lazy as _

from accounts.models import District
from accounts.roles import Permission
from kernel.formatting import inr
from kernel.forms import DayField, DayTimeField
from ledger.models import PaymentMode

from ..models import CONDITION_TEXTS, AuctionConditions, Bidder

MONEY = {"max_digits": 10, "decimal_places": 2}


def _max_length(model, name):
    return model._meta.get_field(name).max_length


def _second(name, label, rows=0):
    """The second-language twin of a condition's text: optional, as long as the English."""
    field = AuctionConditions._meta.get_field(name + "_hi")
    return forms.CharField(
        label=label,
        required=False,
        max_length=field.max_length,
        widget=forms.Textarea(attrs={"rows": rows}) if rows else None,
        help_text=_("Shown on Hindi, Marathi or Tamil pages; left empty, they show the English."),
    )


class ConditionsForm(forms.Form):
    """A new standing order of the District Magistrate on the place, time and conditions of sale
    (s.14). It ends the open-ended order before it."""

    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    district = forms.ModelChoiceField(
        label=_("District"), queryset=District.objects.none(), empty_label=_("Choose the district")
    )
    order_reference = forms.CharField(
        label=_("Order reference"), max_length=_max_length(AuctionConditions, "order_reference")
    )
    order_date = DayField(label=_("Order date"))
    valid_from = DayField(label=_("In force from"))
    valid_to = DayField(
        label=_("In force until"),
        required=False,
        help_text=_("Leave empty for an order without an end date."),
    )
    place = forms.CharField(
        label=_("Place of sale"), max_length=_max_length(AuctionConditions, "place")
    )
    hours = forms.CharField(
        label=_("Hours of sale"),
        max_length=_max_length(AuctionConditions, "hours"),
        help_text=_("For example: 10:00 to 16:00 on working days."),
    )
    reserve_policy = forms.CharField(
        label=_("Reserve price"),
        max_length=_max_length(AuctionConditions, "reserve_policy"),
        help_text=_("How the officer fixes the reserve price of a lot, if at all."),
    )
    earnest_money = forms.DecimalField(label=_("Earnest money (₹)"), min_value=0, **MONEY)
    buyer_declarations = forms.CharField(
        label=_("Declarations every buyer signs"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_(
            "At least that he is not an officer of police, a pound-keeper or another officer "
            "under the Act, and does not buy for one (s.19)."
        ),
    )
    chargeable_expenses = forms.CharField(
        label=_("Sale expenses that may be charged"), widget=forms.Textarea(attrs={"rows": 2})
    )
    # The same texts in the district's language (ADR 0081): its pages and documents show them to
    # readers of that language; left empty, they show the English and say so.
    place_hi = _second("place", _("Place of sale, in the district's language"))
    hours_hi = _second("hours", _("Hours of sale, in the district's language"))
    reserve_policy_hi = _second("reserve_policy", _("Reserve price, in the district's language"))
    buyer_declarations_hi = _second(
        "buyer_declarations", _("Declarations every buyer signs, in the district's language"), 3
    )
    chargeable_expenses_hi = _second(
        "chargeable_expenses", _("Sale expenses that may be charged, in the district's language"), 2
    )
    max_expenses_per_lot = forms.DecimalField(
        label=_("Most sale expenses per lot (₹)"), min_value=0, initial=Decimal("0.00"), **MONEY
    )
    s16_min_gap_days = forms.IntegerField(
        label=_("Days between the owner's refusal and a s.16 sale"),
        min_value=0,
        max_value=90,
        initial=1,
        help_text=_("The s.16 sale may be held this many days after the refusal, or later."),
    )

    # Copied from the latest order of the district, so that a new order starts from the old one.
    CARRIED_OVER = (
        "place",
        "hours",
        "reserve_policy",
        "earnest_money",
        "buyer_declarations",
        "chargeable_expenses",
        "max_expenses_per_lot",
        "s16_min_gap_days",
        *(name + "_hi" for name in CONDITION_TEXTS),
    )

    def __init__(self, user, *args, **kwargs):
        super().__init__(*args, **kwargs)
        districts = District.objects.for_user(user, Permission.PREPARE_ORDERS)
        self.fields["district"].queryset = districts
        if len(districts) == 1:
            district = districts[0]
            self.fields["district"].initial = district.pk
            latest = AuctionConditions.objects.filter(district=district).order_by("-valid_from")
            latest = latest.first()
            if latest is not None:
                for name in self.CARRIED_OVER:
                    self.fields[name].initial = getattr(latest, name)

    def clean(self):
        data = super().clean()
        valid_from, valid_to = data.get("valid_from"), data.get("valid_to")
        if valid_from and valid_to and valid_to < valid_from:
            self.add_error("valid_to", _("The end date cannot be before the start date."))
        order_date = data.get("order_date")
        if order_date and valid_from and valid_from < order_date:
            self.add_error("valid_from", _("An order cannot be in force before it is made."))
        return data


class OfficerChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, user):
        return user.display_name


class AuctionForm(forms.Form):
    """When and where, and who conducts the sale. The lots come in a formset beside it."""

    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    scheduled_for = DayTimeField(label=_("Date and time of sale (IST)"))
    place = forms.CharField(
        label=_("Place of sale"),
        max_length=200,
        required=False,
        help_text=_("As the District Magistrate's conditions direct; leave empty for their place."),
    )
    officer = OfficerChoiceField(
        label=_("Conducting officer"), queryset=None, empty_label=_("Choose the officer")
    )
    deputy = OfficerChoiceField(
        label=_("Officer of his establishment deputed to conduct the sale"),
        queryset=None,
        required=False,
        empty_label=_("Nobody deputed"),
    )
    deputation_order = forms.CharField(
        label=_("Deputation order"),
        max_length=120,
        required=False,
        help_text=_("The officer's written order deputing him (s.14)."),
    )

    def __init__(self, *args, officers, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["officer"].queryset = officers
        self.fields["deputy"].queryset = officers

    def clean(self):
        data = super().clean()
        deputy = data.get("deputy")
        if deputy is not None:
            if deputy == data.get("officer"):
                self.add_error("deputy", _("The deputy must be another officer."))
            if not data.get("deputation_order"):
                self.add_error("deputation_order", _("Give the order that deputes him."))
        return data


class LotRowForm(forms.Form):
    """One animal, or a dam with her calf: offered or not, in which place, at what reserve."""

    head = forms.IntegerField(widget=forms.HiddenInput)
    include = forms.BooleanField(label=_("Offer in this auction"), required=False)
    sequence = forms.IntegerField(
        label=_("Order of sale"), min_value=1, max_value=999, required=False
    )
    reserve_price = forms.DecimalField(
        label=_("Reserve price (₹)"), min_value=0, required=False, **MONEY
    )

    def __init__(self, *args, units, **kwargs):
        super().__init__(*args, **kwargs)
        self.units = units
        self.unit = units.get(self.initial.get("head"))
        if self.unit and self.unit.get("refusals"):  # its pinned pack forbids an auction
            self.fields["include"].disabled = True

    def clean_head(self):
        head = self.cleaned_data["head"]
        if head not in self.units:
            raise ValidationError(_("This animal cannot be offered in this auction."))
        self.unit = self.units[head]
        return head

    def clean(self):
        data = super().clean()
        if data.get("include") and data.get("sequence") is None:
            self.add_error("sequence", _("Give the lot its place in the order of sale."))
        return data


class BaseLotFormSet(forms.BaseFormSet):
    def clean(self):
        if any(self.errors):
            return
        chosen = [f.cleaned_data for f in self.forms if f.cleaned_data.get("include")]
        if not chosen:
            raise ValidationError(_("Offer at least one lot."))
        heads = [f.cleaned_data["head"] for f in self.forms]
        if len(heads) != len(set(heads)):
            raise ValidationError(_("An animal is listed twice."))
        places = [row["sequence"] for row in chosen]
        if len(places) != len(set(places)):
            raise ValidationError(_("Two lots have the same place in the order of sale."))

    def lots(self):
        """(lots, reserve prices) as schedule_auction takes them: lists of animal ids in the order
        of sale, and {lot number: reserve}."""
        rows = sorted(
            (f for f in self.forms if f.cleaned_data.get("include")),
            key=lambda f: f.cleaned_data["sequence"],
        )
        lots, reserves = [], {}
        for number, form in enumerate(rows, start=1):
            lots.append([a.pk for a in form.unit["animals"]])
            if form.cleaned_data.get("reserve_price"):
                reserves[number] = form.cleaned_data["reserve_price"]
        return lots, reserves


LotFormSet = forms.formset_factory(LotRowForm, formset=BaseLotFormSet, extra=0)


class BidderForm(forms.Form):
    # Made once with the form: sending it twice registers one bidder (see register_bidder).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    name = forms.CharField(label=_("Name"), max_length=_max_length(Bidder, "name"))
    address = forms.CharField(label=_("Address"), max_length=_max_length(Bidder, "address"))
    id_kind = forms.ChoiceField(label=_("Identity document"), choices=Bidder.IdKind.choices)
    id_number = forms.CharField(
        label=_("Document number"), max_length=_max_length(Bidder, "id_number")
    )
    phone = forms.CharField(
        label=_("Phone"),
        max_length=_max_length(Bidder, "phone"),
        widget=forms.TextInput(attrs={"inputmode": "tel", "autocomplete": "off"}),
    )
    declaration_signed = forms.BooleanField(
        label=_("The bidder has signed the declaration above"),
        error_messages={
            "required": _(
                "Every buyer signs the declaration that he is not an officer or pound-keeper, "
                "and does not buy for one (s.19)."
            )
        },
    )

    def clean_phone(self):
        phone = self.cleaned_data["phone"].strip()
        digits = "".join(c for c in phone if c.isdigit())
        if len(digits) < 10:
            raise ValidationError(_("Give a phone number of at least ten digits."))
        return phone


class OverrideForm(forms.Form):
    reason = forms.CharField(
        label=_("Why the bidder is not an officer or pound-keeper, nor buying for one"),
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("For example: a namesake; his identity document and address were checked."),
    )


class BidderChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, bidder):
        return f"{bidder.number}. {bidder.name}"


def buyers(auction):
    """Bidders who may buy: the declaration signed, and not blocked (or cleared) under s.19. A
    blocked bidder is not offered, so no form can make him a buyer."""
    return auction.bidders.may_buy()


class BidForm(forms.Form):
    prefix = "bid"

    bidder = BidderChoiceField(label=_("Bidder"), queryset=None, empty_label=_("Choose"))
    amount = forms.DecimalField(label=_("Bid (₹)"), min_value=Decimal("0.01"), **MONEY)

    def __init__(self, *args, auction, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["bidder"].queryset = buyers(auction)


class SaleForm(forms.Form):
    """The hammer: who bought, at what price, how he paid, and the lot's sale expenses."""

    prefix = "sale"

    buyer = BidderChoiceField(label=_("Buyer"), queryset=None, empty_label=_("Choose the buyer"))
    price = forms.DecimalField(label=_("Hammer price (₹)"), min_value=Decimal("0.01"), **MONEY)
    payment_mode = forms.ChoiceField(
        label=_("Paid by"),
        choices=PaymentMode.choices,
        widget=forms.RadioSelect,
        initial=PaymentMode.CASH,
    )
    payment_reference = forms.CharField(
        label=_("UPI or other payment reference"), max_length=120, required=False
    )
    expenses = forms.DecimalField(
        label=_("Sale expenses of this lot (₹)"), min_value=0, initial=Decimal("0.00"), **MONEY
    )

    def __init__(self, *args, lot, **kwargs):
        super().__init__(*args, **kwargs)
        auction = lot.auction
        self.fields["buyer"].queryset = buyers(auction)
        most = auction.conditions.max_expenses_per_lot
        self.fields["expenses"].widget.attrs["max"] = str(most)
        self.fields["expenses"].validators.append(
            MaxValueValidator(
                most,
                message=_(
                    "The District Magistrate's conditions allow sale expenses of at most "
                    "%(max)s a lot."
                )
                % {"max": inr(most)},
            )
        )
        self.fields["expenses"].help_text = _(
            "At most %(most)s a lot, as the District Magistrate's conditions allow: %(what)s"
        ) % {"most": inr(most), "what": auction.conditions.read["chargeable_expenses"].text}
        if lot.reserve_price:
            self.fields["price"].help_text = _("The reserve is %(reserve)s.") % {
                "reserve": inr(lot.reserve_price)
            }

    def clean(self):
        data = super().clean()
        if data.get("payment_mode") in (PaymentMode.UPI, PaymentMode.OTHER) and not data.get(
            "payment_reference"
        ):
            self.add_error(
                "payment_reference", _("Give the UPI transaction or other payment reference.")
            )
        return data


class UnsoldForm(forms.Form):
    note = forms.CharField(
        label=_("Why the lot was not sold"),
        max_length=250,
        required=False,
        help_text=_("For example: no bid, or no bid reached the reserve."),
    )


class CloseForm(forms.Form):
    """Nothing to type: the confirmation is the button."""
