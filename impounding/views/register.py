"""The pound-keeper's register: today's animals, the register itself, entries and corrections."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.decorators import require_permission
from accounts.models import Pound
from accounts.roles import Permission
from accounts.scoping import has_permission
from kernel import held_uploads
from kernel.confirmations import show_panel
from kernel.documents import qr_svg
from kernel.models import Event
from kernel.views import add_service_errors, keyset_page
from messaging.selectors import messages_of
from payments.models import Payment
from payments.owner import short_link

from .. import services
from ..dues import dues
from ..forms.register import (
    AnimalAmendForm,
    AnimalFormSet,
    EntryAmendForm,
    EntryForm,
    RegisterSearchForm,
)
from ..models import (
    AnimalState,
    CourtOrder,
    CustodyEvent,
    Impoundment,
    Receipt,
)
from ..selectors import (
    BOARD_ROWS,
    REGISTER_COLUMNS,
    REGISTER_ORDER,
    REGISTER_PAGE,
    filter_register,
    inspection_record,
    pound_day_board,
    register_order,
)
from ..services.intake import AMENDABLE_ANIMAL_FIELDS, PHOTO_MAX_PX
from ..services.lost import lost_candidates
from ..tariffs import TariffMissing
from ..upi import dues_qr
from ..warnings import describe_warnings
from .answers import entry_answers
from .common import get_animal, get_entry
from .owners import (
    entry_history,
    entry_suggestions,
    intake_history,
    sees_phones,
    suggestions,
    use_suggested_owner,
)
from .register_page import register_rows, search_fields

# The board shows this many pounds a page: a keeper's one or two on one page, a district's or an
# auditor's many a page at a time, so that neither the queries nor the page grow with them.
BOARD_POUNDS = 10
# Over several pounds (an office's overview), each shows its longest-held animals up to this
# many, with a link to its register; a keeper's one pound shows BOARD_ROWS. Ten pounds of fifty
# rows, each with its dues, took half a second to draw at a State's volume.
OVERVIEW_ROWS = 10


@require_permission(Permission.VIEW_RECORDS)
def today(request):
    pounds = list(
        Pound.objects.for_user(request.user, Permission.VIEW_RECORDS)
        .select_related("district")
        .order_by("name", "pk")
    )
    # The pounds (reference data, not history) are few enough to hold; the page starts after
    # the pound named by `after`, or at the first when it names none in scope.
    after = request.GET.get("after", "")
    start = next((i + 1 for i, p in enumerate(pounds) if str(p.pk) == after), 0)
    shown = pounds[start : start + BOARD_POUNDS]
    board = pound_day_board(shown, per_pound=BOARD_ROWS if len(shown) == 1 else OVERVIEW_ROWS)
    more = start + BOARD_POUNDS < len(pounds)
    context = {
        "board": board,
        "next_after": shown[-1].pk if more and shown else None,
        "is_first_page": start == 0,
        "first_shown": start + 1,
        "last_shown": start + len(shown),
        "pound_count": len(pounds),
    }
    return render(request, "impounding/today.html", context)


@require_permission(Permission.VIEW_RECORDS)
def register(request):
    pounds = Pound.objects.for_user(request.user, Permission.VIEW_RECORDS).order_by("name")
    form = RegisterSearchForm(request.GET or None, pounds=pounds)
    qs = Impoundment.objects.for_user(request.user, Permission.VIEW_RECORDS)
    order = REGISTER_ORDER
    if form.is_valid():
        qs = filter_register(qs, form.cleaned_data)
        order = register_order(form.cleaned_data)
    # The register's own order: by number, the latest first. An entry entered late
    # keeps its number, so the order of arrival would put 00001 after 00014. Searched
    # between dates, by arrival (register_order).
    page, next_cursor = keyset_page(
        qs.select_related("pound").only(*REGISTER_COLUMNS),
        order,
        after=request.GET.get("after"),
        size=REGISTER_PAGE,
    )
    params = request.GET.copy()
    params.pop("after", None)
    return render(
        request,
        "impounding/register.html",
        {
            "form": form,
            "search_fields": search_fields(form),
            "entries": page,
            "rows": register_rows(page),
            "next_cursor": next_cursor,
            "query": params.urlencode(),
            "is_first_page": not request.GET.get("after"),
            "by_arrival": order is not REGISTER_ORDER,
        },
    )


def _typed_animal_rows(post):
    try:
        total = min(int(post.get("animals-TOTAL_FORMS", 1)), 99)
    except ValueError:
        total = 1
    fields = ("species", "sex", "age_class", "colour", "marks", "ear_tag")
    return [{f: post.get(f"animals-{i}-{f}", "") for f in fields} for i in range(total)]


def _with_held_photos(request):
    """The POST and its files, with each animal's held photo put back where none was chosen."""
    data, files = request.POST.copy(), request.FILES.copy()
    for key in [k for k in data if k.startswith("animals-") and k.endswith("-photo_held")]:
        photo_key = key.removesuffix("_held")
        if photo_key in files or not data[key]:
            continue
        photo = held_uploads.take(data[key], request.user)
        if photo is None:
            data[key] = ""
        else:
            files[photo_key] = photo
    return data, files


