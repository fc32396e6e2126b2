"""The search service: run a request's queries against the published snapshot.

Ranking is BM25F over title and body (titles weigh three times as much).  Documents that match every
word rank first; documents that match only some follow, so a long question still finds what is
there.  Totals and facet counts are exact: they come from the set of matching document numbers,
not from scoring every match.  Facets are disjunctive: each facet's counts ignore that facet's own
selection, so a count says how many results clicking the value would give.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from whoosh import query as wq

from corpus.records import KIND_LABELS
from index import store
from search.facets import count_facets, selected_docs
from search.highlight import highlight_snippet, highlight_title
from search.params import SearchParams
from search.query import ParsedQuery, build_query
from search.results import Hit, SearchResult
from search.snapshot import Snapshot


class SearchService:
    """Answer searches from the snapshot currently published under *root*, following new publishes."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._snapshot: Snapshot | None = None
        self._lock = threading.Lock()

    def snapshot(self) -> Snapshot:
        """Return the open snapshot, switching to a newer one if it was published since."""
        current = store.current_id(self.root)
        snap = self._snapshot
        if snap is not None and snap.id == current:
            return snap
        with self._lock:
            snap = self._snapshot
            if snap is not None and snap.id == current:
                return snap
            if current is None:
                raise store.IndexUnavailable(f"no index has been built in {self.root} yet")
            self._snapshot = Snapshot(self.root, current)
            return self._snapshot

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
        return value

    # -- search ---------------------------------------------------------------------------------

    def search(self, params: SearchParams) -> SearchResult:
        """Return the page of hits, the exact total and the facet counts for *params*."""
        started = time.perf_counter()
        snap = self.snapshot()
        searcher = snap.searcher()
        parsed = build_query(params.q, snap.schema) if params.q.strip() else None

        if parsed is None:
            matched: frozenset[int] | set[int] = snap.all_docs
        elif parsed.is_empty:
            matched = frozenset()
        else:
            matched = set(parsed.any_words.docs(searcher)) & snap.all_docs

        selected = selected_docs(snap, params)
        allowed = set(matched)
        for docs in selected.values():
            if docs is not None:
                allowed &= docs
        facets = count_facets(snap, params, matched, selected, self.label)

        end = params.page * params.per_page
        start = end - params.per_page
        sort = params.effective_sort
        all_count = 0
        if start >= len(allowed):
            ranked: list[tuple[int, float]] = []
        elif sort == "listing" or parsed is None:
            query = parsed.any_words if parsed else wq.Every()
            results = searcher.search(query, filter=allowed, limit=end, sortedby="order")
            ranked = [(docnum, 0.0) for docnum in results.docs()]
        else:
            ranked, all_count = self._rank(searcher, parsed, allowed, end)
        if parsed is not None and sort == "listing":
            all_count = len(set(parsed.all_words.docs(searcher)) & allowed)

        terms = parsed.terms if parsed else frozenset()
        hits = tuple(self._hit(snap, searcher, docnum, score, terms) for docnum, score in ranked[start:end])
        if parsed is None:
            match = "all" if allowed else "none"
        else:
            match = "none" if not allowed else ("all" if all_count else "partial")
        return SearchResult(
            query=params.q,
            total=len(allowed),
            page=params.page,
            per_page=params.per_page,
            sort=sort,
            took_ms=round((time.perf_counter() - started) * 1000, 2),
            hits=hits,
            facets=facets,
            filters=params.filters(),
            match=match,
            plain=bool(parsed and parsed.plain),
            snapshot=snap.id,
        )

    def _rank(self, searcher, parsed: ParsedQuery, allowed: set[int], limit: int) -> tuple[list[tuple[int, float]], int]:
        """Return the top *limit* (docnum, score) pairs: all-words matches first, then the rest."""
        all_docs = set(parsed.all_words.docs(searcher)) & allowed
        ranked: list[tuple[int, float]] = []
        if all_docs:
            ranked.extend(searcher.search(parsed.all_words, filter=all_docs, limit=limit).items())
        rest = allowed - all_docs
        if len(ranked) < limit and rest:
            more = searcher.search(parsed.any_words, filter=rest, limit=limit - len(ranked))
            ranked.extend(more.items())
        return ranked, len(all_docs)

    def _hit(self, snap: Snapshot, searcher, docnum: int, score: float, terms: frozenset[str]) -> Hit:
        fields = searcher.stored_fields(docnum)
        return Hit(
            id=fields["id"],
            kind=fields["kind"],
            title=fields["title"],
            title_html=highlight_title(fields["title"], terms, snap.analyzer),
            snippet_html=highlight_snippet(fields["body"], terms, snap.analyzer),
            url=fields["url"],
            topics=tuple(filter(None, fields.get("topics", "").split(","))),
            entities=tuple(filter(None, fields.get("entities", "").split(","))),
            score=round(float(score), 4),
            position=int(fields.get("position", 0)),
        )

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
        results = searcher.more_like(docnum, "body", text=f"{fields['title']} {fields['body']}", top=count)
        return [_document(hit.fields()) for hit in results]

    def guide(self, topic: str) -> list[dict[str, object]]:
        """Return the sections of *topic*'s guide in order (empty when it has none)."""
        snap = self.snapshot()
        searcher = snap.searcher()
        query = wq.And([wq.Term("kind", "guide"), wq.Term("topic", topic)])
        results = searcher.search(query, limit=None, sortedby="order")
        return [_document(hit.fields()) for hit in results]


def _document(fields: dict[str, object]) -> dict[str, object]:
    doc = dict(fields)
    for name in ("topics", "entities"):
        doc[name] = [v for v in str(doc.get(name) or "").split(",") if v]
    return doc
