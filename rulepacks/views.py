"""The rule pack pages: which pack each district takes, the pack read in full, and what changed
between two versions (for reviewers). Read-only: a district's pack is chosen by the State's
administrator (`manage.py` or the service), not here."""

from django.http import Http404
from django.shortcuts import get_object_or_404, render

from accounts.decorators import require_permission
from accounts.models import District
from accounts.roles import Permission
from accounts.scoping import lookup
from kernel.views import keyset_page

from . import selectors
from .models import RulePack
from .services import district_pack_id

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
