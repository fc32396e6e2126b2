"""Highlighting: the one place where result HTML is made, safe by construction.

A highlight is made from the tokens the index's analysis gave the stored text (``TermAnalyzer.tokens``:
term, position and the characters it came from), so a query for ``trainium`` marks ``Trainium2``
and ``growing`` marks ``grows``.  A title is shown whole; a snippet is the one or two passages
with the most matched terms, found as Whoosh's ``ContextFragmenter`` finds them, and cut at token
boundaries, with an ellipsis where a passage was cropped.

The stored text is plain (corpus.sanitize strips markup as records are loaded), and every piece of
it is HTML-escaped here; the only markup added is ``<mark>`` and ``</mark>`` around whole tokens.
So nothing but ``<mark>`` can reach a page, and bleach is not needed on the request path:
tests/test_highlight.py checks, by hypothesis, that bleach with the one-tag allow-list leaves every
title and snippet unchanged.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from heapq import nlargest
from html import escape

ELLIPSIS = "…"
SNIPPET_CHARS = 220
# Tokens ending past this character are not looked at (Whoosh's highlighter's default charlimit).
CHARLIMIT = 2**15

# (term, position, startchar, endchar), as TermAnalyzer.tokens gives them; a token that also
# gives its parts ("Trainium2": trainium2, trainium) repeats its characters once per term.
Token = tuple[str, int, int, int]
# A passage: its first and end character, and the matched tokens in it (startchar, endchar, term).
_Passage = tuple[int, int, list[tuple[int, int, str]]]


def highlight_title(text: str, terms: Iterable[str], tokens: Sequence[Token]) -> str:
    """Return *text* as HTML with every token holding one of *terms* marked."""
    termset = frozenset(terms)
    if termset and text:
        matches = [(start, end, term) for term, _, start, end in tokens if term in termset and end <= CHARLIMIT]
        if matches:
            return _format(text, (0, len(text), matches))
    return _crop(text, len(text))


def highlight_snippet(text: str, terms: Iterable[str], tokens: Sequence[Token], chars: int = SNIPPET_CHARS) -> str:
    """Return the best passages of *text* (about *chars* long) as HTML with *terms* marked."""
    termset = frozenset(terms)
    if termset and text:
        passages = nlargest(2, filter(_scores, _passages(tokens, termset, chars, chars // 3)), key=_score)
        if passages:
            passages.sort(key=_first)
            return " ".join(_format(text, passage) for passage in passages)
    return _crop(text, chars)


def _passages(tokens: Sequence[Token], termset: frozenset[str], maxchars: int, surround: int) -> Iterator[_Passage]:
    """Yield passages around matched tokens, as Whoosh's ContextFragmenter does (quirks and all).

    Up to *surround* characters of tokens before the first match are kept; each match extends the
    passage by *surround* characters after it, until it would pass *maxchars*.
    """
    first: int | None = None
    firsts: deque[int] = deque()  # starts of the unmatched tokens just before a passage
    countdown = -1  # characters left before the passage closes; < 0: not in a passage
    found: list[tuple[int, int, str]] = []
    endchar = 0
    length = 0
    for term, _, startchar, endchar in tokens:
        if endchar > CHARLIMIT:
            break
        size = endchar - startchar
        matched = term in termset
        if countdown < 0 and not matched:
            firsts.append(startchar)
            while firsts and endchar - firsts[0] > surround:
                firsts.popleft()
        elif length + size > maxchars:
            countdown = 0  # the passage is full: it closes with this token
        elif matched:
            countdown = surround
            if first is None:
                if firsts:
                    first = firsts[0]
                else:
                    first = startchar
                    countdown += surround  # no context before: give it after
            found.append((startchar, endchar, term))
        if countdown >= 0:
            length += size
            countdown -= size
            if countdown <= 0:
                yield _passage(found, first, endchar)
                found, firsts, first, length = [], deque(), None, 0
    if found:
        yield _passage(found, first, endchar)


def _passage(found: list[tuple[int, int, str]], first: int | None, endchar: int) -> _Passage:
    if first is None:
        first = found[0][0] if found else 0
    return first, endchar, found


def _scores(passage: _Passage) -> bool:
    return bool(passage[2])  # a passage without a match scores 0, under Whoosh's minimum of 1


def _score(passage: _Passage) -> float:
    """Return Whoosh's passage score (matches × 100 × distinct terms), ties going to the earlier passage."""
    found = passage[2]
    return len(found) * len({term for _, _, term in found}) * 100 - passage[0] * 1e-7


def _first(passage: _Passage) -> int:
    return passage[0]


def _format(text: str, passage: _Passage) -> str:
    """Return the passage's text escaped, its matches marked, with an ellipsis where it was cropped."""
    start, end, found = passage
    out = []
    index = start
    for match_start, match_end, _ in found:
        if match_start < index:
            continue  # the parts of a token already marked whole
        if match_start > index:
            out.append(escape(text[index:match_start]))
        out.append(f"<mark>{escape(text[match_start:match_end])}</mark>")
        index = match_end
    out.append(escape(text[index:end]))
    before = ELLIPSIS if start > 0 else ""
    after = ELLIPSIS if end < len(text) else ""
    return f"{before}{''.join(out).strip()}{after}"


def _crop(text: str, limit: int) -> str:
    if len(text) <= limit:
        return escape(text)
    cut = text[:limit].rsplit(" ", 1)[0] or text[:limit]
    return escape(cut.rstrip(" ,;:-")) + ELLIPSIS
