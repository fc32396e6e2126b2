"""gunicorn settings for the service (``topichub serve`` passes ``--config python:web.gunicorn_conf``).

Workers are separate processes, and each opens the published snapshot itself on its first request
and again whenever ``current`` points somewhere new, so a build or update needs no restart or
reload.  Memory is per worker: see docs/operations.md for the measured figures.
"""

import html

import gunicorn.http.wsgi
import gunicorn.util

from web.security import HEADERS

# No banner: gunicorn's Server header would name the software; ours names only the service.
gunicorn.http.wsgi.SERVER = "topichub"
gunicorn.http.wsgi.SERVER_SOFTWARE = "topichub"


def _write_error(sock, status_int: int, reason: str, mesg: str) -> None:
    """Answer a request gunicorn refuses itself (before the app) with the headers every answer carries."""
    body = f"<!doctype html><title>{html.escape(reason)}</title><h1>{html.escape(reason)}</h1><p>{html.escape(mesg)}</p>"
    data = body.encode("utf-8")
    head = [
        f"HTTP/1.1 {status_int} {reason}",
        "Connection: close",
        "Content-Type: text/html; charset=utf-8",
        f"Content-Length: {len(data)}",
        *(f"{name}: {value}" for name, value in HEADERS.items()),
    ]
    gunicorn.util.write_nonblock(sock, ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data)


# gunicorn answers malformed requests (414, 400) itself; those answers get our headers too.
gunicorn.util.write_error = _write_error

# Asynchronous workers: a connection waiting for a slow or idle client costs a greenlet, not a
# worker, so hundreds of them do not hold up other readers (docs/operations.md says why gevent).
worker_class = "gevent"
worker_connections = 1000
# The app is created in each worker, not in the master: nothing is shared that could go stale
# (open index files, per-snapshot facet postings) and a worker that dies takes nothing with it.
preload_app = False
timeout = 30
graceful_timeout = 10
# Under gevent this also bounds how long a request's head (request line and headers) may take to
# arrive, the first on a connection as much as the next: past it the connection is closed.
keepalive = 5
accesslog = "-"
errorlog = "-"
limit_request_line = 8190
