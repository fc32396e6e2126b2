"""Search-as-you-type API: GET /api/suggest?q=<prefix> answers completions as JSON.

It takes the filters of /api/search (topic, entity, kind, month, since, until: the same names, read
and checked as a search reads them, a bad value a 400 naming it), and offers only what finds
something under them: the search box of a filtered page sends its filters with what is typed.
"""

from __future__ import annotations

import re
from dataclasses import replace
from urllib.parse import parse_qsl, urlencode

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.datastructures import MultiDict

from search.params import DATE_BOUNDS, FILTERS, SearchParams, one_value, parse_params
from search.snapshot import FACETS
from search.suggest import Suggester, Suggestion, check_prefix
from web import get_search
from web.pages import search_url

bp = Blueprint("suggest", __name__)
FILTER_PARAMS = frozenset((*FILTERS, *DATE_BOUNDS))


def get_suggester() -> Suggester:
    """Return the app's suggester."""
    return current_app.extensions["suggest"]


def cache_control(suggester: Suggester) -> str:
    """Return the Cache-Control of completions: kept briefly (they change only when a snapshot is
    published), but not while a snapshot is read, when they are the snapshot before's or none.  The
    filters are in the address, so a copy kept for one filter never answers another."""
    return "no-store" if suggester.reading else "public, max-age=60"


def request_filters() -> SearchParams | None:
    """Return this request's filters and dates as /api/search reads them (raise InvalidParameter naming
    a bad one), None when it names none; q and the page's other parameters are not read here."""
    pairs = [(name, value) for name, value in request.args.items(multi=True) if name.partition("[")[0] in FILTER_PARAMS]
    return parse_params(MultiDict(pairs)) if pairs else None  # (the usual request, unfiltered, reads nothing more)


def completions() -> tuple[str, list[Suggestion], SearchParams | None]:
    """Return this request's prefix, its completions under its filters, and the filters as the index
    writes their values (topic=NETWORKING: networking), for the addresses the completions lead to.

    A filter typed before the last word ("topic:funding st") is one of the filters, as the search reads
    it (``Snapshot.typed_filters``), and the completions keep it where it was typed: "topic:funding
    stargate".  They offered nothing once one was typed."""
    prefix = check_prefix(one_value(request.args, "q"))
    filters = request_filters()
    if (being := _FILTER_BEING_TYPED.search(prefix)) is not None:
        typed_value = being.group(2) if being.group(2) is not None else being.group(3)
        return prefix, _filter_values(prefix[: being.start()], being.group(1).lower(), typed_value), filters
    words, typed = prefix, None
    if ":" in prefix and (last := prefix.rsplit(" ", 1)) and len(last) > 1:
        snap = get_search().snapshot()
        asked = (filters or SearchParams()).with_(q=last[0])
        # The filters alone: a phrase of time before the word being typed ends no query ("topic:funding
        # last week st" offered last week's titles, and the search they led to read "last week" as words).
        inlined = snap.typed_filters(asked)
        if inlined != asked:
            filters, typed = inlined.with_(q=""), last[0] + " "
            words = (inlined.q + " " if inlined.q else "") + last[1]
    found = get_suggester().suggest(words, filters=filters)
    if typed is not None:  # the words completed, written back after what was typed before them
        before = words[: len(words) - len(last[1])]
        found = [replace(s, text=typed + s.text[len(before):]) if s.kind == "term" and s.text.startswith(before) else s for s in found]
    return prefix, found, None if filters is None else get_search().snapshot().canonical_filters(filters)


# A filter's value being typed, last ("stargate topic:fu"): its values are offered (``_filter_values``).
_FILTER_BEING_TYPED = re.compile(r'(?<!\S)(topic|entity|kind):(?:"([^"]*)|([^\s"]*))$', re.IGNORECASE)


def _filter_values(before: str, facet: str, typed: str, limit: int = 8) -> list[Suggestion]:
    """Return the values of *facet* a filter typed after *before* may take whose name or label starts
    with *typed* (in any case), most documents first, each as the box's text with the value written
    whole: "stargate topic:fu" offers "stargate topic:funding".  It offered nothing: the box could not
    tell a reader which topics there are (``/help`` shows the filters)."""
    snap = get_search().snapshot()
    field = FACETS[facet]
    wanted = typed.casefold()
    found = [(len(docs), value) for value, docs in snap.facet_docs[field].items()
             if value.casefold().startswith(wanted) or snap.facet_labels[facet][value][1].startswith(wanted)]
    found.sort(key=lambda pair: (-pair[0], pair[1]))
    return [Suggestion(f'{before}{facet}:"{value}"' if " " in value else f"{before}{facet}:{value}", "term") for _count, value in found[:limit]]


def address(suggestion: Suggestion, filters: SearchParams | None) -> str:
    """Return where choosing *suggestion* leads under *filters*: a word searched, a topic or an
    organisation added to the filters (what was typed is its name, no query), a title its document."""
    if filters is None or suggestion.kind == "title":
        return suggestion.url or "/?" + urlencode({"q": suggestion.text})
    if suggestion.url is None:
        return search_url(filters, q=suggestion.text)
    (facet, value), = parse_qsl(suggestion.url.partition("?")[2])
    return search_url(filters, q="", **{facet: tuple(dict.fromkeys((*getattr(filters, facet), value)))})


@bp.get("/api/suggest")
def suggest() -> Response:
    prefix, suggestions, filters = completions()
    items = [s.to_json() for s in suggestions]
    if filters is not None:
        # A topic or organisation offered under filters leads to it added to them, as the page's script
        # and the OpenSearch answer take it: its url led, in the JSON, to its filter alone (a QA pass:
        # "NVIDIA" offered on a second topic's page listed every page naming NVIDIA).
        for item, suggestion in zip(items, suggestions):
            if suggestion.kind in ("topic", "organisation") and suggestion.url:
                item["url"] = address(suggestion, filters)
    response = jsonify({"query": prefix, "suggestions": items})
    response.headers["Cache-Control"] = cache_control(get_suggester())
    return response
