"""The screens of the owners' messages (ADR 0077): the keeper records the owner's phone on an
entry (the intake message goes to it); the administrator lists the registered templates, each
(event, language) with its DLT id (or that its messages are held without one) and what a message
of it costs in SMS, rendered with the longest values its variables may take."""

from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from accounts.decorators import require_permission
from accounts.roles import Permission
from impounding.selectors import entry_for

from . import dlt, notices, services
from .forms import ContactForm
from .models import Contact, Event, Template
from .selectors import masked

LONGEST = "W" * dlt.VAR_MAX  # every variable at its longest


@require_permission(Permission.MANAGE_STAFF)
def templates(request):
    rows = list(Template.objects.order_by("event", "language"))
    for row in rows:
        longest = services.render(row, dict.fromkeys(row.variables, LONGEST))
        row.event_label = Event(row.event).label
        row.segments = dlt.segments(longest)
        row.unicode = not dlt.is_gsm7(row.text)
    return render(request, "messaging/templates.html", {"templates": rows})


@require_permission(Permission.RECORD_IMPOUNDMENT)
def contact(request, pk):
    """The owner's phone for messages: recorded once per entry and number (the same number sent
    again is the same contact, and its intake message is keyed), in the owner's language."""
    entry = entry_for(request.user, pk, Permission.RECORD_IMPOUNDMENT)
    form = ContactForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            notices.record_contact(
                impoundment=entry,
                number=form.cleaned_data["phone"],
                by=request.user,
                language=form.cleaned_data["language"],
            )
        messages.success(request, _("The owner's phone is recorded; messages will go to it."))
        return redirect("impounding:entry", pk=entry.pk)
    phones = [
        masked(c.phone.number)
        for c in Contact.objects.filter(impoundment=entry).select_related("phone")
    ]
    return render(
        request, "messaging/contact.html", {"entry": entry, "form": form, "phones": phones}
    )
