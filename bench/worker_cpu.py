"""CPU time one gunicorn worker spends per request, the service against the reference and the floor under both.

    .venv/bin/python -m bench.worker_cpu SEED_INDEX_DIR [--cases service,reference] [--rounds 2]

serves each case under gunicorn as ``make bench`` does (the service's config, gevent) but with one
worker, warms it for 2 s, then sends 5 s of requests over one connection (wrk, 1 thread) and reads
the worker's user and system CPU from /proc before and after.  Unlike requests/s this counts
everything the worker does for a request (gunicorn's parsing and writing, gevent, the app, the
access line, the system calls), and a busy machine moves it less; set beside
``bench.request_profile`` (the app alone, in-process) it shows what serving adds to each side.

The cases (``--cases``, comma-separated):

- ``service``, ``reference``: the unseen seed queries of ``make bench``'s unique mix, in its order;
- ``service-page``: the same queries' search pages (``/?q=``, what a browser loads: the search and
  its HTML);
- ``service-cached``: 20 of those queries over and over (every answer from the result cache);
- ``service-unlogged``: ``service`` with the access line switched off (its logger's level raised in
  each worker), to weigh the line;
- ``reference-health``: the reference's ``/healthz`` (Flask and gunicorn around a fixed answer);
- ``reference-dressed``: ``reference`` with the service's per-request duties added
  (``bench.reference_app.create_dressed_app``: request id, metrics, access line, security headers,
  ETag and Cache-Control), to weigh them on the reference's search;
- ``floor``: the smallest Flask app (``create_floor_app``): one route returning an 8 KB JSON body
  with the service's ten headers; what any Flask app pays under this config;
- ``wsgi-floor``: the same answer from a bare WSGI function (``create_wsgi_floor_app``), no Flask:
  what gunicorn, gevent and the kernel cost a request, and so what Flask adds to ``floor``.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench import fts5
from bench.queries import KINDS, api_paths, make_queries, page_paths, query_kind
from bench.run import UNIQUE_POOL, wrk
from bench.servers import REFERENCE_APP, SERVICE_APP, cpu_times, gunicorn
from corpus.sources import load_corpus

CASES = ("service", "reference", "service-page", "service-cached", "service-unlogged", "reference-health", "reference-dressed", "floor",
         "wsgi-floor")
FLOOR_APP = "bench.worker_cpu:create_floor_app()"
WSGI_FLOOR_APP = "bench.worker_cpu:create_wsgi_floor_app()"
FLOOR_BODY = b'{"text":"' + b"x" * 8000 + b'"}'
FLOOR_HEADERS = {"ETag": 'W/"4fa68e6945ae8ba8454f1c1881cc75a6"', "Cache-Control": "public, max-age=30",
                 "X-Request-ID": "510e9524a58eea0a7e5d836f49aa8e2c"}
DRESSED_APP = "bench.reference_app:create_dressed_app()"
# A gunicorn config module (written to the run's folder) that is the service's with the access line off.
_UNLOGGED_CONFIG = """from web.gunicorn_conf import *  # noqa: F403
import logging
import web.gunicorn_conf as served


def post_fork(server, worker):
    served.post_fork(server, worker)
    from web.observability import ACCESS_LOGGER

    logging.getLogger(ACCESS_LOGGER).setLevel(logging.WARNING)
"""


def create_floor_app():
    """Return a Flask app whose one route answers an 8 KB JSON body with the service's response headers."""
    from flask import Flask, Response

    from web.security import HEADERS

    app = Flask(__name__)
    headers = {**FLOOR_HEADERS, **HEADERS}

    @app.get("/healthz")
    def answer() -> Response:
        return Response(FLOOR_BODY, mimetype="application/json", headers=headers)

    return app


def create_wsgi_floor_app():
    """Return a bare WSGI app giving ``create_floor_app``'s answer (body and headers) to every request."""
    from web.security import HEADERS

    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(FLOOR_BODY))),
               *FLOOR_HEADERS.items(), *HEADERS.items()]

    def app(environ, start_response):
        start_response("200 OK", list(headers))
        return [FLOOR_BODY]

    return app


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("--cases", default="service,reference",
                        help=f"comma-separated, of: {', '.join(CASES)} (default service,reference)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--kind", choices=("all", *KINDS), default="all",
                        help="time only the quoted phrases, or only the plain queries of one, two or three words")
    args = parser.parse_args(argv)
    cases = args.cases.split(",")
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case(s): {', '.join(unknown)}")
    records = list(load_corpus().records)
    queries = make_queries(records, UNIQUE_POOL, 8)  # make bench's unique mix (its seed, 7, + 1)
    unique = api_paths(queries)
    timed = unique if args.kind == "all" else api_paths([q for q in queries if query_kind(q) == args.kind])
    with tempfile.TemporaryDirectory(prefix="worker-cpu-") as tmp:
        work = Path(tmp)
        db = work / "docs.fts"
        fts5.create(db, records)
        (work / "unlogged_conf.py").write_text(_UNLOGGED_CONFIG, encoding="utf-8")
        service = {"TOPICHUB_INDEX_DIR": str(Path(args.index_dir).resolve())}
        reference = {"BENCH_FTS5_DB": str(db)}
        unlogged = ("--config", "python:unlogged_conf")
        # case: (app, environment, extra gunicorn arguments, warm-up paths, timed paths)
        plans = {
            "service": (SERVICE_APP, service, (), unique[-1000:], timed),
            "reference": (REFERENCE_APP, reference, (), unique[-1000:], timed),
            "service-page": (SERVICE_APP, service, (), page_paths(unique[-1000:]), page_paths(timed)),
            "service-cached": (SERVICE_APP, service, (), unique[:20], unique[:20]),
            "service-unlogged": (SERVICE_APP, {**service, "PYTHONPATH": str(work)}, unlogged, unique[-1000:], timed),
            "reference-health": (REFERENCE_APP, reference, (), ["/healthz"], ["/healthz"]),
            "reference-dressed": (DRESSED_APP, reference, (), unique[-1000:], timed),
            "floor": (FLOOR_APP, {}, (), ["/healthz"], ["/healthz"]),
            "wsgi-floor": (WSGI_FLOOR_APP, {}, (), ["/healthz"], ["/healthz"]),
        }
        for _ in range(args.rounds):
            for case in cases:
                app, env, extra, warm, paths = plans[case]
                with gunicorn(app, env, 1, work / f"{case}.log", extra_args=extra) as server:
                    (pid,) = server.worker_pids()
                    wrk(server.base, warm, work, "warm", 2, 1, 1)
                    user, system = cpu_times(pid)
                    run = wrk(server.base, paths, work, "timed", 5, 1, 1)
                    user_after, system_after = cpu_times(pid)
                count = int(run["requests"])
                print(f"{case}: {count:,} requests, {run['rps']:,.0f}/s, worker CPU a request: user "
                      f"{(user_after - user) / count * 1e3:.3f} + system {(system_after - system) / count * 1e3:.3f} "
                      f"= {(user_after - user + system_after - system) / count * 1e3:.3f} ms", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
