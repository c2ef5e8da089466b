"""Two app servers, one worker, one PostgreSQL and an S3 store (moto's server), as production
runs: a workflow that switches server on every request (intake with a photo, a release with its
receipt, the s.14 report, the notice with the photo, a proclamation with its own photo, a
remittance of the fines, an export made by the worker; then, the servers started again with
their clock nine days ahead, the auction, the sale and its certificate), files written by one
server read from the other by the right users only, and the books and the chain sound at the
end."""

import contextlib
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
from django.contrib.sessions.models import Session
from django.urls import reverse
from django.utils import timezone
from django_otp import DEVICE_ID_SESSION_KEY
from PIL import Image

from accounts.roles import Role
from accounts.twofactor import must_have_second_factor
from auctions.models import Auction, Notice, Proclamation, Report, Sale
from kernel.events import verify_chain
from ledger.checks import run_checks
from office.models import Remittance
from tests.accounts.factories import confirmed_authenticator, staff
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


# The servers' clock, ahead of the real one by POUNDADMIN_CLOCK_AHEAD_DAYS: the s.14 clocks run
# in days (seven to claim, seven after the notice), and the servers keep their own time.
SITECUSTOMIZE = """
import os
days = int(os.environ.get("POUNDADMIN_CLOCK_AHEAD_DAYS") or 0)
if days:
    import datetime, time_machine
    ahead = datetime.timedelta(days=days)
    time_machine.travel(datetime.datetime.now(datetime.UTC) + ahead, tick=True).start()
"""


@contextlib.contextmanager
def app_servers(endpoint, tmp_path, *, days_ahead=0):
    """Two gunicorn instances and one worker on the test database, all on the S3 store, their
    clock `days_ahead` days ahead of the real one."""
    clock = tmp_path / f"clock{days_ahead}"
    clock.mkdir()
    (clock / "sitecustomize.py").write_text(SITECUSTOMIZE)
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
        "POUNDADMIN_CLOCK_AHEAD_DAYS": str(days_ahead),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(clock), os.environ.get("PYTHONPATH")])),
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    procs, bases = [], []
    log = (tmp_path / f"servers{days_ahead}.log").open("w")
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


def signed_in(user, days_ahead=0):
    """A browser session for `user`, valid on every server (the sessions live in PostgreSQL),
    signed in by the servers' clock."""
    ahead = timedelta(days=days_ahead)
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store["signed_in_at"] = int((timezone.now() + ahead).timestamp())
    if must_have_second_factor(user):  # and the second factor given (ADR 0053)
        store[DEVICE_ID_SESSION_KEY] = confirmed_authenticator(user).persistent_id
    store.create()
    Session.objects.filter(session_key=store.session_key).update(
        expire_date=timezone.now() + ahead + timedelta(hours=1)
    )
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
            "seizure_place": "Canal road near the bridge",
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


VILLAGE_KEY = "5f4e3d2c-1b0a-4987-a6b5-c4d3e2f1a0b9"
MARKET_KEY = "6a5f4e3d-2c1b-4a98-b7c6-d5e4f3a2b1c0"


def _proclaim(officer, read_from, post_to, url, channel, place, key, files=None):
    _page, token = csrf(officer, read_from + url)
    made = officer.post(
        post_to + url,
        data={
            "channel": channel,
            "made_on": timezone.localdate().isoformat(),
            "village": "",
            "place": place,
            "made_by": "Chowkidar Ram",
            "details": "",
            "idempotency_key": key,
            "csrfmiddlewaretoken": token,
        },
        files=files,
        allow_redirects=False,
        timeout=60,
    )
    assert made.status_code == 302, made.text[:500]


