"""Builds: a snapshot is published only once committed and checked; a failed build changes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from corpus.errors import CorpusError
from corpus.sources import DEFAULT_DIR
from index import store, vectors
from index.build import build
from search.params import SearchParams
from search.service import SearchService
from tests.conftest import write_jsonl


def test_build_records_its_facts(tmp_path, seed_corpus):
    report = build(root=tmp_path)
    meta = store.read_meta(store.current_path(tmp_path))
    assert report.doc_count == meta["doc_count"] == 57
    assert meta["schema_version"] >= 1
    assert meta["fingerprint"] == seed_corpus.fingerprint and len(meta["fingerprint"]) == 64
    assert meta["built_at"].endswith("Z")  # as every other time the service gives (it was "+00:00")
    assert os.readlink(tmp_path / "current") == f"snapshots/{report.snapshot}"


def test_failed_build_leaves_the_old_index_answering(tmp_path, monkeypatch):
    build(root=tmp_path)
    service = SearchService(tmp_path)
    before = service.search(SearchParams(q="stargate"))
    published = store.current_id(tmp_path)

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "title": "Stargate extra", "summary": "s", "topics": ["t"]}\n{oops\n')
    with pytest.raises(CorpusError, match="bad.jsonl:2"):
        build([DEFAULT_DIR, bad], root=tmp_path)

    # A failure halfway through writing: the corpus is fine, the writer dies on document 30.
    import index.build as build_module

    real = build_module.to_document

    def dying(record, order, *first_seen):
        if order == 30:
            raise OSError("disk full")
        return real(record, order, *first_seen)

    monkeypatch.setattr(build_module, "to_document", dying)
    with pytest.raises(OSError, match="disk full"):
        build(root=tmp_path)

    assert store.current_id(tmp_path) == published
    assert [p.name for p in store.snapshots_dir(tmp_path).iterdir()] == [published]
    after = SearchService(tmp_path).search(SearchParams(q="stargate"))
    assert before.total > 0 and [h.id for h in after.hits] == [h.id for h in before.hits] and after.total == before.total
    assert service.search(SearchParams(q="stargate")).total == before.total


def test_a_build_whose_vectors_fail_in_an_indexing_process_publishes_nothing(tmp_path, monkeypatch):
    build(root=tmp_path)
    published = store.current_id(tmp_path)
    import index.build as build_module

    monkeypatch.setattr(build_module, "MIN_PART_DOCS", 20)  # the seed corpus in two indexing processes

    def failing(records):
        raise OSError(f"no room for {len(records)} vectors")

    monkeypatch.setattr(vectors, "embed_records", failing)
    with pytest.raises(OSError, match="no room for 2[89] vectors"):
        build(root=tmp_path, procs=2)
    assert store.current_id(tmp_path) == published
    assert [p.name for p in store.snapshots_dir(tmp_path).iterdir()] == [published]


def test_a_build_whose_switch_fails_leaves_no_snapshot_behind(tmp_path, monkeypatch):
    # The disk filled up as current was being switched: the new snapshot, complete and never served,
    # stayed in snapshots/ (the size of an index, on a full disk) until the next writer.
    build(root=tmp_path)
    published = store.current_id(tmp_path)

    def no_room(root, snap_id):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store, "_switch", no_room)
    with pytest.raises(OSError, match="No space left"):
        build(root=tmp_path)
    assert store.current_id(tmp_path) == published
    assert sorted(p.name for p in [*store.snapshots_dir(tmp_path).iterdir(), *tmp_path.glob(".publishing-*")]) == [published]


def test_a_build_that_cannot_delete_an_old_snapshot_is_published_and_says_so(tmp_path, monkeypatch, caplog):
    # It failed with "Error: cannot write the index ...: Permission denied", exit 1, and served the new snapshot.
    for _ in range(3):
        build(root=tmp_path)
    oldest = store.snapshot_ids(tmp_path)[0]
    real = os.rename

    def refused(src, dst):
        if Path(dst).name.startswith(".tmp-pruned-"):
            raise PermissionError(13, "Permission denied", str(src))
        return real(src, dst)

    monkeypatch.setattr(store.os, "rename", refused)
    report = build(root=tmp_path)
    assert store.current_id(tmp_path) == report.snapshot and oldest in store.snapshot_ids(tmp_path)
    assert f"{store.snapshots_dir(tmp_path) / oldest} could not all be deleted ([Errno 13] Permission denied" in caplog.text


def test_a_stale_temporary_folder_is_cleaned_by_the_next_build(tmp_path):
    build(root=tmp_path)
    stale = store.snapshots_dir(tmp_path) / ".tmp-crashed"
    stale.mkdir()
    (stale / "_MAIN_1.toc").write_bytes(b"half")
    build(root=tmp_path)
    assert not stale.exists()


def test_readers_follow_a_new_publish_without_restart(tmp_path):
    build(root=tmp_path)
    service = SearchService(tmp_path)
    assert service.search(SearchParams(q="zanzibar")).total == 0
    extra = write_jsonl(
        tmp_path / "extra.jsonl",
        [{"id": "zz", "title": "Zanzibar compute campus", "summary": "A new site.", "topics": ["training-infrastructure"]}],
    )
    build([DEFAULT_DIR, extra], root=tmp_path)
    result = service.search(SearchParams(q="zanzibar"))
    assert result.total == 1 and result.hits[0].id == "zz"


def test_one_writer_at_a_time(tmp_path):
    with store.write_lock(tmp_path):
        with pytest.raises(store.WriterBusy, match=r"another writer \(build, update, rollback, prune or publish\)"):
            build(root=tmp_path)
    build(root=tmp_path)  # the lock is released afterwards


def test_a_lock_file_deleted_by_hand_while_a_writer_runs_still_keeps_a_second_writer_out(tmp_path):
    # .write.lock stays after every writer, naming a process long gone: deleted as a stale lock while a
    # build ran, it let a second build in, which removed the first one's folder under it.
    build(root=tmp_path)
    with store.write_lock(tmp_path):
        (tmp_path / ".write.lock").unlink()
        with pytest.raises(store.WriterBusy, match=r"another writer \(build, update, rollback, prune or publish\)"):
            build(root=tmp_path)
    build(root=tmp_path)  # and released afterwards


def test_repeated_ids_keep_the_last_version_and_name_their_lines(tmp_path, caplog):
    docs = write_jsonl(
        tmp_path / "d.jsonl",
        [
            {"id": "a", "title": "First version", "summary": "old", "topics": ["t"]},
            {"id": "a", "title": "Second version", "summary": "new", "topics": ["t"]},
            *({"id": f"r{n // 2}", "title": "Repeat", "summary": "", "topics": ["t"]} for n in range(24)),
        ],
    )
    with caplog.at_level("WARNING"):
        report = build([docs], root=tmp_path / "ix")
    # Counted, and named: the Debian corpus repeats 51 ids, and no line was given to look at.
    warned = [r.getMessage() for r in caplog.records if "repeat" in r.getMessage()]
    assert warned[0] == f"{docs}:2: id 'a' repeats line 1; the later line replaces it"
    assert len(warned) == 11 and warned[-1] == f"{docs}: 3 more lines repeat an id (13 lines repeat 13 ids in all), each replacing the one before"
    assert report.replaced_duplicates == 13
    docs = write_jsonl(tmp_path / "d.jsonl", [{"id": "a", "title": "First version", "summary": "old", "topics": ["t"]},
                                              {"id": "a", "title": "Second version", "summary": "new", "topics": ["t"]}])
    report = build([docs], root=tmp_path / "ix")
    assert report.doc_count == 1 and report.replaced_duplicates == 1
    hits = SearchService(tmp_path / "ix").search(SearchParams(q="version")).hits
    assert [h.title for h in hits] == ["Second version"]
    assert json.loads((store.current_path(tmp_path / "ix") / store.META_FILE).read_text())["doc_count"] == 1


def test_an_id_repeated_in_another_file_names_both_files(tmp_path, caplog):
    # A JSONL line repeating a seed event's id replaced the event, and the build said only "1 line
    # replaced by a later one of the same id" (QA pass Y).
    event = "building-the-compute-infrastructure-for-the-intelligence-age"
    extra = write_jsonl(tmp_path / "extra.jsonl", [{"id": event, "title": "Clash", "summary": "s", "topics": ["x"]},
                                                   {"id": "new-one", "title": "New", "summary": "s", "topics": ["x"]}])
    with caplog.at_level("WARNING"):
        report = build([DEFAULT_DIR, extra], root=tmp_path / "ix")
    warned = [r.getMessage() for r in caplog.records if "read before" in r.getMessage()]
    assert warned == [f"{extra}: id {event!r} was read before from {DEFAULT_DIR / 'training-infrastructure.topic.txt'}; "
                      "this one replaces it"]
    assert report.replaced_duplicates == 1
    assert SearchService(tmp_path / "ix").document(event)["title"] == "Clash"


@pytest.mark.parametrize("content", ["", "\n  \n"])
def test_a_source_of_no_documents_is_refused_and_the_index_keeps_answering(tmp_path, content):
    # An empty export must not replace every document with none (it used to publish an index that
    # answered every request, /healthz included, with a 500).
    index_dir = tmp_path / "index"
    build(root=index_dir)
    published = store.current_id(index_dir)
    before = SearchService(index_dir).search(SearchParams(q="stargate")).total
    empty = tmp_path / "export.jsonl"
    empty.write_text(content)
    with pytest.raises(CorpusError, match="export.jsonl: holds no documents"):
        build([empty], root=index_dir)
    assert store.current_id(index_dir) == published
    assert SearchService(index_dir).search(SearchParams(q="stargate")).total == before > 0


def test_an_index_of_no_documents_answers_every_search(tmp_path):
    # What an update that deletes everything leaves, or a build of no records: empty answers, no error.
    from corpus.sources import load_corpus
    from index.build import build_corpus
    import dataclasses

    build_corpus(dataclasses.replace(load_corpus([DEFAULT_DIR]), records=()), tmp_path)
    service = SearchService(tmp_path)
    for params in (SearchParams(q="stargate"), SearchParams(), SearchParams(sort="newest"), SearchParams(sort="listing")):
        assert service.search(params).total == 0


def test_a_rebuild_over_a_damaged_snapshot_keeps_the_dates_the_last_good_one_holds(tmp_path, monkeypatch):
    # The published snapshot damaged (a segment cut short): serve answers from the one before, but
    # the rebuild that repaired it read no first_seen at all and dated every document to itself,
    # so the newest-first listing and the feeds offered the whole corpus as new.
    source = write_jsonl(tmp_path / "docs.jsonl", [
        {"id": f"doc-{n}", "title": f"Cluster {n}", "summary": "A training cluster.", "topics": ["training-infrastructure"]}
        for n in range(3)
    ])
    root = tmp_path / "index"
    for when in ("2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z"):
        monkeypatch.setattr("index.build.now_utc", lambda when=when: when)
        build([source], root=root)
    damaged = store.current_path(root)
    segment = max(damaged.glob("*.pst"), key=lambda p: p.stat().st_size)
    segment.write_bytes(segment.read_bytes()[:100])
    monkeypatch.setattr("index.build.now_utc", lambda: "2025-03-01T00:00:00Z")
    build([source], root=root)
    hits = SearchService(root).search(SearchParams(q="")).hits
    assert len(hits) == 3 and {hit.first_seen for hit in hits} == {"2025-01-01T00:00:00Z"}
    # What changed since the damaged one is not known: the repair says it may have (a feed's updated
    # went back to before the damaged snapshot's: a review).
    assert SearchService(root).snapshot().changed_at == "2025-03-01T00:00:00Z"


def test_build_s_default_folder_is_the_one_topichub_serve_reads_from_any_working_directory(tmp_path, monkeypatch):
    # build() defaulted to the relative "instance/index": a script run from another folder built into
    # that folder's instance/index, where `topichub serve` (web.cli.DEFAULT_INDEX, beside the packages)
    # never read.  Where it would build is taken, not built into: the checkout's own index is not touched.
    from index import build as build_module
    from web.cli import DEFAULT_INDEX

    built_into = []
    monkeypatch.setattr(build_module, "build_corpus", lambda corpus, root, **options: built_into.append(root))
    monkeypatch.chdir(tmp_path)
    build()
    assert built_into == [DEFAULT_INDEX] and DEFAULT_INDEX.is_absolute()
    assert not (tmp_path / "instance").exists()
