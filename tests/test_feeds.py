"""Following a search: its Atom feed (checked with feedparser and the Atom rules a reader relies on),
conditional GETs, and the OpenSearch description with its suggestions URL."""

from __future__ import annotations

import json
import re
import os
import shutil
import time
from email.utils import parsedate_to_datetime
import xml.etree.ElementTree as ET
from html import unescape
from urllib.parse import parse_qs, urlsplit

import feedparser
import pytest

from index import store
from index.dates import as_date_time
from index.update import update
from tests.conftest import write_jsonl
from tests.test_timeline import DATE, NEWEST, TOPICS
from tests.waiting import wait_until
from web import create_app
from web.cli import main as topichub_main

A = "{http://www.w3.org/2005/Atom}"
OS = "{http://a9.com/-/spec/opensearch/1.1/}"


@pytest.fixture()
def client(dated_index):
    return create_app({"INDEX_DIR": str(dated_index), "TESTING": True}).test_client()


def feed(client, query: str):
    response = client.get(f"/feeds/search.atom?{query}")
    assert response.status_code == 200 and response.mimetype == "application/atom+xml"
    parsed = feedparser.parse(response.get_data())
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    return response, parsed, ET.fromstring(response.get_data())


@pytest.mark.parametrize("query", ["", "q=library", "q=library&topic=libs", "topic=python&since=2024-06-01", "q=qwxyzzy"])
def test_every_search_has_a_valid_atom_feed_newest_first(client, query):
    response, parsed, root = feed(client, query)
    args = parse_qs(query)
    wanted = [i for i in NEWEST if not args.get("topic") or TOPICS[i] & set(args["topic"])]
    if "since" in args:
        wanted = [i for i in wanted if DATE[i] >= args["since"][0]]
    ids = [entry.link.rsplit("/", 1)[1] for entry in parsed.entries]
    if "q" not in args:
        assert ids == wanted[:20]
    updated = [entry.updated for entry in parsed.entries]
    assert updated == sorted(updated, reverse=True)  # newest first
    assert [e.updated for e in parsed.entries] == [as_date_time(DATE[i]) for i in ids]
    # Atom 1.0's musts: the feed and each entry have an id, a title and an updated; ids are unique.
    for node in (root, *root.findall(f"{A}entry")):
        assert all(node.find(f"{A}{name}") is not None and node.find(f"{A}{name}").text for name in ("id", "title", "updated"))
    assert len({e.id for e in parsed.entries}) == len(parsed.entries)
    assert parsed.feed.updated == (updated[0] if updated else parsed.feed.updated)
    assert any(link.rel == "self" for link in parsed.feed.links)


# What Chromium and Firefox ask for when a reader follows a link; and feedparser's own Accept.
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


@pytest.mark.parametrize("accept", [None, "*/*", feedparser.http.ACCEPT_HEADER])
def test_a_feed_reader_gets_atom_and_a_browser_the_same_feed_as_xml_it_lays_out(client, accept):
    # "Follow this search" showed Chromium's view of the feed's source, escaped markup and all (a QA
    # pass): a browser gets it as XML, laid out by its stylesheet, which says what a feed is for.
    headers = {"Accept": accept} if accept else {}
    reader = client.get("/feeds/search.atom?q=library", headers=headers)
    browser = client.get("/feeds/search.atom?q=library", headers={"Accept": BROWSER_ACCEPT})
    assert reader.mimetype == "application/atom+xml" and browser.mimetype == "application/xml"
    assert reader.get_data() == browser.get_data() and "Accept" in browser.headers["Vary"]
    sheet = re.search(r'<\?xml-stylesheet type="text/css" href="([^"]+)"\?>', browser.get_data(as_text=True))
    assert sheet
    with client.get(sheet.group(1)) as stylesheet:
        assert stylesheet.status_code == 200 and stylesheet.mimetype == "text/css"
    assert not feedparser.parse(reader.get_data()).bozo


def test_a_browser_shows_each_entry_as_a_link_to_its_page_with_a_readable_date(client):
    # Laid out by its stylesheet, the feed listed its titles as text and its dates as 2026-12-07T13:05:09Z
    # (stop 62's list): XHTML links and dates in each entry, which feed readers pass over as foreign markup.
    from web.dates import exact

    body = client.get("/feeds/search.atom?q=library", headers={"Accept": BROWSER_ACCEPT}).get_data()
    root = ET.fromstring(body)
    H = "{http://www.w3.org/1999/xhtml}"
    entries = root.findall(f"{A}entry")
    assert entries
    for entry in entries:
        link, time = entry.find(f"{H}a"), entry.find(f"{H}time")
        assert link.get("href") == entry.find(f"{A}link").get("href") and link.text == entry.find(f"{A}title").text
        assert time.get("datetime") == entry.find(f"{A}updated").text and time.text == exact(time.get("datetime"))
    page = root.find(f"{H}p/{H}a")
    assert page.get("href") == next(link.get("href") for link in root.findall(f"{A}link") if link.get("rel") == "alternate")
    parsed = feedparser.parse(body)
    assert not parsed.bozo and [e.title for e in parsed.entries] == [e.find(f"{A}title").text for e in entries]


def test_a_feed_title_writes_its_dates_as_the_page_does(client):
    # "· from 2024-05-28T05:00:00Z · until 2024-06-01", where the page says "from 28 May 2024, 05:00 UTC"
    # and the same feed names a month "June 2024" (a QA pass).
    _, parsed, _ = feed(client, "since=2024-05-28T05%3A00%3A00Z&until=2024-06-01")
    assert parsed.feed.title.endswith("· from 28 May 2024, 05:00 UTC · until 1 June 2024"), parsed.feed.title


def test_entries_carry_the_highlighted_snippet_as_escaped_html(client):
    response, parsed, root = feed(client, "q=library")
    raw = response.get_data(as_text=True)
    assert "&lt;mark&gt;" in raw and "<mark>" not in raw  # escaped in the XML ...
    contents = [entry.find(f"{A}content") for entry in root.findall(f"{A}entry")]
    assert all(c.get("type") == "html" for c in contents)
    assert any("<mark>librar" in c.text.lower() for c in contents)  # ... HTML once unescaped


def test_entry_ids_are_stable_across_requests_and_updates(client, dated_index, tmp_path):
    _, before, _ = feed(client, "topic=libs")
    _, again, _ = feed(client, "topic=libs")
    assert [e.id for e in before.entries] == [e.id for e in again.entries]
    copy = tmp_path / "index"
    shutil.copytree(dated_index, copy, symlinks=True)
    newest = {"id": "deb-brand-new", "title": "A brand new library", "summary": "Fresh.", "topics": ["libs"],
              "published": "2025-07-01"}
    update(write_jsonl(tmp_path / "changes.jsonl", [newest]), copy)
    after = feedparser.parse(create_app({"INDEX_DIR": str(copy), "TESTING": True}).test_client()
                             .get("/feeds/search.atom?topic=libs").get_data())
    assert after.entries[0].link.endswith("/events/deb-brand-new")
    assert [e.id for e in after.entries[1:]] == [e.id for e in before.entries[:-1]]


