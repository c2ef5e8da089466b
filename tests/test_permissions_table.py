"""Role × URL × method: what each role gets from each page. Later issues add their rows.

A row: (url name, a function of the fixtures giving the URL kwargs, method, {role: status}).
Roles missing from a row's dict expect the row's `default`.
"""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import ApiToken
from accounts.roles import Role
from accounts.services import create_api_token, create_service_token
from auctions.models import DisposalOrder, Report
from impounding.models import Deposit, Receipt
from impounding.services import ask_receipt_cancellation
from kernel.events import record_event
from office.models import Remittance
from tests.auctions.factories import conditions as auction_conditions
from tests.auctions.factories import (
    ready_for_sale,
    report_and_notice,
    schedule,
    unclaimed_entry,
)
from tests.impounding.factories import deposit, make_entry, pay, set_tariffs
from webhooks import services as webhook_services
from webhooks.models import WebhookDelivery

ROLES = [
    "pound_keeper",
    "police_officer",
    "dm_clerk",
    "magistrate",
    "auditor",
    "administrator",
    "outsider",
]


def _own_assignment(users, user):
    return {"pk": user.assignments.get().pk}


def _home_district(users, user):
    return {"pk": _home_pound(users).district_id}


def _keepers_assignment(users, user):
    return {"pk": users["pound_keeper"].assignments.get().pk}


def _home_pound(users):
    return users["pound_keeper"].assignments.get().pound


def _remittance_sent_by(sender):
    def kwargs(users, user):
        remittance = Remittance.objects.create(
            pound=_home_pound(users),
            number=f"REM/T/{sender}",
            amount=Decimal("100.00"),
            challan_number="TR-1",
            treasury="District Treasury",
            remitted_on=timezone.localdate(),
            sent_by=users[sender],
        )
        return {"pk": remittance.pk}

    kwargs.__name__ = f"remittance_sent_by_{sender}"
    return kwargs


def _disposal_prepared_by(preparer):
    def kwargs(users, user):
        order = DisposalOrder.objects.create(
            pound=_home_pound(users),
            number=f"DSP/T/{preparer}",
            reason="Old and weak",
            mode="gaushala",
            recipient="Gaushala",
            prepared_by=users[preparer],
        )
        return {"pk": order.pk}

    kwargs.__name__ = f"disposal_prepared_by_{preparer}"
    return kwargs


def _deposit_due_for_refund(users, user):
    set_tariffs(_home_pound(users).district)
    entry = make_entry(pound=_home_pound(users), by=users["pound_keeper"])
    release = deposit(entry, users["pound_keeper"])
    Deposit.objects.filter(release=release).update(status=Deposit.Status.REFUND_DUE)
    return {"pk": Deposit.objects.get(release=release).pk}


def _entry_in_pound(users, user):
    entry = make_entry(pound=_home_pound(users), by=users["pound_keeper"])
    return {"pk": entry.pk}


def _paid_receipt(users, user):
    set_tariffs(_home_pound(users).district)
    entry = make_entry(pound=_home_pound(users), by=users["pound_keeper"])
    return {"pk": pay(entry, users["pound_keeper"]).receipt_id}


def _notice_in_pound(users, user):
    entry = unclaimed_entry(pound=_home_pound(users), keeper=users["pound_keeper"], days_ago=10)
    _report, notice = report_and_notice(
        entry, users["pound_keeper"], users["police_officer"], sent_days_ago=1, posted_days_ago=0
    )
    return {"pk": notice.pk}


def _cancellation_asked_by_keeper(users, user):
    receipt = Receipt.objects.get(pk=_paid_receipt(users, user)["pk"])
    asked = ask_receipt_cancellation(receipt=receipt, by=users["pound_keeper"], reason="Wrong")
    return {"pk": asked.pk}


def _service_token(users, user):
    token, _secret = create_service_token(
        by=users["administrator"],
        name="State dashboard",
        role=Role.AUDITOR,
        expires_on=timezone.localdate() + timedelta(days=30),
        district=_home_pound(users).district,
    )
    return {"pk": token.pk}


def _webhook(users, user):
    token = ApiToken.objects.get(pk=_service_token(users, user)["pk"])
    subscription, _secret = webhook_services.create_subscription(
        by=users["administrator"],
        token=token,
        url="https://93.184.216.34/hooks",
        topics=[webhook_services.Topic.SALE_MADE],
    )
    return {"pk": subscription.pk}


def _webhook_given_up(users, user):
    pk = _webhook(users, user)["pk"]
    with transaction.atomic():
        event = record_event(
            action="auction.sold", section="s.14", summary="x", by=None, pound=_home_pound(users)
        )
    delivery = WebhookDelivery.objects.get(event=event)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status=WebhookDelivery.Status.GAVE_UP)
    return {"pk": pk, "delivery": delivery.pk}


