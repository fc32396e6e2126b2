"""Following the site from elsewhere: an Atom feed for every search, and an OpenSearch description.

``/feeds/search.atom`` takes the page's parameters (q, filters, since, until) and answers the first
results of the same search sorted newest (those holding every word first), listed strictly newest
first by the date each entry shows, each entry carrying the highlighted snippet as escaped HTML.  A filter value
written in another case than the index's (topic=Compute-Deals) is redirected to the feed of the
canonical value, as the page is (a 302: another snapshot may write it otherwise), and so, for good (a
301), is a filter whose values came in another order (they combine with OR) or listed with commas, and a date bound sent otherwise than it is read (since=2025-01-01T00:00%2B01:00 to
since=2024-12-31T23:00:00Z), so a search has one feed id and title.  A topic or organisation the index
does not know (``Snapshot.unheard_of``: topic=compute-deal) is a 404 naming it and the value meant, not
a feed that stays empty for ever.  An entry's id is
its document's permanent address here, made of the document's id (``/events/<id>``, which leads a
guide section's id on to its place in the guide): a section's anchor follows its heading and the
other sections', so an id made of it changed when a heading was edited and passed to another section
when one was removed (a QA pass).  A reader never sees one document twice.  An entry's ``updated``
is when a rebuild or update last changed what the document says (``revised``), else the document's
date (published, else first seen) once it has come (``entry_updated``); entries are listed by that date.  The body is a function of the snapshot and the
request, so the ETag is a digest of it and its media type (Atom, or XML for a browser: one ETag each)
and Last-Modified is when the snapshot was published here
(switched to, by a build, update, publish or rollback): a
reader polling with If-None-Match or If-Modified-Since gets 304 until something changes.

``/opensearch.xml`` tells a browser how to search the site and where its completions are, in the
JSON suggestions format browsers read (``/api/suggest/opensearch``).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from urllib.parse import urlencode

from flask import Blueprint, Response, jsonify, redirect, render_template, request
from werkzeug.datastructures import MultiDict

from index.dates import as_date_time, format_utc, timestamp
from index.schema import event_url
from search.params import DATE_BOUNDS, DEFAULT_PER_PAGE, FILTERS, SearchParams, one_value, parse_params, to_query_string, written_otherwise
from search.results import Hit
from search.snapshot import Snapshot
from web import get_search, site_root
from web.errors import error_response
from web.pages import feed_url, moved
from web.suggest import address, cache_control, completions, get_suggester

bp = Blueprint("feeds", __name__)

FEED_ENTRIES = 20
# What the feed reads of a request; the rest (page, per_page, sort, explain) it sets itself, so a
# reader's copy of a page address with them still works rather than failing on a value it ignores.
FEED_PARAMS = frozenset(("q", *FILTERS, *DATE_BOUNDS, "verbatim"))  # verbatim: a search followed as typed
FEED_CACHE = "public, max-age=300"
ATOM = "application/atom+xml"
XML = "application/xml"
OPENSEARCH = "application/opensearchdescription+xml"
SUGGESTIONS = "application/x-suggestions+json"
# Characters XML 1.0 cannot carry at all, not even escaped: a corpus title or a query may hold them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_response(body: str, mimetype: str) -> Response:
    return Response(_NOT_XML.sub("", body), mimetype=mimetype)


def published_at(snap: Snapshot) -> datetime:
    """Return when what the snapshot serves was published here: when ``current`` came to point at it.

    Its build or update time went back after a rollback (an older build served again), and a reader
    polling with If-Modified-Since then kept, with a 304, the entries the rollback took back.  Never
    later than now, the answer's Date (RFC 9110 8.8.2.1): after the clock was set back the switch is
    later (``index.store._switch_time``)."""
    return datetime.fromtimestamp(int(min(snap.served_since, time.time())), timezone.utc)


def newest_first(hits: Sequence[Hit], undated: str) -> list[tuple[Hit, str]]:
    """Return *hits* with the date each entry shows (*undated* for a hit without one), newest first.

    The newest sort puts the documents holding every word of a query first, so a feed of "gpu power"
    listed 2026-03-01, then 2024-05-10, then 2026-12-04, under a subtitle saying newest first: the
    search still chooses the entries, and they are listed by their dates, those of one date in the
    search's order."""
    dated = [(hit, _date(hit) or undated) for hit in hits]
    return sorted(dated, key=lambda entry: entry[1], reverse=True)  # stable: ties keep the search's order


