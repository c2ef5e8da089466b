"""The administrator's screens for webhooks (docs/webhooks.md): subscribe a State system's
service token to topics at an address (the signing secret shown once), see each subscription's
latest deliveries with every try, stop one, and send a delivery that was given up again. The
work is done by webhooks.services; each screen shows only the tokens the administrator manages."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.decorators import require_permission
from accounts.roles import Permission
from accounts.service_tokens import managed_service_tokens
from kernel.events import SUMMARY_KEY
from kernel.messages import Message
from kernel.views import add_service_errors

from . import services
from .forms import SubscriptionForm
from .models import WebhookAttempt, WebhookDelivery, WebhookSubscription

P = Permission.MANAGE_STAFF
# The latest deliveries a subscription's page shows, each with its tries.
SHOWN = 50


def _labelled(subscription):
    """The subscription with its topics named in the reader's language (`topic_labels`)."""
    subscription.topic_labels = [services.Topic(t).label for t in subscription.topics]
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
            _subscription, secret = services.create_subscription(
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
        "webhooks/webhooks.html",
        {"form": form, "subscriptions": shown, "secret": secret, "topics": services.Topic},
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
        delivery.topic_label = services.Topic(delivery.topic).label
        delivery.summary = _summary(delivery.event)
    return render(
        request,
        "webhooks/webhook.html",
        {"subscription": found, "deliveries": deliveries, "shown": SHOWN},
    )


@require_POST
@require_permission(P)
def stop(request, pk):
    found = _owned(request.user, pk)
    services.stop_subscription(subscription=found, by=request.user)
    messages.success(request, _("Webhook to %(url)s stopped.") % {"url": found.url})
    return redirect("webhooks:list")


@require_POST
@require_permission(P)
def send_again(request, pk, delivery):
    found = _owned(request.user, pk)
    delivery = get_object_or_404(WebhookDelivery, pk=delivery, subscription=found)
    services.send_again(delivery=delivery, by=request.user)
    messages.success(request, _("The delivery will be sent again."))
    return redirect("webhooks:subscription", pk=found.pk)