def _report_in_pound(users, user):
    entry = unclaimed_entry(pound=_home_pound(users), keeper=users["pound_keeper"])
    report, _notice = report_and_notice(
        entry, users["pound_keeper"], users["police_officer"], sent_days_ago=11, posted_days_ago=9
    )
    return {"pk": report.pk}


def _notice_in_pound(users, user):
    return {"pk": Report.objects.get(pk=_report_in_pound(users, user)["pk"]).notice.pk}


def _auction_in_pound(users, user):
    pound = _home_pound(users)
    set_tariffs(pound.district)
    auction_conditions(pound.district, by=users["dm_clerk"])
    entry, _notice = ready_for_sale(
        pound=pound, keeper=users["pound_keeper"], officer=users["police_officer"]
    )
    auction = schedule(pound, users["police_officer"], [entry.animals.all()])
    return {"pk": auction.pk}


TABLE = [
    ("home", None, "get", {}, 200),
    ("accounts:profile", None, "get", {}, 200),
    ("accounts:session_ping", None, "get", {}, 204),  # keeps a typing user signed in
    ("accounts:jurisdiction", None, "get", {"administrator": 403}, 200),
    ("accounts:staff", None, "get", {"administrator": 200}, 403),
    ("accounts:appointment_card", _own_assignment, "get", {}, 200),
    (
        "accounts:appointment_card",
        _keepers_assignment,
        "get",
        {"pound_keeper": 200, "administrator": 200},
        404,
    ),
    ("password_change", None, "get", {}, 200),
    ("logout", None, "get", {}, 405),
    ("login", None, "get", {}, 302),  # a signed-in user is sent on to the home page
    # The auction, s.16 and disposal screens.
    ("auctions:conditions", None, "get", {"administrator": 403}, 200),
    ("auctions:conditions_new", None, "get", {"dm_clerk": 200, "magistrate": 200}, 403),
    ("auctions:auctions", None, "get", {"administrator": 403}, 200),
    ("auctions:auction_new", None, "get", {"police_officer": 200}, 403),
    ("auctions:disposals", None, "get", {"administrator": 403}, 200),
    ("auctions:disposal_new", None, "get", {"dm_clerk": 200, "magistrate": 200}, 403),
    # The s.14 report, notice and proclamation screens, and the public board.
    ("auctions:reports_due", None, "get", {"pound_keeper": 200, "outsider": 200}, 403),
    ("auctions:reports", None, "get", {"administrator": 403}, 200),
    ("board", None, "get", {}, 200),
    # The District Magistrate's office: home page, approvals, to-dos (ADR 0032).
    (
        "office:office",
        None,
        "get",
        {"pound_keeper": 403, "police_officer": 403, "outsider": 403},
        200,
    ),
    (
        "office:approvals",
        None,
        "get",
        {"pound_keeper": 403, "police_officer": 403, "outsider": 403},
        200,
    ),
    ("office:todos", None, "get", {}, 200),
    # The rule pack in force (ADR 0068): whoever reads the district's reports; the diff of two
    # versions, without them, names nothing (404).
    (
        "rulepacks:index",
        None,
        "get",
        {"pound_keeper": 403, "police_officer": 403, "outsider": 403},
        200,
    ),
    (
        "rulepacks:district",
        _home_district,
        "get",
        {"pound_keeper": 403, "police_officer": 403, "outsider": 403},
        200,
    ),
    (
        "rulepacks:diff",
        None,
        "get",
        {"pound_keeper": 403, "police_officer": 403, "outsider": 403},
        404,
    ),
    # Returns (s.7) and exports: whoever may read a pound's accounts; the per-pound,
    # per-district and per-day routes are in tests/office/test_returns.py.
    ("office:returns", None, "get", {"police_officer": 403, "administrator": 403}, 200),
    ("office:export_register", None, "get", {"police_officer": 403, "administrator": 403}, 200),
    ("office:export_ledger", None, "get", {"police_officer": 403, "administrator": 403}, 200),
    # Files prepared by the worker (ADR 0012): asking needs the accounts; an empty ask is a 400.
    ("office:prepare", None, "post", {"police_officer": 403, "administrator": 403}, 400),
    ("office:prepare", None, "get", {}, 405),
    # Separation of duties: whoever sends or prepares does not confirm or decide.
    (
        "office:remittance_confirm",
        _remittance_sent_by("pound_keeper"),
        "get",
        {"dm_clerk": 200, "magistrate": 200},
        403,
    ),
    (
        "office:remittance_confirm",
        _remittance_sent_by("dm_clerk"),
        "post",
        {"magistrate": 200},
        403,
    ),
    (
        "auctions:disposal_decide",
        _disposal_prepared_by("dm_clerk"),
        "get",
        {"magistrate": 200},
        403,
    ),
    (
        "auctions:disposal_decide",
        _disposal_prepared_by("magistrate"),
        "post",
        {},
        403,
    ),
    # Receipt cancellation: the keeper asks, the office (another person) decides.
    (
        "impounding:receipt_cancel",
        _paid_receipt,
        "get",
        {"pound_keeper": 200, "outsider": 404},
        403,
    ),
    (
        "impounding:receipt_cancellation_decide",
        _cancellation_asked_by_keeper,
        "get",
        {"dm_clerk": 200, "magistrate": 200, "outsider": 404},
        403,
    ),
    # Competing claimants: the keeper records, an officer or the office decides.
    (
        "impounding:claim_new",
        _entry_in_pound,
        "get",
        {"pound_keeper": 200, "outsider": 404},
        403,
    ),
    (
        "impounding:claims_decide",
        _entry_in_pound,
        "get",
        {"police_officer": 200, "dm_clerk": 200, "magistrate": 200, "outsider": 404},
        403,
    ),
    # Cash out of the till: the pound-keeper's, or the office's on a recorded authority.
    # A remittance of fines leaves the till: the keeper's (the outsider remits from his own
    # pound), or the office's on an authority; not the police's, who only take payments.
    (
        "office:remittance_new",
        None,
        "get",
        {"pound_keeper": 200, "dm_clerk": 200, "outsider": 200},
        403,
    ),
    (
        "office:remittance_new",
        None,
        "post",
        {"pound_keeper": 200, "dm_clerk": 200, "outsider": 200},
        403,
    ),
    (
        "impounding:deposit_refund",
        _deposit_due_for_refund,
        "get",
        {"pound_keeper": 200, "dm_clerk": 200, "outsider": 404},
        403,
    ),
    (
        "impounding:deposit_refund",
        _deposit_due_for_refund,
        "post",
        {"pound_keeper": 200, "dm_clerk": 200, "outsider": 404},
        403,
    ),
    # Service tokens for State systems (ADR 0041): the administrator's alone.
    ("accounts:service_tokens", None, "get", {"administrator": 200}, 403),
    ("accounts:service_tokens", None, "post", {"administrator": 200}, 403),
    ("accounts:service_token_revoke", _service_token, "post", {"administrator": 302}, 403),
    ("accounts:service_token_revoke", _service_token, "get", {}, 405),
    # Webhooks for State systems (ADR 0042): the administrator's alone, as the tokens are.
    ("webhooks:list", None, "get", {"administrator": 200}, 403),
    ("webhooks:list", None, "post", {"administrator": 200}, 403),
    ("webhooks:subscription", _webhook, "get", {"administrator": 200}, 403),
    ("webhooks:stop", _webhook, "post", {"administrator": 302}, 403),
    ("webhooks:stop", _webhook, "get", {}, 405),
    ("webhooks:send_again", _webhook_given_up, "post", {"administrator": 302}, 403),
    ("webhooks:send_again", _webhook_given_up, "get", {}, 405),
    # The owners' message templates (ADR 0077): the administrator's, as the webhooks are.
    # The owner's phone for messages: the keeper of the entry's pound records it.
    ("messaging:contact", _entry_in_pound, "get", {"pound_keeper": 200, "outsider": 404}, 403),
    ("messaging:templates", None, "get", {"administrator": 200}, 403),
]

