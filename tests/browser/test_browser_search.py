"""The search page in a real browser, with JavaScript: suggestions, facets, pages, documents, keyboard."""

from __future__ import annotations

import pytest
import re
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.slow  # make check leaves it out; make test and CI run it


def query_of(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def total_of(page: Page) -> int:
    match = re.match(r"(\d+) results?", page.locator("#summary").inner_text())
    return int(match.group(1)) if match else 0


def facet_values(page: Page, facet: str) -> list[tuple[str, int, bool]]:
    """Return (value, count, checked) for each checkbox of *facet*, in page order."""
    rows = []
    for item in page.locator(f"#facet-{facet} li").all():
        box = item.locator("input[type=checkbox]")
        count = int((item.locator(".count").text_content() or "").split()[0])
        rows.append((box.get_attribute("value") or "", count, box.is_checked()))
    return rows


def narrowing_value(page: Page, facet: str) -> tuple[str, int]:
    """Return an unticked value of *facet* that would narrow the results, and its count."""
    total = total_of(page)
    choices = [(v, n) for v, n, checked in facet_values(page, facet) if not checked and 0 < n < total]
    assert choices, f"the {facet} facet offers no value that narrows {total} results: {facet_values(page, facet)}"
    return choices[0]


def checkbox(page: Page, facet: str, value: str) -> Locator:
    return page.locator(f"#facet-{facet} input[type=checkbox][value='{value}']")


def test_type_a_query_and_pick_a_suggestion(page: Page):
    page.goto("/")
    box = page.locator("#q")
    box.press_sequentially("starg", delay=40)
    listbox = page.get_by_role("listbox", name="Suggestions")
    expect(listbox).to_be_visible()
    expect(box).to_have_attribute("aria-expanded", "true")
    options = listbox.get_by_role("option")
    expect(options.first).to_contain_text(re.compile("stargate", re.I))
    expect(page.locator("#q-status")).to_contain_text("suggestion")
    # Its kind is heard apart from its text: "Stargate, Search", not "Stargate Search" (a QA pass).
    expect(options.first).to_have_accessible_name(re.compile(r"\S ?, (Search|Go to|Topic|Organisation)$"))

    # Arrow keys move the active option (announced through aria-activedescendant); Escape closes.
    box.press("ArrowDown")
    first = options.first
    expect(first).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", first.get_attribute("id") or "")
    box.press("Escape")
    expect(listbox).to_be_hidden()
    expect(box).to_have_attribute("aria-expanded", "false")
    expect(page.locator("#q-status")).to_have_text("")  # it said "8 suggestions…" after the list was gone

    # A word completion searches it; Enter picks the active option.
    box.press("ArrowDown")
    expect(listbox).to_be_visible()
    texts = options.locator(".s-text").all_inner_texts()
    kinds = options.locator(".s-kind").all_inner_texts()
    term = kinds.index("Search")
    for _ in range(term + 1):
        box.press("ArrowDown")
    with page.expect_navigation():
        box.press("Enter")
    assert query_of(page)["q"] == [texts[term]]
    assert total_of(page) > 0
    expect(page.locator(".hit mark").first).to_contain_text(re.compile("stargate", re.I))

    # A title completion goes straight to that document.
    box.fill("")
    box.press_sequentially("expanding starg", delay=40)
    title = listbox.get_by_role("option").filter(has_text="Go to").first
    expect(title).to_be_visible()
    wanted = title.locator(".s-text").inner_text()
    with page.expect_navigation():
        title.click()
    expect(page.locator("h1")).to_have_text(wanted)


def test_result_count_is_announced_and_slash_focuses_the_box(page: Page):
    page.goto("/?q=compute")
    expect(page.locator("#announce")).to_have_text(re.compile(r"^\d+ results for “?compute”?"))
    assert " ms" not in page.locator("#announce").inner_text()  # the time is hidden from screen readers on the page
    assert page.locator("#summary").get_attribute("role") == "status"
    page.locator(".hit h2 a").first.focus()
    page.keyboard.press("/")
    expect(page.locator("#q")).to_be_focused()


def test_toggle_two_topics_and_an_organisation(page: Page):
    page.goto("/")
    everything = total_of(page)

    first, first_count = narrowing_value(page, "topic")
    with page.expect_navigation():
        checkbox(page, "topic", first).check()  # ticking applies the filter at once
    assert query_of(page)["topic"] == [first]
    assert total_of(page) == first_count  # the count beside a value is what clicking it gives
    expect(checkbox(page, "topic", first)).to_be_focused()

    second, second_count = narrowing_value(page, "topic")
    with page.expect_navigation():
        checkbox(page, "topic", second).check()
    assert query_of(page)["topic"] == sorted([first, second])  # in order: one address for the search
    # Topics combine with OR, and each topic's count ignores the topic selection itself.
    assert max(first_count, second_count) <= total_of(page) <= min(first_count + second_count, everything)
    assert (second, second_count, True) in facet_values(page, "topic")

    both = total_of(page)
    org, org_count = narrowing_value(page, "entity")
    with page.expect_navigation():
        checkbox(page, "entity", org).check()
    assert total_of(page) == org_count < both  # facets combine with AND
    chips = page.locator(".active-filters .chip-remove")
    expect(chips).to_have_count(3)
    # Every hit carries the chosen organisation: not repeated as a chip on each (the filter's chip above removes it).
    expect(page.locator(".hit .chip-entity[aria-current]")).to_have_count(0)

    # Removing a chip drops just that filter.
    with page.expect_navigation():
        chips.filter(has_text="Organisation:").click()
    assert "entity" not in query_of(page)
    assert total_of(page) == both
    with page.expect_navigation():
        page.locator(".facets-head .clear").click()
    assert total_of(page) == everything


def test_a_hit_chip_filters_by_its_topic(page: Page):
    page.goto("/?q=stargate")
    chip = page.locator(".hit .chip-topic:not([aria-current])").first
    href = chip.get_attribute("href") or ""
    value = parse_qs(urlsplit(href).query)["topic"][-1]
    with page.expect_navigation():
        chip.click()
    assert query_of(page)["topic"] == [value]
    assert query_of(page)["q"] == ["stargate"]
    expect(checkbox(page, "topic", value)).to_be_checked()


def test_paginate_through_all_results(page: Page):
    page.goto("/")
    total = total_of(page)
    per_page = page.locator(".hit").count()
    pages = -(-total // per_page)
    assert pages > 1
    first_titles = page.locator(".hit h2").all_inner_texts()
    pager = page.get_by_role("navigation", name="Pages")
    expect(pager.locator("[aria-current=page]")).to_have_text("Page 1")
    with page.expect_navigation():
        pager.get_by_role("link", name="Next page").click()
    expect(pager.locator("[aria-current=page]")).to_have_text("Page 2")
    assert page.locator("ol.hits").get_attribute("start") == str(per_page + 1)
    assert not set(first_titles) & set(page.locator(".hit h2").all_inner_texts())
    with page.expect_navigation():
        pager.get_by_role("link", name=f"Page {pages}", exact=True).click()
    expect(page.locator(".hit")).to_have_count(total - (pages - 1) * per_page)
    expect(pager.get_by_role("link", name="Next page")).to_have_count(0)
    # The pager links a window of pages, never one link per page.
    assert pager.get_by_role("link").count() <= 9


def test_open_a_result_and_more_like_this(page: Page):
    page.goto("/?q=stargate")
    first = page.locator(".hit h2 a").first
    title = first.inner_text()
    with page.expect_navigation():
        first.click()
    expect(page.locator("h1")).to_have_text(title)
    similar = page.get_by_role("region", name="More like this").get_by_role("link")
    expect(similar).to_have_count(5)
    wanted = similar.first.inner_text()
    with page.expect_navigation():
        similar.first.click()
    expect(page.get_by_role("heading", name=wanted).first).to_be_visible()


def test_a_guide_section_hit_opens_at_its_anchor(page: Page):
    page.goto("/?q=scaling+laws&kind=guide")
    link = page.locator(".hit h2 a").first
    href = link.get_attribute("href") or ""
    assert href.startswith("/guides/") and "#" in href
    title = link.inner_text()
    with page.expect_navigation():
        link.click()
    anchor = href.split("#", 1)[1]
    section = page.locator(f"section#{anchor}")
    expect(section.locator("h2")).to_contain_text(title)
    expect(section).to_be_in_viewport()


def focused(page: Page) -> str:
    return page.evaluate(
        """() => { const e = document.activeElement;
                   const where = e.closest('#q, .facets, .hits, .pager, .sort, header, footer');
                   return (where ? (where.id || where.className) : 'other') + '|' + e.tagName + '|' + (e.id || e.textContent.trim().slice(0, 40)); }"""
    )


def test_every_control_is_reachable_by_keyboard_alone(page: Page):
    page.goto("/?q=data")
    stops = []
    for _ in range(120):
        page.keyboard.press("Tab")
        stops.append(focused(page))
        if stops[-1].startswith("foot"):
            break
    areas = [s.split("|")[0] for s in stops]
    order = [areas.index(a) for a in ("q", "hits", "pager", "filters")]  # the filters follow the results
    assert order == sorted(order), f"tab order: {stops}"
    assert any("|INPUT|" in s for s in stops if s.startswith("filters")), "no facet checkbox in tab order"
    assert "sort" in areas

    # Enter follows a focused pagination link.
    page.locator(".pager a[rel=next]").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert query_of(page)["page"] == ["2"]

    # Space ticks a focused facet checkbox; the new page keeps focus on it.
    value, count = narrowing_value(page, "kind")
    checkbox(page, "kind", value).focus()
    with page.expect_navigation():
        page.keyboard.press("Space")
    assert query_of(page)["kind"] == [value]
    expect(checkbox(page, "kind", value)).to_be_focused()
    assert total_of(page) == count

    # "Show all" opens with Enter and its values can be ticked.
    more = page.locator(".facets details.more summary")
    if more.count():
        more.first.focus()
        page.keyboard.press("Enter")
        expect(page.locator(".facets details.more").first).to_have_attribute("open", "")

    # The search box, then a suggestion, then its page: all from the keyboard.
    page.keyboard.press("/")
    page.keyboard.press("Control+A")
    page.keyboard.type("openai stargate mich", delay=30)
    expect(page.get_by_role("listbox", name="Suggestions")).to_be_visible()
    page.keyboard.press("ArrowDown")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert total_of(page) > 0


def test_a_guide_section_reached_by_a_link_is_not_framed_as_a_control(page: Page):
    """Opening a guide section from a result focused it (tabindex -1) and drew a 3 px ring round all of it."""
    page.goto("/?q=scaling+laws&kind=guide")
    with page.expect_navigation():
        page.locator(".hit h2 a").first.click()
    anchor = page.url.split("#", 1)[1]
    outline = page.locator(f"section#{anchor}").evaluate("e => getComputedStyle(e).outlineStyle")
    assert outline == "none"


def test_an_organisation_suggestion_adds_its_filter_to_the_ones_chosen(page: Page):
    """The hint says active filters are kept; picking "OpenAI · Organisation" went to /?entity=openai alone."""
    page.goto("/?q=gpu&topic=compute-deals&sort=newest")
    box = page.locator("#q")
    box.fill("")
    box.press_sequentially("open", delay=40)
    option = page.get_by_role("listbox", name="Suggestions").get_by_role("option").filter(has_text="Organisation").first
    expect(option).to_be_visible()
    with page.expect_navigation():
        option.click()
    asked = query_of(page)
    assert asked.get("topic") == ["compute-deals"] and asked.get("entity") == ["openai"] and asked.get("sort") == ["newest"]
    assert "q" not in asked  # what was typed was the start of the organisation's name, not a query


def test_suggestions_on_a_filtered_page_find_something_under_its_filters(page: Page):
    """On a topic's page the box offered an organisation none of its pages names, and words none of them
    holds: on the data centers topic's, "hug" offered Hugging Face, and "bl" first "blog", 0 results once chosen."""
    everything = page.request.get("/api/search?per_page=1").json()
    topic = next(v["value"] for v in everything["facets"]["topic"] if v["count"] < everything["total"])  # the largest
    named = {v["value"] for v in page.request.get(f"/api/search?per_page=1&topic={topic}").json()["facets"]["entity"] if v["count"]}
    organisation = next(v["label"] for v in everything["facets"]["entity"] if v["value"] not in named)
    typed = organisation[:3].lower()
    box = page.locator("#q")
    options = page.get_by_role("listbox", name="Suggestions").get_by_role("option")
    offered = options.filter(has_text="Organisation").filter(has_text=organisation)

    page.goto("/")
    box.press_sequentially(typed, delay=40)
    expect(offered).to_have_count(1)  # offered where nothing is filtered

    page.goto(f"/?topic={topic}")
    with page.expect_response(lambda response: "/api/suggest?" in response.url and f"q={typed}" in response.url) as asked:
        box.press_sequentially(typed, delay=40)
    assert parse_qs(urlsplit(asked.value.url).query).get("topic") == [topic]  # the page's filter goes with what is typed
    assert not any(s["text"] == organisation for s in asked.value.json()["suggestions"])
    expect(offered).to_have_count(0)

    # A word chosen is searched under the page's filter, and finds something there.
    box.fill("")
    box.press_sequentially("bl", delay=40)
    word = options.filter(has_text="Search").first
    expect(word).to_be_visible()
    chosen = word.locator(".s-text").inner_text()
    with page.expect_navigation():
        word.click()
    assert query_of(page)["topic"] == [topic] and query_of(page)["q"] == [chosen]
    assert total_of(page) > 0, chosen


def test_back_shows_the_boxes_and_dates_the_address_says(page: Page):
    """Back after ticking a box showed it still ticked beside the unfiltered results, and the next
    tick applied the filter undone with it (Chromium put back the form as it was left)."""
    page.goto("/?q=stargate")
    org, _ = narrowing_value(page, "entity")
    with page.expect_navigation():
        checkbox(page, "entity", org).check()
    page.go_back()
    page.wait_for_load_state()
    assert "entity" not in query_of(page)
    expect(checkbox(page, "entity", org)).not_to_be_checked()
    other = next(v for v, n, checked in facet_values(page, "entity") if v != org and 0 < n)
    with page.expect_navigation():
        checkbox(page, "entity", other).check()
    assert query_of(page)["entity"] == [other]


def test_an_until_before_from_is_said_beside_the_dates(page: Page):
    """From after Until went to an error page ("'until' (2026-01-01) is before 'since'")."""
    page.goto("/?q=stargate")
    since = page.locator(".facet-form input[name=since]")
    until = page.locator(".facet-form input[name=until]")
    since.fill("2026-06-01")
    until.fill("2026-01-01")
    # The browser holds the form: the pair is invalid before any submit is sent.
    assert until.evaluate("e => !e.validity.valid") and since.evaluate("e => !e.validity.valid")
    assert not page.locator(".facet-form").evaluate("f => f.checkValidity()")
    until.fill("2026-12-31")
    with page.expect_navigation():
        page.locator(".facet-form .dates button[type=submit]").click()
    assert query_of(page)["since"] == ["2026-06-01"] and query_of(page)["until"] == ["2026-12-31"]


def test_the_slash_hint_is_shown_only_where_the_shortcut_works_and_print_keeps_an_events_topics(page: Page):
    page.goto("/?q=stargate&topic=training-infrastructure")
    expect(page.locator("#q-hint .slash-hint")).to_be_visible()  # desktop, with the script
    expect(page.locator("#q-hint")).to_contain_text("A new search keeps the active filters.")
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator("#q-hint .slash-hint")).to_be_hidden()
    page.set_viewport_size({"width": 1280, "height": 800})
    # On paper an event's Topics and Organisations rows printed empty: their chips were hidden.
    page.goto("/events/expanding-stargate-to-michigan")
    page.emulate_media(media="print")
    expect(page.locator("dd .chips").first).to_be_visible()
    expect(page.locator("dd .chips").first).to_contain_text("Training Infrastructure")
    page.emulate_media(media="screen")


def test_a_guide_heading_is_named_by_its_title_alone_and_links_to_its_section(page: Page):
    """Every heading's name ended with "Link to this section": a headings list said it seven times."""
    page.goto("/guides/training-infrastructure")
    titles = page.locator(".guide-section h2 .anchor").evaluate_all("links => links.map(a => a.firstChild.textContent)")
    assert len(titles) >= 5
    for title in titles:
        heading = page.get_by_role("heading", level=2, name=title.strip(), exact=True)
        expect(heading).to_have_count(1)
    first = page.locator(".guide-section h2 a").first
    section = first.get_attribute("href")
    first.click()
    expect(page).to_have_url(re.compile(re.escape(section or "#") + "$"))


def test_focus_comes_back_to_the_dates_after_applying_them(page: Page):
    """After "Apply dates" focus was on the page, some 50 tab stops from the dates."""
    page.goto("/?q=stargate")
    page.locator(".facet-form input[name=since]").fill("2020-01-01")
    apply = page.locator(".facet-form .dates button[type=submit]")
    with page.expect_navigation():
        apply.press("Enter")
    assert query_of(page)["since"] == ["2020-01-01"]
    expect(page.locator(".facet-form .dates button[type=submit]")).to_be_focused()


def test_typing_on_after_choosing_a_suggestion_leaves_none_announced_as_chosen(page: Page):
    """After ArrowDown then another letter, the box still pointed at an option (aria-activedescendant) in
    the new list, none of which was selected: a screen reader said "OpenAI", and Enter searched the text."""
    page.goto("/")
    box = page.locator("#q")
    box.press_sequentially("open", delay=40)
    options = page.get_by_role("listbox", name="Suggestions").get_by_role("option")
    expect(options.first).to_be_visible()
    box.press("ArrowDown")
    box.press("ArrowDown")
    expect(box).to_have_attribute("aria-activedescendant", "q-option-1")
    box.press_sequentially("a", delay=40)
    expect(options.first).to_contain_text(re.compile("openai", re.I))
    page.wait_for_timeout(400)  # the new list is in place
    expect(page.locator("#q-suggestions [aria-selected=true]")).to_have_count(0)
    expect(box).not_to_have_attribute("aria-activedescendant", re.compile(".*"))
    with page.expect_navigation():
        box.press("Enter")
    assert query_of(page)["q"] == ["opena"]  # what was typed: no option was chosen


def test_ticking_a_filter_with_dates_the_wrong_way_round_says_so_beside_the_dates(page: Page):
    """From after Until, typed but not applied, then a topic ticked: the page went to the 400 error page
    ("'until' (2026-01-01) is before 'since'"); "Apply dates" was held by the browser, ticking a box was not."""
    page.goto("/?q=stargate")
    page.locator(".facet-form input[name=since]").fill("2026-06-01")
    page.locator(".facet-form input[name=until]").fill("2026-01-01")
    value, _ = narrowing_value(page, "topic")
    checkbox(page, "topic", value).click()
    page.wait_for_timeout(500)  # a navigation would have started by now
    assert query_of(page) == {"q": ["stargate"]}  # still the results page, not the error page
    # Focus is on a date, where the browser says what is wrong.
    assert page.evaluate("document.activeElement.closest('.dates') !== null && document.activeElement.type === 'date'")
    # Once the dates are right, the ticked box and the dates are applied together.
    page.locator(".facet-form input[name=until]").fill("2026-12-31")
    with page.expect_navigation():
        page.get_by_role("button", name="Apply dates").click()
    assert query_of(page)["topic"] == [value] and query_of(page)["until"] == ["2026-12-31"]


def test_a_completion_bolds_the_letters_typed_and_reads_in_its_own_direction(page: Page):
    # Lower-casing "İ" gives two characters: the bold fell one letter late per "İ" before the word
    # typed ("İzmir data center" typed "data": "İzmir d<b>ata </b>center").  An Arabic completion was
    # laid out left to right.
    completions = [{"text": "İzmir İstanbul data center", "kind": "title", "url": "/events/x"},
                   {"text": "مركز data بيانات", "kind": "title", "url": "/events/y"}]
    page.route("**/api/suggest?*", lambda route: route.fulfill(json={"query": "data", "suggestions": completions}))
    page.goto("/")
    page.locator("#q").press_sequentially("data", delay=40)
    texts = page.get_by_role("listbox", name="Suggestions").get_by_role("option").locator(".s-text")
    expect(texts).to_have_count(2)
    assert texts.nth(0).locator("b").inner_text() == "data"
    assert [texts.nth(i).get_attribute("dir") for i in range(2)] == ["auto", "auto"]
    assert texts.nth(1).evaluate("node => getComputedStyle(node).direction") == "rtl"


def test_a_title_holding_the_words_typed_apart_bolds_each(page: Page):
    # "Expanding Stargate to Michigan", offered for "stargate mi", was shown with nothing bold: the
    # words typed are not side by side in it (the regression QA pass).
    page.goto("/")
    page.locator("#q").press_sequentially("stargate mi", delay=40)
    option = page.get_by_role("listbox", name="Suggestions").get_by_role("option").filter(has_text="Expanding Stargate to Michigan")
    expect(option).to_have_count(1)
    assert option.locator(".s-text b").all_inner_texts() == ["Stargate", "Mi"]
    # Typed with the marks of the syntax around the words, the same (nothing was bold).
    page.goto("/")
    page.locator("#q").press_sequentially('"stargate mi', delay=40)
    expect(option).to_have_count(1)
    assert option.locator(".s-text b").all_inner_texts() == ["Stargate", "Mi"]


def test_a_space_typed_after_a_word_offers_what_holds_it_whole(page: Page):
    """"open" offers OpenAI; "open " (the word finished) offers the open-source pages, not OpenAI."""
    page.goto("/")
    box = page.locator("#q")
    options = page.get_by_role("listbox", name="Suggestions").get_by_role("option")
    box.press_sequentially("open", delay=40)
    expect(options.filter(has_text=re.compile(r"^OpenAI"))).not_to_have_count(0)
    box.press("Space")
    expect(options.first).to_contain_text(re.compile(r"open[- ]source", re.I))
    expect(options.locator(".s-text").filter(has_text=re.compile(r"^OpenAI$"))).to_have_count(0)


def _open_typed_over_stargate(cached_browser: Browser, base_url: str):
    """Return a new context, its page of results for "stargate" and its box, "open" typed in it and its
    suggestions shown (the context is the caller's to close)."""
    context = cached_browser.new_context(base_url=base_url)
    page = context.new_page()
    page.goto("/?q=stargate")
    box = page.locator("#q")
    box.fill("")
    box.press_sequentially("open", delay=40)
    expect(page.get_by_role("listbox", name="Suggestions")).to_be_visible()
    return context, page, box


def test_back_from_the_cache_shows_the_query_its_results_are_for(cached_browser: Browser, base_url: str):
    """With the back/forward cache on, Back showed "open" typed in the box above the results for
    "stargate", the suggestion list still open over them."""
    context, page, box = _open_typed_over_stargate(cached_browser, base_url)
    try:
        with page.expect_navigation():
            box.press("Enter")
        assert query_of(page)["q"] == ["open"]
        page.go_back(wait_until="commit")
        expect(page.locator("h1")).to_contain_text("stargate")
        expect(box).to_have_value("stargate")
        expect(page.get_by_role("listbox", name="Suggestions")).to_be_hidden()
        expect(box).to_have_attribute("aria-expanded", "false")
    finally:
        context.close()


def test_back_from_the_cache_opens_no_list_a_keystroke_left_waiting(cached_browser: Browser, base_url: str):
    """Enter pressed within the pause before suggestions are asked for left that ask waiting in the page
    the cache kept: Back ran it, and the list opened over the results, for "stargate" (the suite's
    test above failed so on a loaded machine)."""
    context, page, box = _open_typed_over_stargate(cached_browser, base_url)
    try:
        box.press("End")
        box.type("ai")  # Enter before the pause after it ends: its ask is still waiting
        with page.expect_navigation():
            box.press("Enter")
        page.go_back(wait_until="commit")
        expect(box).to_have_value("stargate")
        page.wait_for_timeout(600)  # past the pause: a waiting ask would have drawn its list by now
        expect(page.get_by_role("listbox", name="Suggestions")).to_be_hidden()
    finally:
        context.close()


def test_tab_from_the_box_with_suggestions_open_goes_to_the_search_button(page: Page):
    """A list long enough to scroll took the Tab, then closed under it: focus fell to the page."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/")
    box = page.locator("#q")
    box.press_sequentially("data", delay=40)
    expect(page.get_by_role("listbox", name="Suggestions")).to_be_visible()
    box.press("Tab")
    page.wait_for_timeout(300)  # the list closes 100 ms after the box loses focus
    expect(page.locator("header form button[type=submit]")).to_be_focused()


def test_ticking_a_filter_says_before_that_it_applies_at_once(page: Page):
    page.goto("/?q=stargate")
    hint = page.locator("#filters-hint")
    expect(hint).to_be_visible()
    expect(page.locator("#facet-entity")).to_have_attribute("aria-describedby", "filters-hint")


def test_options_shown_for_other_text_are_no_choice(page: Page):
    """Backspaced from "stargate mi" to "stargate", ArrowDown and Enter picked "stargate Michigan" from
    the list still shown; after Escape had emptied the box, ArrowDown opened the old list (a QA pass)."""
    page.goto("/")
    box = page.locator("#q")
    listbox = page.get_by_role("listbox", name="Suggestions")
    box.press_sequentially("stargate mi", delay=40)
    expect(listbox.get_by_role("option").filter(has_text="Michigan").first).to_be_visible()
    for _ in range(3):
        box.press("Backspace")
    box.press("ArrowDown")
    with page.expect_navigation():
        box.press("Enter")
    assert query_of(page)["q"] == ["stargate"]

    box = page.locator("#q")
    box.fill("")
    box.press_sequentially("nvidia", delay=40)
    expect(listbox).to_be_visible()
    box.press("Escape")
    box.press("Escape")
    expect(box).to_have_value("")
    box.press("ArrowDown")
    page.wait_for_timeout(300)
    expect(listbox).to_be_hidden()


def test_past_what_search_as_you_type_reads_nothing_is_asked(page: Page):
    # Past 256 characters each keystroke sent a request the API refused: a 400 in the console (a QA pass).
    refused: list[int] = []
    page.on("response", lambda response: refused.append(response.status) if "/api/suggest" in response.url and response.status != 200 else None)
    page.goto("/")
    box = page.locator("#q")
    box.fill("stargate " * 30)
    box.press_sequentially("mi", delay=60)
    page.wait_for_timeout(400)
    assert refused == []
    expect(page.get_by_role("listbox", name="Suggestions")).to_be_hidden()


def test_a_line_break_of_the_text_is_one_in_its_snippet(page: Page):
    # "…how many A100s can we reserve." and "Phase 2 — Strategic lock-in" are two lines of the guide:
    # the snippet ran them together, as it ran a package's synopsis into its description (a QA pass).
    page.goto("/?q=reserve+qualitative")
    snippet = page.locator(".answer .snippet").inner_text()
    assert 'reserve."\nPhase 2 — Strategic lock-in' in snippet


def test_the_results_say_they_are_being_replaced_while_a_ticked_filter_loads(page: Page):
    # A tick on a slow answer changed nothing for seconds: the old results stood under the new filters.
    page.goto("/?q=stargate")
    expect(page.locator("#main")).not_to_have_attribute("aria-busy", "true")
    value, _ = narrowing_value(page, "topic")
    with page.expect_navigation():
        # Ticked as a reader does (a click); what the results say the moment after, before the next page.
        said = page.evaluate("""value => {
            document.querySelector(`#facet-topic input[value='${value}']`).click();
            const results = document.querySelector('#main');
            return [results.getAttribute('aria-busy'), getComputedStyle(results).cursor];
        }""", value)
    assert said == ["true", "progress"]
    assert query_of(page)["topic"] == [value]
    expect(page.locator("#main")).not_to_have_attribute("aria-busy", "true")  # the new page is not busy


def test_a_document_opened_from_a_search_leads_back_to_it(page: Page):
    # Its "All results" went to the home page: the reader's query and filters were lost (a QA pass).
    page.goto("/?q=stargate+michigan&kind=event")
    with page.expect_navigation():
        page.locator(".hit h2 a").first.click()
    # A link of its own: the breadcrumb stays the place's ("Results for “…” › Training Infrastructure"
    # read as the topic under the search: a visual pass).
    back = page.locator("p.back a")
    expect(back).to_have_text("\u2190 Back to results for \u201cstargate michigan\u201d with your filters")
    crumbs = page.get_by_role("navigation", name="Breadcrumb").get_by_role("link")
    expect(crumbs.first).to_have_text("All results")
    expect(crumbs.first).to_have_attribute("href", "/")
    with page.expect_navigation():
        back.click()
    assert query_of(page) == {"q": ["stargate michigan"], "kind": ["event"]}
    page.goto("/events/introducing-stargate-uk")  # typed in, from no search: no way back but the crumb
    expect(page.locator("p.back")).to_have_count(0)
