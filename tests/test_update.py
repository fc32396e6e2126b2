"""Updates: upsert and delete documents by id from a change file, published like a build."""

from __future__ import annotations

import json
import threading

import pytest

from corpus.errors import CorpusError
from index import store
from index.build import build
from index.update import UpdateError, update
from search.params import SearchParams
from search.service import SearchService
from tests.conftest import DATA, write_jsonl
from web import create_app

NEW = {"id": "quokka-cluster", "title": "Quokka cluster goes live", "summary": "A marsupial-themed GPU cluster.",
       "topics": ["training-infrastructure"], "entities": ["Quokka Labs"]}
KNOWN = "expanding-stargate-to-michigan"


@pytest.fixture()
def root(tmp_path):
    build(root=tmp_path / "index")
    return tmp_path / "index"


def total(service: SearchService, q: str = "", **filters) -> int:
    return service.search(SearchParams(q=q, **filters)).total


def test_upsert_adds_a_document_at_the_end_of_the_listing(root, tmp_path):
    service = SearchService(root)
    before = total(service)
    report = update(write_jsonl(tmp_path / "c.jsonl", [NEW]), root)
    assert (report.added, report.replaced, report.deleted, report.doc_count) == (1, 0, 0, before + 1)
    assert total(service, "quokka") == 1 and total(service) == before + 1
    assert total(service, entity=("Quokka Labs",)) == 1
    last_page = service.search(SearchParams(sort="listing", per_page=1, page=before + 1))
    assert [hit.id for hit in last_page.hits] == ["quokka-cluster"]
    assert service.document("quokka-cluster")["url"] == "/events/quokka-cluster"


def test_upsert_replaces_a_known_id_in_place(root, tmp_path):
    service = SearchService(root)
    old = service.document(KNOWN)
    before = total(service)
    edited = {"id": KNOWN, "title": "Stargate Michigan renamed Wombat", "summary": "Now about wombats.",
              "topics": ["training-infrastructure"]}
    report = update(write_jsonl(tmp_path / "c.jsonl", [edited]), root)
    assert (report.added, report.replaced) == (0, 1) and report.doc_count == before == total(service)
    doc = service.document(KNOWN)
    assert doc["title"] == "Stargate Michigan renamed Wombat"
    assert (doc["order"], doc["position"]) == (old["order"], old["position"])
    assert [hit.id for hit in service.search(SearchParams(q="wombats")).hits] == [KNOWN]


def test_a_document_that_says_something_else_is_revised_when_it_was(root, tmp_path, monkeypatch):
    service = SearchService(root)
    old = service.document(KNOWN)
    assert "revised" not in old
    same = {"id": KNOWN, "title": old["title"], "summary": old["body"], "topics": list(old["topics"]),
            "entities": list(old["entities"]), **({"url": old["source_url"]} if old.get("source_url") else {})}
    monkeypatch.setattr("index.update.now_utc", lambda: "2030-01-02T03:04:05Z")
    update(write_jsonl(tmp_path / "same.jsonl", [same]), root)
    assert "revised" not in service.document(KNOWN)  # sent again as it was: no revision
    update(write_jsonl(tmp_path / "edit.jsonl", [{**same, "summary": old["body"] + " Updated."}]), root)
    assert service.document(KNOWN)["revised"] == "2030-01-02T03:04:05Z"
    hit = next(hit for hit in service.search(SearchParams(q="michigan")).hits if hit.id == KNOWN)
    assert hit.revised == "2030-01-02T03:04:05Z" and hit.first_seen == old["first_seen"]
    page = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client().get(f"/events/{KNOWN}").get_data(as_text=True)
    assert 'updated <time datetime="2030-01-02T03:04:05Z"' in page
    monkeypatch.setattr("index.update.now_utc", lambda: "2030-02-02T00:00:00Z")
    update(write_jsonl(tmp_path / "again.jsonl", [{**same, "summary": old["body"] + " Updated."}]), root)
    assert service.document(KNOWN)["revised"] == "2030-01-02T03:04:05Z"  # the last change stays the revision


