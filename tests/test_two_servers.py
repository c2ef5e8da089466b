"""Two app servers, one worker, one PostgreSQL and an S3 store (moto's server), as production
runs: a workflow that switches server on every request (intake with a photo, a release with its
receipt, the s.14 report, the notice with the photo, a proclamation with its own photo, a
remittance of the fines, an export made by the worker), files written by one server read from
the other by the right users only, and the books and the chain sound at the end."""

import io
import os
import re
import socket
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
import requests
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from accounts.roles import Role
from auctions.models import Notice, Proclamation, Report
from ledger.checks import run_checks
from office.models import Remittance
from poundadmin.events import verify_chain
from tests.accounts.factories import staff
from tests.impounding.test_views_register import _local, entry_post

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(300),
]
ROOT = Path(__file__).resolve().parent.parent
BUCKET = "poundadmin-two-servers"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if requests.get(url, timeout=2).status_code == 200:
                return
        except requests.RequestException:  # not listening yet, or still loading
            pass
        time.sleep(0.3)
    raise AssertionError(f"{url} did not come up")


@pytest.fixture
def s3():
    import boto3
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    client = boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    client.create_bucket(Bucket=BUCKET)
    yield endpoint, client
    server.stop()


@pytest.fixture
def servers(s3, tmp_path):
    """Two gunicorn instances and one worker on the test database, all on the S3 store."""
    endpoint, _client = s3
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DEBUG": "false",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PUBLIC_BASE_URL": "https://pounds.example.gov.in",
        "SECURE_SSL_REDIRECT": "false",
        "SECURE_COOKIES": "false",
        "STATICFILES_STORAGE": "django.contrib.staticfiles.storage.StaticFilesStorage",
        "TASKS_BACKEND": "django_tasks_db.DatabaseBackend",
        "S3_BUCKET": BUCKET,
        "S3_ENDPOINT_URL": endpoint,
        "S3_REGION": "us-east-1",
        "S3_ACCESS_KEY_ID": "testing",
        "S3_SECRET_ACCESS_KEY": "testing",
        "LOG_LEVEL": "ERROR",
        "GUNICORN_WORKERS": "1",
        "GUNICORN_THREADS": "2",
        "POUNDADMIN_READ_DOT_ENV": "false",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    procs, bases = [], []
    log = (tmp_path / "servers.log").open("w")
    for _ in range(2):
        port = free_port()
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "poundadmin.wsgi"],
                cwd=ROOT,
                env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}"},
                stdout=log,
                stderr=log,
            )
        )
        bases.append(f"http://127.0.0.1:{port}")
    procs.append(
        subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--interval", "0.2", "--no-startup-delay"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        )
    )
    try:
        for base in bases:
            wait_for(f"{base}/healthz")
        yield bases
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.close()


def signed_in(user):
    """A browser session for `user`, valid on every server (the sessions live in PostgreSQL)."""
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    browser = requests.Session()
    browser.cookies.set("sessionid", store.session_key, domain="127.0.0.1")
    return browser


def csrf(browser, url):
    page = browser.get(url, timeout=30)
    assert page.status_code == 200, url
    return page, re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)


def hidden(html, name):
    return re.search(rf'name="{name}" value="([^"]*)"', html).group(1)


def fetch(browser, url):
    """GET through the app; a file answers with a redirect to a presigned URL on the store."""
    response = browser.get(url, allow_redirects=False, timeout=30)
    if response.status_code != 302:
        return response.status_code, None
    stored = requests.get(response.headers["Location"], timeout=30)
    assert stored.status_code == 200
    return 200, stored.content


def jpeg():
    out = io.BytesIO()
    Image.new("RGB", (800, 600), "brown").save(out, format="JPEG")
    return out.getvalue()


def intake_with_photo(a, b, keeper, outsider, pound):
    # Intake with a photo, on A: cattle that arrived nine days ago, so that the seven days for
    # a claim have run and the s.14 report is due today.
    arrived = timezone.now() - timedelta(days=9)
    _page, token = csrf(keeper, a + reverse("impounding:entry_new"))
    entry = entry_post(
        pound, arrived_at=_local(arrived), seized_at=_local(arrived - timedelta(hours=2))
    )
    made = keeper.post(
        a + reverse("impounding:entry_new"),
        data={**entry, "csrfmiddlewaretoken": token},
        files={"animals-0-photo": ("IMG_0001.jpg", jpeg(), "image/jpeg")},
        allow_redirects=False,
        timeout=60,
    )
    assert made.status_code == 302, re.findall(
        r"(?:invalid-feedback|alert)[^>]*>(.{0,300})", made.text, re.S
    )
    entry_pk = int(re.search(r"/entries/(\d+)/", made.headers["Location"]).group(1))
    entry_page = keeper.get(b + made.headers["Location"], timeout=30).text
    photo_url = re.search(r'src="(/pound/animals/\d+/photo/)"', entry_page).group(1)

    # The photo, stored by A in the bucket, read through B by the keeper; nobody else.
    status, photo = fetch(keeper, b + photo_url)
    assert status == 200 and photo.startswith(b"\xff\xd8")
    assert fetch(outsider, a + photo_url) == (404, None)
    assert fetch(requests.Session(), b + photo_url) == (404, None)
    return entry_pk