def test_an_entry_whose_document_was_corrected_is_updated_when_it_was(dated_index, tmp_path, monkeypatch):
    # An entry's updated was its date for good: a summary corrected by an update reached no feed reader.
    copy = tmp_path / "index"
    shutil.copytree(dated_index, copy, symlinks=True)
    client = create_app({"INDEX_DIR": str(copy), "TESTING": True}).test_client()
    _, before, _ = feed(client, "topic=libs")
    first, second = before.entries[0], before.entries[1]
    corrected = client.get(f"/api/documents/{first.link.rsplit('/', 1)[1]}").get_json()["document"]
    unchanged = client.get(f"/api/documents/{second.link.rsplit('/', 1)[1]}").get_json()["document"]
    monkeypatch.setattr("index.update.now_utc", lambda: "2031-05-06T07:08:09Z")
    fields = ("id", "title", "summary", "topics", "entities", "published")
    update(write_jsonl(tmp_path / "c.jsonl", [
        {**{k: corrected[k] for k in fields if corrected.get(k)}, "summary": corrected["body"] + " Corrected."},
        {**{k: unchanged[k] for k in fields if unchanged.get(k)}, "summary": unchanged["body"]},  # the same again
    ]), copy)
    _, after, _ = feed(client, "topic=libs")
    entries = {entry.id: entry for entry in after.entries}
    assert entries[first.id].updated == "2031-05-06T07:08:09Z" and entries[first.id].published == first.published
    assert entries[second.id].updated == second.updated  # re-sent as it was: not a revision
    assert after.feed.updated == "2031-05-06T07:08:09Z"
    assert [e.id for e in after.entries] == [e.id for e in before.entries]  # still listed by their dates


def test_a_correction_of_a_document_dated_in_the_future_reaches_the_feed(tmp_path, monkeypatch):
    # Its entry's updated was max(date, revised): 2030 for good, every correction of it hidden (a QA pass).
    from index.build import build

    doc = {"id": "f", "title": "Future item", "summary": "v1", "topics": ["t"], "published": "2030-01-01"}
    monkeypatch.setattr("index.build.now_utc", lambda: "2026-05-01T00:00:00Z")
    build([write_jsonl(tmp_path / "docs.jsonl", [doc])], root=tmp_path / "ix")
    monkeypatch.setattr("index.update.now_utc", lambda: "2026-05-06T07:08:09Z")
    update(write_jsonl(tmp_path / "c.jsonl", [{**doc, "summary": "v2 corrected"}]), tmp_path / "ix")
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    _, parsed, _ = feed(client, "q=future")
    [entry] = parsed.entries
    assert entry.updated == "2026-05-06T07:08:09Z" and entry.published == "2030-01-01T00:00:00Z"
    assert parsed.feed.updated == entry.updated  # the feed's is its newest entry's


def test_conditional_get_answers_304_until_the_feed_changes(client):
    response, _, _ = feed(client, "q=library")
    etag, modified = response.headers["ETag"], response.headers["Last-Modified"]
    assert etag and modified
    for headers in ({"If-None-Match": etag}, {"If-Modified-Since": modified}):
        again = client.get("/feeds/search.atom?q=library", headers=headers)
        assert again.status_code == 304 and not again.get_data()
    other = client.get("/feeds/search.atom?q=python", headers={"If-None-Match": etag})
    assert other.status_code == 200


def test_two_switches_in_one_second_say_two_last_modified(dated_index, tmp_path, monkeypatch):
    # Last-Modified is the switch's time in whole seconds: two updates in one second said one, and a
    # reader revalidating with If-Modified-Since alone got a 304 for a feed an entry had left (a QA pass).
    monkeypatch.setattr(store, "SWITCH_SECONDS_APART", True)  # as served (tests/conftest.py turns it off)
    copy = tmp_path / "index"
    shutil.copytree(dated_index, copy, symlinks=True)
    oops = {"id": "deb-oops", "title": "A library published by mistake", "summary": "Oops.", "topics": ["libs"], "published": "2025-07-01"}
    update(write_jsonl(tmp_path / "add.jsonl", [oops]), copy)
    second = int(time.time()) + 0.999  # the switch was at the end of this second: the next lands in it
    os.utime(copy / "current", (second, second), follow_symlinks=False)
    client = create_app({"INDEX_DIR": str(copy), "TESTING": True}).test_client()
    response, parsed, _ = feed(client, "topic=libs")
    assert parsed.entries[0].link.endswith("/events/deb-oops")
    modified = response.headers["Last-Modified"]
    update(write_jsonl(tmp_path / "delete.jsonl", [{"id": "deb-oops", "delete": True}]), copy)
    again = client.get("/feeds/search.atom?topic=libs", headers={"If-Modified-Since": modified})
    assert again.status_code == 200 and b"deb-oops" not in again.get_data()
    assert parsedate_to_datetime(again.headers["Last-Modified"]) > parsedate_to_datetime(modified)
    # And never later than the answer's Date (RFC 9110, 8.8.2.1): it was set a second on, ahead of the clock (a review).
    assert parsedate_to_datetime(again.headers["Last-Modified"]) <= parsedate_to_datetime(again.headers["Date"])


def test_a_switch_after_the_clock_was_set_back_never_goes_back(dated_index, tmp_path, monkeypatch):
    # The link 5 s ahead of the clock (a clock set back), the next update's took the clock's time:
    # Last-Modified went back, and If-Modified-Since got a 304 for a feed that had changed (a review).
    monkeypatch.setattr(store, "SWITCH_SECONDS_APART", True)
    copy = tmp_path / "index"
    shutil.copytree(dated_index, copy, symlinks=True)
    ahead = int(time.time()) + 5
    os.utime(copy / "current", (ahead, ahead), follow_symlinks=False)
    update(write_jsonl(tmp_path / "add.jsonl", [{"id": "deb-new", "title": "A new library", "summary": "New.", "topics": ["libs"]}]), copy)
    assert os.lstat(copy / "current").st_mtime == ahead + 1  # a second past the switch before, not back
    response = create_app({"INDEX_DIR": str(copy), "TESTING": True}).test_client().get("/feeds/search.atom?topic=libs")
    assert parsedate_to_datetime(response.headers["Last-Modified"]) <= parsedate_to_datetime(response.headers["Date"])


