"""Time on a dated corpus: newest first, since/until, the month facet, and first_seen kept across builds.

Every expectation is computed from the committed sample's own lines (tests/data/debian-dated.jsonl):
a package's date is its published date, else the time the index first saw it.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from html import unescape

import pytest
from werkzeug.datastructures import MultiDict

from index.dates import month_of, parse_iso, timestamp
from index.build import build
from index.update import update
from search.params import MAX_PER_PAGE, SearchParams, parse_params
from search.service import SearchService
from tests.conftest import DATED, DATED_FIRST_SEEN, write_jsonl
from web import create_app
from web.dates import exact


def _lines() -> list[dict]:
    return [json.loads(line) for line in DATED.read_text(encoding="utf-8").splitlines() if line.strip()]


LINES = _lines()
DATE = {doc["id"]: parse_iso(doc["published"]) if "published" in doc else DATED_FIRST_SEEN for doc in LINES}
TOPICS = {doc["id"]: set(doc["topics"]) for doc in LINES}
NEWEST = [doc["id"] for _, doc in sorted(enumerate(LINES), key=lambda pair: (-timestamp(DATE[pair[1]["id"]]), pair[0]))]


@pytest.fixture(scope="module")
def service(dated_index):
    return SearchService(dated_index)


@pytest.fixture()
def client(dated_index):
    return create_app({"INDEX_DIR": str(dated_index), "TESTING": True}).test_client()


def all_ids(service, params: SearchParams) -> list[str]:
    """Return every hit of *params*, page after page, in the order the service gives them."""
    ids: list[str] = []
    page = 1
    while True:
        result = service.search(params.with_(page=page, per_page=MAX_PER_PAGE))
        ids += [hit.id for hit in result.hits]
        if page >= result.pages:
            return ids
        page += 1


def test_the_sample_is_a_few_hundred_packages_mostly_dated():
    assert 250 <= len(LINES) <= 500
    dated = sum("published" in doc for doc in LINES)
    assert 0.7 * len(LINES) < dated < len(LINES)
    assert len({month_of(d) for d in DATE.values()}) >= 12


def test_browsing_without_a_query_lists_newest_first(service):
    assert service.search(SearchParams()).sort == "newest"
    assert all_ids(service, SearchParams()) == NEWEST


@pytest.mark.parametrize("size", [1, 5, 30, 100, 320])
def test_newest_first_of_a_few_sorts_as_the_walk_of_many_does(service, size):
    snap = service.snapshot()
    docs = set(random.Random(size).sample(sorted(snap.all_docs), size))
    for limit in (1, 10, size):
        assert snap.newest_first(docs, limit) == [d for d in snap.newest if d in docs][:limit]


def test_newest_with_a_query_orders_its_matches_by_date_then_relevance(service, dated_index, monkeypatch):
    by_relevance = all_ids(service, SearchParams(q="library"))
    assert len(by_relevance) > 30
    assert service.search(SearchParams(q="library")).sort == "relevance"
    newest = all_ids(service, SearchParams(q="library", sort="newest"))
    assert sorted(newest) == sorted(by_relevance)
    # The pages holding the word first, then those found by meaning alone; each by date, newest
    # first; of one date (the undated share their first_seen: a JSONL file's order says nothing of
    # their time, index.store.listing_is_time), in relevance order by words (the
    # meaning term depends on the documents ranked together: pages would not follow on).
    monkeypatch.setenv("TOPICHUB_SEMANTIC", "0")
    by_words = all_ids(SearchService(dated_index), SearchParams(q="library"))  # a service of its own: no cached answers
    worded, rest = newest[: len(by_words)], newest[len(by_words) :]
    assert set(worded) == set(by_words)
    place = {doc_id: n for n, doc_id in enumerate(by_words)}
    keys = [(-timestamp(DATE[doc_id]), place[doc_id]) for doc_id in worded]
    assert keys == sorted(keys)
    assert any(a[0] == b[0] for a, b in zip(keys, keys[1:]))  # the sample has such ties
    assert [-timestamp(DATE[doc_id]) for doc_id in rest] == sorted(-timestamp(DATE[doc_id]) for doc_id in rest)


@pytest.mark.parametrize(
    ("since", "until"),
    [
        ("2024-05-01", "2024-05-31"),  # a date-only until takes in its whole day
        ("2025-01-01", None),
        (None, "2024-03-31"),
        ("2024-03-05T00:00:00Z", "2024-03-20T12:00:00Z"),
        ("2025-03-15T08:00:00Z", "2025-03-15T08:00:00Z"),  # exactly the packages first seen then
        ("2025-06-01", "2024-06-01"),  # until before since: nothing (a request's parameters get a 400)
    ],
)
def test_since_and_until_keep_the_documents_dated_between(service, since, until):
    low = timestamp(parse_iso(since)) if since else None
    high = (timestamp(parse_iso(until)) + (86_399 if len(until) == 10 else 0)) if until else None
    expected = {i for i, d in DATE.items() if (low is None or timestamp(d) >= low) and (high is None or timestamp(d) <= high)}
    params = SearchParams(since=parse_iso(since) if since else None, until=parse_iso(until) if until else None)
    assert set(all_ids(service, params)) == expected
    assert service.search(params).total == len(expected)


def test_a_month_is_its_calendar_month(service):
    may = {i for i, d in DATE.items() if month_of(d) == "2024-05"}
    assert may and set(all_ids(service, SearchParams(month=("2024-05",)))) == may
    assert set(all_ids(service, SearchParams(since="2024-05-01", until="2024-05-31"))) == may


@pytest.mark.parametrize(
    ("q", "months", "topics"),
    [("", (), ()), ("", ("2024-05", "2025-02"), ()), ("library", ("2024-11",), ("libs",)), ("", (), ("libs", "python"))],
)
def test_month_counts_are_exact_and_disjunctive(service, q, months, topics):
    result = service.search(SearchParams(q=q, month=months, topic=topics))
    matching = set(all_ids(service, SearchParams(q=q)))
    by_topic = {i for i in matching if not topics or TOPICS[i] & set(topics)}
    by_month = {i for i in matching if not months or month_of(DATE[i]) in months}
    want = Counter(month_of(DATE[i]) for i in by_topic)  # the month facet ignores the month selection
    got = {v.value: v.count for v in result.facets["month"]}
    assert got == {m: want.get(m, 0) for m in set(want) | set(months)}
    assert [v.value for v in result.facets["month"]] == sorted(got, reverse=True)  # newest month first
    assert {v.value for v in result.facets["month"] if v.selected} == set(months)
    topic_counts = Counter(t for i in by_month for t in TOPICS[i])  # and the topic facet ignores the topics
    assert {v.value: v.count for v in result.facets["topic"]} == {t: topic_counts.get(t, 0) for t in set(topic_counts) | set(topics)}
    assert result.total == len(by_topic & by_month)


def test_first_seen_survives_rebuilds_and_updates(tmp_path, monkeypatch):
    docs = LINES[:5]
    root = tmp_path / "index"
    monkeypatch.setattr("index.build.now_utc", lambda: "2025-01-01T00:00:00Z")
    build([write_jsonl(tmp_path / "a.jsonl", docs)], root=root)
    # A rebuild a month later, with one package more: the others were not "seen" again.
    monkeypatch.setattr("index.build.now_utc", lambda: "2025-02-01T00:00:00Z")
    extra = {"id": "deb-new", "title": "A new package", "summary": "New.", "topics": ["libs"]}
    build([write_jsonl(tmp_path / "b.jsonl", docs + [extra])], root=root)
    service = SearchService(root)
    seen = {doc_id: service.document(doc_id)["first_seen"] for doc_id in [d["id"] for d in docs] + ["deb-new"]}
    assert seen == {**{d["id"]: "2025-01-01T00:00:00Z" for d in docs}, "deb-new": "2025-02-01T00:00:00Z"}
    # An update: an edited package keeps its first_seen, an added one is first seen now.
    monkeypatch.setattr("index.update.now_utc", lambda: "2025-03-01T00:00:00Z")
    edited = {**docs[0], "title": "Edited", "published": "2025-02-20"}
    added = {"id": "deb-newer", "title": "Newer", "summary": "Newer.", "topics": ["libs"]}
    update(write_jsonl(tmp_path / "changes.jsonl", [edited, added]), root)
    assert service.document(docs[0]["id"])["first_seen"] == "2025-01-01T00:00:00Z"
    assert service.document(docs[0]["id"])["published"] == "2025-02-20"
    assert service.document("deb-newer")["first_seen"] == "2025-03-01T00:00:00Z"
    assert [hit.id for hit in service.search(SearchParams(per_page=2)).hits] == ["deb-newer", docs[0]["id"]]


def test_a_rebuild_marks_revised_only_the_documents_that_say_something_else(tmp_path, monkeypatch):
    docs = LINES[:4]
    root = tmp_path / "index"
    monkeypatch.setattr("index.build.now_utc", lambda: "2025-01-01T00:00:00Z")
    build([write_jsonl(tmp_path / "a.jsonl", docs)], root=root)
    service = SearchService(root)
    assert not any("revised" in service.document(d["id"]) for d in docs)
    monkeypatch.setattr("index.build.now_utc", lambda: "2025-02-01T00:00:00Z")
    moved = [docs[1], {**docs[0], "summary": docs[0]["summary"] + " Fixed a typo."}, *docs[2:]]  # listed in another order
    build([write_jsonl(tmp_path / "b.jsonl", moved)], root=root)
    revised = {d["id"]: service.document(d["id"]).get("revised") for d in docs}
    assert revised == {**{d["id"]: None for d in docs}, docs[0]["id"]: "2025-02-01T00:00:00Z"}
    # A third build of the same text keeps the revision it had; the first seen date never moves.
    monkeypatch.setattr("index.build.now_utc", lambda: "2025-03-01T00:00:00Z")
    build([write_jsonl(tmp_path / "c.jsonl", moved)], root=root)
    assert service.document(docs[0]["id"])["revised"] == "2025-02-01T00:00:00Z"
    assert service.document(docs[0]["id"])["first_seen"] == "2025-01-01T00:00:00Z"


def test_hits_and_documents_carry_their_dates_in_json(client):
    dated = next(doc for doc in LINES if "published" in doc)
    undated = next(doc for doc in LINES if "published" not in doc)
    for doc, published in ((dated, parse_iso(dated["published"])), (undated, None)):
        body = client.get(f"/api/documents/{doc['id']}").get_json()["document"]
        assert body.get("published") == published and body["first_seen"] == DATED_FIRST_SEEN
    hit = client.get("/api/search?q=&per_page=1").get_json()["hits"][0]
    assert hit["id"] == NEWEST[0] and hit["published"] == DATE[NEWEST[0]] and hit["first_seen"] == DATED_FIRST_SEEN


def test_pages_show_dates_relative_with_the_exact_one_in_a_time_element(client):
    page = unescape(client.get("/?per_page=50").get_data(as_text=True))
    first = DATE[NEWEST[0]]
    assert f'Published <time datetime="{first}"' in page
    page = unescape(client.get("/?per_page=50&month=2025-03").get_data(as_text=True))  # the undated ones
    assert f'Added to the hub <time datetime="{DATED_FIRST_SEEN}" title="15 March 2025, 08:00 UTC">' in page
    assert ' ago</time>' in page
    event = unescape(client.get(f"/events/{NEWEST[0]}").get_data(as_text=True))
    assert f'<time datetime="{first}"' in event
    # The document's page writes the exact date out: a title is read only by a mouse (QA pass Z).
    assert f"</time> ({exact(first)})</p>" in event
    listed = unescape(client.get("/?per_page=50").get_data(as_text=True))
    assert f'<time datetime="{first}"' in listed and f"({exact(first)})" not in listed  # a hit keeps to its relative date


def test_the_date_fields_say_their_days_are_utc_days_before_one_is_chosen(client):
    # "From (UTC)" came only once a bound was a date-time: a reader ahead of UTC picking a day got
    # another day than their own, untold (a QA pass).
    for url in ("/", "/?since=2024-06-01", "/?since=2024-06-01T10:00:00Z"):
        fieldset = client.get(url).get_data(as_text=True).split('<fieldset class="facet dates', 1)[1].split("</legend>", 1)[0]
        assert "(UTC)" in fieldset, url


@pytest.mark.parametrize(
    ("query", "param"),
    [("since=2024-02-30", "since"), ("until=yesterday", "until"), ("since=2024-05-01T25:00", "since"),
     ("until=2024-0501", "until"), ("month=2024-5", "month"), ("month=May", "month"), ("sort=oldest", "sort"),
     ("since=2024-06-02&until=2024-06-01", "until"), ("since=2024-06-01T00:00:01Z&until=2024-06-01T00:00:00Z", "until")],
)
def test_a_bad_date_gets_a_400_naming_it(client, query, param):
    response = client.get(f"/api/search?{query}")
    assert response.status_code == 400
    assert response.get_json()["error"]["param"] == param and response.get_json()["error"]["code"] == "invalid_parameter"
    assert client.get(f"/?{query}").status_code == 400


def test_a_since_with_a_fraction_of_a_second_leaves_out_what_was_dated_before_it(service):
    # Documents are dated to the second: those dated 08:00:00 are before 08:00:00.5.
    at = "2025-03-15T08:00:00Z"
    dated_then = {i for i, d in DATE.items() if timestamp(d) == timestamp(at)}
    assert dated_then <= set(all_ids(service, SearchParams(since=at)))
    later = set(all_ids(service, parse_params(MultiDict({"since": "2025-03-15T08:00:00.5Z"}))))
    assert dated_then and not dated_then & later
    assert later == {i for i, d in DATE.items() if timestamp(d) > timestamp(at)}


def test_dates_that_leave_nothing_offer_the_search_without_them(client):
    # An empty result because of the dates gets a way out, like one because of a facet filter, and a
    # program can rebuild every way out from its query, filters, since and until.
    everything = client.get("/api/search?q=library").get_json()["total"]
    body = client.get("/api/search?q=library&until=2000-01-01").get_json()
    assert body["total"] == 0 and everything > 0
    [way] = [way for way in body["ways_out"] if way["kind"] == "no_dates"]
    assert way["count"] == everything and way["since"] is None and way["until"] is None
    topic = client.get("/api/search?q=library").get_json()["facets"]["topic"][0]["value"]
    both = client.get(f"/api/search?q=library&topic={topic}&since=2000-01-01&until=2000-01-02").get_json()
    for way in both["ways_out"]:
        rebuilt = {"q": way["query"], **{k: v for k, v in way["filters"].items() if v}}
        rebuilt.update({k: way[k] for k in ("since", "until") if way[k]})
        assert client.get("/api/search", query_string=rebuilt).get_json()["total"] == way["count"] > 0
    assert {"no_dates", "no_filters"} <= {way["kind"] for way in both["ways_out"]}


def test_newest_first_puts_the_more_relevant_first_among_documents_of_one_date(tmp_path):
    from index.build import build
    from tests.conftest import write_jsonl
    from web import create_app

    docs = [
        {"id": "later-weak", "title": "Notes", "summary": "A quokka was seen.", "topics": ["t"], "published": "2024-01-02"},
        {"id": "early-weak", "title": "Notes", "summary": "A quokka was seen.", "topics": ["t"], "published": "2024-01-01"},
        {"id": "early-strong", "title": "Quokka census", "summary": "Quokka numbers: every quokka counted.",
         "topics": ["t"], "published": "2024-01-01"},
    ]
    build([write_jsonl(tmp_path / "d.jsonl", docs)], root=tmp_path / "ix")
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    hits = client.get("/api/search", query_string={"q": "quokka", "sort": "newest"}).get_json()["hits"]
    # The newer date first, whatever its words; of one date, the more relevant first (listing order last).
    assert [h["id"] for h in hits] == ["later-weak", "early-strong", "early-weak"]
    # Paged one at a time, the same order.
    paged = [client.get("/api/search", query_string={"q": "quokka", "sort": "newest", "per_page": "1", "page": str(n)})
             .get_json()["hits"][0]["id"] for n in (1, 2, 3)]
    assert paged == ["later-weak", "early-strong", "early-weak"]
    # Without a query, newest stays by date and listing order.
    assert [h["id"] for h in client.get("/api/search", query_string={"sort": "newest"}).get_json()["hits"]] == [
        "later-weak", "early-weak", "early-strong"]
