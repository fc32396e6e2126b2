"""Web: the Flask front end.  Views parse parameters, call the service and render the result
either as an HTML page or as JSON; no search logic lives here."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from flask import Flask, current_app, request
from werkzeug.routing import PathConverter

from search.service import DEFAULT_BUDGET_S, SearchService
from search.suggest import Suggester
from web.health import SourceWatch


class IdConverter(PathConverter):
    """A document id in a path (``<id:doc_id>``): any characters, "/" too, even first (``/events//lead``
    for ``/lead``).  index.schema.event_url percent-encodes the id, and the server decodes it before
    routing; a route taking one is not to merge slashes.  Line ends too: "." left out "\\n", and
    ``/api/documents/%0D%0AX`` was the generic "There is no page at this address" (a QA pass)."""

    regex = "[\\s\\S]+?"
    part_isolating = False  # spans "/" (werkzeug decides it from the regex, which has none)


# gunicorn's worker timeout (web/gunicorn_conf.py): a worker silent for longer is killed and restarted.
WORKER_TIMEOUT_S = 30


def worker_class() -> str:
    """Return the gunicorn worker class TOPICHUB_WORKER_CLASS names, gevent when it is unset or empty (as
    every other setting reads empty: an empty one was refused as "'' is not a gunicorn worker class")."""
    return os.environ.get("TOPICHUB_WORKER_CLASS") or "gevent"


def query_budget(raw: str | None) -> float:
    """Return the seconds TOPICHUB_QUERY_BUDGET_S gives a search (its default when unset or empty), or
    raise ValueError when it is no number above 0 and below the worker timeout, which would kill a
    worker still within its budget (``topichub serve`` says so before starting)."""
    budget = float(raw) if raw else DEFAULT_BUDGET_S
    if not 0 < budget < WORKER_TIMEOUT_S:
        raise ValueError(f"not a number of seconds above 0 and below {WORKER_TIMEOUT_S}: {raw!r}")
    return budget


# A host name as TRUSTED_HOSTS takes it: DNS labels (".example.org" for every name under it) or an
# IPv4 address, with an optional port.
# (Not a bracketed IPv6 address: werkzeug's check never matches one, and listed first it made every
# probe a 400.)  A port is 1-65535.
_TRUSTED_HOST = re.compile(r"\.?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?"
                           r"(?::(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?")


def trusted_hosts(raw: str | None) -> list[str] | None:
    """Return the host names TOPICHUB_TRUSTED_HOSTS lists (None when unset or empty: every Host is
    answered), or raise ValueError naming the first that is no host name ("*.example.org",
    "https://search.example.org"): Flask compared it with every Host and refused them all, /healthz
    included, and every replica left the load balancer's rotation (``topichub serve`` says so before
    starting).  A value naming no host ("," or " ") is refused too: it turned the check off, for an
    operator who set it to restrict the hosts."""
    if not raw:
        return None
    hosts = [host.strip() for host in raw.split(",") if host.strip()]
    if not hosts:
        raise ValueError(f"{raw!r} names no host (list the site's host names, comma-separated, or leave it unset "
                         "or empty to answer every host)")
    for host in hosts:
        if not _TRUSTED_HOST.fullmatch(host):
            raise ValueError(f"{host!r} is no host name (write search.example.org, .example.org for every name under it, "
                             "an IPv4 address, each with an optional :port from 1 to 65535)")
    return hosts or None


class _Site(Flask):
    """Flask, answering OPTIONS with no body as 204 No Content: its default was an empty 200 labelled
    text/html, under /api/ too (a CORS preflight takes any 2xx)."""

    def make_default_options_response(self):  # type: ignore[no-untyped-def]
        response = super().make_default_options_response()
        response.status_code = 204
        del response.headers["Content-Type"]
        return response


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Return the configured app; *config* overrides the defaults (tests pass INDEX_DIR)."""
    app = _Site(__name__, instance_relative_config=True)
    app.config.from_mapping(
        INDEX_DIR=os.environ.get("TOPICHUB_INDEX_DIR") or str(Path(app.instance_path) / "index"),
        QUERY_BUDGET_S=query_budget(os.environ.get("TOPICHUB_QUERY_BUDGET_S")),
        # The host names the site answers to (comma-separated): the feeds and /opensearch.xml write
        # absolute links from the Host header, so a deployment names its own (docs/operations.md).
        TRUSTED_HOSTS=trusted_hosts(os.environ.get("TOPICHUB_TRUSTED_HOSTS")),
    )
    if config:
        app.config.from_mapping(config)
    from web import api, boundary, compression, crawlers, errors, feeds, observability, pages, preconditions, security, suggest

    app.json = api.JsonProvider(app)
    app.json.sort_keys = False
    app.json.ensure_ascii = False

    # Every dependency is wired here, once per app; views read them through the getters.
    metrics = observability.Metrics(app.config["INDEX_DIR"])
    service = observability.MeteredSearch(metrics, app.config["INDEX_DIR"], budget_s=app.config["QUERY_BUDGET_S"])
    app.extensions["search"] = service
    app.extensions["suggest"] = Suggester(service.snapshot)
    app.extensions["source_watch"] = SourceWatch()
    app.extensions["site_roots"] = {}  # site_root's, by what they are made of
    app.extensions["sitemaps"] = crawlers.made_parts()
    app.jinja_env.globals["site_root"] = site_root  # the pages' canonical addresses (web/templates/_share.html)

    app.url_map.converters["id"] = IdConverter
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(suggest.bp)
    app.register_blueprint(feeds.bp)
    app.register_blueprint(crawlers.bp)
    boundary.register(app)
    errors.register(app)
    preconditions.register(app)
    security.register(app)
    observability.register(app, metrics)
    compression.compress_answers(app)
    return app


# The site roots an app keeps (Host headers are the client's to choose: past this, each is made anew).
SITE_ROOTS_KEPT = 256
_PATH_SAFE = "!$&'()*+,/:;=@%"  # werkzeug's (get_current_url): a path segment's characters, and % of what is quoted


def site_root() -> str:
    """Return the request's ``url_root`` as a URI (``https://search.example.org/``), the base of every absolute
    link: made once per app for each scheme, Host, server name and port and script root it is made of.
    werkzeug makes it anew each time (some 9 µs: the Host checked against TRUSTED_HOSTS, parsed, quoted),
    and a search answer's Link header needs it; the same parts, checked under the same app's
    settings, give the same root or the same refusal (raised, so never kept)."""
    environ = request.environ
    key = (environ.get("wsgi.url_scheme"), environ.get("HTTP_HOST"), environ.get("SERVER_NAME"),
           environ.get("SERVER_PORT"), environ.get("SCRIPT_NAME"))
    roots: dict[tuple[object, ...], str] = current_app.extensions["site_roots"]
    root = roots.get(key)
    if root is None:
        # The URI, in ASCII: werkzeug's url_root is an IRI (an xn-- host decoded, "http://пример.рф/"),
        # which no header can carry (gunicorn refused the Link header: a 500 logged as a 200).
        root = f"{request.scheme}://{request.host}{quote(request.script_root.rstrip('/'), safe=_PATH_SAFE)}/"
        if len(roots) < SITE_ROOTS_KEPT:
            roots[key] = root
    return root


def get_search() -> SearchService:
    """Return the app's search service."""
    return current_app.extensions["search"]
