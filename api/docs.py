"""The API's reference page: Swagger UI from static/vendor/swagger-ui/ (no CDN), started by
static/js/api-docs.js (no inline script: the CSP allows none)."""

from django.shortcuts import render
from ninja.openapi.docs import DocsBase


class VendoredSwagger(DocsBase):
    def render_page(self, request, api, **kwargs):
        return render(
            request, "api/docs.html", {"api": api, "schema_url": self.get_openapi_url(api, kwargs)}
        )