def test_new_ids_come_after_the_last_of_their_kind_whatever_their_line(root, tmp_path):
    # The seed index: events at positions 1-50 (orders 1-50), guide sections at 1-7 (orders 51-57).
    service = SearchService(root)
    old = service.document(KNOWN)
    edited = {"id": KNOWN, "title": "Stargate Michigan, edited", "summary": "s", "topics": ["training-infrastructure"]}
    guide = {"id": "quokka-guide", "title": "Running quokkas", "summary": "How.", "topics": ["training-infrastructure"],
             "kind": "guide"}
    update(write_jsonl(tmp_path / "c.jsonl", [NEW, edited, guide, {**NEW, "id": "quokka-two"}]), root)
    places = {doc_id: (service.document(doc_id)["position"], service.document(doc_id)["order"])
              for doc_id in (NEW["id"], KNOWN, "quokka-guide", "quokka-two")}
    assert places == {NEW["id"]: (51, 58), KNOWN: (old["position"], old["order"]), "quokka-guide": (8, 59),
                      "quokka-two": (52, 60)}


def test_a_new_id_on_the_first_line_of_a_change_file_is_placed_last(tmp_path):
    # A build from one JSONL file numbers positions by line, as orders: the new document is the 321st.
    root = tmp_path / "index"
    build([DATA / "debian-dated.jsonl"], root, semantic=False)
    service = SearchService(root)
    before = total(service)
    update(write_jsonl(tmp_path / "pos.jsonl", [{"id": "first-line-new", "title": "Fresh", "summary": "s",
                                                 "topics": ["utils"]}]), root)
    doc = service.document("first-line-new")
    assert (doc["position"], doc["order"]) == (before + 1, before + 1)


def test_the_updated_snapshot_holds_no_lock_file(root, tmp_path):
    # Whoosh's writer leaves its lock file behind; an update by earlier code left one in the snapshot too.
    (store.current_path(root) / "MAIN_WRITELOCK").touch()
    update(write_jsonl(tmp_path / "c.jsonl", [NEW]), root)
    snapshot = store.current_path(root)
    recorded = json.loads((snapshot / store.MANIFEST_FILE).read_text(encoding="utf-8"))
    assert [name for name in (*recorded, *(p.name for p in snapshot.iterdir())) if "LOCK" in name] == []


def test_delete_removes_and_reports_unknown_ids(root, tmp_path):
    service = SearchService(root)
    before = total(service)
    changes = write_jsonl(tmp_path / "c.jsonl", [{"id": KNOWN, "delete": True}, {"id": "never-was", "delete": True}])
    report = update(changes, root)
    assert report.deleted == 1 and report.missing == ("never-was",) and report.doc_count == before - 1
    assert service.document(KNOWN) is None and total(service) == before - 1
    # The snapshot's record of the update counts what it deleted, not the ids it was asked to delete.
    recorded = store.read_meta(store.current_path(root))["updates"][-1]
    assert (recorded["deleted"], recorded["upserted"], recorded["doc_count"]) == (1, 0, before - 1)
    # applying the same file again changes nothing but is not an error, and publishes nothing
    again = update(changes, root)
    assert again.deleted == 0 and set(again.missing) == {KNOWN, "never-was"} and total(service) == before - 1
    assert not again.changed and again.snapshot == report.snapshot


def test_the_last_line_for_an_id_wins(root, tmp_path):
    service = SearchService(root)
    update(write_jsonl(tmp_path / "a.jsonl", [NEW, {"id": NEW["id"], "delete": True}]), root)
    assert service.document(NEW["id"]) is None
    update(write_jsonl(tmp_path / "b.jsonl", [{"id": KNOWN, "delete": True}, {**NEW, "id": KNOWN}]), root)
    assert service.document(KNOWN)["title"] == NEW["title"]


