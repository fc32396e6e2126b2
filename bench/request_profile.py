"""Profile whole /api/search requests in one process, as a gunicorn worker answers them.

Each request goes through the app's WSGI callable (request id, metrics, logging, Flask, the view,
the search, JSON, the security headers) with a WSGI environ like the one gunicorn builds, and its
body is read to the end and closed, so the access line is written and the histogram observed.
The metrics are prometheus_client's multiprocess ones (files in a temporary folder, as under
gunicorn) and the access lines go to /dev/null through the app's JSON logging setup.

    .venv/bin/python -m bench.request_profile INDEX_DIR [--mix unique|distinct] [--route api|page] [--count 2000] [--profile OUT]

prints the CPU time per request (``time.process_time``) and, with ``--calls``, the Python function
calls per request counted by cProfile (a figure a loaded machine does not move); ``--profile OUT``
saves the cProfile stats.  Queries are the seed corpus's (``bench.queries``), none repeated, after
``--warm`` untimed ones (1,000) that fill the per-snapshot caches as a server's first seconds do.
``--route page`` asks for the search page (``/?q=``, what a browser loads) instead of ``/api/search``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager


def _environ(path: str, port: int = 8000) -> dict[str, object]:
    """Return the WSGI environ gunicorn builds for a GET of *path* from wrk."""
    route, _, query = path.partition("?")
    return {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": route,
        "QUERY_STRING": query,
        "RAW_URI": path,
        "SERVER_PROTOCOL": "HTTP/1.1",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": str(port),
        "REMOTE_ADDR": "127.0.0.1",
        "REMOTE_PORT": "40000",
        "HTTP_HOST": f"127.0.0.1:{port}",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def _get(app, path: str) -> int:
    status: list[str] = []

    def start_response(line: str, headers: list[tuple[str, str]], exc_info: object = None) -> None:
        status.append(line)

    body = app(_environ(path), start_response)
    try:
        size = sum(map(len, body))
    finally:
        body.close()
    if not status or not status[0].startswith("200"):
        raise RuntimeError(f"{path}: {status}")
    return size


def _queries(mix: str, count: int, seed: int = 11) -> list[str]:
    from bench.queries import distinct_queries, make_queries
    from corpus.sources import load_corpus

    records = list(load_corpus().records)
    return (distinct_queries if mix == "distinct" else make_queries)(records, count, seed)


@contextmanager
def app_as_a_worker(index_dir: str) -> Iterator[Callable[..., Iterable[bytes]]]:
    """Yield the app as a gunicorn worker runs it: multiprocess metrics in a temporary folder, the JSON
    access lines written to /dev/null, the query encoder loaded."""
    with tempfile.TemporaryDirectory(prefix="request-profile-") as metrics_dir:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir  # before prometheus_client is imported
        os.environ["TOPICHUB_INDEX_DIR"] = index_dir
        from web import create_app
        from web.observability import configure_logging

        configure_logging(open(os.devnull, "w"))  # noqa: SIM115 - lives as long as the run
        from search import semantic

        semantic.query_vector("warm up")  # as web/gunicorn_conf.py's on_starting does
        yield create_app()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("--mix", choices=("unique", "distinct"), default="unique")
    parser.add_argument("--route", choices=("api", "page"), default="api", help="/api/search (default) or the search page /")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--warm", type=int, default=1000, help="untimed requests first (default 1000)")
    parser.add_argument("--calls", action="store_true", help="count Python calls per request with cProfile")
    parser.add_argument("--profile", help="save cProfile stats of the timed requests here")
    args = parser.parse_args(argv)
    with app_as_a_worker(args.index_dir) as app:
        from bench.queries import api_paths, page_paths

        paths = api_paths(_queries(args.mix, args.count + args.warm))
        if args.route == "page":
            paths = page_paths(paths)
        for path in paths[args.count :]:
            _get(app, path)
        timed = paths[: args.count]
        profiler = cProfile.Profile() if args.calls or args.profile else None
        started, cpu = time.perf_counter(), time.process_time()
        if profiler is not None:
            profiler.enable()
        for path in timed:
            _get(app, path)
        if profiler is not None:
            profiler.disable()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - started
        print(f"{len(timed)} {args.route} requests ({args.mix}): CPU {cpu / len(timed) * 1e3:.3f} ms a request, "
              f"wall {wall / len(timed) * 1e3:.3f} ms" + (" (profiled)" if profiler else ""))
        if profiler is not None:
            stats = pstats.Stats(profiler)
            print(f"Python calls a request: {stats.total_calls / len(timed):,.0f} "
                  f"({stats.prim_calls / len(timed):,.0f} primitive)")
            if args.profile:
                stats.dump_stats(args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
