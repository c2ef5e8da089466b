"""Every action a role may take is reachable by clicking, in at most three clicks from its home
page, and no link a role is shown leads to a refusal (ADR 0032).

The walk signs in as each of the demo's Lucknow users, opens the home page, and follows every
link on it, then every link on those pages (at most a few pages of each kind, so the register's
hundred entries count as one), and so on: a link found on a page two clicks from home is a third
click. Each URL name the role's permissions allow must turn up, unless it is in `NEEDS_A_STATE`,
which says why the demo has no record in that state. `ACTIONS` must name every route, so a new
page cannot be left unreachable without this test failing.
"""

from html.parser import HTMLParser
from urllib.parse import urlencode, urlsplit

import pytest
from django.test import override_settings
from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, resolve, reverse

from accounts import todos
from accounts.models import User
from accounts.roles import ROLE_PERMISSIONS, Permission, Role
from demo import register as register_demo
from demo import staff as demo
from demo import unclaimed as auction_demo
from kernel.formatting import inr, lakh
from office import statements
from office.deadlines import run as run_deadlines
from office.views.home import TASKS

P = Permission
CLICKS = 3
PAGES_OF_A_KIND = 30

# Routes the walk does not judge: signing in and out, the public pages, the site admin.
OUTSIDE = {
    "login",
    "logout",
    "set_language",
    "verify",
    "signed_heads",  # the event log's signed heads (tests/kernel/test_hourly_checkpoints.py)
    "signed_checkpoint",
    "board",
    # The public's lost-cattle report, linked from every page's footer (ADR 0079;
    # tests/browser/test_lost_reports.py walks it).
    "lost_report",
    "lost_code",
    "lost_check",
    "lost_done",
    # The owner's opting out, linked from every page's footer (ADR 0084;
    # tests/browser/test_opt_out_screens.py walks it), and the gateways' delivery reports,
    # called by the gateway, not a page.
    "optout",
    "optout_code",
    "optout_done",
    "messaging:dlr",
    # The owner's pay page, reached from the owner's SMS (tests/browser/test_pay_page.py).
    "pay",
    "password_change_done",
    "home",
    "accounts:session_ping",  # called by the page's script, not a page (static/js/session.js)
    "healthz",  # the load balancer's checks, public and without data
    "readyz",
    "queuez",  # the monitoring's check of the worker's queue
    # Stored files, shown inside the pages that name them (photos as images); who may open each
    # is tested in tests/kernel/test_stored_files.py.
    "impounding:animal_photo",
    "impounding:release_signature",
    "impounding:court_order_scan",
    "auctions:proclamation_photo",
    "auctions:s16_signature",
    "auctions:board_photo",
    # Asked of the worker by a POST button on the returns page, then opened from its answer
    # (tests/browser/test_returns_page.py walks it).
    "office:prepare",
    "office:prepared",
    "office:prepared_file",
    # Streamed in the request for scripts and `make bench`; people ask the worker instead.
    "office:export_ledger",
    "office:export_register",
    "office:monthly_return",
    # Opened from a document's check page (its QR code), which the walk does not open; who may
    # reissue is tested in tests/accounts/test_reissue.py.
    "accounts:reissue",
    # A POST button beside each token on the tokens page (tests/api/test_api.py).
    "accounts:api_token_revoke",
    "accounts:service_token_revoke",  # the same, on the service tokens page
    # A check page beside each paired phone on its list (tests/accounts/test_device_tokens.py).
    "accounts:device_token_revoke",
    # A POST button beside each bidder on the auction's page (tests/auctions/test_s19_relatives.py).
    "auctions:bidder_recheck",
    # The second factor after the password (the sign-in's second step), the recovery codes shown
    # once after setting up, and the account page's POST button for new ones
    # (tests/accounts/test_second_factor.py, tests/browser/test_second_factor.py).
    "accounts:second_factor",
    "accounts:second_factor_codes",
    "accounts:second_factor_new_codes",
    # The passkey's answer at the sign-in's second step, posted by the page's script
    # (tests/accounts/test_passkeys.py, tests/browser/test_passkeys.py).
    "accounts:second_factor_passkey",
    # Passkeys come beside an authenticator app (ADR 0061): the account page links them for a
    # user who has one, and each passkey has its remove button (tests/accounts/test_passkeys.py).
    "accounts:passkeys",
    "accounts:passkey_remove",
    # Online payments (ADR 0075): a POST button on the entry's page sends the browser to the
    # gateway, which sends it back to the return page and calls the callback itself
    # (tests/payments/).
    "payments:start",
    "payments:return",
    "payments:callback",
    # The field app (ADR 0073): public, opened on the phone from its pairing page; its worker,
    # manifest and catalogues are fetched by the app (tests/browser/test_field_app.py).
    "field_app",
    "field_manifest",
    "field_worker",
    "field_catalogue",
    # A training district's page (ADR 0080), linked from the TRAINING banner on every page of
    # that district's staff; the demo's Lucknow has none (tests/browser/test_training.py).
    "accounts:training",
}