def test_meta_records_the_update_and_keeps_the_build_facts(root, tmp_path):
    built = store.read_meta(store.current_path(root))
    update(write_jsonl(tmp_path / "c.jsonl", [NEW]), root)
    meta = store.read_meta(store.current_path(root))
    assert meta["built_at"] == built["built_at"] and meta["fingerprint"] == built["fingerprint"]
    assert meta["updated_at"] and meta["doc_count"] == built["doc_count"] + 1
    assert meta["updates"][-1]["upserted"] == 1 and meta["updates"][-1]["file"].endswith("c.jsonl")
    assert meta["snapshot"] == store.current_id(root) != built["snapshot"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "x", "delete": "yes"}', "'delete' must be true or false"),
        ('{"id": "x", "delete": true, "title": "t"}', "a delete line has only 'id' and 'delete'"),
        ('{"id": "", "delete": true}', "'id' must be a non-empty string"),
        ('{"id": "x", "title": "t"}', "'summary' must be a string"),
        ("{nope", "invalid JSON"),
    ],
)
def test_a_bad_line_changes_nothing(root, tmp_path, line, message):
    published = store.current_id(root)
    changes = tmp_path / "c.jsonl"
    changes.write_text('{"id": "fine", "title": "t", "summary": "s", "topics": ["t"]}\n' + line + "\n")
    with pytest.raises(CorpusError, match="c.jsonl:2") as error:
        update(changes, root)
    assert message in str(error.value)
    assert store.current_id(root) == published and SearchService(root).document("fine") is None


def test_an_empty_file_publishes_nothing(root, tmp_path):
    published = store.current_id(root)
    (tmp_path / "empty.jsonl").write_text("\n")
    report = update(tmp_path / "empty.jsonl", root)
    assert not report.changed and store.current_id(root) == published


def test_no_index_or_another_schema_version_is_refused(tmp_path, root, monkeypatch):
    changes = write_jsonl(tmp_path / "c.jsonl", [NEW])
    with pytest.raises(store.IndexUnavailable, match="no index"):
        update(changes, tmp_path / "empty")
    assert not (tmp_path / "empty").exists()
    import index.update

    monkeypatch.setattr(index.update, "SCHEMA_VERSION", index.update.SCHEMA_VERSION + 1)
    with pytest.raises(UpdateError, match="run a full build"):
        update(changes, root)


def test_an_update_of_a_damaged_snapshot_says_how_to_get_one_to_update(root, tmp_path):
    # It said only "snapshot X is damaged: …", while serve answered from the one before.
    published = store.current_path(root)
    segment = max(published.glob("*.pst"), key=lambda p: p.stat().st_size)
    segment.write_bytes(segment.read_bytes()[:100])
    with pytest.raises(store.IndexUnavailable, match=r"is damaged: .* \(topichub rollback\) or build, then update again"):
        update(write_jsonl(tmp_path / "c.jsonl", [NEW]), root)
    assert store.current_path(root) == published and not list(store.snapshots_dir(root).glob(".tmp-*"))


def test_a_second_writer_fails_clearly_or_waits(root, tmp_path):
    changes = write_jsonl(tmp_path / "c.jsonl", [NEW])
    with store.write_lock(root):
        with pytest.raises(store.WriterBusy, match=r"another writer \(build, update, rollback, prune or publish\) is writing"):
            update(changes, root)
    held = threading.Event()
    release = threading.Event()

    def writer() -> None:
        with store.write_lock(root):
            held.set()
            release.wait(5)

    thread = threading.Thread(target=writer)
    thread.start()
    held.wait(5)
    threading.Timer(0.3, release.set).start()
    report = update(changes, root, lock_wait=10)  # waits for the other writer, then applies
    thread.join()
    assert report.added == 1 and SearchService(root).document(NEW["id"]) is not None


