"""The trainer's page of a training district (ADR 0080), in English and Hindi, at 360 and 1280
px: the TRAINING banner, the steps of the s.14 cycle with their screens, and the clock moved
forward a day and a week; axe-core finds no WCAG A/AA violation."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from kernel import clock
from kernel.formatting import indate
from tests.auctions.test_training import t_keeper, t_pound, trainer, training  # noqa: F401
from tests.browser.conftest import check_a11y, check_fits_width, screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("lang", ["en", "hi"])
@pytest.mark.parametrize("width", [360, 1280])
def test_the_trainer_walks_the_clock_forward_from_the_tour_page(
    page,
    live_server,
    lang,
    width,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    trainer,  # noqa: F811
):
    page.set_viewport_size({"width": width, "height": 800})
    base = live_server.url
    sign_in(page, base, trainer.username, lang)
    expect(page.locator("#training-banner")).to_be_visible()
    page.locator("#training-banner a").click()
    page.wait_for_url(f"{base}{reverse('accounts:training', args=[training.pk])}")
    # The s.14 cycle, then release, deposit and the s.16 sale with its account, then the
    # remittance, the surplus's three months and its transfer's challan: each names its user.
    expect(page.locator(".training-steps li")).to_have_count(19)
    for step in page.locator(".training-steps li").all():
        expect(step).to_contain_text("_trn")
    check_a11y(page, f"training-{lang}-{width}")
    check_fits_width(page)
    screenshot(page, f"training-{lang}-{width}")
    for days in (1, 7):
        page.locator(f"button[name=move][value='{days}']").click()
        page.wait_for_load_state()
        expect(page.locator("[role=status] .alert-success")).to_be_visible()
    training.refresh_from_db()
    assert training.clock_offset == timedelta(days=8)
    expect(page.locator("#training-now")).to_contain_text(
        indate(timezone.localdate() + timedelta(days=8))
    )
    assert clock.today(training) == timezone.localdate() + timedelta(days=8)
    # On to a step's screen: the auctions, which the Magistrate reads.
    page.locator(f".training-steps a[href='{reverse('auctions:auctions')}']").first.click()
    expect(page.locator("#training-banner")).to_be_visible()
    check_a11y(page, f"training-step-{lang}-{width}")
