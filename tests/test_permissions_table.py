"""Role × URL × method: what each role gets from each page. Later issues add their rows.

A row: (url name, a function of the fixtures giving the URL kwargs, method, {role: status}).
Roles missing from a row's dict expect the row's `default`.
"""

import pytest
from django.urls import reverse

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


def _keepers_assignment(users, user):
    return {"pk": users["pound_keeper"].assignments.get().pk}


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
    # The auction, s.16 and disposal screens (issue 4).
    ("auctions:conditions", None, "get", {"administrator": 403}, 200),
    ("auctions:conditions_new", None, "get", {"dm_clerk": 200, "magistrate": 200}, 403),
    ("auctions:auctions", None, "get", {"administrator": 403}, 200),
    ("auctions:auction_new", None, "get", {"police_officer": 200}, 403),
    ("auctions:disposals", None, "get", {"administrator": 403}, 200),
    ("auctions:disposal_new", None, "get", {"dm_clerk": 200, "magistrate": 200}, 403),
    # The s.14 report, notice and proclamation screens, and the public board (issue 4).
    ("auctions:reports_due", None, "get", {"pound_keeper": 200, "outsider": 200}, 403),
    ("auctions:reports", None, "get", {"administrator": 403}, 200),
    ("board", None, "get", {}, 200),
    # The District Magistrate's office: home page, approvals, to-dos (issue 5).
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
    # Returns (s.7) and exports (issue 5): whoever may read a pound's accounts; the per-pound,
    # per-district and per-day routes are in tests/office/test_returns.py.
    ("office:returns", None, "get", {"police_officer": 403, "administrator": 403}, 200),
    ("office:export_register", None, "get", {"police_officer": 403, "administrator": 403}, 200),
    ("office:export_ledger", None, "get", {"police_officer": 403, "administrator": 403}, 200),
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
