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
  (``previous`` reads as ``last``); but after ``in the``, ``over the`` and the like, as ``past``:
  "what happened in the last week" asks for the seven days to today, as readers say it;
- ``past week`` / ``past month`` / ``past year``, and ``last`` or ``past`` a number of days, weeks,
  months or years ("past 3 days", "last two weeks"): that many days, today the last of them;
- ``past hour`` and ``last`` or ``past`` a number of hours ("past 24 hours", as news searches offer
  it): the days those hours touch, from the day it was that many hours ago (from yesterday for 24);
- the units as readers shorten them: ``wk``, ``mo``, ``mth``, ``yr``, ``hr`` (with an ``s`` or
  without), and ``h`` after a number ("last 24h", "last 3mo", "past 2 wks"; not "d": "last 3d" is
  as often a 3D thing);
- a number of days, weeks, months or years ``ago``: that day, or the calendar's week, month or year
  holding it ("2 days ago", "a month ago": last month; hours ago: the day it was then); ``today``
  after it is the day as many units back ("5 years ago today": this day five years ago);
- each of these after ``in``, ``over``, ``during``, ``within``, ``for`` or ``from`` (and ``the``)
  reads the same, and after ``since`` runs from the range's first day to today ("since last month");
- a unit or "yesterday" with a typo of one letter (four letters or more, no common English word nor
  one the index holds: "this mnth", "3 wekks ago", "yesterdy"): the speller would otherwise correct
  the query into words ("Showing results for nvidia this month", searched as words, where the
  corrected link went to the dates: a QA pass).

Once the time is read, what is left is what the reader asks of it: a query left asking only what
happened ("what happened last week", "latest news today") is the listing
of those days; the asking around a subject is no word of it ("nvidia news this month", "what happened
to stargate last week", "any updates on openai this week" search the subject in those days: with
"news" kept, every page lacked it, "No result has all of your words").

A range that ends today is open: only its ``since`` is set, so a page followed, bookmarked or fed
("stargate this week") goes on taking in what comes after today (with an ``until`` of today its feed
froze at midnight: a QA pass).  Closed periods (yesterday, last week) keep their last day.

Read only where it cannot be a word of what is asked (a QA pass over 64k Debian packages and the hub):

- at the query's end (sentence marks aside) or as the whole query: "last week tonight" (a show),
  "the last year of training", "last year edition" are words;
- in a query of MAX_WORDS words or fewer: a pasted paragraph describes a subject, and its time is the
  subject's ("the proliferation of information today", a CISI query of 59 words);
- not in quotes (curly, guillemets, full-width as the parser reads them), after ``NOT`` or a minus,
  beside ``OR`` or ``AND`` (in any case), in parentheses: words, as a typed filter is;
- a plural only with a number ("past 3 years"; "over the past years" is no date), a bare year or a
  month's name never ("stargate 2025" is as often what a page says as when it was written);
- and only in an index whose documents are dated over more than one day (``Snapshot.dated_apart``):
  where every page is dated by the one build that first held it (the bundled seed, a package list),
  a phrase could only keep them all or none ("weather today" found nothing the day after the build).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from rapidfuzz import process
from rapidfuzz.distance import OSA

from search.params import SearchParams, without_spans
from search.query import typed_marks
from search.spell import common_word

_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
# A longer query is a paragraph describing a subject, not a search by time (see above).
MAX_WORDS = 16
# A count of units back from today reaches no further than this (a date before year 1 is no date).
MAX_COUNT = 999
_UNIT = r"(?P<unit>days?|weeks?|wks?|months?|mths?|mos?|years?|yrs?|hours?|hrs?|h)"
# Each unit as written, shortened or in the plural, to the unit it is (h only after a number).
_UNITS = {"day": "day", "week": "week", "wk": "week", "month": "month", "mth": "month",
          "mo": "month", "year": "year", "yr": "year", "hour": "hour", "hr": "hour", "h": "hour"}
