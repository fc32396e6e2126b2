"""What an operator sees: one JSON log line per request, a request id on every line, and /metrics.

Each request gets an id: the caller's ``X-Request-ID`` when it is short and printable (a proxy or a
client that already tags its requests), a new random one otherwise.  It is returned in the
``X-Request-ID`` response header and written on the request's access line and on every other log
line made while the request runs, errors included, so one grep finds all of them.

The access line names the request's path but not its query string: search terms are what readers
type, and may name people or things they would not want kept; ``q_chars`` (the length of the
search) is what capacity questions need.

Metrics are kept with ``prometheus_client``.  Under gunicorn every worker process writes its
values to files in ``PROMETHEUS_MULTIPROC_DIR`` (set up by web/gunicorn_conf.py) and /metrics adds
up all workers' files, so a scrape answered by any worker reports the whole server.  The served
snapshot's age and size and the CLI's last build and update (from the snapshot's record), and whether
the service is degraded, are read at scrape time, by the worker answering it.
"""

from __future__ import annotations

import json
import logging
import logging.config
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson
from flask import Flask, Request, Response, has_request_context, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map

from index import store
from search.params import SearchParams
from search.results import SearchResult
from search.service import SearchService
from search.snapshot import Snapshot

ACCESS_LOGGER = "topichub.access"
REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID_LOWER = REQUEST_ID_HEADER.lower()
# An incoming id is kept when it is 1 to 128 visible ASCII characters but " # \ { | }: safe in a header
# and a log line, and written alike in this service's JSON line (which escapes " and \) and a proxy's
# (HAProxy writes " # { | } of a captured value as #22 #23 #7B #7C #7D): one grep finds both lines, as
# with deploy/haproxy.cfg's rule, which is this one (the ops helper's report).
_SAFE_REQUEST_ID = re.compile(r"[!$-\[\]-z~]{1,128}")
_ENVIRON_ID = "topichub.request_id"
_ENVIRON_SNAPSHOT = "topichub.snapshot"
_ENVIRON_PINNED = "topichub.snapshot.pinned"  # the Snapshot itself: one a request
_ENVIRON_REQUEST = "topichub.request"
# Routes whose requests are searches: their access line carries q_chars.
SEARCH_ROUTES = frozenset({"/", "/api/search", "/api/suggest", "/api/suggest/opensearch", "/feeds/search.atom"})
UNMATCHED_ROUTE = "unmatched"  # one label for every unknown path, so scanners cannot grow the metrics
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def request_id(incoming: str | None) -> str:
    """Return *incoming* when it is a safe request id, else a new random one."""
    if incoming is not None and _SAFE_REQUEST_ID.fullmatch(incoming):
        return incoming
    return os.urandom(16).hex()  # 128 random bits, as a uuid4's hex; a quarter of its time


def refused_line(status: int, method: str | None, target: str | None) -> None:
    """Write the access line of a request the server refused before the app (gunicorn's 400 or 414):
    such requests wrote only a plain warning on stderr, where every request is to write one JSON
    line on stdout (a QA pass).  The path as the app's lines give it (no query string); none when
    the request line could not be read."""
    log = logging.getLogger(ACCESS_LOGGER)
    if not log.isEnabledFor(logging.INFO):
        return
    _access_line(log, {"method": method, "path": _path_text(target.partition("?")[0]) if target else None,
                       "status": status, "refused_by": "server", "request_id": request_id(None), "pid": os.getpid()})


def _access_line(log: logging.Logger, fields: dict[str, Any]) -> None:
    """Write one access line of *fields* (their ``request_id`` among them).  The record made directly:
    ``info`` would also look up the caller's file and line in the stack, which no access line shows."""
    log.handle(log.makeRecord(log.name, logging.INFO, "", 0, "request", (), None,
                              extra={"fields": fields, "request_id": fields["request_id"]}))


def multiprocess_dir() -> str | None:
    """Return the folder where worker processes share their metrics, when there is one."""
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


# -- logging ------------------------------------------------------------------------------------


