"""The routes `scripts/bench` times, found rather than listed (ADR 0064).

Run inside Django, against one database. It walks the URL map (`get_resolver()`, recursively)
and the API's OpenAPI schema, and for each role signs in as the first user who holds it (the
public: nobody) and asks every route with GET once, through the test client:

- a route with URL arguments is asked with rows found in the database: for `pk` the model its
  URL's segment names ("entries/<pk>" a register entry, "receipts/<pk>" a receipt...), for any
  other argument the model with a field of that name, the newest row the role may see first,
  then the oldest; dates and formats get the last closed month, yesterday and each format;
- what answers 200 is timed, per role, with its query count and bytes;
- every other route is listed with the reason: a form's POST (GET answers 405), no row in the
  database, or what each role got (a redirect, 403, 404).

So a new page is timed by the next bench without anyone adding it, and a route that is not
timed is named, never left out silently (tests/test_bench.py holds that).
"""

import re
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import product

from django.apps import apps
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern
from django.utils import timezone

# The roles of accounts/roles.py, and the public (not signed in).
ROLES = ("keeper", "officer", "clerk", "magistrate", "auditor", "administrator", "public")
ROLE_OF = {
    "keeper": "pound_keeper",
    "officer": "police_officer",
    "clerk": "dm_clerk",
    "magistrate": "magistrate",
    "auditor": "auditor",
    "administrator": "administrator",
}
# Arguments whose model no segment names: (route, argument) -> "app.Model" or "app.Model.field".
# A route missing here is not skipped: it is tried with the guess, and listed with the reason
# when nothing answers.
NAMED_BY = {
    ("office:feeding_statement", "pk"): "accounts.Pound",
    ("office:money_trail", "pk"): "impounding.Impoundment",
    ("office:monthly_return", "pk"): "accounts.Pound",
    ("office:cash_book", "pk"): "accounts.Pound",
    ("office:prepared", "pk"): "django_tasks_database.DBTaskResult",
    ("office:prepared_file", "pk"): "django_tasks_database.DBTaskResult",
    ("accounts:staff_relatives", "pk"): "accounts.User",
    ("accounts:second_factor_reset", "pk"): "accounts.User",
    ("accounts:appointment_card", "pk"): "accounts.StaffAssignment",
    ("accounts:service_token_revoke", "pk"): "accounts.ApiToken",
    ("auctions:board_photo", "pk"): "impounding.Animal",
    ("auctions:report_send", "pk"): "impounding.Impoundment",
    ("auctions:s16_new", "pk"): "impounding.Impoundment",
    ("api GET /api/v1/verify/{code}/", "code"): "accounts.IssuedDocument.token",
}
# The URL map's prefix of the API, whose routes are timed as its schema's operations.
API_PREFIX = "/api/v1/"
# The Django admin, off in production (ADMIN_ENABLED): named, not timed.
ADMIN = "admin:"
ROWS_TRIED = 2  # the newest row the role sees, then the oldest
CANDIDATE_MODELS = 3


@dataclass
class Route:
    key: str  # the URL's name, or "api GET <path>"
    kind: str  # "page" or "api"
    path: str  # the path with its arguments as <name>
    args: tuple = ()  # the arguments, in the path
    query: tuple = ()  # an API operation's required query parameters
    token: bool = False  # an API operation that asks for a bearer token


@dataclass
class Found:
    """What the discovery found: the (route, role) pairs that answered 200, and the reason for
    each route that none did."""

    timed: list = field(default_factory=list)  # dicts: key, role, url, kind, queries, bytes, type
    untimed: dict = field(default_factory=dict)  # key -> reason
    routes: list = field(default_factory=list)


# --- The routes ---------------------------------------------------------------------------


def web_routes():
    """Every named route of the URL map, the API's own included (timed through its schema)."""

    def walk(patterns, prefix, namespace):
        for p in patterns:
            if isinstance(p, URLResolver):
                inner = ":".join(n for n in (namespace, p.namespace) if n) or None
                yield from walk(p.url_patterns, prefix + _shape(p.pattern), inner)
            elif isinstance(p, URLPattern):
                name = p.name or prefix + _shape(p.pattern)
                yield Route(
                    key=f"{namespace}:{name}" if namespace and p.name else name,
                    kind="page",
                    path="/" + prefix + _shape(p.pattern),
                )

    found = {}
    for route in walk(get_resolver().url_patterns, "", None):
        route.args = tuple(re.findall(r"<(\w+)>", route.path))
        found.setdefault(route.key, route)
    return list(found.values())


def _shape(pattern):
    """A pattern as a path with <name> for each argument, a regex's anchors dropped."""
    text = str(pattern)
    if not isinstance(pattern, RoutePattern):
        text = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<\1>", text).lstrip("^").rstrip("$")
        text = text.replace(".*", "")
    return re.sub(r"<(?:\w+:)?(\w+)>", r"<\1>", text)


