"""robots.txt and the sitemaps, read as crawlers read them: searches off limits, every page listed."""

from __future__ import annotations

import re
import urllib.robotparser
import xml.etree.ElementTree as ET
from datetime import datetime
from html.parser import HTMLParser
from math import ceil
from urllib.parse import unquote, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st
from protego import Protego

from index.build import build
from index.update import update
from tests.conftest import write_jsonl
from web import create_app
from web.pages import DESCRIPTION_CHARS, description

HOST = "http://hub.example/"
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
W3C_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?")


def client_of(index_dir, **config):
    return create_app({"INDEX_DIR": str(index_dir), "TESTING": True, **config}).test_client()


def readers(client):
    """Return robots.txt read by Python's parser and by Protego (Scrapy's; Google's matching rules)."""
    text = client.get("/robots.txt", base_url=HOST).get_data(as_text=True)
    stdlib = urllib.robotparser.RobotFileParser()
    stdlib.parse(text.splitlines())
    stdlib.modified()  # the parser answers False to everything until it has a time of reading
    return text, [lambda url: stdlib.can_fetch("AnyBot", url), lambda url: Protego.parse(text).can_fetch(url, "AnyBot")]


def sitemap_entries(client, path="/sitemap.xml"):
    """Return the (loc, lastmod) of a urlset at *path*, checking it is one."""
    response = client.get(path, base_url=HOST)
    assert response.status_code == 200 and response.mimetype == "application/xml"
    root = ET.fromstring(response.data)
    assert root.tag == f"{{{NS['s']}}}urlset"
    return [(url.findtext("s:loc", namespaces=NS), url.findtext("s:lastmod", namespaces=NS)) for url in root]


def local(loc: str) -> str:
    """Return the path and query of absolute address *loc* on HOST."""
    assert loc.startswith(HOST), loc
    parts = urlsplit(loc)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def test_robots_keep_crawlers_off_every_search_link_a_results_page_has(client):
    text, can_fetch = readers(client)
    page = client.get("/?q=training&sort=newest", base_url=HOST).get_data(as_text=True)
    links = {unquote(href).replace("&amp;", "&") for href in re.findall(r'href="([^"]+)"', page)}
    searches = {link for link in links if link.startswith("/?")}
    assert len(searches) > 10  # facet, sort and page links
    pages = {link for link in links if link.startswith(("/events/", "/guides/"))}
    assert pages
    for fetch in can_fetch:
        listed = {"/?topic[]=compute-deals", "/?topic%5B%5D=compute-deals", "/?entity%5b%5d=openai&q=x",  # a filter as a list
                  "/?topic[0]=compute-deals", "/?kind%5B1%5D=event"}
        for link in searches | listed | {"/feeds/search.atom?q=training", "/api/search?q=training", "/metrics"}:
            assert not fetch(HOST.rstrip("/") + link), link
        for link in pages | {"/", "/sitemap.xml", "/static/style.css"}:
            assert fetch(HOST.rstrip("/") + link), link
    assert f"Sitemap: {HOST}sitemap.xml" in text.splitlines()
    assert Protego.parse(text).sitemaps and list(Protego.parse(text).sitemaps) == [f"{HOST}sitemap.xml"]


def test_the_sitemap_lists_every_page_once_and_each_answers(client, seed_corpus):
    entries = sitemap_entries(client)
    locs = [loc for loc, _ in entries]
    assert len(locs) == len(set(locs))
    events = [r for r in seed_corpus.records if r.kind == "event"]
    topics = {r.topic for r in seed_corpus.records if r.kind == "guide"}
    assert locs[0] == HOST
    # The search tips too, which only a footer link led to (the ops helper's report).
    assert {local(loc) for loc in locs} == {"/", "/topics", "/help", *(f"/guides/{t}" for t in topics),
                                           *(f"/events/{e.id}" for e in events)}
    _, can_fetch = readers(client)
    for loc in locs:
        assert client.get(local(loc), base_url=HOST).status_code == 200, loc  # a page, not a redirect
        assert all(fetch(loc) for fetch in can_fetch), loc


def test_lastmod_is_when_the_page_last_changed(client):
    for loc, lastmod in sitemap_entries(client)[1:]:
        if local(loc) == "/help":  # the code's page, not the snapshot's: no date of its own
            assert lastmod is None
            continue
        assert lastmod and W3C_DATETIME.fullmatch(lastmod), (loc, lastmod)
        path = local(loc)
        if path.startswith("/events/"):
            doc = client.get("/api/documents/" + path.removeprefix("/events/")).get_json()["document"]
            assert lastmod == (doc["revised"] or doc["first_seen"])
    assert datetime.fromisoformat(lastmod.replace("Z", "+00:00")) <= datetime.now().astimezone()


