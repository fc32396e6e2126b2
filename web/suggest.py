"""Search-as-you-type API: GET /api/suggest?q=<prefix> answers completions as JSON."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from search.params import one_value
from search.suggest import Suggester, check_prefix

bp = Blueprint("suggest", __name__)


def get_suggester() -> Suggester:
    """Return the app's suggester."""
    return current_app.extensions["suggest"]


def cache_control(suggester: Suggester) -> str:
    """Return the Cache-Control of completions: kept briefly (they change only when a snapshot is
    published), but not while a snapshot is read, when they are the snapshot before's or none."""
    return "no-store" if suggester.reading else "public, max-age=60"


@bp.get("/api/suggest")
def suggest() -> Response:
    prefix = check_prefix(one_value(request.args, "q"))
    suggester = get_suggester()
    suggestions = suggester.suggest(prefix)
    response = jsonify({"query": prefix, "suggestions": [s.to_json() for s in suggestions]})
    response.headers["Cache-Control"] = cache_control(suggester)
    return response
