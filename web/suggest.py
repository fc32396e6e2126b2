"""Search-as-you-type API: GET /api/suggest?q=<prefix> answers completions as JSON."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from search.suggest import Suggester, check_prefix

bp = Blueprint("suggest", __name__)


def get_suggester() -> Suggester:
    """Return the app's suggester."""
    return current_app.extensions["suggest"]


@bp.get("/api/suggest")
def suggest() -> Response:
    prefix = check_prefix(request.args.get("q"))
    suggestions = get_suggester().suggest(prefix)
    response = jsonify({"query": prefix, "suggestions": [s.to_json() for s in suggestions]})
    # Completions change only when a new snapshot is published; let the browser reuse them briefly.
    response.headers["Cache-Control"] = "public, max-age=60"
    return response
