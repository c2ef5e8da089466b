"""A member of the public reports a lost cow at 360 px, by keyboard, in English and in Hindi:
the form's errors, the one-time code, the check of the answers and the confirmation, each
passing axe; the keeper then confirms the match and the owner's message is recorded
(ADR 0079)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from impounding import lost_notify
from impounding.models import LostMatch, LostNotice, LostReport
from tests.browser.conftest import check_a11y, check_fits_width, screenshot
from tests.impounding.factories import cow, make_entry

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=timezone.now() - timedelta(days=1),
        seizure_place="Nigohan canal",
        animals=[cow(colour="White")],
    )


@pytest.fixture
def codes(monkeypatch):
    sent = []
    real = lost_notify.send_verification_code

    def capture(**kw):
        sent.append(kw["code"])
        real(**kw)

    monkeypatch.setattr(lost_notify, "send_verification_code", capture)
    return sent


def look(page, name):
    check_a11y(page, name)
    check_fits_width(page)
    screenshot(page, f"lost-{name}")


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_a_lost_cow_reported_from_a_phone_is_found(
    page, live_server, district, entry, pound_keeper, codes, lang
):
    base = live_server.url
    page.context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page.goto(base + "/")  # the footer offers the report on every page
    page.locator(f"footer a[href='{reverse('lost_report')}']").click()
    assert page.url == base + reverse("lost_report")
    assert page.locator("html").get_attribute("lang") == lang
    look(page, f"form-{lang}")

    # Sent empty: the error summary, each error beside its field.
    page.locator("#id_phone").press("Enter")
    expect(page.locator("[data-error-summary]")).to_be_visible()
    assert page.locator(".invalid-feedback, .is-invalid").count() > 0
    look(page, f"errors-{lang}")

    page.locator("#id_species").select_option("cattle")
    page.locator("#id_colour").fill("white")
    page.locator("#id_place").fill("Nigohan")
    page.locator("#id_district").select_option(str(district.pk))
    lost_on = timezone.localdate() - timedelta(days=2)
    page.locator("#id_lost_on").fill(f"{lost_on:%d-%m-%Y}")
    page.locator("#id_phone").fill("98765 43210")
    page.locator("#id_phone").press("Enter")
    page.wait_for_url(base + reverse("lost_code"))
    look(page, f"code-{lang}")
    page.locator("#id_code").fill(codes[-1])
    page.locator("#id_code").press("Enter")
    page.wait_for_url(base + reverse("lost_check"))
    assert "9876543210" in page.locator("main").inner_text()
    look(page, f"check-{lang}")
    page.keyboard.press("End")
    page.locator("main form button").last.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(base + reverse("lost_done"))
    report = LostReport.objects.get()
    expect(page.locator(".confirmation-reference")).to_have_text(report.reference)
    look(page, f"done-{lang}")

    # The keeper sees the candidate on the entry and confirms it.
    page.context.clear_cookies()
    page.goto(f"{base}/login/")
    page.locator("#id_username").fill("pound_keeper")
    page.locator("#id_password").fill("correct-horse-battery")
    page.locator("#id_password").press("Enter")
    page.wait_for_url(f"{base}/")
    page.goto(base + reverse("impounding:entry", args=[entry.pk]))
    match = LostMatch.objects.get()
    section = page.locator(f"section[aria-labelledby='lost-match-{match.pk}']")
    expect(section).to_contain_text(report.reference)
    look(page, f"entry-{lang}")
    section.get_by_role("button").first.click()
    page.wait_for_load_state()
    assert LostMatch.objects.get().state == LostMatch.State.CONFIRMED
    notice = LostNotice.objects.get(kind=LostNotice.Kind.MATCH)
    assert notice.language == lang and "₹" in notice.text


@pytest.fixture
def far_district():
    from tests.accounts.factories import DistrictFactory, StateFactory

    kerala = StateFactory(code="kl", name="Kerala", name_hi="केरल")
    return DistrictFactory(state=kerala, code="tvm", name="Thiruvananthapuram", name_hi="")


def district_values(page):
    return [v for v in page.locator("#id_district option").evaluate_all(
        "options => options.map(o => o.value)"
    ) if v]  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_district_list_follows_the_state_with_and_without_javascript(
    page, browser, live_server, district, other_district, far_district, lang
):
    base = live_server.url
    cookie = [{"name": "django_language", "value": lang, "url": base}]
    page.context.add_cookies(cookie)
    page.goto(base + reverse("lost_report"))
    # With JavaScript: no button; the list follows the State at once.
    expect(page.locator("[data-show-districts]")).to_have_count(0)
    assert district_values(page) == []
    page.locator("#id_state").select_option(str(far_district.state_id))
    assert district_values(page) == [str(far_district.pk)]
    page.locator("#id_state").select_option(str(district.state_id))
    assert sorted(district_values(page)) == sorted([str(district.pk), str(other_district.pk)])
    page.locator("#id_district").select_option(str(other_district.pk))
    look(page, f"state-{lang}")

    # Without it: the button sends the form back with the State's districts.
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 360, "height": 780}, locale=lang
    )
    context.add_cookies(cookie)
    bare = context.new_page()
    bare.goto(base + reverse("lost_report"))
    bare.locator("#id_state").select_option(str(far_district.state_id))
    bare.locator("#id_place").fill("Kovalam")
    bare.locator("[data-show-districts]").click()
    bare.wait_for_load_state()
    assert district_values(bare) == [str(far_district.pk)]
    assert bare.locator("#id_place").input_value() == "Kovalam"
    check_fits_width(bare)
    screenshot(bare, f"lost-state-nojs-{lang}")
    context.close()
