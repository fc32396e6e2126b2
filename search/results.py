"""The plain result of a search, and its one JSON rendering."""

from __future__ import annotations

from dataclasses import dataclass, fields

from search.params import MAX_RESULT_WINDOW, SearchParams


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A did-you-mean: the corrected query, and the same as safe HTML with corrected words marked."""

    text: str
    html: str


@dataclass(frozen=True, slots=True)
class Answer:
    """A guide section that answers the query well, shown above the events: the first result, so it
    carries every field a hit does (a client paging through results read no date nor kind of it)."""

    id: str
    title: str
    url: str  # the guide page with the section's #anchor
    snippet_html: str  # its best passages for the query, as a hit's (the whole text when no longer than a snippet)
    score: float = 0.0  # its score as the first result, which it is
    explanation: dict[str, object] | None = None  # with explain=1, as a hit's
    kind: str = "guide"
    title_html: str = ""
    topics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    position: int = 0
    published: str | None = None
    first_seen: str | None = None
    revised: str | None = None
    matched_by: str = "words"
    missing: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Hit:
    id: str
    kind: str
    title: str
    title_html: str
    snippet_html: str
    url: str
    topics: tuple[str, ...]
    entities: tuple[str, ...]
    score: float
    position: int
    explanation: dict[str, object] | None = None
    published: str | None = None  # ISO 8601 date or UTC date-time, when the source gave one
    first_seen: str | None = None  # when the index first held the document (UTC)
    revised: str | None = None  # when a rebuild or update last changed what it says (UTC); None: never
    matched_by: str = "words"  # or "meaning" (its vector alone), "name" (its name is the query), "organisation" (tagged with the one the query names)
    # The query's concepts (as typed) the document lacks, when it holds some of them: "michigan" of
    # "stargate michigan" on the page about Stargate UK.  Empty when it holds them all.
    missing: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FacetValue:
    value: str
    label: str
    count: int
    selected: bool


# Values a facet lists in an answer (the page's, /api/search's): the first ones, most frequent first
# (months newest first), and every selected one after them.  The Debian corpus's 58 sections and the
# seed's 29 organisations are listed whole; the rest are counted (``facets_total``).  Unbounded, 3,000
# organisations (two a record) made the home page 700 KB and /api/search?q= 200 KB, growing with each.
FACET_VALUES_LISTED = 100


def listed(values: tuple[FacetValue, ...], selected: bool) -> tuple[FacetValue, ...]:
    """Return the values of a facet an answer lists: the first FACET_VALUES_LISTED, and the selected
    ones past them (*selected*: the facet has a selection), with their counts."""
    if len(values) <= FACET_VALUES_LISTED:
        return values
    first = values[:FACET_VALUES_LISTED]
    return first + tuple(v for v in values[FACET_VALUES_LISTED:] if v.selected) if selected else first


@dataclass(frozen=True, slots=True)
class WayOut:
    """A search near an empty one that finds *count* results (search/alternatives.py)."""

    kind: str  # "suggestion", "close_value", "without" (one filter removed), "no_dates", "no_filters", "no_exclusions", "no_quotes", "any_words" or "no_query"
    params: SearchParams
    count: int
    facet: str | None = None  # for "without": the filter removed; for "close_value": the filter whose value is replaced
    value: str | None = None  # ... its one value, or None when the facet had several (all removed); the value put in
    label: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "query": self.params.q,
            "filters": {k: list(v) for k, v in self.params.filters().items()},
            "since": self.params.since,
            "until": self.params.until,
            "count": self.count,
            "facet": self.facet,
            "value": self.value,
            "label": self.label,
        }


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: str
    total: int
    page: int
    per_page: int
    sort: str
    took_ms: float
    hits: tuple[Hit, ...]
    facets: dict[str, tuple[FacetValue, ...]]
    filters: dict[str, tuple[str, ...]]
    # "all": some hit has every word; "most": the best hits have more than half of them; "partial":
    # every hit has at most half (nothing answers the query well); "none": nothing matched.
    match: str
    plain: bool = False  # the query's syntax was not understood; its words were searched
    snapshot: str = ""
    suggestion: Suggestion | None = None
    answer: Answer | None = None
    timed_out: bool = False  # ranking ran past the time budget: the hits are the best found in time
    dropped_words: int = 0  # words of a long query left out: it was searched by its most informative ones
    dropped: tuple[str, ...] = ()  # ... and which, as typed, in the query's order
    ways_out: tuple[WayOut, ...] = ()  # for an empty result: nearby searches that find something
    excluded_in_vain: tuple[str, ...] = ()  # excluded words no document holds, as typed: they left out nothing
    excluded_suggestion: Suggestion | None = None  # the query with those of them that have a close spelling respelt
    offered: Suggestion | None = None  # did you mean: rare words typed as a few pages misspell them, respelt
    short_prefixes: tuple[str, ...] = ()  # "s*": too short for a prefix, searched as the word, as typed
    ignored_syntax: tuple[str, ...] = ()  # other engines' marks ("title:", "^2"), left out: the words were searched
    since: str | None = None  # the date bounds as read: canonical (UTC), a fraction of a second rounded
    until: str | None = None
    # What the query asks for, as a hit's ``missing`` names it, that no result holds ("xyzzy" in
    # "stargate xyzzy"): requiring it would list nothing, so the page offers no "Must include" link.
    held_nowhere: tuple[str, ...] = ()

    @property
    def pages(self) -> int:
        """Return the number of pages one can ask for: every page of the results, but none starting past
        the first MAX_RESULT_WINDOW results, so a client that pages up to it is never refused and reaches
        every result up to that one; ``total`` still counts every result."""
        return max(1, -(-min(self.total, MAX_RESULT_WINDOW) // self.per_page))

    @property
    def listed_facets(self) -> dict[str, tuple[FacetValue, ...]]:
        """Return the values each facet lists (``listed``); ``facets`` holds them all."""
        return {name: listed(values, bool(self.filters.get(name))) for name, values in self.facets.items()}

    @property
    def facets_total(self) -> dict[str, int]:
        """Return how many values each facet has, listed or not."""
        return {name: len(values) for name, values in self.facets.items()}

    def left_out(self, shown: int = 12) -> str:
        """Return the words a long query left out as the page and the CLI list them: the first *shown*,
        then how many more (a paragraph of 4,096 characters may leave out hundreds)."""
        more = len(self.dropped) - shown
        return ", ".join(self.dropped[:shown]) + (f" and {more} more" if more > 0 else "")

    @property
    def reachable(self) -> int:
        """Return how many of the results those pages hold: ``total``, unless it is past the window."""
        return min(self.total, MAX_RESULT_WINDOW)

    def to_json(self) -> dict[str, object]:
        """Return the API's JSON object for this result."""
        return {
            "query": self.query,
            "total": self.total,
            "page": self.page,
            "per_page": self.per_page,
            "pages": self.pages,
            "sort": self.sort,
            "took_ms": self.took_ms,
            "match": self.match,
            "plain_query": self.plain,
            "snapshot": self.snapshot,
            "timed_out": self.timed_out,
            "dropped_words": self.dropped_words,
            "dropped": list(self.dropped),
            "ways_out": [way.to_json() for way in self.ways_out],
            "excluded_in_vain": list(self.excluded_in_vain),
            "excluded_suggestion": _flat(self.excluded_suggestion) if self.excluded_suggestion else None,
            "did_you_mean": _flat(self.offered) if self.offered else None,
            "short_prefixes": list(self.short_prefixes),
            "ignored_syntax": list(self.ignored_syntax),
            "filters": {k: list(v) for k, v in self.filters.items()},
            "since": self.since,
            "until": self.until,
            "hits": [_hit_json(hit) for hit in self.hits],
            # Written out: some 30 facet values a page, three times faster than _flat's loop over fields.
            "facets": {
                name: [{"value": v.value, "label": v.label, "count": v.count, "selected": v.selected} for v in values]
                for name, values in self.listed_facets.items()
            },
            "facets_total": self.facets_total,
            "suggestion": _flat(self.suggestion) if self.suggestion else None,
            "answer": _flat(self.answer) if self.answer else None,
        }