# The API (ADR 0040): a token of each role instead of a session. Another district's entry is a
# 404, as on the screens; a role without the register (the administrator) has no register at all.
API_TABLE = [
    ("api:entries", None, "get", {"administrator": 404}, 200),
    ("api:entry", _entry_in_pound, "get", {"administrator": 404, "outsider": 404}, 200),
    ("api:board", None, "get", {}, 200),
    ("accounts:api_tokens", None, "get", {}, 200),
    # The writes refuse a role as its screen does (403) before they read the key or the body; an
    # allowed role without either gets a 400 problem. Another district's entry is a 404.
    ("api:entry_create", None, "post", {"pound_keeper": 400, "outsider": 400}, 403),
    ("api:entries", None, "put", {}, 405),
    (
        "api:entry_release",
        _entry_in_pound,
        "post",
        {"pound_keeper": 400, "outsider": 404},
        403,
    ),
    # The s.14 and s.17 writes (api.writes), sent with no body and no Idempotency-Key: whoever
    # the screen lets act gets as far as the 400 for what is missing; the others its refusal.
    ("api:report_send", None, "post", {"pound_keeper": 400, "outsider": 400}, 403),
    (
        "api:proclamation_new",
        _notice_in_pound,
        "post",
        {"police_officer": 400, "outsider": 404},
        403,
    ),
    (
        "api:remittance_confirm",
        _remittance_sent_by("pound_keeper"),
        "post",
        {"dm_clerk": 400, "magistrate": 400},
        403,
    ),
    ("api:remittance_confirm", _remittance_sent_by("dm_clerk"), "post", {"magistrate": 400}, 403),
    # Unclaimed cattle and sales in the API: the s.14 and auction screens' permission and scope.
    ("api:reports", None, "get", {"administrator": 404}, 200),
    ("api:notices", None, "get", {"administrator": 404}, 200),
    ("api:proclamations", None, "get", {"administrator": 404}, 200),
    ("api:auctions", None, "get", {"administrator": 404}, 200),
    ("api:sales", None, "get", {"administrator": 404}, 200),
    ("api:report", _report_in_pound, "get", {"administrator": 404, "outsider": 404}, 200),
    ("api:notice", _notice_in_pound, "get", {"administrator": 404, "outsider": 404}, 200),
    ("api:auction", _auction_in_pound, "get", {"administrator": 404, "outsider": 404}, 200),
    ("api:reports", None, "put", {}, 405),
    # The office (remittances, surplus, claims, returns) needs the ledger, as its screens; a
    # return without its pound or district is a 400 to whoever may see one; the tariffs are for
    # whoever sees a district's records, of his only district when he names none.
    ("api:remittances", None, "get", {"police_officer": 404, "administrator": 404}, 200),
    (
        "api:remittance",
        _remittance_sent_by("pound_keeper"),
        "get",
        {"police_officer": 404, "administrator": 404, "outsider": 404},
        200,
    ),
    ("api:remittances", None, "post", {}, 405),
    ("api:surplus", None, "get", {"police_officer": 404, "administrator": 404}, 200),
    ("api:claims", None, "get", {"police_officer": 404, "administrator": 404}, 200),
    ("api:monthly_return", None, "get", {"police_officer": 404, "administrator": 404}, 400),
    (
        "api:district_return",
        None,
        "get",
        {"pound_keeper": 404, "police_officer": 404, "outsider": 404},
        400,
    ),
    ("api:tariffs", None, "get", {"administrator": 404}, 200),
    # Receipts as their PDF: whoever reads the pound's register. Deposits as their screen:
    # whoever reads its books, so not the police (and not the administrator).
    ("api:receipts", None, "get", {"administrator": 404}, 200),
    ("api:receipts", None, "post", {}, 405),
    ("api:receipt", _paid_receipt, "get", {"administrator": 404, "outsider": 404}, 200),
    ("api:deposits", None, "get", {"police_officer": 404, "administrator": 404}, 200),
    (
        "api:deposit",
        _deposit_due_for_refund,
        "get",
        {"police_officer": 404, "administrator": 404, "outsider": 404},
        200,
    ),
]
API_CASES = [
    (name, kwargs, method, role, expected.get(role, default))
    for name, kwargs, method, expected, default in API_TABLE
    for role in ROLES
]

