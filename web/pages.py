"""HTML pages: parse request.args, call the service, render a template.  No search logic here.

The helpers below only build URLs and arrange already-computed values for the templates: every
page state (query, filters, sort, page, explain) lives in the URL, so each link and form works
without JavaScript.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from functools import cache, lru_cache
from dataclasses import replace
from typing import NamedTuple
from urllib.parse import quote, unquote, urlencode

from flask import Blueprint, Response, abort, redirect, render_template, request, url_for
from markupsafe import Markup, escape
from werkzeug.datastructures import MultiDict

from corpus.jsonl import ID_MAX_LENGTH
from corpus.records import GUIDE, guide_url, visible_url
from index import store
from index.schema import event_url, whole_slug
from search.alternatives import OPERATORS
from search.explain import readable, summary
from search.params import (DATE_BOUNDS, DEFAULT_PER_PAGE, FILTERS, MAX_FILTER_VALUES, MAX_PER_PAGE, MAX_QUERY_CHARS, InvalidParameter,
                           SearchParams, as_parameter, as_sent, in_vain_besides_filters, last_window_page, one_value, parse_params,
                           to_query_string, typed_as_words, url_pairs, url_values, written_otherwise)
from search.query import asks_elsewhere, exclusion_fixes, negation_offers
from search.results import FacetValue, Hit, SearchResult
from search.spell import respelt
from search.snapshot import VERSION_AFTER, Snapshot
from search.suggest import MAX_PREFIX_CHARS
from web import get_search
from web.boundary import sent_as_text
from web.dates import exact, relative
from web.errors import error_response, unknown_id

bp = Blueprint("pages", __name__)
bp.add_app_template_global(relative)
bp.add_app_template_global(exact)
bp.add_app_template_filter(lambda number: f"{number:,}", "thousands")  # 25,876: a count read at a glance
# The search box takes as much as a search does: a pasted paragraph is not cut short in the box.
bp.record_once(lambda state: state.app.jinja_env.globals.update(max_query_chars=MAX_QUERY_CHARS, max_prefix_chars=MAX_PREFIX_CHARS))

PAGE_PARAMS = frozenset(("q", *FILTERS, *DATE_BOUNDS, "sort", "per_page", "page", "verbatim", "explain"))
FACET_HEADINGS = {"topic": "Topic", "entity": "Organisation", "kind": "Type", "month": "Month"}
FACET_TOP = 5  # values shown before "show all"
PAGE_RADIUS = 2  # numbered page links either side of the current page


def search_url(params: SearchParams, **overrides: object) -> str:
    """Return the page URL for *params* with *overrides* applied (page resets unless given)."""
    overrides.setdefault("page", 1)
    query = "&".join(filter(None, [_encoded(name, value) for name, value in url_values(params, overrides)]))
    return "/" + (f"?{query}" if query else "")


@lru_cache(maxsize=4096)
def _encoded(name: str, value: object) -> str:
    """Return parameter *name* at *value* as urlencode writes it in a URL: a page's thirty links
    repeat its query and filters, each of them encoded once."""
    return urlencode(url_pairs(name, value))


def toggle(params: SearchParams, facet: str, value: str) -> str:
    """Return the page URL with *value* of *facet* switched on or off."""
    values = getattr(params, facet)
    new = tuple(v for v in values if v != value) if value in values else (*values, value)
    return search_url(params, **{facet: new})


def narrow(params: SearchParams, facet: str, value: str) -> str:
    """Return the page URL with *facet* filtered to *value* alone, the query and other facets kept: a hit's chip.

    Not a toggle: values of one facet combine with OR, so adding a hit's value to its facet's
    selection would widen the results, not keep those with the value.  A chip of the one value
    selected already removes it, and says so.
    """
    return search_url(params, **{facet: () if getattr(params, facet) == (value,) else (value,)})


def clear_url(params: SearchParams, facet: str | None = None) -> str:
    """Return the page URL without *facet*'s filters (without every filter and date bound when *facet* is None)."""
    if facet in DATE_BOUNDS:
        return search_url(params, **{facet: None})
    names = FILTERS if facet is None else (facet,)
    bounds = {name: None for name in DATE_BOUNDS} if facet is None else {}
    return search_url(params, **{name: () for name in names}, **bounds)


def offered_url(params: SearchParams, offered: str) -> str:
    """Return the page URL of the search "Did you mean" offers, *offered*, the page's filters kept.

    Searched as typed (verbatim), a correction offered is the way back to the corrected search, and
    drops the switch (709bd49); an exclusion offered for a negation in words ("openai without
    microsoft": "openai -microsoft") corrects nothing, and keeps it: it dropped it (a regression pass).
    """
    return search_url(params, q=offered, verbatim=params.verbatim and _excludes_as_said(params.q, offered))


def _excludes_as_said(typed: str, offered: str) -> bool:
    """Return whether *offered* is *typed* with its negation in words written as an exclusion
    (``search.query.negation_offers``, as the service offers it)."""
    offers = negation_offers(typed)
    return bool(offers) and respelt(typed, exclusion_fixes(typed, offers)).text == offered


def without_param(param: str | None) -> str:
    """Return the page URL of this request without *param* (the one a 400 named) and what the page does not read.

    The way back from an error page: the reader's search as it was, less the value that could not be used.
    """
    pairs = _kept_args(param, PAGE_PARAMS)
    return "/" + (f"?{urlencode(pairs)}" if pairs else "")


