"""Web: the Flask front end.  Views parse parameters, call the service and render the result
either as an HTML page or as JSON; no search logic lives here."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, current_app

from corpus.sources import DEFAULT_DIR
from search.service import SearchService


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Return the configured app; *config* overrides the defaults (tests pass INDEX_DIR)."""
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        INDEX_DIR=os.environ.get("TOPICHUB_INDEX_DIR") or str(Path(app.instance_path) / "index"),
        CORPUS_PATHS=[os.environ.get("TOPICHUB_CORPUS") or str(DEFAULT_DIR)],
        JSON_SORT_KEYS=False,
    )
    if config:
        app.config.from_mapping(config)
    app.json.sort_keys = False
    app.json.ensure_ascii = False
    app.extensions["search"] = SearchService(app.config["INDEX_DIR"])

    from web import api, errors, pages, security

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    from web import suggest

    app.register_blueprint(suggest.bp)
    errors.register(app)
    security.register(app)
    return app


def get_search() -> SearchService:
    """Return the app's search service."""
    return current_app.extensions["search"]