def _date(hit: Hit) -> str | None:
    """Return *hit*'s date as an entry shows it (published, else first seen; RFC 3339, in UTC), if it has one."""
    return as_date_time(hit.published or hit.first_seen) if hit.published or hit.first_seen else None


def entry_updated(hit: Hit, date: str, served: str, floor: str = "") -> str:
    """Return when *hit*'s entry was last updated: when a rebuild or update last changed what it says,
    else its *date* once it has come (by *served*, when the snapshot was switched to), else when the
    hub first held it; no earlier than *floor* (``_floor``: a rollback's time).

    It stayed its date: a corrected summary reached no feed reader (a QA pass).  A revision is the
    last change even before a date in the future ("published": "2030-01-01", which hid every
    correction of it behind 2030), and a date still to come is no change yet (an event dated
    9999-12-31 set the entry's and the feed's updated to then, and the feed's went back by 7,973
    years at the next update); once it has come, it is the entry's date as a past one is.  Until then
    it is when the hub first held it: it was the switch time, which moved at every update of any
    document, and feed readers flagged the entry changed each time (a QA pass).  Served by
    a step back, the entry may say again what a reader's copy no longer does: its updated went back,
    and a feed reader keeps the copy with the later one, the withdrawn text (QA passes)."""
    changed = as_date_time(hit.revised) if hit.revised else date if date <= served else (_added(hit) or served)
    return max(changed, floor)


def _floor(snap: Snapshot, served: str) -> str:
    """Return the time no entry of *snap*'s feeds says it changed before: served by a step back, when it
    was switched to; made since one was, the time it inherited (``index.store.feed_floor``), which the
    next update's snapshot forgot (entries and the feed's updated went back before the rollback: a review)."""
    return max(snap.feed_floor, served) if snap.stepped_back else snap.feed_floor


def _added(hit: Hit) -> str:
    """Return when *hit* came into the index (its first seen), when it has one: a feed changes then too."""
    return as_date_time(hit.first_seen) if hit.first_seen else ""


