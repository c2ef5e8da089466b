"""Deny by default: every URL pattern sends an anonymous visitor to the login page, except the
explicit allow-list of public pages."""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

# Public pages, by URL name. Adding a public page means adding it here, on purpose.
PUBLIC = {
    "login",
    "set_language",
    "verify",
    "signed_heads",  # the event log's latest signed heads, for anyone to keep (ADR 0058)
    "signed_checkpoint",  # the same, as the signed file
    "board",  # the public notice board of unclaimed cattle (s.14)
    "admin:login",  # the admin's own login form
    "admin:jsi18n",
    "auctions:board_photo",  # the photo of an animal on the board, and of no other
    "healthz",  # liveness, with no data
    "readyz",  # readiness: ok or fail per check, with no data
    "queuez",  # the worker's queue: ages, counts and stuck tasks' ids, with no data
    # The field app's shell, manifest, worker and catalogues: no data; its records go through
    # the API with the phone's device token (ADR 0073).
    "field_app",
    "field_manifest",
    "field_worker",
    "field_catalogue",
    # The payment gateway's server-to-server callback (its signature is the check) and the
    # browser's return from it, by the payment's unguessable token (ADR 0075).
    "payments:callback",
    "payments:return",
    # The owner's pay page, by the entry's short unguessable token (ADR 0085).
    "pay",
    # The API's schema and reference page (no data), and its two public reads (no names).
    "api:openapi-json",
    "api:openapi-view",
    "api:verify",
    "api:board",
    # The public's lost-cattle report: its form, code, check and confirmation (ADR 0079).
    "lost_report",
    "lost_code",
    "lost_check",
    "lost_done",
    # The owner stops or restarts the messages to a phone, proved by a code (ADR 0084).
    "optout",
    "optout_code",
    "optout_done",
    # The SMS gateways' delivery reports: public, refused (403) without the shared token.
    "messaging:dlr",
}
# The API's data routes answer without a token as an API does: 401 problem details, no redirect;
# a path under /api/v1/ that names nothing is a problem 404.
API_TOKEN_REQUIRED = {"api:entries", "api:entry", "api:entry_create", "api:entry_release"}
# The writes are asked with their own method: a GET of a write's path is ninja's 405.
API_POST_ONLY = {"api:entry_release", "api:pound_feeding", "api:animal_custody_event"}
API_POST_ONLY |= {"api:entry_photo"}  # the field app's writes (api.field)
API_TOKEN_REQUIRED |= {"api:field_reference"} | API_POST_ONLY
API_TOKEN_REQUIRED |= {  # unclaimed cattle and sales (api.unclaimed, api.unclaimed_sales)
    "api:reports",
    "api:report",
    "api:notices",
    "api:notice",
    "api:notice_pdf",
    "api:proclamations",
    "api:proclamation",
    "api:proclamation_photo",
    "api:auctions",
    "api:auction",
    "api:sales",
    "api:sale",
    "api:sale_certificate_pdf",
}
API_TOKEN_REQUIRED |= {  # receipts, deposits and photos (api.custody, api.entries)
    "api:animal_photo",
    "api:receipts",
    "api:receipt",
    "api:deposits",
    "api:deposit",
}
API_TOKEN_REQUIRED |= {  # the office's books and returns, tariffs (api.office, api.tariffs)
    "api:remittances",
    "api:remittance",
    "api:surplus",
    "api:surplus_deposit",
    "api:claims",
    "api:claim",
    "api:monthly_return",
    "api:district_return",
    "api:tariffs",
}
API_NOT_FOUND = {"api:index", "api:api-root", "api:not_found"}
# The writes take only POST: an anonymous POST is the same 401 problem (a GET is a 405).
API_WRITES = {"api:report_send", "api:proclamation_new", "api:remittance_confirm"}
# Stored files answer an anonymous visitor as they answer another district: 404, which says
# nothing of whether the file exists (a login redirect would).
NOT_FOUND_TO_ANONYMOUS = {
    "impounding:animal_photo",
    "impounding:release_signature",
    "impounding:court_order_scan",
    "auctions:proclamation_photo",
    "auctions:s16_signature",
}


def _walk(patterns, prefix="", namespace=None):
    for p in patterns:
        if isinstance(p, URLResolver):
            ns = p.namespace or namespace
            if p.namespace and namespace:
                ns = f"{namespace}:{p.namespace}"
            yield from _walk(p.url_patterns, prefix + str(p.pattern), ns)
        elif isinstance(p, URLPattern):
            name = f"{namespace}:{p.name}" if namespace and p.name else p.name
            yield prefix + str(p.pattern), name, p


def _concrete(route):
    """Turn a route or regex into a path with plausible values for its parameters."""
    route = route.lstrip("^").rstrip("$").replace("\\Z", "").replace("\\", "")
    route = re.sub(r"<int:\w+>", "1", route)
    route = re.sub(r"<uuid:\w+>", "00000000-0000-0000-0000-000000000000", route)
    route = re.sub(r"<(?:str|slug|path):\w+>|<\w+>", "x", route)
    route = re.sub(r"\(\?P<\w+>[^)]*\)", "AAAAAAAAAAAAAAAAAAAAAA", route)
    route = re.sub(r"\(\?:[^)]*\)\??", "", route)
    route = route.replace("?", "")
    return "/" + route


ALL = sorted({(route, name) for route, name, _ in _walk(get_resolver().url_patterns)})
API = API_TOKEN_REQUIRED | API_NOT_FOUND | API_WRITES
PROTECTED = [
    (route, name) for route, name in ALL if name not in PUBLIC | NOT_FOUND_TO_ANONYMOUS | API
]


def test_every_url_pattern_is_named():
    unnamed = [route for route, name in ALL if not name and not route.startswith("admin/")]
    assert unnamed == []


@pytest.mark.parametrize(("route", "name"), PROTECTED, ids=[r for r, _ in PROTECTED])
def test_anonymous_is_sent_to_login_unless_public(client, route, name):
    path = _concrete(route)
    response = client.get(path)
    if response.status_code == 404 and route.startswith("admin/"):
        return  # admin model pages that 404 on a dummy id still sit behind the admin login
    assert response.status_code == 302, f"{path} answered {response.status_code}"
    location = response["Location"]
    assert location.startswith(reverse("login")) or location.startswith(reverse("admin:login")), (
        f"{path} redirected to {location}"
    )


def test_allow_list_names_real_pages():
    assert PUBLIC | NOT_FOUND_TO_ANONYMOUS | API <= {name for _, name in ALL}


@pytest.mark.parametrize(
    ("route", "name"),
    [(r, n) for r, n in ALL if n in API],
    ids=[r for r, n in ALL if n in API],
)
def test_api_answers_anonymous_with_a_problem_not_a_redirect(client, route, name):
    method = client.post if name in API_POST_ONLY | API_WRITES else client.get
    response = method(_concrete(route))
    assert response.status_code == (401 if name in API_TOKEN_REQUIRED | API_WRITES else 404)
    assert response["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize("name", sorted(NOT_FOUND_TO_ANONYMOUS))
def test_stored_files_answer_anonymous_with_404(client, name):
    assert client.get(reverse(name, args=[1])).status_code == 404


def test_public_pages_answer_anonymous(client):
    assert client.get(reverse("login")).status_code == 200
    assert client.get(reverse("verify", args=["A" * 22])).status_code == 404  # unknown, not 302