def proclamation_with_photo(a, b, officer, keeper, outsider, notice):
    # The drum in the village, with a photo, recorded on A; the photo read through B. The drum
    # at the market-place too, recorded on B: s.14 wants both before the sale.
    url = reverse("auctions:proclamation_new", args=[notice.pk])
    photo = {"photo": ("photo.jpg", jpeg(), "image/jpeg")}
    _proclaim(officer, b, a, url, "drum_village", "Chaupal", VILLAGE_KEY, files=photo)
    village = Proclamation.objects.get(notice=notice)
    _proclaim(officer, a, b, url, "drum_market", "Mohanlalganj cattle market", MARKET_KEY)
    photo_url = reverse("auctions:proclamation_photo", args=[village.pk])
    for who, base in ((officer, b), (keeper, a)):
        status, photo_bytes = fetch(who, base + photo_url)
        assert status == 200 and photo_bytes.startswith(b"\xff\xd8")
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
            "idempotency_key": hidden(page.text, "idempotency_key"),
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


def auction_conditions(a, b, clerk, district):
    # The District Magistrate's standing order for auctions, on A.
    url = reverse("auctions:conditions_new")
    _page, token = csrf(clerk, b + url)
    today = timezone.localdate().isoformat()
    made = clerk.post(
        a + url,
        data={
            "district": district.pk,
            "order_reference": "DM/Auction/7/2026",
            "order_date": today,
            "valid_from": today,
            "place": "Cattle market, Nigohan",
            "hours": "11:00 to 15:00",
            "reserve_policy": "Half the market value",
            "earnest_money": "1000",
            "buyer_declarations": "I am not an officer of police or a pound-keeper.",
            "chargeable_expenses": "Drum and announcement",
            "max_expenses_per_lot": "250",
            "s16_min_gap_days": "2",
            "idempotency_key": "4e6a8c0e-2f4b-4d6f-8a0c-3e5a7c9e1b3d",
            "csrfmiddlewaretoken": token,
        },
        allow_redirects=False,
        timeout=60,
    )
    assert made.status_code == 302, made.text[:500]


def auction_and_sale(a, b, officer, keeper, outsider, report, officer_user, days_ahead):
    # Days later by the servers' clock: the auction scheduled on A for the start of the day,
    # a bidder on B, the hammer checked on A and confirmed on B; the certificate from both.
    start = timezone.localtime(timezone.now() + timedelta(days=days_ahead)).replace(
        hour=0, minute=5, second=0, microsecond=0
    )
    url = reverse("auctions:auction_new") + f"?report={report.pk}"
    _page, token = csrf(officer, b + url)
    (animal_id,) = report.animals.values_list("pk", flat=True)
    scheduled = officer.post(
        a + url,
        data={
            "scheduled_for": start.strftime("%Y-%m-%dT%H:%M"),
            "place": "",
            "officer": officer_user.pk,
            "deputy": "",
            "deputation_order": "",
            "lots-TOTAL_FORMS": 1,
            "lots-INITIAL_FORMS": 1,
            "lots-0-head": animal_id,
            "lots-0-sequence": 1,
            "lots-0-reserve_price": "",
            "lots-0-include": "on",
            "idempotency_key": "5f7b9d1f-3a5c-4e7a-9b1d-4f6b8d0f2c4e",
            "csrfmiddlewaretoken": token,
        },
        allow_redirects=False,
        timeout=60,
    )
    assert scheduled.status_code == 302, scheduled.text[:800]
    auction = Auction.objects.get(lots__animals=animal_id)
    bidder_url = reverse("auctions:bidder_new", args=[auction.pk])
    _page, token = csrf(officer, a + bidder_url)
    registered = officer.post(
        b + bidder_url,
        data={
            "name": "Ram Kishore",
            "address": "Village Samesi",
            "id_kind": "voter",
            "id_number": "UP/55/123",
            "phone": "9812345678",
            "declaration_signed": "on",
            "idempotency_key": "2d4f6a8c-1e3b-4d5f-9a7c-0b2d4f6a8c1e",
            "csrfmiddlewaretoken": token,
        },
        allow_redirects=False,
        timeout=60,
    )
    assert registered.status_code == 302, registered.text[:800]
    bidder = auction.bidders.get()
    lot_url = reverse("auctions:lot_sell", args=[auction.lots.get().pk])
    _page, token = csrf(officer, b + lot_url)
    sale = {
        "sale-buyer": bidder.pk,
        "sale-price": "6000",
        "sale-payment_mode": "cash",
        "sale-payment_reference": "",
        "sale-expenses": "150",
        "csrfmiddlewaretoken": token,
    }
    check = officer.post(a + lot_url, data={**sale, "hammer": "1"}, timeout=60)
    assert check.status_code == 200 and 'name="confirm"' in check.text, check.text[:800]
    sold = officer.post(
        b + lot_url, data={**sale, "confirm": "1"}, allow_redirects=False, timeout=60
    )
    assert sold.status_code == 302, sold.text[:800]
    sale = Sale.objects.get()
    # Sold by the servers' clock, after the seven days of the notice.
    assert timezone.localtime(sale.sold_at).date() >= report.notice.earliest_sale
    assert timezone.localtime(sale.sold_at).date() > timezone.localdate()
    certificate_url = reverse("auctions:sale_certificate_pdf", args=[sale.pk])
    first = officer.get(a + certificate_url, timeout=60)
    assert first.content.startswith(b"%PDF-")
    assert keeper.get(b + certificate_url, timeout=60).content == first.content
    assert outsider.get(a + certificate_url, timeout=30).status_code == 404


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
    text = exported.decode("utf-8-sig")
    # The release's payment is in it, under its receipt; the memo names no one (docs/retention.md).
    assert status == 200 and "impounding.release:" in text
    assert "Shyam Lal" not in text
    assert fetch(keeper, b + file_url) == (404, None)  # the file is the magistrate's