def test_a_rollback_is_a_change_for_readers_polling_with_if_modified_since(dated_index, tmp_path):
    # Last-Modified was the served snapshot's build time, which a rollback sets back: a reader asking
    # If-Modified-Since got 304 and kept the entries the rollback took back.
    copy = tmp_path / "index"
    shutil.copytree(dated_index, copy, symlinks=True)
    update(write_jsonl(tmp_path / "c.jsonl", [{"id": "deb-oops", "title": "A library published by mistake",
                                               "summary": "Oops.", "topics": ["libs"], "published": "2025-07-01"}]), copy)
    link = copy / "current"
    os.utime(link, (time.time() - 100, time.time() - 100), follow_symlinks=False)  # published 100 s ago
    client = create_app({"INDEX_DIR": str(copy), "TESTING": True}).test_client()
    response, parsed, _ = feed(client, "topic=libs")
    assert parsed.entries[0].link.endswith("/events/deb-oops")
    modified = response.headers["Last-Modified"]
    assert client.get("/feeds/search.atom?topic=libs", headers={"If-Modified-Since": modified}).status_code == 304

    topichub_main(["rollback", "--index-dir", str(copy)], standalone_mode=False)
    again = client.get("/feeds/search.atom?topic=libs", headers={"If-Modified-Since": modified})
    assert again.status_code == 200 and b"deb-oops" not in again.get_data()
    assert parsedate_to_datetime(again.headers["Last-Modified"]) > parsedate_to_datetime(modified)
    # The feed's own updated does not go back either (it was the newest remaining entry's date).
    updated = ET.fromstring(again.get_data()).find(f"{A}updated").text
    assert updated == as_date_time(parsedate_to_datetime(again.headers["Last-Modified"]).isoformat()[:19])
    # Nor does an entry's: one the step back may have set back to older text says it changed then, as
    # a feed reader keeps the copy with the later updated (it kept the withdrawn text; a QA pass).
    _, stepped, _ = feed(client, "topic=libs")
    assert stepped.entries and all(entry.updated >= updated for entry in stepped.entries)
    # Still so once a prune has deleted the snapshot stepped back from (the feed's updated went back).
    topichub_main(["prune", "--index-dir", str(copy), "--keep", "0"], standalone_mode=False)
    assert len(list((copy / "snapshots").iterdir())) == 1
    _, pruned, _ = feed(create_app({"INDEX_DIR": str(copy), "TESTING": True}).test_client(), "topic=libs")
    assert pruned.feed.updated == updated and [e.updated for e in pruned.entries] == [e.updated for e in stepped.entries]


def test_a_feed_s_updated_is_never_in_the_future_and_moves_on_when_an_old_dated_entry_comes(tmp_path, monkeypatch):
    # An event dated 9999-12-31 set its entry's and the feed's updated to then, and the feed's went
    # back by 7,973 years at the next update; an event dated 2020 added to a feed set the feed's
    # updated back from when it was last empty to 2020 (a QA pass).
    from index.build import build

    docs = [{"id": "far", "title": "Zebra far ahead", "summary": "Planned.", "topics": ["t"], "published": "9999-12-31T23:59:59Z"},
            {"id": "past", "title": "Zebra of the past", "summary": "Done.", "topics": ["t"], "published": "2024-05-01"}]
    build([write_jsonl(tmp_path / "docs.jsonl", docs)], root=tmp_path / "ix")
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    response, parsed, _ = feed(client, "q=zebra")
    switched = as_date_time(parsedate_to_datetime(response.headers["Last-Modified"]).isoformat()[:19])
    far, past = parsed.entries
    # A date still to come: the entry changed when the hub first held it (it was the switch time, which
    # every later update of any document moved, and readers flagged the entry changed: a QA pass).
    first_seen = client.get("/api/documents/far").get_json()["document"]["first_seen"]
    # The feed changed when its entries last did: when the build first held them, which the switch follows
    # (in the same second, or the next when the build crossed one: it said "switched ==", and CI met a
    # switch at …:12 after documents first seen at …:11).
    assert far.published == "9999-12-31T23:59:59Z" and far.updated == first_seen == parsed.feed.updated <= switched
    assert past.updated == "2024-05-01T00:00:00Z"  # a date gone by is the entry's updated, as it was
    monkeypatch.setattr("index.update.now_utc", lambda: "9000-01-01T00:00:00Z")  # a later update, whenever it is
    update(write_jsonl(tmp_path / "c.jsonl", [{"id": "old", "title": "Zebra backfilled", "summary": "Late.",
                                               "topics": ["t"], "published": "2020-01-01"}]), tmp_path / "ix")
    os.utime(tmp_path / "ix" / "current", (time.time() + 120, time.time() + 120), follow_symlinks=False)  # switched later
    _, later, _ = feed(client, "q=zebra")
    assert [e.link.rsplit("/", 1)[1] for e in later.entries] == ["far", "past", "old"]
    assert later.entries[2].updated == "2020-01-01T00:00:00Z"
    assert later.feed.updated == "9000-01-01T00:00:00Z"  # when the backfilled entry came; never back
    assert later.entries[0].updated == far.updated  # the update changed nothing of it


def test_a_feed_never_says_it_changed_before_its_documents_came(tmp_path, monkeypatch):
    # The file system's clock lags the system's by a few ms: a first build quick enough put the
    # switch's time (the feed's Last-Modified) a second before its documents' first_seen (a flaky test).
    from index.build import build

    symlink = os.symlink

    def lagging(target, link, *args, **kwargs):
        symlink(target, link, *args, **kwargs)
        behind = time.time_ns() - 2_000_000_000
        os.utime(link, ns=(behind, behind), follow_symlinks=False)

    monkeypatch.setattr(store.os, "symlink", lagging)
    build([write_jsonl(tmp_path / "docs.jsonl", [{"id": "a", "title": "Zebra", "summary": "Stripes.", "topics": ["t"]}])],
          root=tmp_path / "ix")
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    response, parsed, _ = feed(client, "q=zebra")
    switched = as_date_time(parsedate_to_datetime(response.headers["Last-Modified"]).isoformat()[:19])
    first_seen = client.get("/api/documents/a").get_json()["document"]["first_seen"]
    assert first_seen <= switched and parsed.entries[0].updated <= switched


@pytest.mark.parametrize("query, param", [("since=someday", "since"), ("month=2024-13", "month"), ("month=0000-01", "month"), ("q=a%00b", "q")])
def test_a_bad_parameter_gets_a_400_naming_it(client, query, param):
    from markupsafe import escape

    from web.pages import reader_message

    response = client.get(f"/feeds/search.atom?{query}")
    error = client.get(f"/api/search?{query}").get_json()["error"]  # the API's names the parameter
    assert error["param"] == param and f"'{param}'" in error["message"]
    # The page says it in a reader's words (a visual pass: it gave the API's, "'since' must be an ISO 8601 date…").
    assert response.status_code == 400 and str(escape(reader_message(error["message"], param))) in response.get_data(as_text=True)


@pytest.mark.parametrize("ignored", ["per_page=100", "page=0", "page=abc", "sort=best", "explain=maybe"])
def test_parameters_the_feed_ignores_do_not_make_it_fail(client, ignored):
    _, plain, _ = feed(client, "topic=libs")
    _, parsed, _ = feed(client, f"topic=libs&{ignored}")
    assert [e.id for e in parsed.entries] == [e.id for e in plain.entries] and len(parsed.entries) == 20


