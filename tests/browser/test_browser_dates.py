"""Time in a real browser, on the dated Debian sample: newest first, the month facet, following a
search through its Atom feed, and the OpenSearch description Chromium reads."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import feedparser
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import DESKTOP
from tests.browser.test_browser_search import facet_values, query_of, total_of
from tests.servers import gunicorn
from tests.waiting import wait_until

pytestmark = pytest.mark.slow  # make check leaves it out; make test and CI run it


@pytest.fixture(scope="module")
def dated_url(dated_index: Path, tmp_path_factory) -> Iterator[str]:
    with gunicorn(dated_index, tmp_path_factory.mktemp("dated-server")) as url:
        yield url


@pytest.fixture()
def dated(browser: Browser, dated_url: str, tmp_path: Path) -> Iterator[Page]:
    context = browser.new_context(base_url=dated_url, viewport=DESKTOP)
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
        page.screenshot(path=str(tmp_path / "end.png"), full_page=True)
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def hit_dates(page: Page) -> list[str]:
    return [t.get_attribute("datetime") or "" for t in page.locator(".hit .when time").all()]


def test_browse_newest_first_and_narrow_by_month(dated: Page):
    page = dated
    page.goto("/")
    expect(page.locator(".sort a[aria-current]")).to_have_text("Newest")
    dates = hit_dates(page)
    assert len(dates) == 10 and dates == sorted(dates, reverse=True)
    first = page.locator(".hit .when").first
    expect(first).to_contain_text(re.compile(r"Published (\d+ \w+ ago|today|yesterday)"))
    assert first.locator("time").get_attribute("title")  # the exact date, beside the relative one

    expect(page.locator("#facet-month-heading")).to_have_text("Month")
    months = facet_values(page, "month")
    assert [m for m, _, _ in months][:5] == sorted((m for m, _, _ in months), reverse=True)[:5]
    month, count, _ = months[1]
    label = page.locator(f"#facet-month input[value='{month}'] ~ .facet-label").inner_text()
    assert re.fullmatch(r"[A-Z][a-z]+ \d{4}", label)
    with page.expect_navigation():
        page.locator(f"#facet-month input[value='{month}']").check()
    assert query_of(page)["month"] == [month]
    assert total_of(page) == count
    assert all(d.startswith(month) for d in hit_dates(page))
    expect(page.locator(".active-filters .chip-remove")).to_contain_text(label)


def test_follow_this_search_opens_its_feed(dated: Page):
    page = dated
    page.goto("/?q=library&topic=libs")
    alternate = page.locator("link[rel=alternate][type='application/atom+xml']")
    follow = page.get_by_role("link", name="Follow this search")
    expect(follow).to_be_visible()
    assert follow.get_attribute("href") == alternate.get_attribute("href")
    with page.expect_response(re.compile(r"/feeds/search\.atom")) as answer:
        follow.click()
    response = answer.value
    # The Atom feed, sent to a browser as XML it lays out with the feed's stylesheet: as Atom, Chromium
    # showed its source, escaped markup and all (a QA pass); a feed reader gets it as Atom (tests/test_feeds.py).
    assert response.status == 200 and response.headers["content-type"].startswith("application/xml")
    assert query_of(page) == {"q": ["library"], "topic": ["libs"]}
    feed = feedparser.parse(response.body())
    assert not feed.bozo and feed.version == "atom10" and feed.entries
    updated = [entry.updated for entry in feed.entries]
    assert updated == sorted(updated, reverse=True)
    assert all("libs" in {tag.term for tag in entry.tags} for entry in feed.entries)
    # What the reader sees: what a feed is for, the entries' titles, not their escaped markup; each title
    # a link to its page, its date as the pages write it (they were text, and 2026-12-07T13:05:09Z).
    assert "feed reader" in page.evaluate("getComputedStyle(document.documentElement, '::before').content")
    first = page.locator("entry > a").first
    expect(first).to_have_text(feed.entries[0].title)
    assert first.is_visible() and not page.locator("entry > content").first.is_visible()
    assert not page.locator("entry > title").first.is_visible() and not page.locator("entry > updated").first.is_visible()
    expect(page.locator("entry > time").first).to_have_text(re.compile(r"^\d{1,2} [A-Z][a-z]+ \d{4}"))
    back = page.locator("feed > p > a")  # (an XML document: no roles in its accessibility tree)
    expect(back).to_have_text("See this search on the hub")
    assert back.is_visible() and back.get_attribute("href").endswith("/?q=library&topic=libs&sort=newest")
    first.click()
    page.wait_for_url(feed.entries[0].link)
    page.go_back()
    page.go_back()  # the fixture's closing screenshot is of a page, not of an XML document
    expect(page.get_by_role("link", name="Follow this search")).to_be_visible()


def test_chromium_reads_the_opensearch_description(dated: Page):
    page = dated
    page.goto("/")
    href = page.locator("link[rel=search][type='application/opensearchdescription+xml']").get_attribute("href")
    # Chromium's own XML parser and fetch: what the browser does when it discovers the site's search.
    found = page.evaluate(
        """async (href) => {
            const text = await (await fetch(href)).text();
            const doc = new DOMParser().parseFromString(text, "application/xml");
            if (doc.querySelector("parsererror")) return {error: text};
            const urls = {};
            for (const url of doc.getElementsByTagNameNS("http://a9.com/-/spec/opensearch/1.1/", "Url")) {
                urls[url.getAttribute("type")] = url.getAttribute("template");
            }
            const name = doc.getElementsByTagNameNS("http://a9.com/-/spec/opensearch/1.1/", "ShortName")[0];
            return {name: name && name.textContent, urls};
        }""",
        href,
    )
    assert "error" not in found and found["name"] == "Topic hub"
    suggest = found["urls"]["application/x-suggestions+json"].replace("{searchTerms}", "pyth")
    answers = []

    def completed() -> bool:  # the sample has too much text to be read in a request: none until read beside them
        answers.append(page.request.get(suggest))
        return bool(json.loads(answers[-1].body())[1])

    wait_until(completed, "the completions to be read")
    assert answers[-1].headers["content-type"].startswith("application/x-suggestions+json")
    query, completions, *_ = json.loads(answers[-1].body())
    assert query == "pyth" and any(c.lower().startswith("pyth") for c in completions)
    page.goto(found["urls"]["text/html"].replace("{searchTerms}", quote("python library")))
    expect(page.locator("#q")).to_have_value("python library")
    assert total_of(page) > 0
