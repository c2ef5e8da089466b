"""Lost-cattle reports (ADR 0079): the public's form (no sign-in) and the keeper's candidates.

The public form runs in four steps on the session's draft: the details, the one-time code, the
check of the answers, and the confirmation with the report's reference."""

from axes.helpers import get_client_ip_address
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.db.models import F
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.decorators import require_permission
from accounts.models import State
from accounts.roles import Permission
from accounts.scoping import lookup
from kernel.confirmations import show_panel

from ..forms.lost import CODE_REFUSALS, CodeForm, DecideForm, LostReportForm
from ..models import LostMatch, LostReport
from ..services import lost as services

SESSION_KEY = "lost_report"


def _draft(request):
    pk = request.session.get(SESSION_KEY)
    return LostReport.objects.filter(pk=pk, state=LostReport.State.DRAFT).first() if pk else None


def _throttled(request, form, exc):
    if exc.args[0] == "phone":
        form.add_error("phone", _("Too many codes sent to this number today. Try tomorrow."))
    else:
        form.add_error(None, _("Too many reports from this connection. Try again in an hour."))
    return render(request, "impounding/lost/report.html", {"form": form}, status=429)


@login_not_required
@require_http_methods(["GET", "HEAD", "POST"])
def report(request):
    draft = _draft(request)
    if request.method == "POST" and "show_districts" in request.POST:
        return _with_districts(request, draft)
    state = State.objects.filter(code=request.GET.get("state", "")).first()
    form = LostReportForm(request.POST or None, request.FILES or None, instance=draft, state=state)
    if draft is not None and request.method != "POST":
        form.initial["phone"] = draft.phone
    if request.method == "POST" and form.is_valid():
        data = {name: form.cleaned_data[name] for name in [*form.Meta.fields, "phone", "photo"]}
        draft = services.save_draft(data=data, language=get_language(), report=draft)
        request.session[SESSION_KEY] = draft.pk
        if draft.phone_verified:
            return redirect("lost_check")
        try:
            services.send_code(draft, address=get_client_ip_address(request))
        except services.Throttled as exc:
            return _throttled(request, form, exc)
        return redirect("lost_code")
    return render(request, "impounding/lost/report.html", {"form": form})


def _with_districts(request, draft):
    """Without JavaScript, "Show its districts" sends the form: it comes back as it was typed,
    no answer judged yet, with the chosen State's districts to choose from."""
    typed = {k: v for k, v in request.POST.items() if k in LostReportForm.base_fields}
    raw = typed.get("state", "")
    state = State.objects.filter(pk=raw).first() if raw.isdigit() else None
    form = LostReportForm(instance=draft, initial=typed, state=state)
    return render(request, "impounding/lost/report.html", {"form": form})


@login_not_required
@require_http_methods(["GET", "HEAD", "POST"])
def code(request):
    draft = _draft(request)
    if draft is None:
        return redirect("lost_report")
    form = CodeForm(request.POST or None)
    if request.method == "POST" and "resend" in request.POST:
        form = CodeForm()
        try:
            services.send_code(draft, address=get_client_ip_address(request))
            messages.info(request, _("We sent a new code."))
        except services.Throttled:
            form.add_error(None, _("Too many codes sent. Try again later."))
            return render(
                request, "impounding/lost/code.html", {"form": form, "draft": draft}, status=429
            )
    elif request.method == "POST" and form.is_valid():
        try:
            services.check_code(draft, form.cleaned_data["code"])
            return redirect("lost_check")
        except services.CodeRefused as exc:
            form.add_error("code", CODE_REFUSALS[exc.reason])
    return render(request, "impounding/lost/code.html", {"form": form, "draft": draft})


@login_not_required
@require_http_methods(["GET", "HEAD", "POST"])
def check(request):
    draft = _draft(request)
    if draft is None or not draft.phone_verified:
        return redirect("lost_report")
    if request.method == "POST":
        done = services.submit(draft)
        request.session.pop(SESSION_KEY, None)
        show_panel(request, title=_("Report sent"), reference=done.reference)
        return redirect("lost_done")
    rows = [
        (_("Species"), draft.get_species_display()),
        (_("Colour"), draft.colour),
        (_("Marks"), draft.marks),
        (_("Ear-tag number"), draft.ear_tag),
        (_("Village or place where it was lost"), draft.place),
        (_("District"), draft.district.label),
        (_("Date lost"), draft.lost_on),
        (_("Your mobile number"), draft.phone),
        (_("Photo"), _("Added") if draft.photo else ""),
    ]
    return render(request, "impounding/lost/check.html", {"rows": rows})


@login_not_required
@require_http_methods(["GET", "HEAD"])
def done(request):
    return render(request, "impounding/lost/done.html")


# --- The keeper's candidates -------------------------------------------------------------------


@require_http_methods(["GET", "HEAD"])
@require_permission(Permission.VIEW_RECORDS)
def matches(request):
    """The candidates in the user's pounds, best first, fifty at most."""
    rows = (
        LostMatch.objects.for_user(request.user, Permission.VIEW_RECORDS)
        .filter(state=LostMatch.State.CANDIDATE)
        .select_related("report", "animal__impoundment__pound")
        .order_by(F("score").desc(), "pk")[: services.MATCH_LIMIT]
    )
    return render(request, "impounding/lost/matches.html", {"matches": rows})


@require_POST
@require_permission(Permission.RECORD_CUSTODY)
def decide(request, pk):
    match = lookup(request.user, LostMatch.objects, pk, Permission.RECORD_CUSTODY)
    form = DecideForm(request.POST)
    if form.is_valid():
        confirm = form.cleaned_data["decision"] == "confirm"
        services.decide(match, by=request.user, confirm=confirm)
        messages.success(
            request,
            _("Match confirmed: the owner is told.") if confirm else _("Match set aside."),
        )
    return redirect("impounding:entry", match.animal.impoundment_id)
