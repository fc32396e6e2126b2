"""Layout: nothing overflows a 360 px screen, in light or dark; the README's screenshots.

Set TOPICHUB_SCREENSHOTS=1 to also write the desktop and 360 px screenshots of a search for
"stargate" into docs/screenshots/ (the suite never writes into the repository otherwise).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.conftest import DESKTOP, PHONE
from tests.conftest import REPO

pytestmark = pytest.mark.slow  # make check leaves it out; make test and CI run it

SCREENSHOTS = REPO / "docs" / "screenshots"
PAGES = ("/?q=stargate", "/?q=" + "a" * 300, "/?topic=chips-accelerators", "/events/expanding-stargate-to-michigan",
         "/guides/training-infrastructure", "/topics", "/help",
         # A long word in a note, a chip and a 404 page ran off a phone's screen (a QA pass).
         "/?q=stargate+-https://www.example.com/articles/2025/stargate-expansion", "/?topic=" + "averylongtopicname" * 4,
         "/events/" + "x" * 110)


@pytest.mark.parametrize("name, viewport, scheme", [("desktop", DESKTOP, "light"), ("360px", PHONE, "dark")])
def test_pages_fit_the_screen_in_light_and_dark(browser: Browser, base_url: str, tmp_path: Path, name, viewport, scheme):
    context = browser.new_context(base_url=base_url, viewport=viewport, color_scheme=scheme)
    page = context.new_page()
    try:
        for url in PAGES:
            page.goto(url)
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, f"{url} is {overflow}px wider than a {viewport['width']}px screen"
            expect(page.locator("#q")).to_be_visible()
        page.goto("/?q=stargate")
        # The results come before the filters on a phone; a link jumps to the filters.
        first_hit = page.locator(".hit").first.bounding_box()
        filters = page.locator("#filters").bounding_box()
        assert first_hit and filters
        assert (first_hit["y"] < filters["y"]) == (viewport["width"] < 720)
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (background == "rgb(255, 255, 255)") == (scheme == "light")
        shot = tmp_path / f"search-stargate-{name}.png"
        page.screenshot(path=str(shot))
        if os.environ.get("TOPICHUB_SCREENSHOTS"):
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(shot, SCREENSHOTS / shot.name)
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 1920, 2560])
def test_the_header_lines_up_with_the_page_on_a_wide_screen(browser: Browser, base_url: str, width: int):
    # At 1920 px the brand and the search box stood at the screen's left edge, the filters and results
    # in a column centred some 450 px to their right (a QA pass).
    context = browser.new_context(base_url=base_url, viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto("/?q=stargate")
        brand, filters = page.locator(".brand").bounding_box(), page.locator("#filters-heading").bounding_box()
        assert brand and filters and abs(brand["x"] - filters["x"]) <= 2, (brand, filters)
    finally:
        context.close()


def test_a_guide_linking_an_event_of_a_long_id_fits_a_phone(browser: Browser, tmp_path: Path):
    # A guide's link to an event whose id has no hyphen to break at (and the event's own long words)
    # made the page 586 px wide on a 360 px screen: the reader scrolled sideways to read each line.
    from index.build import build
    from tests.conftest import write_jsonl
    from tests.servers import gunicorn

    long_id = "deb-libreoffice_l10n_extremely_long_package_identifier_without_breaks_v2"
    build([write_jsonl(tmp_path / "long.jsonl", [
        {"id": long_id, "title": "Long", "summary": f"Built from {long_id}_source_tarball.", "topics": ["longs"]},
        {"id": "g1", "kind": "guide", "title": "Long guide", "topics": ["longs"],
         "summary": f"See /events/{long_id} for details.\n- And /events/{long_id} in a list."},
    ])], root=tmp_path / "ix", semantic=False)
    with gunicorn(tmp_path / "ix", tmp_path, workers=1) as base:
        context = browser.new_context(base_url=base, viewport=PHONE)
        page = context.new_page()
        try:
            for url in ("/guides/longs", f"/events/{long_id}"):
                page.goto(url)
                overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
                assert overflow <= 0, f"{url} is {overflow}px wider than a {PHONE['width']}px screen"
            page.goto("/guides/longs")
            assert page.get_by_role("link", name=f"/events/{long_id}").count() == 2
        finally:
            context.close()


def test_text_grows_with_the_readers_font_size(browser: Browser, base_url: str):
    """A reader who sets a larger font size in the browser (32 px) got the headings, the search box and
    the filters' column twice as large, but the snippets, the summary and the filters' labels left at 16 px:
    the body's size was written in pixels."""
    context = browser.new_context(base_url=base_url, viewport=DESKTOP)
    page = context.new_page()
    try:
        cdp = context.new_cdp_session(page)
        cdp.send("Page.enable")
        cdp.send("Page.setFontSizes", {"fontSizes": {"standard": 32, "fixed": 26}})
        for url, selector in (("/?q=stargate", ".hit .snippet"), ("/?q=stargate", ".facet-label"),
                              ("/events/expanding-stargate-to-michigan", ".summary-text")):
            page.goto(url)
            size = page.locator(selector).first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
            assert size == 32, f"{selector} of {url} is {size}px with the browser's font size at 32px"
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0
    finally:
        context.close()


@pytest.mark.parametrize("viewport, font", [({"width": 390, "height": 844}, 32), ({"width": 320, "height": 640}, 32)])
def test_pages_fit_a_phone_with_a_large_default_font(browser: Browser, base_url: str, viewport, font):
    """A reader's larger default font (WCAG 1.4.4, 1.4.10): the sort links ran 204 px off a 390 px screen."""
    context = browser.new_context(base_url=base_url, viewport=viewport)
    page = context.new_page()
    try:
        context.new_cdp_session(page).send("Page.setFontSizes", {"fontSizes": {"standard": font}})
        for url in ("/?q=stargate", "/?q=gpu&page=2", "/?topic=chips-accelerators"):
            page.goto(url)
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, f"{url} is {overflow}px wider than a {viewport['width']}px screen at a {font}px font"
    finally:
        context.close()


def test_a_mark_is_told_without_its_colour(browser: Browser, base_url: str):
    """Underlined as well as tinted (WCAG 1.4.1), and so on paper, where a background is not printed."""
    context = browser.new_context(base_url=base_url)
    page = context.new_page()
    try:
        page.goto("/?q=stargate")
        for media in ("screen", "print"):
            page.emulate_media(media=media)
            assert "underline" in page.locator(".hit mark").first.evaluate("m => getComputedStyle(m).textDecorationLine")
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE])
@pytest.mark.parametrize("bounds", ["since=2025-01-01&until=2025-06-30", "since=2026-12-01T10:00:00Z", "since=2025-01-01&until=2026-12-30T10:00:00Z"])
def test_the_date_boxes_line_up(browser: Browser, base_url: str, viewport, bounds):
    # "From" was 129 px wide and "Until" 147, not lined up; a date-time "From" wrapped under its label
    # while a date "Until" stayed beside its own (a page QA pass).
    context = browser.new_context(base_url=base_url, viewport=viewport)
    page = context.new_page()
    try:
        page.goto("/?q=stargate&" + bounds)
        boxes = page.evaluate("""[...document.querySelectorAll('.dates input')].map(i => {
            const r = i.getBoundingClientRect();
            return {type: i.type, x: Math.round(r.x), width: Math.round(r.width)};
        })""")
        assert len(boxes) == 2 and boxes[0] == boxes[1], boxes
    finally:
        context.close()
