"""The gaushala handover at 360 px (ADR 0070): under the Uttar Pradesh pack the DM's clerk adds
a body to the register, prepares the handover of a cow (first with nothing filled in, to see the
errors), the Magistrate approves it on the disposal decision screen and the certificate is
offered, then the clerk prepares the month's upkeep claim. axe-core finds nothing on any page."""

import re
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from playwright.sync_api import expect

from auctions.models import DisposalOrder, Gaushala
from auctions.services import gaushala as gaushalas
from tests.auctions.factories import conditions, ready_for_sale
from tests.browser.conftest import check_a11y, check_fits_width, screenshot
from tests.browser.test_s16 import sign_in
from tests.rulepacks.factories import take

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def look(page, name):
    screenshot(page, f"gaushala-{name}")
    check_a11y(page, name)
    check_fits_width(page)


def test_clerk_prepares_and_magistrate_approves_a_handover(
    page, live_server, pound, district, pound_keeper, police_officer, dm_clerk, magistrate, tariffs
):
    take(district, "up")
    conditions(district)
    entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    base = live_server.url

    sign_in(page, base, "dm_clerk")
    page.goto(base + reverse("auctions:auctions"))
    page.get_by_role("link", name="Gaushalas and welfare bodies").click()
    look(page, "register-empty")
    page.get_by_role("link", name="Add a body").click()
    page.get_by_label("Kind of body").select_option("gaushala")
    page.get_by_label("Name").fill("Shri Krishna Gaushala, Mohanlalganj")
    page.get_by_label("Registration number").fill("UP/GS/2019/0042")
    page.get_by_label("Address").fill("Mohanlalganj, Lucknow")
    page.get_by_label("Capacity (head of cattle)").fill("40")
    page.get_by_label("Agreed upkeep a head a day (₹)").fill("50.00")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("[data-error-summary]")).to_be_visible()
    look(page, "register-errors")
    page.get_by_label("Order or authority that fixed the rate").fill("DM order 112/2026")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(r"/auctions/gaushalas/$"))
    look(page, "register")
    body = Gaushala.objects.get()

    page.get_by_role("link", name="Prepare a handover order").click()
    page.get_by_role("button", name="Send for approval").click()
    expect(page.locator("[data-error-summary]")).to_be_visible()
    look(page, "handover-errors")
    page.get_by_label("Gaushala or welfare body").select_option(str(body.pk))
    page.get_by_label(re.compile(entry.animals.get().reference)).check()
    page.get_by_label("Why the animals are handed over").fill("A cow may not be sold in UP")
    page.get_by_role("button", name="Send for approval").click()
    page.wait_for_url(re.compile(r"/auctions/disposals/$"))
    look(page, "disposals")

    sign_in(page, base, "magistrate")
    page.goto(base + reverse("auctions:disposals"))
    page.get_by_role("link", name=re.compile("^Decide")).click()
    look(page, "decide")
    page.get_by_label("Approve the disposal").check()
    page.get_by_role("button", name="Record the decision").click()
    page.wait_for_url(re.compile(r"/auctions/disposals/$"))
    order = DisposalOrder.objects.get()
    assert order.status == DisposalOrder.Status.APPROVED
    assert order.handover.certificate is not None
    page.goto(base + reverse("auctions:disposal_decide", args=[order.pk]))
    certificate = page.get_by_role("link", name="The certificate of handover as a PDF")
    assert certificate.get_attribute("href") == reverse(
        "auctions:handover_certificate_pdf", args=[order.pk]
    )
    look(page, "decided")

    first = (order.handover.received_on.replace(day=1) + timedelta(days=32)).replace(day=1)
    days = gaushalas.animal_days(body, first)
    with time_machine.travel(first + timedelta(days=40)):
        sign_in(page, base, "dm_clerk")
        page.goto(base + reverse("auctions:upkeep_claim_new"))
        look(page, "claim-new")
        page.get_by_label("Gaushala or welfare body").select_option(str(body.pk))
        page.get_by_label("Month").fill(f"{first:%Y-%m}")
        page.get_by_label("Animal-days claimed").fill(str(days))
        page.get_by_role("button", name="Send for approval").click()
        page.wait_for_url(re.compile(r"/auctions/gaushalas/upkeep/$"))
        look(page, "claims")


