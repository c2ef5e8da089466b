"""Three writes of the s.14 and s.17 screens through the API: the report of unclaimed cattle, a
proclamation of its notice, and the office's confirmation of a fines remittance.

Each answers as its screen does and in the same order: the permission held anywhere (403), the
record within the caller's jurisdiction (another district's is a 404), the action on that record
(403); only then the Idempotency-Key (api.idempotency), then the screen's own form (a 400 with
its messages), then the screen's service, whose refusals are a 422 (a rule of the Act) or a 409
(the record is no longer in the state the request expects), in the reader's language.
"""

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema

from accounts.roles import Permission
from accounts.scoping import has_permission, visible_pound_ids
from auctions import services as auctions
from auctions.forms.unclaimed import ProclamationForm, ReportSendForm
from auctions.models import Notice, Proclamation
from impounding.models import Impoundment
from kernel.formatting import inr
from office import services as office
from office.forms import ConfirmRemittanceForm
from office.models import Remittance

from .common import bad, call_service, dump, form_problem, json_body, problem
from .common import not_allowed as _not_allowed
from .idempotency import documented, idempotent, json_response
from .schemas import Problem

router = Router(tags=["writes"])

# The problems each write may answer with, for the schema.
ANSWERS = {400: Problem, 401: Problem, 403: Problem, 404: Problem, 422: Problem}


def _form_data(payload, fields):
    """The body's values as a bound form reads them: only those sent, each as text."""
    values = payload.dict()
    return {f: str(values[f]) for f in fields if values.get(f) is not None}


# --- The s.14 report to the officer (the pound-keeper) -------------------------------------------


class ReportIn(Schema):
    entry: int | None = Field(
        None, description="The register entry whose unclaimed cattle to report."
    )


class ReportAnimalOut(Schema):
    id: int
    number: int


class ReportOut(Schema):
    id: int
    number: str
    entry: int
    pound: int
    police_station: int
    sent_to: str
    due_on: str
    sent_at: str
    days_late: int
    animals: list[ReportAnimalOut]
    message: str


def _report_to(report):
    """To whom it went, as the report screen says it."""
    if report.officer_id:
        return report.officer.display_name
    return _("the officer in charge, %(station)s") % {"station": report.police_station.label}


def _report(report):
    sent_to = _report_to(report)
    return dump(
        ReportOut,
        report,
        entry=report.impoundment_id,
        sent_to=sent_to,
        animals=[{"id": a.pk, "number": a.number} for a in report.animals.order_by("number")],
        message=_("Report %(number)s sent to %(to)s.") % {"number": report.number, "to": sent_to},
    )


# Its operation, for api/urls.py to add to the reports' own router: ninja serves one path from one
# router, and GET /reports/ is there.
SEND_REPORT = {
    "response": {201: ReportOut, **ANSWERS},
    "url_name": "report_send",
    "summary": "Send the s.14 report of an entry's cattle unclaimed for seven days",
    "openapi_extra": documented(ReportIn),
}


def send_report(request):
    """As auctions.views.unclaimed.report_send: the keeper's, of an entry in his pound."""
    user = request.auth
    if not has_permission(user, Permission.SEND_REPORT):
        return _not_allowed()
    payload, invalid = json_body(request, ReportIn)
    if invalid:
        return invalid
    if payload.entry is None:
        return bad("entry", _("Name the register entry to report."))
    entry = (
        Impoundment.objects.for_user(user)
        .select_related("pound__district", "pound__nearest_police_station")
        .filter(pk=payload.entry)
        .first()
    )
    if entry is None:
        raise Http404
    if not has_permission(user, Permission.SEND_REPORT, entry.pound):
        return _not_allowed()
    return _send_report(request, entry)


@idempotent
def _send_report(request, entry):
    form = ReportSendForm({})  # a confirmation: no fields, as on the screen
    if not form.is_valid():
        return form_problem(form)
    report, refusal = call_service(
        auctions.send_report, title=_("The report cannot be sent."), entry=entry, by=request.auth
    )
    if refusal:
        return refusal
    return json_response(_report(report), 201, f"/api/v1/reports/{report.pk}/")


# --- A proclamation of the notice (the officer) --------------------------------------------------


class ProclamationIn(Schema):
    channel: str | None = Field(
        None,
        description="How it was proclaimed.",
        json_schema_extra={"enum": Proclamation.Channel.values},
    )
    made_on: str | None = Field(
        None, description="YYYY-MM-DD.", json_schema_extra={"format": "date"}
    )
    village: int | None = Field(None, description="A village of the pound's district.")
    place: str | None = None
    made_by: str | None = Field(None, description="Who beat the drum or made the announcement.")
    details: str | None = None


class ProclamationOut(Schema):
    id: int
    notice: int
    report: int
    channel: str
    made_on: str
    village: int | None
    place: str
    made_by: str
    details: str
    message: str


PROCLAMATION_FIELDS = ["channel", "made_on", "village", "place", "made_by", "details"]


