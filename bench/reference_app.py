"""The reference service a user might write instead: Flask + SQLite FTS5, the same JSON fields.

Served by gunicorn exactly like the service (same config, same worker count)::

    BENCH_FTS5_DB=/path/to/docs.fts python -m gunicorn --config python:web.gunicorn_conf \\
        --bind 127.0.0.1:8001 --workers 2 'bench.reference_app:create_app()'
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, jsonify, request

from bench import fts5

MAX_QUERY_CHARS = 256


class _Connections:
    """One read-only connection per thread to the FTS5 database."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

    def get(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = fts5.connect(self.path)
        return conn


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Return the reference app on the database named by BENCH_FTS5_DB (or config FTS5_DB)."""
    app = Flask(__name__)
    app.config.from_mapping(FTS5_DB=os.environ.get("BENCH_FTS5_DB", ""))
    if config:
        app.config.from_mapping(config)
    app.json.sort_keys = False
    app.json.ensure_ascii = False
    app.extensions["fts5"] = _Connections(Path(app.config["FTS5_DB"]))

    @app.get("/api/search")
    def search() -> Response | tuple[Response, int]:
        q = " ".join((request.args.get("q") or "").split())
        if len(q) > MAX_QUERY_CHARS or "\x00" in q:
            error = {"code": "invalid_parameter", "message": "'q' is too long or has a NUL", "param": "q"}
            return jsonify({"error": error}), 400
        conn = current_app.extensions["fts5"].get()
        try:
            return jsonify(fts5.search(conn, q))
        except sqlite3.OperationalError as exc:  # an FTS5 syntax error in odd input
            return jsonify({"error": {"code": "invalid_parameter", "message": str(exc), "param": "q"}}), 400

    @app.get("/healthz")
    def healthz() -> Response:
        return jsonify({"status": "ok"})

    return app


def create_dressed_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Return the reference app carrying the service's per-request duties too (``bench.worker_cpu``'s
    ``reference-dressed``): a request id, the duration histogram and in-progress gauge, the JSON access
    line, the security headers, and an ETag with Cache-Control on each search answer."""
    from web import api, observability, security

    app = create_app(config)
    app.json = api.JsonProvider(app)  # orjson for the answers, as the service's
    app.json.sort_keys = False
    app.json.ensure_ascii = False
    snapshot = str(app.config["FTS5_DB"])

    @app.after_request
    def validators(response: Response) -> Response:
        if request.path == "/api/search" and response.status_code == 200:
            return api._validators(response, api._etag(snapshot, "search", request.args.get("q", "")))
        return response

    security.register(app)
    observability.register(app, observability.Metrics(Path(snapshot).parent))
    return app
