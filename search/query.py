"""Query building: pure functions from the text a reader typed to Whoosh queries.

The search box understands "quoted phrases", ``-excluded`` words, ``OR``, ``AND``, ``NOT`` and
parentheses; field names, ranges, wildcards and boosts are not syntax here, so ``title:x`` searches
the words ``title`` and ``x``.  Each text gives two queries: ``all_words`` (every word must match)
ranks first, ``any_words`` (at least one must) fills the rest, so a long question is never an empty
page.  Whoosh's parser raises on some input (``NOT NOT a``, ``a ANDNOT ANDNOT b``); such text is
searched as its plain words instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from whoosh import query as wq
from whoosh.qparser import AndGroup, OrGroup, QueryParser
from whoosh.qparser import plugins as qplugins
from whoosh.fields import Schema

SEARCH_FIELDS = ("title", "body")
_WORDS = re.compile(r"\w+(?:[.'’]\w+)*")
_PLUS = r"(?:^|(?<=[\s(]))\+(?=[\w\"(])"
_MINUS = r"(?:^|(?<=[\s(]))-(?=[\w\"(])"
_DROPPED_PLUGINS = (
    qplugins.SingleQuotePlugin,  # apostrophes are part of words here
    qplugins.FieldsPlugin,
    qplugins.WildcardPlugin,
    qplugins.RangePlugin,
    qplugins.BoostPlugin,
    qplugins.EveryPlugin,
)


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    """The queries for one text, and the analysed terms to highlight."""

    text: str
    all_words: wq.Query
    any_words: wq.Query
    terms: frozenset[str]
    plain: bool  # True when the syntax could not be parsed and the words were searched instead

    @property
    def is_empty(self) -> bool:
        return self.any_words is wq.NullQuery


class _Parser(QueryParser):
    """Whoosh's parser limited to the syntax above; can keep stop words when a query is nothing else."""

    def __init__(self, schema: Schema, group, keep_stops: bool = False) -> None:
        super().__init__(None, schema, group=group)
        self.keep_stops = keep_stops
        for plugin in _DROPPED_PLUGINS:
            self.remove_plugin_class(plugin)
        # "-word" excludes only at the start of a word: "V3.2-Exp" and "fine-tune" stay words.
        self.add_plugin(qplugins.PlusMinusPlugin(plusexpr=_PLUS, minusexpr=_MINUS))
        self.add_plugin(qplugins.MultifieldPlugin(list(SEARCH_FIELDS)))

    def term_query(self, fieldname, text, termclass, boost=1.0, tokenize=True, removestops=True):
        return super().term_query(
            fieldname, text, termclass, boost, tokenize, removestops and not self.keep_stops
        )


def _parse(text: str, schema: Schema) -> tuple[wq.Query, wq.Query]:
    queries = []
    for group in (AndGroup, OrGroup):
        q = _Parser(schema, group).parse(text)
        if q is wq.NullQuery and _WORDS.search(text):
            # Nothing but function words ("it", "who is"): search them after all.
            q = _Parser(schema, group, keep_stops=True).parse(text)
        queries.append(q)
    return queries[0], queries[1]


def _plain(text: str, schema: Schema) -> tuple[wq.Query, wq.Query]:
    """Return all-words and any-words queries for the bare words of *text*, built without the parser."""
    analyzer = schema[SEARCH_FIELDS[0]].analyzer
    words = _WORDS.findall(text)
    per_word = []
    for keep_stops in (False, True):
        for word in words:
            tokens = [t.text for t in analyzer(word, mode="query", removestops=not keep_stops)]
            if tokens:
                per_word.append(
                    wq.And([wq.Or([wq.Term(f, tok) for f in SEARCH_FIELDS]) for tok in dict.fromkeys(tokens)])
                )
        if per_word:
            break
    if not per_word:
        return wq.NullQuery, wq.NullQuery
    return wq.And(per_word).normalize(), wq.Or(per_word).normalize()


def _terms(q: wq.Query) -> frozenset[str]:
    """Return the analysed words *q* looks for, leaving out excluded ones (for highlighting)."""
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
    return frozenset(terms)


def build_query(text: str, schema: Schema) -> ParsedQuery:
    """Return the all-words and any-words queries for *text*; never raises on odd syntax."""
    plain = False
    try:
        all_words, any_words = _parse(text, schema)
    except Exception:  # noqa: BLE001 - Whoosh's parser raises assorted internal errors on odd syntax
        plain = True
        all_words, any_words = _plain(text, schema)
    return ParsedQuery(
        text=text, all_words=all_words, any_words=any_words, terms=_terms(any_words), plain=plain
    )