def _hit_json(hit: Hit) -> dict[str, object]:
    """Return a hit's JSON object: its fields in their order, lists for tuples, no explanation unless asked.

    Written out: some 10 hits a page, each a dict made at once instead of ``_flat``'s 14 ``getattr``
    and the fix-ups after (tests/test_results.py holds it to ``_flat``'s keys and order).
    """
    item = {
        "id": hit.id,
        "kind": hit.kind,
        "title": hit.title,
        "title_html": hit.title_html,
        "snippet_html": hit.snippet_html,
        "url": hit.url,
        "topics": list(hit.topics),
        "entities": list(hit.entities),
        "score": hit.score,
        "position": hit.position,
        "explanation": hit.explanation,
        "published": hit.published,
        "first_seen": hit.first_seen,
        "revised": hit.revised,
        "matched_by": hit.matched_by,
        "missing": list(hit.missing),
    }
    if hit.explanation is None:
        del item["explanation"]
    return item


# A document's fields as /api/documents gives them, in this order; each is there, null when its source
# gave none (a stored document leaves such a field out): a hit's published is null too, so a client
# reads one shape from both (QA pass X).
DOCUMENT_FIELDS = ("id", "kind", "topic", "topics", "entities", "title", "body", "url", "source_url", "published",
                   "first_seen", "revised", "position", "order")


def document_json(doc: dict[str, object]) -> dict[str, object]:
    """Return a decoded stored document as the API writes it: every field of DOCUMENT_FIELDS, in order
    (None for one it lacks), then any other it holds."""
    return {**{name: doc.get(name) for name in DOCUMENT_FIELDS}, **doc}


_FIELDS: dict[type, tuple[str, ...]] = {}


def _flat(item: object) -> dict[str, object]:
    """Return a result dataclass's fields as a dict, one level deep.

    ``dataclasses.asdict`` deep-copies every value recursively, which cost about a tenth of a
    search on the seed index; these classes hold only strings, numbers, tuples and a JSON-ready dict.
    """
    names = _FIELDS.get(type(item))
    if names is None:
        names = _FIELDS[type(item)] = tuple(f.name for f in fields(item))
    return {name: getattr(item, name) for name in names}
