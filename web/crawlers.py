"""What crawlers read: ``/robots.txt``, and sitemaps of every page worth indexing.

A results page is no page to crawl: each of its facet links (topic, organisation, type, month), sort
links and page links makes another address, and their combinations have no end, so a crawler
following them asks for searches nobody reads and spends the workers' CPU on them (searches are the
service's dearest answers).  ``/robots.txt`` keeps crawlers off the searches (``/?…``), the API, the
feeds and the metrics, and names ``/sitemap.xml``, which lists what a search engine should hold
instead: the home page, the page of the topics, the search tips, each guide and each event's page,
with when each last changed (``lastmod``:
an event's when a rebuild last changed what it says, else when the hub first saw it; a guide's the
same of its latest section).

A sitemap holds at most 50,000 addresses (sitemaps.org), so past that ``/sitemap.xml`` is an index of
``/sitemaps/1.xml``, ``/sitemaps/2.xml`` …: the home page, the page of the topics, the search tips and the guides, then the events in listing
order, where an update puts new events at the end: adding events leaves the earlier parts as they were
(a deletion moves the events after it up by one).  A
part is made of the snapshot and the host (the index of parts, of when the snapshot was switched to
as well: its lastmod), so its ETag is their digest: a crawler revalidating gets
a 304 without the part being made again.  A worker keeps the parts it made (up to 8 MB): at 64k
events a part reads 50,000 stored documents, some 0.9 s.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from math import ceil

from flask import Blueprint, Response, abort, current_app, render_template, request
from werkzeug.http import is_resource_modified

from corpus.records import guide_url
from index.dates import as_date_time, format_utc
from index.schema import event_url
from search.cache import Bounded
from search.params import FILTERS
from search.snapshot import FACETS, Snapshot
from web import get_search, site_root
from web.feeds import published_at, xml_response
from web.pages import PAGE_PARAMS, guide_dates

bp = Blueprint("crawlers", __name__)

# Addresses a sitemap may hold (sitemaps.org: 50,000, and 50 MB, which 50,000 of ours stay well under).
SITEMAP_URLS = 50_000
SITEMAP = "application/xml"
CRAWL_CACHE = "public, max-age=3600"
# The parts a worker keeps once made, by their size: both of the 64k corpus's (5.4 and 1.5 MB).
SITEMAP_CACHE_BYTES = 8_000_000
# Where crawlers are not to go: searches ("/?q=…", "/?topic=…"; "/" itself is the home page), the
# JSON API, the feeds (a feed reader does not read robots.txt), the metrics and the health check.
# Each search parameter that may come first, not "/?": Python's urllib.robotparser, which some
# crawlers use, reads "Disallow: /?" as "Disallow: /" (it drops the empty query) and keeps off everything.
# A filter is also read written as a list ("topic[]=a", "topic[0]=a", as jQuery, qs and PHP send it):
# that search too, with its bracket as sent and percent-encoded (a QA pass found "/?topic%5B%5D=…"
# open to crawlers).  A rule is a prefix: "/?topic[" covers every list form.
DISALLOWED = (*(f"/?{name}=" for name in sorted(PAGE_PARAMS)),
              *(f"/?{name}{bracket}" for name in sorted(FILTERS) for bracket in ("[", "%5B")),
              "/api/", "/feeds/", "/metrics", "/healthz")


def made_parts() -> Bounded[tuple[object, ...], bytes]:
    """Return the store of the sitemap parts an app's worker has made (``create_app`` keeps one)."""
    return Bounded(SITEMAP_CACHE_BYTES, cost=len)


@bp.get("/robots.txt")
def robots() -> Response:
    lines = ["# Searches are not pages to crawl: every facet link makes another one.", "User-agent: *"]
    lines += [f"Disallow: {path}" for path in DISALLOWED]
    lines.append(f"Sitemap: {site_root()}sitemap.xml")
    response = Response("\n".join(lines) + "\n", mimetype="text/plain")
    response.headers["Cache-Control"] = CRAWL_CACHE
    return response


@bp.get("/sitemap.xml")
def sitemap() -> Response:
    """The sitemap of every page, or, past SITEMAP_URLS addresses, the index of its parts."""
    return _part(None)


