"""gunicorn settings for the service (``topichub serve`` passes ``--config python:web.gunicorn_conf``).

Workers are separate processes, and each opens the published snapshot itself on its first request
and again whenever ``current`` points somewhere new, so a build or update needs no restart or
reload.  Memory is per worker: see docs/operations.md for the measured figures.
"""

import ast
import gc
import html
import itertools
import json
import os
import re
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import gunicorn.glogging
import gunicorn.http.message
import gunicorn.http.wsgi
import gunicorn.util

from search.cache import malloc_trim
from search.params import MAX_QUERY_CHARS
from web import WORKER_TIMEOUT_S, worker_class as configured_worker_class
from web.observability import configure_logging, refused_line
from web.security import CORS_HEADERS, HEADERS, is_api

# No banner: gunicorn's Server header would name the software; ours names only the service.
gunicorn.http.wsgi.SERVER = "topichub"
gunicorn.http.wsgi.SERVER_SOFTWARE = "topichub"


# The request line gunicorn reads: a query of MAX_QUERY_CHARS characters in any script fits, percent-
# encoded (up to 12 bytes a character: "%F0%9F%98%80"), with its filters.  gunicorn bounds the setting
# at 8,190 bytes (0 is unbounded), where a pasted paragraph of some 900 Chinese characters got its bare
# "URI Too Long" page (a QA pass); its bound is its module's constant, raised here to ours.
REQUEST_LINE_BYTES = 65_536
gunicorn.http.message.MAX_REQUEST_LINE = max(gunicorn.http.message.MAX_REQUEST_LINE, REQUEST_LINE_BYTES)
limit_request_line = REQUEST_LINE_BYTES
# gunicorn's own parser, whose refusals name the request line read back below (the optional C parser's,
# gunicorn_h1c, name only the address, and its bound is its own).
http_parser = "python"
TOO_LONG = (f"The address is longer than the {REQUEST_LINE_BYTES:,} bytes the service reads. A query of up to "
            f"{MAX_QUERY_CHARS:,} characters fits in any script: shorten it and search again.")


# gunicorn refuses a request target holding what a URL percent-encodes (RFC 9112: printable ASCII only),
# as curl sends "?q=café" typed so, with a 400 echoing the request line garbled ("cafÃ©"), as HTML even
# to the API (a QA pass).  Its message names the line for some refusals only: a raw space ("?q=stargate
# uk") is read as the version "uk HTTP/1.1" and named so, without the path, and the API's 400 was its
# HTML without the CORS header (a QA pass); a header refused (431) names no line either.  So the line is
# kept on the request as it is read and on what its parse raises, where the error handler, called in
# the worker's except clause, finds it (sys.exc_info()); a line too long to read (414) has none.
_parse_request_line = gunicorn.http.message.Request.parse_request_line
_parse_request = gunicorn.http.message.Request.parse


def _keep_request_line(self, line_bytes):
    self.refused_line = line_bytes
    return _parse_request_line(self, line_bytes)


def _parse_naming_line(self, unreader):
    try:
        return _parse_request(self, unreader)
    except Exception as exc:
        exc.refused_line = getattr(self, "refused_line", None)
        raise


gunicorn.http.message.Request.parse_request_line = _keep_request_line
gunicorn.http.message.Request.parse = _parse_naming_line
_NOT_SENT_RAW = re.compile(r"[^\x21-\x7e]")  # what RFC 9112 has a request target carry percent-encoded
_NOT_ASCII = re.compile(r"[\x80-\xff]+")


def raw_target(target: str) -> str:
    """Return the message for *target* (bytes read as Latin-1) holding what a URL carries percent-encoded,
    naming the first such thing as sent and as it should be sent: "q=stargate uk" was told of "café"."""
    first = _NOT_SENT_RAW.search(target)
    if first is None or first[0] == " ":
        what = "a space (send it as %20 or +)"
    elif (run := _NOT_ASCII.match(target, first.start())) is not None:
        sent = run[0].encode("latin-1")
        try:
            text = sent.decode("utf-8")
        except UnicodeDecodeError as bad:  # the text before the byte that is no UTF-8 ("é\xff": "é")
            text = sent[: bad.start].decode("utf-8")
            sent = sent[: bad.start] if text else sent[bad.start : bad.start + 1]
        encoded = quote(sent, safe="")
        if not text:
            what = f"the byte {encoded} (send text as UTF-8, percent-encoded)"
        elif text.isprintable() and not text.isspace():
            what = f"“{text}” (send it as {encoded})"
        else:  # a no-break space shown as "“ ”" said nothing (a regression QA pass)
            what = f"a character you cannot see (send it as {encoded})"
    else:
        what = f"a control character (send it as {quote(first[0], safe='')})"
    return (f"The address holds {what}, which a URL carries percent-encoded: curl encodes a query with "
            f"-G --data-urlencode 'q=café'.")


