"""The confirmation panel (GOV.UK pattern, ADR 0030): after an action that issues a
document, the next page opens with what was done, its reference and a button to the document.

A view calls `show_panel(request, ...)` before it redirects; the page it redirects to shows the
panel once (base.html, through the `confirmation_panel` template tag).
"""

KEY = "confirmation_panel"


def show_panel(
    request, *, title, reference, document_url="", document_label="", reference_label=""
):
    """`reference_label` names the reference where it is not one ("Reference" otherwise)."""
    request.session[KEY] = {
        "title": str(title),
        "reference": str(reference),
        "reference_label": str(reference_label),
        "document_url": str(document_url),
        "document_label": str(document_label),
    }


def pop_panel(request):
    session = getattr(request, "session", None)
    return session.pop(KEY, None) if session is not None else None
