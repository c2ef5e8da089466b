"""The API's reference page renders under the project's CSP from the vendored Swagger UI: the
`page` fixture fails on any console error (a CSP refusal, a missing asset)."""

import json
from urllib.request import urlopen

import pytest

pytestmark = pytest.mark.browser


def test_api_reference_lists_every_operation(page, live_server):
    outside = []
    page.on(
        "request",
        lambda r: outside.append(r.url) if not r.url.startswith(live_server.url) else None,
    )
    page.goto(f"{live_server.url}/api/v1/docs")
    page.wait_for_selector(".swagger-ui .opblock")
    with urlopen(f"{live_server.url}/api/v1/openapi.json") as answer:
        paths = json.load(answer)["paths"]
    operations = sum(len(methods) for methods in paths.values())
    assert operations >= 7
    assert page.locator(".swagger-ui .opblock").count() == operations
    assert outside == []