_COUNT_WORDS = "an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_PHRASE = re.compile(
    r"(?<![\w\-+(:\"“”'’])"
    r"(?:(?P<lead>since|in|over(?=\s+the\s)|during|within|for|from)\s+(?P<the>the\s+)?)?"  # "game over today": no lead
    r"(?:(?P<day>today|yesterday)"
    r"|(?P<which>this|last|past|previous)\s+"
    rf"(?:(?P<count>\d{{1,3}})\s*|(?P<counted>{_COUNT_WORDS})\s+)?" + _UNIT +
    rf"|(?:(?P<ago_count>\d{{1,3}})\s*|(?P<ago_counted>{_COUNT_WORDS})\s+)" + _UNIT.replace("unit", "ago_unit") + r"\s+ago(?P<ago_today>\s+today)?"
    r")(?![\w\-+:\"“”'’])",
    re.IGNORECASE,
)
# The words of a phrase a typo of which is read as the word (``_respelt``): a unit, which another word
# of the phrase comes before ("this mnth", "3 wekks ago"), and "yesterday"; four letters or more, as the
# speller's own shortest (a three-letter typo, "wek", is as often another word).  Not "today" nor the
# words before a unit: a word standing alone at the end one letter from them was as often a word of
# its own ("hot toddy", "toray", "el paso 3 days": a QA pass), nor the asking ("jews today" was read
# as "news today", the day's listing).
_TYPO_WORDS = ("yesterday", "days", "week", "weeks", "month", "months", "year", "years", "hour", "hours")
# In any case: "stargate not today" is no search of today's pages (a QA pass), "yesterday and today" no day.
_JOINED_BEFORE = re.compile(r"(?:^|\s)(?:NOT|OR|AND|ANDNOT)\s+$|[-+(]\s*$", re.IGNORECASE)
_ENDS = " \t?.!…。？！,;:"  # what may follow the phrase at the query's end ("nvidia today," too)
_WORD = re.compile(r"[^\s?.!…。？！,;:]+")  # (a word is what is between ``_ENDS``)
# What is left of a query once its time is read, when it asks only what happened then: the listing of
# those dates answers it ("what happened last week": the one page holding "happened" found before).
_ASKING = (r"(?:(?:so\s+)?what\s*(?:['’]?s|\s+is|\s+has|\s+was)?\s*(?:happened|happening|new|going\s+on)"
           r"|(?:any|the)?\s*(?:latest|recent|top|new)?\s*(?:news|updates|stories|headlines|events)|latest|anything\s+new)")
_ONLY_WHEN = re.compile(rf"^\s*{_ASKING}\s*[?.!:,;]*\s*$", re.IGNORECASE)  # "news: today" too
# The asking around a subject: before it ("what happened to", "any news on", "latest on") or after it
# ("nvidia news", "openai latest updates").
_ASKING_BEFORE = re.compile(rf"^\s*{_ASKING}\s+(?:to|with|at|in|on|about|from|for|of|around)\s+(?=\w)", re.IGNORECASE)
_ASKING_AFTER = re.compile(r"(?<=\w)\s+(?:(?:the\s+)?(?:latest|recent|top)\s+)?(?P<asked>news|updates|headlines|stories)\s*[?.!]*\s*$",
                           re.IGNORECASE)


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


def hours_ago(on: date, hours: int) -> date:
    """Return the day it was *hours* hours before now's time of day on *on* (UTC)."""
    return (datetime.combine(on, datetime.now(timezone.utc).time()) - timedelta(hours=hours)).date()


# A cheap look before ``time_phrase``, besides a unit's name in any word: a shortened one as a word,
# or one written on a number ("24h", "3mo"); looked up word by word, where a query may hold one (a
# regular expression of them took 2.4 µs a query).
_SHORTENED = frozenset({"wk", "wks", "mo", "mos", "mth", "mths", "yr", "yrs", "hr", "hrs"})
_DIGITS = "0123456789"
_HAS_DIGIT = re.compile(r"\d")


