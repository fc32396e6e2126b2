"""Phrases of time typed in a query read as dates (search/when.py), on a fixed day."""

from __future__ import annotations

from datetime import date

import pytest

from search.when import asks_only_when, time_phrase

MONDAY = date(2026, 12, 7)
WEDNESDAY = date(2026, 3, 4)


@pytest.mark.parametrize(("query", "on", "phrase", "since", "until"), [
    ("what happened last week", MONDAY, "last week", "2026-11-30", "2026-12-06"),  # Monday to Sunday before
    ("nvidia news this week", WEDNESDAY, "this week", "2026-03-02", "2026-03-04"),  # from Monday, to today
    ("nvidia news this month", MONDAY, "this month", "2026-12-01", "2026-12-07"),
    ("openai last month", WEDNESDAY, "last month", "2026-02-01", "2026-02-28"),
    ("deals last year", MONDAY, "last year", "2025-01-01", "2025-12-31"),
    ("deals this year", MONDAY, "this year", "2026-01-01", "2026-12-07"),
    ("previous month", WEDNESDAY, "previous month", "2026-02-01", "2026-02-28"),
    ("stargate in the past 3 days", MONDAY, "in the past 3 days", "2026-12-04", "2026-12-07"),
    ("over the last two weeks", MONDAY, "over the last two weeks", "2026-11-23", "2026-12-07"),
    ("past month", date(2026, 3, 31), "past month", "2026-02-28", "2026-03-31"),  # a shorter month: its last day
    ("past year", MONDAY, "past year", "2025-12-07", "2026-12-07"),
    ("since last month openai", MONDAY, "since last month", "2026-11-01", "2026-12-07"),  # "since": to today
    ("TODAY", MONDAY, "TODAY", "2026-12-07", "2026-12-07"),
    ("funding yesterday", MONDAY, "yesterday", "2026-12-06", "2026-12-06"),
    ("stargate this week?", MONDAY, "this week", "2026-12-07", "2026-12-07"),
])
def test_a_phrase_of_time_reads_as_the_days_it_means(query, on, phrase, since, until):
    read = time_phrase(query, on)
    assert read is not None
    assert (read.phrase, str(read.since), str(read.until)) == (phrase, since, until)
    assert query[read.span[0]:read.span[1]] == phrase


@pytest.mark.parametrize("query", [
    '"last week" stargate',  # quoted: words
    "stargate -last week", "stargate NOT last week", "stargate OR last week", "last week OR stargate",
    "(last week)",  # negated, joined or grouped: words, as a typed filter is
    "last day of training", "this day",  # a day that is no date
    "lastweek", "last-week", "last weekend", "yesterday's deals", "past week's news",  # other words
    "last 0 days", "past 1000 days", "this 3 weeks",  # no span to read
    "stargate 2025", "march deals",  # a year or a month's name is as often what a page says
    # A pasted paragraph's time is its subject's (a CISI query of 59 words, shortened here to 17).
    "the impact of automation on libraries in view of the proliferation of information today and how to cope",
])
def test_other_text_is_no_phrase_of_time(query):
    assert time_phrase(query, MONDAY) is None


def test_the_first_phrase_standing_apart_is_read():
    read = time_phrase("stargate -last week this month", MONDAY)
    assert read is not None and read.phrase == "this month"


@pytest.mark.parametrize(("rest", "only"), [
    ("what happened", True), ("What's new?", True), ("any news", True), ("what is happening", True),
    ("nvidia news", False), ("what happened to stargate", False), ("", False),
])
def test_what_is_left_asks_only_what_happened(rest, only):
    assert asks_only_when(rest) is only


# Through the service, on the dated Debian sample (published 2024-01 … 2025-06, some undated and so
# dated when first held, 2025-03-15), read on a Tuesday in June 2025.
ON = date(2025, 6, 10)


@pytest.fixture()
def dated_client(dated_index, monkeypatch):
    from web import create_app

    monkeypatch.setattr("search.when.today", lambda: ON)
    return create_app({"INDEX_DIR": str(dated_index), "TESTING": True}).test_client()


def _api(client, **params) -> dict:
    response = client.get("/api/search", query_string=params)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


@pytest.mark.parametrize(("typed", "as_parameters"), [
    ("library last month", {"q": "library", "since": "2025-05-01", "until": "2025-05-31"}),
    ("library in the past 2 weeks", {"q": "library", "since": "2025-05-27", "until": "2025-06-10"}),
    ("what happened last month", {"since": "2025-05-01", "until": "2025-05-31"}),  # the listing of those days
    ("last year", {"since": "2024-01-01", "until": "2024-12-31"}),
])
def test_a_phrase_of_time_is_the_date_filter(dated_client, typed, as_parameters):
    # "nvidia news this month" put first pages holding "month"; "what happened last week" found one page
    # holding "happened": as words they find nothing worth finding.
    typed_body, given = _api(dated_client, q=typed), _api(dated_client, **as_parameters)
    assert [h["id"] for h in typed_body["hits"]] == [h["id"] for h in given["hits"]] and typed_body["total"] == given["total"]
    assert (typed_body["query"], typed_body["since"], typed_body["until"]) == (given["query"], given["since"], given["until"])
    assert 0 < typed_body["total"] < _api(dated_client, q=as_parameters.get("q", ""))["total"]  # it narrowed the words' pages
    for hit in typed_body["hits"]:
        assert as_parameters["since"] <= (hit["published"] or hit["first_seen"])[:10] <= as_parameters["until"]


def test_a_date_given_already_leaves_the_phrase_words(dated_client):
    # The address's bound says exactly what is meant; "last month" is then words, as typed.
    body = _api(dated_client, q="library last month", since="2024-01-01")
    assert (body["query"], body["since"], body["until"]) == ("library last month", "2024-01-01", None)
    body = _api(dated_client, q="library since:2025-01-01 last month")  # a bound typed as a filter likewise
    assert (body["query"], body["since"], body["until"]) == ("library last month", "2025-01-01", None)


def test_the_page_and_the_feed_go_to_the_dates_address(dated_client):
    page = dated_client.get("/", query_string={"q": "library last month"})
    assert page.status_code == 302 and page.headers["Location"] == "/?q=library&since=2025-05-01&until=2025-05-31"
    shown = dated_client.get(page.headers["Location"]).get_data(as_text=True)
    assert "From: 1 May 2025" in shown and "Until: 31 May 2025" in shown  # the dates shown chosen, to take off
    # Not permanent: next month "last month" is other days, and a feed reader keeps polling what it was given.
    feed = dated_client.get("/feeds/search.atom", query_string={"q": "library last month"})
    assert feed.status_code == 302 and feed.headers["Location"].endswith("?q=library&since=2025-05-01&until=2025-05-31")
    quoted = dated_client.get("/", query_string={"q": '"last month"'})
    assert quoted.status_code == 200  # in quotes: words


def test_the_command_line_says_which_days_it_read(dated_index, monkeypatch):
    from click.testing import CliRunner

    from web.cli import main

    monkeypatch.setattr("search.when.today", lambda: ON)
    result = CliRunner().invoke(main, ["search", "library last month", "--index-dir", str(dated_index)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Dated as typed: last month (2025-05-01 to 2025-05-31, UTC)\n")
    result = CliRunner().invoke(main, ["search", "library", "--index-dir", str(dated_index)])
    assert "Dated" not in result.output