def export_in_the_request(a, office):
    """The ledger's export streamed by the server itself: one COPY, written by PostgreSQL under
    the commands' statement timeout (README, ADR 0090), through the app's own database role."""
    today = timezone.localdate().isoformat()
    url = a + reverse("office:export_ledger") + f"?from={today}&to={today}"
    with office.get(url, stream=True, timeout=30) as response:
        assert response.status_code == 200
        assert response.headers["Content-Type"].startswith("text/csv")
        content = b"".join(response.iter_content(chunk_size=None))
    text = content.decode("utf-8-sig")
    header, *lines = text.split("\n")
    assert header.startswith("Transaction,") and lines[-1] == ""  # each line ends in a line feed
    assert "\r" not in text and any("impounding.release:" in line for line in lines)


def test_a_workflow_across_two_servers_with_the_store_and_the_worker(
    s3,
    tmp_path,
    district,
    pound,
    pound_keeper,
    police_officer,
    dm_clerk,
    magistrate,
    other_pound,
    tariffs,
    time_machine,
):
    # `time_machine` unused: the servers keep the real clock (or one days ahead of it), so
    # this process keeps the real one too.
    endpoint, store = s3
    elsewhere = staff(Role.POUND_KEEPER, "keeper_elsewhere", pound=other_pound)
    with app_servers(endpoint, tmp_path) as (a, b):
        keeper, office = signed_in(pound_keeper), signed_in(magistrate)
        officer, clerk = signed_in(police_officer), signed_in(dm_clerk)
        outsider = signed_in(elsewhere)

        entry_pk = intake_with_photo(a, b, keeper, outsider, pound)
        release_with_receipt(a, b, keeper, office, outsider, entry_pk)
        auction_conditions(a, b, clerk, district)
        notice = s14_report_and_notice(a, b, keeper, officer, outsider, entry_pk)
        proclamation_with_photo(a, b, officer, keeper, outsider, notice)
        remittance(a, b, keeper, clerk, pound)
        export_through_the_worker(a, b, office, keeper)
        export_in_the_request(a, office)

    # The seven days after the notice have run: the servers again, nine days on.
    ahead = 9
    with app_servers(endpoint, tmp_path, days_ahead=ahead) as (a, b):
        officer = signed_in(police_officer, ahead)
        keeper, outsider = signed_in(pound_keeper, ahead), signed_in(elsewhere, ahead)
        auction_and_sale(a, b, officer, keeper, outsider, notice.report, police_officer, ahead)

    keys = [o["Key"] for o in store.list_objects_v2(Bucket=BUCKET)["Contents"]]
    assert {k.split("/", 1)[0] for k in keys} >= {
        "animals",
        "documents",
        "prepared",
        "proclamations",
    }
    assert run_checks() == []
    assert verify_chain() == []
