"""An open, read-only snapshot of the index and what is worth computing once per snapshot.

Snapshots never change after they are published, so their facet postings (which documents carry
each topic, organisation and type) are read once and kept, and the documents of recently used
terms are kept in a bounded cache (compact arrays, a few MB) until the snapshot is replaced.
Whoosh searchers are not safe to share between threads, so each thread gets its own searcher per
snapshot.  Under gunicorn's gevent worker a "thread" is the worker's OS thread, not a greenlet: see
``_per_thread``.
"""

from __future__ import annotations

import pickle
import struct
import sys
import threading
import weakref
from array import array
from itertools import compress
from pathlib import Path

from whoosh import index as whoosh_index
from whoosh import scoring
from whoosh.analysis.acore import Token
from whoosh.matching.wrappers import FilterMatcher
from whoosh.searching import Searcher

from index import store
from index.analysis import TermAnalyzer
from index.schema import SCHEMA_VERSION
from search.cache import Bounded

FACET_FIELDS = ("topics", "entities", "kind")
# Document numbers kept in the term cache (4 bytes each): 4M is 16 MB, some 80 common terms at 64k.
TERM_CACHE_IDS = 4_000_000
# Documents whose analysed tokens, and whose stored fields, are kept (a few KB each).
TOKEN_CACHE_DOCS = 4096
# Distinct raw tokens (and text chunks) whose analysis is kept for highlighting.
TOKEN_CACHE_WORDS = 50_000
# Errors Whoosh raises on a missing, truncated or garbled index folder.
_OPEN_ERRORS = (
    whoosh_index.IndexError,
    OSError,
    EOFError,
    ValueError,
    KeyError,
    struct.error,
    pickle.UnpicklingError,
    ImportError,
    AttributeError,
)


class Snapshot:
    """One published snapshot, opened for searching."""

    def __init__(self, root: Path, snap_id: str) -> None:
        path = store.snapshots_dir(root) / snap_id
        self.id = snap_id
        self.path = path
        self.meta = store.read_meta(path)
        if self.meta.get("schema_version") != SCHEMA_VERSION:
            raise store.IndexUnavailable(
                f"snapshot {snap_id} was built with schema version {self.meta.get('schema_version')}, "
                f"this service needs {SCHEMA_VERSION}: rebuild the index"
            )
        try:
            self.index = whoosh_index.open_dir(str(path))
            with self.index.searcher() as searcher:
                reader = searcher.reader()
                self.doc_count = searcher.doc_count()
                self.all_docs = frozenset(reader.all_doc_ids())
                self.facet_docs = {name: self._postings(reader, name) for name in FACET_FIELDS}
                self.doc_facets = {name: _by_doc(docs) for name, docs in self.facet_docs.items()}
        except _OPEN_ERRORS as exc:
            raise store.IndexUnavailable(f"snapshot {snap_id} cannot be opened: {exc}") from exc
        self.schema = self.index.schema
        self.analyzer = self.schema["body"].analyzer
        self._local = _per_thread()
        # Every thread's searcher, closed (with its open segment files) once no request holds the
        # snapshot any more: a request in flight keeps its snapshot alive, so nothing closes under it.
        self._searchers: list[Searcher] = []
        self._searchers_lock = threading.Lock()
        weakref.finalize(self, _close_searchers, self._searchers)
        self._terms: Bounded[tuple[str, str], array] = Bounded(TERM_CACHE_IDS, cost=len)
        self._tokens: Bounded[tuple[int, str], TokenReplay] = Bounded(TOKEN_CACHE_DOCS)
        self._stored: Bounded[int, dict[str, object]] = Bounded(TOKEN_CACHE_DOCS)

    @staticmethod
    def _postings(reader, fieldname: str) -> dict[str, frozenset[int]]:
        docs: dict[str, frozenset[int]] = {}
        for term in reader.lexicon(fieldname):
            value = term.decode("utf-8") if isinstance(term, bytes) else term
            docs[value] = frozenset(reader.postings(fieldname, term).all_ids())
        return docs

    def term_docs(self, fieldname: str, text: str | bytes) -> array:
        """Return the document numbers holding *text* in *fieldname*, ascending (cached)."""
        key = (fieldname, text.decode("utf-8") if isinstance(text, bytes) else text)
        return self._terms.get_or_make(key, lambda: _read_term(self.searcher(), *key))

    def stored(self, docnum: int) -> dict[str, object]:
        """Return document *docnum*'s stored fields (cached: treat the dict as read-only)."""
        return self._stored.get_or_make(docnum, lambda: self.searcher().stored_fields(docnum))

    def tokens(self, docnum: int, field: str, text: str) -> TokenReplay:
        """Return *text*'s analysed tokens (document *docnum*'s *field*), analysed once and replayed."""
        # TermAnalyzer gives what the index's analyzer chain gives in index mode, from a cache of
        # analysed tokens instead of Whoosh's generator chain (the schema version ties them together).
        return self._tokens.get_or_make((docnum, field), lambda: TokenReplay(tuple(self._term_analyzer().tokens(text))))

    def _term_analyzer(self) -> TermAnalyzer:
        # One per thread: its stemmer must not be called from two threads at once.
        analyzer = getattr(self._local, "term_analyzer", None)
        if analyzer is None:
            analyzer = self._local.term_analyzer = TermAnalyzer(limit=TOKEN_CACHE_WORDS)
        return analyzer

    def searcher(self) -> Searcher:
        """Return this thread's searcher on the snapshot."""
        searcher = getattr(self._local, "searcher", None)
        if searcher is None:
            searcher = self.index.searcher(weighting=scoring.BM25F())
            self._local.searcher = searcher
            with self._searchers_lock:
                self._searchers.append(searcher)
        return searcher


