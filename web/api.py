"""JSON API: search, documents, topics, the health check and the OpenAPI contract.

Every answer here is a function of the published snapshot and the request, so search, document and
topic answers carry a weak ETag over (snapshot id, normalised request) and a short Cache-Control; a
client that sends the ETag back in If-None-Match gets 304 without the search being run.  The ETag is
weak because ``took_ms`` differs between two runs of the same search.  Errors have one shape and
are made in web/errors.py.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import orjson
from flask import Blueprint, Response, abort, current_app, jsonify, redirect, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.datastructures import MultiDict

from corpus.jsonl import ID_MAX_LENGTH
from index import store
from index.dates import parse_iso
from search.params import SearchParams, parse_params
from search.results import document_json
from search.snapshot import ResourceShortage, Snapshot
from search.when import mentions_time
from web import get_search, site_root
from web.errors import SHORTAGE_RETRY_S, error_response, shortage_message, unknown_id
from web.health import SourceWatch, replica_origin
from web.openapi import API_VERSION, spec
from web.pages import search_url

bp = Blueprint("api", __name__)
CACHE_CONTROL = "public, max-age=30"
# What Flask's provider leaves to its ``default`` (an HTTP date, ``asdict``) rather than orjson's own form.
_ORJSON_OPTIONS = orjson.OPT_APPEND_NEWLINE | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


class JsonProvider(DefaultJSONProvider):
    """Flask's JSON provider, with compact responses encoded by orjson: the same bytes, in a tenth of the time.

    Encoding a search page took about 80 µs of a 1.3 ms request with the standard library, 4 µs with
    orjson (docs/performance.md).  Anything orjson refuses (a non-string key, an integer past 64 bits,
    half a surrogate pair) and pretty-printed or ASCII-only output go through Flask's own encoder.
    """

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if self.ensure_ascii or self.compact is False or (self.compact is None and self._app.debug):
            return super().response(*args, **kwargs)
        obj = self._prepare_response_obj(args, kwargs)
        options = _ORJSON_OPTIONS | (orjson.OPT_SORT_KEYS if self.sort_keys else 0)
        try:
            body = orjson.dumps(obj, default=self.default, option=options)
        except orjson.JSONEncodeError:
            return super().response(*args, **kwargs)
        return self._app.response_class(body, mimetype=self.mimetype)


# The hash of what every ETag's key begins with, copied for each ETag: a new sha256() has OpenSSL 3
# look the algorithm up again, which a copy skips (3-5 µs of an unseen search, docs/performance.md).
_ETAG_START = hashlib.sha256(f"{API_VERSION!r}\0".encode())


def _etag(snapshot: str, *request_parts: object) -> str:
    """Return the ETag of an answer: a hash of the API version, the snapshot and the normalised request."""
    digest = _ETAG_START.copy()
    digest.update("\0".join(map(repr, (snapshot, *request_parts))).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


def _cached(request_parts: tuple[object, ...], answer: Callable[[], tuple[dict[str, object], str]]) -> Response:
    """Return 304 if the client holds the current answer, else *answer*'s JSON with its ETag."""
    # Most requests send no If-None-Match: looked up in the environ first, since werkzeug's reading of
    # a missing header (a header view, a KeyError caught, an empty ETags) cost some 10 µs an unseen search.
    held = request.if_none_match if request.environ.get("HTTP_IF_NONE_MATCH") else None
    if held and not held.star_tag:  # only then is the snapshot needed before answering
        etag = _etag(get_search().snapshot().id, *request_parts)
        if held.contains_weak(etag):
            return _validators(Response(status=304), etag)
    body, used = answer()  # the ETag names the snapshot the answer came from: a publish may land in between
    if body.get("timed_out") is True:
        # Cut short by the time budget: not the answer its ETag would name, which a cache would then
        # keep and revalidate as current (the complete answer's ETag got 304 from it: a QA pass).
        response = jsonify(body)
        response.headers["Cache-Control"] = "no-store"
        return response
    etag = _etag(used, *request_parts)
    if held and held.star_tag:  # "*" holds any current answer: known only once there is one (no 404 raised)
        return _validators(Response(status=304), etag)
    return _validators(jsonify(body), etag)


def _validators(response: Response, etag: str) -> Response:
    response.set_etag(etag, weak=True)
    response.headers["Cache-Control"] = CACHE_CONTROL
    return response


