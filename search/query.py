"""Query building: pure functions from the text a reader typed to Whoosh queries.

A text becomes *concepts*: each thing the reader asked for, as a typed word or a run of words that
is a known variant ("data centre"), with the alternatives that also satisfy it (its synonyms, and,
once the service has looked at the index's vocabulary, close spellings of a word the index does not
have, or the words a ``gpu*`` prefix stands for).  Alternatives other than the typed words weigh
less, so exact matches rank first.  A document holding any concept is a match (``any_words``;
``all_words`` needs every one, and the service does not rank by it: search/ranking.py has no tiers),
so a long question is never an empty page.  A concept typed ``+word``, or joined by ``AND`` to the one
beside it, is ``required``: a document without it is no match.

The search box also understands "quoted phrases", ``-excluded`` words, ``OR``, ``AND``, ``NOT`` and
parentheses; field names, ranges and boosts are not syntax here, so ``title:x`` searches the words
``title`` and ``x``.  Whoosh's parser raises on some input (``NOT NOT a``, ``a ANDNOT ANDNOT b``);
such text is searched as its plain words instead.
"""

from __future__ import annotations

import re
from functools import lru_cache
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, islice
from typing import Protocol

from whoosh import query as wq
from whoosh.analysis import Analyzer
from whoosh.fields import Schema
from whoosh.qparser import AndGroup, QueryParser
from whoosh.qparser.common import attach
from whoosh.qparser import plugins as qplugins
from whoosh.qparser import syntax

from index.analysis import (
    CHARSET_MAP, DEFAULT_LANGUAGE, IDEOGRAPH, IDEOGRAPHS, STEM_FUNCTIONS, TOKEN_PATTERN, WORD, language_of, normalize, query_language,
    query_stop_words, query_stop_words_of, text_analyzer, unmarked,
)
from search.cache import remember
from search.synonyms import Synonyms

SEARCH_FIELDS = ("title", "body")
SYNONYM_WEIGHT = 0.8
# A place in the region typed ("London" for "europe") weighs less than a synonym of it: a place's name is
# rarer than its region's, and at the synonym weight "europe" put ten pages on London, the UK, France and
# Denmark before CISI's eleven abstracts saying "Europe" (11th to 79th), as on Debian (a QA pass).  At
# 0.3 each corpus puts a page saying "Europe" first; the judged sets did not move from 0.8 down to 0.3.
PLACE_WEIGHT = 0.3
# How a synonym's alternatives were found: a variant of its group, or a place in the region it names
# (explain says which: "by a place in it").
SYNONYM_WAYS = frozenset({"synonym", "place"})
TYPO_WEIGHTS = {1: 0.6, 2: 0.4}  # by edit distance
PREFIX_WEIGHT = 0.7
# A phrase's or a multi-word synonym's words found apart ("open" of "open ai"): they count for a
# document that lacks the whole, below it.  At full weight a page with "open" alone (a rare word)
# outranked every OpenAI page for "open ai"; docs/relevance.md has the figures for 0.2-1.0.
LOOSE_WEIGHT = 0.3
PREFIX_MIN_CHARS = 2
PREFIX_LIMIT = 64  # words a prefix may stand for
PREFIX_TOTAL = 64  # ... and all a query's prefixes together (32 prefixes of 64 words each took 9 s at 64k)
PHRASE_PREFIX_TOTAL = 16  # ... and the words of a query's quoted phrases ending in a star ('"data cent*"'), together
TYPO_CANDIDATES = 3  # close spellings searched for one unknown word
OTHER_TYPO_SHARE = 0.25  # what the close spellings after the first weigh, as a share of their weight
VARIANT_SLOP = 2  # a multi-word variant matches with one word between ("mixture of experts")
# The other spelling of a British or American word ending, tried for a word the index lacks
# ("parallelisation" → "parallelization", "analyze" → "analyse", "colour" → "color").  Stemming does
# not join them: Porter2 takes -ize off but not -ise.  The first rule that applies gives the variant.
_SPELLINGS = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"^(\w{3,})is(ation|ations|e|es|ed|ing|er|ers|able|ability)$", r"\1iz\2"),
        (r"^(\w{3,})iz(ation|ations|e|es|ed|ing|er|ers|able|ability)$", r"\1is\2"),
        (r"^(\w{2,})ys(e|es|ed|ing)$", r"\1yz\2"),
        (r"^(\w{2,})yz(e|es|ed|ing)$", r"\1ys\2"),
        (r"^(\w{3,})our(s|ed|ing|ful)?$", r"\1or\2"),
        (r"^(\w{3,})or(s|ed|ing|ful)?$", r"\1our\2"),
        (r"^(\w{2,})([bt])re(s)?$", r"\1\2er\3"),
        (r"^(\w{2,})([bt])er(s)?$", r"\1\2re\3"),
        (r"^(\w{3,})ogue(s)?$", r"\1og\2"),
        # And back ("catalog" found 112 of CISI's abstracts, "catalogue" 143: the union; a QA pass).
        (r"^(\w{3,})og(s)?$", r"\1ogue\2"),
        (r"^(\w{3,})ogu(ing|ed|er|ers)$", r"\1og\2"),
        (r"^(\w{3,})og(ing|ed|er|ers)$", r"\1ogu\2"),
        # The ae and oe of British medical words ("paediatric" and "pediatric" each found one page).
        (r"^(p|orthop|encyclop)aed(\w+)$", r"\1ed\2"),
        (r"^(p|orthop|encyclop)ed(ia\w*|ic\w*|ist\w*)$", r"\1aed\2"),
        (r"^(\w*)aem(ia|ias|ic)$", r"\1em\2"),
        (r"^(\w*[^a])em(ia|ias|ic)$", r"\1aem\2"),
        (r"^haem(\w+)$", r"hem\1"),
        (r"^hem(o\w+|at\w+|or\w+)$", r"haem\1"),
        (r"^oe(soph\w*|strogen\w*|dema\w*)$", r"e\1"),
        (r"^e(soph\w*|strogen\w*|dema\w*)$", r"oe\1"),
        (r"^(\w+)rrhoea$", r"\1rrhea"),
        (r"^(\w+)rrhea$", r"\1rrhoea"),
        (r"^foet(us|uses|al)$", r"fet\1"),
        (r"^fet(us|uses|al)$", r"foet\1"),
        (r"^(\w{3,})ence(s)?$", r"\1ense\2"),
        (r"^(\w{3,})ense(s)?$", r"\1ence\2"),
        # One way only: "programme" is "program", but "program" is not "programm", the stem of "programmable".
        (r"^(\w{2,})gramme(s)?$", r"\1gram\2"),
    )
)
_JOINABLE_GAP = re.compile(r"[\s-]+")  # between two typed words that may be one: "fluid stack", "deep-speed"

# Raw tokens whose query-mode analysis is kept (one chain run per distinct typed token, not per query;
# some 200 bytes each, tracemalloc).
QUERY_TERM_CACHE = 20_000
_QUERY_TERMS: dict[str, tuple[str, bool]] = {}  # of an English corpus's chain; _QUERY_TERMS_OF others'
_QUERY_TERMS_OF: dict[str, dict[str, tuple[str, bool]]] = {DEFAULT_LANGUAGE: _QUERY_TERMS}
_CHAINS: dict[int, tuple[Analyzer, str | None]] = {}
# Parsers by schema and stop-word handling: made once (some 20 us each, a fifth of a parse), then shared
# (a parse keeps its state in the nodes it makes, not in the parser).
_PARSERS: dict[tuple[int, bool], tuple[Schema, _Parser]] = {}
# Typed words (runs of them) whose alternatives are kept, with the synonym set they were made with
# (some 700 bytes each, tracemalloc: 7 MB).
CONCEPT_CACHE = 10_000
_MADE: tuple[Synonyms | None, dict[tuple[str, ...], tuple[tuple[Alternative, ...], tuple[wq.Query, ...]]]] = (None, {})
_CHAIN_TYPES = [type(item) for item in text_analyzer().items]
_TOKEN = re.compile(TOKEN_PATTERN)
_WORDS = re.compile(WORD + "(?:[.'’]" + WORD + ")*")  # a word's combining marks are its own (index.analysis.WORD)
_QUOTED = re.compile(r'"([^"]*)"')  # a text that is one quoted phrase, as the parser's PhrasePlugin reads it
# After "how", these ask for an amount, not about a thing: "how big is the stargate michigan site".
HOW_WORDS = frozenset({"big", "large", "long", "old", "far", "often", "tall", "high", "soon"})
_HOW = re.compile(r"\b[Hh]ow\s+$")
# Opening a query, these ask for what follows, and are no words of the answer: "show me stargate" put
# three pages on "show" above every Stargate page, and "tell me about stargate" said "Missing: tell" on
# every hit (a QA pass: the first result lacked the subject in 25 of 240 such requests).  Only at the
# start, and only when words follow: "find" or "describe" alone, or within a query, are searched.  A
# verb alone ("explain", "describe", "summarise") may also be what is searched for ("explain analyze",
# SQL's; "summarise code coverage", lcov's title: a review): kept where the pages write it before the
# word that follows it (``bare_request``, asked by the service; ``build_query(keep_verb=True)``).
_REQUEST = re.compile(
    r"^\s*(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:(?:show|tell|give|find|get)\s+(?:me|us)(?:\s+(?:more\s+)?(?:about|on)\b)?"
    r"|(?P<verb>explain|describe|summari[sz]e)(?P<to_me>\s+to\s+me)?"
    r"|i\s*(?:want|wanted|need|would\s+like|['’]d\s+like)\s+to\s+(?:know|learn|read|hear|find\s+out)(?:\s+(?:more\s+)?(?:about|on)\b)?"
    r"|(?:information|info|details|news)\s+(?:about|on|regarding)\b"
    # What a reader asks of a subject, not a word of the answer: "define training infrastructure" put
    # BLOOM first and the section on it 13th, "timeline of openai and microsoft" a page saying "No …
    # timeline details are provided" (a QA pass).
    r"|define|(?:(?:the|a|an)\s+)?(?:(?:definition|meaning|overview|explanation|timeline|list)\s+of|guide\s+(?:to|on))\b"
    r"|what\s*(?:happened|is\s+happening|['’]s\s+happening|['’]s\s+new|is\s+new)\s+(?:with|to|at|in|on)\b)"
    r"(?=\s+\S)",
    re.IGNORECASE,
)


def _request_end(text: str, keep_verb: bool = False) -> int:
    """Return where what *text* asks for starts after a request opening it ("tell me about"), else 0;
    with *keep_verb*, a verb alone ("explain stargate") opens none."""
    request = _REQUEST.match(text)
    if request is None or (keep_verb and _verb_alone(request)):
        return 0
    return request.end()


def _verb_alone(request: re.Match[str]) -> bool:
    """Return whether the request *request* matched is a verb alone ("explain stargate", not "explain to me")."""
    return bool(request.group("verb")) and not request.group("to_me")


def bare_request(text: str) -> tuple[str, str] | None:
    """Return the verb opening *text* alone ("explain stargate": not "explain to me …") and the word
    after it, analysed, when there are both; else None.  Whether the pages write them side by side
    decides whether the verb is a word of the answer (``build_query(keep_verb=True)``)."""
    request = _REQUEST.match(text)
    if request is None or not _verb_alone(request):
        return None
    tokens = [term for term, stop, start, _ in _query_tokens(text) if start >= request.start("verb") and not stop]
    return (tokens[0], tokens[1]) if len(tokens) > 1 else None


# Ending a query after its subject, these ask what it is, and are no words of the answer: "stargate
# explained" put three pages holding only "explained" above every Stargate page, "stargate meaning" a
# page on a gradient noise scale's "meaning" (a QA pass).
FRAMING_WORDS = frozenset({"explained", "meaning", "definition", "defined", "overview"})
# Ending a "when" question, these ask for the date of what it names: "when did stargate start" put
# the one page holding "starting" (a word in 1 page of 57) above every Stargate page.
WHEN_WORDS = frozenset({"start", "begin", "happen", "occur", "end", "finish", "open", "close", "commence"})
_WHEN = re.compile(r"^\s*[Ww]hen\s+(?:did|does|do|was|were|is|will|has|have)\b")
# Ending a "what … does it use" question, the verb asks which things, not about using: "what gpus does
# anthropic use" put two pages on "use" and no Anthropic above the Colossus deal's GPUs (a QA pass).
_WHAT_DOES = re.compile(r"^\s*(?:what|which)\b.*\b(?:do|does|did)\b", re.IGNORECASE)
USE_WORDS = frozenset({"use", "using", "utilise", "utilize", "run", "rely"})
# Ending a "how much" question, "worth" asks for the amount, not about worth: "how much is stargate worth"
# put two pages on "worth" (neither on Stargate) above every Stargate page (a QA pass).  Not "cost" nor
# "valued": "how much does training cost" asks about cost, and dropped it was a search for training
# (its pages on cost fell out of the first ten), "how much is anthropic valued" lost the valuation page.
_HOW_MUCH = re.compile(r"^\s*how\s+much\b", re.IGNORECASE)
AMOUNT_WORDS = frozenset({"worth"})
# Between two words, these make a comparison of them, not a word of the answer: "fsdp vs deepspeed"
# made the one page holding both "most of the words" (it lacked "vs"), and "fsdp versus deepspeed"
# listed a pipeline paper for "versus".  First or last they are a word ("vs code"), as is "VS".
COMPARISON_WORDS = frozenset({"vs", "versus"})
# So are these, between two words ("openai compared to anthropic" put two pages on "comparative" and
# "comparable", neither on OpenAI nor Anthropic, first; "how does fsdp compare to deepspeed" said
# "Missing: compare" on every page: QA passes); "comparison" as what is asked about ("comparison of
# training frameworks") is a word, as is "compare" opening a query: on Debian "compare tool", "compare
# and merge", "compare pdf files" are what the tools do (a regression pass: read as a request they lost
# comparepdf, kdiff3 and diffpdf, and "compare to" searched "to").
_COMPARED = re.compile(r"\b(?:compared?|compares|in\s+comparison)\s+(?:to|with|against)\b", re.IGNORECASE)
_WORD_CHAR = re.compile(r"\w")
# An English contraction is function words: the auxiliary before "n't" ("doesn't", "won't") and the
# ending after an apostrophe ("'t", "'re", "'ve", "'ll", "'d", "'m"; a possessive "'s" stays in its
# token).  "how to train a model that doesn't fit on one gpu" listed "doesn" and "t" as missing.
# So is "w/o" ("without"; its "w" and "o" were each "Missing:"), and a French article or pronoun elided
# before a word ("l'entreprise", "d'accord", "qu'il"): its "l" was a word, in 23 results of 40 French
# pages, each "l" marked (a QA pass of non-English corpora; as Lucene's ElisionFilter).
_CONTRACTION = re.compile(r"\b\w+n['’]t\b|(?<=[^\W\d_])['’](?:t|re|ve|ll|d|m)\b|(?<!\S)w/o(?![\w/])"
                          r"|(?<![\w'’])(?:[cdjlmnst]|qu)['’](?=[^\W\d_])", re.IGNORECASE)
_PLUS = r"(?:^|(?<=[\s(]))\+(?=[\w\"(])"
_MINUS = r"(?:^|(?<=[\s(]))-(?=[\w\"(])"
# Anything Whoosh's parser is needed for; text without it is built directly from its words.
_SYNTAX = re.compile(r"[\"()]|(?:^|[\s(])[+-](?=[\w\"(])|\b(?:AND|OR|NOT|ANDNOT)\b")
# What a query's syntax excludes ("-word", "NOT word", "a ANDNOT b": a word, a quoted phrase or a
# group each), and the syntax itself: quotes, parentheses, AND, OR and "+" marks (``asked_text``).
_GROUP = r'(?:"[^"]*"?|\([^)]*\)?|[^\s()"]+)'
_EXCLUDER = rf"(?:{_MINUS}|\b(?:NOT|ANDNOT)\s+)"  # what excludes the word, phrase or group typed next
# A filter typed excluded with a quoted value is excluded whole, its name, colon and phrase, as the
# parser excludes it (``_EXCLUDED_FIELD_PHRASE``).  The group alone ends at the quote, so
# '-entity:"Mistral AI" stargate' asked for "Mistral AI stargate": its meaning ranked the page naming
# Mistral AI first, from second ('NOT topic:"compute-deals"' the same; a QA pass), and
# '-entity:"Mistral AI"' alone asked for something, so it was not read as NOT (``_as_meant``): nothing
# found.  The search without the exclusions (``without_exclusions``) then offered '"Mistral AI" stargate',
# the value excluded searched for, and ``_exclusions_last`` left the phrase in its group, asked for.
_EXCLUDED = re.compile(rf'{_EXCLUDER}(?:\w+[:：]"[^"]*"?|{_GROUP})')
_MARKS = re.compile(rf'["()]|\b(?:AND|OR)\b|{_PLUS}')
_EXCLUDED_WORD = re.compile(rf'{_EXCLUDER}([^\s()"+-][^\s()"]*)')  # one word, not a phrase or group
_WORD_THEN = re.compile(r"(\w+)(?:['’]s)?[.,;:!?]*$")  # a word, and what may follow it in a sentence
_EXCLUDED_PHRASE = re.compile(rf'{_EXCLUDER}((?:\w+[:：])?"[^"]+")')  # a filter's name with it: '-entity:"Mistral AI"'
# A model number: letters, then digits (and maybe more letters and digits), ending in a digit: "h100",
# "gb200", "mi300x" is not (its plural "mi300xs" is no plural), "a100".  Its plural adds an "s".
_MODEL = re.compile(r"[A-Za-z]+\d[A-Za-z\d]*\d|[A-Za-z]+\d")
MAX_EXCLUDED_CHECKED = 32  # excluded words checked for leaving out nothing (as MAX_QUERY_WORDS)
# An operator with nothing to join on one side is half-typed syntax, not a word: "trainium AND".
_OPERATORS = frozenset({"AND", "OR", "NOT", "ANDNOT"})
_EMPTY_GROUP = re.compile(r'(?:^|(?<=[\s(]))[+-]?(?:""|\(\s*\))')
_AND = re.compile(r"\bAND\b")
_AND_GAP = re.compile(r'[\s()"]*AND[\s()"]*')  # between two things typed with AND between them


@lru_cache(maxsize=None)
def _function_terms_of(language: str) -> frozenset[str]:
    stops = query_stop_words_of(language)
    return frozenset(STEM_FUNCTIONS[language](word.translate(CHARSET_MAP)) for word in stops) | stops


def function_terms() -> frozenset[str]:
    """Return the function words a query drops, as the index has them (stemmed: "does" is "doe"), in
    the language queries are read in now (``index.analysis.searching_in``)."""
    return _function_terms_of(query_language())


_PLUS_EXCLUDED = re.compile(r"((?:^|[\s(])(?:-|NOT\s+)\(\s*)\+")
_REPEATED = re.compile(r"\b(AND|OR|ANDNOT)(?:\s+\1)+\b")  # an operator typed twice in a row
_DOUBLE_NOT = re.compile(r"\bNOT\s+NOT\s+")  # two negations are none ("NOT NOT a", which the parser chokes on)
_OPERATOR_WORD = re.compile(r"\b(?:%s)\b" % "|".join(sorted(_OPERATORS, key=len, reverse=True)))
_GROUP_BLANKS = re.compile(r"(?<=\()\s+|\s+(?=\))")  # blanks a cut left inside a group's parentheses
_DANGLING = re.compile(r"^(?:(?:AND|OR|ANDNOT)\s+)+|(?:\s+(?:AND|OR|NOT|ANDNOT))+$")
_DROPPED_PLUGINS = (
    qplugins.SingleQuotePlugin,  # apostrophes are part of words here
    qplugins.FieldsPlugin,
    qplugins.WildcardPlugin,
    qplugins.RangePlugin,
    qplugins.BoostPlugin,
    qplugins.EveryPlugin,
)


