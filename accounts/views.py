from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Exists, OuterRef, Prefetch
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django_otp.plugins.otp_totp.models import TOTPDevice

from kernel.documents import kept_drawing, pdf_response, verification_context
from kernel.languages import documents_for
from kernel.views import add_service_errors

from . import services
from .decorators import require_permission
from .forms import ApiTokenForm, LoginForm, ReissueForm, RelativeEditForm, RelativeForm
from .models import (
    ApiToken,
    DeclaredRelative,
    IssuedDocument,
    PoundVillage,
    StaffAssignment,
    User,
)
from .relatives import staff_in_reach
from .roles import Permission
from .scoping import has_permission, visible_pound_ids
from .selectors import pounds_with_villages
from .throttle import address_locked_out, verify_rate_exceeded
from .training import day_of
from .twofactor import has_second_factor, recovery_codes_left, second_factor_not_required


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    form_class = LoginForm
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        if address_locked_out(request):  # many user names tried from one address
            return lockout(request)
        return super().post(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        # Sent here from a page whose session had ended (kernel.login): say why.
        context = super().get_context_data(**kwargs)
        context["session_ended"] = self.request.GET.get("expired") == "1"
        context["idle_minutes"] = settings.SESSION_COOKIE_AGE // 60
        return context

    def form_valid(self, form):
        response = super().form_valid(form)
        # Carry the language the user chose on a previous visit (any device) into this session.
        lang = form.get_user().preferred_language
        if lang:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                lang,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                samesite=settings.LANGUAGE_COOKIE_SAMESITE,
                secure=settings.LANGUAGE_COOKIE_SECURE,
            )
        return response


login_view = login_not_required(LoginView.as_view())


@login_not_required
def admin_login(request, extra_context=None):
    """The admin has no sign-in form of its own: it signs in through the app's login, with its
    throttles. Someone signed in who is not staff is refused, not sent round again."""
    if request.user.is_authenticated:
        raise PermissionDenied
    return redirect_to_login(request.GET.get("next") or reverse("admin:index"))


@second_factor_not_required  # the code page keeps its session alive too
def session_ping(request):
    """Keeps the session of someone typing in a long form alive (static/js/session.js): a
    request saves the session, and so moves its end, once its last save is a minute old
    (kernel.login.keep_alive); the script pings every few minutes. Signed out, the middleware
    sends the login page instead, and the script knows the session has ended."""
    return HttpResponse(status=204)


def lockout(request, original_response=None, credentials=None):
    """django-axes lockout page: the same wording for every user name, and when to try again."""
    try_again_at = timezone.now() + settings.AXES_COOLOFF_TIME
    return render(
        request,
        "accounts/lockout.html",
        {
            "try_again_at": try_again_at,
            "minutes": int(settings.AXES_COOLOFF_TIME / timedelta(minutes=1)),
        },
        status=429,
    )


@login_not_required
@require_POST
def set_language(request):
    """Switch between English and Hindi; the choice persists in a cookie and on the account."""
    lang = request.POST.get("language", "")
    next_url = request.POST.get("next") or "/"
    if not url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        next_url = "/"
    response = HttpResponseRedirect(next_url)
    if lang in dict(settings.LANGUAGES):
        translation.activate(lang)
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            lang,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            secure=settings.LANGUAGE_COOKIE_SECURE,
        )
        if request.user.is_authenticated and request.user.preferred_language != lang:
            request.user.preferred_language = lang
            request.user.save(update_fields=["preferred_language"])
    return response


@require_permission(Permission.VIEW_RECORDS)
def jurisdiction(request):
    """The pounds a user can see, each with its police station and the villages it serves."""
    # The day of the user's pounds (ADR 0080): a training district's staff see its clock's.
    today = day_of(visible_pound_ids(request.user))
    pounds = pounds_with_villages(request.user, today).prefetch_related(
        Prefetch(
            "village_links",
            queryset=PoundVillage.objects.in_force(today).select_related("village"),
            to_attr="current_links",
        )
    )
    return render(request, "accounts/jurisdiction.html", {"pounds": pounds, "today": today})


def profile(request):
    assignments = (
        StaffAssignment.objects.filter(user=request.user)
        .select_related("state", "district", "police_station", "pound")
        .order_by("-valid_from")
    )
    context = {
        "assignments": assignments,
        "has_second_factor": has_second_factor(request.user),
        "codes_left": recovery_codes_left(request.user),
        "may_pair": has_permission(request.user, Permission.RECORD_IMPOUNDMENT),
    }
    return render(request, "accounts/profile.html", context)


@require_permission(Permission.MANAGE_STAFF)
def staff(request):
    today = timezone.localdate()  # appointments are real people's: real time (ADR 0080)
    has_factor = TOTPDevice.objects.filter(user=OuterRef("pk"), confirmed=True)
    users = User.objects.order_by("username").annotate(has_factor=Exists(has_factor))
    users = users.prefetch_related(
        Prefetch(
            "assignments",
            queryset=StaffAssignment.objects.in_force(today).select_related(
                "state", "district", "police_station", "pound"
            ),
            to_attr="current_assignments",
        )
    )
    # Whose declared relatives (s.19) this administrator keeps: the others' are a 404 to him.
    in_reach = set(User.objects.filter(staff_in_reach(request.user)).values_list("pk", flat=True))
    context = {"users": users, "admin_enabled": settings.ADMIN_ENABLED, "in_reach": in_reach}
    return render(request, "accounts/staff.html", context)