def api_routes():
    """Every GET operation of the API's OpenAPI schema (the others write: listed apart)."""
    from api.urls import api

    schema = api.get_openapi_schema()
    routes, writes = [], []
    for path, operations in schema["paths"].items():
        for method, op in operations.items():
            key = f"api {method.upper()} {path}"
            if method != "get":
                writes.append(key)
                continue
            params = op.get("parameters", [])
            routes.append(
                Route(
                    key=key,
                    kind="api",
                    path=re.sub(r"\{(\w+)\}", r"<\1>", path),
                    args=tuple(p["name"] for p in params if p["in"] == "path"),
                    query=tuple(
                        p["name"] for p in params if p["in"] == "query" and p.get("required")
                    ),
                    token=bool(op.get("security")),
                )
            )
    return routes, writes


# --- The values of arguments ----------------------------------------------------------------


def _plain(text):
    return re.sub(r"\s*\(.*?\)", "", str(text)).lower().strip()


def models_named_by(segment):
    """The models a URL's segment names, the closest first: "entries" the register's entries,
    "receipt-cancellations" the receipt cancellations, "s16" the s.16 cases."""
    word = segment.lower().replace("-", " ")
    ranked = []
    for model in apps.get_models():
        opts = model._meta
        plural, single = _plain(opts.verbose_name_plural), _plain(opts.verbose_name)
        words = plural.split()
        if word in (plural, single, opts.model_name):
            ranked.append((0, model))
        elif word in (words[0], words[-1]) or word == words[0] + "s":
            ranked.append((1, model))
        elif opts.model_name.startswith(word.replace(" ", "")):
            ranked.append((2, model))
    return [m for _rank, m in sorted(ranked, key=lambda r: r[0])][:CANDIDATE_MODELS]


def models_with_field(name):
    return [
        (model, name)
        for model in apps.get_models()
        if any(f.name == name and f.concrete for f in model._meta.get_fields())
    ][:CANDIDATE_MODELS]


def _segment_before(path, arg):
    match = re.search(r"([\w-]+)/<" + arg + ">", path)
    return match.group(1) if match else None


def sources(route, arg):
    """[(model, field)] whose rows may fill `arg` of `route`."""
    named = NAMED_BY.get((route.key, arg))
    if named:
        app, model, *rest = named.split(".")
        return [(apps.get_model(app, model), rest[0] if rest else "pk")]
    if arg in ("pk", "id"):
        segment = _segment_before(route.path, arg)
        return [(m, "pk") for m in models_named_by(segment)] if segment else []
    by_name = models_named_by(arg)
    return [(m, "pk") for m in by_name] or models_with_field(arg)


def fixed_values():
    """Arguments that are not rows: the last closed month, yesterday, each format."""
    today = timezone.localdate()
    last = today.replace(day=1) - timedelta(days=1)
    return {
        "year": [last.year],
        "month": [last.month],
        "day": [(today - timedelta(days=1)).isoformat()],
        "fmt": ["pdf", "csv"],
    }


def rows(model, name, user):
    """Values of `name` from the newest and the oldest rows of `model` that `user` may see."""
    queryset = model._default_manager.all()
    if user is not None and hasattr(queryset, "for_user"):
        queryset = queryset.for_user(user)
    values = []
    for order in ("-pk", "pk"):
        value = queryset.order_by(order).values_list(name, flat=True).first()
        if value is not None and value not in values:
            values.append(value)
    return values[:ROWS_TRIED]


def candidates(route, user):
    """The addresses to try for `route` as `user`, and the reason when there is none."""
    fixed = fixed_values()
    choices, missing = [], []
    for arg in (*route.args, *route.query):
        if arg in fixed:
            choices.append(fixed[arg])
            continue
        values = []
        found = sources(route, arg)
        for model, name in found:
            values += [v for v in rows(model, name, user) if v not in values]
        if not values:
            labels = ", ".join(m._meta.label for m, _n in found) or "no model found"
            missing.append(f"{arg}: no row ({labels})")
        choices.append(values[: ROWS_TRIED * 2])
    if missing:
        return [], "; ".join(missing)
    urls = []
    for combo in product(*choices):
        values = dict(zip((*route.args, *route.query), combo, strict=True))
        path = route.path
        for arg in route.args:
            path = path.replace(f"<{arg}>", str(values[arg]), 1)
        query = "&".join(f"{q}={values[q]}" for q in route.query)
        urls.append(path + (f"?{query}" if query else ""))
    return urls, None


# --- Signing in -----------------------------------------------------------------------------


def role_users():
    """{role: the first active user who holds it (None for the public)}."""
    from accounts.models import StaffAssignment, User

    users = {"public": None}
    for role, value in ROLE_OF.items():
        held = StaffAssignment.objects.active().filter(role=value).order_by("user_id")
        pk = held.values_list("user_id", flat=True).first()
        users[role] = User.objects.get(pk=pk) if pk else None
    return users


