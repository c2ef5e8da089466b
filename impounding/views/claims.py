"""Competing claimants (docs/domain.md decision 14): the keeper records each claimant; a police
officer or the office decides between them on the proof."""

import uuid

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.roles import Permission
from kernel.views import add_service_errors

from .. import services
from ..models import Claim
from .common import get_entry


class ClaimForm(forms.Form):
    # Made once with the form: sending it twice records one claim (see record_claim).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    claimant_name = forms.CharField(label=gettext_lazy("Claimant's name"), max_length=150)
    claimant_address = forms.CharField(label=gettext_lazy("Claimant's address"), max_length=250)
    claimant_phone = forms.CharField(
        label=gettext_lazy("Claimant's phone"), max_length=15, required=False
    )
    proof = forms.CharField(
        label=gettext_lazy("Proof offered"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("What he shows or says to prove the cattle are his."),
    )


class DecideClaimsForm(forms.Form):
    winner = forms.ModelChoiceField(
        label=gettext_lazy("Whose claim is proved?"),
        queryset=Claim.objects.none(),
        widget=forms.RadioSelect,
        empty_label=None,
    )
    findings = forms.CharField(
        label=gettext_lazy("Findings on the proof"), widget=forms.Textarea(attrs={"rows": 3})
    )

    def __init__(self, *args, claims, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["winner"].queryset = claims
        self.fields["winner"].label_from_instance = lambda c: f"{c.claimant_name}: {c.proof}"


def claim_new(request, pk):
    entry = get_entry(request, pk, Permission.RELEASE_ANIMAL)
    form = ClaimForm(request.POST or None)
    if form.is_valid():
        try:
            services.record_claim(entry=entry, by=request.user, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, _("Claimant recorded."))
            return redirect("impounding:entry", entry.pk)
    return render(request, "impounding/claim_new.html", {"entry": entry, "form": form})


def claims_decide(request, pk):
    entry = get_entry(request, pk)
    if not services.may_decide_claims(request.user, entry.pound):
        raise PermissionDenied
    claims = entry.claims.standing()
    form = DecideClaimsForm(request.POST or None, claims=claims)
    if form.is_valid():
        try:
            services.decide_claims(entry=entry, by=request.user, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, _("The decision on the claims is recorded."))
            return redirect("impounding:entry", entry.pk)
    return render(
        request,
        "impounding/claims_decide.html",
        {"entry": entry, "claims": list(claims), "form": form},
    )