def test_the_page_links_its_feed(client):
    page = client.get("/?q=library&topic=libs&sort=relevance&page=2").get_data(as_text=True)
    link = '<link rel="alternate" type="application/atom+xml" href="/feeds/search.atom?q=library&amp;topic=libs"'
    assert link in page
    assert '<a class="follow" href="/feeds/search.atom?q=library&amp;topic=libs" type="application/atom+xml">Follow this search</a>' in page
    # The home page has no search to follow: its feed is everything's (a visual pass: "Follow this search").
    home = client.get("/").get_data(as_text=True)
    assert '<a class="follow" href="/feeds/search.atom" type="application/atom+xml">Follow the hub</a>' in home


def test_a_guide_links_its_topic_s_feed(index_dir):
    # A reader of the guide found no feed to follow the topic by (a QA pass).
    client = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()
    page = client.get("/guides/training-infrastructure").get_data(as_text=True)
    link = '<link rel="alternate" type="application/atom+xml" href="/feeds/search.atom?topic=training-infrastructure"'
    assert link in page
    assert client.get("/feeds/search.atom?topic=training-infrastructure").status_code == 200


def test_opensearch_description_names_the_search_and_suggestions_urls(client):
    page = client.get("/").get_data(as_text=True)
    assert '<link rel="search" type="application/opensearchdescription+xml" href="/opensearch.xml"' in page
    response = client.get("/opensearch.xml")
    assert response.mimetype == "application/opensearchdescription+xml"
    root = ET.fromstring(response.get_data())
    assert root.tag == f"{OS}OpenSearchDescription" and root.find(f"{OS}ShortName").text
    assert len(root.find(f"{OS}ShortName").text) <= 16  # the spec's limit
    urls = {url.get("type"): url.get("template") for url in root.findall(f"{OS}Url")}
    html_url = urlsplit(urls["text/html"].replace("{searchTerms}", "stargate"))
    assert parse_qs(html_url.query) == {"q": ["stargate"]}
    assert "stargate" in unescape(client.get(f"{html_url.path}?{html_url.query}").get_data(as_text=True))
    suggest = urlsplit(urls["application/x-suggestions+json"].replace("{searchTerms}", "lib"))
    # The dated sample has too much text to be read in a request: no completion until read beside them.
    wait_until(lambda: json.loads(client.get(f"{suggest.path}?{suggest.query}").get_data())[1], "the completions to be read")
    answer = client.get(f"{suggest.path}?{suggest.query}")
    assert answer.mimetype == "application/x-suggestions+json"
    query, completions, descriptions, links = json.loads(answer.get_data())
    assert query == "lib" and completions and all("lib" in c.lower() for c in completions)
    assert len(descriptions) == len(links) == len(completions) and all(link.startswith("http") for link in links)
    # What a browser shows beside each: the search box's own words, not the API's "term" and "title".
    assert set(descriptions) <= {"Search", "Go to", "Topic", "Organisation"} and "Search" in descriptions


def test_a_filter_in_another_case_is_the_feed_of_its_canonical_value(client):
    # As the page does: topic=Libs is topic=libs, so a search has one feed, with one id and one title.
    response = client.get("/feeds/search.atom?q=Library&topic=Libs&page=2&sort=relevance")
    assert response.status_code == 302
    assert response.headers["Location"] == "/feeds/search.atom?q=Library&topic=libs"
    followed = client.get("/feeds/search.atom?q=Library&topic=Libs", follow_redirects=True)
    _, _, canonical = feed(client, "q=Library&topic=libs")
    moved = ET.fromstring(followed.get_data())
    for name in ("id", "title"):
        assert moved.find(f"{A}{name}").text == canonical.find(f"{A}{name}").text
    assert "libs" in canonical.find(f"{A}id").text and "Libs" not in canonical.find(f"{A}title").text
    # A value the index has in no case stays as it is, not moved: a 404 names it (test_a_feed_of_a_topic_…).
    assert client.get("/feeds/search.atom?topic=Nowhere").status_code == 404


@pytest.mark.parametrize(("query", "said", "meant"), [
    ("topic=compute-deal", "No topic 'compute-deal' here (did you mean 'compute-deals'?): a feed of it would stay empty.",
     ("topic=compute-deals", "Follow Compute deals instead")),
    ("q=stargate&entity=nvdia", "No organisation 'nvdia' here (did you mean 'nvidia'?): a feed of it would stay empty.",
     ("q=stargate&entity=nvidia", "Follow NVIDIA instead")),
    ("entity=qwen", "No organisation 'qwen' here (did you mean 'alibaba'?): a feed of it would stay empty.",
     ("entity=alibaba", "Follow Alibaba instead")),  # an alias, which a filter does not read
    ("topic=compute-deals&topic=fundng&entity=zzqx",  # the organisation empties it: Compute deals has pages
     "No organisation 'zzqx' here: a feed of it would stay empty.", None),
    ("topic=fundng&topic=nowhere", "No topic 'fundng' here (did you mean 'funding'?); no topic 'nowhere' here: "
     "a feed of them would stay empty.", None),
    ("topic=%3Cb%3Ex%3C/b%3E", "No topic '<b>x</b>' here: a feed of it would stay empty.", None),
])
def test_a_feed_of_a_topic_or_organisation_the_index_does_not_know_is_a_404_naming_it(index_dir, query, said, meant):
    # topic=compute-deal (a typo of compute-deals) answered 200 with an empty feed for ever: a reader who
    # subscribed never learnt it was wrong, where the page and the API offer the close value (an editor's
    # QA pass).  A feed reader shows no ways out: a 404, saying what it may have meant, for a browser.
    client = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()
    response = client.get(f"/feeds/search.atom?{query}")
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert response.headers["Cache-Control"] == "public, max-age=300"  # as long as a feed, no longer: an update may add it
    page = response.get_data(as_text=True)
    assert unescape(re.search(r'<p class="error-message">(.*?)</p>', page)[1]) == said
    links = re.findall(r'<a href="(/feeds/[^"]*)">([^<]*)</a>', page)
    assert links == ([(f"/feeds/search.atom?{meant[0].replace('&', '&amp;')}", meant[1])] if meant else [])
    if meant:
        feed(client, meant[0])  # a feed, as offered
    # The page and the API answer as before, with their ways out; the page offers no feed to follow.
    assert client.get(f"/api/search?{query}").status_code == 200
    searched = client.get(f"/?{query}").get_data(as_text=True)
    assert 'class="follow"' not in searched and 'rel="alternate"' not in searched