def release_with_receipt(a, b, keeper, office, outsider, entry_pk):
    # The release, step one on B and the confirmation on A; the receipt drawn once.
    release_url = reverse("impounding:release", args=[entry_pk])
    check_page, token = csrf(keeper, b + release_url)
    animal_ids = re.findall(r'name="animals" value="(\d+)"', check_page.text)
    claim = {
        # The goat; the cow, with the photo, is left unclaimed for the s.14 report.
        "animals": animal_ids[1:],
        "claimant_name": "Shyam Lal",
        "claimant_address": "Samesi",
        "claimant_role": "owner",
        "payment_mode": "cash",
        "acknowledgement": "register_page",
        "register_page": "14",
        "csrfmiddlewaretoken": token,
    }
    check = keeper.post(b + release_url, data=claim, timeout=30)
    assert "Check the answers" in check.text
    confirm = {
        **claim,
        "idempotency_key": hidden(check.text, "idempotency_key"),
        "amount": hidden(check.text, "amount"),
        "confirm": "1",
    }
    done = keeper.post(a + release_url, data=confirm, allow_redirects=False, timeout=60)
    assert done.status_code == 302
    entry_page = keeper.get(b + reverse("impounding:entry", args=[entry_pk]), timeout=30).text
    receipt_url = re.search(r'href="(/pound/receipts/\d+\.pdf)"', entry_page).group(1)
    first = keeper.get(b + receipt_url, timeout=60)
    second = office.get(a + receipt_url, timeout=60)
    assert first.content.startswith(b"%PDF-") and second.content == first.content
    assert outsider.get(a + receipt_url, timeout=30).status_code == 404


def s14_report_and_notice(a, b, keeper, officer, outsider, entry_pk):
    # The report on A, read from B by the keeper and the officer; the notice posted on B.
    send_url = reverse("auctions:report_send", args=[entry_pk])
    _page, token = csrf(keeper, a + send_url)
    sent = keeper.post(
        b + send_url, data={"csrfmiddlewaretoken": token}, allow_redirects=False, timeout=60
    )
    assert sent.status_code == 302, sent.text[:500]
    report = Report.objects.get(impoundment_id=entry_pk)
    report_url = reverse("auctions:report_pdf", args=[report.pk])
    first = keeper.get(a + report_url, timeout=60)
    assert first.content.startswith(b"%PDF-")
    assert officer.get(b + report_url, timeout=60).content == first.content
    assert outsider.get(a + report_url, timeout=30).status_code == 404

    notice_url = reverse("auctions:notice_post", args=[report.pk])
    _page, token = csrf(officer, b + notice_url)
    posted = officer.post(
        a + notice_url,
        data={
            "posted_on": timezone.localdate().isoformat(),
            "posted_at": "Notice board, Police Station office",
            "csrfmiddlewaretoken": token,
        },
        allow_redirects=False,
        timeout=60,
    )
    assert posted.status_code == 302, posted.text[:500]
    notice = Notice.objects.get(report=report)
    # The notice carries the cow's photo, which A stored: drawn on B, read again from A.
    pdf_url = reverse("auctions:notice_pdf", args=[notice.pk])
    drawn = officer.get(b + pdf_url, timeout=60)
    assert drawn.content.startswith(b"%PDF-") and b"/Image" in drawn.content
    assert keeper.get(a + pdf_url, timeout=60).content == drawn.content
    assert outsider.get(b + pdf_url, timeout=30).status_code == 404
    return notice


