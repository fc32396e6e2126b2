"""Analysis: how text becomes index terms, the same way for documents and for queries.

The chain splits words (keeping ``1.0.0``, ``V3.2`` and ``7,500`` whole), also indexes the parts of
words that join letters and digits (``Trainium2`` gives ``trainium2`` and ``trainium``; ``5GW`` gives
``5gw``, ``5`` and ``gw``), lowercases, folds accents (``Jalapeño`` is ``jalapeno``) and stems English.
Nothing is dropped for being short or common when indexing, so ``AI``, ``US``, ``IT`` and ``GW`` stay
searchable.  At query time only, function words typed in lower case (``who``, ``is``, ``in``) are
dropped so they do not drown the content words; ``US`` or ``IT`` typed in capitals are kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from whoosh.analysis import CharsetFilter, Filter, LowercaseFilter, RegexTokenizer, StemFilter
from whoosh.analysis.acore import Token
from whoosh.support.charset import accent_map

# A number with thousands separators, or a word optionally joined by dots (1.0.0, V3.2, U.S),
# with an English possessive ending kept inside the token so that it can be dropped.
TOKEN_PATTERN = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\w+(?:\.\w+)*(?:['’]s\b)?"

STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves us
    """.split()
)

_PARTS = re.compile(r"[^\W\d_]+|\d+")
_MIXED = re.compile(r"[^\W\d_].*\d|\d.*[^\W\d_]")
_DOTTED_LETTERS = re.compile(r"^(?:[^\W\d_]\.)+[^\W\d_]$")


class NormalizeFilter(Filter):
    """Drop possessives and thousands separators (``7,500`` is ``7500``); join ``U.S`` into ``US``."""

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        for t in tokens:
            if t.text[-2:] in ("'s", "’s"):
                t.text = t.text[:-2]
            if "," in t.text:
                t.text = t.text.replace(",", "")
            elif _DOTTED_LETTERS.match(t.text):
                t.text = t.text.replace(".", "")
            yield t


class PartsFilter(Filter):
    """When indexing, also emit the letter and digit parts of a token that joins both, at its position."""

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        for t in tokens:
            yield t
            if t.mode == "query":
                continue
            text = t.text
            parts = list(dict.fromkeys(_PARTS.findall(text)))
            if len(parts) < 2 or not _MIXED.search(text):
                continue  # "4.5" and "1.0.0" are numbers: their digits alone would match "5" and "0"
            # Parts keep the whole token's characters, so a highlight marks all of "Trainium2".
            for part in parts:
                t.text = part
                yield t
            t.text = text


class QueryStopFilter(Filter):
    """At query time, drop function words typed in lower case; keep capitalised acronyms."""

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        for t in tokens:
            if (
                t.mode == "query"
                and t.removestops
                and t.text.lower() in STOP_WORDS
                and not (t.text.isupper() and len(t.text) > 1)
            ):
                continue
            yield t


def text_analyzer():
    """Return the analyzer used for every full-text field."""
    return (
        RegexTokenizer(TOKEN_PATTERN)
        | NormalizeFilter()
        | PartsFilter()
        | QueryStopFilter()
        | LowercaseFilter()
        | CharsetFilter(accent_map)
        | StemFilter(lang="en", cachesize=50000)
    )
