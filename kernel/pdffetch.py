"""What a document's drawing may fetch (kernel.documents): apart, so that WeasyPrint is imported
only where a document is drawn."""

import functools
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

from django.conf import settings
from django.contrib.staticfiles import finders
from weasyprint.urls import URLFetcher


@functools.cache
def _static_roots():
    roots = [Path(d) for d in settings.STATICFILES_DIRS] + [Path(settings.STATIC_ROOT)]
    for finder in finders.get_finders():
        for storage in getattr(finder, "storages", {}).values():
            if getattr(storage, "location", None):
                roots.append(Path(storage.location))
    return tuple(root.resolve() for root in roots)


class AllowListFetcher(URLFetcher):
    """Fetches only what a document may contain: data: URIs (its own photos, signatures and QR
    codes, embedded by the code that draws it) and files under the static directories (fonts,
    style sheets). Never the network, never another file on the server."""

    def fetch(self, url, headers=None):
        scheme = url.split(":", 1)[0].lower()
        if scheme == "data":
            return super().fetch(url, headers)
        if scheme == "file":
            path = Path(url2pathname(urlsplit(url).path)).resolve()
            if any(path.is_relative_to(root) for root in _static_roots()):
                return super().fetch(url, headers)
        raise ValueError(f"not fetched for a document: {url[:80]}")
