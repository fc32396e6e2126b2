"""Highlighting: the one place where result HTML is made, and the one place it is sanitised.

Whoosh's highlighter tokenizes a stored text with the index's own analyzer, so a query for
``trainium`` marks ``Trainium2`` and ``growing`` marks ``grows``.  A fragmenter picks the passages
with the most matched terms; our formatter escapes every piece of source text, wraps matched words
in ``<mark>``, and adds an ellipsis where a passage was cropped.  The result then passes through
bleach with an allow-list of one tag, so nothing but ``<mark>`` can ever reach a page.
"""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Iterable, Sequence

import bleach
from whoosh.analysis import Analyzer
from whoosh.highlight import (
    BasicFragmentScorer,
    ContextFragmenter,
    Formatter,
    Fragment,
    WholeFragmenter,
    highlight,
)

ALLOWED_TAGS = frozenset({"mark"})
ELLIPSIS = "…"
SNIPPET_CHARS = 220


# A Cleaner is costly to build (bleach.clean builds one per call) and not meant to be shared
# between threads, so each thread keeps one, built from the constant allow-list above.
_cleaners = threading.local()


def _cleaner() -> bleach.Cleaner:
    cleaner = getattr(_cleaners, "cleaner", None)
    if cleaner is None:
        cleaner = _cleaners.cleaner = bleach.Cleaner(tags=ALLOWED_TAGS, attributes={}, protocols=[], strip=True)
    return cleaner


def sanitize(markup: str) -> str:
    """Return *markup* with every tag but ``<mark>`` (and every attribute) escaped or removed."""
    return _cleaner().clean(markup)


# Joins a page's fragments for one pass through bleach: a private-use character, which the
# fragments are checked not to contain, and which bleach keeps as it is.
_JOIN = "\ue000"
# Fragments holding the joiner or control characters are cleaned one by one: bleach turns a control
# character into "?" or keeps it depending on what follows it.
_ODD = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufdd0-\ufdef\ufffe\uffff\ue000]")


def sanitize_all(markups: Sequence[str]) -> list[str]:
    """Return each of *markups* sanitised as ``sanitize`` does, in one pass through bleach.

    bleach's cost is mostly per call (about 0.15 ms) rather than per character, so a page's twenty
    fragments are joined, cleaned once and split again.  Each piece must come back with its own
    marks balanced; if anything looks otherwise, every fragment is cleaned on its own.
    """
    if len(markups) < 2 or any(_ODD.search(m) for m in markups):
        return [sanitize(m) for m in markups]
    pieces = _cleaner().clean(_JOIN.join(markups)).split(_JOIN)
    if len(pieces) != len(markups) or any(p.count("<mark>") != p.count("</mark>") for p in pieces):
        return [sanitize(m) for m in markups]
    return pieces


class _MarkFormatter(Formatter):
    """Escape source text, wrap matches in <mark>, and show where a passage was cropped."""

    between = " "

    def _text(self, text: str) -> str:
        return html.escape(text, quote=True)

    def format_token(self, text: str, token, replace: bool = False) -> str:
        return f"<mark>{html.escape(text[token.startchar:token.endchar], quote=True)}</mark>"

    def format_fragment(self, fragment: Fragment, replace: bool = False) -> str:
        body = super().format_fragment(fragment, replace)
        start = ELLIPSIS if fragment.startchar > 0 else ""
        end = ELLIPSIS if fragment.endchar < len(fragment.text) else ""
        return f"{start}{body.strip()}{end}"


class _EarliestFirstScorer(BasicFragmentScorer):
    """Whoosh's passage score, with ties going to the earlier passage.

    Whoosh breaks ties by comparing the fragments' ids (memory addresses), so the same search could
    show different passages from one call to the next.
    """

    def __call__(self, fragment: Fragment) -> float:
        return super().__call__(fragment) - fragment.startchar * 1e-7


def _crop(text: str, limit: int) -> str:
    if len(text) <= limit:
        return html.escape(text, quote=True)
    cut = text[:limit].rsplit(" ", 1)[0] or text[:limit]
    return html.escape(cut.rstrip(" ,;:-"), quote=True) + ELLIPSIS


# *analyzer* is the index's analyzer, or anything called like one (search.snapshot.TokenReplay).
# The *_markup functions return markup that has not been through bleach yet: pass it to sanitize
# or sanitize_all before it goes anywhere.
def title_markup(text: str, terms: Iterable[str], analyzer: Analyzer) -> str:
    """Return *text* as HTML with every matched word marked (not yet sanitised)."""
    return _markup(text, terms, analyzer, WholeFragmenter(), top=1, fallback=len(text))


def snippet_markup(text: str, terms: Iterable[str], analyzer: Analyzer, chars: int = SNIPPET_CHARS) -> str:
    """Return the best passages of *text* (about *chars* long) as HTML with matches marked (not yet sanitised)."""
    fragmenter = ContextFragmenter(maxchars=chars, surround=chars // 3)
    return _markup(text, terms, analyzer, fragmenter, top=2, fallback=chars)


def highlight_title(text: str, terms: Iterable[str], analyzer: Analyzer) -> str:
    """Return *text* as safe HTML with every matched word marked."""
    return sanitize(title_markup(text, terms, analyzer))


def highlight_snippet(text: str, terms: Iterable[str], analyzer: Analyzer, chars: int = SNIPPET_CHARS) -> str:
    """Return the best passages of *text* (about *chars* long) as safe HTML with matches marked."""
    return sanitize(snippet_markup(text, terms, analyzer, chars))


def _markup(text: str, terms: Iterable[str], analyzer: Analyzer, fragmenter, top: int, fallback: int) -> str:
    termset = frozenset(terms)
    markup = ""
    if termset and text:
        markup = highlight(
            text, termset, analyzer, fragmenter, _MarkFormatter(), top=top, scorer=_EarliestFirstScorer(), mode="index"
        )
    return markup or _crop(text, fallback)