def shortened_query(param: str | None) -> str | None:
    """Return the page URL of this request's search with its query cut to the first MAX_QUERY_CHARS
    characters the limit counts (at a word's end), when the query was too long, else None: the way on
    from the error page, where "Back to your search without q" dropped the whole text (a QA pass)."""
    query = request.args.get("q", "") if param == "q" and sent_as_text("q") else ""
    sent = as_sent(query) if query and _shown(query) else ""
    if len(sent) <= MAX_QUERY_CHARS:
        return None
    head = sent[: MAX_QUERY_CHARS + 1]  # a word ending at the limit ends before the character after it
    cut = head.rsplit(" ", 1)[0] if " " in head else sent[:MAX_QUERY_CHARS]
    return "/?" + urlencode([("q", cut), *kept_filters(param)])


def kept_filters(param: str | None) -> list[tuple[str, str]]:
    """Return this request's filters, dates, sort and per_page less *param*: what a new search from an
    error page keeps (the search box of a result page keeps the same)."""
    return _kept_args(param, (*FILTERS, *DATE_BOUNDS, "sort", "per_page"))


def _kept_args(param: str | None, names: Iterable[str]) -> list[tuple[str, str]]:
    # Not a value a control or bidi character makes unusable (another 400 to come; a QA pass found
    # "sort=%00%1B" repeated into the error page's form when the page had named 'page').
    wanted = set(names) - {param}
    return [(name, value) for name, value in request.args.items(multi=True) if name in wanted and value and _shown(value)]


def _shown(value: str) -> bool:
    return value.isprintable() or all(c.isprintable() or c in " \t" for c in value)


def retry_query() -> str:
    """Return the query an error page's search box keeps: the reader's, also when the query was what
    could not be used but can be edited (17 prefixes, or given twice: the first), so one ``*`` can be
    taken out and searched again (the box was emptied); not bytes that were no UTF-8, a control or
    bidi character or more than MAX_QUERY_CHARS, which cannot be shown again as typed, whichever
    parameter the page names (a duplicated 'page' repeated "a\x00b\x1b[2J" into the box)."""
    query = request.args.get("q", "")
    shown = len(query) <= MAX_QUERY_CHARS and _shown(query) and sent_as_text("q")
    return query if shown else ""


# What an error page calls a parameter, where the API names it ('page', 'since'): the reader sees the
# page's own words, the program the parameter's name.
_READER_NAMES = {"q": "the search words", "page": "the page number", "per_page": "the number of results on a page",
                 "sort": "the order", "explain": "the ranking details", "verbatim": "the switch to search the words as typed",
                 "topic": "a topic", "entity": "an organisation",
                 "kind": "a type", "month": "a month", "since": "the From date", "until": "the Until date",
                 "path": "the address", "id": "the address"}
_READER_PLURALS = {"topic": "topics", "entity": "organisations", "kind": "types", "month": "months"}
_EXAMPLES = {"page": "2", "per_page": "20"}
_VERBS = {False: {"is_": "is", "holds": "holds"}, True: {"is_": "are", "holds": "hold"}}  # "the search words are"
# The API's messages (search/params.py, web/boundary.py) a page says otherwise: a shape, and its words
# (a name in braces is a parameter's reader's name; the others are the shape's groups).
_READER_MESSAGES = [
    (r"'(?P<p>page|per_page)' must be a whole number written with the digits 0-9", "{P} must be a whole number, such as {example}."),
    (r"'per_page' must be between (?P<low>\d+) and (?P<high>\d+)", "A page can show from {low} to {high} results."),
    (r"'(?P<p>\w+)' must be between (?P<low>\d+) and (?P<high>\d+)", "{P} must be from {low} to {high}."),
    (r"'(?P<p>\w+)' was given \d+ different values; give it once", "The address gives {p} more than once, with different values."),
    (r"'(?P<p>\w+)' may be given at most (?P<n>\d+) times", "At most {n} {plural} can be chosen at once."),
    (r"each '(?P<p>\w+)' value may be at most (?P<n>\d+) characters", "{P} can be at most {n} characters long."),
    (r"each 'kind' value must be one of: (?P<listed>.*)", "A type must be one of: {listed}."),
    (r"each 'month' value must be a month written YYYY-MM, e\.g\. 2024-05", "A month must be written as its year and month, such as 2024-05."),
    (r"'(?P<p>since|until)' must be an ISO 8601 date \(2024-05-01\) or date-time \(2024-05-01T09:30:00Z\)",
     "{P} must be a date, such as 2024-05-01, or a date and time, such as 2024-05-01T09:30:00Z."),
    (r"'(?P<p>since|until)' \((?P<raw>.*)\) names no day: (?P<why>.*)", "{P}, {raw}, is no day: {why}."),
    (r"'until' \((?P<until>.*)\) is before 'since' \((?P<since>.*)\)", "The Until date ({until}) is before the From date ({since})."),
    (r"'sort' must be one of: (?P<listed>.*)", "The order must be one of: {listed}."),
    (r"'explain' must be 1 or 0 .*", "The ranking details are shown with 1 and hidden with 0."),
    (r"'verbatim' must be 1 or 0 .*", "The switch to search the words as typed, none corrected, takes 1 (on) or 0 (off)."),
    (r"'q' may be at most (?P<n>\d+) characters once whitespace is collapsed", "A search can be at most {n} characters long."),
    (r"'q' may hold at most (?P<n>\d+) prefixes \(words typed with a \*\)", "A search can hold at most {n} words typed with a *."),
    (r"'(?P<p>.*)' may not contain a NUL character", "{P} {holds} a character that cannot be searched (NUL)."),
    (r"(?:The path|'id') is not UTF-8 text.*", "The address is not text that can be read (it is not UTF-8): it may have been cut short."),
    # An id of the path (an event's, a guide's topic) holding a control character (web.boundary): the page
    # gave the API's "(U+0000, character 2), which no id holds", code point and all; the reader is told
    # what it means, the character not shown.
    (r"(?:The address|'id') holds a control character .*", "The address holds a control character, which no page's address holds: "
                                                          "it may have been mistyped or copied wrongly."),
    (r"'(?P<p>.*)' is not (?:valid )?UTF-8 text.*", "{where} {is_} not text that can be read (not UTF-8): the address may have been cut short."),
]
_READER_MESSAGES = [(re.compile(shape), words) for shape, words in _READER_MESSAGES]


