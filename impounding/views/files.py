"""The pound's stored files, each served only to who may read the record it belongs to.

Anyone else gets a 404, as for the record itself: anonymous visitors, another district's staff,
and roles that do not read the register. The file is streamed or presigned (kernel/files.py).
"""

from django.contrib.auth.decorators import login_not_required
from django.shortcuts import get_object_or_404

from accounts.roles import Permission
from kernel.files import serve_stored

from ..models import CourtOrder, Release
from ..selectors import animals_readable_by


@login_not_required
def animal_photo(request, pk):
    animal = get_object_or_404(animals_readable_by(request.user), pk=pk)
    return serve_stored(animal.photo, download_name=f"animal-{animal.pk}")


@login_not_required
def release_signature(request, pk):
    readable = Release.objects.for_user(request.user, Permission.VIEW_RECORDS)
    release = get_object_or_404(readable, pk=pk)
    return serve_stored(release.signature, download_name=f"release-{release.pk}-signature")


@login_not_required
def court_order_scan(request, pk):
    readable = CourtOrder.objects.for_user(request.user, Permission.VIEW_RECORDS)
    order = get_object_or_404(readable, pk=pk)
    return serve_stored(order.scan, download_name=f"court-order-{order.pk}")
