"""Phrases of time typed in a query read as dates (search/when.py), on a fixed day."""

from __future__ import annotations

from datetime import date

import pytest

from search.params import SearchParams
from search.when import asks_only_when, time_phrase, with_dates
from tests.waiting import wait_until

MONDAY = date(2026, 12, 7)
WEDNESDAY = date(2026, 3, 4)


@pytest.mark.parametrize(("query", "on", "phrase", "since", "until"), [
    ("what happened last week", MONDAY, "last week", "2026-11-30", "2026-12-06"),  # Monday to Sunday before
    ("nvidia news this week", WEDNESDAY, "this week", "2026-03-02", None),  # from Monday, and on: open
    ("nvidia news this month", MONDAY, "this month", "2026-12-01", None),
    ("openai last month", WEDNESDAY, "last month", "2026-02-01", "2026-02-28"),
    ("deals last year", MONDAY, "last year", "2025-01-01", "2025-12-31"),
    ("deals this year", MONDAY, "this year", "2026-01-01", None),
    ("previous month", WEDNESDAY, "previous month", "2026-02-01", "2026-02-28"),
    ("stargate in the past 3 days", MONDAY, "in the past 3 days", "2026-12-05", None),  # three days, today the last
    ("over the last two weeks", MONDAY, "over the last two weeks", "2026-11-24", None),
    ("past month", date(2026, 3, 31), "past month", "2026-03-01", None),  # a shorter month before: its last day, then on
    ("past year", MONDAY, "past year", "2025-12-08", None),
    ("openai since last month", MONDAY, "since last month", "2026-11-01", None),  # "since": to today, and on
    ("TODAY", MONDAY, "TODAY", "2026-12-07", None),
    ("funding yesterday", MONDAY, "yesterday", "2026-12-06", "2026-12-06"),
    ("stargate this week?", MONDAY, "this week", "2026-12-07", None),  # a sentence's mark after it
    ("this week last week", MONDAY, "last week", "2026-11-30", "2026-12-06"),  # the one ending the query
    ("“stargate” last week", MONDAY, "last week", "2026-11-30", "2026-12-06"),  # curly quotes closed before it
    # Hours, as news searches offer them: the days they touch (24 hours back from any time is yesterday).
    ("deals in the past 24 hours", MONDAY, "in the past 24 hours", "2026-12-06", None),
    ("stargate last 48h", MONDAY, "last 48h", "2026-12-05", None),
    # Units as readers shorten them.
    ("nvidia last wk", MONDAY, "last wk", "2026-11-30", "2026-12-06"),
    ("funding past 2 wks", MONDAY, "past 2 wks", "2026-11-24", None),
    ("openai this yr", MONDAY, "this yr", "2026-01-01", None),
    ("past 3 mos", MONDAY, "past 3 mos", "2026-09-08", None),
    ("last 3mo", MONDAY, "last 3mo", "2026-09-08", None),
    ("last mth", WEDNESDAY, "last mth", "2026-02-01", "2026-02-28"),
    ("previous 2 weeks", MONDAY, "previous 2 weeks", "2026-11-24", None),  # as "last 2 weeks"
    # "in the last week" is the seven days to today, as readers say it; "last week" the calendar's.
    ("what happened in the last week", MONDAY, "in the last week", "2026-12-01", None),
    ("deals over the last month", MONDAY, "over the last month", "2026-11-08", None),
    ("nvidia today,", MONDAY, "today", "2026-12-07", None),
    # A time ago: that day, or the calendar's week, month or year holding it.
    ("stargate 2 days ago", MONDAY, "2 days ago", "2026-12-05", "2026-12-05"),
    ("a week ago", MONDAY, "a week ago", "2026-11-30", "2026-12-06"),
    ("what happened a month ago", MONDAY, "a month ago", "2026-11-01", "2026-11-30"),
    ("deals two years ago", MONDAY, "two years ago", "2024-01-01", "2024-12-31"),
    ("since 2 weeks ago", MONDAY, "since 2 weeks ago", "2026-11-23", None),
    ("what happened 5 years ago today", MONDAY, "5 years ago today", "2021-12-07", "2021-12-07"),  # this day then
    # A typo of one letter in a phrase's word (the speller made "this mnth" words: a QA pass).
    ("nvidia this mnth", MONDAY, "this mnth", "2026-12-01", None),
    ("nvidia this mnth?", MONDAY, "this mnth", "2026-12-01", None),
    ("funding yesterdy", MONDAY, "yesterdy", "2026-12-06", "2026-12-06"),
    ("openai 3 wekks ago", MONDAY, "3 wekks ago", "2026-11-16", "2026-11-22"),  # the unit before "ago"
    ("nvidia this mnth,", MONDAY, "this mnth", "2026-12-01", None),
    ("ｎｖｉｄｉａ ｔｏｄａｙ", MONDAY, "ｔｏｄａｙ", "2026-12-07", None),  # full-width, as the parser reads it
])
def test_a_phrase_of_time_reads_as_the_days_it_means(query, on, phrase, since, until):
    read = time_phrase(query, on)
    assert read is not None
    assert (read.phrase, str(read.since), None if read.until is None else str(read.until)) == (phrase, since, until)
    assert query[read.span[0]:read.span[1]] == phrase


