"""The same key flows with JavaScript turned off: forms and links carry everything."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import DESKTOP
from tests.browser.test_browser_search import checkbox, narrowing_value, query_of, total_of

pytestmark = pytest.mark.slow  # make check leaves it out; make test and CI run it


@pytest.fixture()
def nojs(browser: Browser, base_url: str, tmp_path: Path) -> Iterator[Page]:
    context = browser.new_context(base_url=base_url, viewport=DESKTOP, java_script_enabled=False)
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        yield page
        page.screenshot(path=str(tmp_path / "end.png"), full_page=True)
    finally:
        context.close()


def test_search_filter_paginate_and_open_without_javascript(nojs: Page):
    page = nojs
    page.goto("/")
    assert page.locator("html.js").count() == 0
    expect(page.locator("#q")).not_to_have_attribute("role", "combobox")  # no suggestions without JS

    # Typing and pressing Enter submits the search form.
    page.locator("#q").fill("compute")
    with page.expect_navigation():
        page.locator("#q").press("Enter")
    assert query_of(page)["q"] == ["compute"]
    everything = total_of(page)
    assert everything > 10

    # Ticking boxes does nothing until "Apply filters" submits them together.
    first, first_count = narrowing_value(page, "topic")
    org, _ = narrowing_value(page, "entity")
    checkbox(page, "topic", first).check()
    checkbox(page, "entity", org).check()
    assert "topic" not in query_of(page)
    with page.expect_navigation():
        page.get_by_role("button", name="Apply filters").click()
    assert query_of(page)["topic"] == [first] and query_of(page)["entity"] == [org]
    assert query_of(page)["q"] == ["compute"]
    filtered = total_of(page)
    assert 0 < filtered <= first_count
    expect(page.locator(".active-filters .chip-remove")).to_have_count(2)

    # "Show all" is a native disclosure: it opens without script.
    more = page.locator(".facets details.more").first
    more.locator("summary").click()
    expect(more).to_have_attribute("open", "")

    # A chip link removes its filter; "Clear all" removes the rest.
    with page.expect_navigation():
        page.locator(".active-filters .chip-remove", has_text="Organisation:").click()
    assert "entity" not in query_of(page) and total_of(page) == first_count
    with page.expect_navigation():
        page.locator(".facets-head .clear").click()
    assert total_of(page) == everything

    # Pagination and documents are plain links.
    with page.expect_navigation():
        page.get_by_role("navigation", name="Pages").get_by_role("link", name="Next page").click()
    assert query_of(page)["page"] == ["2"]
    link = page.locator(".hit:has(.badge-event) h2 a").first
    title = link.inner_text()
    with page.expect_navigation():
        link.click()
    expect(page.locator("h1")).to_have_text(title)
    with page.expect_navigation():
        page.get_by_role("link", name="All results").click()
    assert total_of(page) > everything  # browsing everything, with no query
