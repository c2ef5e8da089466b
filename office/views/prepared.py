"""Files prepared by the worker: the request that asks for an export or a return records it and
returns at once; a page that refreshes itself says when the file is ready, then offers it.

Who may ask is checked as for the direct downloads (office/views/returns.py), and the scope is
fixed then; the file is its owner's alone (anyone else gets a 404).
"""

import uuid

from django.db import IntegrityError, transaction
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.decorators import require_permission
from accounts.roles import Permission
from kernel.files import serve_stored
from kernel.worker import workers_alive

from ..models import PreparedFile
from ..selectors import (
    consolidating_district,
    export_scope,
    ledger_pound,
    period_stamp,
    return_month,
)
from ..tasks import enqueue_prepare, give_up_lost

REFRESH_SECONDS = 3


def _export_params(request, kind):
    pound_ids, district_ids, period = export_scope(request.user, request.POST)
    if period is None:
        return None
    params = {"pound_ids": pound_ids, "district_ids": district_ids}
    params["period"] = [d.isoformat() if d else None for d in period]
    return params, f"{kind}-{period_stamp(period)}.csv"


def _return_params(request, kind):
    try:
        pk, year, month = (int(request.POST[k]) for k in ("pk", "year", "month"))
    except (KeyError, ValueError):
        raise Http404 from None
    fmt = request.POST.get("fmt", "")
    if kind == PreparedFile.Kind.MONTHLY_RETURN:
        subject, stem = ledger_pound(request.user, pk), "return"
    else:
        subject, stem = consolidating_district(request.user, pk), "district-return"
    year, month = return_month(year, month, fmt, subject)
    stem = f"{stem}-{subject.code}-{year:04d}-{month:02d}"
    return {"pk": pk, "year": year, "month": month, "fmt": fmt}, f"{stem}.{fmt}"


@require_POST
@require_permission(Permission.VIEW_LEDGER)
def prepare(request):
    """Ask the worker for a file; answer with the page that waits for it."""
    try:
        kind = PreparedFile.Kind(request.POST.get("what", ""))
        key = uuid.UUID(request.POST.get("key", ""))
    except ValueError:
        return HttpResponseBadRequest(_("Choose what to prepare."))
    existing = PreparedFile.objects.filter(key=key, owner=request.user).first()
    if existing is not None:
        return redirect("office:prepared", existing.pk)
    if kind in (PreparedFile.Kind.REGISTER, PreparedFile.Kind.LEDGER):
        made = _export_params(request, kind)
        if made is None:
            return HttpResponseBadRequest(_("Give the dates as YYYY-MM-DD."))
    else:
        made = _return_params(request, kind)
    params, filename = made
    params["language"] = get_language() or "en"
    try:
        with transaction.atomic():
            prepared = PreparedFile.objects.create(
                key=key, owner=request.user, kind=kind, params=params, filename=filename
            )
            # Enqueued with the row: the worker never sees a task without its PreparedFile.
            transaction.on_commit(lambda: enqueue_prepare(prepared.pk))
    except IntegrityError:
        raise Http404 from None  # another user's key: nothing to show
    return redirect("office:prepared", prepared.pk)


def _own(request, pk):
    return get_object_or_404(PreparedFile.objects.filter(owner=request.user), pk=pk)


@require_GET
def prepared(request, pk):
    prepared = _own(request, pk)
    waiting = prepared.status in (PreparedFile.Status.QUEUED, PreparedFile.Status.RUNNING)
    if waiting and give_up_lost([prepared]):
        # Its worker stopped on every try: the file will not come; say so.
        prepared.refresh_from_db()
        waiting = False
    context = {"prepared": prepared, "waiting": waiting, "refresh": REFRESH_SECONDS}
    # No worker has renewed its lease lately: say so, rather than "being prepared" for ever.
    context["worker_down"] = waiting and not workers_alive()
    return render(request, "office/prepared.html", context)


@require_GET
def prepared_file(request, pk):
    prepared = _own(request, pk)
    if prepared.status != PreparedFile.Status.READY:
        raise Http404
    stem = prepared.filename.rsplit(".", 1)[0]
    return serve_stored(prepared.file, download_name=stem, attachment=True)
