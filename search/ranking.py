"""Ranking: one score per document, and the same score taken apart for ``explain``.

A document's score is its BM25F relevance to the query times how much of the query it covers:

    score = (sum over concepts c of qtf_c ** 1.5 * bm25f_c) * coverage ** (4 / n)

- ``bm25f_c`` is the concept's score in the document: its best alternative (the typed words, a
  synonym, a close spelling), BM25 in the title plus BM25 in the body (search.weighting has the idf);
- ``qtf_c`` is how often the concept was typed: a pasted paragraph repeats what it is about;
- ``coverage`` is the share of the query's rarity the document holds: the BM25 idf of the concepts
  it matches over that of all the concepts.  A document with every concept has 1; of "how much did
  microsoft invest in openai" (concepts "microsoft", "invest", "openai": "how", "much", "did" and "in"
  are none), one that matches only "invest" has far less;
- ``n`` is the number of concepts (at least 2): the exponent is 2 for two words and falls to 0.125
  for a 32-concept paragraph.  A reader who types three words wants all three; a pasted paragraph
  is matched only in part by every good answer.

A word that is a document's name (``deb-sfeed`` for "sfeed") where its text does not write it earns
that document the word's points as if its title wrote it once (``name_points``).

To that a meaning term is added (``SEMANTIC_WEIGHT`` below), and a bare number weighs
``NUMBER_WEIGHT`` of a word.  There are no tiers: a document matching every word outranks one
matching some only when its score is higher, and hits come back in score order.  The exponent was
chosen across collections (docs/relevance.md).
"""

from __future__ import annotations

import heapq
import re
import time
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import compress
from operator import add

import numpy as np

from index.whoosh_compat import Unsupported
from search.dense import DENSE_FROM, rank_dense
from search.query import ParsedQuery
from search.evaluator import Candidates, scores
from search.snapshot import Snapshot
from search.weighting import K1, TITLE_B, bm25_idf

# How steeply a partial match loses to a full one (0: plain BM25F of the words it has).
COVERAGE_POWER = 2.0
# ... for a two-concept query, and times (2 / concepts) ** COVERAGE_DECAY for more: a reader who types
# three words wants all three, a pasted paragraph is matched in part by every good answer.
COVERAGE_DECAY = 1.0
# How much a concept typed n times weighs: n ** QTF_POWER.
QTF_POWER = 1.5
# A concept that is a bare number ("2", "2025", "3.11") weighs this much, in its score and in coverage:
# a number is weaker evidence than a word ("stargate 2" put pages with "Trainium2" above every
# Stargate page; docs/relevance.md has the grid: 0.5 moved no judged figure but Debian versions, up).
NUMBER_WEIGHT = 0.5
BARE_NUMBER = re.compile(r"[\d.,]+")  # a word that is only a number
# Meaning (search/semantic.py): a document whose vector is within a cosine of SEMANTIC_FLOOR of the
# query's gains SEMANTIC_WEIGHT * best * (cos - floor) / (1 - floor), where best is the best word
# score of this query (1 when nothing matched by words): the same scale whatever the corpus.  The
# SEMANTIC_NEIGHBOURS nearest documents above the floor are candidates even when they share no word
# with the query.  0 turns the term off; the values were chosen across collections (docs/relevance.md).
SEMANTIC_WEIGHT = 1.25
SEMANTIC_FLOOR = 0.5
SEMANTIC_NEIGHBOURS = 20
# Cosines are computed for this many nearest documents, not for every candidate (at 64k documents a
# cosine for each of thousands of candidates cost 7 ms a search); farther ones are under the floor.
SEMANTIC_POOL = 100
# A document holding a hyphenated word's parts, not the word, holds this share of its rarity.
LOOSE_SHARE = 0.5
# At most this many sets earn coverage: a document's bit for each fits in an int64 (search/dense.py).
MAX_SETS = 63