class Vocabulary(Protocol):
    """What query expansion needs to know about an index's words (see search/spell.py)."""

    def contains(self, word: str) -> bool: ...
    def near(self, typed: str, word: str) -> list[tuple[str, int]]: ...
    def closest(self, typed: str, word: str) -> list[tuple[str, int]]: ...
    def prefixed(self, prefix: str, limit: int) -> list[str]: ...
    def begins(self, word: str, prefix: str) -> bool: ...
    def completions(self, typed: str) -> list[str]: ...
    def acronym(self, word: str) -> bool: ...
    def name(self, word: str) -> bool: ...
    def frequency(self, word: str) -> int: ...
    def common(self, typed: str) -> bool: ...
    def follows(self, first: str, second: str) -> bool: ...
    def apart(self, first: str, second: str) -> bool: ...
    def together(self, first: str, second: str, limit: int) -> int: ...
    def writes(self, spelled: str, word: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class Alternative:
    """One way to satisfy a concept: how it was found (exact, synonym, typo, prefix) and its query."""

    via: str
    words: tuple[str, ...]  # the analysed words its query looks for (the terms a hit highlights)
    query: wq.Query


@dataclass(frozen=True, slots=True)
class Concept:
    """One thing the reader asked for, with every alternative that satisfies it."""

    text: str  # as typed
    alternatives: tuple[Alternative, ...]
    loose: tuple[wq.Query, ...] = ()  # single words of a typed phrase: each counts for any-words
    span: tuple[int, int] | None = None  # where it was typed, for a suggestion
    word: str | None = None  # the analysed word, when the concept is one typed word
    prefix: str | None = None  # the typed prefix of ``gpu*``
    count: int = 1  # how often it was typed: a pasted paragraph repeats what it is about
    # The words of an OR group ("gpus OR tpus"), each a concept of its own that ``expand`` widens as it
    # widens a word typed alone; the group matches what any of them matches, their scores added.
    members: tuple[Concept, ...] = ()
    required: bool = False  # typed "+word", or joined by AND: a document without it is not a match
    # What a document must match to have this concept (the best alternative counts).
    query: wq.Query = field(init=False, repr=False, compare=False)
    # What counts toward any-words: the concept, or as much of its typed words as matches.
    any_query: wq.Query = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Built once: match sets, ranking, explain and assembling the query all read them.
        if self.members:
            query: wq.Query = wq.Or([m.query for m in self.members])
        else:
            queries = [a.query for a in self.alternatives]
            query = queries[0] if len(queries) == 1 else wq.DisjunctionMax(queries)
        object.__setattr__(self, "query", query)
        any_query = wq.DisjunctionMax([query, wq.Or(list(self.loose), boost=LOOSE_WEIGHT)]) if self.loose else query
        object.__setattr__(self, "any_query", any_query)


@dataclass(frozen=True, slots=True)
class Correction:
    """An unknown typed word and the index word closest to it."""

    span: tuple[int, int]
    typed: str
    word: str  # analysed
    distance: int


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    """The queries for one text, and the analysed terms to highlight."""

    text: str
    all_words: wq.Query
    any_words: wq.Query
    terms: frozenset[str]
    plain: bool  # True when the syntax could not be parsed and the words were searched instead
    concepts: tuple[Concept, ...] = ()
    excluded: wq.Query | None = None
    corrections: tuple[Correction, ...] = ()
    typed: tuple[str, ...] | None = None  # the analysed words as typed, when known (keep_informative counts them)
    # The multi-word synonyms whose words are in *terms* only through them ("unit" of "united kingdom"
    # for "uk"): a highlight marks those words only where the synonym stands whole (``highlight.together``).
    together: tuple[tuple[str, ...], ...] = ()
    together_slops: tuple[int, ...] = ()  # each one's slop: a synonym's (VARIANT_SLOP), a quoted phrase's (1)
    only_together: frozenset[str] = frozenset()
    # A quoted phrase's words among them, marked wherever they stand in a page found by meaning (it
    # holds the words, not the phrase: its marks show which of them it holds).
    quoted_words: frozenset[str] = frozenset()

    @property
    def is_empty(self) -> bool:
        return self.any_words is wq.NullQuery

    def typed_concepts(self) -> Iterator[Concept]:
        """Yield the concepts as typed: an OR group's words one by one, in the group's place."""
        for concept in self.concepts:
            yield from concept.members or (concept,)


def word_query(word: str, boost: float = 1.0) -> wq.Query:
    """Return the query for one analysed word in any searched field."""
    return wq.Or([wq.Term(f, word, boost=boost) for f in SEARCH_FIELDS])


def _side_by_side(words: Sequence[str], boost: float) -> wq.Query:
    """Return the query for *words* one right after another in any searched field."""
    return wq.Or([wq.Phrase(f, list(words), slop=1, boost=boost) for f in SEARCH_FIELDS])


def _words_query(words: Sequence[str], boost: float = 1.0, phrase: bool = True) -> wq.Query:
    if len(words) == 1:
        return word_query(words[0], boost)
    if not phrase:
        return wq.And([word_query(w, boost) for w in words])
    return wq.Or([wq.Phrase(f, list(words), slop=VARIANT_SLOP, boost=boost) for f in SEARCH_FIELDS])


def _phrase_words(text: str, analyzer: Analyzer) -> list[tuple[str, int, int]]:
    """Return the analysed words of a quoted phrase with where each was typed, function words kept:
    the index holds them at their positions, so "samsung and sk" is three words side by side."""
    if _is_text_chain(analyzer):  # the chain's query mode from its kept per-token analysis
        return [(term, start, end) for term, _, start, end in _query_tokens(text)]
    return [(t.text, t.startchar, t.endchar) for t in analyzer(text, mode="query", chars=True, removestops=False)]


class _PhraseNode(qplugins.PhrasePlugin.PhraseNode):
    """Whoosh's quoted phrase, its function words kept (Whoosh drops them, and then finds no page
    where the words left are side by side)."""

    def query(self, parser: QueryParser) -> wq.Query:
        fieldname = self.fieldname or parser.fieldname
        if not (parser.schema and fieldname in parser.schema and parser.schema[fieldname].analyzer):
            return super().query(parser)
        found = _phrase_words(self.text, parser.schema[fieldname].analyzer)
        ranges = [(self.textstartchar + start, self.textstartchar + end) for _, start, end in found]
        phrase = parser.phraseclass(fieldname, [w for w, _, _ in found], slop=self.slop, boost=self.boost, char_ranges=ranges)
        return attach(phrase, self)


class _PhrasePlugin(qplugins.PhrasePlugin):
    class PhraseTagger(qplugins.PhrasePlugin.PhraseTagger):
        def create(self, parser: QueryParser, match: re.Match) -> _PhraseNode:
            node = super().create(parser, match)
            return _PhraseNode(node.text, node.textstartchar, node.slop)

    class HyphenatedTagger(qplugins.RegexTagger):
        def create(self, parser: QueryParser, match: re.Match) -> _PhraseNode:
            return _PhraseNode(match.group("text"), match.start("text"))

    def taggers(self, parser: QueryParser) -> list[tuple[qplugins.Tagger, int]]:
        # Words joined by hyphens are their phrase, function words kept, as in a plain query and as
        # if quoted: Whoosh read "fine-tuning" as "fine" and "tune" anywhere, without saying where it
        # was typed, so "gpu +fine-tuning" lost its "+", "training -post-training" left out every page
        # with a blog "post", "fine-tuning OR tpus" found no TPU page, AND joined nothing (QA passes).
        # Typed with a star ("fine-tun*"), the phrase's last word is a prefix, as in '"fine tun*"'.
        return [*super().taggers(parser), (self.HyphenatedTagger(_HYPHENATED_WORD), 0), (self.HyphenatedTagger(_EXCLUDED_FIELD_PHRASE), -1)]


class _PlusMinusPlugin(qplugins.PlusMinusPlugin):
    """Whoosh's + and -, a function word marked by them or by AND, OR or NOT kept: "+stargate +between"
    and "stargate AND between" asked for no page holding "between" and listed the 15 Stargate pages;
    "stargate OR between" the 15 alone."""

    def do_plusminus(self, parser: QueryParser, group: syntax.GroupNode) -> syntax.GroupNode:
        self._asked(group)
        return super().do_plusminus(parser, group)

    def _asked(self, group: syntax.GroupNode) -> None:
        """Keep the function words an operator marks in *group* and the groups inside it."""
        nodes = list(group)
        for i, node in enumerate(nodes):
            if isinstance(node, (self.Plus, self.Minus)) or (isinstance(node, syntax.Operator) and node.text == "NOT"):
                _keep_stops(nodes[i + 1 : i + 2])
            elif isinstance(node, syntax.InfixOperator) and node.text in ("AND", "OR"):
                # An OR group's words each as typed alone, where a function word alone is searched.
                _keep_stops([*nodes[i - 1 : i][:1], *nodes[i + 1 : i + 2]])
            elif isinstance(node, syntax.GroupNode):
                self._asked(node)  # "(gpus OR between) nvidia"


def _keep_stops(nodes: Sequence[syntax.SyntaxNode]) -> None:
    """Keep the function word each of *nodes* is, or its copy in each field (MultifieldPlugin has made
    the copies an OR group): an operator asks for it."""
    for node in nodes:
        for word in (node, *node) if isinstance(node, syntax.GroupNode) else (node,):
            if isinstance(word, syntax.WordNode):
                word.removestops = False


class _Parser(QueryParser):
    """Whoosh's parser limited to the syntax above; can keep stop words when a query is nothing else."""

    def __init__(self, schema: Schema, keep_stops: bool = False) -> None:
        super().__init__(None, schema, group=AndGroup)
        self.keep_stops = keep_stops
        for plugin in _DROPPED_PLUGINS:
            self.remove_plugin_class(plugin)
        self.remove_plugin_class(qplugins.PhrasePlugin)
        self.add_plugin(_PhrasePlugin())
        # "-word" excludes only at the start of a word: "V3.2-Exp" and "fine-tune" stay words.
        self.add_plugin(_PlusMinusPlugin(plusexpr=_PLUS, minusexpr=_MINUS))
        self.add_plugin(qplugins.MultifieldPlugin(list(SEARCH_FIELDS)))

    def term_query(self, fieldname, text, termclass, boost=1.0, tokenize=True, removestops=True):
        if removestops and not self.keep_stops and (text := _CONTRACTION.sub(" ", text)).isspace():
            return None  # "doesn't" alone: function words (a phrase's words are not read here)
        return super().term_query(
            fieldname, text, termclass, boost, tokenize, removestops and not self.keep_stops
        )


def _parser(schema: Schema, keep_stops: bool = False) -> _Parser:
    """Return the kept ``_Parser`` of *schema*."""
    known = _PARSERS.get((id(schema), keep_stops))
    if known is None or known[0] is not schema:
        # The schema is kept with its parser, so its id stays its own.
        known = remember(_PARSERS, (id(schema), keep_stops), (schema, _Parser(schema, keep_stops)), 16)
    return known[1]


@dataclass(frozen=True, slots=True)
class _Unit:
    word: str
    start: int
    end: int
    prefix: str | None


def _units(text: str, analyzer: Analyzer, keep_verb: bool = False) -> list[_Unit]:
    """Return the analysed words of *text* with where they were typed; function words only if alone."""
    tokens = _query_tokens(text) if _is_text_chain(analyzer) else None
    contracted = [m.span() for m in _CONTRACTION.finditer(text)] if "'" in text or "’" in text or "/" in text else []
    when = _WHEN.match(text)
    how_much = _HOW_MUCH.match(text)
    what_does = _WHAT_DOES.match(text)
    asked_from = _request_end(text, keep_verb)  # the words after "show me", "tell me about", ...
    # "except", "excluding", "other than", "but not" and the words after them before the word left out,
    # where the query offers to exclude it ("stargate except uae": every page said "Missing: except", a
    # QA pass).  Not "without": pages write it with what follows ("train without infrastructure
    # investment" is the ZeRO page's "without additional infrastructure investment").
    negated = [range(span[0], word[0]) for span, word in negation_offers(text) if not text[span[0] : word[0]].lstrip("( ").startswith("without")]
    for removestops in (True, False):
        units = []
        asked_about: list[_Unit] = []  # the verb ending a "when did …", "what does … use" or "how much … worth" question
        if tokens is None:
            found = ((t.text, t.startchar, t.endchar) for t in analyzer(text, mode="query", chars=True, removestops=removestops))
        else:
            found = ((term, start, end) for term, stop, start, end in tokens if not (removestops and stop))
        for word, start, end in found:
            if removestops:  # the words a question or a request is made of, and what it asks about, left out
                if end <= asked_from:
                    continue  # "show me stargate": what is asked for is stargate
                typed = text[start:end]
                lower = typed.lower()
                if lower in HOW_WORDS and _HOW.search(text, 0, start):
                    continue  # "how big is …": the size of the question, not what it is about
                if contracted and any(s <= start and end <= e for s, e in contracted):
                    continue
                if when and lower in WHEN_WORDS and not text[end:].strip(" ?!."):
                    asked_about.append(_Unit(word, start, end, None))
                    continue  # "when did stargate start": the date asked for, not a word of the answer
                if how_much and lower in AMOUNT_WORDS and not text[end:].strip(" ?!."):
                    asked_about.append(_Unit(word, start, end, None))
                    continue  # "how much is stargate worth": the amount asked for, not pages on worth
                if typed in ("one", "One") and _pronoun_one(text, start, end):
                    continue  # "the nvidia one", "the one in texas": the thing meant, named by the other words
                if what_does and lower in USE_WORDS and not text[end:].strip(" ?!."):
                    asked_about.append(_Unit(word, start, end, None))
                    continue  # "what chips does openai use": which chips, not pages on "use"
                if lower == "behind" and _WHO_IS.match(text, 0, start):
                    continue  # "who is behind stargate uae": who, not pages on "behind" (BLOOM's "Technology Behind")
                if lower in ANSWER_KINDS and _WHICH.search(text, 0, start):
                    continue  # "which companies are building data centers": who, not pages on "companies"
                if typed in ("well", "Well") and _WELL_BEFORE.match(text, end):
                    continue  # "well over a gigawatt": how far over, not pages on "well" ("well beyond" ranked first)
                if negated and start in negated[0]:
                    continue
                if _compares(text, start, end):
                    continue  # "fsdp vs deepspeed": the two things compared
                if lower in FRAMING_WORDS and not text[end:].strip(" ?!.") and _WORD_CHAR.search(text, 0, start) is not None:
                    continue  # "stargate explained": what stargate is
            if text[start:end] in ("x", "X") and units and units[-1].end == start and BARE_NUMBER_TYPED.fullmatch(text[units[-1].start : start]):
                continue  # a factor's sign: "300,000x" is the number, as "1.77x" and "300,000×" are (the "x" of "7x" ranked a page)
            prefix = _prefix_of(text[start:end], analyzer) if text[end : end + 1] == "*" else None
            units.append(_Unit(word, start, end, prefix))
        if not units and asked_about:
            return asked_about  # the only word asked about ("what does it use"): searched, not the function words
        if units or not _WORDS.search(text):
            return units
    return []


# "one" standing for a thing named otherwise ("the nvidia one", "the one in texas", "which one", "one of
# the deals"): a word in 1 page of 57 ("One Million TPUs"), so "the big amazon one" put the Google TPU
# page first, by its "one" over Amazon's pages (a QA pass).  A number when a number follows it ("the one
# million tpus", "one 1GW site").
_BEFORE_ONE = re.compile(r"\b(?:the|that|this|which|each|every|any|another|no)\s+$", re.IGNORECASE)
_AFTER_ONE_NUMBER = re.compile(r"\s*(?:\d|(?:hundred|thousand|million|billion|trillion|gigawatts?|megawatts?)\b)", re.IGNORECASE)
_AFTER_ONE_OF = re.compile(r"\s+of\b", re.IGNORECASE)
_THE_FIRST = re.compile(r"^\W*(?:the|that|this)\s", re.IGNORECASE)


# A question of who is behind a thing, "behind" last before it ("who's behind colossus" put "The
# Technology Behind BLOOM Training" first, without Colossus: a QA pass).
_WHO_IS = re.compile(r"\s*who(?:'s|’s|\s+(?:is|are|was|were|'s))\s+$", re.IGNORECASE)


# The kind of answer a question asks for, right after "which" or "what": "which companies are building
# data centers" put Microsoft's investment first (it says "companies", not "data centers"), "which lab has
# the most gpus" three pages on "lab" and none on GPUs, "which company makes mtia" the Series H page
# second (a QA pass): who is asked for, not pages saying the word.
ANSWER_KINDS = frozenset({"company", "companies", "firm", "firms", "lab", "labs", "startup", "startups",
                          "organisation", "organisations", "organization", "organizations"})
_WHICH = re.compile(r"\b(?:which|what)\s+$", re.IGNORECASE)


# "well" qualifying what follows it ("well over a gigawatt", "well below", "well into 2026"): a word in 2
# pages of 57, of "well beyond" and "well-suited", which "well over a gigawatt" put first (a QA pass).
_WELL_BEFORE = re.compile(r"\s+(?:over|under|above|below|beyond|past|into|ahead|short|in\s+excess)\b", re.IGNORECASE)


def _pronoun_one(text: str, start: int, end: int) -> bool:
    """Return whether the "one" typed at *start*:*end* of *text* stands for a thing, not the number."""
    after = text[end:]
    if _AFTER_ONE_NUMBER.match(after):
        return False
    return bool(_AFTER_ONE_OF.match(after) or _BEFORE_ONE.search(text, 0, start)
                or (not after.strip(" ?!.") and _THE_FIRST.match(text)))


def _compares(text: str, start: int, end: int) -> bool:
    """Return whether the word typed at *start*:*end* of *text* is a comparison between two words."""
    typed = text[start:end].lower()
    if typed in COMPARISON_WORDS:
        span = (start, end)
    elif typed in ("compare", "compares", "compared", "comparison"):  # within "compared to", "how does x compare with", ...
        span = next((m.span() for m in _COMPARED.finditer(text) if m.start() <= start and end <= m.end()), (0, 0))
    else:
        return False
    return (span != (0, 0) and not text[start:end].isupper()
            and _WORD_CHAR.search(text, 0, span[0]) is not None and _WORD_CHAR.search(text, span[1]) is not None)


# A lower-case "not" between two words of a query of nothing else ("stargate not michigan"): what
# the reader means is "stargate -michigan", but "not" is a function word, so the Michigan pages came
# first.  Offered (``negation_offers``), not searched: "not" may be the English word.  So are the
# other ways of saying it ("openai deals without microsoft", "stargate other than michigan", "anthropic
# except google", "openai but not stargate": each put the pages of the word to leave out first, a QA
# pass), and a "not" opening the query ("not nvidia", where "NOT nvidia" lists everything else).
# The words between it and the word it leaves out are no word of the query's either ("compute not from
# aws", "gpu deals not involving openai": no offer, or one of "-involving"; a QA pass).
# "w/o" is read in any case ("W/O"), and the word before may end a clause (a comma, a semicolon, a
# colon: "openai, w/o microsoft"); one in parentheses is an aside (``_ASIDE``).  Each offered nothing
# where "openai w/o microsoft" offered "openai -microsoft" (a regression pass).
_NEGATIONS = r"not|without|(?i:w/o)|except|excluding|other\s+than|but\s+not"  # the ways of saying it
_NEGATION = re.compile(
    r"(?:(?<![\w'’-])\w[\w.'’-]*[,;:]?\s+|^\s*(?=not\b))(" + _NEGATIONS + r")\s+"
    r"(?:(?:in|from|by|at|on|involving|including|using|made\s+by|based|located|the)\s+)*(\w[\w.'’-]*)(?![\w'’-])"
)

_NEGATION_WORD = re.compile(r"not|without|(?i:w/o)|except|excluding|than")  # in every _NEGATION match ("w/o" typed, ``shorthands``)
# A negation in parentheses and nothing else ("openai (w/o microsoft)", "stargate (not michigan)"):
# the parentheses are an aside's, not a group's; the offer writes the exclusion in their place.
_ASIDE = re.compile(r"(?<![^\s])\((\s*(?:" + _NEGATIONS + r")\s[^()\"]*?)\)(?![^\s,;:.!?])")


# More words the negation leaves out, listed after its word to the end of the query: "stargate except
# uae and uk", "… uae, uk", "… uae & the uk" (each offered nothing, or "-uae, uk", which then searched
# "uk" as a word wanted; a regression pass).
_LISTED = re.compile(r"(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+|\s*&\s*)(?:the\s+)?(\w[\w.'’-]*)(?![\w'’-])")


_LEAVES_OUT = re.compile(r"except|excluding|other\s+than")  # negations after which "and" lists what they leave out
_JOINED = re.compile(r"\band\b|&")


def negation_offers(text: str, follows: Callable[[str, str], bool] | None = None) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Return, for a lower-case "not" (or "without", "except", "excluding", "other than", "but not")
    that *text* puts between two words or opens it with, the span from it to the word after it and
    that word's span, then for each more word listed after that one to the end (``_LISTED``) the span
    from the end of the one before and its span; empty unless every other word of *text* is a plain
    word (no syntax, no function word: "models that do not fit" is a sentence) and it says so once,
    or when pages write the word right after the one before it (*follows*, of analysed words: "gpu
    kernels without cuda", where Triton's page says "without CUDA expertise", was offered "gpu kernels
    -cuda": a QA pass).  ``exclusion_fixes`` writes them as the exclusions offered."""
    if not _NEGATION_WORD.search(text) or "*" in text:
        return []  # (most queries say none of them: no need to scan for the pattern)
    aside = None
    if "(" in text and len(asides := list(_ASIDE.finditer(text))) == 1:
        aside = asides[0]  # read without its parentheses, which the offer replaces with the rest
        text = text[: aside.start()] + " " + aside[1] + " " + text[aside.end() :]
    if _SYNTAX.search(text):
        return []
    matches = list(_NEGATION.finditer(text))
    if len(matches) != 1:
        return []
    match = matches[0]
    listed: list[re.Match[str]] = []
    end = aside.end() - 1 if aside is not None else len(text)
    while (more := _LISTED.match(text, listed[-1].end() if listed else match.end(2), end)) is not None:
        listed.append(more)
    if listed and text[listed[-1].end() : end].strip():
        listed = []  # a list is read to the end only: "without microsoft and google deals" is no list
    if listed and aside is None and not _LEAVES_OUT.fullmatch(match[1]) and any(_JOINED.search(more[0]) for more in listed):
        # After "without" or "not", "and" may join what is wanted: "openai without microsoft and training"
        # was offered "openai -microsoft -training" (the regression pass).  After "except" it lists.
        listed = []
    last = listed[-1].end() if listed else match.end(2)
    if aside is not None and (text[aside.start() + 1 : match.start(1)].strip() or text[last : aside.end() - 1].strip()):
        return []  # more than the negation in the parentheses ("(w/o microsoft deals)")
    said = {*range(match.start(1), match.start(2)), *(at for more in listed for at in range(more.start(), more.start(1)))}
    if any(m.group().lower() in query_stop_words() for m in _WORDS.finditer(text) if m.start() not in said):
        return []
    said_just_before = not text[match.end(1) : match.start(2)].strip()  # no "in", "from" between
    if follows is not None and said_just_before and follows(_query_term(match[1].split()[-1])[0], _query_term(match[2])[0]):
        return []
    offers = [((match.start(1), match.end(2)), match.span(2)), *(((more.start(), more.end()), more.span(1)) for more in listed)]
    if aside is not None:  # the parentheses go with the words: the first span opens at "(", the last closes at ")"
        offers[0] = ((aside.start(), offers[0][0][1]), offers[0][1])
        offers[-1] = ((offers[-1][0][0], aside.end()), offers[-1][1])
    return offers


def exclusion_fixes(text: str, offers: list[tuple[tuple[int, int], tuple[int, int]]]) -> list[tuple[tuple[int, int], str]]:
    """Return the respelling (``search.spell.respelt``'s fixes) of *text* that writes each of
    *offers* (``negation_offers``) as an exclusion: "stargate except uae and uk" is "stargate -uae -uk",
    "stargate except uae, uk" "stargate -uae -uk" (a blank before one that follows a word straight)."""
    return [(span, ("" if span[0] == 0 or text[span[0] - 1].isspace() else " ") + "-" + text[word[0] : word[1]])
            for span, word in offers]


def _prefix_of(typed: str, analyzer: Analyzer) -> str | None:
    """Return the prefix a word typed before a star stands for (folded, not stemmed), or None when it
    is too short to be one."""
    folded = [f.text for f in analyzer(typed, mode="query", no_morph=True, removestops=False)]
    return folded[-1] if folded and len(folded[-1]) >= PREFIX_MIN_CHARS else None


def _long_enough(typed: str) -> bool:
    """Return whether a word typed before a star is long enough to be a prefix (``_prefix_of``)."""
    return _prefix_of(typed, _FOLDING) is not None


_FOLDING = text_analyzer()  # for _long_enough: the index's chain (its no_morph folding, as _prefix_of reads it)


# The last word of a quoted phrase typed with a star ('"data cent*"'), and the star.
_STARRED_LAST = re.compile(r"""\s([^\W_][\w'’.-]*)\*"$""")
# A word typed right before a star, as the parser takes it for a prefix ("gpu*", "u.s*").
_STARRED = re.compile(r"(?<![\w*])([^\W_][\w'’.-]*)\*")


def short_prefixes(text: str, analyzer: Analyzer) -> tuple[str, ...]:
    """Return the prefixes of *text* too short to be searched as one ("s*": a word of one letter, as
    folded), as typed with their stars: each is searched as its word, and the answer says so.  Inside
    quotes only the last word's star makes a prefix ('"data cent*"'); the rest of a phrase is blanked."""
    if "*" not in text:
        return ()

    def blank(quoted: re.Match[str]) -> str:
        phrase = quoted.group()
        last = _STARRED_LAST.search(phrase)
        return " " * len(phrase) if last is None else " " * last.start(1) + phrase[last.start(1) : -1] + " "

    outside = _QUOTED.sub(blank, text)
    short = [text[m.start(1) : m.end()] for m in _STARRED.finditer(outside) if _prefix_of(m.group(1), analyzer) is None]
    return tuple(dict.fromkeys(short))


def _prefix_concept(text: str, span: tuple[int, int], word: str, prefix: str) -> Concept:
    """Return the concept of a prefix typed at *span* (its star included): the word as typed; its words
    are added by ``expand``."""
    return Concept(text=text[span[0] : span[1]], alternatives=(Alternative("exact", (word,), word_query(word)),),
                   span=span, word=word, prefix=prefix)


def _terms_cache() -> dict[str, tuple[str, bool]]:
    language = query_language()
    return _QUERY_TERMS if language == DEFAULT_LANGUAGE else _QUERY_TERMS_OF.setdefault(language, {})


def _query_tokens(text: str) -> list[tuple[str, bool, int, int]]:
    """Return what the index's chain gives *text* in query mode, each raw token's analysis kept:
    (term, whether a query drops it as a function word, startchar, endchar) per token."""
    tokens = []
    cache = _terms_cache()
    for match in _TOKEN.finditer(text):
        raw = match.group()
        analysed = cache.get(raw)
        if analysed is None:
            analysed = _query_term(raw)
        tokens.append((*analysed, *match.span()))
    return tokens


def _query_term(raw: str) -> tuple[str, bool]:
    """Return the chain's query-mode term of the raw token *raw*, and whether it is a dropped function word."""
    text = normalize(raw)  # the chain's steps in its order (index/analysis.py): QueryStopFilter reads this
    stop = text.lower() in query_stop_words() and not (text.isupper() and len(text) > 1)
    stem = STEM_FUNCTIONS[query_language()]
    return remember(_terms_cache(), raw, (stem(text.lower().translate(CHARSET_MAP)), stop), QUERY_TERM_CACHE)


def _is_text_chain(analyzer: Analyzer) -> bool:
    """Return whether *analyzer* is ``index.analysis.text_analyzer()``'s chain (a snapshot's is, unpickled)
    of the language queries are read in (``searching_in``): else its own run reads them."""
    known = _CHAINS.get(id(analyzer))
    if known is None or known[0] is not analyzer:
        items = getattr(analyzer, "items", ())
        same = [type(item) for item in items] == _CHAIN_TYPES and (
            items[0].expression.pattern == TOKEN_PATTERN
            and not items[0].gaps
            and items[5].charmap == CHARSET_MAP
            and not items[6].ignore
        )
        language = language_of(items[6].stemfn) if same else None
        known = remember(_CHAINS, id(analyzer), (analyzer, language), 16)  # the analyzer is kept, so its id stays its own
    return known[1] == query_language()


def _concept(text: str, words: tuple[str, ...], span: tuple[int, int] | None, synonyms: Synonyms) -> Concept:
    """Return the concept for typed *words* (analysed), with the variants of their synonym group."""
    alternatives, loose = _ways(words, synonyms)
    return Concept(
        text=text,
        alternatives=alternatives,
        loose=loose,
        span=span,
        word=words[0] if len(words) == 1 else None,
    )


def _ways(words: tuple[str, ...], synonyms: Synonyms) -> tuple[tuple[Alternative, ...], tuple[wq.Query, ...]]:
    """Return the alternatives and the loose single words of the concept of *words*, made once per
    synonym set (a snapshot's) and kept: an unseen query is made of words typed before."""
    global _MADE
    owner, made = _MADE
    if owner is not synonyms:
        made = {}
        _MADE = (synonyms, made)
    found = made.get(words)
    if found is None:
        alternatives = [Alternative("exact", words, _words_query(words, phrase=len(words) > 1))]
        alternatives.extend(
            Alternative("place", alt, _words_query(alt, PLACE_WEIGHT)) if synonyms.place_in(words, alt)
            else Alternative("synonym", alt, _words_query(alt, SYNONYM_WEIGHT))
            for alt in synonyms.alternatives(words)
        )
        # (A letter or a number alone is no loose word: "e-mail" listed "DALL·E" and, at 64k, "mu4e".)
        loose = _hyphenated_loose(words) if len(words) > 1 else ()
        found = remember(made, words, (tuple(alternatives), loose), CONCEPT_CACHE)
    return found


def _synonym_ways(words: tuple[str, ...], synonyms: Synonyms) -> list[Alternative]:
    """Return the alternatives of the synonyms of *words* (analysed): ``_ways``'s, less the words themselves."""
    return [a for a in _ways(words, synonyms)[0] if a.via in SYNONYM_WAYS]


# Words joined by hyphens ("post-training", "gpt-3", "year-over-year"): one thing, written so.
# A number's decimals are of its first word ("4.5-gigawatt" is one, not "4." and "5-gigawatt").
_HYPHENATED = re.compile(r"(?<![\w-])(?<!\d[.,])\w+(?:[.,]\d+)*(?:-\w+)+(?![\w-])")
# The same as the query parser reads it: not a prefix (a star after it), nor inside a longer word, nor
# after a word and a colon: "-topic:compute-deals" is one excluded thing (a filter typed excluded stays
# words), and the minus took "topic" alone, "compute-deals" then required (37 pages, "Missing: stargate").
# Its star, if typed, kept after it: '"data cent*"' is a quoted phrase's prefix, "fine-tun*" the same.
_HYPHENATED_WORD = r"(?<!\w:)(?:(?<![\w-])|(?<=[+-])(?<![\w-][+-]))(?P<text>\w+(?:-\w+)+)\*?(?![\w*-])"  # "+"/"-" before
# A word, a colon and a quoted phrase after a minus, NOT or ANDNOT (a filter typed excluded, which stays
# words: '-entity:"Mistral AI"'): one phrase, excluded whole; the minus took "entity" alone, and "Mistral
# AI" was then a phrase to find, the opposite of what was asked ('stargate ANDNOT entity:"OpenAI"' the
# same: "entity" excluded, "OpenAI" required).
_EXCLUDED_FIELD_PHRASE = r'(?:(?<=-)|(?<=\bNOT\s)|(?<=\bANDNOT\s))(?P<text>\w+[:：]"[^"]+")'
# Chinese characters (and hiragana) typed side by side: each is a word of the index (index.analysis.WORD),
# and the run is what was written, so it is searched as their phrase: "北京" is not 北 and 京 anywhere.
_IDEOGRAPH_RUN = re.compile("[" + IDEOGRAPHS + "]{2,}")


def _plain_concepts(text: str, units: list[_Unit], synonyms: Synonyms, analyzer: Analyzer) -> list[Concept]:
    concepts: list[Concept] = []
    joined = [m.span() for m in _HYPHENATED.finditer(text)] if "-" in text else []
    if not text.isascii():
        joined += [m.span() for m in _IDEOGRAPH_RUN.finditer(text)]
    i = 0
    while i < len(units):
        unit = units[i]
        if unit.prefix:
            concepts.append(_prefix_concept(text, (unit.start, unit.end + 1), unit.word, unit.prefix))
            i += 1
            continue
        within = next((hyphen for hyphen in joined if hyphen[0] <= unit.start < hyphen[1]), None)
        if within is not None and (hyphenated := _hyphenated(text, within, units, i, synonyms, analyzer)):
            concepts.append(hyphenated[0])
            i += hyphenated[1]
            continue
        run = 1
        while i + run < len(units) and run < synonyms.longest and not units[i + run].prefix:
            run += 1
        for k in range(run, 0, -1):
            words = tuple(u.word for u in units[i : i + k])
            if k > 1 and not synonyms.alternatives(words):
                words = _synonym_in_singular(text, units[i : i + k], words, synonyms)
            if k == 1 or synonyms.alternatives(words):
                span = (unit.start, units[i + k - 1].end)
                concepts.append(_concept(text[span[0] : span[1]], words, span, synonyms))
                i += k
                break
    return concepts


def _synonym_in_singular(text: str, units: Sequence[_Unit], words: tuple[str, ...], synonyms: Synonyms) -> tuple[str, ...]:
    """Return *words* (of *units*, typed in *text*) with each lower-case acronym plural in its singular
    when that makes them a synonym's variant, else *words*: a group's "multiple GPUs" is analysed
    ``("multipl", "gpu")``, and "multiple gpus" typed so is ``("multipl", "gpus")`` (the stemmer keeps
    the "s" after a vowel), as "gpus" alone is searched as "gpu" too (``_acronym_singular``)."""
    singular = tuple(
        (_acronym_singular(text[u.start : u.end]) or word) if word.endswith("s") else word for u, word in zip(units, words)
    )
    return singular if singular != words and synonyms.alternatives(singular) else words


def _hyphenated(
    text: str, span: tuple[int, int], units: list[_Unit], at: int, synonyms: Synonyms, analyzer: Analyzer
) -> tuple[Concept, int] | None:
    """Return the concept of the words joined by hyphens at *span* (``units[at]`` their first typed
    word) and how many units it takes, or None when it is one word.  The words are a phrase,
    function words kept ("year over year"), as if quoted, and each of its words counts for any-words
    at the loose weight: "post-training" finds the sections that say it before pages of a blog "post"
    about "training" (a QA pass: 13th).  A synonym's variant is that phrase or one of its group's
    variants ("fine-tuning" is also "finetuning"; "multi-gpu" also "multiple GPUs", and no longer a
    page of "multi-year" deals and "GPUs" as written)."""
    inside = [u for u in units[at:] if u.end <= span[1]]
    words = tuple(u.word for u in inside)
    if not inside or any(u.prefix for u in inside):
        # (A prefix among them, "python3-dj*": each word as typed, the prefix a prefix; as a phrase the
        # "*" was dropped and "dj" looked for whole, a QA pass.)
        return None
    made = hyphenated_query(text[span[0] : span[1]], analyzer, span[0])
    if made is None:
        return None
    phrase, query = made
    others = _synonym_in_singular(text, inside, words, synonyms) if len(inside) > 1 else words
    concept = Concept(
        text=text[span[0] : span[1]],
        alternatives=(Alternative("exact", phrase, query), *_synonym_ways(others, synonyms)),
        loose=_hyphenated_loose(words),
        span=span,
    )
    return concept, len(inside)


def _hyphenated_loose(words: Sequence[str]) -> tuple[wq.Query, ...]:
    """Return the loose words of a hyphenated word's *words* (analysed): each counts for any-words.  A
    number or a letter alone is none: "gpt-3" found six pages by the "3" of "Q3" and "Trainium3" (a QA
    pass), "claude-3" the "3" of "GPT-3"."""
    return tuple(word_query(w) for w in dict.fromkeys(words) if len(w) > 1 and not w.isdigit())


def hyphenated_query(text: str, analyzer: Analyzer, offset: int = 0) -> tuple[tuple[str, ...], wq.Query] | None:
    """Return the analysed words of *text*, a hyphenated word typed at *offset* of the query, and the
    query that finds them side by side as it is searched (function words kept: "on-line"), or None for
    fewer than two words.  The suggestions ask it of a word they would glue after a hyphen."""
    found = _phrase_words(text, analyzer)
    if len(found) < 2:
        return None
    phrase = tuple(term for term, _, _ in found)
    ranges = [(offset + start, offset + end) for _, start, end in found]  # where each word was typed
    return phrase, wq.Or([wq.Phrase(f, list(phrase), slop=1, char_ranges=ranges) for f in SEARCH_FIELDS])


def _quoted_phrase(text: str, schema: Schema) -> wq.Query | None:
    """Return what Whoosh's parser makes of *text* when it is one quoted phrase of two words or more
    in every searched field, without the parser (four fifths of such a query's building); else None.

    The parser's ``PhrasePlugin`` analyses the quoted text with each field's analyzer in query mode
    into a ``Phrase`` (slop 1, the words' characters counted from after the quote), one per field,
    joined by an ``Or``; the query is then normalised (tests/test_query.py compares the two).
    """
    quoted = _QUOTED.fullmatch(text)
    if quoted is None:
        return None
    phrases = []
    for fieldname in SEARCH_FIELDS:
        analyzer = schema[fieldname].analyzer
        found = _phrase_words(quoted.group(1), analyzer)
        if len(found) < 2:  # a one-word phrase is a term, none is no query: the parser's own rules
            return None
        words = [term for term, _, _ in found]
        ranges = [(start + 1, end + 1) for _, start, end in found]  # counted from the text, after the quote
        phrases.append(wq.Phrase(fieldname, words, slop=1, boost=1.0, char_ranges=ranges))
    return wq.Or(phrases)  # what normalize() would make of it: two phrases in different fields


def _word_unit(node: wq.Query) -> str | None:
    """Return the word of a parsed ``Or([Term('title', w), Term('body', w)])``, else None."""
    leaves = [node] if isinstance(node, wq.Term) else list(node.children()) if isinstance(node, wq.Or) else []
    if not leaves or not all(isinstance(leaf, wq.Term) and leaf.fieldname in SEARCH_FIELDS for leaf in leaves):
        return None
    texts = {leaf.text for leaf in leaves}
    return texts.pop() if len(texts) == 1 and isinstance(leaves[0].text, str) else None


def _split(node: wq.Query) -> tuple[list[wq.Query], list[wq.Query]]:
    """Return the top-level required parts and excluded parts of a parsed query."""
    if isinstance(node, wq.AndNot):
        positives, negatives = _split(node.a)
        return positives, [*negatives, node.b]
    if isinstance(node, wq.Not):
        return [], [node.query]
    if isinstance(node, wq.AndMaybe):  # "nvidia +amd": amd required, nvidia wanted (``required`` says which)
        (p1, n1), (p2, n2) = _split(node.a), _split(node.b)
        return [*p1, *p2], [*n1, *n2]
    if isinstance(node, wq.And):
        positives, negatives = [], []
        for child in node.children():
            # A nested And is flattened: "x (a b)" asks for x, a and b, three concepts to cover.
            p, n = _split(child) if isinstance(child, (wq.Not, wq.AndNot, wq.And, wq.AndMaybe)) else ([child], [])
            positives.extend(p)
            negatives.extend(n)
        return positives, negatives
    if node is wq.NullQuery:
        return [], []
    return [node], []


def _typed_span(leaf: wq.Query) -> tuple[int, int] | None:
    """Return where the parser says *leaf* (a term) was typed, if it says."""
    start, end = getattr(leaf, "startchar", None), getattr(leaf, "endchar", None)
    return (start, end) if start is not None and end is not None else None


_LEADING_MARKS = "([{<@\"'“‘«"
_TRAILING_MARKS = ")]}>,;:!?/\"'”’»"


def _word_span(text: str, span: tuple[int, int] | None) -> tuple[int, int] | None:
    """Return *span*, the parser's token of a word, without the marks around the word ("300MW,"
    "mean?" "w/" "@latentspace": said so in "Missing:", and "300MW," read as no amount; a QA pass);
    marks of the word stay ("c++", "U.S.", a prefix's "*")."""
    if span is None:
        return span
    start, end = span
    while start < end - 1 and text[start] in _LEADING_MARKS:
        start += 1
    while end > start + 1 and text[end - 1] in _TRAILING_MARKS:
        end -= 1
    return start, end


def _phrase_concept(text: str, node: wq.Query, first: wq.Query, words: tuple[str, ...], synonyms: Synonyms) -> Concept:
    """Return the concept of *node*, a quoted phrase (*first*: its first field's) or a group that is
    no word, asking for *words*: written as typed, with the phrase's synonyms if it is a variant."""
    alternatives = (Alternative("exact", words, node), *_phrase_synonyms(node, synonyms))
    # Words joined by hyphens, not quoted: each of its words counts for any-words, as in a plain query
    # (``_hyphenated``), so "low-latency -x" lists what "low-latency" lists but x (it listed 1 of 5).
    ranges = getattr(first, "char_ranges", None) if isinstance(first, wq.Phrase) else None
    start, end = (ranges[0][0], ranges[-1][1]) if ranges else (None, None)
    joined = (start is not None and end is not None and text.count('"', 0, start) % 2 == 0
              and "-" in text[start:end] and not any(c.isspace() for c in text[start:end]))
    # (Its function words aside, as a plain query's analysis leaves them out: "us-sited" is not "us".)
    functions = function_terms()
    loose = _hyphenated_loose([w for w in first.words if w not in functions]) if joined else ()
    # Not quoted, as typed ("google/broadcom"; "Missing: broadcom googl" was its sorted stems: a QA pass).
    field = node.subqueries[0] if isinstance(node, wq.Or) and node.subqueries else node  # its first field's
    typed = _typed_phrase(text, first) or _typed_compound(text, [leaf.text for leaf in field.leaves()] if isinstance(field, wq.And) else [])
    return Concept(text=typed or " ".join(words), alternatives=alternatives, prefix=_starred_last(text, first), loose=loose)


def _typed_compound(text: str, terms: Sequence[str]) -> str | None:
    """Return the one place of *text* whose words, joined by marks and no space, analyse to *terms* in
    that order ("google/broadcom" for ``googl``, ``broadcom``), else None."""
    if len(terms) < 2:
        return None
    tokens = [token for token in _query_tokens(text) if not token[1]]
    found = []
    for i in range(len(tokens) - len(terms) + 1):
        run = tokens[i : i + len(terms)]
        typed = text[run[0][2] : run[-1][3]]
        if [token[0] for token in run] == list(terms) and not any(c.isspace() for c in typed):
            found.append(typed)
    return found[0] if len(found) == 1 else None


def _phrase_widened(
    text: str, concept: Concept, vocabulary: Vocabulary, synonyms: Synonyms | None, corrections: list[Correction], each: int
) -> Concept:
    """Return a quoted phrase's concept respelt as the documents write it (``_phrase_respelled``) and,
    typed with a star on its last word ('"data cent*"'), with the phrases that word's words make."""
    widened = _phrase_respelled(text, concept, vocabulary, synonyms, corrections)
    return _widened(widened, vocabulary, synonyms, corrections, each) if concept.prefix else widened


def _phrase_of(concept: Concept) -> wq.Phrase:
    """Return the first field's phrase of a quoted phrase's concept (its words in the order typed)."""
    node = concept.alternatives[0].query
    return node if isinstance(node, wq.Phrase) else next(q for q in node.subqueries if isinstance(q, wq.Phrase))


def _starred_last(text: str, phrase: wq.Query) -> str | None:
    """Return the prefix the last word of a quoted phrase stands for when it was typed with a star
    ('"data cent*"': the phrases "data center", "data centers" …), else None (a word too short to be
    a prefix is itself).  The star was dropped: '"data cent*"' found nothing (a QA pass)."""
    ranges = getattr(phrase, "char_ranges", None) if isinstance(phrase, wq.Phrase) else None
    if not ranges or text[ranges[-1][1] : ranges[-1][1] + 1] != "*" or len(phrase.words) < 2:
        return None
    return _prefix_of(text[ranges[-1][0] : ranges[-1][1]], _FOLDING)


def _asked_from(text: str, positives: Sequence[wq.Query], keep_verb: bool = False) -> int:
    """Return where what *text* asks for starts after a request opening it ("tell me about"), when one
    of the words or phrases it asks for (*positives*) is typed after it; else 0."""
    end = _request_end(text, keep_verb)
    if not end:
        return 0
    spans = (_typed_span(next(iter(node.leaves()), node)) for node in positives)
    return end if any(span is None or span[0] >= end for span in spans) else 0


def _syntax_concepts(text: str, schema: Schema, synonyms: Synonyms, keep_verb: bool = False) -> tuple[list[Concept], list[wq.Query]]:
    parsed = _quoted_phrase(text, schema)
    if parsed is not None:  # one quoted phrase, the same in each field: one concept, made directly
        first = parsed.subqueries[0]
        return [_phrase_concept(text, parsed, first, tuple(sorted(set(first.words))), synonyms)], []
    parsed = _parser(schema).parse(text)
    if parsed is wq.NullQuery and _WORDS.search(text):
        parsed = _parser(schema, keep_stops=True).parse(text)  # nothing but function words: search them
    positives, negatives = _split(parsed)
    concepts = []
    joined = _and_joined(text, positives)
    asked_from = _asked_from(text, positives, keep_verb)
    for i, node in enumerate(positives):
        word = _word_unit(node)
        first = next(iter(node.leaves()), node)
        if word:
            span = _word_span(text, _typed_span(first))
            if span and _compares(text, *span):
                continue  # "fsdp vs deepspeed -zero": the two things compared, as in a plain query
            if span and span[1] <= asked_from and not (i in joined or _plus_marked(text, first)):
                continue  # 'tell me about stargate -michigan': as in a plain query
            concepts.append(_prefixed(text, _concept(text[span[0] : span[1]] if span else word, (word,), span, synonyms), schema))
        elif members := _or_members(text, node, synonyms, schema):
            words = tuple(sorted(_leaf_terms(node)))
            typed = text[members[0].span[0] : members[-1].span[1]] if members[0].span and members[-1].span else " OR ".join(words)
            alternatives = (Alternative("exact", words, node), *(a for m in members for a in m.alternatives[1:]))
            concepts.append(Concept(text=typed, alternatives=alternatives, members=members))
        else:
            concepts.append(_phrase_concept(text, node, first, tuple(sorted(_leaf_terms(node))), synonyms))
        if i in joined or _plus_marked(text, first):
            concepts[-1] = replace(concepts[-1], required=True)
    asked = _asked_words(concepts) if negatives else frozenset()
    return concepts, [_excluded(text, node, synonyms, asked) for node in negatives]


def _phrase_synonyms(node: wq.Query, synonyms: Synonyms) -> list[Alternative]:
    """Return the synonyms of a quoted phrase that is a variant of a synonym group (``"data centre"``:
    "data center", "datacenter"; its function words aside, as the group's variants were analysed)."""
    leaves = node.subqueries if type(node) is wq.Or else (node,)
    words = leaves[0].words if leaves and type(leaves[0]) is wq.Phrase else None
    if not words or any(type(leaf) is not wq.Phrase or leaf.words != words for leaf in leaves):
        return []
    functions = function_terms()
    key = tuple(w for w in words if w not in functions)
    return _synonym_ways(key, synonyms) if synonyms.alternatives(key) else []


def _and_joined(text: str, nodes: Sequence[wq.Query]) -> set[int]:
    """Return the indexes of *nodes* that an AND joins to the one typed beside them: "nvidia AND amd
    gpu" requires NVIDIA and AMD, and ranks by GPU as plain words rank (as Lucene reads AND).  An AND
    inside quotes is a word of the phrase."""
    if _AND.search(text) is None:
        return set()
    placed = sorted((extent, i) for i, node in enumerate(nodes) if (extent := _extent(node)) is not None)
    joined: set[int] = set()
    for ((_, end), i), ((start, _), j) in zip(placed, placed[1:]):
        if _AND_GAP.fullmatch(text, end, start):
            joined.update((i, j))
    return joined


def _extent(node: wq.Query) -> tuple[int, int] | None:
    """Return where *node* was typed (its first and last characters' offsets), if the parser says."""
    spans = [span for leaf in node.leaves() if (span := _leaf_span(leaf)) is not None]
    return (min(s for s, _ in spans), max(e for _, e in spans)) if spans else None


def _leaf_span(leaf: wq.Query) -> tuple[int, int] | None:
    """Return where the words of *leaf*, a term or a quoted phrase (inside its quotes), were typed."""
    ranges = getattr(leaf, "char_ranges", None)
    if ranges:
        return (ranges[0][0], ranges[-1][1]) if None not in (ranges[0][0], ranges[-1][1]) else None
    return _typed_span(leaf)


def _plus_marked(text: str, leaf: wq.Query) -> bool:
    """Return whether *leaf* (a word, or a quoted phrase's first word), or the group it opens, was
    typed after a "+" ("+amd", '+"data center"', "+(michigan OR texas)")."""
    span = _leaf_span(leaf)
    if span is None:
        return False
    before = text[: span[0]].rstrip('( "')
    return before.endswith("+") and (len(before) == 1 or not (before[-2].isalnum() or before[-2] == "_"))


def _prefixed(text: str, concept: Concept, schema: Schema | None) -> Concept:
    """Return *concept* (one typed word) as the prefix it is when typed with a star ("nvid*" in
    "nvid* OR amd", "+nvid*"): the parser reads the word alone, so it was searched as the stem "nvid"."""
    span, word = concept.span, concept.word
    if schema is None or span is None or word is None or not text[span[0] : span[1]].endswith("*"):
        return concept
    prefix = _prefix_of(text[span[0] : span[1] - 1], schema[SEARCH_FIELDS[0]].analyzer)
    return concept if prefix is None else _prefix_concept(text, span, word, prefix)


def _or_members(text: str, node: wq.Query, synonyms: Synonyms, schema: Schema | None = None) -> tuple[Concept, ...]:
    """Return the words and quoted phrases of an OR group ("gpus OR tpus", "gpus OR \"data center\"",
    which the parser makes one ``Or`` of each in each field) as concepts of their own, else ()."""
    if not isinstance(node, wq.Or):
        return ()
    leaves: dict[object, list[wq.Query]] = {}
    for leaf in node.children():
        if isinstance(leaf, wq.Term) and leaf.fieldname in SEARCH_FIELDS and isinstance(leaf.text, str):
            leaves.setdefault(leaf.text, []).append(leaf)
        elif isinstance(leaf, wq.Phrase) and leaf.fieldname in SEARCH_FIELDS:
            leaves.setdefault(tuple(leaf.words), []).append(leaf)
        else:
            return ()
    if len(leaves) < 2:
        return ()
    members = []
    for key, found in leaves.items():
        if isinstance(key, tuple):  # a quoted phrase: as typed, no correction
            phrase = wq.Or(found) if len(found) > 1 else found[0]
            members.append(_phrase_concept(text, phrase, found[0], tuple(sorted(set(key))), synonyms))
            continue
        span = _typed_span(found[0])
        members.append(_prefixed(text, _concept(text[span[0] : span[1]] if span else str(key), (str(key),), span, synonyms), schema))
    return tuple(members)


def _excluded(text: str, node: wq.Query, synonyms: Synonyms, asked: frozenset[str] = frozenset()) -> wq.Query:
    """Return what excluding *node* leaves out: a word (or each word of an OR group) with its
    synonyms, its other spelling and, for a lower-case acronym plural, its singular, as searching for
    it finds them ("-britain" leaves out the page that says "UK", "-gpus" the pages on GPUs).  When
    one of its synonyms is a word the query asks for (*asked*: ``_asked_words``), only the word itself
    is left out: "gpus -\"graphics processor\"" asks for the GPU pages that do not write it so."""
    word = _word_unit(node)
    if word is not None:
        span = _typed_span(next(iter(node.leaves()), node))
        words = [_concept(text[span[0] : span[1]] if span else word, (word,), None, synonyms)]
    else:
        words = list(_or_members(text, node, synonyms))
    if not words:  # a quoted phrase: with its synonyms, if it is a variant ('-"graphics processor"')
        alternatives = _phrase_synonyms(node, synonyms)
        if not alternatives or not asked.isdisjoint(w for a in alternatives for w in a.words):
            return node
        return wq.Or([node, *(a.query for a in alternatives)])
    alternatives = []
    for concept in words:
        alternatives += concept.alternatives
        for how, other in _written_otherwise(concept):
            alternatives += _same_word(how, other, synonyms)
    if not asked.isdisjoint(w for a in alternatives if a.via in SYNONYM_WAYS for w in a.words):
        # Another way of writing what is asked: the word as typed and written otherwise ("gpus" as
        # GPU), not its synonyms.
        alternatives = [a for a in alternatives if a.via not in SYNONYM_WAYS]
    return node if len(alternatives) == 1 else wq.Or([a.query for a in alternatives])


def excluded_at(text: str, start: int) -> bool:
    """Return whether the word typed at *start* in *text* is one the query excludes ("-nvdia", "NOT nvdia")."""
    return any(match.start(1) == start for match in _EXCLUDED_WORD.finditer(text))


def _excluded_words(text: str, limit: int) -> Iterator[tuple[re.Match[str], tuple[int, int] | None]]:
    """Yield each word *text* excludes outside a quoted phrase, of the first *limit*: its match and
    where the word stands ("-nvdia's": "nvdia"), None for no single word (a prefix, a hyphenated word)."""
    for match in islice(_EXCLUDED_WORD.finditer(text), limit):
        if text.count('"', 0, match.start()) % 2:
            continue  # inside a quoted phrase: a word of it
        if match.group(1)[-1] in ":：" and text.startswith('"', match.end(1)):
            continue  # a filter's name before its quoted value: excluded with it, as a phrase (``_EXCLUDED_PHRASE``)
        word_end = _WORD_THEN.match(match.group(1))
        yield match, None if word_end is None else (match.start(1), match.start(1) + word_end.end(1))


def excluded_words(text: str, limit: int = MAX_EXCLUDED_CHECKED, whole: bool = False) -> list[str]:
    """Return the single words *text* excludes, as typed ("-Amazon", "NOT amazon's": "Amazon", "amazon");
    *whole*: each word excluded as typed whole, hyphenated too ("-chromium-driver", a package's name)."""
    if not _SYNTAX.search(text):
        return []
    if whole:
        return [match.group(1).rstrip(".,;:!?") for match, _span in _excluded_words(text, limit)]
    return [text[span[0] : span[1]] for _match, span in _excluded_words(text, limit) if span is not None]


def excluded_in_vain(
    text: str, synonyms: Synonyms, contains: Callable[[str], bool], limit: int = MAX_EXCLUDED_CHECKED,
    asked: frozenset[str] = frozenset(),
) -> list[tuple[tuple[int, int], str | None]]:
    """Return each single word *text* excludes ("-nvdia", "NOT nvdia", "-nvdia's") that leaves out
    nothing: no word it stands for (itself, its synonyms, its other spelling or singular: what
    ``_excluded`` leaves out) is one the index holds (*contains*).  Each as (where the word was
    typed, analysed), of the first *limit* words excluded (a word excluded twice: both places); then
    each quoted phrase excluded with such a word (``-"nvdia gpus"``: it can be in no page), as (where
    it was typed, with its quotes, None), and each hyphenated word so (``-fine-tunning``: searched as
    its words side by side), unless the index holds a synonym of the phrase that the query does not ask
    for (*asked*: every word its concepts stand for), which excluding it leaves out."""
    if not _SYNTAX.search(text):
        return []
    found: dict[str, list[tuple[int, int]]] = {}
    vain: set[str] = set()

    def unknown(typed: str, word: str) -> bool:
        concept = _concept(typed, (word,), None, synonyms)
        words = {w for a in concept.alternatives for w in a.words} | {other for _, other in _written_otherwise(concept)}
        return not any(map(contains, words))

    def held_nowhere(typed: str) -> bool:  # words side by side, one of which no page has, nor a synonym of them all
        tokens = _query_tokens(typed)
        if not any(not stop and unknown(typed[start:end], term) for term, stop, start, end in tokens):
            return False
        # '-"graphics card"' leaves out the pages on GPUs, its synonym, though no page has "graphics";
        # unless the query asks for one of them (*asked*), as ``_excluded`` then leaves out the phrase alone
        functions = function_terms()
        others = synonyms.alternatives(tuple(term for term, _stop, _start, _end in tokens if term not in functions))
        return not asked.isdisjoint(chain.from_iterable(others)) or not any(all(map(contains, words)) for words in others)

    compounds: list[tuple[tuple[int, int], str | None]] = []
    for match, span in _excluded_words(text, limit):
        if span is None:  # a prefix ("nvdia*"): not one word; a hyphenated word ("fine-tunning"): as a phrase
            if "*" not in match.group(1) and held_nowhere(match.group(1)):
                compounds.append((match.span(1), None))
            continue
        word = _single_term(text[span[0] : span[1]])
        if word is None:  # a function word
            continue
        if word not in found:
            found[word] = []
            if unknown(text[span[0] : span[1]], word):
                vain.add(word)
        found[word].append(span)
    phrases: list[tuple[tuple[int, int], str | None]] = [
        (match.span(1), None) for match in islice(_EXCLUDED_PHRASE.finditer(text), limit)
        if not text.count('"', 0, match.start()) % 2  # the quote opens a phrase
        and held_nowhere(match.group(1))
    ]
    return [*((span, word) for word, spans in found.items() if word in vain for span in spans), *compounds, *phrases]


def _asked_words(concepts: Sequence[Concept]) -> frozenset[str]:
    """Return every word *concepts* ask for, the ways of writing them ``expand`` may add included
    (the singular of "gpus", the other spelling of "colour")."""
    words: set[str] = set()
    for concept in concepts:
        for typed in concept.members or (concept,):
            words.update(w for a in typed.alternatives for w in a.words)
            words.update(other for _, other in _written_otherwise(typed))
    return frozenset(words)


def _written_otherwise(concept: Concept) -> Iterator[tuple[str, str]]:
    """Yield (how, word) for each other way the word *concept* is, as typed, may be written: its
    British or American spelling, the singular of a lower-case acronym plural (``expand`` adds them
    when the index has them)."""
    if concept.word is None:
        return
    ways = (
        ("spelling", _other_spelling(concept.text)),
        ("singular", _acronym_singular(concept.text)),
        ("plural", _model_plural(concept.text)),
    )
    for how, other in ways:
        if other and other != concept.word:
            yield how, other


def _typed_phrase(text: str, node: wq.Query) -> str | None:
    """Return a quoted phrase's words as they were typed ("data center", not its sorted stems)."""
    ranges = getattr(node, "char_ranges", None) if isinstance(node, wq.Phrase) else None
    return text[ranges[0][0] : ranges[-1][1]] if ranges else None


def _leaf_terms(q: wq.Query) -> set[str]:
    """Return the analysed words *q* looks for, leaving out excluded ones."""
    terms: set[str] = set()

    def walk(node: wq.Query) -> None:
        if isinstance(node, wq.AndNot):
            walk(node.a)
        elif isinstance(node, wq.Not):
            return
        elif node.is_leaf():
            for fieldname, text in node.iter_all_terms(phrases=True):
                if fieldname in SEARCH_FIELDS:
                    terms.add(text.decode("utf-8") if isinstance(text, bytes) else text)
        else:
            for child in node.children():
                walk(child)

    walk(q)
    return terms


def assemble(
    text: str,
    concepts: Iterable[Concept],
    excluded: Sequence[wq.Query] | wq.Query | None = None,
    plain: bool = False,
    corrections: tuple[Correction, ...] = (),
    typed: tuple[str, ...] | None = None,
) -> ParsedQuery:
    """Return the ParsedQuery for *concepts*, less the documents matching *excluded*."""
    concepts = tuple(concepts)
    if isinstance(excluded, (list, tuple)):
        excluded = (excluded[0] if len(excluded) == 1 else wq.Or(list(excluded))) if excluded else None
    if not concepts and excluded is not None:
        concepts = (Concept(text="", alternatives=(Alternative("exact", (), wq.Every()),)),)
    if not concepts:
        return ParsedQuery(text, wq.NullQuery, wq.NullQuery, frozenset(), plain, typed=typed)
    all_words = wq.And([c.query for c in concepts]) if len(concepts) > 1 else concepts[0].query
    any_words = wq.Or([c.any_query for c in concepts]) if len(concepts) > 1 else concepts[0].any_query
    if excluded is not None:
        all_words, any_words = wq.AndNot(all_words, excluded), wq.AndNot(any_words, excluded)
    terms = frozenset(chain.from_iterable(a.words for c in concepts for a in c.alternatives))
    # Marked only where they stand whole: a multi-word synonym's words, and a quoted phrase's words
    # ('"openai stargate"' marked "OpenAI … Stargate" in a title the phrase is not in; "and" of
    # "samsung and sk" was marked in every sentence of the page).
    together = [(a.words, _TOGETHER[a.via]) for c in concepts for a in c.alternatives if a.via in _TOGETHER and len(a.words) > 1]
    quoted = [(c, phrase) for c in concepts if c.word is None for phrase in _quoted_words(c) if len(phrase[0]) > 1]
    only_together: frozenset[str] = frozenset()
    quoted_words: frozenset[str] = frozenset()
    if together or quoted:  # words some other alternative brings are marked wherever they stand
        phrased = {id(c) for c, _ in quoted}
        alone: set[str] = set()
        for c in concepts:
            its_phrases = {id(p) for p in _phrased(c)} if id(c) in phrased else set()
            for a in c.alternatives:
                if a.via in _TOGETHER and len(a.words) > 1:
                    continue
                if id(a) in its_phrases:
                    continue
                alone.update(a.words)
        together += [phrase for _, phrase in quoted]
        only_together = frozenset(w for words, _ in together for w in words) - alone
        # (A Chinese character is no word of its own to mark: 京 of "東京" is not marked in "北京".)
        functions = function_terms()
        quoted_words = frozenset(w for _, (words, _) in quoted for w in words if w not in functions and not IDEOGRAPH.fullmatch(w)) & only_together
    together = list(dict.fromkeys(together))
    return ParsedQuery(
        text=text,
        all_words=all_words,
        any_words=any_words,
        terms=terms,
        plain=plain,
        concepts=concepts,
        excluded=excluded,
        corrections=corrections,
        typed=typed,
        together=tuple(words for words, _ in together) if only_together else (),
        together_slops=tuple(slop for _, slop in together) if only_together else (),
        only_together=only_together,
        quoted_words=quoted_words,
    )


# The alternatives whose words are marked only where they stand together, with how far apart they
# may be: a multi-word synonym's (as its query finds them), a number and its unit ("4.5 GW": side by side).
_TOGETHER = {"synonym": VARIANT_SLOP, "place": VARIANT_SLOP, "apart": 1}


def _quoted_words(concept: Concept) -> Iterator[tuple[tuple[str, ...], int]]:
    """Yield the words, in order, of each quoted phrase *concept* asks for, with its slop (1: side by
    side): as typed, and each phrase its starred word stands for ('"data cent*"': "data center", but
    not "central" alone, which was marked wherever it stood: a QA pass)."""
    for alternative in _phrased(concept):
        yield from dict.fromkeys((tuple(leaf.words), leaf.slop) for leaf in alternative.query.subqueries if type(leaf) is wq.Phrase)


def _phrased(concept: Concept) -> list[Alternative]:
    """Return the alternatives of *concept* that are its quoted phrase: as typed, and with its starred word's words."""
    first = concept.alternatives[0] if concept.alternatives else None
    if first is None or first.via != "exact" or type(first.query) is not wq.Or:
        return []
    return [first, *(a for a in concept.alternatives[1:] if a.via == "prefix" and type(a.query) is wq.Or and len(a.words) > 1)]


def asked_text(text: str) -> str:
    """Return the words of *text* that ask for something, as typed: without quotes, parentheses,
    operators and the words it excludes.  What a query means is made of these: a quote mark is no
    word, and ``gpu -nvidia`` does not ask for documents about NVIDIA."""
    if not _SYNTAX.search(text):
        return text
    return " ".join(_MARKS.sub(" ", _EXCLUDED.sub(" ", text)).split())


def _exclusions_last(text: str) -> str:
    """Return *text* with what it excludes inside a group moved to its end ("gpus OR (tpus -nvidia)"
    is "gpus OR (tpus) -nvidia"); *text* itself when it excludes nothing inside one."""
    inside = [m for m in _EXCLUDED.finditer(text) if text.count("(", 0, m.start()) > text.count(")", 0, m.start())]
    if not inside:
        return text
    kept, pos = [], 0
    for m in inside:
        kept.append(text[pos : m.start()])
        pos = m.end()
    return " ".join([*"".join([*kept, text[pos:]]).split(), *(m.group() for m in inside)])


def without_exclusions(text: str) -> str | None:
    """Return *text* without the words it excludes ("stargate -openai": "stargate"), or None when
    it excludes nothing or asks for nothing else.  A filter typed excluded goes whole, its quoted value
    with it: '-entity:"Mistral AI" stargate' offered '"Mistral AI" stargate', the value excluded then
    asked for (curly, 'AI” stargate').  Read with its marks as the parser reads them (``typed_marks``,
    one character for one), and cut from *text* as typed."""
    marked = typed_marks(text) if not text.isascii() else text
    if not _SYNTAX.search(marked) or not _EXCLUDED.search(marked):
        return None
    kept, at = [], 0
    for match in _EXCLUDED.finditer(marked):
        kept.append(text[at : match.start()])
        at = match.end()
    kept.append(text[at:])
    kept_text = _DANGLING.sub("", _GROUP_BLANKS.sub("", " ".join(" ".join(kept).split())))  # "(gpu )": "(gpu)"
    return kept_text if asked_text(typed_marks(kept_text)) else None


def _as_meant(text: str) -> str:
    """Return *text* without operators that join nothing (``trainium AND``, ``OR gpu``), with an
    unclosed quote closed at the end, and with a query that only excludes (``-openai``) asking for
    everything else, as ``NOT openai`` does.
    An operator typed alone (``AND``) stays: it is then the only word there is to search."""
    trimmed = " ".join(_EMPTY_GROUP.sub(" ", text).split()) or text  # '+""', "()": nothing asked
    trimmed = _DANGLING.sub("", trimmed) or trimmed
    # A "+" first in an excluded group requires nothing ("-(+stargate)" is "-(stargate)"): the parser
    # choked on it and the text was searched as plain words, the Stargate pages found (a QA pass).
    trimmed = _PLUS_EXCLUDED.sub(r"\1", trimmed)
    if _REPEATED.search(trimmed) or _DOUBLE_NOT.search(trimmed):  # not inside quotes
        # "stargate AND AND michigan" is the AND (the second was a word), "a ANDNOT ANDNOT b" the
        # ANDNOT, "NOT NOT michigan" michigan: the parser choked on the last two, and they were searched
        # as words, "NOT" and "ANDNOT" among them (a QA pass).
        trimmed = '"'.join(_DOUBLE_NOT.sub("", _REPEATED.sub(r"\1", part)) if i % 2 == 0 else part
                           for i, part in enumerate(trimmed.split('"')))
    if trimmed.count('"') % 2:  # a phrase still being typed ('"data center'): closed where the text ends
        trimmed += '"'
    if _EXCLUDED.search(trimmed) and not asked_text(trimmed):
        trimmed = re.sub(_MINUS, "NOT ", trimmed)
    return trimmed


def build_query(text: str, schema: Schema, synonyms: Synonyms | None = None, keep_verb: bool = False) -> ParsedQuery:
    """Return the all-words and any-words queries for *text*; never raises on odd syntax.  With
    *keep_verb*, a verb opening it alone is a word of it (``bare_request``)."""
    synonyms = synonyms or Synonyms.empty()
    analyzer = schema[SEARCH_FIELDS[0]].analyzer
    plain = bool(_SYNTAX.search(text))  # syntax the parser chokes on is searched as plain words
    if plain:
        text = _as_meant(text)
        # An exclusion inside a group ("gpus OR (tpus -nvidia)", which Whoosh's parser cannot make, or
        # "(tpus NOT nvidia)", which makes the group no words') excludes from the whole query.
        for tried in dict.fromkeys((_exclusions_last(text), text)):
            try:
                concepts, excluded = _syntax_concepts(tried, schema, synonyms, keep_verb)
                return assemble(tried, concepts, excluded)
            except Exception:  # noqa: BLE001 - Whoosh's parser raises assorted internal errors on odd syntax
                pass
    # Syntax the parser choked on is searched as its words, its operators aside (they were words: "Missing: ANDNOT")
    words = _OPERATOR_WORD.sub(lambda m: " " * len(m.group()), text) if plain else text
    units = _units(words if _WORDS.search(words) else text, analyzer, keep_verb)
    return assemble(text, _plain_concepts(text, units, synonyms, analyzer), plain=plain, typed=tuple(u.word for u in units))


def expand(parsed: ParsedQuery, vocabulary: Vocabulary, synonyms: Synonyms | None = None) -> ParsedQuery:
    """Return *parsed* with what an unknown word may stand for added: two typed words the index has as
    one ("fluid stack": Fluidstack), the other spelling of a British or American word or the singular
    of an acronym typed in lower case ("gpus": GPU), with that word's *synonyms*; close spellings;
    and the words of prefixes."""
    joined, corrections = _joined(parsed.text, parsed.concepts, vocabulary)
    joined = _amounts(parsed.text, joined, vocabulary, synonyms)
    prefixes = sum(1 for concept in parsed.typed_concepts() if concept.prefix)
    # A word the index lacks is tried as two in a short query only: each is a phrase to match, and 32
    # such words took 538 ms at 64k against 82 untried (``python -m bench.run_together``).
    split = len(parsed.concepts) <= SPLIT_MAX_WORDS
    each = min(PREFIX_LIMIT, max(2, PREFIX_TOTAL // prefixes)) if prefixes else PREFIX_LIMIT
    # A phrase ending in a star is a phrase to match for each word its prefix stands for, and phrases
    # of common words cost most: 16 such ('"of the ma*" …', 4 words each) took 2.5 s at 64k.  They
    # share PHRASE_PREFIX_TOTAL words (a QA pass).
    starred = sum(1 for concept in parsed.typed_concepts() if concept.prefix and concept.word is None)
    each_phrase = min(each, max(1, PHRASE_PREFIX_TOTAL // starred)) if starred else each
    concepts = []
    changed = len(joined) != len(parsed.concepts)
    for at, concept in enumerate(joined):
        if concept.members:  # an OR group: each of its words as if typed alone, each phrase as if quoted alone
            members = tuple(
                _phrase_widened(parsed.text, m, vocabulary, synonyms, corrections, each_phrase) if m.word is None
                else _widened(m, vocabulary, synonyms, corrections, each)
                for m in concept.members
            )
            widened = concept
            if any(m is not o for m, o in zip(members, concept.members)):
                extra = (a for m in members for a in m.alternatives[1:])
                widened = replace(concept, alternatives=(concept.alternatives[0], *extra), members=members)
        elif concept.word is None:  # a quoted phrase (or a group that is no word)
            widened = _phrase_widened(parsed.text, concept, vocabulary, synonyms, corrections, each_phrase)
            if concept.span and _HYPHENATED.fullmatch(concept.text) and (word := _single_term(concept.text.replace("-", ""))) and vocabulary.contains(word):
                # Also as one word: "network-manager" is the "NetworkManager" of the pages; and when
                # no page has one of its words ("fluid-stack"), only as one word, said as "fluid stack" is.
                one = Alternative("joined", (word,), word_query(word, SYNONYM_WEIGHT))
                listed = any(a.words == (word,) for a in concept.alternatives)  # its synonym group's variant
                functions = function_terms()
                if all(vocabulary.contains(w) for w in concept.alternatives[0].words if w not in functions):
                    widened = widened if listed else replace(widened, alternatives=(*widened.alternatives, one))
                elif listed:
                    # "pre-training" is listed with "pretraining": searched as that, as "fluid-stack" is
                    # as "fluidstack", but no correction ("Including results for pretraining" called a
                    # spelling the synonym list accepts a typo).
                    widened = replace(widened, loose=())
                else:
                    corrections[:] = [c for c in corrections if not (c.span and concept.span[0] <= c.span[0] < concept.span[1])]
                    widened = replace(concept, alternatives=(concept.alternatives[0], one), loose=())
                    corrections.append(Correction(concept.span, concept.text, word, 1))
            if units := _units_written_on(concept, synonyms, _after_a_dollar(parsed.text, concept)):
                # An amount, typed hyphenated too ("10-gigawatt"): no loose word ("gigawatt" alone put
                # AMD's 6 GW deal second; a QA pass).
                widened = replace(_summed(widened, units), loose=())
        else:
            beside = (joined[at - 1].word if at else None, joined[at + 1].word if at + 1 < len(joined) else None)
            widened = _widened(concept, vocabulary, synonyms, corrections, each, beside, split, _after_a_dollar(parsed.text, concept))
            if concept.word and (bare := unmarked(concept.word)) and len(bare[0]) > 1 and (word := _single_term(bare[0])):
                # "clang++" is clang's, whose page says "C, C++ … compiler" and no "clang++": it found 20
                # pages and not clang (a regression pass); a page writing it whole still comes first.
                # Not one letter: "c++" is no "c", the point of reading it whole.
                widened = replace(widened, alternatives=(*widened.alternatives, Alternative("spelling", (word,), word_query(word, SYNONYM_WEIGHT))))
            if at and (on := _unit_after_number(joined[at - 1], concept, synonyms)):
                widened = replace(widened, alternatives=(*widened.alternatives, *on))
            if at + 1 < len(joined) and concept.text.lower() not in ("1", "one") and (other := _other_number_form(concept.text)):
                # A count before what it counts: "5 new sites" is the page's "five additional sites", "three
                # aws data centers" its "3 AWS data centers".  Not "one" (a word of every kind of sentence), nor
                # a number typed last, as a version is ("python 3", "openjdk 17").  A count typed as a word
                # is its digits before that word only: a digit alone stands in dates, amounts and names
                # ("two months" put the guide's card first by a "2" of "2-year" and "Q2": a QA pass).
                after = joined[at + 1].word or next(iter(joined[at + 1].alternatives[0].words), None)  # "seven data centers"
                count = ((other,), word_query(other)) if not concept.text.isalpha() else (
                    ((other, after), _side_by_side((other, after), 1.0)) if after else None)
                if count is not None:
                    widened = replace(widened, alternatives=(*widened.alternatives, Alternative("apart", *count)))
        if synonyms is not None and concept.span and (elsewhere := _elsewhere(parsed.text, widened, synonyms)) is not None:
            widened, asked_from = elsewhere
            while concepts and concepts[-1].span and concepts[-1].span[0] >= asked_from and not concepts[-1].members:
                concepts.pop()  # "outside" itself: how the place is asked for, no word of the answer
                changed = True
        changed = changed or widened is not concept
        concepts.append(widened)
    excluded = _excluded_respelled(parsed.text, parsed.excluded, vocabulary)
    if not changed and excluded is parsed.excluded:
        return parsed
    return assemble(parsed.text, concepts, excluded, parsed.plain, tuple(corrections))


# A place typed after these asks for the places that are not it: "stargate sites outside america",
# "where are stargate data centers outside the US" put the US pages first, by the word "US" they hold
# (a QA pass; a judged question).  Not "except", "excluding", "other than": they offer to exclude the
# word (``negation_offers``).
# Nor are "not in", "not from", "not based in", "but not" before a place: "data centers not in the us" put
# the Oracle U.S. page first, with no offer (a QA pass; "not" before a word of another kind is offered).
_OUTSIDE = re.compile(r"\b(?:outside(?:\s+of)?|beyond|besides|apart\s+from|(?:but\s+)?not(?:\s+(?:based|located))?\s+(?:in|from)"
                      r"|but\s+not)\s+(?:the\s+)?$", re.IGNORECASE)


def asks_elsewhere(text: str) -> bool:
    """Return whether *text*, a concept's words as typed, is a place asked for as "outside" it ("outside
    the US", ``_OUTSIDE``): the places that are not it, not a phrase pages write."""
    head = text.rpartition(" ")[0]
    return bool(head) and _OUTSIDE.search(head + " ") is not None


_NON = re.compile(r"\bnon-(?=([^\W\d_][\w.]*))", re.IGNORECASE)


def non_places(text: str, synonyms: Synonyms | None) -> str:
    """Return *text* with "non-" before a place the synonyms know written "outside " ("non-us data
    centers": outside the US, as ``_elsewhere`` reads it; it was one word no page holds, every hit
    "Missing: non-us": a QA pass).  Before ``the_us``, which then reads "outside us" as the US."""
    if synonyms is None or not synonyms.places or "non-" not in text.lower():
        return text
    everywhere = {place for places in synonyms.places.values() for place in places} | set(synonyms.places)
    return _NON.sub(lambda m: "outside " if (_query_term(m[1])[0],) in everywhere else m[0], text)  # "us" too


def _elsewhere(text: str, concept: Concept, synonyms: Synonyms) -> tuple[Concept, int] | None:
    """Return *concept*, a place typed after "outside" (``_OUTSIDE``), as every other place the synonyms
    know (the places of the regions in corpus/data/synonyms.json, with their variants), found "by a
    place" and none of them the place typed, its variants or the places in it, and where "outside"
    was typed; else None."""
    outside = _OUTSIDE.search(text, 0, concept.span[0]) if concept.span is not None and not concept.members else None
    if outside is None:
        return None
    everywhere = {place for places in synonyms.places.values() for place in places}
    # The place as typed, or as corrected ("outside norwy": Norway; it was searched as Norway, first).
    typed = next((alternative.words for alternative in concept.alternatives
                  if alternative.via in ("exact", "typo") and (alternative.words in everywhere or alternative.words in synonyms.places)),
                 None)
    if typed is None:
        return None
    same = {typed, *synonyms.alternatives(typed)}
    inside = {place for words in same for place in synonyms.places.get(words, ())}
    others = sorted(everywhere - same - inside)
    if not others:
        return None
    # Not a page titled with the place left out: "Introducing Stargate UK" came second for "stargate
    # not in the uk", by a "US" of its text (a regression QA pass); it is said to miss the concept.
    titled = [wq.Term("title", words[0]) if len(words) == 1 else wq.Phrase("title", list(words), slop=VARIANT_SLOP)
              for words in sorted(same | inside)]
    left_out = titled[0] if len(titled) == 1 else wq.Or(titled)
    places = tuple(Alternative("place", words, wq.AndNot(_words_query(words, SYNONYM_WEIGHT), left_out)) for words in others)
    # Said as typed ("Missing: outside the US" on a page of Michigan's, not "Missing: US").
    return replace(concept, text=text[outside.start() : concept.span[1]], alternatives=places, loose=()), outside.start()


def _excluded_respelled(text: str, excluded: wq.Query | None, vocabulary: Vocabulary) -> wq.Query | None:
    """Return *excluded* with each quoted phrase also as the documents write it (``_written_as``) and
    each prefix with its words: what searching for it finds is what excluding it leaves out (``gpu
    -"nvidia gpus"``, ``openai -nvid*``); *excluded* itself when there is neither."""
    if excluded is None:
        return None
    written: dict[tuple[str, int, int], tuple[str, int]] = {}

    def respelled(node: wq.Query) -> wq.Query:
        if type(node) is wq.Phrase:  # not corrected: excluding a guess could leave out wanted pages
            other = _phrase_written_as(text, node, vocabulary, written, typos=False)
            if (prefix := _starred_last(text, node)) is not None:  # '-"data cent*"' leaves out what it finds
                leading = list(node.words[:-1])
                share = max(1, PHRASE_PREFIX_TOTAL // max(1, text.count('*"')))  # as expand shares them
                found = [wq.Phrase(node.fieldname, [*leading, w], slop=1) for w in vocabulary.prefixed(prefix, share)]
                return wq.Or([node, *found, *([other] if other is not None else [])])
            return node if other is None else wq.Or([node, other])
        if (type(node) is wq.Term and (span := _typed_span(node)) and text[span[0] : span[1]].endswith("*")
                and _long_enough(text[span[0] : span[1] - 1])):
            # An excluded prefix leaves out what it finds ("openai -nvid*" excluded the stem "nvid").
            # One too short to be a prefix is its word, as it is searched: "editor -e*" left out every
            # page holding a word starting with "e", the editors too (a QA pass).
            prefix = _prefix_of(text[span[0] : span[1] - 1], _FOLDING) or str(node.text)
            words = [w for w in vocabulary.prefixed(prefix, PREFIX_LIMIT) if w != node.text]
            if not vocabulary.begins(str(node.text), prefix):  # "-onli*" is no "-on" ("onli" is stemmed "on")
                return wq.Or([wq.Term(node.fieldname, w) for w in words]) if words else wq.NullQuery
            return wq.Or([node, *(wq.Term(node.fieldname, w) for w in words)]) if words else node
        return node.apply(respelled)

    found = respelled(excluded)
    return excluded if found == excluded else found


def _after_a_dollar(text: str, concept: Concept) -> bool:
    """Return whether *concept* was typed right after a "$" in *text*: a sum of money."""
    return concept.span is not None and text[concept.span[0] - 1 : concept.span[0]] == "$"


def _widened(
    concept: Concept, vocabulary: Vocabulary, synonyms: Synonyms | None, corrections: list[Correction],
    prefix_words: int = PREFIX_LIMIT, beside: tuple[str | None, str | None] = (None, None), split: bool = False,
    money: bool = False,
) -> Concept:
    """Return *concept* with what it may stand for added (``expand``; a prefix its *prefix_words*
    commonest words), and any correction made of it appended to *corrections*; the same object when
    nothing is added.  *money*: it was typed after a "$"."""
    extra: list[Alternative] = []
    if concept.prefix and concept.word is None:  # a quoted phrase whose last word was typed with a star
        leading = list(_phrase_of(concept).words[:-1])
        extra = [Alternative("prefix", tuple(sorted({*leading, w})), _side_by_side([*leading, w], PREFIX_WEIGHT))
                 for w in vocabulary.prefixed(concept.prefix, prefix_words)]
    elif concept.prefix:
        words = [w for w in vocabulary.prefixed(concept.prefix, prefix_words) if w != concept.word]
        extra = [Alternative("prefix", (w,), word_query(w, PREFIX_WEIGHT)) for w in words]
        if concept.word is not None and not vocabulary.begins(concept.word, concept.prefix):
            # The stem of the typed letters is no word they begin ("onli" is stemmed "on"): only the
            # prefix's words are searched, not every page saying "on".
            concept = replace(concept, alternatives=(Alternative("exact", (), wq.NullQuery),))
    elif concept.word and concept.span and (apart := _number_and_unit(concept.text)):
        # "4.5gw" is "4.5 GW" (and "4.5 gigawatts"), as pages write it: the same thing, full weight.
        number, unit, shorts = apart
        ways = [(unit,), *(synonyms.alternatives((unit,)) if synonyms is not None else ())]
        extra = [Alternative("apart", (number, *way), _side_by_side((number, *way), 1.0 if way == (unit,) else SYNONYM_WEIGHT))
                 for way in ways]
        # An amount's other short forms, written on: "$38bn" is also the "$38B" of a title.
        extra += [Alternative("apart", (short,), word_query(short)) for short in shorts if short != concept.word]
        if not money:  # "$1m" is a sum of money, "$1M" or "$1 million", not the "one million TPUs" it found first (a QA pass)
            extra += _unit_ways(_other_number_form(_NUMBER_AND_UNIT.fullmatch(concept.text)[1]), unit, ways[1:])  # type: ignore[index]
        return _summed(concept, extra)
    elif concept.word and concept.span:
        known = _known(concept, vocabulary)  # the word, or a synonym of it
        if same := _as_the_index_has(concept.word, concept.text, vocabulary, known):
            extra = _same_word(*same, synonyms)
        elif not known and (apart := _factor(concept.text, vocabulary)):
            extra = apart  # "1.77x" is the "1.77×" of a page: not a typo of another word
        elif not known:
            # "multigpu" is the "multi-GPU" of the pages: the two words side by side (then not a typo).
            extra = _written_apart(concept.text, vocabulary) if split else []
            if extra and synonyms is not None:  # and what its words stand for ("multigpu": "multiple GPUs")
                extra += _synonym_ways(extra[0].words, synonyms)
            words = vocabulary.completions(concept.text)
            near = vocabulary.near(concept.text, concept.word)[:TYPO_CANDIDATES]
            if words and near and vocabulary.frequency(near[0][0]) > vocabulary.frequency(words[0]):
                words = []  # "callde" is "called", not "calldepth": a close spelling more pages hold
            if words:
                # A word cut short ("wiresha"; "thunderb": Thunderbird, not "thunderx" one letter off,
                # which fewer pages hold), or one the stemmer cuts shorter than the index's stem of its
                # whole word ("libreoffic"): the words it begins, as a prefix. An English word
                # ("character", which the index has as the stem of "characterized") is that word,
                # searched by its own stem as the pages' words are: no correction.
                whole = vocabulary.common(concept.text) and words == [concept.text.lower()]
                # The commonest is the word meant, as the correction shown; the others weigh less, as
                # close spellings do ("firef": "firefly", rarer, put a FireFly camera before Firefox).
                weight = 1.0 if whole else PREFIX_WEIGHT
                extra += [Alternative("completion", (w,), word_query(w, weight * (1.0 if i == 0 else OTHER_TYPO_SHARE)))
                          for i, w in enumerate(words)]
                if not whole:
                    corrections.append(Correction(concept.span, concept.text, words[0], 1))
                return _with_extra(concept, extra, vocabulary)
            if near and vocabulary.common(concept.text) and not _fits(near[0][0], beside, vocabulary):
                near = []  # "export controls" means export, not "expert"; "fine turning" is "fine tuning"
            if extra and near:
                # Read apart, it is what as many pages hold as its correction's word, or more: not also
                # a typo ("multigpu" said "Including results for multicpu" and listed a CPU monitor: a
                # QA pass).  Else the typo keeps its correction: "firfox" split into "fir" "fox", which
                # no page writes together, and "webacm" into "web acm" (5 pages, "webcam" 59): 0 results
                # and 5, for 179 and 59 (the regression QA passes).
                held = vocabulary.frequency(near[0][0])
                if vocabulary.together(*extra[0].words, held) >= held:
                    near = []
                else:
                    extra = []  # nor, then, the split: "Web ACM" came first for "webacm"
            # The first is the correction the answer shows: the others, in case it is not, weigh less
            # ("nmpy" said "Including results for NumPy" and listed "nipy" first, a rarer word).
            extra += [Alternative("typo", (w,), word_query(w, TYPO_WEIGHTS[d] * (1.0 if i == 0 else OTHER_TYPO_SHARE)))
                      for i, (w, d) in enumerate(near)]
            if near and synonyms is not None and not vocabulary.contains(near[0][0]):
                # A synonym no page writes ("hugingface": "huggingface"): what it stands for ("Hugging Face").
                extra += _synonym_ways((near[0][0],), synonyms)
            if near:
                corrections.append(Correction(concept.span, concept.text, near[0][0], near[0][1]))
        elif (plural := _model_plural(concept.text)) and plural != concept.word and vocabulary.contains(plural):
            # (Not the word again: "python3s" is analysed "python3", an alternative searched twice and
            # explained as "plural"; a QA pass.)
            extra = _same_word("plural", plural, synonyms)  # "H100" finds the pages that say "H100s"
    if not extra and concept.word and concept.span and (other := _loanword_number(concept.text, concept.word, vocabulary)):
        extra = _same_word(*other, synonyms)  # "chip" finds the "chips" of a Portuguese page
    if concept.word and _VERSION.fullmatch(concept.word):
        # A version is also its releases: "accelerate 1.0" is "Accelerate 1.0.0", which the index
        # holds as one word (QA pass T: "No result has all of your words" above it).
        extra += [Alternative("version", (w,), word_query(w)) for w in vocabulary.prefixed(concept.word + ".", VERSION_RELEASES)]
    return _with_extra(concept, extra, vocabulary) if extra else concept


def _with_extra(concept: Concept, extra: list[Alternative], vocabulary: Vocabulary) -> Concept:
    """Return *concept* with the alternatives *extra*; a word read as two (a split) that some page
    writes so has them as its loose words, as a hyphenated word has: "stargatemichigan" found only the
    page writing "Stargate Michigan", not the events on "Stargate to Michigan" (a QA pass); so has one
    of two names ("openaibroadcom": the pages write "OpenAI and Broadcom").  Not other splits no page
    writes: "database" is no "data" and "base" (it listed 24 pages of either, where it found nothing:
    the regression QA pass); nor a model's name and number ("gpt3": its name alone is another
    model's, "GPT-4")."""
    split = next((a.words for a in extra if a.via == "split"), None)
    held = split is not None and (vocabulary.together(*split, 1) or all(map(vocabulary.name, split)))
    loose = _hyphenated_loose(split) if held else ()
    return replace(concept, alternatives=(*concept.alternatives, *extra), loose=loose if len(loose) > 1 else concept.loose)


_VERSION = re.compile(r"\d+(?:\.\d+)+")
VERSION_RELEASES = 8  # releases at most a version typed stands for ("3.11": 3.11.2, 3.11.4 ...)


_MODEL_NUMBER = re.compile(r"([a-z]{2,})(\d{1,3})")  # "gpt3", "llama3": a model's name and number typed as one
SPLIT_MIN_CHARS = 5  # a word typed as one this long at least is tried as two ("multigpu", "dataparallel")
SPLIT_MAX_CHARS = 24  # ... and no longer: each cut is two look-ups (0.6 ms a 14-letter word at 64k)
SPLIT_MAX_WORDS = 6  # ... in a query of this many concepts at most (``expand``)


def _written_apart(typed: str, vocabulary: Vocabulary) -> list[Alternative]:
    """Return, for a word the index lacks, the two index words it is written as ("multigpu": "multi"
    "gpu", which the pages write "multi-GPU"), side by side, at full weight: the split whose rarer
    half the most documents hold, each half two characters at least; a model's name and number
    ("gpt3": "GPT-3") where some page writes them as words of their own; else nothing."""
    lowered = typed.lower()
    if (model := _MODEL_NUMBER.fullmatch(lowered)) is not None:
        left, right = _single_term(model[1]), _single_term(model[2])
        if left and right and vocabulary.contains(left) and vocabulary.contains(right) and vocabulary.apart(left, right):
            return [Alternative("split", (left, right), _side_by_side((left, right), 1.0))]
    if not SPLIT_MIN_CHARS <= len(lowered) <= SPLIT_MAX_CHARS or not lowered.isalnum():
        return []
    best: tuple[int, str, str] | None = None
    for cut in range(2, len(lowered) - 1):
        left, right = _single_term(lowered[:cut]), _single_term(lowered[cut:])
        if right and not vocabulary.contains(right) and (singular := _acronym_singular(lowered[cut:])):
            right = singular  # an acronym's plural, as typed alone ("amdgpus": "amd" "gpu", "AMD GPUs")
        if left and right and vocabulary.contains(left) and vocabulary.contains(right):
            held = min(vocabulary.frequency(left), vocabulary.frequency(right))
            if best is None or held > best[0]:
                best = (held, left, right)
    if best is None:
        return []
    return [Alternative("split", best[1:], _side_by_side(best[1:], 1.0))]


_TIMES = re.compile(r"(\d+(?:\.\d+)?)[x\u00d7]")


def _factor(typed: str, vocabulary: Vocabulary) -> list[Alternative]:
    """Return the number of a factor typed with an x ("1.77x") that pages write with its sign
    ("1.77×", whose sign is no word), when a page holds the number; else nothing (it found nothing).
    (Letters and a number typed as one, "gpt3" for "GPT-3", are ``_written_apart``.)"""
    found = _TIMES.fullmatch(typed.lower())
    number = _single_term(found[1]) if found else None
    return [Alternative("apart", (number,), word_query(number))] if number and vocabulary.contains(number) else []


def _fits(word: str, beside: tuple[str | None, str | None], vocabulary: Vocabulary) -> bool:
    """Return whether *word* stands beside the word typed before it or after it (*beside*, analysed)
    in some page: a correction of an English word is one only where the pages write it so ("fine
    tuning" for "fine turning"; no page writes "expert controls")."""
    before, after = beside
    return bool(before and vocabulary.follows(before, word)) or bool(after and vocabulary.follows(word, after))


def _as_the_index_has(word: str, typed: str, vocabulary: Vocabulary, known: bool) -> tuple[str, str] | None:
    """Return (how, other) for the analysed *word* (typed: *typed*) written another way the index
    has, else None: when the index lacks it (not *known*), its other spelling or an acronym's
    singular; when it has it, the singular of a plural that is the same word: a lower-case plural
    some pages write ("gpus", 1 of 64k) when documents write the singular as an acronym ("GPU"), a
    model number's plural ("H100s"; ``_same_as_singular``)."""
    spelled = _other_spelled(typed)
    other = _single_term(spelled) if spelled else None
    if not known:
        spelled, how = (other, "spelling") if other else (_acronym_singular(typed), "singular")
        if not (spelled and spelled != word and vocabulary.contains(spelled)):
            return None
        # An acronym's plural ("gpus": GPU) or a model's ("h100s"), not a word ending so ("news" found the
        # pages of "new", "campus" would "campu": a QA pass).
        plural_of_a_name = how != "singular" or _MODEL.fullmatch(typed[:-1]) or vocabulary.acronym(spelled)
        return (how, spelled) if plural_of_a_name else None
    if spelled and other and other != word and vocabulary.contains(other) and vocabulary.writes(spelled, other):
        # Known, and written the other way too: the same word ("programme" is also the stem of
        # "Programmable", and "stargate programme" missed every page on the Stargate "program").  Written
        # so by some page: "liber" is the stem of "Liberation", and "libre" listed Liberation fonts first.
        return "spelling", other
    # Only a word the stemmer left its "s" on can be a plural here ("gpus"; "centers" is "center").
    singular = _acronym_singular(typed) if word.endswith("s") else None
    if singular and singular != word and vocabulary.contains(singular) and _same_as_singular(singular, word, vocabulary):
        return "singular", singular
    return None


def _phrase_respelled(
    text: str, concept: Concept, vocabulary: Vocabulary, synonyms: Synonyms | None, corrections: list[Correction]
) -> Concept:
    """Return the quoted phrase *concept* with the phrase as the documents write it added: each word
    typed another way that a word typed alone would be read as (``_widened``), its other spelling
    or, typed in lower case, an acronym's plural (``"nvidia gpus"``: "NVIDIA GPUs", which the index
    has as ``gpu``), or, a word the index lacks, its closest spelling (``"trainng infrastructure"``,
    at the typo weight, the corrections appended to *corrections*), with that phrase's synonyms;
    *concept* itself when no word is written otherwise."""
    exact = concept.alternatives[0] if concept.alternatives else None
    node = exact.query if exact is not None and exact.via == "exact" else None
    leaves = node.subqueries if type(node) is wq.Or else ()
    if not leaves or any(type(leaf) is not wq.Phrase for leaf in leaves):
        return concept
    written: dict[tuple[str, int, int], tuple[str, int]] = {}  # the fields' phrases mostly share their words
    respelled = [other for leaf in leaves if (other := _phrase_written_as(text, leaf, vocabulary, written, typos=True)) is not None]
    if not respelled:
        return concept
    typos = {(start, end): (word, distance) for (_, start, end), (word, distance) in written.items() if distance}
    if typos:  # a guess: weighed as a word's typo is, and said ("Including results for")
        weight = TYPO_WEIGHTS[max(distance for _, distance in typos.values())]
        respelled = [wq.Phrase(p.fieldname, p.words, slop=p.slop, boost=p.boost * weight, char_ranges=p.char_ranges) for p in respelled]
        corrections += [Correction(span, text[span[0] : span[1]], word, distance) for span, (word, distance) in typos.items()]
    query = wq.Or(respelled) if len(respelled) > 1 else respelled[0]
    found = Alternative("typo" if typos else "spelling", tuple(sorted({w for leaf in respelled for w in leaf.words})), query)
    extra = [found, *(_phrase_synonyms(wq.Or(respelled), synonyms) if synonyms is not None and not typos else ())]
    return replace(concept, alternatives=(*concept.alternatives, *extra))


def _phrase_written_as(
    text: str, leaf: wq.Phrase, vocabulary: Vocabulary, written: dict[tuple[str, int, int], tuple[str, int]], typos: bool
) -> wq.Phrase | None:
    """Return the phrase *leaf* (typed in *text*) with its words as the documents write them
    (``_written_as``, misspellings corrected when *typos*; *written* keeps each word's answer), or
    None when every word is written so."""
    if len(leaf.char_ranges or ()) != len(leaf.words):
        return None
    words = []
    for word, (start, end) in zip(leaf.words, leaf.char_ranges):
        key = (word, start, end)
        if key not in written:
            written[key] = _written_as(word, text[start:end], vocabulary, typos)
        words.append(written[key][0])
    if words == list(leaf.words):
        return None
    return wq.Phrase(leaf.fieldname, words, slop=leaf.slop, boost=leaf.boost, char_ranges=leaf.char_ranges)


def _written_as(word: str, typed: str, vocabulary: Vocabulary, typos: bool) -> tuple[str, int]:
    """Return the analysed *word* (typed: *typed*) of a quoted phrase as the documents write it, with
    0 (``_as_the_index_has``, as ``_widened`` reads a word typed alone), or else, when *typos* and the
    index lacks it, its closest spelling with its distance (``Vocabulary.near``), if any."""
    known = vocabulary.contains(word)
    if same := _as_the_index_has(word, typed, vocabulary, known):
        return same[1], 0
    near = vocabulary.near(typed, word) if typos and not known else []
    return near[0] if near else (word, 0)


def _known(concept: Concept, vocabulary: Vocabulary) -> bool:
    return any(vocabulary.contains(w) for a in concept.alternatives for w in a.words)


def _same_word(how: str, word: str, synonyms: Synonyms | None) -> list[Alternative]:
    """Return the alternatives of a typed word that is *word* written another way (*how*): *word* at
    full weight, the same word, and what it stands for (its synonyms), as if it had been typed."""
    extra = [Alternative(how, (word,), word_query(word))]
    if synonyms is not None:
        extra += _synonym_ways((word,), synonyms)
    return extra


# Quotation marks and dashes as phones and word processors type them ("smart" quotes; "--" made a
# dash): read as the ASCII marks the syntax is written with, one character for one, so that places
# in the text still hold (a suggestion is written into the text as typed).
_TYPED_QUOTES = re.compile("[\u201c\u201d\u201e\u201f\u00ab\u00bb\u300c\u300d\u300e\u300f]")
_TYPED_MINUS = re.compile("(?:^|(?<=[\\s(]))[\u2010\u2011\u2013\u2014\u2212\ufe63\uff0d](?=[\\w\"(\u201c\u201e\u00ab\u300c\u300e])")
# Full-width forms, as a Chinese or Japanese input method types Latin letters, digits and marks:
# read as the ASCII they stand for ("４．５ｇｗ" is "4.5gw", "gpus ＯＲ tpus" an OR, "＂data center＂"
# a phrase; a QA pass found them read as other words), one character for one.
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_HAS_FULL_WIDTH = re.compile("[\uff01-\uff5e\u3000]")
# Lucene's syntax a reader of other search engines types, which is none here: a boost (`stargate^2`,
# `"data center"^2`), a fuzzy or proximity mark (`stargat~1`, `"stargate michigan"~3`) and a field
# (`title:stargate`).  Each was words: "2" a concept every hit missed, "1" ranked the "1GW" page first,
# "title" a word no page holds (a QA pass).  Blanked, one space a character (a field's + or - kept before
# its word): the words are searched.
_OTHER_SYNTAX = re.compile(
    r"(?<=[\w\"')])\^\d+(?:\.\d+)?(?!\w)"
    r"|(?<=[\w\"])~\d*(?:\.\d+)?(?!\w)"
    r"|(?:^|(?<=[\s(]))[+-]?(?:title|body|summary):(?=[\w\"(])",
    re.IGNORECASE,
)


def _may_hold_other_syntax(text: str) -> bool:
    """Return whether *text* has a character ``_OTHER_SYNTAX`` needs (most queries have none)."""
    return "^" in text or "~" in text or ":" in text


def ignored_syntax(text: str) -> tuple[str, ...]:
    """Return the marks of other engines' syntax in *text* that ``typed_marks`` blanks, as typed
    ("title:", "^2", "~1"), each once: the answer names them, as it searched the words without them."""
    if not _may_hold_other_syntax(text):
        return ()
    return tuple(dict.fromkeys(m.group().lstrip("+-") for m in _OTHER_SYNTAX.finditer(text)))


def _blanked(match: re.Match[str]) -> str:
    """Return a space for each character of *match*, but a sign it opens, moved to the end (before its word)."""
    found = match.group()
    return " " * (len(found) - 1) + found[0] if found[0] in "+-" else " " * len(found)


def typed_marks(text: str) -> str:
    """Return *text* with its curly double quotes, guillemets and corner brackets read as '"', a dash,
    hyphen or minus sign of another kind that starts a word read as '-' (“data center”, –britain),
    its full-width forms as ASCII and Lucene's boosts, fuzzy marks and fields blanked; *text* itself
    when it has none."""
    if _HAS_FULL_WIDTH.search(text):
        text = text.translate(_FULL_WIDTH)
    if _may_hold_other_syntax(text) and _OTHER_SYNTAX.search(text):
        text = _OTHER_SYNTAX.sub(_blanked, text)
    if not _TYPED_QUOTES.search(text) and not _TYPED_MINUS.search(text):
        return text
    return _TYPED_MINUS.sub("-", _TYPED_QUOTES.sub('"', text))


# "w/" typed for "with", at the start of a word: "deals w/ nvidia" said "Missing: w" on every page (a QA
# pass).  Not inside a path ("a/w/b"), nor "w/o" ("without": a negation, ``_NEGATION``, its letters no
# words, ``_CONTRACTION``).
_SHORTHAND = re.compile(r"(?<!\S)[wW]/(?![oO](?![\w/]))(?=\s|[^\W\d_])")


# Characters of a run written together (Chinese, Japanese) that a query may be split into, as a reader
# writes words without spaces: "华为芯片" is 华为 and 芯片, which a page writes apart ("华为发布…芯片").
_SEGMENTED_RUN = re.compile("[" + IDEOGRAPHS + "]{3,32}")  # longer ones are left as typed (cost: a look-up a piece)
_LONGEST_PIECE = 8


def segmented(text: str, written: Callable[[str], bool]) -> str:
    """Return *text* with each run of three to 32 Chinese or Japanese characters outside quotes that no
    page writes as typed (*written*: whether some page holds these characters side by side) split with
    spaces into the fewest pieces that pages write (one character needs no page): a dictionary made of
    the index, where a run typed whole was searched as its phrase and found only by meaning
    ("华为芯片", "贵州数据中心", "北京的数据中心": a QA pass of non-English corpora).  A quoted run is as typed."""
    if text.isascii() or IDEOGRAPH.search(text) is None:
        return text
    parts = text.split('"')
    for at in range(0, len(parts), 2):  # outside quotes
        parts[at] = _SEGMENTED_RUN.sub(lambda m: m[0] if written(m[0]) else " ".join(_fewest_pieces(m[0], written)), parts[at])
    return '"'.join(parts)


def _fewest_pieces(run: str, written: Callable[[str], bool]) -> list[str]:
    """Return *run* cut into the fewest pieces of which each is one character or written (``segmented``)."""
    best: list[list[str] | None] = [[]] + [None] * len(run)
    for end in range(1, len(run) + 1):
        for start in range(max(0, end - _LONGEST_PIECE), end):
            before = best[start]
            if before is None or (end - start > 1 and not written(run[start:end])):
                continue
            if best[end] is None or len(before) + 1 < len(best[end]):  # type: ignore[arg-type]
                best[end] = [*before, run[start:end]]
    return best[-1] or [run]


def shorthands(text: str) -> str:
    """Return *text* with "w/" written "with" (``_SHORTHAND``)."""
    if "/" not in text:
        return text
    return _SHORTHAND.sub("with ", text)


# "the us" is the country, whatever the case: as a pronoun "us" never follows "the" ("data centers in
# the us" dropped it silently as a function word, and "outside the us" listed Michigan; a QA pass).
# Nor does the pronoun open a query or follow a preposition of place: "us data centers" and "data
# centers in us" searched "data centers" alone, Stargate Norway first (a QA pass).  "tell us about …",
# "show us …", "for us" keep it a function word; "us-sited" is read as a hyphenated word is, wherever typed.
_THE_US = re.compile(r"(?:\b(?:the|in|across|outside|inside|within|throughout)\s+|^\s*)us\b(?!-)", re.IGNORECASE)


def the_us(text: str) -> str:
    """Return *text* with "us" after "the", after a preposition of place or opening it written "US",
    the acronym (one letter for one: places hold)."""
    if "us" not in text.lower():
        return text
    return _THE_US.sub(lambda m: m.group()[:-2] + "US", text)


def function_words_in_capitals(text: str, written_in_capitals: Callable[[str], bool]) -> str:
    """Return *text* with each function word of three letters or more typed in capitals in a query that
    is not ("stargate THE michigan") in lower case, unless documents write it so: kept as an acronym,
    "THE" matched all 57 hub pages, where "the" is dropped (a QA pass).  Two letters may be an acronym
    whatever the pages write ("IT", "US", "AI" still count); AND, OR and NOT stay operators; one letter
    for one, so places hold."""
    if text.isupper() or not _CAPITAL_WORD.search(text):
        return text

    def lowered(match: re.Match[str]) -> str:
        word = match.group()
        if word in _OPERATORS or word.lower() not in query_stop_words() or written_in_capitals(_query_term(word)[0]):
            return word
        return word.lower()

    return _CAPITAL_WORD.sub(lowered, text)


_CAPITAL_WORD = re.compile(r"\b[A-Z]{3,}\b")  # two letters may be an acronym whatever the pages write: IT, US, AI


def caps_lock(text: str, written_in_capitals: Callable[[str], bool]) -> str:
    """Return *text* typed in capitals throughout (caps lock: "HOW MUCH DID MICROSOFT INVEST IN
    OPENAI") with the words that documents do not write in capitals (*written_in_capitals* of the
    analysed word) in lower case: function words are then dropped as they are from "how much did …",
    and the query's meaning is that of the words as written; "US" and "GPU" stay where documents
    write them so.  Any other text, and one word alone ("IT"), is returned as it is.  In capitals
    throughout, AND, OR and NOT are words too: "STARGATE SITES IN TEXAS AND MICHIGAN".  A query whose
    every other word is written in capitals ("NVIDIA NOT AMD", "US AND UK") is not caps lock: its
    operators stay operators."""
    if not text.isupper():
        return text
    tokens = list(_TOKEN.finditer(text))
    if len(tokens) < 2:
        return text
    lowered = [m for m in tokens if m.group().lower() != m.group() and not written_in_capitals(_query_term(m.group())[0])]
    if all(m.group() in _OPERATORS for m in lowered):
        return text
    parts = []
    pos = 0
    for match in lowered:
        parts += [text[pos : match.start()], match.group().lower()]
        pos = match.end()
    return "".join(parts) + text[pos:]


_CAPITALS = re.compile(r"[A-Z]{2}")  # a word typed in capitals, maybe
_ALNUM = re.compile(r"[^\W_]")  # a letter or digit


def meaning_text(text: str, written_lower: Callable[[str], bool]) -> str:
    """Return the words of *text* whose meaning is looked for (``asked_text``) as the documents write
    them: compatibility forms made plain ("ｌｉｂｃ" is "libc"), a word typed in capitals that documents
    write, not in capitals (*written_lower* of the analysed word), in lower case ("LIBC", "PYTHON";
    "TPU", "US" and a word no document has stay), and no word without a letter or digit ("🚀").  The
    model reads case: "LIBC" had a cosine of 0.24 with the libc pages, "libc" 0.73, and the two
    queries gave 113 and 133 results (a QA pass).  Its quotes and dashes are read as the parser reads
    them (``typed_marks``): a suggestion is written into the query as typed, so '-entity:“Mistral AI”'
    reaches it curly, and asked for "AI” stargate" (a QA pass)."""

    def written(match: re.Match[str]) -> str:
        word = match.group()
        if len(word) > 1 and word.isupper() and written_lower(_query_term(word)[0]):
            return word.lower()
        return word

    if text.isascii() and not _CAPITALS.search(text):  # the usual query: nothing to make plain or lower
        plain = asked_text(text)
        if plain.replace(" ", "").isalnum():  # letters and digits between single spaces: every word kept
            return " ".join(plain.split())
    else:
        plain = _TOKEN.sub(written, asked_text(unicodedata.normalize("NFKC", typed_marks(text) if not text.isascii() else text)))
    return " ".join(word for word in plain.split() if _ALNUM.search(word))


def function_words(text: str) -> bool:
    """Return whether *text* is only words a query drops when it has others ("the", "how much"; not
    "US" or "IT", acronyms typed in capitals), as the index's chain reads them."""
    if text.isalpha() and text.lower() not in query_stop_words():
        return False  # the usual answer, without the chain
    tokens = _query_tokens(text)
    return bool(tokens) and all(stop for _, stop, _, _ in tokens)


def analysed_word(text: str) -> str | None:
    """Return the one word the index's chain makes of *text* as a query's (None for none or several)."""
    return _single_term(text)


def _single_term(text: str) -> str | None:
    """Return the one word the index's chain makes of *text* in query mode, else None."""
    terms = [term for term, stop, _, _ in _query_tokens(text) if not stop]
    return terms[0] if len(terms) == 1 else None


def _other_spelling(typed: str) -> str | None:
    """Return the analysed word of *typed*'s other (British or American) spelling, if it has one."""
    spelled = _other_spelled(typed)
    return _single_term(spelled) if spelled else None


@lru_cache(maxsize=QUERY_TERM_CACHE)  # a word is typed again and again: its rules are tried once (30 of them)
def _other_spelled(typed: str) -> str | None:
    """Return *typed*'s other (British or American) spelling in lower case, if it has one."""
    lowered = typed.lower()
    for pattern, replacement in _SPELLINGS:
        if pattern.match(lowered):
            return pattern.sub(replacement, lowered)
    return None


def _acronym_singular(typed: str) -> str | None:
    """Return the analysed word of *typed* less a final ``s`` when it could be an acronym's plural
    typed in lower case ("gpus", "llms": the index has "GPUs" as ``gpu``, as ``normalize`` reads
    it, but the stemmer keeps an ``s`` after a vowel and is given "gpus" whole), or a model
    number's plural in any case ("H100s": ``h100s``, where a page says "H100"), else None."""
    if _MODEL.fullmatch(typed[:-1]) and typed[-1:] in ("s", "S"):
        return _single_term(typed[:-1])
    if len(typed) < 4 or not typed.isalpha() or typed[-1] not in "sS" or typed[-2] in "sS":
        return None
    return _single_term(typed[:-1])


BARE_NUMBER_TYPED = re.compile(r"\d+(?:[.,]\d+)*")  # "10", "4.5", "7,500"
_NUMBER_AND_UNIT = re.compile(r"(\d+(?:[.,]\d+)?)([^\W\d_]+)")
# Amounts written short, as a reader types money ("$50B") and pages write it out ("$50 billion").
_AMOUNTS = {"k": "thousand", "m": "million", "mn": "million", "b": "billion", "bn": "billion", "t": "trillion"}
# Whole numbers pages write as words ("up to one million TPUs", "a new one-gigawatt campus", "over ten
# years", "five additional sites"), as news style writes one to nine: a reader types them in digits,
# and the page was missing "1 million" (a QA pass: the page saying "$1M annually" came first).
NUMBER_WORDS = dict(zip(map(str, range(1, 13)), "one two three four five six seven eight nine ten eleven twelve".split()))
_WORD_NUMBERS = {word: digits for digits, word in NUMBER_WORDS.items()}


def _spelled(typed: str) -> tuple[str, str, bool] | None:
    """Return the digits and the word of a whole number from one to twelve typed either way ("5",
    "Five"), and whether it was typed as the word; else None."""
    lower = typed.lower()
    if lower in NUMBER_WORDS:
        return lower, NUMBER_WORDS[lower], False
    return (_WORD_NUMBERS[lower], lower, True) if lower in _WORD_NUMBERS else None


def _other_number_form(typed: str) -> str | None:
    """Return the analysed form a number typed as *typed* is also written in (``_spelled``: "five"
    for "5", "5" for "five"), else None."""
    spelled = _spelled(typed)
    return _single_term(spelled[0] if spelled[2] else spelled[1]) if spelled else None


def _unit_ways(other: str | None, unit: str, ways: Sequence[tuple[str, ...]]) -> list[Alternative]:
    """Return an amount written with its number's *other* form: with its *unit* and each of the unit's
    *ways* side by side ("one gigawatt", "one GW" for "1gw"); empty without one."""
    if other is None:
        return []
    return [Alternative("apart", (other, *way), _side_by_side((other, *way), 1.0 if way == (unit,) else SYNONYM_WEIGHT))
            for way in [(unit,), *ways]]


def _number_and_unit(typed: str) -> tuple[str, str, list[str]] | None:
    """Return the analysed number and unit of *typed* when it is a number with its unit written on
    ("4.5gw", "300MW": ``4.5``, ``gw``; "50B": ``50``, ``billion``), with an amount's short forms
    written on ("50b", "50bn"), else None."""
    match = _NUMBER_AND_UNIT.fullmatch(typed) if typed[:1].isdigit() else None
    if match is None:
        return None
    letters = match[2].lower()
    if len(letters) < 2 and letters not in _AMOUNTS:
        return None  # "3d", "5g": not a unit written on
    spelled = _AMOUNTS.get(letters)
    number, unit = _single_term(match[1]), _single_term(spelled or letters)
    shorts = [term for short, word in _AMOUNTS.items() if spelled and word == spelled
              if (term := _single_term(match[1] + short)) is not None]
    if "thousand" in (spelled, letters) and (whole := _thousands(match[1])):
        shorts.append(whole)  # "220k" (and "220 thousand") is the "220,000" of a page, "7.5k" its "7,500"
    return (number, unit, shorts) if number and unit else None


def _thousands(typed: str) -> str | None:
    """Return the analysed whole number *typed* thousands make ("220": ``220000``; "7.5": ``7500``),
    else None (a comma is no decimal point here, and "1.2345" thousands is no whole number)."""
    whole, _, part = typed.partition(".")
    if "," in typed or len(part) > 3:
        return None
    return _single_term(str(int(whole) * 1000 + int(part.ljust(3, "0"))))


_AMOUNT_PARTS = re.compile(r"\s+|(?<=\d)-(?=[^\W\d_])")  # a number and its unit, apart or hyphenated ("10-gigawatt")


def _units_written_on(concept: Concept, synonyms: Synonyms | None, money: bool = False) -> list[Alternative]:
    """Return what a quoted number and unit ('"300 MW"', '"$50 billion"') is also written as, else
    nothing: the term written on ("300mw"; an amount's short forms, "50b" and "50bn"; the unit's
    other name on, "10gw" for '"10 gigawatts"'), and the unit's synonyms side by side.  It found
    nothing of the "300MW" of a title nor of "300 megawatts": a phrase's words stand one after the
    other, and a token's parts share its place."""
    if concept.members or len(concept.alternatives) != 1 or len(concept.alternatives[0].words) != 2:
        return []
    parts = _AMOUNT_PARTS.split(concept.text.replace("$", " ").strip())
    spelled = _spelled(parts[0]) if len(parts) == 2 else None
    digits = spelled[0] if spelled else parts[0]
    if len(parts) != 2 or not digits[:1].isdigit():
        return []
    found = _written_on(digits, parts[1].lower(), synonyms)
    if found is None or found[1] != concept.alternatives[0].words[1] or _single_term(parts[0]) != concept.alternatives[0].words[0]:
        return []
    number, unit, ways, terms = found
    extra = [Alternative("apart", (term,), word_query(term)) for term in terms]
    if spelled and spelled[2]:  # "one billion": also "$1 billion" (the number's other ways are the terms)
        extra.append(Alternative("apart", (number, unit), _side_by_side((number, unit), 1.0)))
    extra += [Alternative("apart", (number, *way), _side_by_side((number, *way), SYNONYM_WEIGHT)) for way in ways]
    # Typed after a "$", a sum of money: not the "one million TPUs" "$1 million" found first (as "$1m", ``_widened``).
    return extra + _unit_ways(_other_number_form(parts[0]) if spelled and not spelled[2] and not money else None, unit, ways)


def _written_on(
    typed: str, letters: str, synonyms: Synonyms | None
) -> tuple[str, str, tuple[tuple[str, ...], ...], list[str]] | None:
    """Return a number (*typed*) and its unit (*letters*, as typed) analysed, the unit's synonyms, and
    the terms the two make written on: "300mw", an amount's short forms ("50b", "50bn"), the unit's
    other name on ("10gw" for "10 gigawatts"); None when they are no number and unit."""
    apart = _number_and_unit(typed + letters)
    if apart is None:
        return None
    number, unit, shorts = apart
    ways = synonyms.alternatives((unit,)) if synonyms is not None else ()
    ends = [short for short, word in _AMOUNTS.items() if word == letters] or [letters]
    on = [term for end in ends if (term := _single_term(typed + end)) is not None]
    other_names = [term for way in ways if len(way) == 1 if (term := _single_term(typed + way[0])) is not None]
    return number, unit, ways, list(dict.fromkeys([*on, *shorts, *other_names]))


def _unit_after_number(number: Concept, concept: Concept, synonyms: Synonyms | None) -> list[Alternative]:
    """Return, for a unit typed apart after a number (*number* then *concept*: "$50 billion", "300
    megawatts"), the terms pages write the two as, written on ("50b", "50bn", "300mw"): a page saying
    "$50B" holds the amount.  Empty for anything else.  (Unquoted, "billion" was missing from the
    page on "$50B" and ten pages saying only "billion" ranked above it.)"""
    typed = number.text.replace("$", "").strip()
    if not (typed[:1].isdigit() and concept.word and concept.text.isalpha()):
        return []
    found = _written_on(typed, concept.text.lower(), synonyms)
    if found is None or found[1] != concept.word:
        return []
    return [Alternative("apart", (term,), word_query(term)) for term in found[3] if term != concept.word]


def corrected_query(word: str, concept: Concept | None) -> wq.Query:
    """Return what a correction to *word* (analysed) finds: the word, and what it stands for when no
    page writes it (a synonym's variant: "huggingface" is "Hugging Face"; *concept*, where it was typed)."""
    stands_for = [a.query for a in concept.alternatives if a.via in SYNONYM_WAYS] if concept is not None else []
    return wq.Or([word_query(word), *stands_for]) if stands_for else word_query(word)


def _model_plural(typed: str) -> str | None:
    """Return the analysed plural of the model number *typed* ("h100": ``h100s``, as a page writes
    "H100s"), else None."""
    return _single_term(typed + "s") if _MODEL.fullmatch(typed) else None


def _loanword_number(typed: str, word: str, vocabulary: Vocabulary) -> tuple[str, str] | None:
    """Return ("plural", its analysed word) or ("singular", …) of an English word *typed* (analysed:
    *word*) in a corpus of another language whose stemmer leaves the two apart, where the index holds
    it, else None.  Loanwords keep their English "-s": Portuguese, German, Italian and Spanish pages
    write "chip" and "chips", "startup" and "startups", which their stemmers do not join ("chip" found
    nothing of a Portuguese corpus's three pages on "chips", "chips" nothing of an Italian one's four
    on "chip"; a QA pass of non-English corpora).  Only a common English word, or one of five letters
    or more ("startup" is in no dictionary the speller reads): "pais" is no plural of the Portuguese "pai"."""
    if query_language() == DEFAULT_LANGUAGE or len(typed) < 3 or not typed.isascii() or not typed.isalpha():
        return None
    lower = typed.lower()
    how, singular, other = ("singular", lower[:-1], lower[:-1]) if lower.endswith("s") else ("plural", lower, lower + "s")
    if len(singular) < 5 and not vocabulary.common(singular):
        return None
    term = _single_term(other)
    return (how, term) if term and term != word and vocabulary.contains(term) else None


def _same_as_singular(singular: str, plural: str, vocabulary: Vocabulary) -> bool:
    """Return whether *plural*, a word the index holds, is also *singular* (analysed): a model
    number's when the singular is the commoner ("h100s" is H100; "k8s" is no plural of "k8"), or an
    acronym's the documents write in capitals ("gpus" is GPU; "news" is not "new")."""
    if _MODEL.fullmatch(singular):
        return vocabulary.frequency(singular) >= vocabulary.frequency(plural)
    return vocabulary.acronym(singular)


def _joined(
    text: str, concepts: tuple[Concept, ...], vocabulary: Vocabulary
) -> tuple[list[Concept], list[Correction]]:
    """Return *concepts* with each pair of typed words that the index holds as one word, one of them
    unknown to it, made one concept: "fluid stack" asks for Fluidstack.  The pair's words together
    are asked for as typed (no page holds both); the joined word weighs as a synonym, and is offered
    as the correction."""
    corrections: list[Correction] = []

    def joined(a: Concept, b: Concept) -> Concept | None:
        word = _joined_word(text, a, b, vocabulary)
        if word is None or a.span is None or b.span is None:
            return None
        span = (a.span[0], b.span[1])
        parts = (a.alternatives[0], b.alternatives[0])
        if _number_and_unit(a.text + b.text) is None:  # "13.72 GB" is how "13.72GB" is written: no misspelling
            corrections.append(Correction(span, text[span[0] : span[1]], word, 1))
        return Concept(
            text=text[span[0] : span[1]],
            alternatives=(
                # No words to mark: one of them no page has, so no page holds the two ("stack" was marked in
                # "full-stack" and "software stack", and that passage shown instead of "Fluidstack").
                Alternative("exact", (), wq.And([p.query for p in parts])),
                Alternative("joined", (word,), word_query(word, SYNONYM_WEIGHT)),
            ),
            span=span,  # no loose words: "fluid stack" is Fluidstack, not a page with "stack" alone
        )

    return _pairs_made_one(concepts, joined), corrections


def _pairs_made_one(concepts: Sequence[Concept], made: Callable[[Concept, Concept], Concept | None]) -> list[Concept]:
    """Return *concepts* with each pair of neighbours that *made* makes one concept replaced by it,
    from the left (a concept is in one pair at most)."""
    out: list[Concept] = []
    i = 0
    while i < len(concepts):
        one = made(concepts[i], concepts[i + 1]) if i + 1 < len(concepts) else None
        out.append(concepts[i] if one is None else one)
        i += 1 if one is None else 2
    return out


def _amounts(text: str, concepts: list[Concept], vocabulary: Vocabulary, synonyms: Synonyms | None) -> list[Concept]:
    """Return *concepts* with each number typed before its unit ("10 GW", "$50 billion", "300
    megawatts") made one concept, the amount, as if quoted: the two side by side, written on ("10GW",
    "$50B") or with the unit's other name ("10 gigawatts"). A unit is a word the pages write on a
    number: the index holds the two written on for this number ("10gw", or "50b" for a billion).
    Apart, "10 GW" found the "10" of "10MW" and the "GW" of "1GW" in one section, and marked both."""
    return _pairs_made_one(concepts, lambda a, b: _amount(text, a, b, vocabulary, synonyms))


def _amount(text: str, a: Concept, b: Concept, vocabulary: Vocabulary, synonyms: Synonyms | None) -> Concept | None:
    """Return the concept of number *a* and unit *b* typed side by side (``_amounts``), else None."""
    if not (a.word and b.word and a.span and b.span) or a.members or b.members or a.prefix or b.prefix:
        return None
    if a.required != b.required or a.count != 1 or b.count != 1 or not b.text.isalpha():
        return None
    number = a.text.replace("$", "")
    spelled = _spelled(number)
    if spelled and spelled[2]:
        number = spelled[0]  # "one billion" is the amount "$1 billion" is
    if not (number[:1].isdigit() and BARE_NUMBER_TYPED.fullmatch(number)) or not text[a.span[1] : b.span[0]].isspace():
        return None
    found = _written_on(number, b.text.lower(), synonyms)
    if found is None or not (any(vocabulary.contains(term) for term in found[3]) or _a_unit(b.text.lower(), found[2], vocabulary)):
        return None
    span = (a.span[0], b.span[1])
    words = (a.word, found[1]) if spelled and spelled[2] else found[:2]
    # Built as the quoted phrase is: its words are marked only where they stand together
    # (``_quoted_words``), not in "6GW" and "10MW"; ``expand`` adds the other ways it is written.
    return Concept(text=text[span[0] : span[1]], span=span, required=a.required,
                   alternatives=(Alternative("exact", words, _side_by_side(words, 1.0)),))


def _a_unit(letters: str, ways: Sequence[tuple[str, ...]], vocabulary: Vocabulary) -> bool:
    """Return whether *letters* (typed after a number, lower case) are a unit the pages write on some
    number from 1 to 12 ("gw": "1GW", "5GW"), or one of its *ways* (its synonym group's one-word variants,
    analysed) is, or they are an amount's word ("billion"): then an amount no page holds is still one,
    found nowhere, not its number and unit apart ("3 GW" found the "3" of "Q3" and the "GW" of "5GW",
    "$10 billion" the "ten" of "ten years" and "billion" elsewhere: a QA pass).  A unit spelled out is
    one by its short form: pages write "5GW", not "5gigawatts" ("3 gigawatts" found the "3" of "Q3 2026"
    and "2 gigawatts" the "two" of a page on 10 GW: a QA pass)."""
    if letters in _AMOUNTS.values():
        return True
    units = [letters, *(way[0] for way in ways if len(way) == 1)]
    return any(vocabulary.contains(term) for unit in units for n in range(1, 13) if (term := _single_term(f"{n}{unit}")) is not None)


def _summed(concept: Concept, ways: list[Alternative]) -> Concept:
    """Return amount *concept* with *ways* (other ways of writing it) added, its first alternative
    finding all of them with their scores added: they are one thing, as a word in a title and in a
    text is.  With the best way alone, Amazon's "Up to 5 Gigawatts" (title) and "5GW" (text) scored
    under a page saying "5 GW" once; "1gw" put a page saying "1 gigawatt planned" above the one with
    "1GW" in its title and "1-gigawatt" in its text.  The ways stay alternatives of their own: the
    words to mark, and what explain names.  One flat ``Or``: a quoted amount's phrases stay leaves of
    its first alternative (``_quoted_words``)."""
    first = concept.alternatives[0]
    leaves = [leaf for way in (first, *ways) for leaf in (way.query.subqueries if type(way.query) is wq.Or else (way.query,))]
    return replace(concept, alternatives=(Alternative(first.via, first.words, wq.Or(leaves)), *concept.alternatives[1:], *ways))


def _joined_word(text: str, a: Concept, b: Concept, vocabulary: Vocabulary) -> str | None:
    """Return the index word that typed words *a* and *b* make when written as one, else None."""
    if not (a.word and b.word) or (vocabulary.contains(a.word) and vocabulary.contains(b.word)):
        return None  # two words the index has are what was asked for (most pairs end here)
    # Each a word as typed (its synonyms aside: "mobile moe" is MobileMoE, though MoE has synonyms), of
    # two characters at least and no prefix, even one too short to be read as one ("stargate s*" was
    # "Including results for stargate *", the "s" joined on as a plural).
    plain = all(c.span and not c.prefix and c.count == 1 and c.alternatives[0].via == "exact" and len(c.text) > 1
                and text[c.span[1] : c.span[1] + 1] != "*" for c in (a, b))
    if not plain or not _JOINABLE_GAP.fullmatch(text[a.span[1] : b.span[0]]):  # type: ignore[index]
        return None
    if a.text.isdigit() and b.text.isdigit():
        return None  # two numbers are two numbers: "stargate 20 21" said "Including results for stargate 2021"
    word = _single_term(a.text + b.text)
    return word if word and vocabulary.contains(word) else None


def _fewer_members(parsed: ParsedQuery, doc_frequency: Callable[[str], int], limit: int) -> tuple[ParsedQuery, tuple[str, ...]]:
    """Return *parsed* with its OR groups' members and its other concepts at most *limit* in all, the
    rarest kept (as ``keep_informative`` keeps concepts), and those left out, as typed, in the query's order.  An OR group was
    one concept however many members it had: 4,096 characters of quoted phrases OR'ed took 17 s of a
    worker at 64k, and 700 words OR'ed 3-5 s, each member matched and respelt (QA pass AA)."""
    units = [(at, member) for at, c in enumerate(parsed.concepts) for member in (c.members or (c,))]

    def rarity(unit: tuple[int, Concept]) -> tuple[bool, int]:
        df = min((doc_frequency(w) for w in unit[1].alternatives[0].words), default=0)
        return df == 0, df

    kept = {id(member) for _, member in sorted(units, key=rarity)[:limit]}
    concepts = []
    for concept in parsed.concepts:
        if not concept.members:
            if id(concept) in kept:
                concepts.append(concept)
            continue
        members = tuple(m for m in concept.members if id(m) in kept)
        if len(members) == 1:
            concepts.append(replace(members[0], required=concept.required))
        elif members:
            words = tuple(sorted({w for m in members for w in m.alternatives[0].words}))
            exact = Alternative("exact", words, wq.Or([m.alternatives[0].query for m in members]))
            concepts.append(replace(concept, text=" OR ".join(m.text for m in members), members=members,
                                    alternatives=(exact, *(a for m in members for a in m.alternatives[1:]))))
    left = tuple(member.text for _, member in units if id(member) not in kept)
    return assemble(parsed.text, concepts, parsed.excluded, parsed.plain, parsed.corrections), left


def _typed_once(parsed: ParsedQuery, analyzer: Analyzer) -> bool:
    """Return whether no analysed word of *parsed* was typed twice (as ``_units`` reads it, without
    running it: a query with syntax, a quoted phrase above all, has no ``typed`` words kept)."""
    if parsed.typed is not None:
        return len(set(parsed.typed)) == len(parsed.typed)
    if not _is_text_chain(analyzer):
        return False
    # _units' words are these, less the question words it drops ("how big is"); with none of them
    # it falls back to the function words, so it is read only when there are some.
    words = [term for term, stop, _, _ in _query_tokens(parsed.text) if not stop]
    return bool(words) and len(set(words)) == len(words)


def keep_informative(
    parsed: ParsedQuery, analyzer: Analyzer, doc_frequency: Callable[[str], int], limit: int
) -> tuple[ParsedQuery, tuple[str, ...]]:
    """Return *parsed* with at most *limit* concepts, the rarest kept, each counted as often as typed.

    A pasted paragraph repeats what it is about and holds many common words: it is searched by its
    most informative concepts (fewest documents, as idf ranks them), each weighing as often as it
    was typed.  Words the index does not hold at all are kept last: in a long text they are more
    often noise than the typo of a rare word.  Also returns the concepts left out, as typed, in the
    query's order (the answer lists them: a count alone did not say which words went).
    """
    grouped = any(c.members for c in parsed.concepts)  # each OR group's members count, one concept each
    if grouped and sum(len(c.members) or 1 for c in parsed.concepts) > limit:
        parsed, dropped = _fewer_members(parsed, doc_frequency, limit)
        kept, more = keep_informative(parsed, analyzer, doc_frequency, limit)
        return kept, dropped + more
    if len(parsed.concepts) <= limit and _typed_once(parsed, analyzer):
        # The usual query: no word typed twice, so each concept (a run of typed words) is typed once.
        return parsed, ()
    typed = Counter(parsed.typed if parsed.typed is not None else (unit.word for unit in _units(parsed.text, analyzer)))
    unique: dict[tuple[str, ...], Concept] = {}
    for concept in parsed.concepts:
        unique.setdefault(concept.alternatives[0].words or (concept.text,), concept)
    # A letter alone counts once however often it was typed: the "E" of each "E: Unable to locate package"
    # line of a pasted apt error weighed most and put the e-book reader third (a QA pass).
    counts = [max(1, min((typed[w] for w in c.alternatives[0].words), default=1)) if len(c.text.strip()) > 1 else 1
              for c in unique.values()]
    concepts = [c if n == c.count else replace(c, count=n) for c, n in zip(unique.values(), counts)]
    dropped: tuple[str, ...] = ()
    if len(concepts) > limit:

        def rarity(concept: Concept) -> tuple[bool, int]:
            df = min((doc_frequency(w) for w in concept.alternatives[0].words), default=0)
            return df == 0, df

        kept = sorted(sorted(range(len(concepts)), key=lambda i: rarity(concepts[i]))[:limit])
        dropped = tuple(concepts[i].text for i in sorted(set(range(len(concepts))) - set(kept)))
        concepts = [concepts[i] for i in kept]
    if all(c.count == 1 for c in concepts) and len(concepts) == len(parsed.concepts):
        return parsed, ()
    return assemble(parsed.text, concepts, parsed.excluded, parsed.plain, parsed.corrections), dropped
