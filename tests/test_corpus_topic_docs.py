"""What docs/topics.md tells an editor of dates, updates and the API's names, held to by the code."""

from __future__ import annotations

from corpus.sources import DEFAULT_DIR
from index.build import build
from index.update import update
from tests.conftest import DATA, write_jsonl
from web import create_app

TOPIC = "inference-infrastructure"  # tests/data/second-topic's


def test_page_events_are_dated_at_their_first_build_and_an_update_is_undone_by_the_next_build(tmp_path):
    dated = write_jsonl(tmp_path / "dated.jsonl", [{"id": "dated", "title": "A dated event", "summary": "Said in 2025.",
                                                    "topics": [TOPIC], "published": "2025-03-01"}])
    sources = [DEFAULT_DIR, DATA / "second-topic", dated]
    build(sources, root=tmp_path / "ix", semantic=False)
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    hits = client.get("/api/search", query_string={"q": "", "topic": TOPIC, "kind": "event", "sort": "newest",
                                                   "per_page": 50}).get_json()["hits"]
    assert hits[-1]["id"] == "dated" and all(h["published"] is None and h["first_seen"] for h in hits[:-1])
    document = client.get("/api/documents/dated").get_json()["document"]
    assert document["body"] == "Said in 2025." and "summary" not in document

    update(write_jsonl(tmp_path / "u.jsonl", [{"id": "by-update", "title": "Added by an update", "summary": "New.",
                                               "topics": [TOPIC]}]), tmp_path / "ix")
    assert client.get("/api/documents/by-update").status_code == 200
    build(sources, root=tmp_path / "ix", semantic=False)
    assert client.get("/api/documents/by-update").status_code == 404