@bp.get("/feeds/search.atom")
def search_feed() -> Response:
    # A filter written as a list (topic[]=a, topic[0]=a) is read as the page and the API read it: dropped
    # as an unknown name, the feed answered everything unfiltered (a QA pass).
    read = MultiDict([(name, value) for name, value in request.args.items(multi=True) if name.partition("[")[0] in FEED_PARAMS])
    asked = parse_params(read)
    service = get_search()
    snap = service.snapshot()
    inlined = snap.inline_filters(asked)  # q=topic:funding stargate: the feed of stargate in funding
    canonical = snap.canonical_filters(inlined)  # topic=Compute-Deals: the feed of compute-deals
    # A date bound as sent other than as read (since=2026-11-01T00:00+01:00 is 2026-10-31T23:00:00Z):
    # the feed's id and title give the bound as read, so the address must too (a QA pass).
    dated_otherwise = any(one_value(read, name) not in (None, getattr(asked, name)) for name in DATE_BOUNDS)
    # Redirected to its one address, the filter written plainly: a list form (topic[]=a), or a kind or a
    # month listed with commas (kind=event,guide is kind=event&kind=guide: its feed was served at both).
    listed = any("[" in name for name in read) or written_otherwise(read)
    if canonical != asked or dated_otherwise or listed:
        # Redirected, as the page is: a search has one feed, one address, one id and one title (the
        # reader subscribes to the address it lands on), rather than a copy under each spelling.
        # Permanent where any snapshot would redirect so (a date bound written as read, a list form
        # written plainly, values put in order): a feed reader updates a subscription only on a
        # permanent redirect, and polled the address it was given for ever (a QA pass).  Not where a
        # value is written in the snapshot's case, as the page's redirect is not: another snapshot may
        # write it otherwise, and a browser keeps a 301 (one to "openai", then redirected back to
        # "OpenAI", would loop); but for a renamed topic's former slug, which moved for good.
        # A topic or organisation list (topic=funding,compute-deals) is written plainly for good too: no
        # value of theirs holds a comma (corpus.jsonl.facet_value_problem), so it is a list in any snapshot.
        # It was a 302, as a value respelt in the snapshot's case is, and a reader kept polling the list.
        plain = _written_plainly(asked)
        respelled = any(set(getattr(canonical, name)) != set(getattr(plain, name)) for name in FILTERS)
        # A filter typed in the query is read by what this snapshot has (another may not have the topic): not for good.
        return redirect(feed_url(canonical), moved(snap, asked) if respelled or inlined != asked else 301)
    if unheard := snap.unheard_of(asked):
        return _no_such_feed(snap, asked, unheard)
    params = asked.with_(sort="newest", page=1, per_page=FEED_ENTRIES, explain=False)
    result = service.search(params)
    query = urlencode(to_query_string(params, sort=None, per_page=DEFAULT_PER_PAGE))
    # The page listing what the feed lists: with words, the page's default order is relevance (a QA pass).
    listing = urlencode(to_query_string(params, sort="newest" if params.q else None, per_page=DEFAULT_PER_PAGE))
    root = site_root()
    served = published_at(snap)
    # The last change of an entry: its update, or its coming into the index (a backfilled event dated
    # 2020 set a feed's updated back from the time it was empty to 2020; a QA pass); nothing matching
    # yet, when that was last true; after a step back (a rollback took entries away), no earlier than
    # the step: a feed's updated never goes back.
    switched = format_utc(served)
    low = _floor(snap, switched)
    # A search followed is its words: the pages holding every one.  The newest sort lists them first,
    # then pages holding some and pages near in meaning, which the feed, strictly by date, mixed in:
    # of the feed of "stargate michigan", 11 of 15 entries lacked "michigan", and a new Stargate page
    # without it would have topped it (a QA pass).  The search page lists those, each saying so.
    entries = [hit for hit in result.hits if not hit.missing and hit.matched_by != "meaning"] if params.q else list(result.hits)
    changed = [max(entry_updated(hit, date, switched, low), _added(hit)) for hit in entries if (date := _date(hit))]
    updated = max(changed) if changed else max(switched, low)  # an entry's is no earlier than low already
    # Nor earlier than the last time a document was taken out or changed: deleting the newest entry set it
    # back to the one before's date (a QA pass under updates), as did an edit taking it out of the feed's
    # search (a review).  Which feeds an entry left is not known: every feed says it may have changed.
    if snap.changed_at and timestamp(snap.changed_at) > timestamp(updated):
        updated = snap.changed_at
    body = render_template(
        "feed.xml",
        params=params,
        result=result,
        root=root,
        self_url=f"{root}feeds/search.atom" + (f"?{query}" if query else ""),
        page_url=f"{root}" + (f"?{listing}" if listing else ""),
        entries=[(hit, date, entry_updated(hit, date, switched, low)) for hit, date in newest_first(entries, updated)],
        some_words=len(entries) < len(result.hits),
        # Results for a correction ("widgte": widget's pages) say so, as the page does.
        corrected=result.suggestion.text if result.suggestion and result.total else None,
        updated=updated,
        as_date_time=as_date_time,
        event_url=event_url,
        label=snap.label,
    )
    # Opened in a browser, which asks for HTML before anything else, the feed is sent as XML, which
    # the browser lays out with the feed's stylesheet (web/static/feed.css) saying what a feed is for:
    # as Atom, Chromium showed its source, escaped markup and all (a QA pass of "Follow this search").
    # A feed reader asks for Atom, or anything, and gets Atom; the body is the same.
    accepted = request.accept_mimetypes
    response = xml_response(body, XML if accepted.quality("text/html") > accepted.quality(ATOM) else ATOM)
    response.headers["Vary"] = "Accept-Encoding, Accept"
    # Weak, as every other answer's: the same text gzipped or whole is one feed, revalidated by either's
    # ETag, and a 304 says the ETag its 200 says (a strong one has to differ from coding to coding).  But
    # one for each media type: Atom and XML are two representations the server chooses between by Accept,
    # which entity tags tell apart (RFC 9110, 8.8.3).  Both shared the digest of the body: the Atom copy's
    # ETag got a browser's request a 304, and a cache holding both, revalidating one with the ETags of
    # the two (RFC 9111, 4.3.2), could serve the XML copy to a feed reader (an API pass).
    digest = hashlib.sha256(response.mimetype.encode("ascii") + b"\0" + response.get_data())
    response.set_etag(digest.hexdigest()[:32], weak=True)
    response.last_modified = served
    # Cut short by the time budget, the entries are those found in time: not kept, as the API's answer is not.
    response.headers["Cache-Control"] = "no-store" if result.timed_out else FEED_CACHE
    return response.make_conditional(request)


