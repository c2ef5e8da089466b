"""The administrator's screens for webhooks (docs/webhooks.md): subscribe a State system's
service token to topics at an address (the signing secret shown once), see each subscription's
latest deliveries with every try, stop one, and send a delivery that was given up again. The
work is done by api.webhooks; each screen shows only the tokens the administrator manages."""

import uuid

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from accounts.decorators import require_permission
from accounts.models import ApiToken
from accounts.roles import Permission
from accounts.service_tokens import managed_service_tokens
from kernel.events import SUMMARY_KEY
from kernel.messages import Message
from kernel.views import add_service_errors

from . import webhooks
from .models import WebhookAttempt, WebhookDelivery, WebhookSubscription

P = Permission.MANAGE_STAFF
# The latest deliveries a subscription's page shows, each with its tries.
SHOWN = 50


class SubscriptionForm(forms.Form):
    token = forms.ModelChoiceField(
        label=gettext_lazy("Service token"),
        queryset=None,
        help_text=gettext_lazy(
            "The State system it is for: it hears only of what this token may read."
        ),
    )
    url = forms.URLField(
        label=gettext_lazy("Address"),
        max_length=500,
        assume_scheme="https",
        help_text=gettext_lazy("Where each event is sent, for example https://state.gov.in/hooks."),
    )
    topics = forms.MultipleChoiceField(
        label=gettext_lazy("Topics"),
        choices=webhooks.Topic.choices,
        widget=forms.CheckboxSelectMultiple,
    )
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)

    def __init__(self, *args, tokens, **kwargs):
        super().__init__(*args, **kwargs)
        live = [t.pk for t in tokens if t.is_live]
        self.fields["token"].queryset = ApiToken.objects.filter(pk__in=live).order_by("name")


def _labelled(subscription):
    """The subscription with its topics named in the reader's language (`topic_labels`)."""
    subscription.topic_labels = [webhooks.Topic(t).label for t in subscription.topics]
    return subscription


def _subscriptions(user):
    tokens = managed_service_tokens(user)
    ids = [t.pk for t in tokens]
    found = WebhookSubscription.objects.filter(token_id__in=ids).select_related("token")
    return tokens, [_labelled(s) for s in found]


def _owned(user, pk):
    """The subscription, if it serves a token the user manages; another State's is a 404."""
    _tokens, subscriptions = _subscriptions(user)
    found = next((s for s in subscriptions if s.pk == pk), None)
    if found is None:
        raise Http404
    return found


@require_permission(P)
def subscriptions(request):
    tokens, shown = _subscriptions(request.user)
    form = SubscriptionForm(request.POST or None, tokens=tokens)
    secret = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            _subscription, secret = webhooks.create_subscription(
                by=request.user,
                token=data["token"],
                url=data["url"],
                topics=data["topics"],
                idempotency_key=data["idempotency_key"],
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            if secret is None:  # the same form sent again: its secret was shown the first time
                messages.info(
                    request, _("That webhook was already made; its secret was shown once.")
                )
                return redirect("webhooks:list")
            tokens, shown = _subscriptions(request.user)
            form = SubscriptionForm(tokens=tokens)
    return render(
        request,
        "api/webhooks.html",
        {"form": form, "subscriptions": shown, "secret": secret, "topics": webhooks.Topic},
    )


def _summary(event):
    """What happened, in the reader's language, naming no one: the administrator may not read
    the public's names, and the body sent named no one either."""
    message = Message.from_data(event.data.get(SUMMARY_KEY))
    return str(message) if message is not None else event.summary


@require_permission(P)
def subscription(request, pk):
    found = _owned(request.user, pk)
    deliveries = list(
        WebhookDelivery.objects.filter(subscription=found)
        .select_related("event")
        .order_by("-created_at")[:SHOWN]
    )
    tries = {}
    for attempt in WebhookAttempt.objects.filter(delivery__in=deliveries).order_by("number"):
        tries.setdefault(attempt.delivery_id, []).append(attempt)
    for delivery in deliveries:
        delivery.tries = tries.get(delivery.pk, [])
        delivery.topic_label = webhooks.Topic(delivery.topic).label
        delivery.summary = _summary(delivery.event)
    return render(
        request,
        "api/webhook.html",
        {"subscription": found, "deliveries": deliveries, "shown": SHOWN},
    )


@require_POST
@require_permission(P)
def stop(request, pk):
    found = _owned(request.user, pk)
    webhooks.stop_subscription(subscription=found, by=request.user)
    messages.success(request, _("Webhook to %(url)s stopped.") % {"url": found.url})
    return redirect("webhooks:list")


@require_POST
@require_permission(P)
def send_again(request, pk, delivery):
    found = _owned(request.user, pk)
    delivery = get_object_or_404(WebhookDelivery, pk=delivery, subscription=found)
    webhooks.send_again(delivery=delivery, by=request.user)
    messages.success(request, _("The delivery will be sent again."))
    return redirect("webhooks:subscription", pk=found.pk)