class RequestIdFilter(logging.Filter):
    """Give every log record the id of the request it was made in (None outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request.environ.get(_ENVIRON_ID) if has_request_context() else None
        return True


# The longest path an access line gives, then "…": a path of 60 KB (a 404) made a 60 KB line, which
# journald (LineMax 48K) splits, and one JSON object a line no longer held (a review).  An id is at
# most 512 characters, so no document's address is cut.
LOGGED_PATH_CHARS = 2048


def _path_text(path: str) -> str:
    """Return a WSGI path (its bytes as Latin-1 characters) as the UTF-8 text it was: "/events/日本" was
    logged as mojibake with C1 controls in it; a byte that is no UTF-8 is written \\xNN.  At most
    LOGGED_PATH_CHARS characters of it."""
    text = path if path.isascii() else path.encode("latin-1", "replace").decode("utf-8", "backslashreplace")
    return text if len(text) <= LOGGED_PATH_CHARS else text[:LOGGED_PATH_CHARS] + "…"


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON object: an access line's fields as they are, others as a message."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {"ts": _iso_utc(record.created), "level": record.levelname.lower()}
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        else:
            line["logger"] = record.name
            line["message"] = record.getMessage()
            line["request_id"] = getattr(record, "request_id", None)
            if record.exc_info:
                line["exception"] = self.formatException(record.exc_info)
        try:  # orjson: a fifth of the standard library's time, for the line every request writes
            text = orjson.dumps(line, default=str).decode("utf-8")
        except orjson.JSONEncodeError:  # what orjson refuses (an integer past 64 bits, half a surrogate pair)
            text = json.dumps(line, ensure_ascii=False, default=str)
        # orjson escapes only what is below U+0020: C1 controls (CSI, which a terminal tailing the log
        # reads as ESC [) and the line separators some readers split at are written as escapes too.
        return text if text.isascii() else _UNSAFE_IN_LOGS.sub(_escaped, text)


_UNSAFE_IN_LOGS = re.compile("[\x7f-\x9f\u2028\u2029]")


def _escaped(found: re.Match[str]) -> str:
    return f"\\u{ord(found.group()):04x}"


_second: list[tuple[int, str]] = [(-1, "")]  # the last whole second formatted, and its text


def _iso_utc(created: float) -> str:
    """Return *created* as an ISO 8601 UTC time to the millisecond; the part up to the second is reused."""
    fraction, second = math.modf(created)
    micros = round(fraction * 1e6)  # rounded to the microsecond first, as datetime.fromtimestamp does
    if micros >= 1_000_000:
        second, micros = second + 1, micros - 1_000_000
    whole, text = _second[0]
    if int(second) != whole:
        whole = int(second)
        text = datetime.fromtimestamp(whole, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
        _second[0] = (whole, text)
    return f"{text}.{micros // 1000:03d}+00:00"


class JsonLinesHandler(logging.StreamHandler):
    """The handler of the JSON lines, which goes quiet once its stream is closed: with ``topichub serve |
    head -1`` every request after the first printed logging's 25-line "--- Logging error ---" report of
    a BrokenPipeError on stderr (a QA pass).  Said once on stderr instead, and nothing more is written."""

    closed = False

    def emit(self, record: logging.LogRecord) -> None:
        if not self.closed:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        exc = sys.exc_info()[1]
        if not (isinstance(exc, BrokenPipeError) or (isinstance(exc, ValueError) and getattr(self.stream, "closed", False))):
            super().handleError(record)
            return
        self.closed = True
        try:  # what its buffer holds then goes nowhere, not raised again when the process exits
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, self.stream.fileno())
            finally:
                os.close(null)
        except (OSError, ValueError, AttributeError):
            pass  # no descriptor (a closed one): nothing more is written to it all the same
        try:
            sys.stderr.write(f"warning: the JSON log's output was closed ({exc}): process {os.getpid()} writes no "
                             "more log lines\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass  # stderr closed too: nothing can be said


def log_config() -> dict[str, Any]:
    """Return the logging setup (for ``logging.config.dictConfig``) that writes the app's lines as JSON on stdout."""
    handler = {"class": "web.observability.JsonLinesHandler", "stream": "ext://sys.stdout", "formatter": "json",
               "filters": ["request_id"]}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": RequestIdFilter}},
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"json": handler},
        "loggers": {
            name: {"level": "INFO", "handlers": ["json"], "propagate": False}
            for name in (ACCESS_LOGGER, "web", "search", "index", "corpus")
        },
    }


