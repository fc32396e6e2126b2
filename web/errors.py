"""Errors, mapped to HTTP status in one place: JSON under /api and /healthz, a page elsewhere."""

from __future__ import annotations

import logging

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, SecurityError

from index.store import IndexUnavailable
from search.params import InvalidParameter

log = logging.getLogger(__name__)

UNAVAILABLE_MESSAGE = (
    "Search is unavailable right now: the search index is missing or damaged. "
    "Search comes back by itself as soon as the index is rebuilt; please try again in a minute."
)


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
        if service is not None and service.refuse_if_damaged():  # its files cut short or altered since it opened
            return _unavailable(IndexUnavailable(f"the snapshot that answered {request.path} is damaged: {exc!r}"))
        log.exception("unexpected error on %s", request.path)
        return error_response(500, "internal_error", "Something went wrong on our side; the error was logged.")