@pytest.mark.parametrize("query", [
    '"last week" stargate', '"stargate last week"', "“library last week”", "«last week»", "＂last week＂",  # quoted: words
    "stargate -last week", "stargate –last week", "stargate NOT last week", "stargate OR last week",
    "stargate AND last week", "(last week)",  # negated, joined or grouped: words, as a typed filter is
    # Not at the query's end: a name or a word of what is asked (a QA pass on the Debian packages).
    "last week tonight", "the last year of training", "last year edition", "yesterday beatles", "since last month openai",
    "last day of training", "this day",  # a day that is no date
    "over the past years", "in the last months",  # a plural without a number
    "lastweek", "last-week", "last weekend", "yesterday's", "past week's",  # other words
    "last 0 days", "past 1000 days", "this 3 weeks",  # no span to read
    "stargate 2025", "march deals",  # a year or a month's name is as often what a page says
    "this hour", "over the past hours", "last h", "blender last 3d", "last 3 d",  # no hours to count back, a 3D thing
    "stargate not today", "yesterday and today", "nvidia or this week", "python ANDNOT this year",  # joined, in any case
    "a few days ago", "days ago", "0 days ago", "openai lst week",
    # A common word one letter from a phrase's word is that word (a QA pass over the Debian packages).
    "python support for at least 5 years", "the last four", "taylor swift last tour", "the lost year", "this weak",
    "last gear", "part 2 years", "backups kept at least 2 weeks", "last your", "fast week",
    # Nor a word standing alone one letter from "today", or before a unit (the same pass, a second time).
    "hot toddy", "toray", "carbon fibre toray", "el paso 3 days", "leftover pasta 3 days", "thsi week",  # no count; a three-letter typo is as often a word
    # A pasted paragraph's time is its subject's (a CISI query of 59 words, shortened here to 18).
    "the impact of automation on libraries in view of the proliferation of information and how to cope today",
])
def test_other_text_is_no_phrase_of_time(query):
    assert time_phrase(query, MONDAY) is None


def test_the_past_hour_is_today_or_yesterday_by_the_clock():
    read = time_phrase("openai past hour", MONDAY)
    assert read is not None and read.phrase == "past hour" and read.until is None
    assert read.since in (MONDAY, date(2026, 12, 6))  # yesterday only in the first hour of the day


@pytest.mark.parametrize(("typed", "asked"), [
    ("nvidia news this month", "nvidia"),  # with "news" kept, every page lacked it ("Missing: news")
    ("what happened to stargate last week", "stargate"),
    ("any updates on openai this week", "openai"),
    ("nvidia latest news today", "nvidia"),
    ("what hapened last week", "what hapened"),  # the asking's typos are for the speller ("jews today" was "news today")
    ("game over today", "game over"),  # "over" leads a phrase only with "the" ("over the past week")
    ("news reader this year", "news reader"),  # the asking is around a subject, not in it
    ("nvidia today,", "nvidia"),  # the sentence's marks after the phrase go with it
    ("update last month", "update"),  # a common word is no typo of "updates"
])
def test_what_is_asked_of_the_days_is_the_subject(typed, asked):
    assert with_dates(SearchParams(q=typed), MONDAY).q == asked


@pytest.mark.parametrize(("typed", "asked"), [
    ("hacker news this year", "hacker news"),  # what the pages write is a subject: "hacker" alone found 30 of 98
    ("short stories this year", "short stories"),
    ("nets this week", "nets"),  # a word the pages hold is no typo of "news"
])
def test_a_word_the_index_holds_is_the_subject_not_the_asking(typed, asked):
    held = {"news", "stories", "nets"}.__contains__
    assert with_dates(SearchParams(q=typed), MONDAY, held).q == asked


def test_a_phrase_replaces_the_month_chosen_as_it_does_the_dates():
    # "nvidia this month" typed on November's page found nothing: the box carries the page's month.
    read = with_dates(SearchParams(q="nvidia this month", month=("2026-11",)), MONDAY)
    assert (read.q, read.since, read.month) == ("nvidia", "2026-12-01", ())