def _api_data(name):
    return name.startswith("api:") and name != "api:openapi-view"


# The permission each route asks for, where the view checks it on the record rather than by
# its decorator (`required_permission`), or asks for none.
UNDECORATED = {
    "password_change": None,
    "accounts:profile": None,
    "accounts:api_tokens": None,
    "accounts:relatives": None,  # each member of staff's own declaration (s.19), from her account
    "accounts:relative_edit": None,  # her own, or one she keeps as administrator (for_user)
    "accounts:second_factor_setup": None,  # anyone may add one, from the account page
    "api:openapi-view": None,  # public, linked from the tokens page
    "accounts:appointment_card": P.DOWNLOAD_OWN_CARD,
    "impounding:complaint_new": P.PREPARE_ORDERS,
    "impounding:complaint_decide": P.APPROVE,
    "impounding:deposit_apply": P.APPROVE,
    "impounding:deposit_refund": P.APPROVE,
    "auctions:reports": P.VIEW_RECORDS,
    "auctions:report": P.VIEW_RECORDS,
    "auctions:notice_post": P.HANDLE_UNCLAIMED,
    "auctions:proclamation_new": P.HANDLE_UNCLAIMED,
    "office:todos": None,
    "impounding:claim_new": P.RELEASE_ANIMAL,
    "impounding:claims_decide": P.PREPARE_ORDERS,
    "impounding:receipt_cancel": P.PAY_FROM_TILL,
    "impounding:receipt_cancellation_decide": P.PREPARE_ORDERS,
}
# Routes that need, besides their decorator's permission, one of these: a remittance leaves the
# pound's till (the keeper's, or the office's on a written authority).
ALSO_NEEDS = {"office:remittance_new": {P.PAY_FROM_TILL, P.PAY_FROM_TILL_ON_AUTHORITY}}

