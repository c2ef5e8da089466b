"""The rule pack pages: which pack each district takes, the pack read in full, what changed
between two versions (for reviewers), and the administrator's choice of a district's pack, with
its answer checked before it is made (GOV.UK's check answers)."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from accounts.decorators import require_permission
from accounts.models import District
from accounts.roles import Permission
from accounts.scoping import lookup
from kernel.confirmations import show_panel
from kernel.views import add_service_errors, keyset_page

from . import selectors
from .forms import ChoosePackForm
from .models import RulePack
from .schema import PackInvalid
from .services import choose_pack, district_pack_id, packs_for

PAGE = 50


@require_permission(Permission.VIEW_REPORTS)
def index(request):
    districts = District.objects.for_user(request.user, Permission.VIEW_REPORTS)
    rows, cursor = keyset_page(
        districts.select_related("state"), ["pk"], after=request.GET.get("after"), size=PAGE
    )
    chosen = selectors.in_force(rows)
    central = RulePack.objects.latest_of("central")
    packs = list(RulePack.objects.order_by("code", "effective_from", "loaded_at"))
    return render(
        request,
        "rulepacks/index.html",
        {
            "rows": [(d, chosen.get(d.pk, central)) for d in rows],
            "cursor": cursor,
            "packs": packs,
        },
    )


@require_permission(Permission.VIEW_REPORTS)
def district(request, pk):
    district = lookup(request.user, District.objects, pk, Permission.VIEW_REPORTS)
    row = get_object_or_404(RulePack, pk=district_pack_id(district.pk))
    return render(
        request,
        "rulepacks/pack.html",
        {"district": district, "row": row, **selectors.page(row)},
    )


@require_permission(Permission.VIEW_REPORTS)
def diff(request):
    """Two loaded versions side by side: only the rules that differ. Packs are published law,
    not a district's records: anyone who reads reports may compare them."""
    try:
        old = RulePack.objects.get(pk=int(request.GET.get("old", "")))
        new = RulePack.objects.get(pk=int(request.GET.get("new", "")))
    except (ValueError, RulePack.DoesNotExist):
        raise Http404 from None
    return render(
        request,
        "rulepacks/diff.html",
        {"old": old, "new": new, "changes": selectors.diff(old, new)},
    )


@require_permission(Permission.MANAGE_STAFF)
def choose(request, pk):
    """The State's administrator chooses the district's pack: the choice, then its answer
    checked beside the pack in force (with the rules that differ), then made."""
    district = lookup(request.user, District.objects.select_related("state"), pk,
                      Permission.MANAGE_STAFF)  # fmt: skip
    current = get_object_or_404(RulePack, pk=district_pack_id(district.pk))
    form = ChoosePackForm(
        request.POST or None, packs=packs_for(district), initial={"pack": current.pk}
    )
    context = {"district": district, "current": current, "form": form}
    if request.method == "POST" and form.is_valid():
        chosen = form.cleaned_data["pack"]
        if "change" in request.POST:  # back from the check to the choice, as it was made
            return render(request, "rulepacks/choose.html", context)
        if "confirm" not in request.POST:
            context["changes"] = selectors.diff(current, chosen)
            context["chosen"] = chosen
            return render(request, "rulepacks/choose_check.html", context)
        try:
            choose_pack(
                district=district,
                pack=chosen,
                by=request.user,
                idempotency_key=form.cleaned_data["idempotency_key"],
            )
        except (PackInvalid, ValidationError) as exc:
            message = exc.messages[0] if isinstance(exc, ValidationError) else str(exc)
            add_service_errors(form, ValidationError({"pack": message}))
        else:
            show_panel(
                request,
                title=_("%(district)s now takes %(pack)s") % {
                    "district": district.label, "pack": chosen.title},
                reference=f"{chosen.code} {chosen.version}",
            )  # fmt: skip
            messages.success(
                request, _("Entries already made keep the version they were made under.")
            )
            return redirect("rulepacks:district", district.pk)
    return render(request, "rulepacks/choose.html", context)