@pytest.mark.parametrize("query", ["topic=funding&topic=nowhere", "entity=nvdia&entity=openai", "entity=alibaba&entity=qwen"])
def test_a_feed_of_several_values_one_of_them_unknown_is_the_feed_of_the_others(index_dir, query):
    # A filter's values combine with OR: topic=funding&topic=nowhere finds Funding's pages, and its feed
    # (7 entries) was a 404 saying it would stay empty (a regression pass).
    client = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()
    response, parsed, _ = feed(client, query)
    assert response.status_code == 200 and parsed.entries
    assert 'class="follow"' in client.get(f"/?{query}").get_data(as_text=True)


def test_a_feed_of_a_topic_without_documents_or_of_a_former_slug_is_no_404(index_dir, tmp_path):
    # A topic of the taxonomy whose documents are all gone (or not there yet) is a topic still: its feed
    # is an empty one to follow.  A renamed topic's former slug is moved for good (test_topic_rename.py).
    copy = tmp_path / "index"
    shutil.copytree(index_dir, copy, symlinks=True)
    client = create_app({"INDEX_DIR": str(copy), "TESTING": True}).test_client()
    ids = [hit["id"] for hit in client.get("/api/search?topic=networking&per_page=50").get_json()["hits"]]
    assert ids
    update(write_jsonl(tmp_path / "c.jsonl", [{"id": doc_id, "delete": True} for doc_id in ids]), copy)
    _, parsed, _ = feed(client, "topic=networking")
    assert parsed.entries == [] and "Networking" in parsed.feed.title
    # Spelt like it, it is offered though no page has it: its feed is one to follow.
    response = client.get("/feeds/search.atom?topic=networkin")
    assert response.status_code == 404 and "did you mean &#39;networking&#39;?" in response.get_data(as_text=True)
    page = client.get("/?topic=networking").get_data(as_text=True)
    assert 'class="follow" href="/feeds/search.atom?topic=networking"' in page
    # A topic still: "No topic is called networking" denied it (a QA pass).
    assert "No page is in the topic <bdi>Networking &amp; interconnects</bdi> yet" in page and "is called" not in page


@pytest.mark.parametrize(("sent", "read"), [
    ("since=2025-01-01T00:00%2B01:00", "since=2024-12-31T23%3A00%3A00Z"),  # an offset: the bound in UTC
    ("since=2025-01-01T00:00:00.5Z", "since=2025-01-01T00%3A00%3A01Z"),  # a fraction: the next whole second
    ("until=2025-01-01T12:00:00.000Z", "until=2025-01-01T12%3A00%3A00Z"),
    ("since=", ""),  # no bound
])
def test_a_date_bound_sent_otherwise_than_read_is_the_feed_of_the_bound_as_read(client, sent, read):
    # The feed's id said since=2024-12-31T23:00:00Z under the address asked with +01:00 (QA pass W):
    # one search, one address and one id, as filters in another case have.
    response = client.get(f"/feeds/search.atom?q=library&{sent}")
    canonical = "/feeds/search.atom?q=library" + (f"&{read}" if read else "")
    # For good: a feed reader updates the address it polls only on a permanent redirect (a QA pass).
    assert response.status_code == 301 and response.headers["Location"] == canonical
    _, _, landed = feed(client, canonical.partition("?")[2])
    assert landed.find(f"{A}id").text.endswith(canonical)


def test_the_order_of_a_filter_s_values_does_not_make_another_feed(client):
    # topic=a&topic=b and topic=b&topic=a had two feed ids and ETags for one search (QA pass U); the
    # API answered them with two ETags, as it did topic=Libs and topic=libs.
    facets = [f["value"] for f in client.get("/api/search").get_json()["facets"]["topic"]][:2]
    assert len(facets) == 2
    first, second = (f"/feeds/search.atom?q=library&topic={a}&topic={b}" for a, b in (facets, facets[::-1]))
    ids = {ET.fromstring(client.get(url, follow_redirects=True).get_data()).find(f"{A}id").text for url in (first, second)}
    assert len(ids) == 1
    # The values put in order, for good: any snapshot's feed has them so (a feed reader updates the address it polls).
    assert sorted(client.get(url).status_code for url in (first, second)) == [200, 301]
    tags = {client.get(url.replace("/feeds/search.atom", "/api/search")).headers["ETag"] for url in (first, second)}
    assert len(tags) == 1
    assert client.get("/api/search?q=library&topic=LIBS").headers["ETag"] == client.get("/api/search?q=library&topic=libs").headers["ETag"]


def entry_dates(client, query: str) -> tuple[list[str], list[str]]:
    _, parsed, _ = feed(client, query)
    return [entry.link.rsplit("/", 1)[1] for entry in parsed.entries], [entry.updated for entry in parsed.entries]


@pytest.mark.parametrize("q", ["python library", "perl module"])
def test_a_multi_word_search_s_feed_lists_its_entries_newest_first(client, q):
    # The newest sort puts the documents holding every word first: the feed listed 2025-06-11, …,
    # 2024-12-08, then newer pages holding one word, under a subtitle saying newest first.
    response, parsed, _ = feed(client, f"q={q.replace(' ', '+')}")
    ids, updated = [entry.link.rsplit("/", 1)[1] for entry in parsed.entries], [entry.updated for entry in parsed.entries]
    assert updated and updated == sorted(updated, reverse=True)
    assert updated == [as_date_time(DATE[i]) for i in ids]
    # The entries: of the newest sort's first 20, those holding every word. The pages holding some
    # came in among them by date: a new page without "michigan" would have topped the feed of
    # "stargate michigan" (a QA pass); the search page lists them, and the subtitle says so.
    result = client.get("/api/search", query_string={"q": q, "sort": "newest", "per_page": 20}).get_json()
    whole = [hit["id"] for hit in result["hits"] if not hit["missing"] and hit["matched_by"] != "meaning"]
    assert sorted(ids) == sorted(whole) and len(whole) < 20
    assert parsed.feed.subtitle == (f"New results for this search holding all of its words, newest first "
                                    f"({result['total']} in all on the search page, some with only part of them).")


def test_a_corrected_search_s_feed_says_whose_results_it_lists(index_dir):
    seed = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()
    _, corrected, _ = feed(seed, "q=stargte")
    _, typed, _ = feed(seed, "q=stargate")
    assert corrected.feed.subtitle == "Showing results for “stargate”. " + typed.feed.subtitle
    assert [e.id for e in corrected.entries] == [e.id for e in typed.entries]


def test_the_seed_corpus_feed_of_a_multi_word_search_is_newest_first(index_dir):
    seed = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()
    _, parsed, _ = feed(seed, "q=gpu+power")
    updated = [entry.updated for entry in parsed.entries]
    assert updated and updated == sorted(updated, reverse=True)