@bp.app_template_global()
def reader_message(message: str, param: str | None) -> str:
    """Return a 400's *message* (the API's, which names parameters) as its page says it to a reader:
    "'page' must be a whole number written with the digits 0-9" is "The page number must be a whole
    number, such as 2."; a message of no known shape names the parameters the page's way, a sentence."""
    for shape, words in _READER_MESSAGES:
        found = shape.fullmatch(message)
        if found:
            named = found.groupdict()
            name = named.pop("p", None) or param or ""
            reader = _READER_NAMES.get(name, f"'{name}'")
            big = reader[:1].upper() + reader[1:]
            where = f"{big} in the address" if name in _READER_NAMES else f"Part of the address, {reader},"
            numbers = {key: f"{int(value):,}" if value.isdigit() else value for key, value in named.items()}  # 1,000
            said = words.format(p=reader, P=big, where=where, plural=_READER_PLURALS.get(name, "values"),
                                example=_EXAMPLES.get(name, "2"), **numbers, **_VERBS[reader.endswith("words")])
            return said.replace("..", ".")
    said = re.sub(r"'(\w+)'", lambda quoted: _READER_NAMES.get(quoted[1], quoted[0]), message)
    said = said[:1].upper() + said[1:]
    return said if said.endswith((".", "?", "!")) else said + "."


bp.add_app_template_global(without_param)
bp.add_app_template_global(shortened_query)
bp.add_app_template_global(kept_filters)
bp.add_app_template_global(retry_query)

@bp.app_template_global()
def source_link(url: object) -> str | None:
    """Return a document's source address as its page links it and shows it, or None for one that is
    not http(s): what a reader does not see as written percent-encoded, as a browser sends it.  A
    record's url is kept as written, and a Source link to ``https://evil.example/#`` then a right-to-left
    override and ``/moc.elpmaxe.doog//:sptth`` read "https://evil.example/#https://good.example.com/"
    (QA pass AA), as a title holding one reversed the text after it before such marks were dropped."""
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        return None
    return visible_url(url)  # also done on load since (corpus/jsonl.py): an index built before keeps them


def feed_url(params: SearchParams) -> str:
    """Return the Atom feed that follows *params*' search: the same query, filters and dates, newest first."""
    query = urlencode(to_query_string(params, sort=None, page=1, per_page=DEFAULT_PER_PAGE, explain=False))
    return "/feeds/search.atom" + (f"?{query}" if query else "")


def api_url(params: SearchParams) -> str:
    """Return the JSON twin of the page of *params*: the same search, page and all, from /api/search."""
    return "/api/search" + search_url(params, page=params.page)[1:]


def page_window(page: int, pages: int, radius: int = PAGE_RADIUS) -> list[int | None]:
    """Return the page numbers to link: first, last and those near *page*; None marks a gap."""
    shown = sorted({1, pages, *range(max(1, page - radius), min(pages, page + radius) + 1)})
    window: list[int | None] = []
    previous = 0
    for number in shown:
        if number - previous == 2:
            window.append(number - 1)  # a gap of one page: show the page, not an ellipsis
        elif previous and number - previous > 2:
            window.append(None)
        window.append(number)
        previous = number
    return window


def _chosen(params: SearchParams, label: Callable[[str, str], str]) -> list[tuple[str, str]]:
    """Return each filter of *params* as (heading, what it keeps) in the page's words: a facet's labels
    joined by "or" (values of one facet combine so), then the dates as their chips write them."""
    chosen = [(FACET_HEADINGS[name], " or ".join(label(name, v) for v in getattr(params, name)))
              for name in FILTERS if getattr(params, name)]
    chosen += [(heading, exact(bound)) for heading, bound in (("From", params.since), ("Until", params.until)) if bound]
    return chosen


# A query is echoed (the tab's title, the heading, "N results for …") up to so many characters, then
# cut at a word with "…": a pasted paragraph of 500 characters filled 14 lines of a phone's screen
# above the results, and the tab's title (a QA pass); the search box keeps it whole.
SHOWN_QUERY_CHARS = 80


def shown_query(q: str, limit: int = SHOWN_QUERY_CHARS) -> str:
    """Return *q* as the page echoes it: whole, or its first *limit* characters cut at a word, with "…"."""
    if len(q) <= limit:
        return q
    cut = q[:limit]
    if not q[limit].isspace():  # the cut is inside a word: up to the word before it
        space = cut.rfind(" ")
        cut = cut[:space] if space > limit // 2 else cut
    return cut.rstrip() + "…"


_WORD_MINUS = re.compile(r"(?:^|(?<=\s))([-–])(?=\w)")  # a minus (or a phone's dash) that excludes the word after it


