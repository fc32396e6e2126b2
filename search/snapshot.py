"""An open, read-only snapshot of the index and what is worth computing once per snapshot.

Snapshots never change after they are published, so their facet postings (which documents carry
each topic, organisation and type) are read once and kept.  Whoosh searchers are not safe to share
between threads, so each thread gets its own searcher per snapshot.
"""

from __future__ import annotations

import pickle
import struct
import threading
from pathlib import Path

from whoosh import index as whoosh_index
from whoosh import scoring
from whoosh.searching import Searcher

from index import store
from index.schema import SCHEMA_VERSION

FACET_FIELDS = ("topics", "entities", "kind")
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
        except _OPEN_ERRORS as exc:
            raise store.IndexUnavailable(f"snapshot {snap_id} cannot be opened: {exc}") from exc
        self.schema = self.index.schema
        self.analyzer = self.schema["body"].analyzer
        self._local = threading.local()

    @staticmethod
    def _postings(reader, fieldname: str) -> dict[str, frozenset[int]]:
        docs: dict[str, frozenset[int]] = {}
        for term in reader.lexicon(fieldname):
            value = term.decode("utf-8") if isinstance(term, bytes) else term
            docs[value] = frozenset(reader.postings(fieldname, term).all_ids())
        return docs

    def searcher(self) -> Searcher:
        """Return this thread's searcher on the snapshot."""
        searcher = getattr(self._local, "searcher", None)
        if searcher is None:
            searcher = self.index.searcher(weighting=scoring.BM25F())
            self._local.searcher = searcher
        return searcher

    def close(self) -> None:
        """Close this thread's searcher (other threads' close when they are collected)."""
        searcher = getattr(self._local, "searcher", None)
        if searcher is not None:
            searcher.close()
            self._local.searcher = None