def configure_logging(stream: Any = None) -> None:
    """Write the app's lines as JSON (``log_config``) on stdout, or on *stream* when given."""
    config = log_config()
    if stream is not None:
        config["handlers"]["json"]["stream"] = stream
    logging.config.dictConfig(config)
    # No line shows the thread or the multiprocessing process a record was made in, so records do not
    # look them up (the logging HOWTO's "Optimization"): 0.01 ms of each request's access line under
    # gunicorn (docs/performance.md).  gunicorn's own lines show the process id, which stays.
    logging.logThreads = False
    logging.logMultiprocessing = False


# -- metrics ------------------------------------------------------------------------------------


class Metrics:
    """The app's metrics: shared through files between gunicorn's workers, or kept by the app alone."""

    def __init__(self, index_dir: str | Path) -> None:
        # Imported here, in the worker, not when this module is: prometheus_client chooses between
        # per-process and shared (multiprocess) values when it is first imported.
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.index_dir = Path(index_dir)
        self.service: SearchService | None = None  # the service whose snapshot the gauges report (MeteredSearch)
        # Shared values live in the files; each app keeps its own registry only when there are none.
        self.registry = None if multiprocess_dir() else CollectorRegistry(auto_describe=True)
        if self.registry is not None:
            self.registry.register(SnapshotCollector(self))
        self.requests = Histogram(
            "topichub_http_request_duration_seconds", "Time to answer a request, by route and status.",
            ["route", "status"], buckets=DURATION_BUCKETS, registry=self.registry,
        )
        self.in_progress = Gauge(
            "topichub_http_requests_in_progress", "Requests being answered now.",
            registry=self.registry, multiprocess_mode="livesum",
        )
        self.cache_hits = Counter("topichub_result_cache_hits", "Searches answered from the result cache.",
                                  registry=self.registry)
        self.cache_misses = Counter("topichub_result_cache_misses", "Searches the result cache did not hold.",
                                    registry=self.registry)
        self.budget_expiries = Counter(
            "topichub_search_budget_expiries", "Searches whose ranking ran out of its time budget.",
            registry=self.registry,
        )

    def exposition(self) -> bytes:
        """Return every metric in the Prometheus text format, all workers' added up."""
        from prometheus_client import CollectorRegistry, generate_latest
        from prometheus_client.multiprocess import MultiProcessCollector

        registry = self.registry
        if registry is None:  # read every worker's files, then the index folder, afresh
            registry = CollectorRegistry(auto_describe=True)
            MultiProcessCollector(registry)
            registry.register(SnapshotCollector(self))
        return generate_latest(registry)