def test_the_seed_feed_of_a_search_follows_the_topic_page_s_order_most_recent_first(index_dir):
    # The seed's events have no dates, only their order on the topic page (most recent first), and
    # one build's first_seen: ordered by relevance among them, the feed of "stargate" listed "Introducing
    # Stargate UK", "... UAE", "Announcing The Stargate Project" first, the oldest (a QA pass).
    seed = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()
    hits = seed.get("/api/search", query_string={"q": "stargate", "sort": "newest", "per_page": 50}).get_json()["hits"]
    events = [h for h in hits if h["kind"] == "event" and not h["missing"]]
    assert len(events) >= 10 and all(h["published"] is None for h in events)
    assert [h["position"] for h in events] == sorted(h["position"] for h in events)
    browsed = [h["id"] for page in (1, 2) for h in seed.get("/api/search", query_string={"sort": "newest", "per_page": 50, "page": page}).get_json()["hits"]]
    holding = [h["id"] for h in hits if not h["missing"]]  # the pages with every word come first
    assert holding == [i for i in browsed if i in set(holding)]  # in the order browsing lists them
    _, parsed, _ = feed(seed, "q=stargate")
    assert [entry.link.rsplit("/", 1)[1] for entry in parsed.entries] == [h["url"].rsplit("/", 1)[1] for h in hits][:20]


def test_after_a_rollback_every_worker_says_the_rollbacks_time_even_one_that_kept_the_snapshot_open(dated_index, tmp_path):
    # A worker that got no request while the update was served kept the Snapshot it had opened before,
    # with the time of its first switch: a reader polling with If-Modified-Since got 304 from it (and
    # kept the entries the rollback took back), 200 from the other worker (a QA pass).
    copy = tmp_path / "index"
    shutil.copytree(dated_index, copy, symlinks=True)
    link = copy / "current"
    os.utime(link, (time.time() - 300, time.time() - 300), follow_symlinks=False)  # S1, published 300 s ago
    workers = [create_app({"INDEX_DIR": str(copy), "TESTING": True}).test_client() for _ in range(2)]
    for worker in workers:
        feed(worker, "topic=libs")  # both open S1
    update(write_jsonl(tmp_path / "c.jsonl", [{"id": "deb-oops", "title": "A library published by mistake",
                                               "summary": "Oops.", "topics": ["libs"], "published": "2025-07-01"}]), copy)
    os.utime(link, (time.time() - 200, time.time() - 200), follow_symlinks=False)  # S2, published 200 s ago
    seen, _, _ = feed(workers[0], "topic=libs")  # one worker switches to S2; the other gets no request
    assert b"deb-oops" in seen.get_data()
    modified = seen.headers["Last-Modified"]

    topichub_main(["rollback", "--index-dir", str(copy)], standalone_mode=False)
    answers = [worker.get("/feeds/search.atom?topic=libs", headers={"If-Modified-Since": modified}) for worker in workers]
    assert [a.status_code for a in answers] == [200, 200] and all(b"deb-oops" not in a.get_data() for a in answers)
    first, second = answers
    assert first.headers["Last-Modified"] == second.headers["Last-Modified"]
    assert parsedate_to_datetime(second.headers["Last-Modified"]) > parsedate_to_datetime(modified)
    assert first.headers["ETag"] == second.headers["ETag"] and first.get_data() == second.get_data()  # <updated> too
    updated = ET.fromstring(second.get_data()).find(f"{A}updated").text
    assert updated == as_date_time(parsedate_to_datetime(second.headers["Last-Modified"]).isoformat()[:19])


@pytest.mark.parametrize("sent", ["topic[]=libs", "topic[0]=libs", "topic%5B%5D=libs", "topic[]=libs&topic[]=Libs"])
def test_a_filter_written_as_a_list_is_the_feed_of_the_filter(client, sent):
    # The feed kept only the names it knows, so topic[]=libs (jQuery, qs, axios, PHP) answered the
    # feed of everything with a 200, where the page and the API filter (a QA pass).
    response = client.get(f"/feeds/search.atom?q=library&{sent}")
    assert response.headers["Location"] == "/feeds/search.atom?q=library&topic=libs"
    assert response.status_code == (302 if "Libs" in sent else 301)  # for good but where the case is the snapshot's
    for bad in ("kind[]=nonsense", "month[0]=2024-13"):  # refused as the page refuses them
        assert client.get(f"/feeds/search.atom?{bad}").status_code == client.get(f"/?{bad}").status_code == 400


@pytest.mark.parametrize(("query", "page"), [("q=library&topic=libs", "/?q=library&topic=libs&sort=newest"), ("topic=libs", "/?topic=libs")])
def test_a_feed_s_page_is_the_search_listed_newest_first(client, query, page):
    # Its alternate link was the page in relevance order, while the feed lists newest first (a QA pass).
    _, parsed, _ = feed(client, query)
    [alternate] = [link.href for link in parsed.feed.links if link.rel == "alternate"]
    assert alternate == "http://localhost" + page
    listed = client.get(f"/api/search?{urlsplit(page).query}&per_page=20").get_json()
    assert [h["id"] for h in listed["hits"]][:3] == [e.link.rsplit("/", 1)[1] for e in parsed.entries][:3]


def test_a_feed_never_goes_back_after_a_rollback_nor_differs_on_a_new_replica(tmp_path):
    # Served by a step back, a feed's entries say the rollback's time at least; the next update's
    # snapshot gave them their own dates again, before the rollback (a review: the feed's updated went
    # from 08:06:01 back to 08:05:51). And a new replica given the rolled-back snapshot gave them their
    # own dates where the builder gave the rollback's: one Last-Modified, two feeds.
    from index.build import build

    docs = [{"id": "f1", "title": "Launch ahead", "summary": "Planned.", "topics": ["t"], "published": "2031-01-01"},
            {"id": "p1", "title": "Launch past", "summary": "Done.", "topics": ["t"], "published": "2024-01-01"}]
    root = tmp_path / "ix"
    build([write_jsonl(tmp_path / "docs.jsonl", docs)], root=root)
    time.sleep(1.1)
    update(write_jsonl(tmp_path / "u1.jsonl", [{"id": "x1", "title": "Launch one", "summary": "One.", "topics": ["t"]}]), root)
    time.sleep(1.1)
    topichub_main(["rollback", "--index-dir", str(root)], standalone_mode=False)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    _, stepped, _ = feed(client, "q=launch")
    rolled = stepped.feed.updated
    assert all(e.updated >= rolled for e in stepped.entries) and {e.link.rsplit("/", 1)[1] for e in stepped.entries} == {"f1", "p1"}

    replica = tmp_path / "replica"
    topichub_main(["publish", "--index-dir", str(root), "--to", str(replica)], standalone_mode=False)
    copy, _, _ = feed(create_app({"INDEX_DIR": str(replica), "TESTING": True}).test_client(), "q=launch")
    assert copy.get_data() == client.get("/feeds/search.atom?q=launch").get_data()

    time.sleep(1.1)
    update(write_jsonl(tmp_path / "u2.jsonl", [{"id": "x2", "title": "Launch two", "summary": "Two.", "topics": ["t"],
                                                "published": "2025-01-01"}]), root)
    _, later, _ = feed(client, "q=launch")
    assert later.feed.updated >= rolled
    assert {e.link.rsplit("/", 1)[1]: e.updated for e in later.entries} == {
        e.link.rsplit("/", 1)[1]: e.updated for e in stepped.entries} | {"x2": rolled}  # none back before the rollback