def as_searched(shown: str) -> str:
    """Return *shown* (``shown_query``) as the summary writes what was searched: a quote left open closed,
    as the search closes it ('"stargate mi' read 'No results for "stargate mi in 123 ms'), and a minus
    that excludes a word held to it (a word joiner, which a query typed or pasted drops): a phone's line
    broke between "-" and "nvdia" (a page QA pass)."""
    if shown.count('"') % 2 and not shown.endswith("…") and shown.rpartition('"')[2].strip():
        shown += '"'  # a quote with something after it ('stargate"' is as typed: no '""')
    return _WORD_MINUS.sub("\\1\u2060", shown)


_SORTS = (("relevance", "Relevance"), ("newest", "Newest"), ("listing", "Listing order"))


def sort_choices(params: SearchParams, shown: str, snap: Snapshot) -> list[tuple[str, str]]:
    """Return the orders the page offers (each sort's value and name): relevance for a query; listing
    order only where it differs from newest first (``Snapshot.sorts_alike``: the seed's are one order,
    and its link did nothing, a page QA pass) or is the order *shown*.  One order alone is still named,
    the order the results are in."""
    return [(value, text) for value, text in _SORTS
            if (params.q or value != "relevance") and (value != "listing" or shown == "listing" or not snap.sorts_alike(bool(params.q)))]


def page_title(params: SearchParams, label: Callable[[str, str], str], page: int | str | None = None) -> str:
    """Return what a tab or a bookmark calls this page: the query, the filters and the page when not the
    first (*page*, when given: the one asked for past the last any search serves)."""
    parts = [shown_query(params.q)] if params.q else []
    for heading, text in _chosen(params, label):
        parts.append(f"{heading.lower()} {text}" if heading in ("From", "Until") else text)
    page = page or params.page
    if page != 1:
        parts += [*(() if parts else ("Everything",)), f"page {page}"]
    return " · ".join(parts) + " – Topic hub search" if parts else "Topic hub search"


def page_heading(params: SearchParams, label: Callable[[str, str], str]) -> str:
    """Return the page's h1, which names what is listed: the query, the filters, or everything."""
    chosen = "; ".join(f"{heading}: {text}" for heading, text in _chosen(params, label))
    if params.q:
        return f"Results for {shown_query(params.q)}" + (f" filtered by {chosen}" if chosen else "")
    return f"Events and guide sections filtered by {chosen}" if chosen else "All events and guide sections"


def moved(snap: Snapshot, params: SearchParams) -> int:
    """Return the status of a redirect of *params* to the snapshot's own filters: 301 when a topic is
    asked for by a slug it had before it was renamed, in any case (the taxonomy's ``formerly``: its
    addresses moved for good), else 302 (another case, a label: another snapshot may hold other values)."""
    return 301 if any(snap.was_topic(topic) for topic in params.topic) else 302


def split_facet(values: Sequence[FacetValue], top: int = FACET_TOP) -> tuple[list[FacetValue], list[FacetValue]]:
    """Return the values to show at once (the top ones and every selected one) and the rest: none when
    the rest would be one value ("Show all 6" took a line to show one more: a QA pass)."""
    shown = [v for i, v in enumerate(values) if i < top or v.selected]
    rest = [v for i, v in enumerate(values) if i >= top and not v.selected]
    return (list(values), []) if len(rest) == 1 else (shown, rest)


_SLUG_TYPED = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")


def typed_title(result: SearchResult) -> Callable[[Hit], bool]:
    """Return a function telling whether a hit's title is what was searched for (or its correction),
    word for word, punctuation and case aside (as a title names its event: by its slug): the page
    then says so, rather than showing an id the reader never typed."""
    texts = (result.query, result.suggestion.text if result.suggestion else "")
    # A text that is a slug already ("introducing-stargate-uk") was typed as the id: an exact name.
    asked = {whole_slug(text.strip('"')) for text in texts if text and not _SLUG_TYPED.fullmatch(text.strip())} - {""}

    def typed(hit: Hit) -> bool:
        return whole_slug(hit.title) in asked

    return typed


def _named_so(result: SearchResult, prefix: str, so: Callable[[str, str], bool]) -> Callable[[Hit], bool]:
    """Return a function telling whether a hit's name (its id less *prefix*, lower case) is not what
    was searched for (the query or its correction) but holds it as *so* says of (name, text)."""
    texts = {text.strip().lower() for text in (result.query, result.suggestion.text if result.suggestion else "")} - {""}

    def named(hit: Hit) -> bool:
        name = (hit.id[len(prefix):] if prefix and hit.id.startswith(prefix) else hit.id).lower()
        return name not in texts and any(so(name, text) for text in texts)

    return named


def versioned_name(result: SearchResult, prefix: str) -> Callable[[Hit], bool]:
    """Return a function telling whether a hit named by the query is so with a version number after
    what was typed ("python": python3; ``Snapshot.named``): the page then says so, not "Exact name"."""
    return _named_so(result, prefix, lambda name, text: name.startswith(text) and VERSION_AFTER.fullmatch(name[len(text):]) is not None)


def carried_name(result: SearchResult, prefix: str) -> Callable[[Hit], bool]:
    """Return a function telling whether a hit named by the query is so as the last part of its name
    ("numpy", "python numpy": python3-numpy; ``Snapshot.named``): the page then says so, not "Exact name"."""
    return _named_so(result, prefix, lambda name, text: name.endswith("-" + text.split()[-1]))