# Actions only offered on a record in a state the demo's Lucknow data does not hold, and why.
NEEDS_A_STATE = {
    "auctions:bidder_override": "a bidder refused under s.19",
    "impounding:complaint_decide": "a complaint against a s.15 deposit",
    "impounding:deposit_apply": "a deposit whose complaint was upheld",
    "impounding:deposit_refund": "a deposit whose complaint was dismissed",
    "office:deposit_confirm_application": "a deposit awaiting the Magistrate",
    "office:claim_decide": "a claim to a surplus",
    "office:claim_new": "a surplus held by the office",
    "office:surplus_receive": "a surplus sent from a pound",
    "office:transfer_memo_pdf": "a surplus transferred to revenue",
    "office:surplus_challan_new": "a surplus credited to the State's revenues",
    "office:surplus_challan": "a surplus credited to the State's revenues",
    "office:shortfall_write_off": "a shortfall after a sale",
    "office:court_order_review": "a release by a court's order",
    "office:remittance_confirm": "a remittance sent",
    "payments:refund_prepare": "an online payment whose animals left another way",
    "payments:refund": "a refund prepared",
    "auctions:s16_settle": "a s.16 sale not yet settled",
    "auctions:disposal_decide": "a proposed disposal order",
    "impounding:claims_decide": "two people claiming the same animals",
    "impounding:receipt_cancellation_decide": "a receipt whose cancellation was asked for",
    "impounding:direction_new": "an animal the veterinary officer found unfit",
    "webhooks:subscription": "a webhook made by the administrator",
    "webhooks:stop": "a webhook made by the administrator",
    "webhooks:send_again": "a webhook delivery that was given up",
    "accounts:second_factor_reset": "a user whose authenticator is set up",
    "accounts:relative_edit": "a relative declared by a member of staff (s.19)",
    "payments:review_line": "a bank statement line no payment was matched to",
    "impounding:lost_decide": "a lost-cattle report matched to an animal in custody",
    "impounding:entry_owner_from_tag": "an entry whose tag the ear-tag registry names an owner of",
}


def routes():
    """{url name: the permission it needs (None: any signed-in user)} for every named route."""

    def walk(patterns, namespace=None):
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, p.namespace or namespace)
            elif isinstance(p, URLPattern) and p.name:
                name = f"{namespace}:{p.name}" if namespace else p.name
                yield name, p.callback

    found = {}
    for name, view in walk(get_resolver().url_patterns):
        # The API is called by programs with a token, not clicked (tests/api/); only its
        # reference page is linked, from the tokens page, and judged below.
        if name in OUTSIDE or name.startswith("admin:") or _api_data(name):
            continue
        perm = getattr(view, "required_permission", None)
        found[name] = UNDECORATED[name] if perm is None else perm
    return found


class Links(HTMLParser):
    """The links of a page, and each GET form as the address its button opens with the
    form's values as shown (choosing nothing and pressing the button is one click)."""

    def __init__(self, page):
        super().__init__()
        self.page = page
        self.hrefs = []
        self.form = None
        self.select = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "option" and self.select is not None:
            self.handle_starttag_option(attrs)
        elif tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])
        elif tag == "form" and attrs.get("method", "get").lower() == "get":
            self.form = {"action": attrs.get("action") or self.page, "fields": []}
        elif self.form is None or not attrs.get("name"):
            return
        elif tag == "input" and attrs.get("type", "text") not in ("submit", "checkbox", "radio"):
            self.form["fields"].append((attrs["name"], attrs.get("value") or ""))
        elif tag == "input" and "checked" in attrs:
            self.form["fields"].append((attrs["name"], attrs.get("value", "on")))
        elif tag == "select":
            self.select = [attrs["name"], None, None, []]

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag == "form" and self.form is not None:
            action, fields = self.form["action"], self.form["fields"]
            self.hrefs.append(f"{action}?{urlencode(fields)}")
            for name, value in self.form.get("options", []):
                chosen = [(n, value if n == name else v) for n, v in fields]
                self.hrefs.append(f"{action}?{urlencode(chosen)}")
            self.form = None
        elif tag == "select" and self.select is not None and self.form is not None:
            name, first, chosen, values = self.select
            self.form["fields"].append((name, chosen if chosen is not None else first or ""))
            if "options" not in self.form:  # choosing in the form's first list is one click more
                self.form["options"] = [(name, v) for v in values]
            self.select = None

    def handle_starttag_option(self, attrs):
        value = attrs.get("value", "")
        self.select[3].append(value)
        if self.select[1] is None:
            self.select[1] = value
        if "selected" in attrs:
            self.select[2] = value


