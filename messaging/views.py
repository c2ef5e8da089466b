"""The administrator's list of the registered templates (ADR 0077): each (event, language) with
its DLT id (or that its messages are held without one), its category and sender, and what a
message of it costs in SMS, rendered with the longest values its variables may take."""

from django.shortcuts import render

from accounts.decorators import require_permission
from accounts.roles import Permission

from . import dlt, services
from .models import Event, Template

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
