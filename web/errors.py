"""Errors, mapped to HTTP status in one place: JSON under /api and /healthz, a page elsewhere."""

from __future__ import annotations

import logging

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, SecurityError

from corpus.jsonl import ID_MAX_LENGTH
from index.store import IndexUnavailable
from search.params import InvalidParameter
from search.snapshot import ResourceShortage

log = logging.getLogger(__name__)

UNAVAILABLE_MESSAGE = (
    "Search is unavailable right now: the search index is missing or damaged. "
    "Search comes back by itself as soon as the index is rebuilt; please try again in a minute."
)

# Seconds a client is asked to wait after the server ran out of open files or memory (a burst of
# connections passes in seconds; /healthz stays degraded longer: search.service.SHORTAGE_HOLD_S).
SHORTAGE_RETRY_S = 5


def shortage_message(exc: ResourceShortage) -> str:
    """What a visitor or client is told when the server ran out of *exc*'s resource (the index is fine)."""
    return (f"Search is unavailable for a moment: the server is out of {exc.resource}. "
            f"Nothing is wrong with the search index; please try again in a few seconds.")


_JSON_PATHS = ("/api", "/healthz", "/metrics")  # what programs ask: their errors are JSON


def wants_json() -> bool:
    """Whether the error is a program's: under /api or a probe, in any case and with a final slash
    ("/API/search", "/healthz/" were HTML pages a client could not read)."""
    path = request.path.lower()
    return any(path == root or path.startswith(root + "/") for root in _JSON_PATHS)


def error_response(status: int, code: str, message: str, param: str | None = None,
                   way_on: tuple[str, str] | None = None) -> Response:
    """Return the one error shape: JSON for the API, an explained page for a browser (with *way_on*,
    an address and its text, where the page can offer a better way on than back to search)."""
    if wants_json():
        body: dict[str, object] = {"code": code, "message": message}
        if param is not None:
            body["param"] = param
        response = jsonify({"error": body})
    else:
        response = Response(
            render_template("error.html", status=status, code=code, message=message, param=param, way_on=way_on),
            mimetype="text/html",
        )
    response.status_code = status
    return response


# What a reader is told where werkzeug would give its stock description (a view's own is kept).
_OWN_WORDS = {
    404: "There is no page at this address: search for what you were looking for.",
    405: "This address does not answer that kind of request.",
}


def register(app: Flask) -> None:
    @app.errorhandler(InvalidParameter)
    def _invalid(exc: InvalidParameter) -> Response:
        return error_response(400, "invalid_parameter", exc.message, exc.param)

    @app.errorhandler(IndexUnavailable)
    def _unavailable(exc: IndexUnavailable) -> Response:
        # The detail names folders and files: it goes to the log and /healthz, not to every visitor.
        log.warning("index unavailable: %s", exc)
        response = error_response(503, "index_unavailable", UNAVAILABLE_MESSAGE)
        response.headers["Retry-After"] = "10"
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.errorhandler(ResourceShortage)
    def _short(exc: ResourceShortage) -> Response:
        # Not damage: the snapshot stays (not refused, no older one in its place), /healthz says degraded
        # for a while, and the operator's log says which limit to raise.
        service = current_app.extensions.get("search")
        if service is not None:
            service.note_shortage(exc)
        log.warning("out of %s on %s: %s", exc.resource, request.path, exc)
        response = error_response(503, "out_of_resources", shortage_message(exc))
        response.headers["Retry-After"] = str(SHORTAGE_RETRY_S)
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.errorhandler(SecurityError)
    def _untrusted_host(exc: SecurityError) -> Response:
        # Refused before routing (a Host not in TRUSTED_HOSTS): the site's links cannot be built, so the
        # page is one line, and nothing in it comes from the request.
        if wants_json():
            return error_response(400, "untrusted_host", "This host name is not served here.")
        page = "<!doctype html><title>400 – Topic hub search</title><h1>This host name is not served here.</h1>"
        return Response(page, status=400, mimetype="text/html")

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        code = (exc.name or "error").lower().replace(" ", "_")
        message = exc.description or exc.name
        if type(exc).description == message:  # werkzeug's stock text ("If you entered the URL manually…")
            message = _OWN_WORDS.get(exc.code or 500, message)
        response = error_response(exc.code or 500, code, message)
        if exc.code == 405 and hasattr(exc, "valid_methods") and exc.valid_methods:
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        return response

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        service = current_app.extensions.get("search")
        snap = getattr(service, "_snapshot", None)
        doing = f"snapshot {snap.id} cannot be read now" if snap is not None else "the request cannot be answered now"
        if (short := ResourceShortage.of(exc, doing)) is not None:  # out of open files or memory (Whoosh opens files as it reads)
            return _short(short)
        try:
            damaged = service is not None and service.refuse_if_damaged()  # its files cut short or altered since it opened
        except ResourceShortage as short_checking:
            return _short(short_checking)
        if damaged:
            return _unavailable(IndexUnavailable(f"the snapshot that answered {request.path} is damaged: {exc!r}"))
        log.exception("unexpected error on %s", request.path)
        return error_response(500, "internal_error", "Something went wrong on our side; the error was logged.")


def unknown_id(what: str, doc_id: str) -> str:
    """Return the message for an id no *what* (document, event) has: the id quoted as sent, not as
    Python writes it ('a\\\\b' for a\\b), and one longer than any id can be not repeated (a 20,000-character
    id was a 20 KB answer; a QA pass)."""
    if len(doc_id) > ID_MAX_LENGTH:
        return f"No {what} has this id: an id is at most {ID_MAX_LENGTH} characters, this one is {len(doc_id):,}."
    return f"No {what} has the id '{doc_id}'."
