"""The API's contract: an OpenAPI 3.1 document, served at /api/openapi.json.

The limits in it are the ones search/params.py enforces, read from there, so the contract and the
validation cannot drift apart.  Parameter schemas describe exactly what the API accepts (an API
fuzzer sends values just outside them and expects a 400); response schemas declare every field the
API returns today and allow more, so a new field is not a breaking change.  Tests validate live
responses against these schemas and run schemathesis against the real server.
"""

from __future__ import annotations

import copy
from collections.abc import Collection
from typing import Any

from search.highlight import PASSAGE_MAX_CHARS
from search.params import (
    DEFAULT_PER_PAGE,
    MAX_FILTER_CHARS,
    MAX_FILTER_LIST_CHARS,
    MAX_FILTER_VALUES,
    MAX_PER_PAGE,
    MAX_PREFIXES,
    MAX_QUERY_CHARS,
    MAX_QUERY_WORDS,
    MAX_RESULT_WINDOW,
    SORTS,
    BOOLEAN_PATTERN,
    DATE_PARAM_PATTERN,
    KIND_PATTERN,
    LISTED,
    MONTH_PATTERN,
    SORT_PATTERN,
    at_most_pattern,
    nonblank_pattern,
)
from corpus.jsonl import ID_MAX_LENGTH
from index.schema import KINDS
from search.query import PREFIX_MIN_CHARS
from search.results import FACET_VALUES_LISTED
from search.suggest import KIND_ORDER, MAX_PREFIX_CHARS

API_VERSION = "1.0.0"
JSON = "application/json"
# A text parameter's limit is a pattern, not a maxLength: the server counts the text once its blanks are
# collapsed and what a reader does not see is dropped (search.params.at_most_pattern).
FILTER_PATTERN = at_most_pattern(MAX_FILTER_LIST_CHARS, each=MAX_FILTER_CHARS)  # topic and entity: a list with commas (kind and month: theirs)
COUNTED = ("once blanks (spaces, control characters) are collapsed to one space and dropped around it, and "
           "invisible characters (a zero-width space, a soft hyphen) dropped")
EXAMPLE_ID = "expanding-stargate-to-michigan"
# What an id in a path may hold: no control character (web.boundary refuses one with a 400 naming id).
ID_PATTERN = "^[^\\u0000-\\u001f\\u007f-\\u009f]+$"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _strings() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}}


def _json(schema: dict[str, Any], description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"description": description, "content": {JSON: {"schema": schema}}}
    if headers:
        response["headers"] = headers
    return response


def _error(description: str) -> dict[str, Any]:
    return _json(_ref("Error"), description)


def _filter(name: str, description: str, pattern: str = FILTER_PATTERN, case: str | None = "OpenAI: openai") -> dict[str, Any]:
    """Return the parameter *name*; *case* shows a value read in the index's case (None: values have no case).

    Blank values are ignored, so they do not count among the MAX_FILTER_VALUES: ``maxContains`` counts
    the others (a maxItems counted them, and eleven values of which one was blank were answered)."""
    in_case = (f" A value the index lacks but has in another case is read in the index's case ({case})." if case else "")
    listed = (f"; a value listing several with commas may be at most {MAX_FILTER_LIST_CHARS} characters, and each "
              f"of those at most {MAX_FILTER_CHARS}, blanks around a comma not counted; those listed count among the "
              f"{MAX_FILTER_VALUES} values" if name in LISTED else "")
    return {
        "name": name,
        "in": "query",
        "description": (f"{description} Repeat it to allow several values (they combine with OR); {name}[]=… and "
                        f"{name}[0]=…&{name}[1]=… (as jQuery, qs and PHP write a list) are read as {name}, and count "
                        f"together with it. At most {MAX_FILTER_VALUES} values (blank ones are ignored and not "
                        f"counted), each at most {MAX_FILTER_CHARS} characters {COUNTED}{listed}.{in_case}"),
        "style": "form",
        "explode": True,
        "schema": {
            "type": "array",
            "contains": {"type": "string", "pattern": nonblank_pattern()},
            "minContains": 0,
            "maxContains": MAX_FILTER_VALUES,
            "items": {"type": "string", "pattern": pattern},
        },
    }