def _written_plainly(params: SearchParams) -> SearchParams:
    """Return *params* with each topic or organisation value that lists several with commas written as
    the values it lists (blanks around them and empty ones dropped, each once), as any snapshot reads
    it: no topic or organisation holds a comma.  What is left to respell is the snapshot's own (a case,
    a label, a name) or a renamed topic's former slug."""
    changes = {name: tuple(dict.fromkeys(part.strip() for value in getattr(params, name) for part in value.split(",") if part.strip()))
               for name in ("topic", "entity") if any("," in value for value in getattr(params, name))}
    return params.with_(**changes) if changes else params


_NAMED = {"topic": "topic", "entity": "organisation"}


def _no_such_feed(snap: Snapshot, params: SearchParams, unheard: list[tuple[str, str, str | None]]) -> Response:
    """Answer 404 for a feed of a topic or organisation the index does not know (``Snapshot.unheard_of``),
    naming each and the value it may be meant for, with a link to that feed when each has one.

    It answered 200 with an empty feed, for ever: a reader who subscribed to a typo (topic=compute-deal)
    never learnt it was one (an editor's QA pass).  A feed reader shows none of the ways out the page and
    the API offer; it shows a 404.  Kept as long as a feed is (``FEED_CACHE``), no longer: an update or a
    build may add the value, and the feed then answers."""
    said = "; ".join(f"no {_NAMED[facet]} '{value}' here" + (f" (did you mean '{meant}'?)" if meant else "")
                     for facet, value, meant in unheard)
    way_on = None
    if all(meant for _, _, meant in unheard):
        meant_params = params
        for facet, value, meant in unheard:
            meant_params = meant_params.with_value(facet, value, str(meant))
        labels = ", ".join(snap.label(facet, str(meant)) for facet, _, meant in unheard)
        way_on = (feed_url(meant_params), f"Follow {labels} instead")
    them = "it" if len(unheard) == 1 else "them"
    response = error_response(404, "not_found", f"{said}: a feed of {them} would stay empty.", way_on=way_on)
    response.headers["Cache-Control"] = FEED_CACHE
    return response


@bp.get("/opensearch.xml")
def opensearch() -> Response:
    response = xml_response(render_template("opensearch.xml", root=site_root()), OPENSEARCH)
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response


# Each kind of completion as the search box's own list says it (web/static/app.js), not "term" or "title".
_SAID = {"title": "Go to", "organisation": "Organisation", "topic": "Topic", "term": "Search"}


@bp.get("/api/suggest/opensearch")
def opensearch_suggestions() -> Response:
    """Answer completions as browsers read them: [query, [completions], [kinds], [addresses]]; under
    filters (those of /api/suggest), each address keeps them, as the search box's choice does."""
    prefix, suggestions, filters = completions()  # (the filters as the index writes them: entity=NVIDIA is nvidia)
    root = site_root().rstrip("/")
    response = jsonify([
        prefix,
        [s.text for s in suggestions],
        [_SAID[s.kind] for s in suggestions],  # a browser shows these beside each completion
        [root + address(s, filters) for s in suggestions],
    ])
    response.mimetype = SUGGESTIONS
    response.headers["Cache-Control"] = cache_control(get_suggester())
    return response
