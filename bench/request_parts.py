"""What one part of the request path costs an unseen /api/search request, measured by switching it off.

A part's cost in a tight loop (``timeit``) is not what it costs a worker: after a search the caches
hold the search's data, and the code around it runs two to ten times slower than when it runs over
and over.  So each part is measured where it runs, in one process as a gunicorn worker runs the app
(``bench.request_profile``): rounds of unseen seed queries alternate between the app as it is and the
app with the part switched off, and the CPU time a request spends outside ``SearchService.search``
is compared (medians of the rounds).

    .venv/bin/python -m bench.request_parts INDEX_DIR PART [--rounds 8] [--per-round 400]

PART is one of: observer (the whole RequestObserver: id, metrics, access line), access_line,
duration_histogram, in_progress_gauge, etag, security_headers, none (both sides the same: the noise).
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from bench.request_profile import _get, _queries, app_as_a_worker


@contextmanager
def _swapped(owner: Any, name: str, value: object) -> Iterator[None]:
    """Set *owner*'s attribute *name* to *value* while the block runs."""
    saved = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, saved)


def _switch(app: Any, part: str) -> Callable[[], Any]:
    """Return a context manager factory that switches *part* of *app* off while it is open."""
    from web import api
    from web.observability import ACCESS_LOGGER

    observer = app.wsgi_app
    metrics = app.extensions["metrics"]

    def nothing(*args: object, **kwargs: object) -> None:
        return None

    parts: dict[str, Callable[[], Any]] = {
        "observer": lambda: _swapped(app, "wsgi_app", observer.wsgi_app),
        "access_line": lambda: _swapped(logging.getLogger(ACCESS_LOGGER), "disabled", True),
        "duration_histogram": lambda: _swapped(observer, "_observers", _Nothing()),
        "in_progress_gauge": lambda: _gauge_off(metrics, nothing),
        "etag": lambda: _swapped(api, "_etag", lambda *parts: "0" * 32),
        "security_headers": lambda: _swapped(observer, "wsgi_app", observer.wsgi_app.wsgi_app),
        "none": lambda: _swapped(app, "wsgi_app", observer),
    }
    return parts[part]


class _Nothing(dict):
    """An observer table whose every entry observes nothing."""

    def get(self, key: object, default: object = None) -> Callable[[float], None]:
        return lambda seconds: None


@contextmanager
def _gauge_off(metrics: Any, nothing: Callable[..., None]) -> Iterator[None]:
    """Leave the in-progress gauge where it is while the block runs."""
    with _swapped(metrics.in_progress, "inc", nothing), _swapped(metrics.in_progress, "dec", nothing):
        yield


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("part")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--per-round", type=int, default=400)
    parser.add_argument("--warm", type=int, default=1000)
    args = parser.parse_args(argv)
    from bench.queries import api_paths
    from search.service import SearchService

    in_search = [0.0]
    search = SearchService.search

    def timed(self: SearchService, params: Any) -> Any:
        started = time.process_time()
        try:
            return search(self, params)
        finally:
            in_search[0] += time.process_time() - started

    SearchService.search = timed  # type: ignore[method-assign]
    with app_as_a_worker(args.index_dir) as app:
        paths = api_paths(_queries("unique", args.warm + 2 * args.rounds * args.per_round))
        for path in paths[: args.warm]:
            _get(app, path)
        paths = paths[args.warm :]
        switch_off = _switch(app, args.part)
        outside: dict[bool, list[float]] = {True: [], False: []}
        for turn in range(2 * args.rounds):
            on = (turn % 2 == 0) == (turn // 2 % 2 == 0)  # on, off, off, on, on, off ...: neither side always first
            chunk, paths = paths[: args.per_round], paths[args.per_round :]
            with (_swapped(app, "wsgi_app", app.wsgi_app) if on else switch_off()):
                in_search[0], started = 0.0, time.process_time()
                for path in chunk:
                    _get(app, path)
                spent = time.process_time() - started
            outside[on].append((spent - in_search[0]) / len(chunk) * 1e3)
        with_it, without = statistics.median(outside[True]), statistics.median(outside[False])
        print(f"{args.part}: CPU outside the search {with_it:.3f} ms a request with it, {without:.3f} ms without: "
              f"{(with_it - without) * 1e3:.0f} µs (medians of {args.rounds} rounds of {args.per_round})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
