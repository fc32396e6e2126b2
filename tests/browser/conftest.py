"""Browser fixtures: the real service under gunicorn and Debian's Chromium driven by Playwright.

One server and one browser serve the whole browser session (starting Chromium costs seconds);
each test gets a fresh context, so cookies, storage and emulation never leak between tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from tests.conftest import REPO
from tests.servers import gunicorn

CHROMIUM = "/usr/bin/chromium"
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 740}


@pytest.fixture(scope="session")
def base_url(index_dir: Path, tmp_path_factory) -> Iterator[str]:
    with gunicorn(index_dir, tmp_path_factory.mktemp("browser-server")) as url:
        yield url


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture()
def cached_browser(playwright: Playwright) -> Iterator[Browser]:
    """Chromium with its back/forward cache on, as readers have it (Playwright turns it off): Back
    shows the page left as it was, boxes and lists included, with no request."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
                                         ignore_default_args=["--disable-back-forward-cache"])
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture()
def context(browser: Browser, base_url: str) -> Iterator[BrowserContext]:
    ctx = browser.new_context(base_url=base_url, viewport=DESKTOP)
    ctx.set_default_timeout(10_000)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture()
def page(context: BrowserContext, tmp_path: Path) -> Iterator[Page]:
    """A page in a fresh context; a screenshot of where the test ended is saved in its tmp_path."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    if not page.is_closed():
        page.screenshot(path=str(tmp_path / "end.png"), full_page=True)
    assert not errors, f"JavaScript errors on the page: {errors}"
