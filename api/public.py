"""The public pages' data, without a token: document verification (/verify/) and the notice
board of unclaimed cattle (/notices/). No names, phones or residences, as on the pages."""

import re

from django.http import Http404
from django.utils.translation import gettext as _
from ninja import Query, Router

from accounts.models import IssuedDocument
from accounts.throttle import verify_rate_exceeded
from auctions import selectors

from .common import bad_cursor, dump, problem, with_etag
from .schemas import BoardAnimalOut, BoardPage, DocumentOut, Problem

router = Router(tags=["public"])
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
BOARD_CURSOR = re.compile(r"\d{4}-\d{2}-\d{2}\|\d{1,18}")


@router.get(
    "/verify/{code}/",
    auth=None,
    response={200: DocumentOut, 404: Problem, 429: Problem},
    url_name="verify",
    summary="Check a document's QR code",
)
def verify(request, code: str):
    if verify_rate_exceeded(request):
        return problem(429, _("Too many checks from this address: try again in a minute."))
    document = None
    if TOKEN.fullmatch(code):
        document = IssuedDocument.objects.select_related("district", "pound").filter(token=code)
        document = document.first()
    if document is None:
        raise Http404
    body = dump(
        DocumentOut,
        document,
        valid=document.is_valid(),
        revoked=document.revoked_at is not None,
        office=str(document.office_label),
    )
    return with_etag(request, body)


@router.get(
    "/board/",
    auth=None,
    response={200: BoardPage, 400: Problem},
    url_name="board",
    summary="Animals under a s.14 notice",
)
def board(request, after: Query[str | None] = None):
    if after and not BOARD_CURSOR.fullmatch(after):
        return bad_cursor()
    page = selectors.board_page(after=after)
    rows = []
    for row in page.rows:
        a, pound = row["animal"], row["animal"].impoundment.pound
        district = pound.district.label
        description = str(a.public_description)
        rows.append(
            dump(BoardAnimalOut, a, description=description, pound=pound.label, district=district)
        )
    next_url = f"{request.path}?after={page.next_cursor}" if page.next_cursor else None
    return with_etag(request, {"results": rows, "next": next_url})