class _Args:
    """A request's query string as plain lists, read once: werkzeug's MultiDict raises and catches an
    exception for each parameter a request leaves out (most of them, usually)."""

    __slots__ = ("_lists",)

    def __init__(self, args: MultiDict[str, str]) -> None:
        self._lists = args.to_dict(flat=False)

    def get(self, key: str, default: str | None = None) -> str | None:
        values = self._lists.get(key)
        return values[0] if values else default

    def getlist(self, key: str) -> list[str]:
        return self._lists.get(key, [])

    def __iter__(self) -> Iterator[str]:
        return iter(self._lists)


@bp.get("/api/search")
def search() -> Response:
    params = parse_params(_Args(request.args))
    if any(params.filters().values()) or ":" in params.q or "：" in params.q or mentions_time(params.q):
        # In the snapshot's own case and order (topic=Funding is funding), a filter typed in the query
        # ("topic:funding stargate") among the others, a phrase of time as its dates ("today" was one ETag
        # from one day to the next, a 304 for another day's answer: a QA pass): one cache entry and one
        # ETag for one search.
        snap = get_search().snapshot()
        params = snap.canonical_filters(snap.inline_filters(params))

    pages = 0

    def answer() -> tuple[dict[str, object], str]:
        nonlocal pages
        result = get_search().search(params)
        pages = result.pages
        return result.to_json(), result.snapshot

    response = _cached(("search", params), answer)
    if pages > 1 or params.page > 1 and pages:  # (a 304 made no answer, pages 0: its client has the Link it came with)
        if links := page_links(params, pages):
            response.headers["Link"] = links
    return response


# The longest Link header sent.  Each link holds the whole query: a query of 3,800 characters made a
# 16 KB header, past HAProxy's buffer (tune.bufsize 16 KB: a 502, the search retried three times)
# and nginx's (proxy_buffer_size, 4 or 8 KB for all the headers).  Past this, there is none.
LINK_BYTES = 2048


def page_links(params: SearchParams, pages: int) -> str | None:
    """Return the Link header (RFC 8288) to the first, previous, next and last pages of *params*' search:
    a client pages with ``response.links["next"]`` (requests) instead of building the addresses.  None
    when it would be longer than LINK_BYTES (a long query: the answer's page and pages remain)."""
    # The search's address made once, its page then written in URL order (before explain): 4 µs, where
    # an address made for each link cost 16 µs of a request.
    base = site_root() + "api/search" + search_url(params, explain=False)[1:]
    explain = "explain=1" if params.explain else ""

    def address(page: int) -> str:
        tail = "&".join(filter(None, (f"page={page}" if page > 1 else "", explain)))
        return base + ("&" if "?" in base else "?") + tail if tail else base

    # Past the end, "prev" is the last page, as the HTML page's "Previous" is: one past it linked the last
    # and any further none, so a client walking back from a page number it kept got nowhere (a QA pass).
    previous, following = min(params.page - 1, pages), params.page + 1
    near = {"first": 1, "prev": previous if previous >= 1 else None,
            "next": following if following <= pages else None, "last": pages}
    links = ", ".join(f'<{address(page)}>; rel="{rel}"' for rel, page in near.items() if page is not None)
    return links if len(links) <= LINK_BYTES else None


@bp.get("/api/documents/<id:doc_id>", merge_slashes=False)
def document(doc_id: str) -> Response:
    def answer() -> tuple[dict[str, object], str]:
        service = get_search()
        snap = service.snapshot()
        doc = service.document(doc_id) if len(doc_id) <= ID_MAX_LENGTH else None
        if doc is None and len(doc_id) <= ID_MAX_LENGTH and (renamed := service.renamed_id(doc_id)) is not None:
            # A guide section of a renamed topic: its address now, as the topic's own old addresses are.
            abort(redirect("/api/documents/" + quote(renamed, safe=""), 301))
        if doc is None:
            abort(_no_document(doc_id))
        similar = [document_json(other) for other in service.more_like_this(str(doc["id"]))]  # as stored (NFC or NFD)
        return {"document": document_json(doc), "more_like_this": similar, "snapshot": snap.id}, snap.id

    return _cached(("document", doc_id), answer)


