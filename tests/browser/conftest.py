"""Playwright against Debian's Chromium, with axe-core for accessibility."""

import json
from pathlib import Path

import pytest

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
    """
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
    """No element reaches past the viewport's edge (WCAG 1.4.10 reflow at 360 px), once the
    page has settled: its web fonts loaded (a line in the fallback font is wider) and anything
    that moves as the page opens at rest. Each element's box is measured, so what is cut off or
    must be scrolled to shows; an empty margin past the edge is reported but does not fail (the
    auction page after a sale has 10 px of it in the full suite, not alone: to be found)."""
    measure = """async () => {
        await document.fonts.ready;
        const edge = document.documentElement.clientWidth;
        const clipped = e => {  // inside a box that scrolls or clips sideways on its own
            for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
                if (getComputedStyle(a).overflowX !== 'visible') return true;
            }
            return false;
        };
        const past = [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > edge + 0.5 && !clipped(e));
        return {
            overflow: past.length
                ? Math.ceil(Math.max(...past.map(e => e.getBoundingClientRect().right)) - edge)
                : 0,
            scroll: document.documentElement.scrollWidth - edge,
            widest: past.slice(-3).map(e => e.tagName + '.' + e.className + ' '
                + e.textContent.slice(0, 40)),
        };
    }"""
    result = page.evaluate(measure)
    for _ in range(4):
        if result["overflow"] <= 0:
            break
        page.wait_for_timeout(250)
        result = page.evaluate(measure)
    if result["scroll"] > 0 and result["overflow"] <= 0:
        print(f"{page.url}: {result['scroll']} px of empty margin past the edge")
    assert result["overflow"] <= 0, (
        f"page is {result['overflow']}px wider than the viewport: {page.url} {result['widest']}"
    )


def screenshot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