CACHE_HEADERS = {
    "ETag": {"description": "Weak validator of this answer: send it back in If-None-Match.",
             "required": True, "schema": {"type": "string"}},
    "Cache-Control": {"description": "Answers may be cached briefly.", "required": True,
                      "schema": {"type": "string"}},
}
# A search cut short by the time budget (timed_out: true) has no ETag and is not to be kept: its 200
# declares the ETag, but not as required (the spec contradicted its own timed_out: a QA pass of the docs).
SEARCH_CACHE_HEADERS = {
    **CACHE_HEADERS,
    "ETag": {"description": "Weak validator of this answer: send it back in If-None-Match. Absent when "
                            "timed_out is true (Cache-Control is then no-store).",
             "required": False, "schema": {"type": "string"}},
}
IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "description": ("An ETag from an earlier answer: if it is still current the answer is 304, with no body. "
                    "* holds any current answer: 304 unless there is none (an unknown document is its 404)."),
    "schema": {"type": "string"},
}
PAGE_LINKS = {
    "description": ('When there is more than one page (or a page past the first was asked for): RFC 8288 links '
                    'to the first, previous, next and last pages of the same search, absolute, rel "first", '
                    '"prev", "next", "last" (a page that does not exist is left out; past the last page, prev is the last): '
                    'requests reads them as response.links["next"]["url"]. Absent when it would be longer than '
                    '2,048 bytes (each link holds the query: a query of some 450 characters or more), so that '
                    'proxies\' header buffers hold it: page and pages are in the body.'),
    "required": False,
    "schema": {"type": "string"},
}
NOT_MODIFIED = {"description": "The client's copy (named by If-None-Match) is current.", "headers": CACHE_HEADERS}
# Any route answers If-None-Match: * so when it has a current answer (web/preconditions.py, RFC 9110 13.1.2);
# the routes without an ETag listed no 304 (schemathesis, a QA pass on the API).
ANY_CURRENT = {"description": "If-None-Match: * was sent and there is a current answer (RFC 9110, 13.1.2)."}
# Any route answers a failed If-Match so (web/preconditions.py), these with no ETag; If-Unmodified-Since
# only where the answer says when it changed (Last-Modified), which these do not (a QA pass of the docs).
UNTAGGED_PRECONDITION_FAILED = _error(
    "The request sent If-Match (this answer has no ETag, so only If-Match: * holds; precondition_failed). "
    "Send it without. If-Unmodified-Since is ignored here: this answer has no Last-Modified."
)
PRECONDITION_FAILED = _error(
    "The request sent If-Match and no current answer matches it (precondition_failed, with this answer's ETag "
    "when it has one: a search cut short by its time budget has none): "
    "these ETags are weak and If-Match compares strong ones, so only If-Match: * holds. Revalidate with If-None-Match."
)
UNAVAILABLE = _error("No usable index is published (a first build has not finished, or it must be rebuilt), "
                     "or, with the code out_of_resources and a Retry-After header, the server is out of open "
                     "files or memory for a moment: the index is fine, try again after that many seconds.")

PUBLISHED = {"type": ["string", "null"],
             "description": "When the source published it: an ISO 8601 date (2024-05-01) or UTC date-time "
                            "(2024-05-01T09:30:00Z); null when the source gave none."}
FIRST_SEEN = {"type": ["string", "null"], "description": "When the index first held it (UTC date-time); kept across rebuilds, "
                                                         "and when it is deleted and added again."}
REVISED = {"type": ["string", "null"], "description": (
    "When a rebuild or update last changed what it says (title, text, topics, organisations, links or "
    "published date; UTC date-time), or added it again after it was deleted; null when none has since it was "
    "first seen. A feed entry's updated "
    "is this when given, else its date once that date has come, and no earlier than a rollback the feed "
    "has served since (a rollback takes revisions back: the entries it may have changed move on).")}
MISSING = {"type": "array", "items": {"type": "string"}, "description": (
    "The query's words (or quoted phrases, as typed) this hit lacks, when it holds some of them: "
    "[\"michigan\"] on a page about Stargate UK for \"stargate michigan\". Empty when it holds them "
    "all, and for a hit found by meaning, by its name or by an organisation. A word whose spelling the "
    "answer corrected (suggestion) is named as corrected: [\"oracle\"] for \"oracel stargate\". Typed with "
    "a + before it (stargate +michigan), a word is required.")}
DATE_PARAM = ("An ISO 8601 date (2024-05-01, or in the basic form 20240501) or date-time (2024-05-01T09:30:00Z or "
              "20240501T093000Z; to the hour, minute or second; no offset means UTC; as RFC 3339 "
              "allows, t and z in lower case and a space for the T; a fraction of a second of up to 9 digits, after a "
              "point or a comma; an offset of hours and minutes with or without its colon, +02:00 or +0200, or of "
              "hours alone, +02): the forms a record's published takes. A document's "
              "date is published, else first_seen. Empty (a form's blank date field): no bound. An offset's + sent "
              "unencoded reads as a space in a URL (2024-05-01T09:30 02:00): it is taken as the +.")

PREFIX = {"name": "q", "in": "query", "description": (
              "What has been typed so far; a space at its end (kept, one, in the answer's query) makes the last "
              "word whole: 'open ' is completed by what holds the word open, not by 'OpenAI'. At most "
              f"{MAX_PREFIX_CHARS} characters once blanks are collapsed to one space and dropped around it, and "
              "invisible characters dropped (a control character other than a blank counts; a NUL is refused)."),
          "schema": {"type": "string", "pattern": at_most_pattern(MAX_PREFIX_CHARS, controls=False)}}
BAD_PARAMETER = ("A parameter is invalid, or its percent-encoding is not UTF-8 (x=%FF); error.param names it. An address "
                 "holding what a URL percent-encodes (a space, a letter outside ASCII, sent raw) is refused before the app: "
                 "invalid_request, without param.")
# Every route checks its query string so, even one reading no parameter (an unknown one is otherwise ignored).
NOT_UTF8 = _error("A parameter's name or value is not UTF-8 once percent-decoded (x=%FF); error.param names it.")

