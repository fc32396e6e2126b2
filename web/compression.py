"""Answers compressed as the request's Accept-Encoding allows (RFC 9110, 12.5.3; docs/operations.md, "Compression").

Of the codings a client accepts with the highest weight, the first of ``CODINGS``: zstd, then gzip at
level 1, brotli at quality 4, deflate (a 10 KB search answer is 2.6 KB by zstd in 45 µs, 2.8 KB by gzip
in 35 µs; brotli takes 99 µs).  A coding weighted ``q=0`` is refused, ``*`` stands for every coding the
header does not name (gzip first, the one every client reads), ``x-gzip`` is gzip.  The answer whole
(identity) is sent when the client prefers it; when it is under 500 bytes (a coding's framing
outweighs what it saves; longer text always shrinks, and only text is compressed, so nothing
compressed already is compressed again); and when the client refuses identity (``identity;q=0``,
``*;q=0``) but accepts no coding either: RFC 9110 lets a server disregard the header rather than
answer 406, and a 406 would take /healthz from a load balancer.
A client that refuses identity and accepts a coding gets even a small answer compressed.

Only a 200 of text (HTML, JSON, XML, Atom, the metrics) is compressed, after the view answered any
condition (If-None-Match, If-Modified-Since) itself: a 304 or an error is sent as it is, and the answer to
a conditional request does not depend on the coding.  ETags are weak, so the compressed and the whole
answer share one.  Streamed answers (the static files, which browsers keep) go as they are.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable
from functools import lru_cache

import brotli
from flask import Flask, Response, request
from werkzeug.http import parse_accept_header

try:
    from compression import zstd  # Python 3.14
except ImportError:
    from backports import zstd

# The codings offered, in the order taken among those a client weighs equally (docs/operations.md).
CODINGS: dict[str, Callable[[bytes], bytes]] = {
    "zstd": lambda data: zstd.compress(data, 3),
    "gzip": lambda data: gzip.compress(data, compresslevel=1, mtime=0),
    "br": lambda data: brotli.compress(data, quality=4),
    "deflate": lambda data: zlib.compress(data),
}
# Under this, a coding's own framing outweighs what it saves.
MIN_SIZE = 500
_ALIASES = {"x-gzip": "gzip"}
# What "*" stands for, first taken: a client that names no coding gets the one every client reads.
_ANY = ("gzip", *(coding for coding in CODINGS if coding != "gzip"))


@lru_cache(maxsize=256)
def negotiate(accept_encoding: str) -> tuple[str | None, bool]:
    """Return the coding to send for the *accept_encoding* a request sent (None: the answer whole) and
    whether the answer whole is acceptable to it."""
    weights: dict[str, float] = {}
    for name, weight in parse_accept_header(accept_encoding):  # werkzeug leaves out a weight that is no qvalue
        weights.setdefault(_ALIASES.get(name.lower(), name.lower()), weight)
    best, best_weight = None, 0.0
    for coding in CODINGS:  # first the codings the client names
        if weights.get(coding, 0.0) > best_weight:
            best, best_weight = coding, weights[coding]
    unnamed = [coding for coding in _ANY if coding not in weights]
    if unnamed and weights.get("*", 0.0) > best_weight:
        best, best_weight = unnamed[0], weights["*"]
    identity = weights.get("identity", weights.get("*", 1.0))
    if best is not None and "identity" in weights and identity > best_weight:
        return None, True  # the client prefers the answer whole
    return best, identity > 0


def compress_answers(app: Flask) -> None:
    """Compress *app*'s answers as each request's Accept-Encoding allows.  A request that sends none
    (wrk, ``make bench``) skips this altogether.  ``Vary: Accept-Encoding`` is every answer's, added
    with the security headers (web/security.py), compressed or not."""

    @app.after_request
    def compressed(response: Response) -> Response:
        accepted = request.environ.get("HTTP_ACCEPT_ENCODING")
        if accepted is None:
            return response
        coding, whole_acceptable = negotiate(accepted)
        if (coding is None or response.status_code != 200 or response.is_streamed
                or "Content-Encoding" in response.headers or not _textual(response.mimetype)):
            return response
        data = response.get_data()
        if len(data) < MIN_SIZE and whole_acceptable:
            return response
        response.set_data(CODINGS[coding](data))
        response.headers["Content-Encoding"] = coding
        return response


def _textual(mimetype: str) -> bool:
    return mimetype.startswith("text/") or mimetype.endswith(("json", "xml"))
