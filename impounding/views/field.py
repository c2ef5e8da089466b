"""The pound-keeper's field app (issue 22, ADR 0073): its shell, web manifest, service worker and
JavaScript catalogues. None of them holds a record: the app reads and writes through the API with
the phone's device token, kept in IndexedDB. So they are public to the login middleware, and a
web session that has expired never strands the outbox."""

import hashlib
import json
from functools import cache
from pathlib import Path

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.staticfiles import finders
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import get_template
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.csp import CSP
from django.utils.translation import gettext as _
from django.views.decorators.csp import csp_override
from django.views.decorators.http import require_GET
from django.views.i18n import JavaScriptCatalog

from impounding.models import (
    AgeClass,
    SeizerCapacity,
    SeizureBasis,
    Sex,
    Species,
    colour_suggestions,
)

# The shell's own files, in the order the page loads its scripts; all are precached.
SCRIPTS = [
    "vendor/idb/idb.umd.js",
    "js/field/store.js",
    "js/field/outbox.js",
    "js/field/photos.js",
    "js/field/forms.js",
    "js/field/screens.js",
    "js/field/app.js",
]
STYLES = [
    "fonts/fonts.css",
    "vendor/bootstrap/css/bootstrap.min.css",
    "css/app.css",
    "css/field.css",
]
FONTS = [
    "fonts/noto-sans-latin-400-normal.woff2",
    "fonts/noto-sans-latin-700-normal.woff2",
    "fonts/noto-sans-devanagari-devanagari-400-normal.woff2",
    "fonts/noto-sans-devanagari-devanagari-700-normal.woff2",
]
ICONS = ["field/icon.svg", "field/icon-192.png", "field/icon-512.png"]
# The ear-tag scanner for browsers without BarcodeDetector (static/vendor/zxing): not precached,
# as the pounds' Android phones have BarcodeDetector; the worker keeps it where they do not.
SCANNER = {"script": "vendor/zxing/barcode-detector.js", "wasm": "vendor/zxing/zxing_reader.wasm"}
WORKBOX = ["core", "routing", "strategies", "precaching", "expiration", "cacheable-response"]
# The catalogues the worker keeps: the app's two languages (issue 22).
CATALOGUE_LANGUAGES = ["en", "hi"]
TEMPLATES = ["field/app.html", "field/sw.js"]


def _digest(*parts):
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:16]


@cache
def _file_revisions():
    """Each static file's content digest, so a changed file is fetched again by the worker."""
    revisions = {}
    for name in SCRIPTS + STYLES + FONTS + ICONS:
        found = finders.find(name)
        revisions[name] = _digest(Path(found).read_bytes()) if found else "missing"
    return revisions


@cache
def _shell_revision():
    sources = [Path(get_template(t).origin.name).read_bytes() for t in TEMPLATES]
    return _digest(*sources, json.dumps(_file_revisions(), sort_keys=True).encode())


def _language():
    return translation.get_language() or "en"


def _choices(choices):
    return [{"value": v, "label": str(label)} for v, label in choices]


def _scanner():
    return {name: static(path) for name, path in SCANNER.items()}


# The app's page may compile WebAssembly (the ZXing scanner), and nothing else more than the
# site's policy allows: 'wasm-unsafe-eval' permits WebAssembly.instantiate, not eval().
APP_CSP = {
    **settings.SECURE_CSP,
    "script-src": [*settings.SECURE_CSP["script-src"], CSP.WASM_UNSAFE_EVAL],
}


@login_not_required
@require_GET
@csp_override(APP_CSP)
def app(request):
    """The app: one page with its screens, the same online and offline."""
    context = {
        "scripts": SCRIPTS,
        "styles": STYLES,
        "species": _choices(Species.choices),
        "sexes": _choices(Sex.choices),
        "ages": _choices(AgeClass.choices),
        "bases": _choices(SeizureBasis.choices),
        "capacities": _choices(SeizerCapacity.choices),
        "colours": colour_suggestions(),
        "catalogue": reverse("field_catalogue", args=[_language()]),
        "config": {
            "api": reverse("api:index"),
            "worker": reverse("field_worker"),
            "scope": reverse("field_app"),
            "pair": reverse("accounts:pair_device"),  # a device token made there pairs the phone
            "lang": _language(),
            "scanner": _scanner(),
            "species": {c["value"]: c["label"] for c in _choices(Species.choices)},
        },
    }
    return render(request, "field/app.html", context)


@login_not_required
@require_GET
def manifest(request):
    body = {
        "name": _("PoundAdmin field app"),
        "short_name": _("Pound"),
        "description": _("Seizures, feeding and custody recorded on the phone, sent when online."),
        "start_url": reverse("field_app"),
        "scope": reverse("field_app"),
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": "#0a3d91",
        "lang": _language(),
        "icons": [
            {"src": static("field/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
            {"src": static("field/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("field/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        ],
    }
    return JsonResponse(
        body, content_type="application/manifest+json", json_dumps_params={"ensure_ascii": False}
    )


@login_not_required
@require_GET
def worker(request):
    """The service worker, at /field/sw.js so that its scope is the app's. It is never cached by
    the browser's HTTP cache: a new revision of the shell must reach the phone."""
    revisions = _file_revisions()
    precache = [{"url": reverse("field_app"), "revision": _shell_revision()}]
    precache += [{"url": static(n), "revision": revisions[n]} for n in revisions]
    catalogues = [reverse("field_catalogue", args=[code]) for code in CATALOGUE_LANGUAGES]
    context = {
        "workbox": [static(f"vendor/workbox/workbox-{m}.prod.js") for m in WORKBOX],
        "store": [static(n) for n in SCRIPTS[:3]],
        "precache": json.dumps(precache),
        "catalogues": json.dumps(catalogues),
        "shell": json.dumps(reverse("field_app")),
        "reference": json.dumps(reverse("api:index") + "field/reference/"),
        "scanner": json.dumps(list(_scanner().values())),
    }
    response = render(request, "field/sw.js", context, content_type="text/javascript")
    response["Service-Worker-Allowed"] = reverse("field_app")
    response["Cache-Control"] = "no-cache"
    return response


@login_not_required
@require_GET
def catalogue(request, lang):
    """Django's JavaScript catalogue (domain djangojs) of one language, named in its URL so the
    worker keeps each language's apart."""
    if lang not in dict(settings.LANGUAGES):
        raise Http404
    with translation.override(lang):
        response: HttpResponse = JavaScriptCatalog.as_view(domain="djangojs")(request)
    return response
