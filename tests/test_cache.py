"""The bounded LRU and the per-snapshot result cache."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from search.cache import Bounded, ResultCache
from search.params import SearchParams

ROOT = Path(__file__).resolve().parent.parent


def test_result_cache_keeps_recent_results_per_snapshot():
    cache: ResultCache[str] = ResultCache(size=2)
    a, b, c = SearchParams(q="a"), SearchParams(q="b"), SearchParams(q="c")
    cache.put("s1", a, "A")
    cache.put("s1", b, "B")
    assert cache.get("s1", a) == "A"
    cache.put("s1", c, "C")  # b is now the least recently used
    assert cache.get("s1", b) is None and cache.get("s1", c) == "C"
    assert cache.get("s2", a) is None  # another snapshot: another result
    cache.put("s2", a, "A2")
    assert cache.get("s1", a) is None and len(cache) == 1


def test_bounded_cache_keeps_the_most_recently_used_within_its_cost():
    made = []
    cache: Bounded[str, str] = Bounded(10, cost=len)

    def value(key: str, size: int):
        return lambda: made.append(key) or key * size

    assert cache.get_or_make("a", value("a", 4)) == "aaaa"
    assert cache.get_or_make("b", value("b", 4)) == "bbbb"
    assert cache.get_or_make("a", value("a", 4)) == "aaaa" and made == ["a", "b"]  # kept, not made again
    cache.get_or_make("c", value("c", 4))  # 12 > 10: b, the least recently used, goes
    assert cache.total == 8 and len(cache) == 2
    cache.get_or_make("b", value("b", 4))
    assert made == ["a", "b", "c", "b"]
    cache.get_or_make("big", value("x", 30))  # one entry over the limit is still kept, alone
    assert len(cache) == 1 and cache.total == 30


def test_bounded_cache_tells_a_kept_none_from_a_missing_key_and_keeps_the_first_value_put():
    cache: Bounded[str, object] = Bounded(10)
    missing = object()
    assert cache.get("a", missing) is missing and "a" not in cache
    assert cache.put("a", None) is None  # "looked at, nothing to keep" is a value too
    assert cache.get("a", missing) is None and "a" in cache
    assert cache.put("b", "first") == "first"
    assert cache.put("b", "second") == "first"  # two threads making one value: the first stored wins
    assert cache.get("b") == "first"


def test_a_page_of_results_is_looked_up_at_once_as_one_by_one():
    cache: ResultCache[str] = ResultCache(size=4)
    keys = [SearchParams(q=q) for q in "abc"]
    cache.put("s1", keys[0], "A")
    cache.put("s1", keys[2], "C")
    assert cache.get_many("s1", keys) == ["A", None, "C"] == [cache.get("s1", k) for k in keys]
    assert cache.get_many("s2", keys) == [None, None, None]


def test_the_caches_serve_many_greenlets_at_once_under_gevent():
    """Under gunicorn's gevent worker the caches take the operating system's lock, not gevent's: a
    hundred greenlets taking turns between their look-ups all get their own values, and none waits
    for ever on a lock another holds (a process of its own: patching is for the whole process)."""
    script = """
from gevent import monkey
monkey.patch_all()
import gevent, threading
from search.cache import Bounded, ResultCache, memory_lock
assert type(memory_lock()) is not type(threading.Lock()), "gevent's lock, not the system's"
results, bounded = ResultCache(size=64), Bounded(limit=32)

def reader(n):
    for round_ in range(20):
        results.put("snap", (n, round_), n * round_)
        gevent.sleep(0)  # the others run between this greenlet's put and its get
        assert results.get("snap", (n, round_)) in (n * round_, None)  # kept, or evicted by the others
        assert bounded.get_or_make((n, round_ % 3), lambda: (n, round_ % 3)) == (n, round_ % 3)
        gevent.sleep(0)
    return n

done = gevent.joinall([gevent.spawn(reader, n) for n in range(100)], timeout=30, raise_error=True)
assert sorted(g.value for g in done) == list(range(100))
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
