"""Dates a reader writes in words: "what happened last week", "nvidia news this month".

A stream of events is asked about by time, and a reader types the time as words.  As words they
find nothing worth finding: "last week" in a page's text is the week before that page was written,
not the week before the reader's, so "nvidia news this month" put first two pages holding "month"
("a month-long …") and the NVIDIA pages after them, and "what happened last week" found one page
holding "happened".  A phrase of time read here is a date range, applied as the ``since`` and
``until`` parameters would be (``Snapshot.inline_filters``), and taken out of the words.

The phrases, in UTC days, today included:

- ``today``, ``yesterday``;
- ``this week`` (from Monday), ``this month``, ``this year``: the calendar's, to today;
- ``last week`` (Monday to Sunday), ``last month``, ``last year``: the calendar's one before
  (``previous`` reads as ``last``);
- ``past week`` / ``past month`` / ``past year``, and ``last`` or ``past`` a number of days, weeks,
  months or years ("past 3 days", "last two weeks"): that many days, today the last of them;
- each of these after ``in``, ``over``, ``during``, ``within``, ``for`` or ``from`` (and ``the``)
  reads the same, and after ``since`` runs from the range's first day to today ("since last month").

A range that ends today is open: only its ``since`` is set, so a page followed, bookmarked or fed
("stargate this week") goes on taking in what comes after today (with an ``until`` of today its feed
froze at midnight: a QA pass).  Closed periods (yesterday, last week) keep their last day.

Read only where it cannot be a word of what is asked (a QA pass over 64k Debian packages and the hub):

- at the query's end (sentence marks aside) or as the whole query: "last week tonight" (a show),
  "the last year of training", "last year edition" are words;
- in a query of MAX_WORDS words or fewer: a pasted paragraph describes a subject, and its time is the
  subject's ("the proliferation of information today", a CISI query of 59 words);
- not in quotes (curly, guillemets, full-width as the parser reads them), after ``NOT`` or a minus,
  beside ``OR`` or ``AND``, in parentheses: words, as a typed filter is;
- a plural only with a number ("past 3 years"; "over the past years" is no date), a bare year or a
  month's name never ("stargate 2025" is as often what a page says as when it was written);
- and only in an index whose documents are dated over more than one day (``Snapshot.dated_apart``):
  where every page is dated by the one build that first held it (the bundled seed, a package list),
  a phrase could only keep them all or none ("weather today" found nothing the day after the build).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from search.params import SearchParams, without_spans
from search.query import typed_marks

_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
# A longer query is a paragraph describing a subject, not a search by time (see above).
MAX_WORDS = 16
# A count of units back from today reaches no further than this (a date before year 1 is no date).
MAX_COUNT = 999
_UNIT = r"(?P<unit>day|week|month|year)(?P<plural>s)?"
_PHRASE = re.compile(
    r"(?<![\w\-+(:\"“”'’])"
    r"(?:(?P<lead>since|in|over|during|within|for|from)\s+(?:the\s+)?)?"
    r"(?:(?P<day>today|yesterday)"
    r"|(?P<which>this|last|past|previous)\s+(?:(?P<count>\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+)?" + _UNIT +
    r")(?![\w\-+:\"“”'’])",
    re.IGNORECASE,
)
_JOINED_BEFORE = re.compile(r"(?:^|\s)(?:NOT|OR|AND)\s+$|[-+(]\s*$")
_ENDS = " \t?.!…。？！"  # what may follow the phrase at the query's end
# What is left of a query once its time is read, when it asks only what happened then: the listing of
# those dates answers it ("what happened last week": the one page holding "happened" found before).
_ONLY_WHEN = re.compile(
    r"^\s*(?:(?:so\s+)?what\s*(?:['’]?s|\s+is|\s+has|\s+was)?\s*(?:happened|happening|new|going\s+on)"
    r"|(?:any|the)?\s*(?:latest|recent|top|new)?\s*(?:news|updates|stories|headlines|events)|latest|anything\s+new)\s*[?.!]*\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Dates:
    """A phrase of time in a query: where it is, what it says, and the days it means (both included;
    *until* None when the range ends today: open, see above)."""

    span: tuple[int, int]
    phrase: str
    since: date
    until: date | None


def today() -> date:
    """Return today in UTC (the day a date parameter's day is read in)."""
    return datetime.now(timezone.utc).date()


def mentions_time(q: str) -> bool:
    """Return whether *q* may hold a phrase of time (a cheap look before ``time_phrase``)."""
    lowered = q.lower()
    return any(word in lowered for word in ("day", "week", "month", "year"))


def time_phrase(q: str, on: date | None = None) -> Dates | None:
    """Return the phrase of time ending *q* (see above), read on the day *on* (today in UTC), or None."""
    if not q or not mentions_time(q) or len(q.split()) > MAX_WORDS:
        return None
    on = on or today()
    marked = typed_marks(q)  # quotes and dashes as the parser reads them, one character for one
    for match in _PHRASE.finditer(marked):
        before, after = marked[: match.start()], marked[match.end():]
        if after.strip(_ENDS) or before.count('"') % 2 or _JOINED_BEFORE.search(before):
            continue
        read = _days(match, on)
        if read is not None:
            since, until = read
            if (match.group("lead") or "").lower() == "since" or until == on:
                until = None  # to today, and on (see above)
            return Dates(match.span(), q[match.start() : match.end()], since, until)
    return None


def with_dates(params: SearchParams, on: date | None = None) -> SearchParams:
    """Return *params* with the phrase of time ending its query (``time_phrase``) read as its ``since``
    and ``until``, in place of the address's, and taken out of the words.  A bound typed as ``since:``
    or ``until:`` is for ``Snapshot.inline_filters`` to keep (it says more exactly what is meant).  The
    address's bounds give way: the search box carries the page's dates, and "game this month" typed on
    a page of last week's was searched as words within last week (a QA pass).  A query left asking only
    what happened ("what happened last week", "latest news today") is the listing of those days."""
    read = time_phrase(params.q, on) if params.q else None
    if read is None:
        return params
    rest = without_spans(params.q, [read.span])
    if (again := time_phrase(rest, on)) is not None:  # "this week last week": the first is words, read so again
        rest = _quoted(rest, again)
    if asks_only_when(rest) or not any(ch.isalnum() for ch in rest):  # "this week?" left "?" to search
        rest = ""
    dated = params.with_(q=rest, since=read.since.isoformat(), until=read.until.isoformat() if read.until else None)
    if not rest and dated.sort == "relevance":  # the default without a query is newest (``parse_params``)
        dated = dated.with_(sort=None)
    return dated


def words_kept(params: SearchParams) -> SearchParams:
    """Return *params* with the phrase of time ending its query in quotes: words, read so again."""
    read = time_phrase(params.q) if params.q else None
    return params if read is None else params.with_(q=_quoted(params.q, read))


def _quoted(q: str, read: Dates) -> str:
    """Return *q* with the phrase *read* in quotes."""
    return f'{q[: read.span[0]]}"{read.phrase}"{q[read.span[1]:]}'


def asks_only_when(q: str) -> bool:
    """Return whether *q* (a query less its phrase of time) asks only what happened ("what happened",
    "any news"): the dates' listing answers it, and its words would narrow it to pages holding them."""
    return bool(_ONLY_WHEN.match(q))


def _days(match: re.Match[str], on: date) -> tuple[date, date] | None:
    day = (match.group("day") or "").lower()
    if day == "today":
        return on, on
    if day == "yesterday":
        return on - timedelta(days=1), on - timedelta(days=1)
    which, unit = match.group("which").lower(), match.group("unit").lower()
    count_text = (match.group("count") or "").lower()
    if count_text:  # "last 3 days", "past two weeks": a span back from today (not "this 3 weeks")
        count = int(count_text) if count_text.isdigit() else _NUMBERS[count_text]
        if which not in ("last", "past") or not 0 < count <= MAX_COUNT:
            return None
        return _back(on, unit, count), on
    if unit == "day" or match.group("plural"):  # "last day": of a thing; "over the past years": no date
        return None
    if which == "past":  # "past week": a span back from today
        return _back(on, unit, 1), on
    if which == "this":
        return _period_start(on, unit), on
    start = _period_start(on, unit)  # last, previous: the calendar's period before this one
    before = _period_start(start - timedelta(days=1), unit)
    return before, start - timedelta(days=1)


def _period_start(on: date, unit: str) -> date:
    if unit == "day":
        return on
    if unit == "week":
        return on - timedelta(days=on.weekday())
    if unit == "month":
        return on.replace(day=1)
    return on.replace(month=1, day=1)


def _back(on: date, unit: str, count: int) -> date:
    """Return the first day of *count* *unit*s ending with *on* ("past 3 days" on the 7th: the 5th)."""
    if unit == "day":
        return on - timedelta(days=count - 1)
    if unit == "week":
        return on - timedelta(weeks=count) + timedelta(days=1)
    months = count * (12 if unit == "year" else 1)
    year, month = divmod(on.year * 12 + on.month - 1 - months, 12)
    month += 1
    if year < 1:
        return date(1, 1, 1)
    last_day = (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)).day
    return date(year, month, min(on.day, last_day)) + timedelta(days=1)