def _proclamation(p):
    return dump(
        ProclamationOut,
        p,
        report=p.notice.report_id,
        message=_("Proclamation recorded: %(what)s on %(date)s.")
        % {"what": p.get_channel_display(), "date": p.made_on.strftime("%d-%m-%Y")},
    )


@router.post(
    "/notices/{int:pk}/proclamations/",
    response={201: ProclamationOut, **ANSWERS},
    url_name="proclamation_new",
    summary="Record a proclamation of a s.14 notice (by beat of drum, or a further channel)",
    openapi_extra=documented(ProclamationIn),
)
def record_proclamation(request, pk: int):
    """As auctions.views.unclaimed.proclamation_new: the officer's, on a notice of his pounds.
    The API takes no photo; the screen does."""
    user = request.auth
    notice = (
        Notice.objects.for_user(user)
        .select_related(
            "pound__district", "report__police_station", "report__impoundment__seizure_village"
        )
        .filter(pk=pk)
        .first()
    )
    if notice is None:
        raise Http404
    if not has_permission(user, Permission.HANDLE_UNCLAIMED, notice.pound):
        return _not_allowed()
    return _record_proclamation(request, notice)


@idempotent
def _record_proclamation(request, notice):
    payload, invalid = json_body(request, ProclamationIn)
    if invalid:
        return invalid
    form = ProclamationForm(_form_data(payload, PROCLAMATION_FIELDS), notice=notice)
    if not form.is_valid():
        return form_problem(form)
    proclamation, refusal = call_service(
        auctions.record_proclamation,
        title=_("The proclamation cannot be recorded."),
        notice=notice,
        by=request.auth,
        **form.cleaned_data,
    )
    if refusal:
        return refusal
    return json_response(
        _proclamation(proclamation), 201, f"/api/v1/proclamations/{proclamation.pk}/"
    )


# --- Confirming a fines remittance (the office; s.17) ---------------------------------------------


class ConfirmIn(Schema):
    challan_number: str | None = Field(
        None,
        description="The challan number the treasury holds: it must be the remittance's.",
    )
    checked: bool | None = Field(
        None,
        description="True: the amount is checked as received by the treasury under this challan.",
    )


class RemittanceOut(Schema):
    id: int
    number: str
    pound: int
    amount: str
    challan_number: str
    treasury: str
    remitted_on: str
    status: str
    confirmed_at: str | None
    message: str


def _remittance(r):
    return dump(
        RemittanceOut,
        r,
        amount=f"{r.amount:.2f}",
        message=_("Remittance %(number)s confirmed: %(amount)s of fines received (s.17).")
        % {"number": r.number, "amount": inr(r.amount)},
    )


def _same_challan(given, recorded):
    return " ".join(given.split()).casefold() == " ".join(recorded.split()).casefold()


@router.post(
    "/remittances/{int:pk}/confirm/",
    response={200: RemittanceOut, 409: Problem, **ANSWERS},
    url_name="remittance_confirm",
    summary="Confirm that a fines remittance reached the treasury under its challan (s.17)",
    openapi_extra=documented(ConfirmIn),
)
def confirm_remittance(request, pk: int):
    """As office.views.money.remittance_confirm: the office's, and never the sender's."""
    user = request.auth
    if not has_permission(user, Permission.PREPARE_ORDERS):
        return _not_allowed()
    # The screen's scope (office.views.money._remittances): the pounds the caller sees.
    remittance = (
        Remittance.objects.filter(pound_id__in=visible_pound_ids(user))
        .select_related("pound__district")
        .filter(pk=pk)
        .first()
    )
    if remittance is None:
        raise Http404
    if not has_permission(user, Permission.PREPARE_ORDERS, remittance.pound):
        return _not_allowed()
    try:
        remittance.check_decider(user)  # maker-checker, the screen's own refusal
    except PermissionDenied as exc:
        return _not_allowed(exc)
    return _confirm_remittance(request, remittance)


@idempotent
def _confirm_remittance(request, remittance):
    payload, invalid = json_body(request, ConfirmIn)
    if invalid:
        return invalid
    form = ConfirmRemittanceForm({"checked": "on"} if payload.checked else {})
    if not form.is_valid():
        return form_problem(form)
    given = (payload.challan_number or "").strip()
    if not given:
        return bad("challan_number", _("Enter the challan number the treasury gave."))
    if not _same_challan(given, remittance.challan_number):
        return problem(
            409,
            _("The remittance cannot be confirmed."),
            _("This is not the challan number the remittance was sent with."),
            [("challan_number", _("This is not the challan number the remittance was sent with."))],
        )
    confirmed, refusal = call_service(  # a ValidationError: already confirmed
        office.confirm_remittance,
        title=_("The remittance cannot be confirmed."),
        status=409,
        remittance=remittance,
        by=request.auth,
    )
    if refusal:
        return refusal
    return json_response(_remittance(confirmed), 200)