def _no_document(doc_id: str) -> Response:
    """The 404 of an id no document has, naming the parameter as the 400 of an id not UTF-8 does."""
    return error_response(404, "not_found", unknown_id("document", doc_id), "id")


@bp.get("/api/topics")
def topics() -> Response:
    return _cached(("topics",), _topics)


def _topics() -> tuple[dict[str, object], str]:
    listing = get_search().topics()
    return listing, str(listing["snapshot"])


@bp.get("/healthz")
def healthz() -> tuple[Response, int]:
    service = get_search()
    snap: Snapshot | None = None
    try:
        snap = service.snapshot()
        _searchable(snap)
        meta = snap.meta
        watch: SourceWatch = current_app.extensions["source_watch"]
        origin = replica_origin(snap.path)
        sources_changed = None if origin else watch.changed(meta.get("sources"), meta.get("fingerprint"))
    except ResourceShortage as exc:
        # Not the index: the worker ran out of open files or memory. The reason names the limit to raise.
        service.note_shortage(exc)
        response = jsonify({"status": "degraded", **({"snapshot": snap.id} if snap is not None else {}), "reason": str(exc),
                            "error": {"code": "out_of_resources", "message": shortage_message(exc)}})
        response.headers["Cache-Control"] = "no-store"
        response.headers["Retry-After"] = str(SHORTAGE_RETRY_S)
        return response, 503
    except store.IndexUnavailable as exc:
        message = f"The search index is not available right now: {exc}."
        response = jsonify({"status": "degraded", "reason": str(exc),
                            "error": {"code": "index_unavailable", "message": message}})
        response.headers["Cache-Control"] = "no-store"
        response.headers["Retry-After"] = "10"
        return response, 503
    body = {
        "status": "ok",
        "doc_count": snap.doc_count,
        # With a Z, as every other time the API gives ("+00:00" in snapshots built before: a QA pass).
        "built_at": _utc(meta.get("built_at")),
        "updated_at": _utc(meta.get("updated_at")),
        "snapshot": snap.id,
        "schema_version": meta.get("schema_version"),
        "fingerprint": meta.get("fingerprint"),
        "sources_changed": sources_changed,
    }
    if origin:
        body["replica"] = origin
    refused = service.refusal()  # of the published snapshot: not of one rolled back from or replaced since
    if refused is not None:
        # Still answering from the last good snapshot, but out of the load balancer until fixed.
        body.update(status="degraded", refused=refused.snapshot, reason=refused.reason,
                    error={"code": "index_unavailable", "message": f"The published snapshot was refused: {refused.reason}."})
    elif (short := service.shortage()) is not None:
        # It answers, but a request ran out of open files or memory a moment ago: out of rotation a while
        # (SHORTAGE_HOLD_S), though this check needed no file the searches did.
        body.update(status="degraded", reason=str(short), error={"code": "out_of_resources", "message": shortage_message(short)})
    response = jsonify(body)
    response.headers["Cache-Control"] = "no-store"
    if refused is None and body["status"] != "ok":
        response.headers["Retry-After"] = str(SHORTAGE_RETRY_S)
    return response, 200 if body["status"] == "ok" else 503


def _searchable(snap: Snapshot) -> None:
    """Open this thread's searcher on *snap* (its segment files), as the next search would, if it is
    not open yet; raise ResourceShortage if the worker has not the open files or memory for it."""
    try:
        snap.searcher()
    except (OSError, MemoryError) as exc:
        if (short := ResourceShortage.of(exc, f"snapshot {snap.id} cannot be searched now")) is None:
            raise
        raise short from exc


@bp.get("/api/openapi.json")
def openapi() -> Response:
    """The API's OpenAPI document, with an ETag of its bytes: a client generator or a gateway that
    fetches it again revalidates it (a 304) instead of reading it whole (an API QA pass: it had none)."""
    response = jsonify(spec({rule.rule for rule in current_app.url_map.iter_rules()}))
    response.headers["Cache-Control"] = "public, max-age=300"
    response.add_etag(weak=True)  # weak, as every ETag here: the compressed answer shares it (web/compression.py)
    return response.make_conditional(request)


def _utc(stamp: object) -> str | None:
    """Return a snapshot's recorded time as a UTC date-time with a Z, None when it has none."""
    return parse_iso(stamp) if isinstance(stamp, str) and stamp else None
