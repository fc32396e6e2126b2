"""What a visual QA pass saw in Chromium that the markup alone does not tell: the colours and
underlines of a highlight in a link, and the layout of the pager, the suggestions, the topics' links,
the guide's sections box and the facets' "Show all" at 375 px and on a desktop."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import DESKTOP

pytestmark = pytest.mark.slow  # make check leaves it out; make test and CI run it

PHONE_375 = {"width": 375, "height": 800}

# WCAG's contrast ratio of two colours given as "rgb(r, g, b)" (computed styles).
CONTRAST = """([a, b]) => {
  const lum = (c) => { const [r, g, b] = c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map((v) => {
      v = Number(v) / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}"""


def _page(browser: Browser, base_url: str, viewport: dict, scheme: str = "light") -> Iterator[Page]:
    context = browser.new_context(base_url=base_url, viewport=viewport, color_scheme=scheme)
    context.set_default_timeout(10_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture()
def phone(browser: Browser, base_url: str) -> Iterator[Page]:
    yield from _page(browser, base_url, PHONE_375)


@pytest.fixture()
def desktop(browser: Browser, base_url: str) -> Iterator[Page]:
    yield from _page(browser, base_url, DESKTOP)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_mark_in_a_title_link_keeps_the_links_colour_and_its_one_underline(browser: Browser, base_url: str, scheme: str):
    # "Data Center" in a title link was black on yellow (dark text in blue), with an underline of its
    # own, thinner and lower, under the link's: two lines.  In the dark scheme the link's blue on the
    # marks' olive would have been 3.2:1.
    for page in _page(browser, base_url, DESKTOP, scheme):
        page.goto("/?q=stargate")
        styles = page.locator(".hit h2 a mark").first.evaluate("""(m) => {
            const s = getComputedStyle(m), a = getComputedStyle(m.closest('a'));
            return {color: s.color, link: a.color, background: s.backgroundColor, line: s.textDecorationLine,
                    decoration: s.textDecorationColor, linkDecoration: a.textDecorationColor,
                    offset: s.textUnderlineOffset, linkOffset: a.textUnderlineOffset, style: s.textDecorationStyle};
        }""")
        assert styles["color"] == styles["link"], styles
        # Its underline is the link's, in the same place and colour (drawn thicker: one line, told without colour).
        assert styles["line"] == "underline" and styles["style"] == "solid", styles
        assert styles["decoration"] == styles["linkDecoration"] and styles["offset"] == styles["linkOffset"], styles
        ratio = page.evaluate(CONTRAST, [styles["color"], styles["background"]])
        assert ratio >= 4.5, (scheme, styles, ratio)
        # A mark in a snippet keeps the text's colour and its own underline.
        snippet = page.locator(".hit .snippet mark").first.evaluate(
            "(m) => [getComputedStyle(m).color, getComputedStyle(document.body).color, getComputedStyle(m).textDecorationLine]")
        assert snippet[0] == snippet[1] and snippet[2] == "underline"
        # On paper (no background, links in the text's colour) the mark is still underlined.
        page.emulate_media(media="print")
        assert page.locator(".hit h2 a mark").first.evaluate("(m) => getComputedStyle(m).textDecorationLine") == "underline"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_corrections_link_is_drawn_as_a_link(browser: Browser, base_url: str, scheme: str):
    # "Including results for stargate" (now "Showing …"): "stargate", the link, was drawn as a highlight (yellow, dark text).
    for page in _page(browser, base_url, DESKTOP, scheme):
        page.goto("/?q=stargte")
        styles = page.locator(".did-you-mean a mark").evaluate("""(m) => {
            const s = getComputedStyle(m), a = getComputedStyle(m.closest('a')), p = getComputedStyle(m.closest('p'));
            return {color: s.color, link: a.color, text: p.color, background: s.backgroundColor, weight: s.fontWeight,
                    line: s.textDecorationLine, linkLine: a.textDecorationLine};
        }""")
        assert styles["color"] == styles["link"] != styles["text"], styles
        assert styles["background"] == "rgba(0, 0, 0, 0)" and int(styles["weight"]) >= 700, styles
        assert styles["line"] == styles["linkLine"] == "underline", styles


@pytest.mark.parametrize("script", [True, False])
def test_show_all_says_show_fewer_once_open_with_or_without_script(browser: Browser, base_url: str, script: bool):
    # "Show all 16" still said "Show all 16" once open, above the values it had shown.
    context = browser.new_context(base_url=base_url, viewport=PHONE_375, java_script_enabled=script)
    try:
        page = context.new_page()
        page.goto("/?q=stargte")
        more = page.locator("#facet-entity details.more")
        summary = more.locator("summary")
        shown = lambda: summary.evaluate("""(s) => [...s.children].filter((e) => getComputedStyle(e).display !== 'none'
            && !e.classList.contains('visually-hidden')).map((e) => e.textContent).join('')""")  # noqa: E731
        closed = shown()
        assert re.fullmatch(r"Show all \d+", closed), closed
        summary.click()
        expect(more).to_have_attribute("open", "")
        assert shown() == "Show fewer"
        assert summary.evaluate("s => s.textContent.includes('organisation values')")  # its name says which
        summary.click()
        expect(more).not_to_have_attribute("open", "")
        assert shown() == closed
    finally:
        context.close()


ROWS = """(items) => {
  const rows = new Map();
  for (const li of items) {
    const box = li.getBoundingClientRect(), top = Math.round(box.top);
    const row = rows.get(top) || {left: box.left, right: box.right, count: 0};
    row.left = Math.min(row.left, box.left); row.right = Math.max(row.right, box.right); row.count += 1;
    rows.set(top, row);
  }
  return [...rows.values()].map((row) => [row.count, row.right - row.left]);
}"""


@pytest.mark.parametrize("url", ["/?page=3", "/?per_page=5&page=6", "/?per_page=2&page=14"])
def test_the_pager_wraps_evenly_on_a_phone_and_fits_one_line_on_a_desktop(browser: Browser, base_url: str, url: str):
    # At 375 px "Previous 1 2 3 4 5" filled a line and "6 Next" stood alone on the next (a QA pass).
    for page in _page(browser, base_url, PHONE_375):
        page.goto(url)
        rows = page.locator(".pager li").evaluate_all(ROWS)
        widths = [width for _, width in rows]
        assert len(rows) <= 2 and min(widths) >= 0.6 * max(widths), rows
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    for page in _page(browser, base_url, DESKTOP):
        page.goto(url)
        assert len(page.locator(".pager li").evaluate_all(ROWS)) == 1


def test_suggestions_on_a_phone_are_as_wide_as_the_search_form(phone: Page):
    # At 375 px the list was as wide as the box (some 250 px): "who is building data centers in…".
    phone.goto("/?q=gpu")
    phone.locator("#q").fill("")
    phone.locator("#q").type("openai", delay=20)
    expect(phone.locator(".suggestions li").first).to_be_visible()
    boxes = phone.evaluate("""() => Object.fromEntries(['.suggestions', '.searchbox', '#q'].map((s) => {
        const r = document.querySelector(s).getBoundingClientRect(); return [s, [r.left, r.right, r.top, r.bottom]]; }))""")
    (left, right, top, _), form, box = boxes[".suggestions"], boxes[".searchbox"], boxes["#q"]
    assert abs(left - form[0]) <= 1 and abs(right - form[1]) <= 1 and right - left > box[1] - box[0] + 40, boxes
    assert box[3] <= top <= box[3] + 4, boxes  # right below the box, above the hint
    assert phone.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_suggestions_on_a_desktop_stay_as_wide_as_the_box(desktop: Page):
    desktop.goto("/?q=gpu")
    desktop.locator("#q").fill("")
    desktop.locator("#q").type("openai", delay=20)
    expect(desktop.locator(".suggestions li").first).to_be_visible()
    widths = desktop.evaluate("() => ['.suggestions', '#q'].map((s) => document.querySelector(s).getBoundingClientRect().width)")
    assert abs(widths[0] - widths[1]) <= 1, widths


def test_a_topics_separator_stays_with_the_link_after_it(phone: Page):
    # At 375 px "57 results ·" ended a line, its link alone on the next.
    phone.goto("/topics")
    pairs = phone.locator(".topic-links").evaluate_all("""(lines) => lines.flatMap((p) => {
        const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT), found = [];
        const links = [...p.querySelectorAll('a')];
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.data.indexOf('·');
          if (at < 0) continue;
          const range = document.createRange(); range.setStart(node, at); range.setEnd(node, at + 1);
          const link = links.find((a) => node.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_FOLLOWING);
          const dot = range.getBoundingClientRect(), first = link.getClientRects()[0];
          found.push([link.textContent, dot.top, first.top, dot.bottom, first.bottom]);
        }
        return found;
    })""")
    assert len(pairs) >= 2
    apart = [pair for pair in pairs if pair[1] >= pair[4] or pair[2] >= pair[3]]  # not on one line
    assert not apart, apart
    assert phone.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE_375])
def test_the_guides_sections_box_stands_apart_from_the_date_above_it(browser: Browser, base_url: str, viewport):
    # "Added to the hub …" touched the "Sections" box: no gap at all.
    for page in _page(browser, base_url, viewport):
        page.goto("/guides/training-infrastructure")
        gap = page.evaluate("""() => document.querySelector('.toc').getBoundingClientRect().top
            - document.querySelector('main > .when').getBoundingClientRect().bottom""")
        assert gap >= 12, gap