@dataclass(frozen=True, slots=True)
class Coverage:
    """The rarity of each concept, and which documents hold each, for the coverage of any document.

    A document holding a hyphenated word's parts apart and not the word ("full" and "stack" for
    "full-stack") holds LOOSE_SHARE of the word's rarity: it is a weaker match, not none (it scored 0).
    """

    # Each set of documents that earns coverage and what it earns: a concept's documents its idf, a
    # concept's loose-only documents LOOSE_SHARE of it.  A document's bit for a set is its index here.
    sets: tuple[AbstractSet[int], ...]
    credits: tuple[float, ...]
    total: float  # the concepts' idfs summed
    concepts: int
    # The coverage exponent for this many concepts: steep for a few words, gentle for a paragraph.
    power: float

    @classmethod
    def of(
        cls, concept_docs: Sequence[AbstractSet[int]], doc_count: int, concepts: Sequence[object] = (),
        loose_docs: Sequence[AbstractSet[int]] = (),
    ) -> Coverage:
        scales = [_scale(c) for c in concepts] if len(concepts) == len(concept_docs) else [1.0] * len(concept_docs)
        idfs = [bm25_idf(doc_count, len(docs)) * scale if docs else 0.0 for docs, scale in zip(concept_docs, scales)]
        sets, credits = list(concept_docs), list(idfs)
        for idf, docs in zip(idfs, loose_docs):
            if docs and idf and len(sets) < MAX_SETS:
                sets.append(docs)
                credits.append(idf * LOOSE_SHARE)
        return cls(tuple(sets), tuple(credits), sum(idfs), len(idfs), COVERAGE_POWER * (2 / max(len(idfs), 2)) ** COVERAGE_DECAY)

    @property
    def partial(self) -> bool:
        """Whether a document can cover less than all of the query (it has two concepts or more)."""
        return self.concepts > 1

    def share(self, docnum: int) -> float:
        """Return the share of the query's rarity that *docnum* covers (1.0 for a one-concept query)."""
        return self._share_of(sum(1 << bit for bit, docs in enumerate(self.sets) if docnum in docs))

    def factor(self, docnum: int) -> float:
        return self.share(docnum) ** self.power

    def weigh(self, totals: dict[int, float]) -> dict[int, float]:
        """Return each of *totals* times its document's ``factor``, the same floats, reckoned once per
        combination of concepts held: at 64k a query has thousands of candidates and a few combinations.

        The documents are split by the concepts they hold with set operations (done in C), then each
        group is multiplied by its factor in one pass: no Python step per document.
        """
        groups: list[tuple[int, Candidates]] = [(0, totals.keys())]
        for bit, docs in enumerate(self.sets):
            flag = 1 << bit
            split: list[tuple[int, Candidates]] = []
            for mask, members in groups:
                inside = members & docs
                if not inside:
                    split.append((mask, members))
                    continue
                split.append((mask | flag, inside))
                if len(inside) < len(members):
                    split.append((mask, members - inside))
            groups = split
        weighed: dict[int, float] = {}
        for mask, members in groups:
            factor = self.factor_of(mask)
            weighed.update(zip(members, map(factor.__mul__, map(totals.__getitem__, members))))
        return weighed

    def factor_of(self, mask: int) -> float:
        """Return ``factor`` of a document holding the sets whose bits *mask* sets."""
        return self._share_of(mask) ** self.power

    def _share_of(self, mask: int) -> float:
        # ``share`` for a document holding the sets whose bits *mask* sets: the same sum, in order.
        if self.concepts < 2 or not self.total:
            return 1.0
        return sum(credit for bit, credit in enumerate(self.credits) if mask >> bit & 1) / self.total


def name_points(snap: Snapshot, docnums: Sequence[int], holders: int) -> np.ndarray:
    """Return the points a word earns each document of *docnums* whose name it is, or a part of whose
    name it is, where its text does not write it: BM25 of the word once in its title, the word held by
    *holders* documents (the named ones among them).  "sfeed test" on the Debian corpus listed 3,102
    pages holding "test" and the package sfeed, whose name alone says "sfeed", past the 500th: it held
    the query's rarest word and scored 0 (a regression pass).  A name is what a reader calls the
    document, as a title is."""
    reader = snap.searcher().reader()
    average = reader.field_length("title") / max(snap.doc_count, 1) or 1.0
    lengths = snap.title_lengths[np.asarray(docnums, dtype=np.intp)]
    return bm25_idf(snap.doc_count, holders) * (K1 + 1) / (1 + K1 * ((1 - TITLE_B) + TITLE_B * lengths / average))