def must_include(params: SearchParams, query: str | None = None, nowhere: Collection[str] = ()) -> Callable[[str], str | None]:
    """Return a function giving, for a word a hit lacks (as typed), the page of this search with the
    word required ("stargate +michigan"; words read as one, typed side by side, as their phrase:
    'building +"data centers" in texas'), or None where the word is not typed once as a whole word or
    quoted phrase of the query (a word of a longer concept, of a group), or no result holds it
    (*nowhere*: "stargate +xyzzy" lists nothing).  *query*, when given, is the query the results were
    searched as (its spelling corrected: "oracle stargate" for "oracel stargate")."""
    made: dict[str, str | None] = dict.fromkeys(nowhere)
    q = params.q if query is None else query

    def url(text: str) -> str | None:
        if text not in made:
            made[text] = None
            quoted = len(text) > 1 and text[0] == text[-1] == '"'
            if text[0] not in "+-" and '"' not in text[1:-1]:
                # In any case: a query typed with caps lock names its missing words as the pages write them.
                # A word before a stop or a comma too: "stargate michigan?" named michigan missing, with no link (a QA pass).
                at = [m.span() for m in re.finditer(r"(?<!\S)%s(?=[?!.,;:]*(?:\s|$))" % re.escape(text), q, re.IGNORECASE)]
                if len(at) == 1:
                    start, end = at[0]
                    typed = q[start:end]
                    # Words read as one concept ("data centers") are required as their phrase: they had no link (a page QA pass).
                    words = typed.split()
                    if len(words) == 1 or quoted:
                        made[text] = search_url(params, q=f"{q[:start]}+{q[start:]}")
                    # Not a group ("gpus OR tpus"), nor a place asked for as "outside" it: no page writes "outside europe".
                    elif not any(word in OPERATORS or not word.isalnum() for word in words) and not asks_elsewhere(typed):
                        made[text] = search_url(params, q=f'{q[:start]}+"{typed}"{q[end:]}')
        return made[text]

    return url


class Chip(NamedTuple):
    """A hit's topic or organisation, as its link shows it: the page narrowed to it alone."""

    name: str  # the facet
    label: str
    url: str
    current: bool  # a selected value of the facet
    removes: bool  # the facet's one selected value: the link takes the filter off


def hit_chips(result: SearchResult, params: SearchParams, label: Callable[[str, str], str]) -> Callable[[Hit], list[Chip]]:
    """Return a function giving a hit's topic and organisation chips, without those on every result.

    Of a facet already filtered, only the chips of its selected values, when several are (each
    narrows to itself alone): another value would replace the filter and could widen the results
    ("Training Infrastructure" under Compute deals: 13 results to 33), and a value selected alone is
    on every hit, where the filter's own chip above removes it.  A value on several hits of the page
    is made into its chip once."""
    selected = {name: set(values) for name in ("topic", "entity") if (values := getattr(params, name, ()))}
    shown = {name: values if len(values) > 1 else set() for name, values in selected.items()}
    everywhere = {
        (name, v.value)
        for name, values in result.facets.items()
        if not getattr(params, name, ()) and result.total > 1
        for v in values
        if v.count == result.total
    }
    made: dict[tuple[str, str], Chip] = {}

    def chip(name: str, value: str) -> Chip:
        if (name, value) not in made:
            values = getattr(params, name)
            made[name, value] = Chip(name, label(name, value), narrow(params, name, value), value in values, values == (value,))
        return made[name, value]

    def chips(hit: Hit) -> list[Chip]:
        pairs = [("topic", v) for v in hit.topics] + [("entity", v) for v in hit.entities]
        return [chip(*pair) for pair in pairs if pair not in everywhere and (pair[0] not in shown or pair[1] in shown[pair[0]])]

    return chips


# A page's description as search engines and link previews show it: some 160 characters.
DESCRIPTION_CHARS = 160


_BLANK_LINES = re.compile(r"[ \t]*[\n\u2028\u2029]\s*")  # (U+2028 and U+2029 separate lines too: Chromium showed nothing)


@bp.app_template_filter("line_breaks")
def line_breaks(html: str) -> str:
    """Return a snippet's HTML with each run of line breaks and blank lines one line break, which the
    page shows (``white-space: pre-line``): a package's paragraphs stood a blank line apart in a
    snippet of three lines.  Only blanks change: the HTML stays what the highlighter made safe."""
    return _BLANK_LINES.sub("\n", html)