@pytest.mark.parametrize(("rest", "only"), [
    ("what happened", True), ("What's new?", True), ("whats new", True), ("any news", True), ("what is happening", True),
    ("latest news", True), ("top stories", True), ("headlines", True), ("any updates?", True),
    ("nvidia news", False), ("what happened to stargate", False), ("latest gpus", False), ("", False),
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
    ("library in the past 2 weeks", {"q": "library", "since": "2025-05-28"}),  # open: to today, and on
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
        assert as_parameters["since"] <= (hit["published"] or hit["first_seen"])[:10] <= as_parameters.get("until", "9999")


def test_a_phrase_replaces_the_address_dates_and_a_typed_bound_keeps_it_words(dated_client):
    # The box carries the page's dates: "game this month" typed on a page of last week's was searched
    # as words within last week, "No results" (a QA pass).  The phrase typed now is what is asked.
    body = _api(dated_client, q="library last month", since="2024-01-01", until="2024-02-01")
    assert (body["query"], body["since"], body["until"]) == ("library", "2025-05-01", "2025-05-31")
    page = dated_client.get("/", query_string={"q": "library this month", "since": "2025-05-01", "until": "2025-05-31"})
    assert page.status_code == 302 and page.headers["Location"] == "/?q=library&since=2025-06-01"
    # A bound typed as a filter says exactly what is meant: the phrase is words.
    body = _api(dated_client, q="library since:2025-01-01 last month")
    assert (body["query"], body["since"], body["until"]) == ('library "last month"', "2025-01-01", None)


def test_where_every_page_has_the_one_build_s_date_a_phrase_is_words(client):
    # The bundled seed is dated by the build that first held it: "stargate this week" could keep all
    # of it or none ("weather today" found nothing on the Debian packages the day after their build).
    body = _api(client, q="stargate this week")
    assert (body["query"], body["since"], body["until"]) == ("stargate this week", None, None)
    assert client.get("/", query_string={"q": "stargate this week"}).status_code == 200


def test_the_api_s_etag_changes_with_the_day_a_phrase_is_read_on(dated_client, monkeypatch):
    # "today" was one ETag from one day to the next: a client's If-None-Match got a 304 for another day's answer.
    first = dated_client.get("/api/search", query_string={"q": "library this month"})
    monkeypatch.setattr("search.when.today", lambda: date(2025, 7, 2))
    again = dated_client.get("/api/search", query_string={"q": "library this month"}, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 200 and again.headers["ETag"] != first.headers["ETag"]
    assert again.get_json()["since"] == "2025-07-01"


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
    # A range ending today is open: followed, the page or its feed goes on taking in what comes later.
    page = dated_client.get("/", query_string={"q": "library this week"})
    assert page.status_code == 302 and page.headers["Location"] == "/?q=library&since=2025-06-09"
    # Left with a sentence's mark alone, the query is the listing of those days ("No results for ?").
    assert dated_client.get("/", query_string={"q": "this week?"}).headers["Location"] == "/?since=2025-06-09"


def test_the_command_line_says_which_days_it_read(dated_index, monkeypatch):
    from click.testing import CliRunner

    from web.cli import main

    monkeypatch.setattr("search.when.today", lambda: ON)
    result = CliRunner().invoke(main, ["search", "library last month", "--index-dir", str(dated_index)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Dated as typed: last month (2025-05-01 to 2025-05-31, UTC)\n")
    result = CliRunner().invoke(main, ["search", "library", "--index-dir", str(dated_index)])
    assert "Dated" not in result.output
    result = CliRunner().invoke(main, ["search", "library this week", "--index-dir", str(dated_index)])
    assert result.output.startswith("Dated as typed: this week (from 2025-06-09 on, UTC)\n")
    # One day as one date; the options' dates it replaced said (they went unsaid: a QA pass).
    result = CliRunner().invoke(main, ["search", "library yesterday", "--since", "2025-01-01", "--index-dir", str(dated_index)])
    assert result.output.startswith("Dated as typed: yesterday (2025-06-09, UTC), in place of --since 2025-01-01\n")
    # Found nothing in the days typed: the way out names them as the page does, not options never given.
    result = CliRunner().invoke(main, ["search", "zzqx library yesterday", "--index-dir", str(dated_index)])
    assert "without the dates" in result.output and "--since" not in result.output, result.output


def test_a_month_typed_keeps_the_phrase_words_and_completions_read_no_phrase_before_the_last_word(dated_client):
    # As a typed since: does: "month:2025-05 library last month" is what the reader wrote exactly.
    body = _api(dated_client, q="month:2025-05 library last month")
    assert (body["query"], body["since"], body["filters"]["month"]) == ('library "last month"', None, ["2025-05"])
    # "last week" before the word being typed ends no query: the completions were last week's titles,
    # and the search they led to read it as words.
    def offered(**params) -> list[str]:
        return [s["text"].removeprefix("kind:event ") for s in dated_client.get("/api/suggest", query_string=params).get_json()["suggestions"]]

    wait_until(lambda: offered(q="lib"), "the completions to be read")
    assert offered(q="kind:event last month lib") == offered(q="last month lib", kind="event")  # the phrase's words, as the search reads them