def mentions_time(q: str) -> bool:
    """Return whether *q* may hold a phrase of time (a cheap look before ``time_phrase``): a unit's
    name, as typed or full-width ("ｔｏｄａｙ"), or a word one letter from a phrase's word."""
    if not q.isascii():
        q = typed_marks(q)  # "ｔｏｄａｙ"
    lowered = q.lower()
    if "day" in lowered or "week" in lowered or "month" in lowered or "year" in lowered or "hour" in lowered:
        return True  # (the whole look: 1-5 µs a query, timeit; 0.6 µs before shortened units and typos)
    for word in lowered.split() if ("wk" in lowered or "mo" in lowered or "yr" in lowered or "hr" in lowered
                                    or "mth" in lowered or _HAS_DIGIT.search(lowered)) else ():
        word = word.strip(_ENDS)
        if word in _SHORTENED or (word[:1].isdigit() and ((unit := word.lstrip(_DIGITS)) in _SHORTENED or unit == "h")):
            return True
    # A phrase ends on its unit or yesterday, then "ago" and "today": a look at those words alone.
    words = lowered.rstrip(_ENDS).rsplit(" ", 3)[1:]
    while len(words) > 1 and words[-1] in ("ago", "today"):
        words.pop()
    last = words[-1] if words else ""
    return len(last) >= 4 and _near(last, _TYPO_WORDS) is not None and not common_word(last)


def _words(text: str) -> list[tuple[int, int]]:
    """Return the spans of *text*'s words, a sentence's marks apart ("mnth?")."""
    return [(m.start(), m.end()) for m in _WORD.finditer(text)]


def time_phrase(q: str, on: date | None = None, held: Callable[[str], bool] | None = None) -> Dates | None:
    """Return the phrase of time ending *q* (see above), read on the day *on* (today in UTC), or None;
    *held* tells a word the index holds, which is no typo (``_respelt``)."""
    if not q or not mentions_time(q) or len(q.split()) > MAX_WORDS:
        return None
    on = on or today()
    marked = typed_marks(q)  # quotes and dashes as the parser reads them, one character for one
    read = _read(marked, q, on)
    if read is None:  # a typo in the phrase's words ("nvidia this mnth"): read as the word it misses
        tail = _words(marked)[-5:]  # the longest phrase: "since the past 12 months", "in the last two weeks"
        respelt = _respelt([marked[a:b] for a, b in tail], _TYPO_WORDS, held)
        if respelt is not None:
            head = marked[: tail[0][0]]
            text = head + " ".join(respelt) + marked[tail[-1][1]:]
            starts = {len(head) + sum(len(w) + 1 for w in respelt[:i]): a for i, (a, _) in enumerate(tail)}
            again = _read(text, text, on)
            if again is not None and again.span[0] in starts:
                start = starts[again.span[0]]
                end = len(q) - (len(text) - again.span[1])
                read = Dates((start, end), q[start:end], again.since, again.until)
    return read


def _read(marked: str, q: str, on: date) -> Dates | None:
    """Return the phrase of time ending *marked* (*q* read as the parser reads it), or None."""
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


def _respelt(words: list[str], known: tuple[str, ...], held: Callable[[str], bool] | None = None) -> list[str] | None:
    """Return *words* with each one letter from a word of *known* (four letters or more, in any case:
    one left out, added, changed, or two swapped) read as that word, or None when none is.  Not a
    common English word nor one the index holds (*held*): "least", "four", "your", "weak", "lost",
    "part" are words, and "python support for at least 5 years" was read as the last five years of
    "python support for at", "the last four" as the last hour, "update last month" as the month's
    listing, "nets this week" as "news" (a QA pass over the 64k Debian packages)."""
    changed, out = False, []
    for word in words:
        lowered = word.lower()
        found = _near(lowered, known) if len(lowered) >= 4 and lowered.isalpha() else None
        if found is not None and (common_word(lowered) or (held is not None and held(lowered))):
            found = None
        changed |= found is not None
        out.append(found or word)
    return out if changed else None


def _near(word: str, known: tuple[str, ...]) -> str | None:
    """Return the word of *known* one letter (a-z) from *word* (one left out, added or changed, or two
    swapped: the speller's distance, ``search.spell``), not *word* itself, the first listed of two; or None."""
    if word in known or not word.isascii():
        return None
    found = process.extractOne(word, known, scorer=OSA.distance, score_cutoff=1)
    return None if found is None else found[0]