def _among(docs: AbstractSet[int], candidates: Candidates) -> AbstractSet[int]:
    """Return those of *docs* that are *candidates* (a set, or any container of document numbers)."""
    return docs & candidates if isinstance(candidates, AbstractSet) else {d for d in docs if d in candidates}


def _named_docs(by_name: Sequence[tuple[int, AbstractSet[int]]]) -> dict[int, AbstractSet[int]]:
    """Return, per concept index, the documents holding it by their name (*by_name* joined)."""
    named: dict[int, AbstractSet[int]] = {}
    for at, docs in by_name:
        named[at] = named[at] | docs if at in named else docs
    return named


def _named_points(
    snap: Snapshot, parsed: ParsedQuery, concept_docs: Sequence[AbstractSet[int]], by_name: Sequence[tuple[int, AbstractSet[int]]],
    coverage: Coverage, candidates: Candidates,
) -> dict[int, float]:
    """Return the points of each document a word names (*by_name*: the concept's index and the
    documents), its coverage applied as to every other part of its score; a concept's documents at once."""
    points: dict[int, float] = {}
    for at, docs in by_name:
        within = list(_among(docs, candidates))
        if not within:
            continue
        found = dict(zip(within, (_weight(parsed.concepts[at]) * name_points(snap, within, len(concept_docs[at]))).tolist()))
        for docnum in found.keys() & points.keys():  # named by two words
            found[docnum] += points[docnum]
        points.update(found)
    return coverage.weigh(points) if coverage.partial and points else points


def meaning(cosine: float, best: float) -> float:
    """Return the semantic term of a document whose vector has *cosine* with the query's."""
    if not SEMANTIC_WEIGHT or cosine <= SEMANTIC_FLOOR:
        return 0.0
    return SEMANTIC_WEIGHT * (best or 1.0) * (cosine - SEMANTIC_FLOOR) / (1 - SEMANTIC_FLOOR)


def rank(
    snap: Snapshot,
    parsed: ParsedQuery,
    candidates: set[int],
    concept_docs: Sequence[set[int]],
    limit: int,
    deadline: float,
    cosines: dict[int, float] | None = None,
    loose_docs: Sequence[AbstractSet[int]] = (),
    by_name: Sequence[tuple[int, AbstractSet[int]]] = (),
) -> tuple[list[tuple[int, float]], bool, float]:
    """Return the best *limit* (docnum, score) of *candidates*, best first, whether time ran out, and
    the best score by words alone (the scale of the meaning term; see ``meaning``).

    *cosines* are the nearest documents' cosines with the query, nearest first; *loose_docs*, per
    concept, the documents holding its loose words and not it (``Coverage``); *by_name*, (concept index,
    documents) of the documents a word names that their text does not hold (``name_points``).

    Every candidate is scored, so the top is exact; ties go to the lower document number.  When the
    time budget runs out between concepts, the concepts scored so far decide.
    """
    coverage = Coverage.of(concept_docs, snap.doc_count, parsed.concepts, loose_docs)
    if len(candidates) >= DENSE_FROM and limit > 0:
        try:
            weights = [_weight(concept) for concept in parsed.concepts]
            arrays = rank_dense(snap, parsed.concepts, weights, candidates, coverage, deadline, _named_docs(by_name))
        except Unsupported:
            arrays = None  # a query node the arrays do not know: the dicts rank it
        if arrays is not None:
            totals, scored, timed_out, factor = arrays
            top = float(totals.max()) if len(totals) else 0.0  # the meaning term's scale: by the text's words (below)
            for at, docs in by_name:  # each concept's at once, its coverage the arrays' (``_named_points``)
                within = _among(docs, candidates)
                if within:
                    where = np.fromiter(within, dtype=np.intp, count=len(within))
                    points = _weight(parsed.concepts[at]) * name_points(snap, where, len(concept_docs[at]))
                    np.add.at(totals, where, points * factor[where] if factor is not None else points)
                    scored[where] = True
            return _best_of_arrays(totals, scored, timed_out, candidates, limit, cosines, top)
    totals: dict[int, float] = {}
    timed_out = False
    for concept in parsed.concepts:
        weight = _weight(concept)
        found = scores(concept.any_query, snap, candidates)
        if weight != 1.0:
            found = dict(zip(found, map(weight.__mul__, found.values())))
        # totals.get(docnum, 0.0) + value, as dict operations: 0.0 + value is value (scores are positive).
        both = found.keys() & totals.keys() if totals else ()
        before = {docnum: totals[docnum] for docnum in both}
        totals.update(found)
        if before:
            totals.update(zip(before, map(add, before.values(), map(found.__getitem__, before))))
        if time.perf_counter() > deadline:
            timed_out = True
            break
    if coverage.partial:
        totals = coverage.weigh(totals)
    # The meaning term's scale is the best score by the text's words, before a name's points: a name's
    # part raised it ("java 17 jdk": openjdk-17-jdk's "17"), and the pages near in meaning alone rose past
    # pages holding the words ("libjpeg dev": libn32gcc-11-dev ×4 over jpeginfo; a regression pass).
    top = max(totals.values(), default=0.0)
    for docnum, points in _named_points(snap, parsed, concept_docs, by_name, coverage, candidates).items():
        totals[docnum] = totals.get(docnum, 0.0) + points
    totals.update(_with_meaning(cosines, candidates, lambda docnum: totals.get(docnum, 0.0), top))
    return _best(_contenders(totals, limit), limit, cosines), timed_out, top