def appointment_card(request, pk):
    """The appointment card PDF: for one's own appointment, or any, for staff administrators."""
    qs = StaffAssignment.objects.select_related(
        "user", "state", "district__state", "police_station__district", "pound__district"
    )
    if not has_permission(request.user, Permission.MANAGE_STAFF):
        qs = qs.filter(user=request.user)
    assignment = get_object_or_404(qs, pk=pk)
    document = services.appointment_card_for(assignment=assignment, by=request.user)
    context = {"assignment": assignment, **verification_context(document)}
    # In English and the language of the appointment's district (ADR 0069), whoever reads it.
    place = assignment.district or assignment.pound or assignment.police_station
    district_id = getattr(place, "district_id", getattr(place, "pk", None))
    with documents_for(district_id):
        pdf = kept_drawing("appointment-card", "pdf/appointment_card.html", context, language="en")
    return pdf_response(pdf, f"{document.number}.pdf")


@login_not_required
def verify(request, token):
    """Public check of a document's QR code: what it is and whether it still stands. No names."""
    if verify_rate_exceeded(request):
        return HttpResponse(
            _("Too many checks from this address: try again in a minute."),
            status=429,
            content_type="text/plain; charset=utf-8",
        )
    document = (
        IssuedDocument.objects.select_related("district", "pound", "replaces", "replaced_by")
        .filter(token=token)
        .first()
    )
    if document is None:
        # The public has no jurisdiction: say plainly that no document has this code.
        return render(request, "verify_unknown.html", status=404)
    return render(
        request,
        "verify.html",
        {
            "document": document,
            "valid": document.is_valid(),
            "today": timezone.localdate(),
            # Files it was issued as before a reissue: a paper printed from one still checks.
            "earlier_files": document.earlier_files.all(),
            "may_reissue": request.user.is_authenticated
            and services.may_reissue(request.user, document),
        },
    )


def reissue(request, token):
    """Draw a kept document again, with a reason: the old file stays, listed on /verify/."""
    document = get_object_or_404(
        IssuedDocument.objects.select_related("district", "pound"), token=token
    )
    if not services.may_reissue(request.user, document):
        raise Http404  # a document of another jurisdiction: as if there were none
    form = ReissueForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.reissue_document(
                document=document, by=request.user, reason=form.cleaned_data["reason"]
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(
                request,
                _("%(number)s reissued: its next download draws it again.")
                % {"number": document.number},
            )
            return redirect(document)
    return render(request, "accounts/reissue.html", {"document": document, "form": form})


def api_tokens(request):
    """The user's own API tokens: make one (its secret shown once, on this answer), see when
    each was last used, revoke one."""
    form = ApiTokenForm(request.POST or None)
    secret = None
    if request.method == "POST" and form.is_valid():
        try:
            token, secret = services.create_api_token(user=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            if secret is None:  # the same form sent again: its secret was shown the first time
                messages.info(request, _("That token was already made; its secret was shown once."))
                return redirect("accounts:api_tokens")
            form = ApiTokenForm()
    tokens = ApiToken.objects.filter(user=request.user)
    return render(
        request,
        "accounts/api_tokens.html",
        {
            "form": form,
            "tokens": tokens,
            "secret": secret,
        },
    )


@require_POST
def api_token_revoke(request, pk):
    token = get_object_or_404(ApiToken.objects.filter(user=request.user), pk=pk)
    services.revoke_api_token(token=token, by=request.user)
    messages.success(request, _("Token “%(name)s” revoked.") % {"name": token.name})
    return redirect("accounts:api_tokens")


# --- Declared relatives (s.19) -------------------------------------------------------------------


def relatives(request):
    """The user's own declaration of her household members and close relatives (s.19)."""
    return _declaration_page(request, request.user)


@require_permission(Permission.MANAGE_STAFF)
def staff_relatives(request, pk):
    """A member of staff's declaration, kept by an administrator of her district."""
    person = get_object_or_404(User.objects.filter(staff_in_reach(request.user)).distinct(), pk=pk)
    return _declaration_page(request, person)


def _declaration_page(request, person):
    form = RelativeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            relative = services.declare_relative(user=person, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request, _("%(name)s added to the declaration.") % {"name": relative.name}
            )
            return redirect(request.path)
    context = {
        "person": person,
        "own": person.pk == request.user.pk,
        "relatives": DeclaredRelative.objects.filter(user=person),
        "form": form,
    }
    return render(request, "accounts/relatives.html", context)


def relative_edit(request, pk):
    """Correct one declared relative, or withdraw him from the declaration."""
    relative = get_object_or_404(
        DeclaredRelative.objects.for_user(request.user).select_related("user"), pk=pk
    )
    back = (
        reverse("accounts:relatives")
        if relative.user_id == request.user.pk
        else reverse("accounts:staff_relatives", args=[relative.user_id])
    )
    form = RelativeEditForm(request.POST or None, instance=DeclaredRelative.objects.get(pk=pk))
    if request.method == "POST" and "remove" in request.POST:
        services.remove_relative(relative=relative, by=request.user)
        messages.success(
            request, _("%(name)s withdrawn from the declaration.") % {"name": relative.name}
        )
        return redirect(back)
    if request.method == "POST" and form.is_valid():
        try:
            services.amend_relative(relative=relative, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, _("The declaration is corrected."))
            return redirect(back)
    context = {"relative": relative, "form": form, "back": back}
    return render(request, "accounts/relative_edit.html", context)