def with_dates(params: SearchParams, on: date | None = None, held: Callable[[str], bool] | None = None) -> SearchParams:
    """Return *params* with the phrase of time ending its query (``time_phrase``) read as its ``since``
    and ``until``, in place of the address's, and taken out of the words.  A bound typed as ``since:``
    or ``until:`` is for ``Snapshot.inline_filters`` to keep (it says more exactly what is meant).  The
    address's bounds give way: the search box carries the page's dates, and "game this month" typed on
    a page of last week's was searched as words within last week (a QA pass).  A query left asking only
    what happened ("what happened last week", "latest news today") is the listing of those days.
    *held* tells a word the index holds: no typo, and a subject where it could be the asking ("hacker
    news", "short stories", "security updates" are what the pages write)."""
    read = time_phrase(params.q, on, held) if params.q else None
    if read is None:
        return params
    # The phrase and the sentence's marks after it ("nvidia today," searched "nvidia ,": a QA pass).
    rest = without_spans(params.q, [(read.span[0], len(params.q))])
    if (again := time_phrase(rest, on, held)) is not None:  # "this week last week": the first is words, read so again
        rest = _quoted(rest, again)
    if asks_only_when(rest) or not any(ch.isalnum() for ch in rest):  # "this week?" left "?" to search
        rest = ""
    else:  # "what happened to stargate", "nvidia news": the subject asked about
        rest = _ASKING_BEFORE.sub("", rest)
        after = _ASKING_AFTER.search(rest)
        if after is not None and not (held is not None and held(after.group("asked"))):
            rest = rest[: after.start()]
    # The phrase's dates in place of the address's, a month chosen among them ("nvidia this month"
    # typed on November's page found nothing: a QA pass).
    dated = params.with_(q=rest, since=read.since.isoformat(), until=read.until.isoformat() if read.until else None,
                         month=())
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
    if match.group("ago_unit"):  # "2 days ago": that day, or the calendar's week, month or year holding it
        written = match.group("ago_unit").lower()
        unit = _UNITS[written if written in _UNITS else written[:-1]]
        text = (match.group("ago_count") or match.group("ago_counted")).lower()
        count = int(text) if text.isdigit() else _NUMBERS[text]
        if not 0 < count <= MAX_COUNT:
            return None
        if unit == "hour":
            day = hours_ago(on, count)
            return day, day
        if match.group("ago_today"):  # "5 years ago today": this day then (read as two phrases, it was
            day = _back(on, unit, count) - timedelta(days=1)  # "5 years ago" quoted within today: nothing)
            return day, day
        if unit in ("day", "week"):
            day = on - timedelta(days=count * (7 if unit == "week" else 1))
            start = _period_start(day, unit)
            return start, min(on, start + timedelta(days=6 if unit == "week" else 0))
        start = _period_start(_back(on, unit, count) - timedelta(days=1), unit)
        return start, min(on, _period_start(start + timedelta(days=366 if unit == "year" else 31), unit) - timedelta(days=1))
    which, written = match.group("which").lower(), match.group("unit").lower()
    plural = written not in _UNITS
    unit = _UNITS[written[:-1] if plural else written]
    count_text = (match.group("count") or match.group("counted") or "").lower()
    if count_text:  # "last 3 days", "past two weeks": a span back from today (not "this 3 weeks")
        count = int(count_text) if count_text.isdigit() else _NUMBERS[count_text]
        if which == "this" or not 0 < count <= MAX_COUNT:  # "previous 2 weeks" as "last 2 weeks"
            return None
        return (hours_ago(on, count) if unit == "hour" else _back(on, unit, count)), on
    if written == "h":  # "last h": only after a number
        return None
    if unit == "hour":  # "past hour", "last hour": the one before now ("this hour" is no date)
        return (hours_ago(on, 1), on) if which in ("last", "past") and not plural else None
    if unit == "day" or plural:  # "last day": of a thing; "over the past years": no date
        return None
    if which == "past" or (which == "last" and match.group("the")):  # "past week", "in the last week": back from today
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