def test_over_paid_upkeep_on_the_bodys_page_and_its_deduction_on_the_claim(
    page, live_server, pound, district, pound_keeper, police_officer, dm_clerk, magistrate, tariffs
):
    """A death reported after January was paid: the body's page lists the over-payment, and the
    Magistrate reads February's claim with its deduction line and net, at 360 px."""
    import uuid
    from datetime import UTC, date, datetime

    from auctions.models import Handover
    from auctions.services import gaushala_holding as holding
    from tests.auctions.test_gaushala import BODY, hand_over
    from tests.impounding.factories import cow

    take(district, "up")
    conditions(district)
    entry, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow(), cow()]
    )
    body = gaushalas.register_gaushala(district=district, by=dm_clerk, **BODY)
    order = hand_over(pound, entry, body, dm_clerk, magistrate)
    Handover.objects.filter(pk=order.handover.pk).update(received_on=date(2027, 1, 1))
    handover = Handover.objects.get(pk=order.handover.pk)
    base = live_server.url
    with time_machine.travel(datetime(2027, 3, 15, 6, tzinfo=UTC)):
        jan = gaushalas.prepare_claim(
            gaushala=body, month=date(2027, 1, 1), animal_days_claimed=62, by=dm_clerk
        )
        gaushalas.decide_claim(claim=jan, by=magistrate, approve=True)
        holding.record_end(
            handover=handover,
            animal_id=order.animals.order_by("pk").first().pk,
            kind="died",
            on=date(2027, 1, 10),
            cause="old age",
            reference="GS/1/2027",
            by=dm_clerk,
            idempotency_key=uuid.uuid4(),
        )
        sign_in(page, base, "dm_clerk")
        page.goto(base + reverse("auctions:gaushala_animals") + f"?body={body.pk}")
        expect(page.get_by_role("heading", name="Upkeep over-paid, to recover")).to_be_visible()
        look(page, "overpaid")
        feb = gaushalas.prepare_claim(
            gaushala=body, month=date(2027, 2, 1), animal_days_claimed=28, by=dm_clerk
        )
        sign_in(page, base, "magistrate")
        page.goto(base + reverse("auctions:upkeep_claim_decide", args=[feb.pk]))
        expect(page.get_by_text("Net payable")).to_be_visible()
        expect(page.get_by_text("₹300.00")).to_be_visible()
        look(page, "claim-deduction")


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_clerk_records_an_escape_and_then_the_recapture(
    page,
    live_server,
    pound,
    district,
    pound_keeper,
    police_officer,
    dm_clerk,
    magistrate,
    tariffs,
    lang,
    monkeypatch,
):
    """An escape reported by the body, at 360 px in English and Hindi: first with nothing
    chosen (the errors), then recorded; the animal is listed as escaped, the list pages by
    keyset (one row a page here), and its form then offers the recapture or its being found
    dead, which the clerk records."""
    import uuid
    from datetime import UTC, date, datetime

    from auctions.models import Handover, HoldingEnd
    from auctions.services import gaushala_holding as holding
    from tests.auctions.test_gaushala import BODY, hand_over
    from tests.browser.conftest import sign_in as sign_in_as
    from tests.impounding.factories import cow

    take(district, "up")
    conditions(district)
    entry, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow(), cow()]
    )
    body = gaushalas.register_gaushala(district=district, by=dm_clerk, **BODY)
    order = hand_over(pound, entry, body, dm_clerk, magistrate)
    Handover.objects.filter(pk=order.handover.pk).update(received_on=date(2027, 1, 1))
    animal, other = order.animals.order_by("pk")
    base = live_server.url
    monkeypatch.setattr("auctions.views.gaushala.LIST_SIZE", 1)
    with time_machine.travel(datetime(2027, 3, 15, 6, tzinfo=UTC)):
        sign_in_as(page, base, "dm_clerk", lang=lang)
        page.goto(base + reverse("auctions:holding_end_new", args=[animal.pk]))
        page.locator("main button.btn-primary").click()
        expect(page.locator("[data-error-summary]")).to_be_visible()
        look(page, f"escape-errors-{lang}")
        page.locator("input[value=escaped]").check()
        page.locator("#id_on").fill("10-02-2027")
        page.locator("#id_reference").fill("GS/7/2027")
        page.locator("main button.btn-primary").click()
        page.wait_for_url(re.compile(r"/auctions/gaushalas/animals/"))
        expect(page.locator("#escaped")).to_be_visible()
        look(page, f"escaped-list-{lang}")
        holding.record_end(
            handover=Handover.objects.get(pk=order.handover.pk),
            animal_id=other.pk,
            kind="escaped",
            on=date(2027, 2, 12),
            reference="GS/9/2027",
            by=dm_clerk,
            idempotency_key=uuid.uuid4(),
        )
        page.goto(base + reverse("auctions:gaushala_animals") + f"?body={body.pk}")
        escaped_list = page.locator("#escaped + p + div")
        expect(escaped_list.locator("tbody tr")).to_have_count(1)
        page.locator("a[href*=escaped_after]").click()
        expect(page.locator("a[href$='#escaped']").first).to_be_visible()
        expect(escaped_list.get_by_text(f"· {other.number} ·")).to_be_visible()
        look(page, f"escaped-page-2-{lang}")
        page.goto(base + reverse("auctions:holding_end_new", args=[animal.pk]))
        expect(page.locator("input[value=recaptured]")).to_be_visible()
        expect(page.locator("input[value=died]")).to_have_count(0)
        page.locator("input[value=found_dead]").check()
        look(page, f"recapture-{lang}")
        page.locator("#id_on").fill("20-02-2027")
        page.locator("#id_reference").fill("GS/8/2027")
        page.locator("main button.btn-primary").click()
        page.wait_for_url(re.compile(r"/auctions/gaushalas/animals/"))
        look(page, f"found-dead-{lang}")
    assert HoldingEnd.objects.get(animal=animal, kind="found_dead").began_by.kind == "escaped"
