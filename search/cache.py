"""Bounded caches: search results keyed by the snapshot and the normalised request, and a
least-recently-used map bounded by its entries' cost (``Bounded``, for per-snapshot caches), and
``remember`` for the plain dicts of the hot paths, emptied when full.

A snapshot never changes once published, so a result computed for (snapshot id, parameters) stays
right for as long as that snapshot is the live one.  The key carries the snapshot id, so a publish
invalidates every entry at once (the service also empties the cache when it switches snapshots, to
give the memory back).  ``SearchParams`` is frozen and already normalised by ``parse_params``
(whitespace collapsed, repeated filter values dropped), so it is the key as it is.
"""

from __future__ import annotations

import ctypes
import functools
import importlib
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, Hashable, TypeVar

DEFAULT_SIZE = 1024

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def unpatched(module: str, name: str) -> Any:
    """Return ``module.name`` as it was before gevent patched it (as it is, where gevent never did)."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is None:  # gevent's patching was never loaded: the module's attribute is the original
        return getattr(importlib.import_module(module), name)
    return monkey.get_original(module, name)


@functools.cache  # the library's symbol looked up once (a large read gives memory back after each)
def malloc_trim() -> Callable[[], object] | None:
    """Return glibc's ``malloc_trim(0)`` (give freed heap pages back to the system), or None without it.

    The C library is the one the interpreter runs on (``ctypes.CDLL(None)``): ``ctypes.util.find_library``
    runs ``ldconfig``, a subprocess, which under gevent fails outside the hub's thread ("child watchers
    are only available on the default loop"), so search as you type at 64k never finished its read
    under the default workers (a QA pass)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS)
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: trim(0)


def memory_lock() -> threading.Lock:
    """Return a lock for sections that only read and write memory: the operating system's, also under gevent.

    gevent's patched lock is Python code: a cache hit took 0.39 µs with it and 0.27 with this one
    (timeit, gevent patched), and an unseen search takes some 40 (docs/performance.md).  A greenlet
    gives the thread away only where it waits on a socket or a sleep, which nothing inside such a
    section does, so no other greenlet can find the lock held; between OS threads (``--threads``) it
    is the lock it always was.
    """
    return unpatched("_thread", "allocate_lock")()


def remember(kept: dict[K, V], key: K, value: V, limit: int) -> V:
    """Keep *value* for *key* in *kept*, emptying it first when it holds *limit* entries; return *value*.

    For caches read on every request: a plain dict costs one look-up, where ``Bounded`` takes a lock
    and keeps an order; emptied now and then, it refills with what is asked.
    """
    if len(kept) >= limit:
        kept.clear()
    kept[key] = value
    return value


class ResultCache(Generic[T]):
    """Keep the *size* most recently used results; safe to share between threads."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, Hashable], T] = OrderedDict()
        self._snapshot: str | None = None
        self._lock = memory_lock()
        self.hits = 0
        self.misses = 0

    def get(self, snapshot: str, params: Hashable) -> T | None:
        """Return the result stored for *params* on *snapshot*, or None."""
        return self.get_many(snapshot, [params])[0]

    def get_many(self, snapshot: str, many: list[Hashable]) -> list[T | None]:
        """Return ``get(snapshot, params)`` for each of *many*, under one hold of the lock."""
        items = self._items
        found: list[T | None] = []
        with self._lock:
            for params in many:
                key = (snapshot, params)
                result = items.get(key)
                if result is None:
                    self.misses += 1
                else:
                    items.move_to_end(key)
                    self.hits += 1
                found.append(result)
        return found

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




class Bounded(Generic[K, T]):
    """A least-recently-used map whose entries' total *cost* stays under *limit*; thread-safe.  While
    the entries cost at most half the limit, reads keep no order (below): the entries read then are
    evicted, once the map fills, in the order they were made unless read again past the half.

    ``get_or_make`` computes a missing value outside the lock (two threads may both compute it;
    the first stored wins), so a slow computation never blocks readers of other keys.
    """

    def __init__(self, limit: int, cost: Callable[[T], int] = lambda _value: 1) -> None:
        self.limit = limit
        self._cost = cost
        self._items: OrderedDict[K, tuple[T, int]] = OrderedDict()
        self._total = 0
        # While the entries cost at most half the limit, nothing is near eviction: a read takes no lock
        # and moves no entry to the end (``get``, ``get_or_make``).  An unseen seed request made some 30
        # look-ups, each a lock held and an entry moved (``Snapshot.kept_tokens`` 14, ``stored`` 7, term
        # documents and scores), where the 57 documents' entries fill a few per cent of any limit.  Once
        # past half, the entries read meanwhile are evicted in the order they were made until reads
        # have ordered them again.
        self._lock = memory_lock()

    @property
    def total(self) -> int:
        """Return the summed cost of the entries kept."""
        return self._total

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def get(self, key: K, default: T | None = None) -> T | None:
        """Return the value kept for *key*, or *default*."""
        if self._total * 2 <= self.limit:  # far from full: nothing is evicted yet, so no order need be kept
            found = self._items.get(key)  # one dict read, atomic under the GIL (keys of str, int, bytes, tuples)
            return default if found is None else found[0]
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return default
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: K, value: T) -> T:
        """Keep *value* for *key* unless a value is kept already; return the kept one."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                return found[0]
            cost = self._cost(value)
            self._items[key] = (value, cost)
            self._total += cost
            while self._total > self.limit and len(self._items) > 1:
                _, (_, old) = self._items.popitem(last=False)
                self._total -= old
        return value

    def get_or_make(self, key: K, make: Callable[[], T]) -> T:
        """Return the value kept for *key*, or ``make()``'s, kept from now on."""
        if self._total * 2 <= self.limit:  # as ``get``: no lock, no order kept while far from full
            found = self._items.get(key)
            return found[0] if found is not None else self.put(key, make())
        with self._lock:  # ``get``, inline: this is most of a request's cache look-ups
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found[0]
        return self.put(key, make())