def _hold_photos(formset, user):
    """Hold each sound photo of the formset for the next showing: the form again, or the
    check-your-answers page. False when a photo could not be read after all."""
    all_held = True
    for form in formset.forms:
        held_key = form.add_prefix("photo_held")
        photo = form.files.get(form.add_prefix("photo"))
        if photo is None or "photo" in form.errors:
            form.data[held_key] = ""
            continue
        try:
            form.data[held_key] = held_uploads.hold(photo, user, max_px=PHOTO_MAX_PX)
        except ValidationError as exc:  # a header that reads well over a body that does not
            form.data[held_key] = ""
            form.add_error("photo", exc.message_dict["photo"])
            all_held = False
            continue
        form.held_photo = photo.name
        kept = _("Kept: %(name)s. Choose another photo only to replace it.") % {"name": photo.name}
        form.fields["photo"].help_text = form["photo"].help_text = kept
    return all_held


def _entry_forms(request, pounds):
    now = timezone.localtime().replace(second=0, microsecond=0)
    data, files = _with_held_photos(request) if request.method == "POST" else (None, None)
    if data is not None and "use_owner" in data:
        data = use_suggested_owner(data)
    form = EntryForm(data, pounds=pounds, initial={"arrived_at": now, "seized_at": now})
    return form, AnimalFormSet(data, files, prefix="animals")


@require_permission(Permission.RECORD_IMPOUNDMENT)
def entry_new(request):
    """s.8 in two steps: the form, then check your answers (a legal record), then the entry."""
    pounds = (
        Pound.objects.for_user(request.user, Permission.RECORD_IMPOUNDMENT)
        .select_related("district")
        .order_by("name")
    )
    if not pounds:
        raise PermissionDenied
    form, formset = _entry_forms(request, pounds)
    page = {"form": form, "formset": formset}
    if request.method == "POST" and "add_animal" in request.POST:
        # Without JavaScript: one more blank animal row, keeping what was typed (not photos).
        form = EntryForm(initial=request.POST.dict(), pounds=pounds)
        rows = _typed_animal_rows(request.POST)
        formset = AnimalFormSet(initial=[*rows, {}], prefix="animals")
        return render(request, "impounding/entry_new.html", {"form": form, "formset": formset})
    if request.method != "POST":
        return render(request, "impounding/entry_new.html", page)
    valid = form.is_valid() and formset.is_valid()
    if not (valid and "confirm" in request.POST):
        valid = _hold_photos(formset, request.user) and valid
    if valid and "change" in request.POST:
        return render(request, "impounding/entry_new.html", page)
    if valid and "confirm" not in request.POST:
        owners = {
            "suggestions": suggestions(form, formset),
            "history": intake_history(form, formset),
        }
        return render(
            request, "impounding/entry_check.html", page | entry_answers(form, formset) | owners
        )
    if valid:
        data = dict(form.cleaned_data)
        pound = data.pop("pound")
        animals = [
            {k: v for k, v in f.cleaned_data.items() if k != "photo_held"}
            for f in formset.forms
            if f.cleaned_data
        ]
        try:
            entry = services.create_entry(pound=pound, by=request.user, animals=animals, **data)
        except ValidationError as exc:
            add_service_errors(form, exc)
            _hold_photos(formset, request.user)
        else:
            show_panel(
                request,
                title=_("Entered in the register as %(number)s.")
                % {"number": entry.register_number},
                reference=entry.register_number,
                document_url=reverse("impounding:entry_copy_pdf", args=[entry.pk]),
                document_label=_("Print the copy of the entry (PDF)"),
            )
            for warning in describe_warnings(entry.warnings):
                messages.warning(request, warning)
            return redirect(entry)
    return render(request, "impounding/entry_new.html", page)


def _pay_page(entry, statement):
    """The owner's pay page (docs/decisions/0085), for the keeper to read out or the owner to
    scan, while something is owed."""
    if statement is None or statement.total <= 0:
        return {}
    url = short_link(entry)
    return {"pay_url": url, "pay_qr": qr_svg(url)}


def _flag_awaiting_orders(animals, court_orders):
    """Each animal in the pound named in a court order awaiting its check carries that order
    (`awaiting_order`): the release waits for the check (docs/decisions/0056)."""
    awaiting = {
        a.pk: order
        for order in court_orders
        if order.status == CourtOrder.Status.AWAITING
        for a in order.animals_named.all()
    }
    for animal in animals:
        animal.awaiting_order = awaiting.get(animal.pk)


def _entry_releases(entry):
    """The entry's releases, each with the receipt that replaced its own, a cancellation waiting
    on it, and its deposit's application awaited."""
    releases = list(
        entry.releases.select_related("receipt__replaces", "deposit", "released_by")
        .prefetch_related("receipt__cancellations")
        .order_by("released_at")
    )
    replacements = {
        r.replaces_id: r for r in Receipt.objects.filter(replaces__release__impoundment=entry)
    }
    for release in releases:
        release.replaced_by = replacements.get(release.receipt_id)
        release.cancellation = next(
            (c for c in release.receipt.cancellations.all() if c.status == "pending"), None
        )
        deposit = getattr(release, "deposit", None)
        if deposit is not None:
            deposit.awaiting = services.deposit_awaiting_application(deposit)
    return releases