def test_a_feed_cut_short_by_the_time_budget_is_not_kept(tmp_path):
    # The API's answer cut short is no-store (129d024); the feed of the same search was kept 300 s by
    # any cache (a review).
    from index.build import build

    docs = [{"id": f"d{i}", "title": f"GPU cluster {i}", "summary": "gpu " * (i % 7 + 1), "topics": ["t"],
             "published": "2024-01-01"} for i in range(2500)]
    build([write_jsonl(tmp_path / "many.jsonl", docs)], root=tmp_path / "ix")
    hurried = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True, "QUERY_BUDGET_S": 1e-9}).test_client()
    response, _, _ = feed(hurried, "q=gpu")
    assert response.headers["Cache-Control"] == "no-store"
    whole, _, _ = feed(create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client(), "q=gpu")
    assert whole.headers["Cache-Control"] == "public, max-age=300"


def test_a_feed_never_goes_back_when_served_forward_again_after_a_rollback(tmp_path):
    # rollback, then "rollback --to" the newer snapshot (the documented way forward again): made before
    # the rollback, it carried no floor, and the feed and its entries went back; and a replica already
    # serving the rolled-back snapshot was given no note, so replicas disagreed (a review).
    from index.build import build

    docs = [{"id": "f1", "title": "Launch ahead", "summary": "Planned.", "topics": ["t"], "published": "2031-01-01"},
            {"id": "p1", "title": "Launch past", "summary": "Done.", "topics": ["t"], "published": "2024-01-01"}]
    root, early = tmp_path / "ix", tmp_path / "early"
    build([write_jsonl(tmp_path / "docs.jsonl", docs)], root=root)
    topichub_main(["publish", "--index-dir", str(root), "--to", str(early)], standalone_mode=False)  # serves S1
    time.sleep(1.1)
    update(write_jsonl(tmp_path / "u1.jsonl", [{"id": "x1", "title": "Launch one", "summary": "One.", "topics": ["t"]}]), root)
    newer = store.current_id(root)
    time.sleep(1.1)
    topichub_main(["rollback", "--index-dir", str(root)], standalone_mode=False)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    _, stepped, _ = feed(client, "q=launch")
    topichub_main(["publish", "--index-dir", str(root), "--to", str(early)], standalone_mode=False)  # already serves it
    assert feed(create_app({"INDEX_DIR": str(early), "TESTING": True}).test_client(), "q=launch")[0].get_data() == \
        client.get("/feeds/search.atom?q=launch").get_data()
    time.sleep(1.1)
    topichub_main(["rollback", "--index-dir", str(root), "--to", newer], standalone_mode=False)
    _, forward, _ = feed(client, "q=launch")
    assert forward.feed.updated >= stepped.feed.updated
    was = {e.link: e.updated for e in stepped.entries}
    assert all(e.updated >= was[e.link] for e in forward.entries if e.link in was)


def test_a_feed_s_updated_does_not_go_back_when_its_newest_entry_is_deleted_or_edited_out(dated_index, tmp_path, monkeypatch):
    # Deleting the newest entry set the feed's updated back to the entry before's date, its ETag back
    # to the one before the entry came (a QA pass under updates): taking an entry out is a change.
    monkeypatch.setattr(store, "SWITCH_SECONDS_APART", True)  # each update in a second of its own: times compared are seconds
    copy = tmp_path / "index"
    shutil.copytree(dated_index, copy, symlinks=True)
    client = create_app({"INDEX_DIR": str(copy), "TESTING": True}).test_client()

    def updated() -> str:
        return ET.fromstring(client.get("/feeds/search.atom?topic=libs").get_data()).find(f"{A}updated").text

    first = updated()
    oops = {"id": "deb-oops", "title": "A library published by mistake", "summary": "Oops.", "topics": ["libs"], "published": "2099-07-01"}
    update(write_jsonl(tmp_path / "add.jsonl", [oops]), copy)
    added = updated()
    update(write_jsonl(tmp_path / "delete.jsonl", [{"id": "deb-oops", "delete": True}]), copy)
    assert first <= added <= updated()
    # Nor when an edit takes it out of the feed's search (another topic: a review).
    update(write_jsonl(tmp_path / "again.jsonl", [oops]), copy)
    back = updated()
    update(write_jsonl(tmp_path / "moved.jsonl", [{**oops, "topics": ["games"]}]), copy)
    assert back <= updated()
    # A rebuild from sources without a document is a taking out too.
    from index.build import build

    before = updated()
    build([write_jsonl(tmp_path / "fewer.jsonl", [{"id": "only", "title": "Only one", "summary": "Left.", "topics": ["libs"]}])], root=copy)
    assert updated() >= before


def test_a_document_deleted_and_added_again_never_takes_its_entry_or_the_feed_back(tmp_path, monkeypatch):
    # Added again (by an update, or by a rebuild from the sources it was deleted from), it was new: no
    # revised, so its entry's updated was its date (2024), before the correction the feed had shown
    # until it was deleted, and a feed reader kept the corrected text (a QA pass).  It comes back first
    # seen when it first was, and revised when it came back, as the API says too.
    from index.build import build

    doc = {"id": "x", "title": "Launch item", "summary": "v1", "topics": ["t"], "published": "2024-01-01"}
    sources = write_jsonl(tmp_path / "docs.jsonl", [doc, {**doc, "id": "y", "title": "Launch other", "published": "2023-01-01"}])
    root = tmp_path / "ix"
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    shown: dict[str, str] = {}  # the latest updated each entry, and the feed (""), showed
    steps = [("build", None), ("update", [{**doc, "summary": "v2 corrected"}]), ("update", [{"id": "x", "delete": True}]),
             ("update", [doc]), ("update", [{"id": "x", "delete": True}]), ("build", None), ("build", None)]
    for month, (step, changes) in enumerate(steps, start=1):
        now = f"2031-{month:02}-01T00:00:00Z"
        monkeypatch.setattr(f"index.{step}.now_utc", lambda now=now: now)
        if step == "build":
            build([sources], root=root)
        else:
            update(write_jsonl(tmp_path / f"{month}.jsonl", changes), root)
        _, parsed, _ = feed(client, "q=launch")
        entries = {"": parsed.feed.updated, **{e.link.rsplit("/", 1)[1]: e.updated for e in parsed.entries}}
        assert all(updated >= shown.get(key, "") for key, updated in entries.items()), (month, entries, shown)
        shown.update(entries)
        answer = client.get("/api/documents/x").get_json().get("document")
        if month in (4, 6):  # back: by an update, then by a rebuild of the sources
            assert entries["x"] == now and answer["revised"] == now and answer["first_seen"] == "2031-01-01T00:00:00Z"
    assert answer["revised"] == "2031-06-01T00:00:00Z"  # the rebuild of the same sources after it changes nothing


