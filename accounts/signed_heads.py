"""The public page of the event log's signed heads (/verify/): the latest signed checkpoint,
every pound's chain's link number and hash as signed, and the signed file itself, so anyone can
keep a copy and later hold the office to it (docs/decisions/0058-hourly-checkpoints.md).

One row holds the latest checkpoint (`kernel.PublishedCheckpoint`, written when one is signed):
the page reads it and the pounds' names, never the checkpoints' history nor the event log."""

import base64

from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpResponse
from django.shortcuts import render

from kernel import anchors
from kernel.anchors import SignedCheckpoint
from kernel.models import PublishedCheckpoint

from .models import Pound


def _latest():
    row = PublishedCheckpoint.objects.filter(pk=1).first()
    return row, SignedCheckpoint.from_file(row.text) if row else None


def _rows(checkpoint):
    """(label, chain, seq, hash) of each chain the checkpoint signed, the pounds' first."""
    pounds, districts = {}, {}
    for pound in Pound.objects.select_related("district"):
        pounds[f"pound:{pound.pk}"] = pound.label
        districts[f"district:{pound.district_id}"] = pound.district.label
    rows = [
        (pounds.get(chain) or districts.get(chain) or chain, chain, seq, digest)
        for chain, (seq, digest) in checkpoint.heads.items()
    ]
    return sorted(rows, key=lambda row: (not row[1].startswith("pound:"), row[0], row[1]))


def _public_key_text():
    """The key the checkpoints verify with, as CHECKPOINT_PUBLIC_KEY gives it (base64)."""
    key = anchors.public_key()
    return base64.b64encode(anchors.raw_public(key)).decode() if key else ""


@login_not_required
def signed_heads(request):
    row, checkpoint = _latest()
    return render(
        request,
        "verify_heads.html",
        {
            "checkpoint": checkpoint,
            "rows": _rows(checkpoint) if checkpoint else [],
            "public_key": _public_key_text(),
        },
    )


@login_not_required
def signed_file(request):
    """The latest signed checkpoint as signed: its JSON, to keep and check with the public key."""
    row = PublishedCheckpoint.objects.filter(pk=1).first()
    if row is None:
        raise Http404
    response = HttpResponse(row.text, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="checkpoint-{row.name}"'
    return response
