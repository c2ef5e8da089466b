"""The treasury scroll's import (docs/decisions/0082): the office uploads the scroll, and sees
the lines that disagree with its challans."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from accounts.decorators import require_permission
from accounts.models import District
from accounts.roles import Permission
from accounts.scoping import visible_district_ids
from kernel.views import add_service_errors, keyset_page

from .. import scroll
from ..forms.treasury import ScrollUploadForm
from ..models import ScrollLine

FLAGGED_PAGE = 50


@require_permission(Permission.PREPARE_ORDERS)
def treasury_scroll(request):
    ids = visible_district_ids(request.user, Permission.PREPARE_ORDERS)
    if not ids:
        raise PermissionDenied
    districts = District.objects.filter(pk__in=ids).order_by("name")
    form = ScrollUploadForm(request.POST or None, request.FILES or None, districts=districts)
    if request.method == "POST" and form.is_valid():
        try:
            new = scroll.import_scroll(
                district=form.cleaned_data["district"],
                by=request.user,
                data=form.cleaned_data["file"].read(),
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            flagged = sum(1 for line in new if line.outcome in ScrollLine.FLAGGED)
            messages.success(
                request,
                _("Scroll imported: %(new)s new lines, %(flagged)s flagged.")
                % {"new": len(new), "flagged": flagged},
            )
            return redirect("office:treasury_scroll")
    lines, after = keyset_page(
        ScrollLine.objects.for_user(request.user, Permission.PREPARE_ORDERS).filter(
            outcome__in=ScrollLine.FLAGGED
        ),
        ("-scroll_date", "-pk"),
        after=request.GET.get("after"),
        size=FLAGGED_PAGE,
    )
    return render(
        request,
        "office/money/treasury_scroll.html",
        {"form": form, "lines": lines, "next_cursor": after},
    )
