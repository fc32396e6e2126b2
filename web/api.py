"""JSON API: the same results as the pages, as JSON, plus the health check."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from index import store
from search.params import parse_params
from web import get_search

bp = Blueprint("api", __name__)


@bp.get("/api/search")
def search() -> Response:
    params = parse_params(request.args)
    return jsonify(get_search().search(params).to_json())


@bp.get("/healthz")
def healthz() -> tuple[Response, int]:
    service = get_search()
    try:
        snap = service.snapshot()
    except store.IndexUnavailable as exc:
        return jsonify({"status": "degraded", "reason": str(exc)}), 503
    meta = snap.meta
    return jsonify(
        {
            "status": "ok",
            "doc_count": snap.doc_count,
            "built_at": meta.get("built_at"),
            "snapshot": snap.id,
            "schema_version": meta.get("schema_version"),
            "fingerprint": meta.get("fingerprint"),
        }
    ), 200
