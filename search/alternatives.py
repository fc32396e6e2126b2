"""Ways out of an empty result: nearby searches that do find something, each with its count.

When a search finds nothing, the page offers concrete next steps instead of a dead end: the
spelling suggestion, each active filter (facet) removed on its own, the date bounds removed, every filter
(dates too) removed, the query without the words it excludes, the query without its quotes, the
query's words joined with OR, and, for a query of marks without a word ("*") or of words asking what is
new ("latest"), no query at all: everything, newest first.  Each way out is run as a real search (one hit per page, so only the exact
total and facet counts are computed), and only ways that find something are offered.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from search.params import FILTERS, MAX_QUERY_WORDS, SearchParams
from search.query import asked_text, function_words, typed_marks, without_exclusions
from search.results import SearchResult, WayOut

_WORD = re.compile(r"[^\s\"()]+")
# A quoted phrase, or one left open; excluded with what excludes it: a "-", NOT or ANDNOT, and a filter's
# name typed excluded with a quoted value ('-entity:"OpenAI"', which stays words and is excluded whole).
_PHRASE = re.compile(r'((?:-|(?<!\S)(?:NOT|ANDNOT)\s+)(?:\w+[:：])?)?"([^"]*)(?:"|$)')
OPERATORS = frozenset({"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"})  # the words the parser reads as operators
MAX_WAYS = 10  # a suggestion, four facets, dates, all filters, exclusions, quotes, any words: each is a search


def any_words_query(text: str) -> str | None:
    """Return *text*'s words joined with OR, or None when that would not differ from *text*."""
    # The words asked for: not those excluded ("stargate NOT openai" offers no search for openai).
    words = [w for w in _WORD.findall(asked_text(typed_marks(text))) if w not in OPERATORS]
    words = [w for w in dict.fromkeys(words) if w][:MAX_QUERY_WORDS // 2]
    if len(words) < 2:
        return None
    joined = " OR ".join(words)
    return None if joined == text else joined


def unquoted_query(text: str) -> str | None:
    """Return *text* without its quote marks (curly ones too), or None when it has none: a phrase no page
    writes may still be a search whose words the pages hold ('"openai broadcom"' found nothing, and only
    'openai OR broadcom' was offered, not the search whose first result is their deal: a QA pass)."""
    marked = typed_marks(text)
    # An excluded phrase ('-"nvidia gpus"', 'NOT "nvidia gpus"') stays one: without its quotes it would
    # exclude its first word; an excluded filter's value the same ('qqzzxv -entity:"OpenAI"' offered
    # "qqzzxv -entity: OpenAI", which searched OpenAI: 26 results on the seed; a QA pass).
    unquoted = _PHRASE.sub(lambda m: m[0] if m[1] else f" {m[2]} ", marked)
    if unquoted == marked:
        return None
    return " ".join(unquoted.split()) or None


# Words asking for what is new, not for pages holding them: "latest", "news", "what's new" found nothing
# and offered no way on (a QA pass of reader queries); the empty query lists everything, newest first.
RECENCY_WORDS = frozenset({"latest", "newest", "new", "news", "recent", "recently", "lately", "update", "updates",
                           "today", "week", "month", "happening", "happened", "everything", "all", "events",
                           "stories", "headlines", "announcements"})
_LETTERS = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


def asks_for_everything(text: str) -> bool:
    """Return whether *text*, a query, holds no word of a subject: only marks ("*", "()", "-"), or only
    words asking for what is new ("latest", "what's new") besides function words.  A bare "*" matches
    nothing here (a wildcard over every word is what the parser's limits guard against); what such a
    query asks for is everything with its filters, as the empty query lists it, newest first."""
    if not any(character.isalnum() for character in text):
        return True  # "q=*" was a dead end in the API (a QA pass)
    words = _LETTERS.findall(text.lower())
    return (not any(character.isdigit() for character in text) and any(word in RECENCY_WORDS for word in words)
            and all(word in RECENCY_WORDS or function_words(word) for word in words))


def ways_out(
    search: Callable[[SearchParams], SearchResult],
    label: Callable[[str, str], str],
    params: SearchParams,
    suggestion: str | None = None,
    close: dict[tuple[str, str], str] | None = None,
) -> tuple[WayOut, ...]:
    """Return the searches near *params* that find something (run with *search*), each with its exact total.

    *close*: for a filter value no document has, the value spelt like it (``Snapshot.close_values``),
    offered in its place ("close_value")."""
    base = params.with_(page=1, per_page=1, explain=False)
    candidates: list[tuple[str, SearchParams, str | None, str | None]] = []
    if suggestion and suggestion != params.q:
        # Searched as a correction is, not as typed: the offer of a search as typed (verbatim) is the
        # way back to the corrected search (a QA pass: its link kept verbatim).
        candidates.append(("suggestion", base.with_(q=suggestion, verbatim=False), None, None))
    for (name, typed), value in (close or {}).items():
        candidates.append(("close_value", base.with_value(name, typed, value), name, value))
    # A facet's values combine with OR: one of several removed finds less, never more, so a facet of
    # several values is offered removed whole (value None).  Each of 10 values of one facet was tried
    # on its own, all in vain, and took the place of the ways that could find something.
    active = [name for name in FILTERS if getattr(params, name)]
    for name in active:
        values = getattr(params, name)
        candidates.append(("without", base.with_(**{name: ()}), name, values[0] if len(values) == 1 else None))
    dated = bool(params.since or params.until)
    if dated:
        candidates.append(("no_dates", base.with_(since=None, until=None), None, None))
    if len(active) + dated > 1:
        candidates.append(("no_filters", base.with_(since=None, until=None, **{name: () for name in FILTERS}), None, None))
    kept = without_exclusions(params.q)
    if kept:
        candidates.append(("no_exclusions", base.with_(q=kept), None, None))
    unquoted = unquoted_query(params.q)
    if unquoted:
        candidates.append(("no_quotes", base.with_(q=unquoted), None, None))
    everything = bool(params.q) and asks_for_everything(params.q)
    any_words = None if everything else any_words_query(params.q)  # ("this OR week" is no subject either)
    if any_words:
        candidates.append(("any_words", base.with_(q=any_words), None, None))
    if everything:
        candidates.append(("no_query", base.with_(q=""), None, None))

    ways: list[WayOut] = []
    for kind, candidate, facet, value in candidates[:MAX_WAYS]:
        total = search(candidate).total
        if total:
            shown = label(facet, value) if facet and value else None  # a facet removed whole: no one value
            ways.append(WayOut(kind, candidate.with_(per_page=params.per_page), total, facet, value, shown))
    return tuple(ways)
