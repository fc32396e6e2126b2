"""A bounded cache of search results, keyed by the snapshot and the normalised request.

A snapshot never changes once published, so a result computed for (snapshot id, parameters) stays
right for as long as that snapshot is the live one.  The key carries the snapshot id, so a publish
invalidates every entry at once (the service also empties the cache when it switches snapshots, to
give the memory back).  ``SearchParams`` is frozen and already normalised by ``parse_params``
(whitespace collapsed, repeated filter values dropped), so it is the key as it is.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, Hashable, TypeVar

DEFAULT_SIZE = 1024

T = TypeVar("T")


class ResultCache(Generic[T]):
    """Keep the *size* most recently used results; safe to share between threads."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, Hashable], T] = OrderedDict()
        self._snapshot: str | None = None
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, snapshot: str, params: Hashable) -> T | None:
        """Return the result stored for *params* on *snapshot*, or None."""
        key = (snapshot, params)
        with self._lock:
            result = self._items.get(key)
            if result is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return result

    def put(self, snapshot: str, params: Hashable, result: T) -> None:
        """Store *result*; forget everything of other snapshots and the least recently used."""
        if self.size <= 0:
            return
        with self._lock:
            if snapshot != self._snapshot:
                self._items.clear()
                self._snapshot = snapshot
            self._items[(snapshot, params)] = result
            self._items.move_to_end((snapshot, params))
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