class SnapshotCollector:
    """Read the served snapshot's record at scrape time: its age and size, the last build and update;
    and whether the service is degraded, as /healthz says it.

    The served snapshot is the one the service answers from: the published one, or, when that one was
    refused (damaged, another schema version), the older one answering in its place.  The published
    one's snapshot.json was read, so a degraded service reported the refused snapshot's figures and
    nothing told it was degraded (a QA pass)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def describe(self):
        return []  # read at scrape time; nothing to check at registration

    def _served(self) -> tuple[dict[str, object], str | None, bool | None]:
        """Return the served snapshot's facts ({} when none answers), its id, and whether /healthz says
        degraded (None without a service: an app of the benchmarks', which serves no snapshot of its own)."""
        service = self.metrics.service
        if service is None:
            try:
                path = store.current_path(self.metrics.index_dir)
                return store.read_meta(path), path.name, None
            except store.IndexUnavailable:
                return {}, None, None
        try:
            snap = service.snapshot()
        except store.IndexUnavailable:  # none answers (or the worker is short of files or memory): searches 503
            return {}, None, True
        return snap.meta, snap.id, service.refusal() is not None or service.shortage() is not None

    def collect(self):
        from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily

        meta, served, degraded = self._served()
        if degraded is not None:
            # Every cause _served counts: the HELP left out a worker short of files or memory, which
            # docs/operations.md's table and /healthz name (a new operator's pass).
            yield GaugeMetricFamily("topichub_degraded", "1 when /healthz says degraded (the published snapshot was "
                                    "refused, none answers, or the worker ran short of open files or memory), else 0.",
                                    value=float(degraded))
            info = InfoMetricFamily("topichub_snapshot", "The published snapshot, and the one answering "
                                    "(another when the published one was refused; empty when none answers).")
            info.add_metric([], {"published": store.current_id(self.metrics.index_dir) or "", "served": served or ""})
            yield info
        published = _timestamp(meta.get("updated_at")) or _timestamp(meta.get("built_at"))
        updates = meta.get("updates") if isinstance(meta.get("updates"), list) else []
        last_update = updates[-1] if updates and isinstance(updates[-1], dict) else {}
        values = (
            ("topichub_snapshot_age_seconds", "Seconds since the served snapshot was built or last updated.",
             time.time() - published if published else None),
            ("topichub_snapshot_documents", "Documents in the served snapshot.", meta.get("doc_count")),
            ("topichub_build_duration_seconds", "How long the build behind the served snapshot took.",
             meta.get("build_seconds")),
            ("topichub_build_documents", "Documents that build indexed.", meta.get("build_doc_count")),
            ("topichub_update_duration_seconds", "How long the last update applied since that build took.",
             last_update.get("seconds")),
            ("topichub_update_documents", "Documents in the index after that update.", last_update.get("doc_count")),
        )
        for name, doc, value in values:
            family = GaugeMetricFamily(name, doc)
            if isinstance(value, (int, float)):
                family.add_metric([], float(value))
            yield family


def _timestamp(value: object) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value).timestamp()
    except ValueError:
        return None


class MeteredSearch(SearchService):
    """The search service, counting result-cache hits and misses and expired time budgets."""

    def __init__(self, metrics: Metrics, root: str | Path, **options: Any) -> None:
        super().__init__(root, **options)
        self._metrics = metrics
        metrics.service = self  # the snapshot it answers from is the one the gauges report

    def snapshot(self) -> Snapshot:
        """Return the service's snapshot, noting its id for the access line of the request that asked.

        A request reads one snapshot, the first it asked for: a document's page, its "more like this",
        the topics' three counts, a search and its facets each asked again, and a publish landing in
        between gave an answer naming one snapshot and holding another's (a QA pass under updates)."""
        if not has_request_context():
            return super().snapshot()
        environ = request.environ
        snap = environ.get(_ENVIRON_PINNED)
        if snap is None:
            snap = environ[_ENVIRON_PINNED] = super().snapshot()
            environ[_ENVIRON_SNAPSHOT] = snap.id
        return snap

    def search(self, params: SearchParams) -> SearchResult:
        """Return what the service returns for *params*, counted."""
        cache = self._results  # its counters are per process; the metrics add the workers up
        hits, misses = cache.hits, cache.misses
        result = super().search(params)
        # Only what changed: each inc of a shared counter writes to its memory-mapped file.
        if cache.hits != hits:
            self._metrics.cache_hits.inc(cache.hits - hits)
        if cache.misses != misses:
            self._metrics.cache_misses.inc(cache.misses - misses)
        if result.timed_out:
            self._metrics.budget_expiries.inc()
        return result


# -- the request wrapper ------------------------------------------------------------------------