def walk(client):
    """{url name: clicks from home} for every route a link leads to, and the pages that
    refused (403/404/500) when followed."""
    reached, refused, counted, opened = {}, [], {}, set()
    frontier = ["/"]
    for click in range(1, CLICKS + 1):
        following = []
        for url in frontier:
            if url in opened:
                continue
            opened.add(url)
            response = client.get(url)
            if response.status_code != 200:
                refused.append((url, response.status_code))
                continue
            if "text/html" not in response.get("Content-Type", ""):
                continue
            links = Links(urlsplit(url).path)
            links.feed(response.content.decode())
            for href in links.hrefs:
                parts = urlsplit(href)
                if parts.netloc or not parts.path.startswith("/"):
                    continue
                try:
                    name = resolve(parts.path).view_name
                except Resolver404:
                    continue
                reached.setdefault(name, click)
                if name in OUTSIDE or _api_data(name) or parts.path.endswith((".pdf", ".csv")):
                    continue
                if click == CLICKS or counted.get(name, 0) >= PAGES_OF_A_KIND:
                    continue
                counted[name] = counted.get(name, 0) + 1
                following.append(href)
        frontier = following
    return reached, refused


@pytest.fixture(scope="module")
def lucknow_demo(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        with override_settings(
            MAILERS={"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}
        ):
            demo.seed_all()
            register_demo.seed_tariffs()
            register_demo.seed_register()
            auction_demo.seed_conditions()
            auction_demo.seed_unclaimed()
            run_deadlines()
        yield
        # The module's data is committed; the other tests expect an empty database.
        from django.core.management import call_command

        call_command("flush", verbosity=0, interactive=False)


USERS = {
    "keeper": Role.POUND_KEEPER,
    "officer": Role.POLICE_OFFICER,
    "clerk": Role.DM_CLERK,
    "magistrate": Role.MAGISTRATE,
    "auditor": Role.AUDITOR,
    "admin": Role.ADMINISTRATOR,
}


def test_every_route_is_named_in_the_walk():
    assert set(routes()) >= set(NEEDS_A_STATE)


@pytest.mark.django_db
@pytest.mark.parametrize(("username", "role"), USERS.items())
def test_every_permitted_action_is_within_three_clicks_of_home(
    client, lucknow_demo, username, role
):
    client.force_login(User.objects.get(username=username))
    allowed = ROLE_PERMISSIONS[role]
    expected = {
        name
        for name, perm in routes().items()
        if (perm is None or perm in allowed)
        and (name not in ALSO_NEEDS or ALSO_NEEDS[name] & allowed)
        and name not in NEEDS_A_STATE
    }

    reached, refused = walk(client)

    missing = sorted(expected - set(reached))
    assert (refused, missing) == ([], [])


@pytest.mark.django_db
def test_keeper_home_says_the_fines_due_and_links_to_sending_them(client, lucknow_demo):
    keeper = User.objects.get(username="keeper")
    pound = keeper.assignments.get().pound
    due = statements.pound_positions([pound])[pound.pk].fines_due
    assert due > 0
    client.force_login(keeper)

    page = client.get("/").content.decode()
    todo_page = client.get(reverse("office:todos")).content.decode()

    send = f"{reverse('office:remittance_new')}?pound={pound.pk}"
    assert inr(due) in page and f'href="{send}"' in page
    assert f"₹{lakh(due)}" in todo_page and f'href="{send}"' in todo_page


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["clerk", "magistrate"])
def test_office_home_is_a_task_list_of_what_waits_with_counts(client, lucknow_demo, username):
    user = User.objects.get(username=username)
    client.force_login(user)

    response = client.get("/")

    tasks = response.context["office_tasks"]
    assert tasks, "the office's home lists its tasks"
    open_keys = list(todos.for_user(user).values_list("key", flat=True))
    html = response.content.decode()
    for label, url, count in tasks:
        prefix = next(t[1] for t in TASKS if t[2] == label)
        assert count == sum(k.startswith(prefix) for k in open_keys)
        assert f'<a href="{url}">{label}</a>' in html
    assert any(count for _label, _url, count in tasks)  # the demo has work waiting