def _weight(concept) -> float:
    """Return how much *concept* weighs: typed n times, n ** QTF_POWER (times ``_scale``)."""
    return concept.count**QTF_POWER * _scale(concept)


def _scale(concept) -> float:
    """Return NUMBER_WEIGHT for a concept that is a bare number, else 1."""
    word = concept.word
    return NUMBER_WEIGHT if word and word[0].isdigit() and BARE_NUMBER.fullmatch(word) else 1.0


def _best_of_arrays(
    totals: np.ndarray, scored: np.ndarray, timed_out: bool, candidates: Candidates, limit: int,
    cosines: dict[int, float] | None, top: float,
) -> tuple[list[tuple[int, float]], bool, float]:
    """``rank``'s answer from search/dense.py's arrays: the meaning term added (scaled by *top*), then the best *limit*."""
    for docnum, total in _with_meaning(cosines, candidates, totals.item, top):
        totals[docnum] = total
        scored[docnum] = True
    held = np.flatnonzero(scored)
    if len(held) > limit:
        values = totals[held]
        floor = np.partition(values, len(values) - limit)[len(values) - limit]  # the limit-th best
        held = held[values >= floor]
    return _best(zip(held.tolist(), totals[held].tolist()), limit, cosines), timed_out, top


def _with_meaning(
    cosines: dict[int, float] | None, candidates: Candidates, current: Callable[[int], float], top: float
) -> list[tuple[int, float]]:
    """Return (docnum, total) of each candidate near enough in meaning to gain the meaning term, its
    total being ``current(docnum)`` (its score by words, 0.0 without one) plus that term."""
    gained = []
    if cosines and SEMANTIC_WEIGHT:
        for docnum, cosine in cosines.items():
            if cosine <= SEMANTIC_FLOOR:
                break  # best first: the rest earn nothing either (70 of the 100 nearest at 64k)
            if docnum in candidates:
                total = current(docnum) + meaning(cosine, top)
                # Near in meaning but under the floor, and without a word: not a hit.  Only these
                # entries can be 0 (word scores are positive), so the thousands of others go unread.
                if total > 0:
                    gained.append((docnum, total))
    return gained


def _best(contenders: Iterable[tuple[int, float]], limit: int, cosines: dict[int, float] | None) -> list[tuple[int, float]]:
    """Return the best *limit* of *contenders*: equal scores go to the document closer in meaning
    (when vectors are on), then the lower number."""
    near = cosines or {}
    # sorted()[:limit] is nsmallest's own definition: the contenders are few (``_contenders``).
    return sorted(contenders, key=lambda pair: (-pair[1], -near.get(pair[0], 0.0), pair[0]))[:limit]


def _contenders(totals: dict[int, float], limit: int) -> Iterable[tuple[int, float]]:
    """Return the (docnum, score) pairs that can be among the best *limit*: those scoring at least the
    *limit*-th best score (ties included), found in C, so the sort key runs on a few, not thousands."""
    if len(totals) <= limit or limit <= 0:
        return totals.items()
    floor = heapq.nlargest(limit, totals.values())[-1]
    return compress(totals.items(), map(floor.__le__, totals.values()))