def _refused_request(refused: BaseException | None) -> tuple[str | None, str]:
    """Return the method and target (as sent: an absolute form whole; its bytes as Latin-1 characters)
    of the request line gunicorn read before it raised *refused*, else (None, "")."""
    line = getattr(refused, "refused_line", None)
    if not line:
        return None, ""
    method, _, rest = line.decode("latin-1").partition(" ")
    target, _, version = rest.rpartition(" ")  # a raw space in the target stays in it ("?q=café x")
    if not version.startswith("HTTP/"):  # no version: the whole rest is the target
        target = rest
    return method, target


def _path_of(target: str) -> str:
    """Return a request target's path: an absolute form's ("http://host/api/…") after its authority,
    read by hand (urlsplit raised on "http://[", and gunicorn's error handler sent no answer: a review)."""
    if "://" not in target:
        return target
    after = target.partition("://")[2]
    slash = after.find("/")
    return after[slash:].partition("?")[0] if slash >= 0 else "/"


def _write_error(sock, status_int: int, reason: str, mesg: str) -> None:
    """Answer a request gunicorn refuses itself (before the app) with the headers every answer carries;
    an address too long or not percent-encoded says so in words, to the API as its JSON error."""
    try:
        method, target = _refused_request(sys.exc_info()[1])
        path = _path_of(target)
    except Exception:  # noqa: BLE001 - a line read back oddly must not cost the answer (gunicorn sends none then)
        method, target, path = None, "", ""
    refused_line(status_int, method, path)
    if status_int == 414:
        mesg = TOO_LONG
    elif status_int == 400 and _NOT_SENT_RAW.search(target):
        mesg = raw_target(target)
    # Where the request was for is not known (a line too long: gunicorn reads no further),
    # the answer may be the API's: it carries its CORS header, so a page on another origin reads the
    # 414 rather than a CORS failure (a QA pass of the docs: "every /api/ answer carries it").  Not a
    # malformed request's 400: no page's script sends one (a review).  Where it is known, an /api/
    # address gets the API's JSON error and its CORS header whatever was refused, a page's address the page.
    extra: tuple[tuple[str, str], ...] = CORS_HEADERS if not path and status_int in (414, 431) else ()
    if is_api(path):
        code = "invalid_request" if status_int == 400 else reason.lower().replace(" ", "_")  # as web/errors.py names werkzeug's
        body = json.dumps({"error": {"code": code, "message": mesg}})
        content_type, extra = "application/json", CORS_HEADERS
    else:
        body = (f"<!doctype html><title>{html.escape(reason)}</title><h1>{html.escape(reason)}</h1><p>{html.escape(mesg)}</p>"
                '<p><a href="/">Search again</a></p>')
        content_type = "text/html; charset=utf-8"
    data = body.encode("utf-8")
    head = [
        f"HTTP/1.1 {status_int} {reason}",
        "Connection: close",
        f"Content-Type: {content_type}",
        f"Content-Length: {len(data)}",
        *(f"{name}: {value}" for name, value in (*HEADERS.items(), *extra)),
    ]
    gunicorn.util.write_nonblock(sock, ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data)


# gunicorn answers malformed requests (414, 400) itself; those answers get our headers too.
gunicorn.util.write_error = _write_error


# gunicorn's warning of a request it refuses quotes what was sent ("Invalid HTTP Version: 'private
# diagnosis HTTP/1.1'" of a query with raw spaces, the whole request line of "?q=café_secret"), and its
# error of a request that failed names its address, query and all: a query in the error log, where the
# service logs none (docs/operations.md, "Why the query is not logged"; a QA pass).
_QUOTED = re.compile(r"b?'(?:[^'\\]|\\.)*'" r'|b?"(?:[^"\\]|\\.)*"')  # a repr, in either quotes


def _withheld(quoted: re.Match[str]) -> str:
    """Return what stands in a log line for the quoted text *quoted* (a repr): its length alone."""
    try:
        chars = len(ast.literal_eval(quoted[0]))
    except (ValueError, SyntaxError):  # cut short or odd: about as long
        chars = len(quoted[0]) - 2
    return f"[request text withheld: {chars:,} {'byte' if chars == 1 else 'bytes'}]"


