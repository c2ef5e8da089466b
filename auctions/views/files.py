"""The sales floor's stored files: proclamation photos and s.16 signatures, for who may read the
record (404 to anyone else), and the public board's photos, for animals under notice only."""

from django.contrib.auth.decorators import login_not_required
from django.shortcuts import get_object_or_404

from accounts.roles import Permission
from kernel.files import serve_stored

from .. import selectors
from ..models import Proclamation, S16Case


@login_not_required
def proclamation_photo(request, pk):
    readable = Proclamation.objects.for_user(request.user, Permission.VIEW_RECORDS)
    proclamation = get_object_or_404(readable, pk=pk)
    return serve_stored(proclamation.photo, download_name=f"proclamation-{proclamation.pk}")


@login_not_required
def s16_signature(request, pk):
    case = get_object_or_404(S16Case.objects.for_user(request.user, Permission.VIEW_RECORDS), pk=pk)
    return serve_stored(case.signature, download_name=f"s16-{case.pk}-signature")


@login_not_required
def board_photo(request, pk):
    """The board is public, and so is the photo of an animal on it; no other photo is."""
    animal = get_object_or_404(selectors.board_animals().exclude(photo=""), pk=pk)
    return serve_stored(animal.photo, download_name=f"notice-animal-{animal.pk}")