def test_updated_documents_get_related_topics_and_organisations(root, tmp_path):
    doc = {"id": "nvidia-texas-campus", "title": "NVIDIA opens a Texas data center campus",
           "summary": "The new data center draws 2GW of power for GPU training clusters.",
           "topics": ["training-infrastructure"]}
    update(write_jsonl(tmp_path / "c.jsonl", [doc]), root)
    stored = SearchService(root).document("nvidia-texas-campus")
    assert "nvidia" in stored["entities"]
    assert "data-centers-power" in stored["topics"]


def test_an_update_keeps_the_event_count_of_a_topic_the_rules_assign(root, tmp_path):
    # It was the build's: an event the rules put in data-centers-power added made its count 29 → 30 and
    # event_count stayed 24; a networking event deleted, count 2 and event_count 3 (a QA pass).
    def counts() -> dict[str, tuple[int, int]]:
        return {t["slug"]: (t["count"], t["event_count"]) for t in SearchService(root).topics()["topics"]}

    before = counts()
    networking = [hit.id for hit in SearchService(root).search(SearchParams(topic=("networking",), kind=("event",))).hits
                  if "data-centers-power" not in hit.topics]
    doc = {"id": "nvidia-texas-campus", "title": "NVIDIA opens a Texas data center campus",
           "summary": "The new data center draws 2GW of power for GPU training clusters.",
           "topics": ["training-infrastructure"]}
    update(write_jsonl(tmp_path / "c.jsonl", [doc, {"id": networking[0], "delete": True}]), root)
    after = counts()
    assert after["data-centers-power"] == (before["data-centers-power"][0] + 1, before["data-centers-power"][1] + 1)
    assert after["networking"] == (before["networking"][0] - 1, before["networking"][1] - 1)
    assert after["training-infrastructure"][1] == before["training-infrastructure"][1]  # as its topic page states it
    # Edited to say nothing the rules look for, it is no longer among the events they put in the topic.
    update(write_jsonl(tmp_path / "d.jsonl", [{**doc, "title": "NVIDIA opens a Texas office", "summary": "Sales staff."}]), root)
    assert counts()["data-centers-power"] == before["data-centers-power"]


def test_an_update_writes_a_topic_or_organisation_the_way_the_index_does(root, tmp_path):
    service = SearchService(root)
    update(write_jsonl(tmp_path / "c.jsonl", [NEW]), root)  # "Quokka Labs"
    louder = {**NEW, "id": "quokka-two", "title": "Quokka cluster grows", "entities": ["QUOKKA LABS"],
              "topics": ["Training-Infrastructure"]}
    update(write_jsonl(tmp_path / "d.jsonl", [louder]), root)
    assert service.document("quokka-two")["entities"] == ["Quokka Labs"]
    assert service.document("quokka-two")["topics"][0] == "training-infrastructure"
    entity = [(f.value, f.count) for f in service.search(SearchParams(q="quokka")).facets["entity"]]
    assert entity == [("Quokka Labs", 2)]

    # Respelt in every document that holds it: the new way wins, as the old one is no longer held.
    respelt = [{**NEW, "entities": ["QuokkaLabs"]}, {**louder, "entities": ["quokkalabs", "QuokkaLabs"]}]
    update(write_jsonl(tmp_path / "e.jsonl", respelt), root)
    assert [(f.value, f.count) for f in service.search(SearchParams(q="quokka")).facets["entity"]] == [("QuokkaLabs", 2)]
    # The old spelling, left in the term list by the replaced documents, is no value: any case still names the new one.
    assert service.snapshot().canonical_filters(SearchParams(entity=("quokkalabs",))).entity == ("QuokkaLabs",)