ERROR_BODY = {
    "type": "object",
    "required": ["code", "message"],
    "additionalProperties": False,
    "properties": {
        "code": {"type": "string", "description": "Stable machine-readable code, e.g. invalid_parameter."},
        "message": {"type": "string", "description": "What went wrong and what to do, for people."},
        "param": {"type": "string", "description": "The request parameter at fault, when one is."},
    },
}
SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "description": "The one error shape of every API error, 404 and 405 included.",
        "required": ["error"],
        "additionalProperties": False,
        "properties": {
            "error": ERROR_BODY,
        },
    },
    "Hit": {
        "type": "object",
        "required": ["id", "kind", "title", "title_html", "snippet_html", "url", "topics", "entities", "score", "position",
                     "published", "first_seen", "revised", "matched_by", "missing"],
        "properties": {
            "id": {"type": "string"},
            "kind": {"type": "string", "enum": list(KINDS), "description": "event or guide"},
            "title": {"type": "string", "description": "The title as plain text (markup was removed on the way in and entities "
                                                      "decoded, so it may hold '<' and '&'): set it as text, never as HTML; "
                                                      "title_html is the form made for HTML."},
            "title_html": {"type": "string", "description": "The title, escaped, with matched words in <mark>."},
            "snippet_html": {"type": "string", "description": f"A passage of the body (at most {PASSAGE_MAX_CHARS} "
                                                             "characters of it a passage, two at most), escaped, matches in <mark>."},
            "url": {"type": "string", "description": "The document's page on this site."},
            "topics": _strings(),
            "entities": _strings(),
            "score": {"type": "number", "description": (
                "The ranking score (BM25F, coverage and meaning; docs/relevance.md). 0 when the hits are "
                "sorted by date (newest) or listing order: with explain=1 the explanation still gives the "
                "score the hit would have by relevance by its words, without the meaning term (which scales "
                "with the best score of a relevance ranking, not made then). A hit whose name is the query (matched_by name) comes "
                "first whatever its score, which may be 0 when its text lacks the words.")},
            "position": {"type": "integer", "description": "Its place in the listing it came from (1 = first): a topic page's event "
                                                          "or guide's section in its order, a JSONL file's line (across kinds); one added by an update comes after the others of its listing."},
            "explanation": {"type": "object", "description": (
                "How the score was reached (only with explain=1, and left out of the hits after the time "
                "budget ran out, timed_out true): each matched word's part, the meaning "
                "term, the words the text lacks (missing), named true when the hit is first because its name is the query (by relevance), and "
                "named_by_correction true when the name is the query's correction; organisation, the organisation's name, for a "
                "hit found by it (matched_by organisation). A search without words (browsing, newest first) explains "
                "each hit as score 0, nothing matched nor missing.")},
            "published": PUBLISHED,
            "first_seen": FIRST_SEEN,
            "revised": REVISED,
            "matched_by": {"type": "string", "enum": ["words", "meaning", "name", "organisation"], "description": (
                "words: the hit matches the query's words as asked; meaning: it was found by its meaning alone "
                "(its vector is among the query's nearest) and does not match them as asked: it shares no "
                "word with the query, or holds a quoted phrase's words but not as that phrase, and then its "
                "highlights still mark them; name: the query, or else its spelling correction (suggestion), is the document's name: its id, "
                "less the namespace nearly every id of the index starts with (deb- in deb-gimp), written as typed, lower-cased or "
                "with its words joined by hyphens (a hub event's id is its title's slug, so a title typed whole names it). Such a "
                "hit comes first when sorted by relevance, whatever its score; a query with an excluded word names nothing. "
                "organisation: the query is an organisation's name (Alibaba), and the hit, tagged with it by the "
                "gazetteer, names it only another way (Qwen): after every hit its words score.")},
            "missing": MISSING,
        },
    },
    "FacetValue": {
        "type": "object",
        "required": ["value", "label", "count", "selected"],
        "properties": {
            "value": {"type": "string", "description": "Pass it as the filter parameter's value."},
            "label": {"type": "string"},
            "count": {"type": "integer", "minimum": 0, "description": (
                "Results with this value, under the query, the dates and the other facets' filters (this facet's "
                "own selection left out). It is what selecting this value alone in its facet gives; values of one "
                "facet combine with OR, so selecting it beside others gives their union, at most the sum.")},
            "selected": {"type": "boolean"},
        },
    },
    "SearchResponse": {
        "type": "object",
        "required": ["query", "total", "page", "per_page", "pages", "sort", "took_ms", "match", "plain_query",
                     "filters", "hits", "facets", "facets_total", "suggestion", "answer", "snapshot", "timed_out", "dropped_words", "dropped", "ways_out",
                     "excluded_in_vain", "excluded_suggestion", "did_you_mean", "short_prefixes", "ignored_syntax", "since", "until"],
        "properties": {
            "query": {"type": "string", "description": "q, with its whitespace collapsed."},
            "total": {"type": "integer", "minimum": 0, "description": (
                "Exact number of matching documents, including those past the last page that can be asked for "
                "(see pages).")},
            "page": {"type": "integer", "minimum": 1},
            "per_page": {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE},
            "pages": {"type": "integer", "minimum": 1, "description": (
                "How many pages can be asked for at this per_page: pages 1 to pages are answered. Every page of "
                f"the results, but only the first {MAX_RESULT_WINDOW} results are served, so when total is "
                f"larger the last page ends at result {MAX_RESULT_WINDOW} (refine the query to reach the others).")},
            "sort": {"type": "string", "enum": list(SORTS)},
            "took_ms": {"type": "number", "minimum": 0},
            "match": {"type": "string", "enum": ["all", "most", "partial", "none"],
                      "description": ("all: some hit has every word; most: the best hits have more than half "
                                      "of them; partial: every hit has at most half; none: nothing matched.")},
            "plain_query": {"type": "boolean", "description": "The query syntax was not understood; its words were searched."},
            "ignored_syntax": {**_strings(), "description": (
                "Other engines' syntax in q, as typed, which is none here and was left out: a boost (^2), a "
                "fuzzy or proximity mark (~1) and a field (title:). The words around them were searched.")},
            "filters": {
                "type": "object",
                "required": ["topic", "entity", "kind", "month"],
                "properties": {"topic": _strings(), "entity": _strings(), "kind": _strings(), "month": _strings()},
            },
            "since": {"type": ["string", "null"], "description": (
                "since as read: a date, or a UTC date-time (an offset applied; a fraction of a second is the "
                "next whole second, as documents are dated to the second); null when not given.")},
            "until": {"type": ["string", "null"], "description": (
                "until as read: a date (its whole day), or a UTC date-time (a fraction of a second dropped); "
                "null when not given.")},
            "hits": {"type": "array", "maxItems": MAX_PER_PAGE, "items": _ref("Hit")},
            "facets": {
                "type": "object",
                "required": ["topic", "entity", "kind", "month"],
                "additionalProperties": {"type": "array", "items": _ref("FacetValue")},
                "description": (
                    f"Each facet's values, most frequent first (month: newest first): at most {FACET_VALUES_LISTED}, "
                    "then the selected values past them, with their counts (a selected value is always listed, "
                    "at 0 too). facets_total says how many values a facet has in all."),
            },
            "facets_total": {
                "type": "object",
                "required": ["topic", "entity", "kind", "month"],
                "additionalProperties": {"type": "integer", "minimum": 0},
                "description": (
                    "How many values each facet has for this search, listed in facets or not: more than "
                    "facets lists when it is cut short (the other values are on as many results as the last "
                    "listed or fewer, or for month are earlier months; a query, filter or dates narrow them)."),
            },
            "suggestion": {"oneOf": [{"type": "null"}, _ref("Suggestion")],
                           "description": "Did you mean: a corrected query, when one finds more."},
            "answer": {"oneOf": [{"type": "null"}, _ref("Answer")],
                       "description": ("A guide section that answers the query, shown above the hits. It is one "
                                       "of the `total` results, on page 1, and is not repeated in `hits`: page 1 "
                                       "then holds it and up to per_page - 1 hits, and later pages go on from there.")},
            "snapshot": {"type": "string", "description": "The index snapshot that answered."},
            "ways_out": {"type": "array", "items": _ref("WayOut"), "description": (
                "For an empty result of a query or filters: nearby searches that do find something "
                "(the spelling suggestion, each filter removed, the dates removed, every filter removed, the "
                "query without its exclusions or its quotes, any of the words, everything for a query without a "
                "word), each "
                "with its exact count; empty otherwise.")},
            "dropped_words": {"type": "integer", "minimum": 0, "description": (
                f"How many words of a long query were left out: it is searched by its {MAX_QUERY_WORDS} most "
                "informative (rarest) concepts.")},
            "dropped": {"type": "array", "items": {"type": "string"}, "description": (
                "The words (or quoted phrases) of a long query left out, as typed, in the query's order; as many "
                "as dropped_words says, empty for a query searched whole.")},
            "timed_out": {"type": "boolean",
                          "description": ("Ranking ran past the time budget; the hits are the best found in time. "
                                          "With explain=1 also when the budget ran out before every hit was "
                                          "explained: the hits after have none. Such an answer has no ETag and is not to be cached "
                                          "(Cache-Control: no-store): asked again, it may be whole.")},
            "excluded_in_vain": {"type": "array", "items": {"type": "string"}, "description": (
                "Words the query excludes (-word, NOT word) that no document holds, and excluded quoted "
                "phrases and hyphenated words with such a word, as typed: excluding them left nothing out (often a "
                "misspelling). Empty otherwise.")},
            "excluded_suggestion": {"oneOf": [{"type": "null"}, _ref("Suggestion")], "description": (
                "The query with those of excluded_in_vain that have a close spelling respelt: offered, not "
                "searched (excluding a guess could leave out wanted documents). Null when none has.")},
            "short_prefixes": {"type": "array", "items": {"type": "string"}, "description": (
                f"Words typed with a star that are too short to be a prefix (fewer than {PREFIX_MIN_CHARS} "
                "letters: s*), as typed: each was searched as its word. Empty otherwise.")},
            "did_you_mean": {"oneOf": [{"type": "null"}, _ref("Suggestion")], "description": (
                "The query respelt where a typed word is one a few documents hold (at most 3, a misspelling "
                "written in them) and close to a word a hundred times as many hold; or, for a query of plain "
                "words with a lower-case \"not\" between two (`stargate not michigan`), the query excluding the "
                "word after it (`stargate -michigan`) when that leaves out some results and not all; or, for a "
                "query that found nothing, each typed word the index lacks respelt as the commonest word two "
                "edits off (`starget`: `stargate`): offered, not searched. With `verbatim=1`, the correction "
                "the same search without it searches (its `suggestion`), where it makes one. Null otherwise, "
                "and whenever `suggestion` is given.")},
        },
    },
    "WayOut": {
        "type": "object",
        "required": ["kind", "query", "filters", "since", "until", "count", "facet", "value", "label"],
        "properties": {
            "kind": {"type": "string", "enum": ["suggestion", "close_value", "without", "no_dates", "no_filters", "no_exclusions",
                                                "no_quotes", "any_words", "no_query"],
                     "description": ("suggestion: the spelling suggestion; close_value: a topic or organisation filter's "
                                     "value that no document has replaced by the one spelt most like it (facet, value and "
                                     "label name it); without: one filter removed; no_dates: the dates "
                                     "removed; no_filters: every filter removed; no_exclusions: the query without what it "
                                     "excludes; no_quotes: the query without its quote marks (an excluded phrase kept); "
                                     "any_words: its words joined with OR; no_query: for a query of marks without a word (*, "
                                     "()) or of words asking what is new (latest, what's new), which match nothing, "
                                     "the search without it, its filters kept: everything, newest first.")},
            "query": {"type": "string", "description": "Pass it as q."},
            "filters": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}},
                        "description": "The filters of this search, by facet."},
            "since": {"type": ["string", "null"], "description": "This search's since, if any (no_dates and no_filters drop it)."},
            "until": {"type": ["string", "null"], "description": "This search's until, if any."},
            "count": {"type": "integer", "minimum": 1},
            "facet": {"type": ["string", "null"], "description": "For \"without\": the facet removed; for \"close_value\": the facet whose value is replaced."},
            "value": {"type": ["string", "null"], "description": (
                "For \"without\": the facet's one value, removed; null when the facet had several, all removed "
                "(a facet's values combine with OR, so removing one of them never finds more). For \"close_value\": the value put in.")},
            "label": {"type": ["string", "null"], "description": "The removed (or, for \"close_value\", the put in) value's label."},
        },
    },
    "Suggestion": {
        "type": "object",
        "required": ["text", "html"],
        "properties": {
            "text": {"type": "string", "description": "The corrected query: pass it as q."},
            "html": {"type": "string", "description": "The same, escaped, with corrected words marked."},
        },
    },
    "Answer": {
        "type": "object",
        "description": ("The first result, with every field of a hit; its snippet_html is the section's best passages "
                        "for the query, as a hit's snippet, or its whole text when it is no longer than a snippet."),
        "required": ["id", "title", "url", "snippet_html", "score", "explanation", "kind", "title_html", "topics",
                     "entities", "position", "published", "first_seen", "revised", "matched_by", "missing"],
        "properties": {
            "id": {"type": "string"},
            "title": {"type": "string"},
            "url": {"type": "string", "description": "The guide page, at the section's anchor."},
            "snippet_html": {"type": "string"},
            "score": {"type": "number", "description": "Its ranking score, as a hit's: it is the first result."},
            "explanation": {"oneOf": [{"type": "null"}, {"type": "object"}], "description": (
                "How the score was reached, as a hit's explanation (only with explain=1; else null).")},
            "kind": {"type": "string", "enum": list(KINDS)},
            "title_html": {"type": "string", "description": "The title, escaped, with matched words in <mark>."},
            "topics": _strings(),
            "entities": _strings(),
            "position": {"type": "integer", "description": "Its place in the listing it came from (1 = first): a topic page's event "
                                                          "or guide's section in its order, a JSONL file's line (across kinds); one added by an update comes after the others of its listing."},
            "published": PUBLISHED,
            "first_seen": FIRST_SEEN,
            "revised": REVISED,
            "matched_by": {"type": "string", "enum": ["words", "meaning", "name", "organisation"]},
            "missing": MISSING,
        },
    },
    "Document": {
        "type": "object",
        "description": "A document's stored fields: each of these is given, null when unknown (as in a hit).",
        "required": ["id", "kind", "topic", "topics", "entities", "title", "body", "url", "source_url", "published",
                     "first_seen", "revised", "position", "order"],
        "properties": {
            "id": {"type": "string"},
            "kind": {"type": "string", "enum": list(KINDS)},
            "topic": {"type": "string", "description": "The document's own topic: an event two topic pages list has "
                      "the later page's (the hub's home topic when that is one of them)."},
            "topics": {**_strings(), "description": "Every topic the document is in, its own first: what the topic "
                       "filter and facet count it under."},
            "entities": _strings(),
            "title": {"type": "string"},
            "body": {"type": "string"},
            "url": {"type": "string"},
            "source_url": {"type": ["string", "null"], "description": "Where it was published (a record's url), when "
                                                                        "known; null when the source gave none."},
            # Every field is given, null when unknown, as a hit gives published and first_seen.
            "published": PUBLISHED,
            "first_seen": FIRST_SEEN,
            "revised": REVISED,
            "position": {"type": "integer"},
            "order": {"type": "integer", "description": "Place in the whole listing order."},
        },
    },
    "DocumentResponse": {
        "type": "object",
        "required": ["document", "more_like_this", "snapshot"],
        "properties": {
            "document": _ref("Document"),
            "more_like_this": {"type": "array", "items": _ref("Document")},
            "snapshot": {"type": "string", "description": "The index snapshot that answered, as a search's."},
        },
    },
    "Topic": {
        "type": "object",
        "required": ["slug", "name", "label", "description", "count", "event_count", "search_url", "api_url", "feed_url",
                     "guide_url"],
        "properties": {
            "slug": {"type": "string"},
            "name": {"type": "string"},
            "label": {"type": "string"},
            "description": {"type": "string"},
            "count": {"type": "integer", "minimum": 0, "description": "Documents carrying the topic."},
            "event_count": {"type": "integer", "minimum": 0, "description": (
                "Events the hub counts for the topic, as its topic page states them (the index may hold fewer: "
                "count is what it holds); for a topic found by the enrichment rules, the events they put in it; "
                "for any other topic (no page states its count), the events the index holds.")},
            "search_url": {"type": "string", "description": "The search page filtered to the topic."},
            "api_url": {"type": "string", "description": "The same search as JSON (/api/search filtered to the topic)."},
            "feed_url": {"type": "string", "description": "The Atom feed of the topic's newest documents."},
            "guide_url": {"type": ["string", "null"], "description": "The topic's guide page, if it has one."},
            "formerly": {"type": "array", "items": {"type": "string"}, "description": (
                "The slugs the topic had before it was renamed (the taxonomy's formerly): a filter, guide or "
                "feed address written with one leads to the topic. Empty for a topic never renamed; absent for a "
                "topic only documents name, and from an index built before the field.")},
        },
    },
    "TopicsResponse": {
        "type": "object",
        "required": ["topics", "total", "snapshot"],
        "properties": {
            "topics": {"type": "array", "items": _ref("Topic")},
            "total": {"type": "integer", "minimum": 0, "description": "Documents in the index."},
            "snapshot": {"type": "string"},
        },
    },
    "Completion": {
        "type": "object",
        "required": ["text", "kind", "url"],
        "properties": {
            "text": {"type": "string"},
            "kind": {"type": "string", "enum": list(KIND_ORDER)},
            "url": {"type": ["string", "null"], "description": (
                "Where choosing it leads: a title's document, a topic's or organisation's filtered list (with "
                "the request's filters kept, when it sent some); null for a word, which completes the query "
                "(search it as q, with the filters).")},
        },
    },
    "SuggestResponse": {
        "type": "object",
        "required": ["query", "suggestions"],
        "properties": {"query": {"type": "string"}, "suggestions": {"type": "array", "items": _ref("Completion")}},
    },
    "Health": {
        "type": "object",
        "required": ["status"],
        "properties": {
            "status": {"type": "string", "enum": ["ok", "degraded"]},
            "doc_count": {"type": "integer", "minimum": 0},
            "built_at": {"type": ["string", "null"], "description": "When the snapshot's build ran (UTC)."},
            "updated_at": {"type": ["string", "null"], "description": "When an update last changed it, if ever."},
            "snapshot": {"type": "string"},
            "schema_version": {"type": ["integer", "null"]},
            "fingerprint": {"type": ["string", "null"], "description": "SHA-256 of the sources at build time."},
            "sources_changed": {"type": ["boolean", "null"],
                                "description": "Whether the source files differ from the build's (null: not recorded)."},
            "reason": {"type": "string", "description": "Why the service is degraded."},
            "refused": {"type": "string", "description": "The published snapshot that failed its checks; "
                        "`snapshot` is the last good one, still answering."},
            "replica": {"type": "object", "description": "On a replica: where `topichub publish` copied the "
                        "snapshot from (`from`, `host`) and when (`published_at`)."},
            "error": ERROR_BODY,
        },
    },
}