@pytest.mark.parametrize("written", ['{"departed": [["x", null]]}', '{"departed": [["x", "not a date"]]}',
                                     '{"departed": {"xy": "z"}}', '{"departed": [["x", "2031-', "[]"])
@pytest.mark.parametrize("step", ["update", "build"])
def test_a_list_of_departed_ids_that_cannot_be_read_loses_only_itself(tmp_path, monkeypatch, caplog, written, step):
    # Trusted, a first_seen of null became the document's and its feed answered a 500 (as did every
    # later build of it); unreadable, an update was a traceback and a build took every date afresh (a QA
    # pass).  Read as none, with a warning naming the file: the snapshot's own dates are kept.
    from index.build import DEPARTED_FILE, build

    doc = {"id": "x", "title": "Launch item", "summary": "v1", "topics": ["t"]}
    sources = write_jsonl(tmp_path / "docs.jsonl", [doc, {**doc, "id": "y", "title": "Launch other"}])
    root = tmp_path / "ix"
    monkeypatch.setattr("index.build.now_utc", lambda: "2031-01-01T00:00:00Z")
    build([sources], root=root)
    monkeypatch.setattr("index.update.now_utc", lambda: "2031-02-01T00:00:00Z")
    update(write_jsonl(tmp_path / "gone.jsonl", [{"id": "x", "delete": True}]), root)
    snapshot = store.current_path(root)
    (snapshot / DEPARTED_FILE).write_text(written, encoding="utf-8")
    store.write_meta(snapshot, store._manifest(snapshot), store.MANIFEST_FILE)  # as if written so
    monkeypatch.setattr(f"index.{step}.now_utc", lambda: "2031-03-01T00:00:00Z")
    with caplog.at_level("WARNING"):
        if step == "build":
            build([sources], root=root)
        else:
            update(write_jsonl(tmp_path / "back.jsonl", [doc]), root)
    assert any(DEPARTED_FILE in record.getMessage() and "read as none" in record.getMessage() for record in caplog.records)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    feed(client, "q=launch")  # a valid feed, not a 500
    document = lambda doc_id: client.get(f"/api/documents/{doc_id}").get_json()["document"]  # noqa: E731
    assert document("x")["first_seen"] == "2031-03-01T00:00:00Z"  # back, but its first visit unknown
    assert document("y")["first_seen"] == "2031-01-01T00:00:00Z"  # the snapshot's own dates kept


@pytest.mark.parametrize("sent", ["kind=event,guide", "kind=event%2Cguide", "kind=event&kind=guide,", "kind[]=event,guide"])
def test_a_kind_listed_with_commas_is_the_feed_of_its_values_at_one_address(client, sent):
    # kind=event,guide was the feed's 200 at that address beside kind=event&kind=guide's: one search, two
    # feed ids and subscriptions (an API pass). Redirected for good, as a list form is.
    response = client.get(f"/feeds/search.atom?q=library&{sent}")
    assert response.status_code == 301 and response.headers["Location"] == "/feeds/search.atom?q=library&kind=event&kind=guide"
    assert client.get(response.headers["Location"]).status_code == 200


def test_the_atom_feed_and_the_xml_sent_to_a_browser_have_an_etag_each(client):
    # Two representations the server chooses between by Accept shared one ETag (the body's digest): the
    # Atom copy's ETag got a browser's request a 304, and a cache holding both could answer a feed reader
    # with the XML one (RFC 9110 8.8.3: entity tags tell a resource's representations apart; an API pass).
    url, browser = "/feeds/search.atom?q=library", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    atom = client.get(url, headers={"Accept": "application/atom+xml"})
    xml = client.get(url, headers={"Accept": browser})
    assert (atom.mimetype, xml.mimetype) == ("application/atom+xml", "application/xml")
    assert atom.get_data() == xml.get_data() and atom.headers["ETag"] != xml.headers["ETag"]
    assert atom.headers["ETag"].startswith("W/") and xml.headers["ETag"].startswith("W/")
    assert client.get(url, headers={"Accept": browser, "If-None-Match": atom.headers["ETag"]}).status_code == 200
    assert client.get(url, headers={"Accept": "application/atom+xml", "If-None-Match": xml.headers["ETag"]}).status_code == 200
    for accept, etag in (("application/atom+xml", atom.headers["ETag"]), (browser, xml.headers["ETag"])):
        again = client.get(url, headers={"Accept": accept, "If-None-Match": etag, "Accept-Encoding": "gzip"})
        assert again.status_code == 304 and again.headers["ETag"] == etag  # gzipped or whole: one ETag


@pytest.mark.parametrize(("sent", "status", "landed"), [
    ("topic=funding,compute-deals", 301, "topic=compute-deals&topic=funding"),
    ("topic=funding%2C%20compute-deals", 301, "topic=compute-deals&topic=funding"),  # blanks around the comma
    ("topic=funding,funding", 301, "topic=funding"),
    ("topic=funding,", 301, "topic=funding"),  # a blank value dropped
    ("entity=openai,nvidia", 301, "entity=nvidia&entity=openai"),
    ("kind=event,guide", 301, "kind=event&kind=guide"),
    # The snapshot's own spelling stays temporary, alone or in a list: another snapshot may write it otherwise.
    ("topic=Funding,compute-deals", 302, "topic=compute-deals&topic=funding"),
    ("topic=funding,Compute%20deals", 302, "topic=compute-deals&topic=funding"),
    ("entity=OpenAI", 302, "entity=openai"),
    ("topic=funding,compute-deals&entity=OpenAI", 302, "topic=compute-deals&topic=funding&entity=openai"),
    # A list holding a value the index does not know is its values too, as topic=funding&topic=nowhere
    # is (Funding's entries): it was one unknown value, a 404.
    ("topic=funding,nowhere", 301, "topic=funding&topic=nowhere"),
    ("kind=EVENT", 301, "kind=event"),  # answered at that address, its self link saying kind=event
])
def test_a_topic_or_organisation_list_is_moved_for_good_to_its_values(index_dir, sent, status, landed):
    # topic=funding,compute-deals answered a 302 where kind=event,guide answered a 301: a feed reader updates
    # a subscription only on a permanent redirect, and kept polling the list.  No topic or organisation
    # holds a comma, so the list is its values in any snapshot; a case or a label is this snapshot's.
    client = create_app({"INDEX_DIR": str(index_dir), "TESTING": True}).test_client()
    response = client.get(f"/feeds/search.atom?{sent}")
    assert (response.status_code, response.headers["Location"]) == (status, f"/feeds/search.atom?{landed}")
    feed(client, landed)