class WithholdingLogger(gunicorn.glogging.Logger):
    """gunicorn's logger, writing what a refused or failed request said (its line, a header) by its length only."""

    def warning(self, msg, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(msg, str) and msg.startswith("Invalid request from "):  # (formatted already: no args)
            msg = _QUOTED.sub(_withheld, msg % args if args else msg).replace("%", "%%")
            args = ()
        super().warning(msg, *args, **kwargs)

    def exception(self, msg, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(msg, str) and msg.startswith("Error handling request") and args:
            uri = str(args[-1])  # the request's target, last: its path stays, to find the failing route
            args = (*args[:-1], uri.partition("?")[0] + ("?[query withheld]" if "?" in uri else ""))
        super().exception(msg, *args, **kwargs)


logger_class = WithholdingLogger

# Asynchronous workers: a connection waiting for a slow or idle client costs a greenlet, not a
# worker, so hundreds of them do not hold up other readers (docs/operations.md says why gevent).
worker_class = configured_worker_class()
worker_connections = 1000
# The app is created in each worker, not in the master: nothing is shared that could go stale
# (open index files, per-snapshot facet postings) and a worker that dies takes nothing with it.
preload_app = False
timeout = WORKER_TIMEOUT_S
# Each worker's heartbeat touches a file every second; on a disk-backed /tmp (ext4 here) that call can
# wait on the file system's journal while the worker's requests wait behind it.  gunicorn's FAQ ("How
# do I avoid Gunicorn excessively blocking in os.fchmod?") advises a RAM-backed folder.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
graceful_timeout = 10
# Under gevent this also bounds how long a request's head (request line and headers) may take to
# arrive, the first on a connection as much as the next: past it the connection is closed.
keepalive = 5
# The app writes the access log itself, one JSON line per request on stdout (web/observability.py);
# gunicorn's own messages (workers starting, dying) stay on stderr.
accesslog = None
errorlog = "-"
# gunicorn 25.1+ opens a control socket for `gunicornc` at one path per user ($XDG_RUNTIME_DIR or
# ~/.gunicorn/gunicorn.ctl): a second service on the host (a replica, a test server) takes it over,
# and stopping either removes it.  The service is run with signals (docs/operations.md), so none.
control_socket_disable = True
# gunicorn (22+) reads SCRIPT_NAME and PATH_INFO request headers from a trusted proxy (127.0.0.1 by
# default) into the WSGI environ: any client of a same-host proxy that passes them on (HAProxy does)
# could set the links of the cached OpenSearch description and feeds ("SCRIPT_NAME: /evil"), or get
# gunicorn's 500 (QA pass AA).  The service is served at the root: none is read.
forwarder_headers = ""


# Metrics shared between workers (prometheus_client's multiprocess mode) live in files in one folder:
# the operator's $PROMETHEUS_MULTIPROC_DIR, emptied at start, or a temporary one removed at exit.
_made_metrics_dir: list[Path] = []


def on_starting(server) -> None:
    """Set up, in the master before any worker starts, the JSON logs and the shared metrics folder."""
    configure_logging()
    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if given:
        folder = Path(given)
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.db"):  # a previous run's values would be added to this one's
            stale.unlink()
    else:
        folder = Path(tempfile.mkdtemp(prefix="topichub-metrics-"))
        _made_metrics_dir.append(folder)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    # The query encoder, loaded before the workers fork: they share its tokenizer (14 MB), and no
    # reader waits for it to load (about 0.1 s).
    from search import semantic

    semantic.query_vector("warm up")


def child_exit(server, worker) -> None:
    """Drop a finished worker's live gauges (its requests in progress) from the sums."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server) -> None:
    for folder in _made_metrics_dir:
        shutil.rmtree(folder, ignore_errors=True)


# The cyclic garbage collector's full passes, on the service's schedule rather than the allocator's.
# A full pass walks every object the caches hold (tens of ms once they are warm) and stalls every
# request on that worker meanwhile: left to Python's thresholds it came every second or so under load
# and was the slowest 1 % of make bench's seed requests (p99 27.6 ms with the default, 5.4-7.4 ms with
# the collector off; docs/operations.md).  Young garbage is still collected as it comes (generations
# 0 and 1); a full pass runs after FULL_COLLECT_EVERY requests, and when a new snapshot is opened.
FULL_COLLECT_EVERY = 20_000
# The young generations are collected after every YOUNG_COLLECT_EVERY answers as well.  Each search
# leaves about 50 objects that live on (its page in the result cache: hits, facet values) while
# evicting as many old ones, and the allocator counts an old object freed against a new one made, so
# its young passes came seldom and found tens of thousands of objects: 10-25 ms each, inside a
# request, on the distinct mix (docs/performance.md).  Collected this often, a pass sees at most a
# few thousand (under 1 ms), the survivors go on to the old generation, and the total time the
# collector takes halves.
YOUNG_COLLECT_EVERY = 25
# The C allocator keeps the pages the caches' evicted entries freed, so a worker's resident memory
# settles some 15-20 MB above what it holds (64k documents: 301 MB after 6,000 unseen searches, 284
# after malloc_trim, which took 1.5 ms).  It is given back after every TRIM_EVERY answers.
TRIM_EVERY = 1000
_answered = itertools.count(1)
_pass_turn: Callable[[float], object] | None = None  # gevent.sleep under gevent workers
# How long an answered connection waits before its next request is read: any positive time puts it
# after the loop's next poll for sockets, where gevent.sleep(0) may resume it before (gevent's
# docstring).  A microsecond is shorter than the poll itself: the turn is passed, no time is lost.
PASS_TURN_SECONDS = 1e-6


_trim = malloc_trim()


def post_fork(server, worker) -> None:
    """Keep the collector's automatic full passes out of the request path (see FULL_COLLECT_EVERY),
    under gevent workers (not ``--worker-class sync``) let each answer pass the turn, and quit once
    (``_quit_once``); a stop signal that comes while it boots ends it (``_stop_while_booting``)."""
    global _pass_turn
    _quit_once(worker)
    _stop_while_booting(worker)
    gen0, gen1, _ = gc.get_threshold()
    gc.set_threshold(gen0, gen1, 1_000_000)  # a full pass only after a million generation-1 passes
    if type(worker).__module__ == "gunicorn.workers.ggevent":
        import gevent

        _pass_turn = gevent.sleep


def post_worker_init(worker) -> None:
    """Open the published snapshot, and make what a first search makes of it, before the worker takes
    a request (``SearchService.warm``): each worker's first search waited for it (at 64k, 1.4 and 0.9 s
    for the two workers' first searches after a start, 0.7 and 1.0 s with the snapshot opened here but
    not its names and words, where later ones took 17-40 ms; `topichub serve` on the Debian corpus, curl,
    2026-12-07).  No index, or one refused, is left for the first request to report, as before."""
    service = getattr(worker.wsgi, "extensions", {}).get("search")
    if service is not None:
        try:
            service.warm()
        except Exception:  # noqa: BLE001 - said by the request that meets it (a 503 naming why)
            pass


def _quit_once(worker) -> None:
    """Make *worker* quit once: Ctrl-C sends SIGINT to every worker and the master then sends each
    SIGQUIT, and a gevent worker ran its quit (``sys.exit`` in a greenlet) for both, the second while
    the interpreter was shutting down: a traceback ending "SystemExit: 0" from every worker on each
    Ctrl-C of ``make run`` (QA pass Y; gunicorn#3239).  Set before the worker registers its signal
    handlers (``init_signals`` takes ``self.handle_quit``), so it holds from the first signal on."""
    quit_now = worker.handle_quit
    quitting: list[int] = []

    def quit_once(sig, frame) -> None:
        if not quitting:
            quitting.append(sig)
            quit_now(sig, frame)

    worker.handle_quit = quit_once


def _stop_while_booting(worker) -> None:
    """Make a stop signal that reaches *worker* before it sets its own handlers end it.

    A worker keeps its master's handlers from the fork until ``init_signals``, after gevent's
    patching: a SIGTERM, SIGINT or SIGQUIT in that time went to the master's handler, in the wrong
    process, and was lost, so a server stopped while a worker booted (a restart or Ctrl-C right after
    a start) waited graceful_timeout, 10 s, and then killed that worker (QA pass AD).  Here the
    signal ends the worker's loop before it starts, as its own SIGTERM handler does."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT):
        signal.signal(sig, worker.handle_exit)


def post_request(worker, req, environ, resp) -> None:
    """After each answer: a garbage collection when one is due (full or young), the freed heap given
    back when due, then let the worker's other connections have their turn (under gevent).

    A greenlet gives the CPU away only when it waits, and a keep-alive client whose next request is
    already there when its answer is done (a pipelining client, or a fast one while the answer is
    logged) is never waited for: its connection kept the worker to itself and the others' requests
    queued behind it (make bench's unique mix, one worker and 4 connections: p90 298 ms, p99 593 ms;
    with this yield 13.5 and 44.9 ms on a loaded machine, see docs/operations.md).  The yield is a
    sleep of PASS_TURN_SECONDS, not of 0: after sleep(0) gevent may resume the greenlet before it polls
    the sockets, and 1 % of requests still waited 15-38 ms behind the other connection (2 workers, 4
    connections, seed mixes on a quiet machine: p99 5.3-37.6 ms with sleep(0), 4.5-6.1 ms with this;
    docs/performance.md, "The seed tail").
    """
    answered = next(_answered)
    if answered % FULL_COLLECT_EVERY == 0:
        gc.collect()  # after the answer was sent: the next requests on this worker wait for it, once
    elif answered % YOUNG_COLLECT_EVERY == 0:
        gc.collect(1)
    if _trim is not None and answered % TRIM_EVERY == 0:
        _trim()
    if _pass_turn is not None:
        _pass_turn(PASS_TURN_SECONDS)
