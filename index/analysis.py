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


_TOKEN = re.compile(TOKEN_PATTERN)  # RegexTokenizer compiles its pattern the same way (re.UNICODE is the default)


class TermAnalyzer:
    """Index-mode analysis without Whoosh's token generators: text to {term: [positions]}.

    The chain above is a pure function of each raw token's text (only the position comes from the
    token's place), so each distinct raw token is analysed once and its terms are kept.  The result
    is exactly what ``text_analyzer()`` yields in index mode (tests/test_fast_build.py checks it
    token by token); query-time analysis still goes through the chain.
    """

    __slots__ = ("_cache", "_limit", "_stemmer", "_stems")

    def __init__(self, limit: int = 500_000) -> None:
        from whoosh.lang import stemmer_for_language

        self._cache: dict[str, tuple[str, ...]] = {}  # raw token -> its terms
        self._stems: dict[str, str] = {}  # folded word -> its stem (raw tokens differ in case)
        self._limit = limit
        self._stemmer = stemmer_for_language("en")  # what StemFilter(lang="en") wraps in its cache

    def _stem(self, word: str) -> str:
        stem = self._stems.get(word)
        if stem is None:
            stem = self._stems[word] = self._stemmer(word)
        return stem

    def token_terms(self, raw: str) -> tuple[str, ...]:
        """Return the terms the chain emits for the raw token *raw*, in the chain's order."""
        text = raw
        if text[-2:] in ("'s", "’s"):
            text = text[:-2]
        if "," in text:
            text = text.replace(",", "")
        elif _DOTTED_LETTERS.match(text):
            text = text.replace(".", "")
        stem = self._stem
        term = stem(text.lower().translate(accent_map))
        # PartsFilter reads the token back after the filters below it have run on the whole token,
        # so the parts are those of the lowercased, folded and stemmed term.
        parts = list(dict.fromkeys(_PARTS.findall(term)))
        if len(parts) < 2 or not _MIXED.search(term):
            return (term,)
        return (term, *(stem(part.lower().translate(accent_map)) for part in parts))

    def __call__(self, text: str) -> dict[str, list[int]]:
        """Return each term of *text* with its positions, as indexing with ``text_analyzer()`` would."""
        cache = self._cache
        if len(cache) > self._limit:
            cache.clear()
            self._stems.clear()
        out: dict[str, list[int]] = {}
        get = out.get
        for pos, raw in enumerate(_TOKEN.findall(text)):
            terms = cache.get(raw)
            if terms is None:
                terms = cache[raw] = self.token_terms(raw)
            for term in terms:
                positions = get(term)
                if positions is None:
                    out[term] = [pos]
                else:
                    positions.append(pos)
        return out
