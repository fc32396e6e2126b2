"""The preconditions that ask a GET for a failure rather than a 304: If-Match and If-Unmodified-Since.

RFC 9110 (13.1.1, 13.1.4, in 13.2.2's order): ``If-Match: *`` holds whenever there is an answer, a list
of entity tags holds when the answer's ETag is strong and among them, and If-Unmodified-Since holds
unless the answer was modified after the date; when one does not hold the answer is 412.  werkzeug's
``make_conditional`` (the feeds, the static files) read ``*`` as false and answered 412 with the whole
feed or stylesheet in its body, and the API and the pages ignored both headers.  Both are now taken
out of the request before any view reads them and judged here, once, against the answer the view
made: a 412 is the one error shape (JSON under /api), with the answer's own validators, so a client
learns the current ETag.  Only a success or a 304 is judged: a 404 stays a 404, whatever was sent.
"""

from __future__ import annotations

from flask import Flask, Response, after_this_request, request
from werkzeug.http import parse_date, parse_etags

from web.errors import error_response

_HEADERS = ("HTTP_IF_MATCH", "HTTP_IF_UNMODIFIED_SINCE")


def set_aside() -> None:
    """Take a request's If-Match and If-Unmodified-Since out before its view reads them, and judge them
    against its answer once there is one (a request without them, almost every one, costs one look)."""
    environ = request.environ
    if environ.get("HTTP_IF_NONE_MATCH", "").strip() == "*" and request.method in ("GET", "HEAD"):
        after_this_request(any_current)
    if "HTTP_IF_MATCH" not in environ and "HTTP_IF_UNMODIFIED_SINCE" not in environ:
        return
    held = {name: environ.pop(name) for name in _HEADERS if name in environ}
    after_this_request(lambda response: judged(response, held))


# What a 304 carries of the answer it stands for (RFC 9110, 15.4.5).
_NOT_MODIFIED_HEADERS = ("Cache-Control", "Content-Location", "Date", "ETag", "Expires", "Last-Modified", "Vary")


def any_current(response: Response) -> Response:
    """Return a 304 for *response*, a success, to ``If-None-Match: *``: the condition is false whenever
    there is a current answer (RFC 9110, 13.1.2).  The views with an ETag answered so; the others (the
    suggestions, the OpenAPI document, robots.txt, the pages) answered 200 (a QA pass)."""
    if not 200 <= response.status_code < 300:
        return response
    answer = Response(status=304)
    for name in _NOT_MODIFIED_HEADERS:
        if name in response.headers:
            answer.headers[name] = response.headers[name]
    del answer.headers["Content-Type"]
    response.close()
    return answer


def judged(response: Response, held: dict[str, str]) -> Response:
    """Return *response*, or the 412 that replaces it when *held*'s precondition does not hold for it."""
    if not (200 <= response.status_code < 300 or response.status_code == 304):
        return response
    why = failed(response, held)
    if why is None:
        return response
    answer = error_response(412, "precondition_failed", why)
    for name in ("ETag", "Last-Modified"):
        if name in response.headers:
            answer.headers[name] = response.headers[name]
    response.close()  # a static file's answer holds the file open
    return answer


def failed(response: Response, held: dict[str, str]) -> str | None:
    """Return why *held*'s precondition does not hold for *response*, or None when it does."""
    if_match = held.get("HTTP_IF_MATCH")
    if if_match is not None:
        tags = parse_etags(if_match)
        etag, weak = response.get_etag()
        if tags.star_tag or (etag is not None and not weak and tags.is_strong(etag)):
            return None
        current = "this answer has no ETag" if etag is None else (
            f'its ETag is W/"{etag}", a weak one, which If-Match never matches' if weak else f'its ETag is "{etag}"')
        return (f"If-Match names no current version of this answer: {current}. Send the request without "
                "If-Match, or revalidate a copy with If-None-Match.")
    since = parse_date(held.get("HTTP_IF_UNMODIFIED_SINCE"))
    modified = response.last_modified
    if since is None or modified is None or modified <= since:
        return None  # a date that is not one is ignored, as is the header where nothing says when it changed
    return (f"This answer changed after the If-Unmodified-Since date: it was last modified "
            f"{response.headers['Last-Modified']}.")


def register(app: Flask) -> None:
    """Judge every request's If-Match and If-Unmodified-Since against its answer."""
    app.before_request(set_aside)
