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
