"""Response headers every answer carries, errors included."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask

HEADERS = {
    # form-action: default-src does not cover where a form submits (an injected form could post off-site).
    "Content-Security-Policy": (
        "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    # The pages use no device or sensor: nothing on them may ask for one.
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    # An answer is compressed or not by the request's Accept-Encoding (web/compression.py): a shared
    # cache is to keep the two apart.  Every answer's, errors and 304s too; no view sets a Vary of its own.
    "Vary": "Accept-Encoding",
}


_LOWER = tuple((name.lower(), name, value) for name, value in HEADERS.items())

# The JSON API is public, read-only and uses no cookie, so a page of any origin may read it (a
# dashboard calling /api/search from the browser): every /api/ answer says so, and names the headers
# beyond the safelisted ones a client reads.  A preflight (sent before a request with If-None-Match
# or X-Request-ID) learns the methods the API takes, and that the headers it asks to send are taken:
# a fixed list of those the API reads failed a client's GET setting Content-Type, Cache-Control or
# Authorization, which the API ignores (a QA pass).  Echoed rather than "*": a wildcard does not cover
# Authorization (Fetch), and the answer then varies with the header asked.  Pages, feeds and forms are
# not shared.
API_PREFIX = "/api/"
CORS_HEADERS = (
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Expose-Headers", "ETag, Link, X-Request-ID, Retry-After"),
)
PREFLIGHT_HEADERS = (
    ("Access-Control-Allow-Methods", "GET, HEAD"),
    ("Access-Control-Max-Age", "86400"),
    ("Vary", f"{HEADERS['Vary']}, Access-Control-Request-Headers"),
)
# The request headers the API reads: a preflight asking none, or asking in a form that is no list of
# header names, is told these.
READ_HEADERS = "If-None-Match, If-Modified-Since, If-Match, If-Unmodified-Since, X-Request-ID"
_HEADER_NAMES = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*")


def preflight_headers(asked: str) -> tuple[tuple[str, str], ...]:
    """Return the headers a preflight is answered with, that asked to send the request headers *asked*
    (its Access-Control-Request-Headers)."""
    asked = asked.strip(" \t")
    return (*PREFLIGHT_HEADERS, ("Access-Control-Allow-Headers", asked if _HEADER_NAMES.fullmatch(asked) else READ_HEADERS))


def is_api(path: str) -> bool:
    """Whether *path* is the API's, in any case and without its final slash, as its errors are JSON
    (web/errors.py): "/API/search" got the API's JSON 404 without the CORS header to read it (a QA pass)."""
    return path[:len(API_PREFIX)].lower() in (API_PREFIX, API_PREFIX[:-1])  # "/api" itself is its whole path


def secured(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Return a response's *headers* with each of HEADERS the app did not set itself added, less Server."""
    present = {name.lower() for name, _ in headers}
    if "server" in present:
        headers = [(name, value) for name, value in headers if name.lower() != "server"]
    headers.extend((name, value) for lower, name, value in _LOWER if lower not in present)
    return headers


class SecureHeaders:
    """WSGI middleware: secure every answer's headers as the server receives them.

    Done on the plain header list rather than in an ``after_request`` hook: werkzeug's header object
    validates each value and raises and catches an exception for each name missing (the usual case),
    which cost more than the rest of this together (docs/performance.md).
    """

    def __init__(self, wsgi_app: Callable[..., Iterable[bytes]]) -> None:
        self.wsgi_app = wsgi_app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        shared: tuple[tuple[str, str], ...] = ()
        if is_api(environ.get("PATH_INFO", "")):
            shared = CORS_HEADERS
            if environ.get("REQUEST_METHOD") == "OPTIONS" and "HTTP_ACCESS_CONTROL_REQUEST_METHOD" in environ:
                shared += preflight_headers(environ.get("HTTP_ACCESS_CONTROL_REQUEST_HEADERS", ""))

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            return start_response(status, secured([*headers, *shared] if shared else headers), exc_info)

        return self.wsgi_app(environ, start)


def register(app: Flask) -> None:
    """Secure the headers of every answer *app* gives."""
    app.wsgi_app = SecureHeaders(app.wsgi_app)  # type: ignore[method-assign]
