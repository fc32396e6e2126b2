"""The search service: run a request's queries against the published snapshot.

Ranking is BM25F over title and body (titles weigh three times as much).  Documents that match every
word rank first; documents that match only some follow, so a long question still finds what is
there.  Among those, when the query has three or more concepts, a document covering more of it ranks
first, each concept weighing by its rarity (idf): for "train large models on a single gpu", a page
with "single" and "gpu" beats one with "train", "large" and "models", words half the corpus has.
Totals and facet counts are exact: they come from the set of matching document numbers,
not from scoring every match.  Facets are disjunctive: each facet's counts ignore that facet's own
selection, so a count says how many results clicking the value would give.
"""

from __future__ import annotations

import heapq
import math
import threading
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from whoosh import query as wq

from corpus.records import KIND_LABELS
from index import store
from search.cache import ResultCache
from search.facets import count_facets, selected_docs
from search.highlight import sanitize_all, snippet_markup, title_markup
from search.params import SearchParams
from search.explain import explain
from search.matchset import query_docs
from search.query import ParsedQuery, build_query, expand
from search.results import Answer, Hit, SearchResult
from search.scoring import score_docs
from search.snapshot import Snapshot
from search.spell import Speller, suggestion
from search.synonyms import Synonyms, load_synonyms

# Each search has a time budget; ranking that runs past it stops and returns what it has found.
DEFAULT_BUDGET_S = 2.0

# From this many concepts, documents matching only some are ranked by how much of the query they
# cover (each concept weighted by its rarity) before BM25.  With two, a partial match has one
# concept, and BM25 already weighs which one (and how often, and in which field) better.
COVERAGE_TIERS_FROM = 3

# Highlighted titles and snippets kept, keyed by document, field and the query terms it holds: the
# same document is often shown for different queries that mark the same words in it.
HIGHLIGHT_CACHE_SIZE = 8192

# A guide section among the first hits, nearly as good as the first, is shown as an answer card.
ANSWER_WITHIN = 3
ANSWER_SCORE_RATIO = 0.6


@dataclass(frozen=True, slots=True)
class Refusal:
    """A published snapshot that could not be opened, and why; the service serves an older one."""

    snapshot: str
    key: tuple[int, int]  # its folder's inode and mtime: a new copy of it is tried again
    reason: str