def signed_in(user):
    """A test client signed in as `user` with the second factor given, as the tests do
    (tests/accounts/factories.py: verify_session), or anonymous."""
    from django_otp import DEVICE_ID_SESSION_KEY
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from accounts.twofactor import NO_FACTOR_KEY, has_second_factor, must_have_second_factor

    client = Client(raise_request_exception=False)  # a 500 is a reason, not the bench's end
    if user is None:
        return client
    client.force_login(user)
    session = client.session
    if must_have_second_factor(user) or has_second_factor(user):
        device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
        device = device or TOTPDevice.objects.create(user=user, name="bench", confirmed=True)
        session[DEVICE_ID_SESSION_KEY] = device.persistent_id
    else:
        session[NO_FACTOR_KEY] = user.pk
    session.save()
    return client


def api_token(user):
    """A bearer token of `user`'s, made for the bench (None for the public)."""
    from accounts.services import create_api_token

    if user is None:
        return None
    _token, secret = create_api_token(user=user, name="bench")
    return secret


# --- Asking ---------------------------------------------------------------------------------

WHY = {
    302: "redirects",
    401: "401",
    403: "403",
    404: "404",
    405: "405 (POST only: a form's action)",
    500: "500 (a server error: see the log)",
}


def ask(client, url, token):
    """(status, bytes, lines, content type, queries) of one GET, a streamed body read whole."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    queries = [0]

    def count(execute, sql, params, many, context):
        queries[0] += 1  # counted, not logged: a page of thousands is reported as it is
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        response = client.get(url, headers=headers)
        body = b"".join(response.streaming_content) if response.streaming else response.content
    kind = response.get("Content-Type", "").split(";")[0]
    return response.status_code, len(body), body.count(b"\n"), kind, queries[0]


def discover(users=None, clients=None, tokens=None):
    """Ask every route as every role; `Found` with what to time and why the rest is not."""
    users = users if users is not None else role_users()
    clients = clients or {r: signed_in(u) for r, u in users.items() if u or r == "public"}
    tokens = tokens if tokens is not None else {r: api_token(u) for r, u in users.items()}
    found = Found()
    api, writes = api_routes()
    prefix = API_PREFIX
    pages = [r for r in web_routes() if not r.path.startswith(prefix)]
    for route in web_routes():
        if route.path.startswith(prefix):
            found.untimed[route.key] = "an API route: timed as the schema's operations"
        elif route.key.startswith(ADMIN):
            found.untimed[route.key] = "the site admin, a superuser's repair tool (ADMIN_ENABLED)"
    pages = [r for r in pages if not r.key.startswith(ADMIN)]
    found.routes = [*pages, *api]
    for key in writes:
        found.untimed[key] = "an API write (not GET): not timed"
    for route in found.routes:
        outcomes = {}
        for role in ROLES:
            if role not in clients:
                outcomes[role] = "no such user"
                continue
            token = tokens.get(role) if route.kind == "api" and route.token else None
            outcomes[role] = _try(found, route, role, clients[role], users.get(role), token)
        if not any(o == 200 for o in outcomes.values()):
            found.untimed[route.key] = _reason(outcomes)
    return found


def _try(found, route, role, client, user, token):
    urls, missing = candidates(route, user)
    if missing:
        return missing
    statuses, formats = [], set()
    for url in urls:
        if _variant(route) and url.rsplit(".", 1)[-1] in formats:
            continue  # this format answered already, with another row
        status, size, lines, kind, queries = ask(client, url, token)
        if status == 200:
            found.timed.append(
                {
                    "key": route.key,
                    "label": f"{route.key} .{url.rsplit('.', 1)[-1]}"
                    if _variant(route)
                    else route.key,
                    "role": role,
                    "url": url,
                    "kind": _kind(route, kind),
                    "queries": queries,
                    "bytes": size,
                    "lines": lines,
                }
            )
            if not _variant(route):
                return 200
            formats.add(url.rsplit(".", 1)[-1])
            statuses.append(200)
        else:
            statuses.append(status)
    return 200 if 200 in statuses else statuses[0]


def _variant(route):
    """A route with a format argument is timed in each format (a PDF and a CSV)."""
    return "fmt" in route.args


def _kind(route, content_type):
    if content_type == "application/pdf":
        return "document"
    if content_type == "text/csv":
        return "export"
    return route.kind


def _reason(outcomes):
    """What each role got, the roles that got the same named together."""
    grouped = {}
    for role, outcome in outcomes.items():
        text = WHY.get(outcome, str(outcome)) if isinstance(outcome, int) else outcome
        grouped.setdefault(text, []).append(role)
    if len(grouped) == 1:
        return f"every role: {next(iter(grouped))}"
    return "; ".join(f"{text}: {', '.join(roles)}" for text, roles in grouped.items())


def session_cookies(clients):
    """{role: the session cookie of its client}, for the HTTP client of the bench."""
    name = settings.SESSION_COOKIE_NAME
    return {r: c.cookies[name].value for r, c in clients.items() if name in c.cookies}