def test_an_update_reads_a_topic_written_by_its_label_as_that_topic(root, tmp_path):
    service = SearchService(root)
    home = service.snapshot().meta["topics"]["training-infrastructure"]["name"]
    related = service.snapshot().meta["topics"]["data-centers-power"]["name"]
    text = {"title": "NVIDIA opens a Texas data center campus",
            "summary": "The new data center draws 2GW of power for GPU training clusters."}
    by_slug = {"id": "by-slug", **text, "topics": ["training-infrastructure"]}
    by_label = {"id": "by-label", **text, "topics": [home]}
    related_only = {"id": "related-only", **text, "topics": [related.upper()]}
    before = total(service, topic=("training-infrastructure",))
    update(write_jsonl(tmp_path / "c.jsonl", [by_slug, by_label]), root)
    update(write_jsonl(tmp_path / "d.jsonl", [related_only]), root)  # alone: no record of the home topic beside it
    slug_doc, label_doc = service.document("by-slug"), service.document("by-label")
    assert slug_doc["entities"] and len(slug_doc["topics"]) > 1  # enriched
    assert [label_doc[f] for f in ("topic", "topics", "entities")] == [slug_doc[f] for f in ("topic", "topics", "entities")]
    assert service.document("related-only")["topics"] == ["data-centers-power"]
    facet = [(f.value, f.count) for f in service.search(SearchParams()).facets["topic"] if f.value.casefold() == home.casefold()]
    assert facet == [] and total(service, topic=("training-infrastructure",)) == before + 2


@pytest.mark.parametrize(("bad_id", "reason"), [("x" * 513, "the limit is 512"), ("a\x00b", "control character")])
def test_a_delete_line_names_its_id_by_the_same_rules_as_an_upsert(root, tmp_path, bad_id, reason):
    published = store.current_id(root)
    changes = write_jsonl(tmp_path / "c.jsonl", [NEW, {"id": bad_id, "delete": True}])
    with pytest.raises(CorpusError, match=f"c.jsonl:2: .*{reason}"):
        update(changes, root)
    assert store.current_id(root) == published  # nothing applied


def test_an_update_that_would_delete_every_document_is_refused(tmp_path):
    # A build of no documents is refused; an update deleting them all published an empty index (a QA pass).
    root = tmp_path / "ix"
    build([write_jsonl(tmp_path / "docs.jsonl", [{"id": f"d{i}", "title": f"Doc {i}", "summary": "Text.", "topics": ["t"]}
                                                 for i in range(3)])], root=root)
    served = store.current_id(root)
    with pytest.raises(UpdateError, match="would delete every document"):
        update(write_jsonl(tmp_path / "all.jsonl", [{"id": f"d{i}", "delete": True} for i in range(3)]), root)
    assert store.current_id(root) == served and store.snapshot_ids(root) == [served]
    update(write_jsonl(tmp_path / "two.jsonl", [{"id": f"d{i}", "delete": True} for i in range(2)]), root)
    assert store.read_meta(store.current_path(root))["doc_count"] == 1  # deleting some is as before


@pytest.mark.parametrize("compressed", [False, True])
def test_an_update_read_from_a_pipe_applies_its_changes(root, tmp_path, compressed):
    # `zcat changes.gz | topichub update /dev/stdin`: the file was opened twice (once to look for
    # gzip's magic bytes), the first read took the pipe's bytes, and the update said "it holds no
    # changes", exited 0 and applied nothing (a QA pass).
    import gzip
    import os

    from web.cli import main as topichub_main

    lines = "".join(json.dumps(line) + "\n" for line in (NEW, {"id": KNOWN, "delete": True})).encode()
    pipe = tmp_path / "changes"
    os.mkfifo(pipe)
    writer = threading.Thread(target=lambda: pipe.write_bytes(gzip.compress(lines) if compressed else lines))
    updater = threading.Thread(target=topichub_main, args=(["update", "--index-dir", str(root), str(pipe)],),
                               kwargs={"standalone_mode": False})
    writer.start()
    updater.start()
    updater.join(timeout=30)
    stuck = updater.is_alive()  # opened the pipe again, it waits for a writer: give it one, with nothing
    while updater.is_alive():
        pipe.write_bytes(b"")
        updater.join(timeout=1)
    writer.join(timeout=10)
    assert not stuck
    service = SearchService(root)
    assert total(service, "quokka") == 1 and service.document(KNOWN) is None