def _per_thread() -> threading.local:
    """Return storage private to the calling OS thread, also when gevent has patched ``threading.local``.

    gevent's patched ``threading.local`` is private to a greenlet, and gunicorn's gevent worker runs
    each connection in a new one: every connection would open (and keep, until the snapshot goes) a
    searcher of its own, two more open files each.  Greenlets of one thread take turns only where one
    waits on a socket or sleeps, which nothing between a request's first and last use of the searcher
    does (index files are read with blocking calls), so the thread's greenlets can share it.
    """
    monkey = sys.modules.get("gevent.monkey")
    if monkey is None:  # gevent's patching was never loaded: threading.local is the original
        return threading.local()
    return monkey.get_original("threading", "local")()


def _close_searchers(searchers: list[Searcher]) -> None:
    for searcher in searchers:
        searcher.close()
    searchers.clear()


class TokenReplay:
    """An analyzer stand-in for the highlighter: it yields a text's cached tokens again."""

    __slots__ = ("entries", "texts")

    def __init__(self, entries: tuple[tuple[str, int, int, int], ...]) -> None:
        self.entries = entries
        self.texts = frozenset(entry[0] for entry in entries)  # the terms the text holds

    def __call__(self, text: str, **_options: object):
        token = Token(positions=True, chars=True, removestops=False, mode="index")
        for token.text, token.pos, token.startchar, token.endchar in self.entries:
            token.stopped = False
            token.boost = 1.0
            yield token


def _by_doc(postings: dict[str, frozenset[int]]) -> dict[int, tuple[str, ...]]:
    """Invert a facet's postings: each document's values (equal tuples shared, to stay small)."""
    values: dict[int, list[str]] = {}
    for value, docs in postings.items():
        for doc in docs:
            values.setdefault(doc, []).append(value)
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}
    return {doc: shared.setdefault(tuple(vals), tuple(vals)) for doc, vals in values.items()}


def _read_term(searcher: Searcher, fieldname: str, text: str) -> array:
    """Read a term's document numbers a block at a time, without scoring or walking a matcher."""
    docs = array("i")
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        if (fieldname, text) not in reader:
            continue
        ids, _ = read_postings(reader, fieldname, text)
        docs.extend(i + offset for i in ids) if offset else docs.extend(ids)
    return docs


def read_postings(reader, fieldname: str, text: str | bytes, weights: bool = False) -> tuple[list[int], list[float]]:
    """Return a segment's live documents holding a term (its own numbers) and, if asked, their weights.

    Whoosh 2.7's block reader decodes a block's ids (and weights) at once, several times faster than
    stepping a matcher through them one call at a time; other readers are stepped.
    """
    matcher = reader.postings(fieldname, text)
    if type(matcher) is FilterMatcher:  # the segment's deletions, filtered below
        matcher = matcher.child
    ids: list[int] = []
    found: list[float] = []
    if all(hasattr(matcher, name) for name in ("_read_ids", "_read_weights", "_next_block")):
        while matcher.is_active():
            matcher._read_ids()
            ids.extend(matcher._ids)
            if weights:
                matcher._read_weights()
                found.extend(matcher._weights)
            matcher._next_block()
    else:
        while matcher.is_active():
            ids.append(matcher.id())
            if weights:
                found.append(matcher.weight())
            matcher.next()
    if reader.has_deletions():
        live = [not reader.is_deleted(i) for i in ids]
        ids = list(compress(ids, live))
        found = list(compress(found, live)) if weights else found
    return ids, found