# The filters of a search, which search as you type takes too (its completions are those finding something under them).
FILTER_PARAMETERS = [
    _filter("topic", "Only documents carrying this topic slug, or its label as the facets give it (Compute deals: "
                     "compute-deals); several listed with commas, when each is one, are those values. A slug a "
                     "topic had before it was renamed (its formerly, in /api/topics) is read as the topic's slug now, which the answer's "
                     "filters give (the page and the feed answer it with a 301 to the new slug). A value no "
                     "document has matches nothing (ways_out offer the close_value spelt like it); unless it is a "
                     "topic of the index's build (one with no documents yet), the feed, /feeds/search.atom, answers "
                     "it 404 naming it and the close value when every value of the filter is such a one.",
            case="Training-Infrastructure: training-infrastructure"),
    _filter("entity", "Only documents naming this organisation: its slug, or its name as the facets label it (Hugging "
                      "Face: hugging-face; not an alias: AWS is narrower than Amazon); several listed with commas, when "
                      "each is one, are those values. The answer's filters give the slugs. A value no document has "
                      "matches nothing (ways_out offer the close_value, or the organisation an alias names); unless "
                      "the index's build recorded it, the feed, /feeds/search.atom, answers it 404 naming it and that value "
                      "when every value of the filter is such a one."),
    _filter("kind", "Only this type of document: event or guide, in any case (any other value is a 400 naming kind); "
                    "several may be listed with commas (event,guide is kind=event&kind=guide).",
            KIND_PATTERN, case=None),
    _filter("month", "Only documents dated in this month, written YYYY-MM (a document's date is "
                     "published, else first_seen); several may be listed with commas (2024-05,2024-06 is "
                     "month=2024-05&month=2024-06).", MONTH_PATTERN, case=None),
    {"name": "since", "in": "query", "description": f"Only documents dated at or after this (documents are dated to the second: a "
                                                     f"fraction of one moves the bound to the next). {DATE_PARAM}",
      "schema": {"type": "string", "pattern": DATE_PARAM_PATTERN}, "example": "2024-05-01"},
    {"name": "until", "in": "query", "description": f"Only documents dated at or before this (a date takes in "
                                                     f"its whole day); before since, or with no whole second between them "
                                                     f"(since=…00.5Z&until=…00.7Z), the answer is a 400 naming until. {DATE_PARAM}",
     "schema": {"type": "string", "pattern": DATE_PARAM_PATTERN}, "example": "2024-12-31"},
]
# What a filter of search as you type says beyond what it says of a search.
SUGGEST_FILTERS = (" Search as you type reads it as the search does (the same checks, a bad value a 400 naming it): "
                   "only what finds something under the filters is offered.")


