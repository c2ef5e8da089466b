"""The read replica's router (ADR 0054): only the reads that ask go to it, never a write, never a
migration, never a read of a transaction, and never a read soon after the user's own write.

Here the `replica` alias is a test mirror of `default` (tests/conftest.py): the same database
through a second connection, so a page's queries can be counted on it. A TestCase-style test
runs inside a transaction, where the router keeps every read on the primary; the tests that
must see the replica chosen are transactional. tests/kernel/test_streaming_replica.py runs a
real streaming replica.
"""

from datetime import timedelta

import pytest
from django.db import connections, transaction
from django.http import HttpResponse
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import IssuedDocument, ToDo
from accounts.roles import Role
from kernel import replica
from kernel.replica import (
    STICKY_COOKIE,
    PrimaryAfterWriteMiddleware,
    ReplicaRouter,
    chosen_for_reads,
    primary_only,
    reads_from_replica,
)
from office.models import PreparedFile
from office.tasks import prepare_file
from tests.impounding.factories import cow, make_entry

BOTH = {"default", "replica"}


@pytest.fixture
def with_replica(settings):
    settings.REPLICA_DATABASE = "replica"
    settings.REPLICA_STICKY_SECONDS = 5


def test_without_a_replica_every_read_stays_on_default(settings):
    settings.REPLICA_DATABASE = None
    with reads_from_replica():
        assert chosen_for_reads() == "default"
        assert ReplicaRouter().db_for_read(ToDo) is None


@pytest.mark.django_db(transaction=True, databases=BOTH)
def test_only_reads_inside_the_scope_go_to_the_replica(with_replica):
    router = ReplicaRouter()
    assert router.db_for_read(ToDo) is None
    with reads_from_replica():
        assert router.db_for_read(ToDo) == "replica"
        assert router.db_for_write(ToDo) is None  # Django's default: the primary
        with primary_only():
            assert router.db_for_read(ToDo) is None
        with transaction.atomic():
            assert router.db_for_read(ToDo) is None  # a transaction reads what it writes
    assert router.db_for_read(ToDo) is None


def test_the_decorator_scopes_the_call(with_replica):
    seen = []

    @reads_from_replica
    def view():
        seen.append(replica._replica_reads.get())

    view()
    assert seen == [True]
    assert replica._replica_reads.get() is False


@pytest.mark.django_db(transaction=True, databases=BOTH)
def test_an_object_read_from_the_replica_is_saved_to_the_primary(with_replica, pound):
    with reads_from_replica():
        district = type(pound.district).objects.get(pk=pound.district_id)
    assert district._state.db == "replica"
    router = ReplicaRouter()
    assert router.db_for_write(type(district), instance=district) == "default"
    assert router.allow_relation(district, pound) is True
    district.name = "Renamed"
    district.save(update_fields=["name"])
    assert district._state.db == "default"


def test_no_migration_runs_on_the_replica(with_replica):
    router = ReplicaRouter()
    assert router.allow_migrate("replica", "accounts") is False
    assert router.allow_migrate("default", "accounts") is None


def _middleware_run(method, cookies=None):
    """(whether the view was told to read the primary alone, the response)"""
    told = []

    def view(request):
        told.append(replica._primary_only.get())
        return HttpResponse(status=302 if method == "POST" else 200)

    request = getattr(RequestFactory(), method.lower())("/office/")
    request.COOKIES.update(cookies or {})
    response = PrimaryAfterWriteMiddleware(view)(request)
    return told[0], response


def test_a_write_keeps_the_user_on_the_primary_for_a_while(with_replica, time_machine):
    time_machine.move_to("2026-03-02 10:00:00+05:30", tick=False)
    primary, response = _middleware_run("GET")
    assert not primary
    assert STICKY_COOKIE not in response.cookies
    _primary, response = _middleware_run("POST")
    cookie = response.cookies[STICKY_COOKIE]
    assert cookie["max-age"] == 5 and cookie["httponly"]
    cookies = {STICKY_COOKIE: cookie.value}
    primary, _response = _middleware_run("GET", cookies)
    assert primary
    assert replica._primary_only.get() is False  # for that request alone
    time_machine.move_to("2026-03-02 10:00:06+05:30", tick=False)
    primary, _response = _middleware_run("GET", cookies)
    assert not primary


