"""Three writes of the s.14 and s.17 screens through the API: the report of unclaimed cattle, a
proclamation of its notice, and the office's confirmation of a fines remittance.

Each answers as its screen does and in the same order: the permission held anywhere (403), the
record within the caller's jurisdiction (another district's is a 404), the action on that record
(403); only then the Idempotency-Key (api.idempotency), then the body (a 400 with the screen's
messages), then the screen's service, whose refusals are a 422 (a rule of the Act) or a 409
(the record is no longer in the state the request expects), in the reader's language.
"""

from datetime import date

from django import forms
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema

from accounts.roles import Permission
from accounts.scoping import has_permission, lookup
from auctions import services as auctions
from auctions.forms.unclaimed import ProclamationForm
from auctions.models import Notice, Proclamation
from impounding.models import Impoundment
from kernel.formatting import inr
from office import services as office
from office.models import Remittance

from .common import bad, call_service, dump, form_problem, json_body, not_allowed
from .idempotency import documented, idempotent, json_response
from .office import remittance_out
from .schemas import Problem, RemittanceOut

router = Router(tags=["writes"])

# The problems each write may answer with, for the schema.
ANSWERS = {400: Problem, 401: Problem, 403: Problem, 404: Problem, 422: Problem}


def _found(user, queryset, pk, perm):
    """(the record as its screen looks it up, None), or (None, the screen's 403): another
    district's is a 404 (accounts.scoping.lookup)."""
    try:
        return lookup(user, queryset, pk, perm), None
    except PermissionDenied:
        return None, not_allowed()


# --- The s.14 report to the officer (the pound-keeper) -------------------------------------------


class ReportIn(Schema):
    entry: int | None = Field(
        None, description="The register entry whose unclaimed cattle to report."
    )


class ReportAnimalOut(Schema):
    id: int
    number: int


class ReportSentOut(Schema):
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


def _report(report):
    if report.officer_id:  # to whom it went, as the report screen says it
        sent_to = report.officer.display_name
    else:
        sent_to = _("the officer in charge, %(station)s") % {"station": report.police_station.label}
    return dump(
        ReportSentOut,
        report,
        entry=report.impoundment_id,
        sent_to=sent_to,
        animals=[dump(ReportAnimalOut, a) for a in report.animals.order_by("number")],
        message=_("Report %(number)s sent to %(to)s.") % {"number": report.number, "to": sent_to},
    )


# Its operation, for api/urls.py to add to the reports' own router: ninja serves one path from one
# router, and GET /reports/ is there.
SEND_REPORT = {
    "response": {201: ReportSentOut, **ANSWERS},
    "url_name": "report_send",
    "summary": "Send the s.14 report of an entry's cattle unclaimed for seven days",
    "openapi_extra": documented(ReportIn),
}


def send_report(request):
    """As auctions.views.unclaimed.report_send: the keeper's, of an entry in his pound."""
    user = request.auth
    if not has_permission(user, Permission.SEND_REPORT):
        return not_allowed()
    payload, invalid = json_body(request, ReportIn)
    if invalid:
        return invalid
    if payload.entry is None:
        return bad("entry", _("Name the register entry to report."))
    entries = Impoundment.objects.select_related("pound__district", "pound__nearest_police_station")
    entry, refusal = _found(user, entries, payload.entry, Permission.SEND_REPORT)
    return refusal or _send_report(request, entry)


@idempotent
def _send_report(request, entry):
    report, refusal = call_service(
        auctions.send_report, title=_("The report cannot be sent."), entry=entry, by=request.auth
    )
    return refusal or json_response(_report(report), 201, f"/api/v1/reports/{report.pk}/")


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


class ProclamationRecordedOut(Schema):
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


def _proclamation(p):
    return dump(
        ProclamationRecordedOut,
        p,
        report=p.notice.report_id,
        message=_("Proclamation recorded: %(what)s on %(date)s.")
        % {"what": p.get_channel_display(), "date": p.made_on.strftime("%d-%m-%Y")},
    )


@router.post(
    "/notices/{int:pk}/proclamations/",
    response={201: ProclamationRecordedOut, **ANSWERS},
    url_name="proclamation_new",
    summary="Record a proclamation of a s.14 notice (by beat of drum, or a further channel)",
    openapi_extra=documented(ProclamationIn),
)
def record_proclamation(request, pk: int):
    """As auctions.views.unclaimed.proclamation_new: the officer's, on a notice of his pounds.
    The API takes no photo; the screen does."""
    notices = Notice.objects.select_related(
        "pound__district", "report__police_station", "report__impoundment__seizure_village"
    )
    notice, refusal = _found(request.auth, notices, pk, Permission.HANDLE_UNCLAIMED)
    return refusal or _record_proclamation(request, notice)


@idempotent
def _record_proclamation(request, notice):
    payload, invalid = json_body(request, ProclamationIn)
    if invalid:
        return invalid
    # The screen's form is the one check of the fields (the village among the district's), so
    # the messages are the screen's, translated.
    form = ProclamationForm(payload.model_dump(exclude_none=True), notice=notice)
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
    where = f"/api/v1/proclamations/{proclamation.pk}/"
    return json_response(_proclamation(proclamation), 201, where)


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
    cin: str | None = Field(
        None, max_length=40, description="The bank's CIN of the challan (ADR 0076)."
    )
    scroll_number: str | None = Field(
        None, max_length=40, description="The number of the treasury scroll that lists it."
    )
    scroll_date: date | None = Field(
        None,
        description="The scroll's date. With the CIN and the scroll number, the challan's GRN "
        "is confirmed by this caller, never by its sender; all three or none.",
    )


class RemittanceConfirmedOut(RemittanceOut):
    message: str


@router.post(
    "/remittances/{int:pk}/confirm/",
    response={200: RemittanceConfirmedOut, 409: Problem, **ANSWERS},
    url_name="remittance_confirm",
    summary="Confirm that a fines remittance reached the treasury under its challan (s.17)",
    openapi_extra=documented(ConfirmIn),
)
def confirm_remittance(request, pk: int):
    """As office.views.money.remittance_confirm: the office's, and never the sender's."""
    user = request.auth
    if not has_permission(user, Permission.PREPARE_ORDERS):
        return not_allowed()
    remittances = Remittance.objects.select_related("pound__district", "sent_by", "confirmed_by")
    try:
        remittance = lookup(user, remittances, pk, Permission.PREPARE_ORDERS)
        remittance.check_decider(user)  # maker-checker, the screen's own refusal
    except PermissionDenied as exc:
        return not_allowed(exc)
    return _confirm_remittance(request, remittance)


@idempotent
def _confirm_remittance(request, remittance):
    payload, invalid = json_body(request, ConfirmIn)
    if invalid:
        return invalid
    if not payload.checked:  # the screen's attestation, with its message
        return bad("checked", forms.Field.default_error_messages["required"])
    if not (payload.challan_number or "").strip():
        return bad("challan_number", _("Enter the challan number the treasury gave."))
    confirmed, refusal = call_service(  # a ValidationError: another challan, or confirmed already
        office.confirm_remittance,
        title=_("The remittance cannot be confirmed."),
        status=409,
        remittance=remittance,
        by=request.auth,
        challan_number=payload.challan_number,
        cin=payload.cin,
        scroll_number=payload.scroll_number,
        scroll_date=payload.scroll_date,
    )
    if refusal:
        return refusal
    message = _("Remittance %(number)s confirmed: %(amount)s of fines received (s.17).") % {
        "number": confirmed.number,
        "amount": inr(confirmed.amount),
    }
    return json_response(remittance_out(confirmed, RemittanceConfirmedOut, message=message))
