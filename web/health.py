"""Whether the corpus sources changed since the published snapshot was built.

A build records its source files and a SHA-256 fingerprint over them (and over the rule files:
taxonomy, organisations and synonyms, which change what is indexed too; ``RULE_FILES``).  Rehashing
a 10 MB corpus on every health check would be wasteful, so the last answer is kept per (path, size,
mtime) of every source and rule file: it is recomputed only when one of them moved.  One SourceWatch hangs on each app.

A replica serves snapshots built elsewhere and copied in by ``topichub publish``, which leaves an
``origin.json`` beside them: its health names the builder's fingerprint and build time and where
the copy came from, and never compares sources, which were never its own.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from corpus.sources import RULE_FILES, fingerprint
from index.store import ORIGIN_FILE, read_note
from search.snapshot import SHORTAGES, ResourceShortage, probe_shortage


def replica_origin(snapshot: Path) -> dict[str, object] | None:
    """Return where a published copy of *snapshot* came from, or None when it was built here; raise
    ResourceShortage when the worker has not the open files or memory to read it."""
    origin = read_note(snapshot, ORIGIN_FILE)
    if origin == {} and (short := probe_shortage(snapshot)) is not None:
        # Unreadable for want of open files or memory, not a replica's note gone bad: a builder out of
        # files said it was a replica ("from": null) and stopped comparing its sources.
        raise ResourceShortage(short, f"snapshot {snapshot.name} cannot be read now")
    return origin if origin is None or origin else {"from": None}  # unreadable: a replica all the same


class SourceWatch:
    """Compare a snapshot's recorded sources with the files on disk, rehashing only on change."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[tuple[str, int, int], ...] | None = None
        self._digest: str | None = None

    def changed(self, sources: object, recorded: object) -> bool | None:
        """Return whether *sources* no longer hash to *recorded*; None when the snapshot did not record them."""
        if not isinstance(sources, Sequence) or isinstance(sources, str) or not sources or not recorded:
            return None
        paths = [Path(str(p)) for p in sources]
        try:
            key = tuple((str(p), st.st_size, st.st_mtime_ns) for p in (*paths, *RULE_FILES) for st in (p.stat(),))
        except OSError as exc:
            _short_of(exc)
            return True  # a source is gone: the next build would not index the same thing
        with self._lock:
            if key != self._key:
                try:
                    digest = fingerprint(paths)
                except OSError as exc:
                    _short_of(exc)  # out of open files is no change (it said sources_changed: true)
                    return True
                self._key, self._digest = key, digest
            return self._digest != recorded


def _short_of(exc: OSError) -> None:
    """Raise ResourceShortage if *exc* is the worker or the host running out of open files or memory."""
    if exc.errno in SHORTAGES:
        raise ResourceShortage(exc, "the snapshot's sources cannot be compared now") from exc
