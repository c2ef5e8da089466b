"""Playwright against Debian's Chromium, with axe-core for accessibility."""

import json
import re
from base64 import b32decode
from pathlib import Path

import pytest
from django.utils import timezone
from django_otp.oath import TOTP, totp
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.twofactor import stored_recovery_code

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text()
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": "/usr/bin/chromium",
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    # Mobile first: every browser test runs at 360 px wide unless it asks otherwise.
    return {
        **browser_context_args,
        "viewport": {"width": 360, "height": 780},
        "locale": "en-IN",
        "timezone_id": "Asia/Kolkata",
        "accept_downloads": True,
    }


@pytest.fixture
def context(context):
    """The page's clock starts at the server's and ticks on from there: 12:00 IST today under
    tests/conftest.py's `midday_ist`. Left on the machine's clock, the page is up to 12 hours
    from the server, and on the next day once midnight IST passes during a test: the field app
    then dates a feeding round by the phone's day, which the server refuses as in the future.
    (A service worker, and the browser's check of a cookie's expiry, keep the machine's clock; a
    test that moves `time_machine` moves the server's alone.)"""
    context.clock.install(time=timezone.now())
    return context


@pytest.fixture
def page(page):
    """A page that fails the test on any browser console error (a CSP refusal, a 404 asset)."""
    errors = page.console_errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "response",
        lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None,
    )
    yield page
    assert errors == [], f"browser console errors: {errors}"


def check_a11y(page, label=""):
    """Run axe-core on the current page and fail on any WCAG 2.2 A/AA violation.

    axe is evaluated through the DevTools protocol, so the page's strict CSP needs no exception.
    A page still arriving from a click is waited for: axe on a document being replaced fails.
    """
    page.wait_for_load_state()
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(AXE)
    result = page.evaluate(
        "async (tags) => await axe.run(document, {runOnly: {type: 'tag', values: tags}})",
        WCAG_TAGS,
    )
    violations = [
        {
            "id": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "nodes": [n["target"] for n in v["nodes"]][:5],
        }
        for v in result["violations"]
    ]
    assert violations == [], f"axe violations on {label or page.url}:\n" + json.dumps(
        violations, indent=1, ensure_ascii=False
    )


def check_fits_width(page):
    """No sideways scroll at the viewport's width (WCAG 1.4.10 reflow at 360 px), and nothing
    cut off past its edge, once the page has settled: its web fonts loaded (a line in the
    fallback font is wider) and anything that moves as the page opens at rest. What reaches past
    the edge is named: an element's box, or a line of text that overflows a box that is itself
    narrow enough (a long reference in a heading), outside boxes that scroll on their own."""
    measure = """async () => {
        await document.fonts.ready;
        const edge = document.documentElement.clientWidth;
        const clipped = e => {  // inside a box that scrolls or clips sideways on its own
            for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
                if (getComputedStyle(a).overflowX !== 'visible') return true;
            }
            return false;
        };
        const name = (e, text) => e.tagName + '.' + e.className + ' ' + text.trim().slice(0, 40);
        const past = [];
        for (const e of document.querySelectorAll('body *')) {
            const right = e.getBoundingClientRect().right;
            if (right > edge + 0.5 && !clipped(e)) past.push([right, name(e, e.textContent)]);
        }
        const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        const range = document.createRange();
        while (texts.nextNode()) {
            const node = texts.currentNode, parent = node.parentElement;
            range.selectNodeContents(node);
            const right = range.getBoundingClientRect().right;
            if (right > edge + 0.5 && parent && !clipped(node)) {
                past.push([right, 'text in ' + name(parent, node.textContent)]);
            }
        }
        const furthest = past.length ? Math.max(...past.map(p => p[0])) : edge;
        return {
            overflow: Math.max(
                Math.ceil(furthest - edge), document.documentElement.scrollWidth - edge),
            widest: past.sort((a, b) => b[0] - a[0]).slice(0, 3).map(p => p[1]),
        };
    }"""
    result = page.evaluate(measure)
    for _ in range(4):
        if result["overflow"] <= 0:
            return
        page.wait_for_timeout(250)
        result = page.evaluate(measure)
    assert result["overflow"] <= 0, (
        f"page is {result['overflow']}px wider than the viewport: {page.url} {result['widest']}"
    )


def screenshot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


PASSWORD = "correct-horse-battery"


def sign_in(page, base, username, lang="en"):
    """Sign in through the login form, with the language cookie set first."""
    page.context.clear_cookies()
    page.context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page.goto(f"{base}/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(PASSWORD)
    page.locator("#id_password").press("Enter")
    pass_second_factor(page, base, username)


AFTER_PASSWORD = r"/(accounts/second-factor/[a-z-/]*)?(\?.*)?$"


def pass_second_factor(page, base, username):
    """After the password, give the second factor where it is asked (ADR 0053): on a first
    sign-in, set an authenticator up from the key the page shows and go on past the recovery
    codes; later, type the code the user's authenticator shows. Then the home page."""
    page.wait_for_url(re.compile(re.escape(base) + AFTER_PASSWORD))
    if "/accounts/second-factor/setup/" in page.url:
        key = page.locator("#second-factor-key").inner_text().replace(" ", "")
        page.locator("#id_code").fill(f"{totp(b32decode(key)):06d}")
        page.locator("#id_code").press("Enter")
        page.wait_for_url("**/accounts/second-factor/recovery-codes/**")
        page.locator("#recovery-codes-continue").click()
    elif "/accounts/second-factor/" in page.url:
        page.locator("#id_code").fill(fresh_code(username))
        page.locator("#id_code").press("Enter")
    page.wait_for_url(f"{base}/")


def fresh_code(username):
    """A code the user's authenticator would show that has not been taken yet (a code is taken
    once); a recovery code when this period's and the next one's are both used up."""
    device = TOTPDevice.objects.get(user__username=username, confirmed=True)
    shown = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    now = shown.t()
    wanted = max(now, device.last_t + 1)
    if wanted <= now + device.tolerance:
        shown.drift += wanted - now
        return f"{shown.token():06d}"
    recovery, _ = StaticDevice.objects.get_or_create(user=device.user, defaults={"name": "r"})
    code = StaticToken.random_token()
    recovery.token_set.create(token=stored_recovery_code(code))
    return code


def at_both_widths(page, name):
    """axe and the reflow check at 360 px and 1280 px, with a screenshot `name`-width of each."""
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        check_a11y(page, f"{name} {width}")
        check_fits_width(page)
        screenshot(page, f"{name}-{width}")
