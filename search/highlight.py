"""Highlighting: where a hit's HTML is made (a correction's, by spell.respelt), safe by construction.

A highlight is made from the tokens the index's analysis gave the stored text (``TermAnalyzer.tokens``:
term, position and the characters it came from), so a query for ``trainium`` marks ``Trainium2``
and ``growing`` marks ``grows``.  A title is shown whole; a snippet is the one or two passages
with the most matched terms, found as Whoosh's ``ContextFragmenter`` finds them, then widened to
whole words and joined where they touch or stand a word or two apart (``joined``), with an ellipsis
where a passage was cropped.

The stored text is plain (corpus.sanitize strips markup as records are loaded), and every piece of
it is HTML-escaped here; the only markup added is ``<mark>`` and ``</mark>`` around whole tokens (one
mark around those that only blanks of a line part: "<mark>data center</mark>").
So nothing but ``<mark>`` can reach a page, and bleach is not needed on the request path:
tests/test_highlight.py checks, by hypothesis, that bleach with the one-tag allow-list leaves every
title and snippet unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from heapq import heappop, heappush
from itertools import chain
from operator import itemgetter
from html import escape

from index.analysis import KATAKANA, STOP_WORDS

ELLIPSIS = "…"
SNIPPET_CHARS = 220
WORD_REACH = 30  # how far a passage's edge moves to take in the rest of the word it cuts
BEFORE_A_CUT = ",;:-–—"  # left out where a passage is cut after them
# Whoosh's highlighter looked at the first 32,768 characters only: a match past them in a long
# summary gave no snippet and no answer card.  Here every token is looked at, and the passages are
# found among the first MATCHES_LOOKED_AT matched tokens, wherever they are: a summary of 1 MB
# holding a word thousands of times took 1 s to highlight when every match made a passage.
MATCHES_LOOKED_AT = 1000
# The most characters a passage shows: a passage takes in every token starting in its window, however
# long, so one word of 300,000 letters (or a run of Thai, written without spaces: one word to the
# index) made a snippet of 300,000 characters in every hit, page and feed entry holding it (a QA
# pass).  Beyond any passage of words (the longest in the seed and 64k corpora: 542 and 684).
PASSAGE_MAX_CHARS = 3 * SNIPPET_CHARS + 2 * WORD_REACH
# Passages this few characters apart are shown as one: an ellipsis standing for a word or two read as a
# sentence cut ("…compute environments. … appears to extend" left out "The method"; a QA pass).
JOIN_GAP = 25

# A katakana and the long-vowel mark after it: the mark lengthens its vowel, so a mark ending on the one
# takes in the other.  A katakana word's final "ー" is no word of the index (corpus.records.WORD):
# "サーバ" found "サーバー" and marked "<mark>サーバ</mark>ー", and "スーパー" (searched as スーパ) "スーパーコンピュータ"'s スーパ.
_LENGTHENED = re.compile("[" + KATAKANA + "]ー")

# A list item's marker at the start of a line ("- ", "* ", "• ", "2. "): a passage starting on that
# line starts after it.
_MARKER = re.compile(r"[ \t]*(?:[-*\u2022\u2023\u25e6]|\d{1,3}[.)])[ \t]+")

# (term, position, startchar, endchar), as TermAnalyzer.tokens gives them; a token that also
# gives its parts ("Trainium2": trainium2, trainium) repeats its characters once per term.
Token = tuple[str, int, int, int]
# A passage: its first and end character, and the matched tokens in it (startchar, endchar, term).
_Passage = tuple[int, int, list[tuple[int, int, str]]]


def highlight_title(text: str, terms: Iterable[str], tokens: Sequence[Token]) -> str:
    """Return *text* as HTML with every token holding one of *terms* marked."""
    termset = frozenset(terms)
    if termset and text:
        matches = [(start, end, term) for term, _, start, end in tokens if term in termset]
        if matches:
            return _format(text, (0, len(text), matches))
    return _crop(text, len(text))


def highlight_snippet(
    text: str, terms: Iterable[str], tokens: Sequence[Token], chars: int = SNIPPET_CHARS,
    where: Mapping[str, Sequence[int]] | None = None, concepts: Callable[[], Mapping[str, tuple[object, float]]] | None = None,
) -> str:
    """Return the best passages of *text* (about *chars* long) as HTML with *terms* marked.

    *where*, when given, holds each term's tokens by index (``TokenReplay.where``), so the matches
    are found without reading every token.  A text no longer than *chars* is shown whole, as a title
    is: Whoosh's passages dropped the start of a short guide section ("Nvidia leads; …" of 125
    characters began "…hyperscaler chips"), more than a third of *chars* before its first match.

    *concepts*, when given, returns each term's concept (what the reader typed it for: "chip" and its
    synonym "silicon" are one) and its weight, asked only of a text with more than two passages: the
    two shown are then those showing the most of the query (``_covering``), not Whoosh's (the most
    matches of one word).
    """
    if len(text) <= chars:
        return highlight_title(text, terms, tokens)
    termset = frozenset(terms)
    if termset and text:
        if where is None:
            hits = [i for i, token in enumerate(tokens) if token[0] in termset]
        else:
            hits = sorted(chain.from_iterable(where[term] for term in termset if term in where))
        del hits[MATCHES_LOOKED_AT:]
        # A passage without a match scores 0, under Whoosh's minimum of 1.
        passages = [passage for passage in _passages(tokens, hits, termset, chars, chars // 3) if passage[2]]
        if len(passages) > 2:  # heapq.nlargest(2, ...) is this sort, cut; most texts have one or two
            passages = _covering(passages, concepts()) if concepts else sorted(passages, key=_score, reverse=True)[:2]
        if passages:
            passages.sort(key=_first)
            matches = [(tokens[i][2], tokens[i][3], tokens[i][0]) for i in hits]
            # One ellipsis where text is left out between two passages: the first's.
            shown = (bounded(text, passage, PASSAGE_MAX_CHARS) for passage in joined(text, passages, matches))
            return " ".join(_format(text, passage, lead=i == 0) for i, passage in enumerate(shown))
    return _crop(text, chars)


def joined(text: str, passages: Sequence[_Passage], matches: Sequence[tuple[int, int, str]]) -> list[_Passage]:
    """Return *passages* (in text order) with each edge that cuts a word moved to take it in whole
    (within WORD_REACH characters), and passages that then touch, or only blanks or at most JOIN_GAP
    characters part, made one; an edge cut after a comma or a dash ends before it.  Each passage marks every one of *matches*
    (every matched token's start, end and term, in text order) it shows: a widened edge or a join
    showed "echo" unmarked in "…labstack/echo/master…".

    Whoosh's passages cut at tokens, so "300,000x" ended a passage as "300,000…", and two passages
    side by side read "…under the OpenAI for Countries… …program" where nothing was left out."""
    spans: list[tuple[int, int]] = []
    for start, end, _ in passages:
        start, end = _word_start(text, start), _word_end(text, end)
        if spans and not text[spans[-1][1] : start].strip():
            spans[-1] = (spans[-1][0], max(spans[-1][1], end))
        else:
            spans.append((start, end))
    final = []
    for start, end in spans:
        end = _with_what_follows_a_number(text, end)
        found = [match for match in matches if start <= match[0] and match[1] <= end]
        if found:  # the lines that hold the matches: not the end of the list item before, nor the next
            start, end = _line_start(text, start, found[0][0]), _line_end(text, end, found[-1][1])
            start = _past_an_orphan(text, start, found[0][0])
        if end < len(text):  # "today,…" reads "today…" (as ``_crop``); cut on raw text, never on an entity
            floor = max((match[1] for match in found), default=start)
            while end > floor and text[end - 1] in BEFORE_A_CUT + " ":
                end -= 1
        # (Not past PASSAGE_MAX_CHARS: ``bounded`` then cut the second's marks off, behind a long word: a review.)
        if final and start - final[-1][1] <= JOIN_GAP and end - final[-1][0] <= PASSAGE_MAX_CHARS:
            start = final.pop()[0]
            found = [match for match in matches if start <= match[0] and match[1] <= end]
        final.append((start, end, found))
    return final


def bounded(text: str, passage: _Passage, limit: int) -> _Passage:
    """Return *passage* cut to at most *limit* characters of *text*: from a third of them before its
    first match, ended at the last blank within WORD_REACH of the limit (else at the limit, inside a
    word too long to show whole); a match the cut goes through is marked as far as it is shown."""
    start, end, found = passage
    if end - start <= limit:
        return passage
    anchor = found[0][0] if found else start
    if anchor - start > limit // 3:
        start = anchor - limit // 3
        blank = text.find(" ", start, min(anchor, start + WORD_REACH))
        start = blank + 1 if blank >= 0 else start
    end = min(end, start + limit)
    blank = text.rfind(" ", max(start, found[0][1] if found else start, end - WORD_REACH), end)
    end = blank if blank > 0 and end < len(text) and not text[end].isspace() else end
    return start, end, [(first, min(last, end), term) for first, last, term in found if first < end]


# A passage ending on a number ends after the word that follows it, its unit or scale: "…targeting up to
# $500…" for "$500 billion", "deployment of 10…" for "10 gigawatts" (a reader's review).
# A number alone ("$500", "10", "1.2"), not a name holding digits ("Trainium3", "A100s"), followed by a word.
_NUMBER_END = re.compile(r"(?:^|\s)[$€£]?\d[\d,.]*\d$|(?:^|\s)[$€£]?\d$")
# A word whole: not the "CD" of "CD-ROMs" (a regression pass).
_NEXT_WORD = re.compile(r"\s+([^\W\d_]+)(?![\w-])")
# One word ending a sentence where a passage starts ("…training. The collaboration"): left out.  Its
# letter before the stop is small or a digit, it holds no other stop, and a capital starts the next
# word, so an abbreviation ("U.S. Army", "e.g. by", "approx. 5 GW", "Dr. Smith") is no sentence's end.
_ORPHAN = re.compile(r"(?![A-Z][a-z]{0,3}\.)[^\s.]*[a-z0-9][.!?][\"'”’)]*\s+(?=[A-Z])")  # (not "St.", "Mrs.", "Jan.")


def _with_what_follows_a_number(text: str, end: int) -> int:
    """Return *end*, or past the word after it when the passage ends on a number (within WORD_REACH)."""
    if end >= len(text) or not text[end - 1].isdigit() or not _NUMBER_END.search(text, max(0, end - WORD_REACH), end):
        return end
    following = _NEXT_WORD.match(text, end, min(len(text), end + WORD_REACH))
    if not following or following.end() >= min(len(text), end + WORD_REACH) or following[1].lower() in STOP_WORDS:
        return end  # no word, or a function word: "in 2026 and…" is no amount (a regression pass)
    return following.end()


def _past_an_orphan(text: str, start: int, first: int) -> int:
    """Return where a passage from *start* begins once a lone word ending a sentence before its *first*
    match is left out ("…process. The Stargate Project" read as "infrastructure process"; a reader's review)."""
    orphan = _ORPHAN.match(text, start, first) if start else None
    return orphan.end() if orphan and not at_line_start(text, start) else start


def _line_start(text: str, start: int, first: int) -> int:
    """Return where a passage from *start* begins when a line starts before its *first* match: that
    line's start, after its list marker ("…fine-tuning. - Sparse attention: DeepSeek's…" began in the
    item before the one matched); else *start*."""
    line = text.rfind("\n", start, first)
    if line < 0:
        return start
    marker = _MARKER.match(text, line + 1, first)
    return marker.end() if marker else line + 1


def _line_end(text: str, end: int, last: int) -> int:
    """Return where a passage to *end* ends when a line ends after its *last* match: there; else *end*."""
    line = text.find("\n", last, end)
    return end if line < 0 else line


def at_line_start(text: str, start: int) -> bool:
    """Return whether *start* is the start of a line of *text*, or of a list item's words after its marker."""
    line = text.rfind("\n", 0, start) + 1
    if line == start:
        return True
    marker = _MARKER.match(text, line, start + 1)
    return marker is not None and marker.end() == start


def _word_start(text: str, start: int) -> int:
    edge = start
    while edge > 0 and start - edge < WORD_REACH and not text[edge - 1].isspace():
        edge -= 1
    return edge if edge == 0 or text[edge - 1].isspace() else start


def _word_end(text: str, end: int) -> int:
    edge = end
    while edge < len(text) and edge - end < WORD_REACH and not text[edge].isspace():
        edge += 1
    return edge if edge == len(text) or text[edge].isspace() else end


def _passages(
    tokens: Sequence[Token], hits: list[int], termset: frozenset[str], maxchars: int, surround: int
) -> Iterator[_Passage]:
    """Yield passages around matched tokens, as Whoosh's ContextFragmenter does (quirks and all).

    A passage starts with the tokens within *surround* characters before its first match; each
    match extends it by *surround* characters after, until it would pass *maxchars*.  Between
    passages the loop jumps to the next match (*hits*: the matched tokens' indexes, ascending)
    instead of stepping through every token.
    """
    next_hit = 0
    context: int | None = None  # where the tokens before the next passage's first match start
    first: int | None = None  # where the open passage starts
    countdown = -1  # characters left before the open passage closes; < 0: none is open
    found: list[tuple[int, int, str]] = []
    endchar = 0
    length = 0
    i, count = 0, len(tokens)
    while i < count:
        if countdown < 0:
            while next_hit < len(hits) and hits[next_hit] < i:
                next_hit += 1
            if next_hit == len(hits):
                return
            context = _context_start(tokens, i, hits[next_hit], surround)
            i = hits[next_hit]
        term, _, startchar, endchar = tokens[i]
        i += 1
        size = endchar - startchar
        if length + size > maxchars:
            countdown = 0  # the passage is full: it closes with this token
        elif term in termset:
            countdown = surround
            if first is None:
                if context is not None:
                    first = context
                else:
                    first = startchar
                    countdown += surround  # no context before: give it after
            found.append((startchar, endchar, term))
        if countdown >= 0:
            length += size
            countdown -= size
            if countdown <= 0:
                yield _passage(found, first, endchar)
                found, context, first, length = [], None, None, 0
    if found:
        yield _passage(found, first, endchar)


def _context_start(tokens: Sequence[Token], low: int, hit: int, surround: int) -> int | None:
    """Return the start of the tokens low..hit-1 that end within *surround* characters before *hit*."""
    # Whoosh keeps the starts of the unmatched tokens no further than *surround* characters back
    # from the last one's end; token ends never decrease, so they are the last few tokens.
    if hit == low:
        return None
    floor = tokens[hit - 1][3] - surround
    k = hit
    while k > low and tokens[k - 1][2] >= floor:
        k -= 1
    return tokens[k][2] if k < hit else None


def _passage(found: list[tuple[int, int, str]], first: int | None, endchar: int) -> _Passage:
    if first is None:
        first = found[0][0] if found else 0
    return first, endchar, found


def _score(passage: _Passage) -> float:
    """Return Whoosh's passage score (matches × 100 × distinct terms), ties going to the earlier passage."""
    found = passage[2]
    return len(found) * len({term for _, _, term in found}) * 100 - passage[0] * 1e-7


def _covering(passages: Sequence[_Passage], concepts: Mapping[str, tuple[object, float]]) -> list[_Passage]:
    """Return the two of *passages* that show the most of the query: the first holding the weightiest
    of its concepts (each counted once, by *concepts*' weights), the second the most of what the first
    lacks; ties go as Whoosh's score (``_score``).  Whoosh's own two, the most matches of any terms,
    showed a guide section found for "colossus 2" by "Phase 2" and "Trainium2", never "Colossus";
    the card for "what chips does anthropic use" showed "silicon" and "chip" (one concept: synonyms),
    never "Anthropic" (a reader's QA pass)."""

    def shows(passage: _Passage, shown: AbstractSet[object]) -> float:
        best: dict[object, float] = {}
        for _, _, term in passage[2]:
            concept, weight = concepts.get(term, (term, 0.0))
            if concept not in shown and weight > best.get(concept, -1.0):
                best[concept] = weight
        return sum(best.values())

    first = max(passages, key=lambda p: (shows(p, frozenset()), _score(p)))
    shown = {concepts.get(term, (term, 0.0))[0] for _, _, term in first[2]}
    second = max((p for p in passages if p is not first), key=lambda p: (shows(p, shown), _score(p)))
    return [first, second]


def _first(passage: _Passage) -> int:
    return passage[0]


def _format(text: str, passage: _Passage, lead: bool = True) -> str:
    """Return the passage's text escaped, its matches marked, with an ellipsis where it was cropped
    (at its start only when *lead*)."""
    start, end, found = passage
    out = []
    index = start
    for match_start, match_end, _ in found:
        if match_start < index:
            continue  # the parts of a token already marked whole
        if match_start > index:
            out.append(escape(text[index:match_start]))
        if text[match_end : match_end + 1] == "ー" and match_end < end and _LENGTHENED.match(text, match_end - 1):
            match_end += 1  # the "ー" lengthening a katakana marked: its word's, searched or not (``_LENGTHENED``)
        out.append(f"<mark>{escape(text[match_start:match_end])}</mark>")
        index = match_end
    out.append(escape(text[index:end]))
    before = ELLIPSIS if start > 0 and lead and not at_line_start(text, start) else ""
    # Marks with nothing but blanks between them are one: "北京" is two words of the index, one word to
    # its reader, and "data center" one phrase, shown as "[data] [center]" with a gap (a QA pass); a line
    # break stays between two.  (Escaped text holds no "<", so only two marks can meet there.)
    shown = "".join(out).strip()
    if shown.count("<mark>") > 1:  # (most titles mark one word, or none: no need to look)
        shown = _ADJACENT_MARKS.sub(_JUST_THE_BLANKS, shown)
    return f"{before}{shown}{ellipsis_after(text, end)}"


# A mark's end and the next one's start with only blanks of one line between them (not a line break,
# as str.splitlines and the page's ``white-space: pre-line`` read them).
_ADJACENT_MARKS = re.compile(r"</mark>([^\S\n\r\v\f\x1c-\x1e\x85\u2028\u2029]*)<mark>")
# The blanks a match holds (its group 1), as the template r"\1" gives them: looked up in C, where the
# template ran Python's re._parser.expand_template for each pair of marks joined.
_JUST_THE_BLANKS = itemgetter(1)


def ellipsis_after(text: str, end: int) -> str:
    """Return what follows a passage of *text* that ends at *end*: nothing at the text's end, else an
    ellipsis, set apart after a full stop ("at scale. …", not "at scale.…")."""
    if end >= len(text):
        return ""
    return " " + ELLIPSIS if end > 0 and text[end - 1] in ".!?" else ELLIPSIS


def _crop(text: str, limit: int) -> str:
    """Return *text*'s opening of at most *limit* characters, escaped, cut after a word; inside a word
    so long that cutting before it would leave less than half (a summary opening "A xxxx…" with a word
    of 500 letters was shown as "A…": a QA pass)."""
    if len(text) <= limit:
        return escape(text)
    cut = text[:limit]
    if (space := cut.rfind(" ")) >= limit // 2:
        cut = cut[:space]
    return escape(cut.rstrip(" ,;:-")) + ELLIPSIS


def together(
    tokens: Sequence[Token], where: Mapping[str, Sequence[int]], phrases: Sequence[Sequence[str]], only: frozenset[str],
    slop: int | Sequence[int],
) -> tuple[tuple[Token, ...], dict[str, Sequence[int]]]:
    """Return *tokens* and *where* (each term's tokens by index) with the terms in *only* left out
    (never marked) where they are not part of one of *phrases*: its words in order, each 1 to *slop*
    positions after the one before (*slop*: one for all, or each phrase's), as the phrase query matched them.  "United" is marked in
    "United Kingdom" for a query whose synonym that is, and not in "United States".

    The phrases are walked together, as a tree of their words, from each place a first word stands,
    in text order, so a place costs the same however many phrases there are; and the walk stops once
    MATCHES_LOOKED_AT of their words are marked before the place it is at, the matches a snippet
    looks at (a word marked after them could only be in the tail of the last passage).  Each phrase
    walked from every place its first word stood took 34 s of a 42 s request: 28 phrases OR'ed, on
    13 summaries of a hostile corpus near the 1,000,000 characters allowed (QA pass AA)."""
    slops = [slop] * len(phrases) if isinstance(slop, int) else slop
    trees: dict[int, dict[str, dict]] = {}  # by slop: each phrase's words, a branch a word; _END where one ends
    for phrase, gaps in zip(phrases, slops):
        if phrase:
            node = trees.setdefault(gaps, {})
            for word in phrase:
                node = node.setdefault(word, {})
            node[_END] = {}
    at: dict[tuple[str, int], list[int]] = {}  # (term, position) -> the tokens holding it
    terms_at: dict[int, list[str]] = {}  # position -> the phrases' terms there
    for term in frozenset(chain.from_iterable(phrases)):
        for i in where.get(term, ()):
            held = at.setdefault((term, tokens[i][1]), [])
            if not held:
                terms_at.setdefault(tokens[i][1], []).append(term)
            held.append(i)
    kept: set[int] = set()
    counted: list[int] = []  # the positions of the tokens kept, not yet counted as before the walk
    before = 0  # tokens kept before the place the walk is at
    whole: dict[tuple[int, int], bool] = {}  # (branch, position): whether a phrase goes on from there to its end
    for pos in sorted(terms_at):
        while counted and counted[0] < pos:
            heappop(counted)
            before += 1
        if before >= MATCHES_LOOKED_AT:
            break
        for term in terms_at[pos]:
            for gaps, tree in trees.items():
                if term in tree:
                    for i in _walk(tree[term], term, pos, gaps, at, terms_at, whole):
                        if i not in kept:
                            kept.add(i)
                            heappush(counted, tokens[i][1])
    dropped = {i for term in only for i in where.get(term, ()) if i not in kept}
    if not dropped:
        return tuple(tokens), dict(where)
    narrowed = dict(where)
    for term in only:
        left = [i for i in where.get(term, ()) if i in kept]
        if left:
            narrowed[term] = left
        else:
            narrowed.pop(term, None)
    return tuple(("", *token[1:]) if i in dropped else token for i, token in enumerate(tokens)), narrowed


_END = ""  # no term is empty


def _walk(
    node: dict[str, dict], term: str, pos: int, gaps: int, at: Mapping[tuple[str, int], list[int]],
    terms_at: Mapping[int, list[str]], whole: dict[tuple[int, int], bool],
) -> list[int]:
    """Return the tokens of every phrase of *node*'s branch that stands whole from *term* at *pos*
    (empty when none does), deciding each (branch, position) once (*whole*): a place the phrases reach
    by several ways is walked on once.  Iterative: a quoted phrase may have hundreds of words."""
    found: list[int] = []
    stack: list[tuple[dict[str, dict], str, int, bool]] = [(node, term, pos, False)]
    while stack:
        node, term, pos, after = stack.pop()
        key = (id(node), pos)
        steps = [(node[word], word, pos + gap) for gap in range(1, gaps + 1) for word in terms_at.get(pos + gap, ()) if word in node]
        if not after:
            if key in whole:
                continue
            stack.append((node, term, pos, True))
            stack.extend((child, word, place, False) for child, word, place in steps if (id(child), place) not in whole)
            continue
        ends = _END in node or any(whole[(id(child), place)] for child, _, place in steps)
        whole[key] = ends
        if ends:
            found += at[(term, pos)]
    return found
