"""HTML pages: parse request.args, call the service, render a template.  No search logic here."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, Response, abort, render_template, request

from search.params import SearchParams, parse_params, to_query_string
from web import get_search

bp = Blueprint("pages", __name__)


def search_url(params: SearchParams, **overrides: object) -> str:
    """Return the page URL for *params* with *overrides* applied (page resets unless given)."""
    overrides.setdefault("page", 1)
    query = urlencode(to_query_string(params, **overrides))
    return "/" + (f"?{query}" if query else "")


def toggle(params: SearchParams, facet: str, value: str) -> str:
    """Return the page URL with *value* of *facet* switched on or off."""
    values = getattr(params, facet)
    new = tuple(v for v in values if v != value) if value in values else (*values, value)
    return search_url(params, **{facet: new})


@bp.get("/")
def page() -> Response | str:
    params = parse_params(request.args)
    result = get_search().search(params)
    return render_template("search.html", params=params, result=result, search_url=search_url, toggle=toggle)


@bp.get("/events/<doc_id>")
def event(doc_id: str) -> str:
    service = get_search()
    doc = service.document(doc_id)
    if doc is None or doc.get("kind") != "event":
        abort(404, description=f"No event has the id {doc_id!r}.")
    return render_template("event.html", doc=doc, similar=service.more_like_this(doc_id), label=service.label)


@bp.get("/guides/<topic>")
def guide(topic: str) -> str:
    service = get_search()
    sections = service.guide(topic)
    if not sections:
        abort(404, description=f"No guide for the topic {topic!r}.")
    return render_template("guide.html", topic=topic, sections=sections, label=service.label)