@require_permission(Permission.VIEW_RECORDS)
def entry(request, pk):
    entry = get_entry(request, pk)
    animals = list(
        entry.animals.select_related("release__receipt", "court_order", "dam")
        .prefetch_related("custody_events")
        .order_by("number")
    )
    for animal in animals:
        animal.impoundment = entry
    in_pound = [a for a in animals if a.state == AnimalState.IMPOUNDED]
    statement, tariff_problem = None, None
    if in_pound:
        try:
            statement = dues(in_pound)
        except TariffMissing as exc:
            tariff_problem = exc.messages[0]
    lines = {line.animal.pk: line for line in statement.lines} if statement else {}
    for animal in animals:
        animal.dues_line = lines.get(animal.pk)
    releases = _entry_releases(entry)
    user = request.user
    claims = list(entry.claims.exclude(status="rejected"))
    court_orders = list(
        entry.court_orders.select_related("verification").prefetch_related("animals_named")
    )
    _flag_awaiting_orders(animals, court_orders)
    return render(
        request,
        "impounding/entry.html",
        {
            "entry": entry,
            # Lost-cattle reports that may describe its animals (ADR 0079): one indexed read.
            "lost_matches": lost_candidates(entry, in_pound),
            "animals": animals,
            "in_pound": in_pound,
            "statement": statement,
            "dues_qr": dues_qr(entry, statement),
            "tariff_problem": tariff_problem,
            "online_payment": Payment.objects.filter(impoundment=entry).open().first(),
            **_pay_page(entry, statement),
            "warnings": describe_warnings(entry.warnings),
            "record": inspection_record(entry),
            "history": entry_history(entry, animals),
            # The owner the ear-tag registry named, for the keeper to confirm (ADR 0078).
            "suggestions": entry_suggestions(entry, in_pound, user),
            "sees_phones": sees_phones(user, entry.pound),
            "releases": releases,
            "complaints": entry.complaints.select_related("deposit").order_by("filed_on"),
            "court_orders": court_orders,
            "amendments": entry.amendments.select_related("by", "animal").order_by("at"),
            "owner_messages": messages_of(entry),
            "events": Event.objects.filter(impoundment=entry)
            .select_related("personal_fields")
            .order_by("at", "seq")
            .with_actors(),
            "can_record": has_permission(user, Permission.RECORD_IMPOUNDMENT, entry.pound),
            "can_release": has_permission(user, Permission.RELEASE_ANIMAL, entry.pound),
            "can_custody": has_permission(user, Permission.RECORD_CUSTODY, entry.pound),
            "can_approve": has_permission(user, Permission.APPROVE, entry.pound),
            "can_prepare": has_permission(user, Permission.PREPARE_ORDERS, entry.pound),
            "can_pay": has_permission(user, Permission.RECORD_PAYMENT, entry.pound),
            "can_pay_out": services.may_pay_from_till(user, entry.pound),
            "can_cancel": has_permission(user, Permission.PAY_FROM_TILL, entry.pound),
            "custody_kinds": CustodyEvent.Kind,
            "claims_standing": [c for c in claims if c.status == "standing"],
            "claim_upheld": next((c for c in claims if c.status == "upheld"), None),
            "can_decide_claims": services.may_decide_claims(user, entry.pound),
        },
    )


@require_permission(Permission.RECORD_IMPOUNDMENT)
def entry_amend(request, pk):
    entry = get_entry(request, pk, Permission.RECORD_IMPOUNDMENT)
    form = EntryAmendForm(request.POST or None, instance=entry)
    if form.is_valid():
        try:
            services.amend_entry(
                entry=entry,
                by=request.user,
                reason=form.cleaned_data["reason"],
                changes=form.changes(),
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request,
                _("The register entry was corrected. The original stays visible in its history."),
            )
            return redirect(entry)
    return render(request, "impounding/entry_amend.html", {"form": form, "entry": entry})


@require_permission(Permission.RECORD_IMPOUNDMENT)
def animal_amend(request, pk):
    animal = get_animal(request, pk, Permission.RECORD_IMPOUNDMENT)
    initial = {f: getattr(animal, f) for f in AMENDABLE_ANIMAL_FIELDS}
    form = AnimalAmendForm(request.POST or None, initial=initial)
    if form.is_valid():
        try:
            services.amend_entry(
                entry=animal.impoundment,
                animal=animal,
                by=request.user,
                reason=form.cleaned_data["reason"],
                changes=form.changes(),
                tag_confirmed=form.cleaned_data.get("tag_confirmed", False),
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request, _("Animal %(animal)s was corrected.") % {"animal": animal.reference}
            )
            return redirect(animal.impoundment)
    return render(request, "impounding/animal_amend.html", {"form": form, "animal": animal})