class ObservedRequest(Request):
    """Flask's request, also kept in the environ for the access line and the metrics (Flask takes
    werkzeug's own entry away when the request ends, before the body is sent)."""

    def __init__(self, environ: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        super().__init__(environ, *args, **kwargs)
        environ[_ENVIRON_REQUEST] = self


class _Body:
    """A response body passed through to the server, counting its bytes, reporting when it is closed."""

    def __init__(self, body: Iterable[bytes], done: Callable[[int], None]) -> None:
        self._body = body
        self._done = done
        self.sent = 0

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._body:
            self.sent += len(chunk)
            yield chunk

    def close(self) -> None:
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            self._done(self.sent)


class RequestObserver:
    """WSGI middleware: give each request an id, time it, count it, and log it as one JSON line."""

    def __init__(self, wsgi_app: Callable[..., Iterable[bytes]], metrics: Metrics, url_map: Map | None = None) -> None:
        self.wsgi_app = wsgi_app
        self.metrics = metrics
        self.url_map = url_map  # to name the route of a 405 (asked with a method it does not take)
        self.log = logging.getLogger(ACCESS_LOGGER)
        # Each (route, status)'s histogram child; routes are the app's rules (unknown paths share one).
        self._observers: dict[tuple[str, int], Callable[[float], None]] = {}

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        started = time.perf_counter()
        rid = request_id(environ.get("HTTP_X_REQUEST_ID"))
        environ[_ENVIRON_ID] = rid
        status: list[int] = []

        def start(status_line: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            status[:] = [int(status_line.split(" ", 1)[0])]
            headers[:] = [(k, v) for k, v in headers if k.lower() != _REQUEST_ID_LOWER]
            headers.append((REQUEST_ID_HEADER, rid))
            return start_response(status_line, headers, exc_info)

        def done(sent: int) -> None:
            self.metrics.in_progress.dec()
            self._record(environ, status[0] if status else 500, sent, time.perf_counter() - started)

        self.metrics.in_progress.inc()
        try:
            body = self.wsgi_app(environ, start)
        except BaseException:
            done(0)
            raise
        return _Body(body, done)

    def _record(self, environ: dict[str, Any], status: int, sent: int, seconds: float) -> None:
        # What only the app knows: the route and q's length, from the app's request object (none when
        # the app failed before making it); the snapshot that answered (none
        # for a request that did not need the index), noted by MeteredSearch.
        req = environ.pop(_ENVIRON_REQUEST, None)  # and the cycle request -> environ -> request is broken
        url_rule = getattr(req, "url_rule", None)
        if url_rule is None and status == 405 and req is not None and self.url_map is not None:
            url_rule = _rule_of_other_method(self.url_map, environ, req)  # a route asked with a method it does not take
        route = url_rule.rule if url_rule is not None else UNMATCHED_ROUTE
        observe = self._observers.get((route, status))
        if observe is None:  # labels() validates and looks the child up under a lock: once per pair
            observe = self._observers[(route, status)] = self.metrics.requests.labels(route=route, status=str(status)).observe
        observe(seconds)
        log = self.log
        if not log.isEnabledFor(logging.INFO):
            return
        fields = {
            "method": environ.get("REQUEST_METHOD"),
            "path": _path_text(environ.get("PATH_INFO") or ""),
            "status": status,
            "duration_ms": round(seconds * 1000, 2),
            "bytes": sent,
            "request_id": environ[_ENVIRON_ID],
            "pid": os.getpid(),  # which worker answered
            "snapshot": environ.get(_ENVIRON_SNAPSHOT),
        }
        if route in SEARCH_ROUTES:
            q = req.args.get("q")
            if q is not None:
                fields["q_chars"] = len(q)
        _access_line(log, fields)


def _rule_of_other_method(url_map: Map, environ: dict[str, Any], req: Request) -> Any:
    """Return the route *req*'s path matches with a method it allows (its 405 names them), or None."""
    methods = getattr(req.routing_exception, "valid_methods", None)
    if not methods:
        return None
    try:
        return url_map.bind_to_environ(environ).match(method=methods[0], return_rule=True)[0]
    except HTTPException:  # the route stays unmatched
        return None


def register(app: Flask, metrics: Metrics) -> None:
    """Wrap *app* in the request observer and serve /metrics."""
    app.request_class = ObservedRequest
    app.wsgi_app = RequestObserver(app.wsgi_app, metrics, app.url_map)  # type: ignore[method-assign]
    app.extensions["metrics"] = metrics

    @app.get("/metrics")
    def _metrics() -> Response:
        response = Response(metrics.exposition(), content_type=METRICS_CONTENT_TYPE)
        response.headers["Cache-Control"] = "no-store"
        return response
