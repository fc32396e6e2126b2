"""Web: the Flask front end.  Views parse parameters, call the service and render the result
either as an HTML page or as JSON; no search logic lives here."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, current_app

from search.service import DEFAULT_BUDGET_S, SearchService


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Return the configured app; *config* overrides the defaults (tests pass INDEX_DIR)."""
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        INDEX_DIR=os.environ.get("TOPICHUB_INDEX_DIR") or str(Path(app.instance_path) / "index"),
        QUERY_BUDGET_S=float(os.environ.get("TOPICHUB_QUERY_BUDGET_S") or DEFAULT_BUDGET_S),
    )
    if config:
        app.config.from_mapping(config)
    app.json.sort_keys = False
    app.json.ensure_ascii = False
    from web import api, errors, observability, pages, security, suggest

    metrics = observability.Metrics(app.config["INDEX_DIR"])
    app.extensions["search"] = observability.MeteredSearch(
        metrics, app.config["INDEX_DIR"], budget_s=app.config["QUERY_BUDGET_S"]
    )

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(suggest.bp)
    errors.register(app)
    security.register(app)
    observability.register(app, metrics)
    return app


def get_search() -> SearchService:
    """Return the app's search service."""
    return current_app.extensions["search"]