class SearchService:
    """Answer searches from the snapshot currently published under *root*, following new publishes."""

    def __init__(self, root: str | Path, budget_s: float = DEFAULT_BUDGET_S) -> None:
        self.root = Path(root)
        self.budget_s = budget_s
        self._snapshot: Snapshot | None = None
        self.refused: Refusal | None = None  # the published snapshot, when it failed its checks
        self._lock = threading.Lock()
        self._synonyms: Synonyms | None = None
        self._speller = Speller()
        self._results: ResultCache[SearchResult] = ResultCache()
        self._highlights: ResultCache[str] = ResultCache(HIGHLIGHT_CACHE_SIZE)

    @property
    def synonyms(self) -> Synonyms:
        """Return the synonym groups, analysed like the published index's queries."""
        if self._synonyms is None:
            self._synonyms = load_synonyms(self.snapshot().analyzer)
        return self._synonyms

    def snapshot(self) -> Snapshot:
        """Return the open snapshot, switching to a newer one if it was published since.

        A published snapshot that fails its checks is refused (see ``refused``) and the last good one
        keeps answering: the one already open, or else the newest older one on disk that opens.
        """
        current = store.current_id(self.root)
        snap = self._snapshot
        # A published snapshot folder that vanished (deleted by hand) is not served from open files.
        if self._keeps(snap, current):
            return snap
        with self._lock:
            snap = self._snapshot
            if self._keeps(snap, current):
                return snap
            if current is None:
                raise store.IndexUnavailable(f"no index has been built in {self.root} yet")
            try:
                self._snapshot = Snapshot(self.root, current)
            except store.IndexUnavailable as exc:
                key = self._folder_key(current)
                if key is None:  # nothing there to verify: no index, not a bad copy of one
                    raise
                self.refused = Refusal(current, key, str(exc))
                good = snap if snap is not None and snap.path.is_dir() else self._older_good(current)
                if good is None:
                    raise
                self._snapshot = good
            else:
                self.refused = None
            return self._snapshot

    def _keeps(self, snap: Snapshot | None, current: str | None) -> bool:
        """Return whether the open *snap* still answers for *current*: it is current, or the last good one."""
        if snap is None or not snap.path.is_dir():
            return False
        if snap.id == current:
            if self.refused is not None:
                self.refused = None  # current again (a rollback): nothing is refused any more
            return True
        return self._still_refused(current)

    def _folder_key(self, snap_id: str) -> tuple[int, int] | None:
        try:
            st = (store.snapshots_dir(self.root) / snap_id).stat()
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns

    def _still_refused(self, current: str | None) -> bool:
        # Checked again only once its folder is replaced (a new publish): verifying costs a full read.
        refused = self.refused
        return refused is not None and refused.snapshot == current and refused.key == self._folder_key(current)

    def _older_good(self, than: str) -> Snapshot | None:
        for snap_id in store.older_snapshots(self.root, than):
            try:
                return Snapshot(self.root, snap_id)
            except store.IndexUnavailable:
                continue
        return None

    # -- labels ---------------------------------------------------------------------------------

    def label(self, facet: str, value: str, snap: Snapshot | None = None) -> str:
        """Return the human label of a facet value."""
        if facet == "kind":
            return KIND_LABELS.get(value, value)
        if facet == "topic":
            topics = (snap or self.snapshot()).meta.get("topics", {})
            topic = topics.get(value) if isinstance(topics, dict) else None
            if topic:
                return str(topic.get("label") or topic.get("name") or value)
        if facet == "entity":
            orgs = (snap or self.snapshot()).meta.get("organisations", {})
            org = orgs.get(value) if isinstance(orgs, dict) else None
            if isinstance(org, dict) and org.get("name"):
                return str(org["name"])
        return value

    # -- search ---------------------------------------------------------------------------------

    def search(self, params: SearchParams) -> SearchResult:
        """Return the page of hits, the exact total and the facet counts for *params*."""
        started = time.perf_counter()
        snap = self.snapshot()
        cached = self._results.get(snap.id, params)
        if cached is not None:
            return replace(cached, took_ms=round((time.perf_counter() - started) * 1000, 2))
        searcher = snap.searcher()
        parsed = None
        vocabulary = None
        if params.q.strip():
            parsed = build_query(params.q, snap.schema, self.synonyms)
            if not parsed.is_empty:
                vocabulary = self._speller.vocabulary(snap.id, searcher, snap.analyzer)
                parsed = expand(parsed, vocabulary)

        if parsed is None:
            matched: frozenset[int] | set[int] = snap.all_docs
            concept_docs: list[set[int]] = []
        elif parsed.is_empty:
            matched, concept_docs = frozenset(), []
        else:
            matched, concept_docs = self._match(snap, parsed)

        selected = selected_docs(snap, params)
        allowed = set(matched)
        for docs in selected.values():
            if docs is not None:
                allowed &= docs
        facets = count_facets(snap, params, matched, selected, self.label)
        all_docs = set.intersection(*concept_docs) & allowed if concept_docs else set(allowed)

        end = params.page * params.per_page
        start = end - params.per_page
        sort = params.effective_sort
        timed_out = False
        if start >= len(allowed):
            ranked: list[tuple[int, float]] = []
        elif sort == "listing" or parsed is None:
            query = parsed.any_words if parsed else wq.Every()
            results = searcher.search(query, filter=allowed, limit=end, sortedby="order")
            ranked = [(hit.docnum, 0.0) for hit in results]  # docs() is a set: it loses the order
        else:
            ranked, timed_out = self._rank(snap, parsed, allowed, all_docs, concept_docs, end, started + self.budget_s)

        terms = parsed.terms if parsed else frozenset()
        page = [(docnum, score, snap.stored(docnum)) for docnum, score in ranked[start:end]]
        marked = self._highlighted(
            snap, [(docnum, name, fields[name]) for docnum, _, fields in page for name in ("title", "body")], terms
        )
        hits = []
        for i, (docnum, score, fields) in enumerate(page):
            explanation = None
            if params.explain and parsed is not None and not parsed.is_empty:
                explanation = explain(parsed, snap, docnum, docnum in all_docs)
            hits.append(_hit(fields, score, marked[2 * i], marked[2 * i + 1], explanation))
        if parsed is None:
            match = "all" if allowed else "none"
        else:
            match = _match_level(allowed, all_docs, concept_docs)
        answer = None
        if parsed is not None and params.page == 1 and sort == "relevance":
            answer = self._answer(snap, ranked[:ANSWER_WITHIN], concept_docs, terms)
        result = SearchResult(
            query=params.q,
            total=len(allowed),
            page=params.page,
            per_page=params.per_page,
            sort=sort,
            took_ms=round((time.perf_counter() - started) * 1000, 2),
            hits=tuple(hits),
            facets=facets,
            filters=params.filters(),
            match=match,
            plain=bool(parsed and parsed.plain),
            snapshot=snap.id,
            suggestion=suggestion(parsed, vocabulary) if parsed and vocabulary else None,
            answer=answer,
            timed_out=timed_out,
        )
        if not timed_out:
            self._results.put(snap.id, params, result)
        return result

    @staticmethod
    def _match(snap: Snapshot, parsed: ParsedQuery) -> tuple[set[int], list[set[int]]]:
        """Return the documents matching any concept, and those matching each concept (both exact)."""
        excluded = query_docs(parsed.excluded, snap) if parsed.excluded is not None else set()
        matched: set[int] = set()
        concept_docs = []
        for concept in parsed.concepts:
            docs = query_docs(concept.query, snap)
            concept_docs.append(docs - excluded)
            matched |= query_docs(concept.any_query, snap) if concept.loose else docs
        return matched - excluded, concept_docs

    @staticmethod
    def _rank(
        snap: Snapshot,
        parsed: ParsedQuery,
        allowed: set[int],
        all_docs: set[int],
        concept_docs: list[set[int]],
        limit: int,
        deadline: float,
    ) -> tuple[list[tuple[int, float]], bool]:
        """Return the top *limit* (docnum, score) pairs, best coverage first, and whether time ran out."""
        ranked: list[tuple[int, float]] = []
        timed_out = False
        if all_docs:
            found, timed_out = _top(snap, parsed.all_words, all_docs, limit, deadline)
            ranked.extend(found)
        rest = allowed - all_docs
        if len(ranked) >= limit or not rest or timed_out:
            return ranked, timed_out
        wanted = limit - len(ranked)
        tiers = _coverage_tiers(rest, concept_docs, snap.doc_count)
        # Only the tiers the page reaches are ranked: the ones it takes whole, then the best of the next.
        whole: list[set[int]] = []
        taken = 0
        while len(whole) < len(tiers) and taken + len(tiers[len(whole)]) <= wanted:
            taken += len(tiers[len(whole)])
            whole.append(tiers[len(whole)])
        found = []
        if whole:
            scored, timed_out = _top(snap, parsed.any_words, set().union(*whole), None, deadline)
            tier_of = {docnum: i for i, tier in enumerate(whole) for docnum in tier}
            found = sorted(scored, key=lambda pair: tier_of.get(pair[0], len(whole)))  # stable: BM25 within a tier
        if taken < wanted and len(whole) < len(tiers) and not timed_out:
            best, timed_out = _top(snap, parsed.any_words, tiers[len(whole)], wanted - taken, deadline)
            found.extend(best)
        ranked.extend(found)
        return ranked, timed_out

    def _answer(self, snap: Snapshot, top: list[tuple[int, float]], concept_docs: list[set[int]], terms: frozenset[str]) -> Answer | None:
        """Return the first guide section among the *top* hits when it matches the query strongly."""
        guides = snap.facet_docs.get("kind", {}).get("guide", frozenset())
        if not top or not concept_docs:
            return None
        best = top[0][1]
        for docnum, score in top:
            if docnum not in guides:
                continue
            have = sum(docnum in docs for docs in concept_docs)
            strong = have == len(concept_docs) or (len(concept_docs) > 2 and 2 * have > len(concept_docs))
            if strong and score >= ANSWER_SCORE_RATIO * best:
                fields = snap.stored(docnum)
                return Answer(
                    id=fields["id"],
                    title=fields["title"],
                    url=fields["url"],
                    snippet_html=self._highlighted(snap, [(docnum, "body", fields["body"])], terms)[0],
                )
            return None
        return None

    def _highlighted(self, snap: Snapshot, texts: list[tuple[int, str, str]], terms: frozenset[str]) -> list[str]:
        """Return each (docnum, field, text) as safe HTML with *terms* marked: titles whole, bodies as snippets."""
        out: list[str] = [""] * len(texts)
        missing: list[tuple[int, tuple[int, str, frozenset[str]], str]] = []
        for i, (docnum, field, text) in enumerate(texts):
            replay = snap.tokens(docnum, field, text)
            held = terms & replay.texts  # terms the text does not hold change nothing in its highlight
            key = (docnum, field, held)
            html = self._highlights.get(snap.id, key)
            if html is not None:
                out[i] = html
                continue
            make = title_markup if field == "title" else snippet_markup
            missing.append((i, key, make(text, held, replay)))
        for (i, key, _), html in zip(missing, sanitize_all([markup for _, _, markup in missing])):
            out[i] = html
            self._highlights.put(snap.id, key, html)
        return out

    # -- documents ------------------------------------------------------------------------------

    def document(self, doc_id: str) -> dict[str, object] | None:
        """Return a document's stored fields by id, or None."""
        snap = self.snapshot()
        searcher = snap.searcher()
        docnum = searcher.document_number(id=doc_id)
        if docnum is None:
            return None
        return _document(searcher.stored_fields(docnum))

    def more_like_this(self, doc_id: str, count: int = 5) -> list[dict[str, object]]:
        """Return up to *count* documents most like *doc_id*, best first."""
        snap = self.snapshot()
        searcher = snap.searcher()
        docnum = searcher.document_number(id=doc_id)
        if docnum is None:
            return []
        fields = searcher.stored_fields(docnum)
        results = searcher.more_like(docnum, "body", text=f"{fields['title']} {fields['body']}", top=count, numterms=15)
        return [_document(hit.fields()) for hit in results]

    def guide(self, topic: str) -> list[dict[str, object]]:
        """Return the sections of *topic*'s guide in order (empty when it has none)."""
        snap = self.snapshot()
        searcher = snap.searcher()
        query = wq.And([wq.Term("kind", "guide"), wq.Term("topic", topic)])
        results = searcher.search(query, limit=None, sortedby="order")
        return [_document(hit.fields()) for hit in results]