def test_a_failed_write_sets_no_cookie(with_replica):
    request = RequestFactory().post("/office/")
    response = PrimaryAfterWriteMiddleware(lambda r: HttpResponse(status=400))(request)
    assert STICKY_COOKIE not in response.cookies


def test_a_forged_cookie_is_ignored(with_replica):
    primary, _response = _middleware_run("GET", {STICKY_COOKIE: "1"})
    assert not primary


def test_without_a_replica_the_middleware_sets_no_cookie(settings):
    settings.REPLICA_DATABASE = None
    primary, response = _middleware_run("POST")
    assert not primary
    assert STICKY_COOKIE not in response.cookies


@pytest.mark.django_db(transaction=True, databases=BOTH)
def test_the_office_pages_read_from_the_replica(with_replica, client, pound_keeper, pound):
    ToDo.objects.create(
        key="replica-test",
        role=Role.POUND_KEEPER,
        district=pound.district,
        pound=pound,
        title="Feed the cattle",
        url="/",
    )
    client.force_login(pound_keeper)
    with CaptureQueriesContext(connections["replica"]) as on_replica:
        response = client.get(reverse("office:todos"))
    assert response.status_code == 200
    assert "Feed the cattle" in response.text
    assert on_replica.captured_queries, "the to-do list was not read from the replica"
    # The sticky cookie of a write: the next page reads the primary alone.
    client.cookies[STICKY_COOKIE] = _sticky_value()
    with CaptureQueriesContext(connections["replica"]) as on_replica:
        response = client.get(reverse("office:todos"))
    assert "Feed the cattle" in response.text
    assert not on_replica.captured_queries


@pytest.mark.django_db(transaction=True, databases=BOTH)
def test_a_page_not_marked_never_touches_the_replica(with_replica, client, pound_keeper):
    client.force_login(pound_keeper)
    with CaptureQueriesContext(connections["replica"]) as on_replica:
        response = client.get(reverse("impounding:register"))
    assert response.status_code == 200
    assert not on_replica.captured_queries


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True, databases=BOTH)
def test_the_export_task_reads_its_rows_on_the_replica(
    with_replica, client, magistrate, pound, pound_keeper, tariffs
):
    make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    client.force_login(magistrate)
    client.post(
        reverse("office:prepare"),
        {"what": "register", "key": "0b5e5a2c-7d4e-4d8e-9f59-54a1c2f0a054"},
    )
    prepared = PreparedFile.objects.get()

    with CaptureQueriesContext(connections["replica"]) as on_replica:
        prepare_file.call(str(prepared.pk))

    assert PreparedFile.objects.get().status == PreparedFile.Status.READY
    read_there = " ".join(query["sql"] for query in on_replica.captured_queries)
    assert "impounding_animal" in read_there
    assert "office_preparedfile" not in read_there  # the file's own row: the primary


@pytest.mark.django_db(transaction=True, databases=BOTH)
def test_a_return_read_on_the_replica_registers_its_document_on_the_primary(
    with_replica, client, dm_clerk, pound
):
    last_month = timezone.localdate().replace(day=1) - timedelta(days=1)
    url = reverse(
        "office:monthly_return", args=[pound.pk, last_month.year, last_month.month, "pdf"]
    )
    client.force_login(dm_clerk)

    with CaptureQueriesContext(connections["replica"]) as on_replica:
        first, second = client.get(url), client.get(url)

    assert first.status_code == second.status_code == 200
    assert first.content.startswith(b"%PDF")
    assert IssuedDocument.objects.filter(kind=IssuedDocument.Kind.RETURN).count() == 1
    read_there = [query["sql"].upper() for query in on_replica.captured_queries]
    assert read_there, "the return's figures were not read on the replica"
    assert not [sql for sql in read_there if not sql.lstrip().startswith("SELECT")]
    assert not [sql for sql in read_there if "FOR UPDATE" in sql or "ISSUEDDOCUMENT" in sql]


def _sticky_value():
    _primary, response = _middleware_run("POST")
    return response.cookies[STICKY_COOKIE].value