@bp.app_template_filter("description")
def description(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    """Return *text* as a page's description: its whitespace and bullets run into one line, cut at the
    last space within *limit* characters (with an ellipsis) when it is longer."""
    flat = " ".join(word for word in text.split() if word != "-")
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    cut = cut[: cut.rfind(" ")] if " " in cut else cut
    return cut.rstrip(" ,;:.–—-") + "…"


def text_blocks(body: str) -> list[tuple[str, list[str]]]:
    """Return *body*'s lines grouped as paragraphs ("p", [text]) and bullet lists ("ul", items)."""
    blocks: list[tuple[str, list[str]]] = []
    for line in body.split("\n"):
        line = line.strip()
        if not line:
            continue
        if line.startswith("- "):
            if blocks and blocks[-1][0] == "ul":
                blocks[-1][1].append(line[2:])
            else:
                blocks.append(("ul", [line[2:]]))
        else:
            blocks.append(("p", [line]))
    return blocks


# An event's address written in a guide's text: "/events/" and what follows it up to a blank, a quote,
# a bracket or markup, after the start of the text, a blank, an opening bracket or quote.  Trailing
# punctuation (the sentence's full stop) is taken off, when the address with it names no event.
_EVENT_PATH = re.compile(r"(?<![^\s(\[{\"'\u201c\u2018\u00ab])/events/[^\s<>\"'()\[\]{}\u201d\u2019\u00bb]+")
_AFTER_PATH = ".,;:!?\u2026"
_ADDRESS_MAX_CHARS = 12 * ID_MAX_LENGTH  # an id's longest, each character percent-encoded UTF-8 (4 bytes, %XX each)


def event_links(text: str, is_event: Callable[[str], bool]) -> Markup:
    """Return *text* escaped, each address of an event it writes (``/events/ID``, the ID as written or
    percent-encoded) that *is_event* knows made a link to that event's page: the one markup added is
    ``<a href="/events/ID">`` around the escaped address, the href the event's own (``event_url``).
    An address of no event (a typo, a deleted event, a guide section's id) stays text."""
    out: list[str] = []
    at = 0
    for found in _EVENT_PATH.finditer(text):
        linked = _event_at(found[0], is_event)
        if linked is not None:
            path, doc_id = linked
            out += [escape(text[at:found.start()]), Markup('<a href="{}">{}</a>').format(event_url(doc_id), path)]
            at = found.start() + len(path)
    return Markup("").join((*out, escape(text[at:])))


def _event_at(path: str, is_event: Callable[[str], bool]) -> tuple[str, str] | None:
    """Return the address *path* writes (less the punctuation after it: up to three characters of it,
    or all) and the id of the event it names, or None when it names none.  An address longer than an
    id can be, percent-encoded, is none: each try reads the address again (one of 10,000 full stops
    took 0.5 s, and a section may hold 1,000,000 characters)."""
    bare = path.rstrip(_AFTER_PATH)
    for end in dict.fromkeys((*range(len(path), max(len(bare), len(path) - 3) - 1, -1), len(bare))):
        written = path[len("/events/"):end]
        if not written or len(written) > _ADDRESS_MAX_CHARS:
            continue
        for doc_id in dict.fromkeys((written, unquote(written))):
            if is_event(doc_id):
                return path[:end], doc_id
    return None


def topic_intro(snap: Snapshot, params: SearchParams) -> tuple[str, str] | None:
    """Return the topic a page lists without a query, one topic chosen (``/?topic=networking``), with
    its description from the taxonomy: the page said "3 results" and the filter's chip, never which
    topic it was nor what it covers (a QA pass in Chromium)."""
    if params.q or len(params.topic) != 1:
        return None
    taxonomy = snap.meta.get("topics")
    info = taxonomy.get(params.topic[0]) if isinstance(taxonomy, dict) else None
    if info is None and params.topic[0] not in snap.facet_docs["topics"]:
        return None  # no such topic: the page says nothing matched
    described = str(info.get("description") or "") if isinstance(info, dict) else ""
    return snap.label("topic", params.topic[0]), described


def _past_the_window(args) -> tuple[SearchParams, str] | None:
    """Return, for a page number past the last any search serves ("page=101" at 10 a page, "page=1001"),
    the same search at the window's last page and the number asked for; None for any other request.
    The page then says there is no such page and where the last one is, as it does within the window,
    where it answered with the API's 400 ("the answer's 'pages' says how many …": a QA pass)."""
    try:  # "page=1&page=2" is the 400 it says; "page=101&page=101" one page
        raw = (one_value(args, "page") or "").strip().lstrip("0")
    except InvalidParameter:
        return None
    if not raw.isascii() or not raw.isdigit():
        return None
    try:  # the same search's first page, which any other parameter may still make a 400 of its own
        first = parse_params(MultiDict([*((k, v) for k, v in args.items(multi=True) if k != "page"), ("page", "1")]))
    except InvalidParameter:
        return None
    return first.with_(page=last_window_page(first.per_page)), raw if len(raw) <= 12 else raw[:12] + "…"


@bp.get("/")
def page() -> str | Response:
    try:
        params, asked_page = parse_params(request.args), None
    except InvalidParameter as exc:
        past = _past_the_window(request.args) if exc.param == "page" else None
        if past is None:
            raise
        params, asked_page = past
    service = get_search()
    snap = service.snapshot()
    # entity=OpenAI: the address says openai; "topic:funding stargate" typed in the box: ?q=stargate&topic=funding,
    # its filter shown chosen as a click would have it.
    canonical = snap.canonical_filters(snap.inline_filters(params))
    if canonical != params or written_otherwise(request.args) or any(name in request.args and not request.args[name] for name in DATE_BOUNDS):
        # Also the filter form's empty date fields, sent when it is submitted without script; a kind or a
        # month listed with commas or a kind in capitals, as the search's address writes them.
        return redirect(search_url(canonical, page=canonical.page), moved(snap, params))
    result = service.search(params)
    if asked_page is not None:  # no page of it is listed: the note says where the last is
        # Past the last page, as a page past a short search's end is: none of the pager's pages is the
        # current one and "Previous" leads to the last (page 100 was marked current, with nothing on it,
        # and the note that the pages stop there said again what the note above says: a QA pass).
        result = replace(result, hits=(), answer=None, page=result.pages + 1)
    label, prefix = snap.label, snap.id_prefix
    return render_template(
        "search.html",
        params=params,
        title=page_title(params, label, asked_page),
        heading=page_heading(params, label),
        shown_q=shown_query(params.q),
        # What was searched, as the summary names it: a correction's words where one was made ("15 results
        # for “stargate”" for "stargte": no page holds a corrected word, so every result is one for it).
        searched_q=as_searched(shown_query(result.suggestion.text if result.suggestion and result.total else params.q)),
        topic_intro=topic_intro(snap, params),
        sorts=sort_choices(params, result.sort, snap),
        result=result,
        facets=result.listed_facets,
        suggestion=result.suggestion,
        answer=result.answer,
        ways=result.ways_out,
        headings=FACET_HEADINGS,
        pages=page_window(result.page, result.pages),
        past_end=result.total > 0 and (result.page > result.pages or asked_page is not None),
        asked_page=asked_page or result.page,
        last_page=min(result.pages, params.page),
        search_url=search_url,
        offered_url=offered_url,
        toggle=toggle,
        clear_url=clear_url,
        # None where the feed answers 404 (web.feeds: a topic or organisation the index does not know).
        feed_url=None if snap.unheard_of(params) else feed_url(params),
        api_url=api_url(params),  # this search, as JSON
        split_facet=split_facet,
        chips_for=hit_chips(result, params, label),
        typed_title=typed_title(result),
        versioned=versioned_name(result, prefix),
        carried=carried_name(result, prefix),
        must_include=must_include(params, result.suggestion.text if result.suggestion else None, result.held_nowhere),
        # (An alias's organisation already chosen is named, not linked: "entity=alibaba&entity=qwen".)
        unknown=[(facet, value, meant, search_url(params.with_value(facet, value, meant))
                  if meant and meant not in getattr(params, facet) else None, snap.recorded(facet, value))
                 for facet, value, meant in snap.unknown_values(params)],
        # A filter typed in the query that the index cannot filter by, left as words (the others were
        # taken out, and the page redirected): said, not passed over ("topic:nowhere" is no topic).
        # Why each is words ("too many": thirteen organisations were "no organisation is called …"), in
        # one note ("-topic:funding" had its own and the note of words excluded in vain, which it now says).
        unread=typed_as_words(params, result.excluded_in_vain),
        excluded_in_vain=in_vain_besides_filters(params.q, result.excluded_in_vain),
        max_values=MAX_FILTER_VALUES,
        dated=lambda name, value: as_parameter(name, value) is not None,
        explained=summary,
        figures=readable,
        label=label,
        name_of=lambda doc_id: doc_id[len(prefix):] if prefix and doc_id.startswith(prefix) else doc_id,  # "gimp" of deb-gimp
    )


TOPICS_SHOWN = 500  # topics listed on /topics, most documents first; /api/topics has them all


@bp.get("/topics/")
def topics_slash() -> Response:
    """``/topics/``: the page of the topics, as a guide's and an event's address with a "/" lead to theirs."""
    return redirect("/topics")


@bp.get("/topics")
def topics() -> str:
    """Every topic, most documents first, with its search, guide and feed: the hub follows several
    subjects, and no page listed them but the topic facet, which mixes the topics with their related
    ones (a QA pass that added a second topic)."""
    listing = get_search().topics()
    # A corpus of 50,000 topics made /api/topics 11 MB (README): the page shows the first TOPICS_SHOWN.
    return render_template("topics.html", topics=listing["topics"][:TOPICS_SHOWN], more=max(0, len(listing["topics"]) - TOPICS_SHOWN),
                           total=listing["total"], api_url="/api/topics")


# The filters a query may hold (``search.params.INLINE_FILTER``), as the tips page shows them.
TYPED_FILTERS = (
    (("topic:funding",), "pages in a topic (its name or label, in any case)"),
    (("entity:openai", 'entity:"Mistral AI"'), "pages tagged with an organisation"),
    (("kind:guide", "kind:event"), "guide sections, or events"),
    (("month:2025-03",), "pages dated in a month (published then, else first held then)"),
    (("since:2025-01-01", "until:2025-06-30"), "pages dated then or after, then or before (a day, or a date and time)"),
)


@bp.get("/help")
def help_page() -> str:
    """How to search: the query's syntax and its typed filters, which no page told (a reader had to
    find "-word", "OR" and "topic:" by chance; a QA pass)."""
    return render_template("help.html", filters=TYPED_FILTERS, max_values=MAX_FILTER_VALUES)


@bp.get("/favicon.ico")
def favicon() -> Response:
    """The icon where tools and old browsers look for it: the page links the SVG one."""
    return redirect(url_for("static", filename="favicon.svg"), 301)


@bp.get("/events/<id:doc_id>", merge_slashes=False)  # not merged: "//" may be part of an id
def event(doc_id: str) -> str | Response:
    service = get_search()
    doc = service.document(doc_id)
    if doc is None and (renamed := service.renamed_id(doc_id)) is not None:
        return redirect(event_url(renamed), 301)  # a guide section of a renamed topic, at its id now (then its guide)
    if doc is None and (meant := _meant_id(doc_id)) is not None:
        # /events/Introducing-Stargate-UAE, /events/introducing-stargate-uae/: the event's one address,
        # as a guide's topic in another case or with a "/" is (a guide section's id goes on to its guide).
        return redirect(event_url(meant))
    if doc is not None and doc.get("kind") == "guide" and doc.get("url"):
        # A guide section's id (the API's /api/documents serves it): its place in its guide.
        return redirect(str(doc["url"]))
    if doc is None or doc.get("kind") != "event":
        # The address's words searched, the way on from an event gone or mistyped (/events/stargate-ukk
        # offered only "Back to search": a QA pass); a search finds it when its title is what the id says.
        words = " ".join(_ID_WORDS.findall(doc_id)) if len(doc_id) <= ID_MAX_LENGTH else ""
        way_on = (search_url(SearchParams(q=words)), f"Search for “{words}”") if words else None
        return error_response(404, "not_found", unknown_id("event", doc_id), way_on=way_on)  # as sent, not as Python quotes it
    return render_template(
        "event.html", doc=doc, similar=service.more_like_this(str(doc["id"])), label=service.snapshot().label, blocks=text_blocks,
        api_url="/api/documents/" + quote(str(doc["id"]), safe=""),  # this event and more like it, as JSON
    )


_ID_WORDS = re.compile(r"[^\W_]+")  # the words of an event's address ("introducing-stargate-uk")


def _meant_id(typed: str) -> str | None:
    """Return the id an event address not found means: the address without a trailing "/", or either
    in lower case, when a live document has that id ("Introducing-Stargate-UAE"); else None.  Ids are
    case-sensitive and kept as written, so "Quoll" and "QUOLL" are two events; an id with capitals is
    found only as written (a table of every id by its folded form cost 163 ms and 19 MB at 64k, on the
    first address not found after each publish)."""
    service = get_search()
    bare = typed.rstrip("/")
    for doc_id in dict.fromkeys((bare, typed.lower(), bare.lower())):
        if doc_id and doc_id != typed and service.document(doc_id) is not None:
            return doc_id
    return None


@bp.app_context_processor
def guides() -> dict[str, object]:
    """Give every page's footer the guides this snapshot has (none on a corpus without guides)."""
    def listed() -> list[tuple[str, str]]:
        try:
            snap = get_search().snapshot()
        except store.IndexUnavailable:  # the error page of a service with no index to read: no guide to link
            return []
        # One address a guide: the one its sections and /api/topics give (the route's own quoting kept "&", "(" and "/").
        return [(guide_url(topic), snap.label("topic", topic)) for topic in snap.guide_topics]

    def guide_of(topic: str) -> str | None:
        """Return the guide page of *topic*, or None when it has no guide."""
        try:
            return guide_url(topic) if topic in get_search().snapshot().guide_topics else None
        except store.IndexUnavailable:
            return None

    return {"guide_links": listed, "guide_of": guide_of}


@bp.get("/guides/<id:topic>", merge_slashes=False)  # a topic may hold a "/", even first (%2F, read back as "/")
def guide(topic: str) -> str | Response:
    service = get_search()
    sections = service.guide(topic)
    if not sections:
        snap = service.snapshot()
        current = snap.former_topics.get(topic) or snap.former_topics.get(topic.rstrip("/"))
        if current:  # a renamed topic's guide (/guides/OLD, /guides/OLD/): at its new slug's address, for good
            return redirect(guide_url(current), 301)
        # The topic written in another case (/guides/inference%20chips): its guide, as /?topic= does
        # (for good when it is a former slug in another case).
        canonical = snap.canonical_filters(SearchParams(topic=(topic,))).topic[0]
        if canonical != topic and service.guide(canonical):
            return redirect(guide_url(canonical), 301 if snap.was_topic(topic) else 302)
        if topic.endswith("/") and (bare := topic.rstrip("/")) and service.guide(bare):
            return redirect(guide_url(bare))  # /guides/training-infrastructure/: the guide, not a 404
        if topic in snap.meta.get("topics", {}):  # a topic with events and no guide: its events, then
            name = snap.label("topic", topic)
            return error_response(404, "not_found", f"The topic {name} has no guide.",
                                  way_on=(search_url(SearchParams(topic=(topic,))), f"Events on {name}"))
        abort(404, description=f"No guide for the topic '{topic}'.")
    # This guide's sections as JSON, in its order: the search the API offers for them (/api/search
    # lists no more than MAX_PER_PAGE a page, a longer guide's "pages" says how many more there are).
    sections_json = SearchParams(topic=(topic,), kind=(GUIDE,), sort="listing", per_page=MAX_PER_PAGE)
    dated = guide_dates(sections)

    @cache  # each address once a page: a guide may write one many times (20,000 addresses of 2,000 events took 2.4 s)
    def is_event(doc_id: str) -> bool:
        doc = service.document(doc_id)
        return doc is not None and doc.get("kind") == "event"

    return render_template(
        "guide.html", topic=topic, sections=sections, label=service.snapshot().label, blocks=text_blocks,
        api_url=api_url(sections_json), linked=lambda text: event_links(text, is_event), dated=dated,
        feed_url=feed_url(SearchParams(topic=(topic,))),  # the topic's news, as its search page offers (a QA pass)
        # A section's own dates, when they say more than the guide's: its date, an edit, or a later arrival.
        own_dates=lambda s: bool(s.get("published") or s.get("revised") or s.get("first_seen") != dated.get("first_seen")),
    )


def guide_dates(sections: Sequence[dict[str, object]]) -> dict[str, str | None]:
    """Return when a guide (its *sections*) was first seen by the hub, the earliest a section was, and
    last revised: the latest a section was revised or, after that first time, added; None when it has
    not been since.  Empty for an index that does not date its documents."""
    seen = [str(s["first_seen"]) for s in sections if s.get("first_seen")]
    if not seen:
        return {}
    first = min(seen)  # canonical UTC date-times (index/dates.py): their order is their text's
    last = max([*seen, *(str(s["revised"]) for s in sections if s.get("revised"))])
    return {"first_seen": first, "revised": last if last > first else None}