def _top(snap: Snapshot, query: wq.Query, docs: set[int], limit: int | None, deadline: float) -> tuple[list[tuple[int, float]], bool]:
    """Return the best *limit* (None: all) of *docs* for *query*, best first, and whether time ran out.

    Every candidate is scored (search.scoring, from per-term scores cached per snapshot), so the top
    is exact; Whoosh's own top-N collection with a filter was seen to drop hits.  Ties go to the
    lower document number.  One call is not interrupted: the budget is looked at when it returns,
    and the tiers after it are then left unranked.
    """
    scored = score_docs(query, snap, docs)
    if limit is None or limit >= len(scored):
        ranked = sorted(scored.items(), key=_best_first)
    else:
        ranked = heapq.nsmallest(limit, scored.items(), key=_best_first)
    return ranked, time.perf_counter() > deadline


def _best_first(pair: tuple[int, float]) -> tuple[float, int]:
    return -pair[1], pair[0]


def _coverage_tiers(docs: set[int], concept_docs: list[set[int]], doc_count: int) -> list[set[int]]:
    """Return *docs* in tiers by the summed rarity (BM25 idf) of the concepts each has, most first."""
    if len(concept_docs) < COVERAGE_TIERS_FROM:
        return [docs] if docs else []
    coverage: dict[int, float] = {}
    for matching in concept_docs:
        if not matching:
            continue
        idf = math.log(1 + (doc_count - len(matching) + 0.5) / (len(matching) + 0.5))
        for docnum in matching & docs:
            coverage[docnum] = coverage.get(docnum, 0.0) + idf
    tiers: dict[float, set[int]] = {}
    for docnum in docs:
        # Rounded, so that documents with the same concepts share a tier whatever the float noise.
        tiers.setdefault(round(coverage.get(docnum, 0.0), 6), set()).add(docnum)
    return [tiers[key] for key in sorted(tiers, reverse=True)]