def _filtering(parameters: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the search's filter *parameters* as search as you type takes them."""
    return [{**parameter, "description": parameter["description"] + SUGGEST_FILTERS} for parameter in parameters]


PATHS: dict[str, Any] = {
    "/api/search": {
        "get": {
            "operationId": "search",
            "summary": "Search events and guide sections.",
            "description": (
                "Hits in score order by default (relevance: one ranking function, no tiers; a document the query "
                "names comes first, matched_by name), or by date or listing order when sort says so; exact totals "
                "and disjunctive facet counts. "
                f"Only the first {MAX_RESULT_WINDOW} results are served: a page may start at most at result "
                f"{MAX_RESULT_WINDOW} ((page - 1) × per_page < {MAX_RESULT_WINDOW}), and the last holds what is left "
                "of them. An empty parameter counts as absent; "
                "blank filter values are ignored, and values are stripped of surrounding whitespace; filter values "
                "are read composed (NFC), without invisible characters, as the corpus stores them. A parameter "
                "whose percent-encoding is not UTF-8 (q=%FF) is a 400 naming it, and so is q, page, per_page, sort, "
                "explain, since or until given twice with different values (the first would win unseen; an empty "
                "value, blanks around one, a number's leading zeros, the case of sort or explain and the spelling "
                "of one moment in since or until (…T12:00%2B02:00 and …T10:00:00Z) do not make it different: "
                "q=&q=stargate is stargate; where one of them cannot be read, the 400 names it: page=2&page=%2B2 "
                "says +2 is no page number). A "
                "parameter this operation does not define is ignored (a cache-buster such as _=123, a tracking "
                "tag): check the spelling of per_page, not per-page, when a setting seems to have no effect."
            ),
            "parameters": [
                {"name": "q", "in": "query", "description": (
                    "The query: words, \"quoted phrases\", -excluded words, OR, and filters typed as words "
                    "(topic:funding, entity:openai or entity:\"Mistral AI\", kind:guide, month:2025-03, since:2025-01-01, "
                    "until:2025-06-30): each one the index can filter by is taken out of the words and applied as its "
                    "parameter would be (the answer's query and filters say so); any other stays words. "
                    "A phrase of time ending it (today, yesterday, this week, last month, past 3 days, in the past "
                    "year, past 24 hours, 2 weeks ago) is read as since and until, days in UTC, in place of the "
                    "parameters' dates and month (a range ending today sets since only), where the index's documents "
                    "are dated over more than one day and no bound or month is typed as since:, until: or month:; "
                    "the answer's query, since and until say so (the asking around a subject is no word of it: "
                    "'nvidia news this month' searches 'nvidia' where no page holds 'news'); in quotes it stays words. "
                    f"At most {MAX_QUERY_CHARS} "
                    f"characters {COUNTED}, counted as sent (before the composing below, which "
                    f"may lengthen it); a longer text (a pasted paragraph) is searched by its "
                    f"{MAX_QUERY_WORDS} most informative words, and dropped_words says how many were left out. "
                    f"At most {MAX_PREFIXES} prefixes (words typed with a *, each looked up in the whole vocabulary); "
                    "more is a 400. "
                    "It is read composed (Unicode NFC), with control characters as spaces, as documents are "
                    "stored (a NUL is refused). Empty lists everything. The whole request line is at most "
                    "65,536 bytes as sent (the server's limit, before the app): 4,096 characters of any script fit "
                    "percent-encoded (up to 12 bytes a character); past that the server answers 414 with an HTML "
                    "body, not the JSON error."),
                 "schema": {"type": "string", "pattern": at_most_pattern(MAX_QUERY_CHARS)},
                 "example": "stargate"},
                *FILTER_PARAMETERS,
                {"name": "sort", "in": "query", "description": (
                    "relevance (default with q), newest (published, else first_seen; default without q; with q, "
                    "the documents with every word first, then the rest, each newest first, documents of the same "
                    "published date in order of their words' scores, the same on every page, those dated by their arrival in a topic page's order, most recent first) or listing. Relevance without q "
                    "is newest (there is nothing to be relevant to), and the answer's sort says so. Read in any "
                    "case (NEWEST); empty is the default."),
                 "schema": {"type": "string", "pattern": SORT_PATTERN}},
                {"name": "page", "in": "query", "description": (
                    f"The page of results, from 1. Only the first {MAX_RESULT_WINDOW} results are served: a page "
                    f"starting past result {MAX_RESULT_WINDOW} ((page - 1) * per_page + 1 > {MAX_RESULT_WINDOW}) is a 400 "
                    "naming page; a page past the last result answers no hits with the true total."),
                 "schema": {"type": "integer", "minimum": 1, "maximum": MAX_RESULT_WINDOW, "default": 1}},
                {"name": "per_page", "in": "query", "description": f"Results a page, 1 to {MAX_PER_PAGE}.",
                 "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE, "default": DEFAULT_PER_PAGE}},
                {"name": "explain", "in": "query", "description": "1 (or true/yes/on) adds each hit's score explanation, and the answer card's.",
                 "schema": {"type": "string", "pattern": BOOLEAN_PATTERN}},
                {"name": "verbatim", "in": "query", "description": (
                    "1 (or true/yes/on) searches the words as typed: a word no page holds is not corrected (no "
                    "suggestion is searched), and a correction is at most offered in did_you_mean."),
                 "schema": {"type": "string", "pattern": BOOLEAN_PATTERN}},
                IF_NONE_MATCH,
            ],
            "responses": {
                "200": _json(_ref("SearchResponse"), "A page of results.", {**SEARCH_CACHE_HEADERS, "Link": PAGE_LINKS}),
                "304": NOT_MODIFIED,
                "400": _error(BAD_PARAMETER),
                "412": PRECONDITION_FAILED,
                "503": UNAVAILABLE,
            },
        }
    },
    "/api/suggest": {
        "get": {
            "operationId": "suggest",
            "summary": "Complete a partly typed query: titles, topics and organisations.",
            "description": (
                "Completions of what has been typed: words (url null: searched as q), document titles (url: the "
                "document), topics and organisations (url: the list filtered by them). With the filters of "
                "/api/search (topic, entity, kind, month, since, until: the same names, values and checks, a bad "
                "value a 400 naming it, as the search answers it), only what finds something under them: a word a "
                "document they allow holds with the earlier words typed (searched with the filters kept), the title "
                "of a document they allow, a topic or an organisation of such a document (weighed by how many), "
                "which a client adds to the filters. A results page's search box sends its filters so. The other "
                "parameters of a search (sort, page, per_page, explain) and any other parameter are ignored. "
                "Cache-Control lets a cache keep an answer briefly, under its whole address, filters included."),
            "parameters": [PREFIX, *_filtering(FILTER_PARAMETERS)],
            "responses": {
                "200": _json(_ref("SuggestResponse"), "Suggestions, best first."),
                "304": ANY_CURRENT,
                "400": _error(BAD_PARAMETER),
                "412": UNTAGGED_PRECONDITION_FAILED,
                "503": UNAVAILABLE,
            },
        }
    },
    "/api/suggest/opensearch": {
        "get": {
            "operationId": "suggestOpenSearch",
            "summary": "The same completions in the JSON suggestions format browsers read (named by /opensearch.xml).",
            "description": ("The completions of /api/suggest, under the same filters; each address keeps the filters: a "
                            "word's searches it under them, a topic's or organisation's adds it to them."),
            "parameters": [PREFIX, *_filtering(FILTER_PARAMETERS)],
            "responses": {
                "200": {
                    "description": "[query, [completions], [descriptions], [addresses]], best first; a description "
                                   "is what the completion is, as a browser shows it: Search, Go to, Topic or Organisation.",
                    "content": {"application/x-suggestions+json": {"schema": {
                        "type": "array", "minItems": 4, "maxItems": 4,
                        # The query, then three lists of strings (prefixItems is beyond some OpenAPI tools).
                        "items": {"anyOf": [{"type": "string"}, _strings()]},
                    }}},
                },
                "304": ANY_CURRENT,
                "400": _error(BAD_PARAMETER),
                "412": UNTAGGED_PRECONDITION_FAILED,
                "503": UNAVAILABLE,
            },
        }
    },
    "/api/documents/{id}": {
        "get": {
            "operationId": "document",
            "summary": "One document and the documents most like it.",
            "parameters": [
                {"name": "id", "in": "path", "required": True, "description": (
                    "The document's id, as search hits and /events/{id} give it (percent-encoded). No id holds a "
                    "control character (U+0000-U+001F, U+007F-U+009F): one that does is a 400 naming id."),
                 "schema": {"type": "string", "minLength": 1, "pattern": ID_PATTERN}, "example": EXAMPLE_ID},
                IF_NONE_MATCH,
            ],
            "responses": {
                "200": _json(_ref("DocumentResponse"), "The document.", CACHE_HEADERS),
                "301": {"description": "The id of a guide section whose topic was renamed, made with a slug the topic "
                                       "had before (its formerly): Location is the document's address with its id now.",
                        "headers": {"Location": {"schema": {"type": "string"}}}},
                "304": NOT_MODIFIED,
                "400": _error("The id is not UTF-8 text once percent-decoded, or holds a control character, which "
                              "no id holds (invalid_parameter, param id), or a parameter is not UTF-8 (x=%FF: param x)."),
                "404": _error("No document has this id (not_found, param id); the message quotes the id, unless it is "
                              f"longer than an id can be ({ID_MAX_LENGTH} characters)."),
                "412": PRECONDITION_FAILED,
                "503": UNAVAILABLE,
            },
        }
    },
    "/api/topics": {
        "get": {
            "operationId": "topics",
            "summary": "The topics, with how many documents carry each, most first.",
            "parameters": [IF_NONE_MATCH],
            "responses": {
                "200": _json(_ref("TopicsResponse"), "Every topic.", CACHE_HEADERS),
                "304": NOT_MODIFIED,
                "400": NOT_UTF8,
                "412": PRECONDITION_FAILED,
                "503": UNAVAILABLE,
            },
        }
    },
    "/healthz": {
        "get": {
            "operationId": "health",
            "summary": "Whether the service can answer, and what it is serving.",
            # Every other route ignores a parameter it does not define but refuses one not UTF-8 (x=%FF), which
            # it could misread; this one reads none, and a load balancer's probe may carry its own: a 400 for
            # it would take a healthy replica out of rotation (web.boundary's probes).
            "description": ("Reads no parameter: its query string is ignored whatever it holds, even a parameter "
                            "whose percent-encoding is not UTF-8 (x=%FF), which other operations answer with a 400. "
                            "A load balancer's check may add its own parameters."),
            "responses": {
                "200": _json(_ref("Health"), "ok: a snapshot is published and open."),
                "503": _json(_ref("Health"), "degraded: no usable snapshot, or the published one failed its checks and "
                             "the last good one still answers; reason says why."),
                "304": ANY_CURRENT,
                "412": UNTAGGED_PRECONDITION_FAILED,
            },
        }
    },
    "/api/openapi.json": {
        "get": {
            "operationId": "openapi",
            "summary": "This document.",
            "parameters": [IF_NONE_MATCH],
            "responses": {"200": _json({"type": "object", "required": ["openapi", "paths"]}, "The OpenAPI document.",
                                       CACHE_HEADERS),
                          "304": NOT_MODIFIED, "400": NOT_UTF8, "412": PRECONDITION_FAILED},
        }
    },
}


def spec(served: Collection[str] | None = None) -> dict[str, Any]:
    """Return the OpenAPI document, limited to the paths in *served* (Flask rule syntax) when given."""
    paths = PATHS
    if served is not None:
        paths = {path: item for path, item in PATHS.items() if path.replace("{id}", "<id:doc_id>") in served}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Topic hub search API",
            "version": API_VERSION,
            "description": (
                "Search a topic hub's events and guides. Every error has the shape "
                '{"error": {"code", "message", "param"?}}; search, document and topic answers carry an '
                "ETag and Cache-Control: public, max-age=30."
            ),
        },
        "paths": copy.deepcopy(paths),
        "components": {"schemas": copy.deepcopy(SCHEMAS)},
    }