def proclamation_with_photo(a, b, officer, keeper, outsider, notice):
    # The drum in the village, with a photo, recorded on A; the photo read through B.
    url = reverse("auctions:proclamation_new", args=[notice.pk])
    _page, token = csrf(officer, b + url)
    made = officer.post(
        a + url,
        data={
            "channel": "drum_village",
            "made_on": timezone.localdate().isoformat(),
            "village": "",
            "place": "Chaupal",
            "made_by": "Chowkidar Ram",
            "details": "",
            "csrfmiddlewaretoken": token,
        },
        files={"photo": ("photo.jpg", jpeg(), "image/jpeg")},
        allow_redirects=False,
        timeout=60,
    )
    assert made.status_code == 302, made.text[:500]
    proclamation = Proclamation.objects.get(notice=notice)
    photo_url = reverse("auctions:proclamation_photo", args=[proclamation.pk])
    for who, base in ((officer, b), (keeper, a)):
        status, photo = fetch(who, base + photo_url)
        assert status == 200 and photo.startswith(b"\xff\xd8")
    assert fetch(outsider, a + photo_url) == (404, None)
    assert fetch(requests.Session(), b + photo_url) == (404, None)


def remittance(a, b, keeper, clerk, pound):
    # The keeper remits the fines on B; the office confirms on A.
    url = reverse("office:remittance_new") + f"?pound={pound.pk}"
    page, token = csrf(keeper, b + url)
    sent = keeper.post(
        a + url,
        data={
            "amount": hidden(page.text, "amount"),
            "challan_number": "CH-0042",
            "treasury": "District Treasury, Lucknow",
            "remitted_on": timezone.localdate().isoformat(),
            "from_cash": "1",
            "csrfmiddlewaretoken": token,
        },
        allow_redirects=False,
        timeout=60,
    )
    assert sent.status_code == 302, sent.text[:500]
    sent_one = Remittance.objects.get(pound=pound)
    confirm_url = reverse("office:remittance_confirm", args=[sent_one.pk])
    _page, token = csrf(clerk, b + confirm_url)
    confirmed = clerk.post(
        a + confirm_url,
        data={"checked": "on", "csrfmiddlewaretoken": token},
        allow_redirects=False,
        timeout=60,
    )
    assert confirmed.status_code == 302, confirmed.text[:500]
    sent_one.refresh_from_db()
    assert sent_one.confirmed_at is not None


def export_through_the_worker(a, b, office, keeper):
    # An export through the worker: asked on A, waited for on B, downloaded from A.
    returns, token = csrf(office, a + reverse("office:returns"))
    form = re.search(
        r'<form method="post"[^>]*>(?:(?!</form>).)*value="ledger"(?:(?!</form>).)*',
        returns.text,
        re.S,
    ).group(0)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form))
    # The page offers last month; the release was today.
    fields["from"] = fields["to"] = timezone.localdate().isoformat()
    asked = office.post(
        a + reverse("office:prepare"), data=fields, allow_redirects=False, timeout=30
    )
    assert asked.status_code == 302
    deadline = time.monotonic() + 90
    while "The file is ready." not in (
        page := office.get(b + asked.headers["Location"], timeout=30).text
    ):
        assert time.monotonic() < deadline, "the worker did not prepare the export"
        time.sleep(0.5)
    file_url = re.search(r'href="(/office/prepared/[0-9a-f-]+/file/)"', page).group(1)
    status, exported = fetch(office, a + file_url)
    assert status == 200 and "Shyam Lal" in exported.decode("utf-8-sig")
    assert fetch(keeper, b + file_url) == (404, None)  # the file is the magistrate's


def test_a_workflow_across_two_servers_with_the_store_and_the_worker(
    servers,
    s3,
    pound,
    pound_keeper,
    police_officer,
    dm_clerk,
    magistrate,
    other_pound,
    tariffs,
    time_machine,
):
    # `time_machine` unused: the servers keep the real clock, so this process keeps it too.
    a, b = servers
    _endpoint, store = s3
    keeper, office = signed_in(pound_keeper), signed_in(magistrate)
    officer, clerk = signed_in(police_officer), signed_in(dm_clerk)
    outsider = signed_in(staff(Role.POUND_KEEPER, "keeper_elsewhere", pound=other_pound))

    entry_pk = intake_with_photo(a, b, keeper, outsider, pound)
    release_with_receipt(a, b, keeper, office, outsider, entry_pk)
    notice = s14_report_and_notice(a, b, keeper, officer, outsider, entry_pk)
    proclamation_with_photo(a, b, officer, keeper, outsider, notice)
    remittance(a, b, keeper, clerk, pound)
    export_through_the_worker(a, b, office, keeper)

    keys = [o["Key"] for o in store.list_objects_v2(Bucket=BUCKET)["Contents"]]
    assert {k.split("/", 1)[0] for k in keys} >= {
        "animals",
        "documents",
        "prepared",
        "proclamations",
    }
    assert run_checks() == []
    assert verify_chain() == []