def test_an_organisation_an_update_names_first_is_labelled_as_a_build_labels_it(tmp_path):
    # The update gave documents the gazetteer's organisations but did not record their names: the
    # facet said "broadcom" where a build of the same documents says "Broadcom" (a QA pass).
    event = {"id": "first", "title": "A cluster goes live", "summary": "Racks and power.", "topics": ["training-infrastructure"]}
    build([write_jsonl(tmp_path / "docs.jsonl", [event])], root=tmp_path / "ix")
    named = {**event, "id": "second", "title": "Broadcom ships a switch", "summary": "Broadcom's Tomahawk switch ships."}
    update(write_jsonl(tmp_path / "c.jsonl", [named]), tmp_path / "ix")
    build([write_jsonl(tmp_path / "all.jsonl", [event, named])], root=tmp_path / "built")
    updated, built = (SearchService(tmp_path / name).search(SearchParams()).facets["entity"] for name in ("ix", "built"))
    assert [(f.value, f.label) for f in updated] == [(f.value, f.label) for f in built] == [("broadcom", "Broadcom")]


def test_an_entity_outside_the_gazetteer_s_topics_is_what_the_corpus_says(tmp_path):
    # "SK" (Slovakia) in a farming corpus was folded to the hub's "SK Group" (a QA pass).
    docs = [{"id": "cheese", "title": "Slovak sheep cheese", "summary": "Bryndza.", "topics": ["farming"], "entities": ["SK"]}]
    build([write_jsonl(tmp_path / "docs.jsonl", docs)], root=tmp_path / "ix")
    update(write_jsonl(tmp_path / "c.jsonl", [{**docs[0], "id": "more-cheese"}]), tmp_path / "ix")
    facet = SearchService(tmp_path / "ix").search(SearchParams()).facets["entity"]
    assert [(f.value, f.label, f.count) for f in facet] == [("SK", "SK", 2)]


def test_a_new_document_is_numbered_in_its_listing_as_its_sources_number_them(tmp_path):
    # Topic pages and guides number each kind apart (events 1-3, a guide's sections from 1); a JSONL
    # file numbers its lines across kinds. Guessed from the index (no two documents with one number:
    # one listing), a topic page's first guide section added by an update was numbered 4, after the
    # events, and with a JSONL file beside a topic page a new event took a guide section's number
    # (a review).
    page = DATA / "two-topics" / "inference-hardware.topic.txt"
    alone = tmp_path / "alone"
    build([page], alone, semantic=False)
    update(write_jsonl(tmp_path / "g.jsonl", [{"id": "ih-guide", "kind": "guide", "title": "How it works",
                                                "summary": "Sections.", "topics": ["inference-hardware"]}]), alone)
    assert SearchService(alone).document("ih-guide")["position"] == 1
    mixed = tmp_path / "mixed"
    lines = write_jsonl(tmp_path / "x.jsonl", [{"id": "x-e1", "title": "An event", "summary": "E.", "topics": ["x"]},
                                              {"id": "x-g1", "kind": "guide", "title": "A section", "summary": "G.", "topics": ["x"]}])
    build([page, lines], mixed, semantic=False)
    service = SearchService(mixed)
    before = {service.document(i)["position"] for i in ("x-e1", "x-g1")}
    update(write_jsonl(tmp_path / "e.jsonl", [{"id": "x-new", "title": "Another event", "summary": "N.", "topics": ["x"]}]), mixed)
    place = SearchService(mixed).document("x-new")["position"]
    assert place not in before and place > max(before)