@bp.get("/sitemaps/<int:part>.xml")
def sitemap_part(part: int) -> Response:
    """Part *part* (from 1) of the sitemap."""
    if not request.path.endswith(f"/{part}.xml"):  # "01.xml" (werkzeug reads it as 1): a copy for crawlers to fetch
        abort(404, description=f"The sitemap's parts are numbered without leading zeros: /sitemaps/{part}.xml.")
    return _part(part)


def _part(part: int | None) -> Response:
    snap = get_search().snapshot()  # one snapshot for the whole answer: a publish may land meanwhile
    per_part = int(current_app.config.get("SITEMAP_URLS", SITEMAP_URLS))
    parts = max(1, ceil((len(_PAGES) + len(snap.guide_topics) + len(_events(snap))) / per_part))
    if part is not None and not 1 <= part <= parts:
        abort(404, description=f"The sitemap has {parts} part{'s' if parts > 1 else ''}; there is no part {part}.")
    root = site_root()
    modified = published_at(snap)
    # The index of parts says when the snapshot was switched to (its lastmod): made again at each
    # switch, a rollback to a snapshot served before included; a part's addresses are the snapshot's.
    index = part is None and parts > 1
    key = (snap.id, root, per_part, part, *([int(modified.timestamp())] if index else []))
    etag = hashlib.sha256(repr(key).encode()).hexdigest()[:32]
    if not is_resource_modified(request.environ, etag=etag, last_modified=modified):
        response = Response(status=304)
    else:
        def make() -> bytes:
            if part is None and parts > 1:
                links = [f"{root}sitemaps/{n}.xml" for n in range(1, parts + 1)]
                body = render_template("sitemap-index.xml", links=links, lastmod=format_utc(modified))
            else:
                first = ((part or 1) - 1) * per_part
                body = render_template("sitemap.xml", urls=_urls(snap, root, first, per_part, as_date_time(format_utc(modified))))
            return xml_response(body, SITEMAP).get_data()

        response = Response(current_app.extensions["sitemaps"].get_or_make(key, make), mimetype=SITEMAP)
    response.set_etag(etag, weak=True)
    response.last_modified = modified
    response.headers["Cache-Control"] = CRAWL_CACHE
    return response


def _events(snap: Snapshot) -> frozenset[int]:
    return snap.facet_docs[FACETS["kind"]].get("event", frozenset())


# The pages a sitemap lists before the guides: the home page, the page of the topics (its lastmod when
# what is served last changed: its counts are the snapshot's) and the search tips (``/help``: no lastmod,
# the code's page, not the snapshot's; it was not listed, found by a crawler only through the footer).
_PAGES = ("", "topics", "help")
_SWITCHED = frozenset({"topics"})  # those whose lastmod is when what is served last changed


def _urls(snap: Snapshot, root: str, first: int, count: int, switched: str) -> Iterator[tuple[str, str | None]]:
    """Yield (address, lastmod) of *snap*'s sitemap addresses *first* to *first* + *count*: the pages
    (``_PAGES``), the guides, then the events in listing order."""
    pages: list[tuple[str, str | None]] = [(root + page, switched if page in _SWITCHED else None) for page in _PAGES]
    for topic in snap.guide_topics:
        dated = guide_dates(get_search().guide(topic, snap))
        changed = dated.get("revised") or dated.get("first_seen")
        pages.append((root + guide_url(topic).lstrip("/"), as_date_time(changed) if changed else None))
    yield from pages[first : first + count]
    skip = max(0, first - len(pages))
    wanted = count - max(0, min(count, len(pages) - first))
    if wanted <= 0:
        return
    searcher = snap.searcher()
    # Stored fields read here, not through Snapshot.stored: its cache is the searches', not the crawlers'.
    for docnum in snap.in_listing_order(_events(snap), skip + wanted)[skip:]:
        fields = searcher.stored_fields(docnum)
        changed = fields.get("revised") or fields.get("first_seen") or fields.get("published")
        yield root + event_url(str(fields["id"])).lstrip("/"), as_date_time(str(changed)) if changed else None