def _match_level(allowed: set[int], all_docs: set[int], concept_docs: list[set[int]]) -> str:
    """Return "all", "most" (a hit has more than half the concepts), "partial" or "none"."""
    if not allowed:
        return "none"
    if all_docs or not concept_docs:
        return "all"
    needed = len(concept_docs) // 2 + 1  # a majority
    if needed < len(concept_docs):
        counts = Counter(d for docs in concept_docs for d in docs & allowed)
        if counts and max(counts.values()) >= needed:
            return "most"
    return "partial"


def _hit(fields: dict[str, object], score: float, title_html: str, snippet_html: str, explanation: dict[str, object] | None) -> Hit:
    return Hit(
        id=fields["id"],
        kind=fields["kind"],
        title=fields["title"],
        title_html=title_html,
        snippet_html=snippet_html,
        url=fields["url"],
        topics=tuple(filter(None, fields.get("topics", "").split(","))),
        entities=tuple(filter(None, fields.get("entities", "").split(","))),
        score=round(float(score), 4),
        position=int(fields.get("position", 0)),
        explanation=explanation,
    )


def _document(fields: dict[str, object]) -> dict[str, object]:
    doc = dict(fields)
    for name in ("topics", "entities"):
        doc[name] = [v for v in str(doc.get(name) or "").split(",") if v]
    return doc