def test_past_its_size_the_sitemap_is_an_index_of_parts_holding_the_same_pages(index_dir):
    whole = [loc for loc, _ in sitemap_entries(client_of(index_dir))]
    client = client_of(index_dir, SITEMAP_URLS=10)
    response = client.get("/sitemap.xml", base_url=HOST)
    index = ET.fromstring(response.data)
    assert index.tag == f"{{{NS['s']}}}sitemapindex"
    parts = [sitemap.findtext("s:loc", namespaces=NS) for sitemap in index]
    assert parts == [f"{HOST}sitemaps/{n}.xml" for n in range(1, ceil(len(whole) / 10) + 1)]
    listed = []
    for part in parts:
        entries = sitemap_entries(client, local(part))
        assert 0 < len(entries) <= 10
        listed += [loc for loc, _ in entries]
    assert listed == whole
    for beyond in (0, len(parts) + 1, "01", "001"):  # "01.xml" was a copy of part 1 (a QA pass)
        assert client.get(f"/sitemaps/{beyond}.xml").status_code == 404
    assert [loc for loc, _ in sitemap_entries(client_of(index_dir), "/sitemaps/1.xml")] == whole


def test_a_crawler_revalidating_gets_304(client):
    first = client.get("/sitemap.xml", base_url=HOST)
    assert first.headers["Cache-Control"].startswith("public") and first.headers["Last-Modified"]
    again = client.get("/sitemap.xml", base_url=HOST, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and not again.data
    dated = client.get("/sitemap.xml", base_url=HOST, headers={"If-Modified-Since": first.headers["Last-Modified"]})
    assert dated.status_code == 304
    other_host = client.get("/sitemap.xml", base_url="http://mirror.example/", headers={"If-None-Match": first.headers["ETag"]})
    assert other_host.status_code == 200 and b"http://mirror.example/" in other_host.data


def test_the_index_of_parts_says_the_time_of_the_last_switch_after_a_rollback(tmp_path):
    # Its lastmod is when the snapshot was switched to, and the index was kept by snapshot: after a
    # rollback to a snapshot served before it said the first switch's time (and kept its ETag).
    import os
    import time
    from datetime import timezone
    from email.utils import parsedate_to_datetime

    from index import store
    from index.dates import format_utc

    root = tmp_path / "index"
    build(root=root)
    os.utime(root / "current", (time.time() - 300, time.time() - 300), follow_symlinks=False)
    client = client_of(root, SITEMAP_URLS=10)
    before = client.get("/sitemap.xml", base_url=HOST)
    update(write_jsonl(tmp_path / "c.jsonl", [{"id": "n", "title": "New", "summary": "", "topics": ["t"]}]), root)
    assert client.get("/sitemap.xml", base_url=HOST).status_code == 200
    store.rollback(root)
    after = client.get("/sitemap.xml", base_url=HOST, headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200 and after.headers["ETag"] != before.headers["ETag"]
    lastmods = {m.text for m in ET.fromstring(after.data).iter(f"{{{NS['s']}}}lastmod")}
    assert lastmods == {format_utc(datetime.fromtimestamp(int(os.lstat(root / "current").st_mtime), timezone.utc))}
    assert parsedate_to_datetime(after.headers["Last-Modified"]) > parsedate_to_datetime(before.headers["Last-Modified"])


@pytest.mark.parametrize("doc_id", ['a&b<c>"d\'e', "q?x=1#frag", "slash/and%25", "Ünïcode ➜ id"])
def test_any_id_or_topic_is_a_well_formed_address_that_leads_to_its_page(tmp_path, doc_id):
    topic = 'r&d <"labs">'
    records = [
        {"id": doc_id, "title": "Quokka cluster opens", "summary": "A quokka cluster.", "topics": [topic]},
        {"id": "guide-1", "kind": "guide", "title": "Quokka guide", "summary": "All about quokkas.", "topics": [topic]},
    ]
    build([write_jsonl(tmp_path / "docs.jsonl", records)], root=tmp_path / "index")
    client = client_of(tmp_path / "index")
    paths = [local(loc) for loc, _ in sitemap_entries(client)]
    assert len(paths) == 5 and paths[1:3] == ["/topics", "/help"]
    for path in paths:
        assert client.get(path, base_url=HOST).status_code == 200, path
    assert unquote(paths[4]) == f"/events/{doc_id}"
    assert unquote(paths[3]) == f"/guides/{topic}"


class _Head(HTMLParser):
    """The <meta> and <link> tags of a page, as (name or property or rel) → content or href."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, list[str]] = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and (a.get("name") or a.get("property")):
            self.tags.setdefault(a.get("name") or a["property"], []).append(a["content"])
        elif tag == "link" and a.get("rel") == "canonical":
            self.tags.setdefault("canonical", []).append(a["href"])


def head_of(client, path):
    parser = _Head()
    response = client.get(path, base_url=HOST)
    assert response.status_code == 200
    parser.feed(response.get_data(as_text=True))
    return parser.tags


def test_each_listed_page_names_its_sitemap_address_and_describes_itself(client):
    home = sitemap_entries(client)[0][0]
    assert head_of(client, local(home))["canonical"] == [home]  # the home page too (a QA pass)
    for loc, _ in sitemap_entries(client)[1:]:
        path = local(loc)
        for asked in (path, path + "?utm_source=newsletter"):  # a copy with a query string names the one address
            tags = head_of(client, asked)
            assert tags["canonical"] == tags["og:url"] == [loc], asked
            [text] = tags["description"]
            assert 40 <= len(text) <= DESCRIPTION_CHARS and tags["og:description"] == [text], asked
            assert "robots" not in tags
        if path == "/topics":  # the page of the topics: said by their names
            assert all(topic["name"] in text for topic in client.get("/api/topics").get_json()["topics"][:2]), text
            continue
        if path == "/help":
            assert text.startswith("How to search"), text
            continue
        if path.startswith("/events/"):
            doc_id = path.removeprefix("/events/")
        else:  # a guide: its first section's
            first = client.get(f"/api/search?topic={path.removeprefix('/guides/')}&kind=guide&sort=listing&per_page=1")
            doc_id = first.get_json()["hits"][0]["id"]
        opening = client.get(f"/api/documents/{doc_id}").get_json()["document"]["body"]
        assert " ".join(opening.split())[:30] == text[:30], (loc, text)


def test_searches_ask_not_to_be_indexed_and_the_home_page_does_not(client):
    assert "robots" not in head_of(client, "/") and head_of(client, "/")["description"]
    for search in ("/?q=stargate", "/?topic=training-infrastructure", "/?q=zzzqqq"):
        assert head_of(client, search)["robots"] == ["noindex"], search


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=400), st.integers(min_value=5, max_value=200))
def test_a_description_is_the_text_run_into_one_line_cut_at_a_word(text, limit):
    flat = " ".join(word for word in text.split() if word != "-")
    made = description(text, limit)
    if len(flat) <= limit:
        assert made == flat
        return
    assert len(made) <= limit and made.endswith("…")
    kept = made[:-1]
    assert flat.startswith(kept)
    if " " in flat[: limit - 1]:  # cut where a word ends (and the punctuation before it dropped), not inside one
        assert flat[len(kept)] in " ,;:.–—-"


def test_after_an_update_the_sitemap_drops_the_deleted_dates_the_edited_and_adds_the_new_last(tmp_path, monkeypatch):
    root = tmp_path / "index"
    monkeypatch.setattr("index.build.now_utc", lambda: "2026-01-01T00:00:00Z")  # first seen a while before the update
    build(root=root)
    before = sitemap_entries(client_of(root))
    first_event = next(local(loc) for loc, _ in before if local(loc).startswith("/events/"))
    gone, edited = local(before[-1][0]).removeprefix("/events/"), first_event.removeprefix("/events/")
    changes = [
        {"id": gone, "delete": True},
        {"id": edited, "title": "Edited event", "summary": "What it says now.", "topics": ["training-infrastructure"]},
        {"id": "brand-new-event", "title": "Brand new event", "summary": "A new one.", "topics": ["training-infrastructure"]},
    ]
    update(write_jsonl(tmp_path / "changes.jsonl", changes), root)
    client = client_of(root)
    after = sitemap_entries(client)
    paths = [local(loc) for loc, _ in after]
    assert f"/events/{gone}" not in paths and paths[-1] == "/events/brand-new-event"
    assert len(after) == len(before)
    lastmod = dict(after)[f"{HOST}events/{edited}"]
    revised = client.get(f"/api/documents/{edited}").get_json()["document"]["revised"]
    assert revised and lastmod == revised and lastmod > dict(before)[f"{HOST}events/{edited}"]