CASES = [
    (name, kwargs, method, role, expected.get(role, default))
    for name, kwargs, method, expected, default in TABLE
    for role in ROLES
]


@pytest.mark.parametrize(
    ("name", "kwargs", "method", "role", "status"),
    CASES,
    ids=[f"{c[0]}-{c[1].__name__ if c[1] else ''}-{c[2]}-{c[3]}" for c in CASES],
)
def test_role_url_method(client, role_users, name, kwargs, method, role, status):
    user = role_users[role]
    client.force_login(user)
    url = reverse(name, kwargs=kwargs(role_users, user) if kwargs else None)
    response = getattr(client, method)(url)
    assert response.status_code == status


@pytest.mark.parametrize(
    ("name", "kwargs", "method", "role", "status"),
    API_CASES,
    ids=[f"{c[0]}-{c[1].__name__ if c[1] else ''}-{c[2]}-{c[3]}" for c in API_CASES],
)
def test_role_api_url_method(client, role_users, name, kwargs, method, role, status):
    user = role_users[role]
    _token, secret = create_api_token(user=user, name="table")
    if name.startswith("accounts:"):
        client.force_login(user)  # the tokens page is a screen
    url = reverse(name, kwargs=kwargs(role_users, user) if kwargs else None)
    response = getattr(client, method)(url, HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == status
