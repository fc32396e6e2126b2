"""What a request's query string must be before any view reads it: UTF-8 text, percent-encoded.

werkzeug (3.x) decodes ``request.args`` with ``errors="werkzeug.url_quote"``: bytes that are not UTF-8
are kept percent-encoded, so ``q=%C3%28`` reads as the text ``%C3(`` and ``topic=%FF`` as ``%FF``, and
both were searched literally (nothing says the client sent something else).  The raw query string is
checked here instead, once per request, and such a parameter is refused with the 400 that names it
(JSON under /api, the error page elsewhere), as any other bad parameter.  A ``%`` not followed by two
hex digits is left alone: it is no byte at all, and werkzeug and browsers read it as a literal ``%``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote_from_bytes, unquote_to_bytes

from flask import Flask, current_app, request
from werkzeug.exceptions import SecurityError
from werkzeug.sansio.utils import host_is_trusted

from search.params import InvalidParameter

_PRINTABLE = bytes(range(0x21, 0x7F))  # what a request target may hold as it is (RFC 3986), "%" included
_NO_PARAMETERS = frozenset({"/healthz", "/metrics"})  # probes: routes that read no parameter and write no link


# What no id nor topic holds (corpus.jsonl.check_id refuses a record's id with one, a topic's is read
# with them as spaces): C0, DEL and C1.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def check_path() -> None:
    """Raise InvalidParameter when the path is not UTF-8 once percent-decoded: werkzeug reads such bytes
    as U+FFFD, and ``/api/documents/%FF`` was a 404 naming the id '\ufffd', which nobody sent; or when an
    id in it (a document's, a guide's topic) holds a control character, which none holds."""
    if request.view_args:
        _check_ids(request.view_args)
    if "\ufffd" not in request.path:
        return
    environ = request.environ
    sent = (environ.get("RAW_URI") or environ.get("REQUEST_URI") or "").partition("?")[0]  # gunicorn's and werkzeug's
    if _text(sent.encode("latin-1", "replace")) is not None:
        return  # a U+FFFD really sent (%EF%BF%BD): an id like any other
    param = "id" if request.view_args and "doc_id" in request.view_args else "path"
    raise InvalidParameter(param, f"{'The path' if param == 'path' else repr(param)} is not UTF-8 text once "
                                  "percent-decoded: each %XX must be a byte of a UTF-8 character (é is %C3%A9)")


def _check_ids(view_args: dict[str, Any]) -> None:
    """Raise InvalidParameter when an id of the path (``<id:…>``) holds a control character: no document
    id holds one, nor a topic, so it is no id that was mistyped or has gone, and a 404 quoted it back as
    sent (``/api/documents/a%00b``: "No document has the id 'a\\u0000b'", a NUL in the HTML of
    ``/events/a%00b``; an API pass)."""
    for name, value in view_args.items():
        found = _CONTROL.search(value) if isinstance(value, str) else None
        if found is not None:
            param = "id" if name == "doc_id" else "path"
            what = "'id'" if param == "id" else "The address"  # a guide's page: no API route has another id
            raise InvalidParameter(param, f"{what} holds a control character (U+{ord(found[0]):04X}, character "
                                          f"{found.start() + 1:,}), which no {'id' if param == 'id' else 'topic'} holds")


def check_query_string() -> None:
    """Raise InvalidParameter naming the first parameter (name or value) that is not UTF-8 once percent-decoded."""
    check_path()
    raw = request.query_string
    if b"%" not in raw and raw.isascii():
        return  # the usual case: nothing encoded, nothing that can decode wrongly
    if request.path in _NO_PARAMETERS:
        return  # a probe's query string is not read: a health check answers whatever it carries
    if not raw.isascii():
        # Bytes a server passed on unencoded (gunicorn refuses them; a test client or another server may
        # not): encoded, as a browser would have, so that werkzeug can read the other parameters (the
        # error page keeps them) rather than fail on the whole query string.
        raw = request.query_string = quote_from_bytes(raw, safe=_PRINTABLE).encode("ascii")
    for pair in raw.split(b"&"):
        name, _, value = pair.partition(b"=")
        for part in (name, value):
            if _text(part) is None:
                param = _text(name) or name.decode("ascii")  # a name that is not text: as it was sent ("%FF")
                raise InvalidParameter(
                    param, f"'{param}' is not UTF-8 text once percent-decoded: each %XX must be a byte of "
                           "a UTF-8 character (é is %C3%A9)"
                ) from None


def sent_as_text(name: str) -> bool:
    """Return whether every value of parameter *name* in this request's query string is UTF-8 text
    once percent-decoded (werkzeug shows one that is not as it was sent: "%FF")."""
    for pair in request.query_string.split(b"&"):
        key, _, value = pair.partition(b"=")
        if _text(key) == name and _text(value) is None:
            return False
    return True


def _text(encoded: bytes) -> str | None:
    """Return *encoded* (percent-encoded ASCII) decoded as a form value, or None when it is not UTF-8."""
    try:
        return unquote_to_bytes(encoded.replace(b"+", b" ")).decode("utf-8")
    except UnicodeDecodeError:
        return None


def register(app: Flask) -> None:
    """Check every request's query string before its view runs; with TRUSTED_HOSTS, read host names
    as DNS does (case aside, a final dot aside) before Flask compares them."""
    app.before_request(check_host)
    app.before_request(check_query_string)
    app.url_map.merge_slashes = False  # "/api//search" redirected to an absolute URL built from the Host
    if app.config.get("TRUSTED_HOSTS"):
        app.config["TRUSTED_HOSTS"] = [host_name(host) for host in app.config["TRUSTED_HOSTS"]]
        # A probe is answered as the first host listed (".example.org" as "example.org", which it covers).
        served = app.config["TRUSTED_HOSTS"][0].lstrip(".")
        app.wsgi_app = _HostNamed(app.wsgi_app, served)  # type: ignore[method-assign]


_DEFAULT_PORTS = frozenset({"80", "443"})


# The verdicts of ``check_host`` kept per app, by what they are made of (the Host, the port the request
# came on, TRUSTED_HOSTS): a Host is the client's to choose, so past this many each is reached anew.
HOST_VERDICTS_KEPT = 256


def check_host() -> None:
    """Raise SecurityError (a 400, ``untrusted_host``) for a Host the site's links cannot be written
    from: one that is no host name (werkzeug read ``evil.example/"><x>`` as "" and pages linked to
    ``http:///static/…``), or, with TRUSTED_HOSTS, a served name on a port the service is not reached
    on (``good.example:1234`` went into the /opensearch.xml cached a day).  A port is one the server
    listens on, 80 or 443 (a proxy in front), or one a TRUSTED_HOSTS entry names with its host.

    The verdict is reached once per app for each Host, port and TRUSTED_HOSTS (``host_refusal``, some
    15 µs of an unseen search), and then looked up."""
    environ = request.environ
    host = environ.get("HTTP_HOST")
    if request.path in _NO_PARAMETERS:
        return  # probes write no link (a load balancer's HTTP/1.0 check names no host)
    if host is None:
        if environ.get("SERVER_PROTOCOL") == "HTTP/1.1":
            raise SecurityError("An HTTP/1.1 request without a Host header.")  # a 400 (RFC 9112, 3.2)
        return  # HTTP/1.0 without a Host is answered as the server's own name
    trusted = current_app.config.get("TRUSTED_HOSTS")
    key = (host, environ.get("SERVER_PORT"), tuple(trusted) if trusted else None)
    verdicts: dict[tuple[object, ...], str | None] = current_app.extensions.setdefault("host_verdicts", {})
    if key in verdicts:
        refusal = verdicts[key]
    else:
        refusal = host_refusal(host, trusted, key[1])
        if len(verdicts) < HOST_VERDICTS_KEPT:
            verdicts[key] = refusal
    if refusal is not None:
        raise SecurityError(refusal)


def host_refusal(host: str, trusted: list[str] | None, server_port: str | None) -> str | None:
    """Return why ``check_host`` refuses the Host header *host* (TRUSTED_HOSTS *trusted*, the request
    come on port *server_port*), or None when it is answered."""
    if not host_is_trusted(host, None) or not _spelled(host):
        return "The Host header is no host name."
    name, _, port = host_name(host).rpartition(":") if not host.endswith("]") and ":" in host else (host, "", "")
    if trusted and port and port not in _DEFAULT_PORTS and port != server_port:
        if f"{name}:{port}" not in trusted and not any(
            entry.startswith(".") and entry.endswith(f":{port}")
            and (name.endswith(entry.rpartition(":")[0]) or name == entry.rpartition(":")[0][1:])  # the domain too
            for entry in trusted
        ):
            return "The Host header names a port the site is not served on."
    return None


def _spelled(host: str) -> bool:
    """Return whether each ``xn--`` label of *host* is punycode that decodes (``xn--zz.example`` is
    none: werkzeug's IRI of it raised UnicodeError, a 500 on every page writing an absolute link)."""
    if "xn--" not in host.lower():
        return True
    name = host.rpartition(":")[0] if ":" in host else host  # its port aside ("xn--e1afmkfd.xn--p1ai:8000")
    try:
        name.encode("ascii").decode("idna")
    except UnicodeError:
        return False
    return True


_HOST = re.compile(r"(?P<name>[^:\[\]]+?)\.?(?P<port>:[0-9]*)?")  # a name (not an IPv6 address) and its port


def host_name(host: str) -> str:
    """Return a Host header's value as DNS reads it: in lower case, without a final dot
    ("GOOD.EXAMPLE.:8000" is "good.example:8000"); werkzeug's trusted-host check compares it as sent."""
    found = _HOST.fullmatch(host)
    return f"{found['name'].lower()}{found['port'] or ''}" if found else host.lower()


class _HostNamed:
    """WSGI middleware: the request's Host header as ``host_name`` reads it; a probe's as a served host.

    A probe (``/healthz``, ``/metrics``) writes no link, and load balancers send it with no Host
    (HAProxy's check is HTTP/1.0) or the replica's address: with TRUSTED_HOSTS set, Flask read it as
    the bind address (0.0.0.0) and answered 400, and every replica was taken out of rotation."""

    def __init__(self, app: Callable[..., Iterable[bytes]], served: str) -> None:
        self.app = app
        self.served = served

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") in _NO_PARAMETERS:
            environ["HTTP_HOST"] = self.served
        elif host := environ.get("HTTP_HOST"):
            environ["HTTP_HOST"] = host_name(host)
        return self.app(environ, start_response)
