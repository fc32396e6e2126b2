"""A build or update that fails says so in one ``Error:`` line naming what failed and what to do, exit 1,
never a traceback, whatever ``--procs``: the live index is untouched and nothing is left behind."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from index import store
from tests.conftest import leftovers, write_jsonl
from web.cli import main

DOCS = 2_500  # two indexing processes at --procs 2 (index.build.MIN_PART_DOCS a process)


@pytest.fixture()
def corpus(tmp_path) -> Path:
    return write_jsonl(tmp_path / "widgets.jsonl", [
        {"id": f"widget-{n}", "title": f"Widget {n}", "summary": f"Widget number {n}, a small gadget.",
         "topics": ["training-infrastructure"]} for n in range(DOCS)])


@pytest.fixture()
def published(tmp_path, corpus) -> Path:
    root = tmp_path / "index"
    result = CliRunner().invoke(main, ["build", str(corpus), "--index-dir", str(root), "--procs", "1"])
    assert result.exit_code == 0, result.output
    return root


def build(root: Path, corpus: Path, *options: str):
    return CliRunner().invoke(main, ["build", str(corpus), "--index-dir", str(root), *options])


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("Error:")]


def assert_untouched(result, root: Path, before: str) -> str:
    """Check *result* failed in one Error line, the index as it was; return that line."""
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert store.current_id(root) == before and leftovers(root) == []
    return error_lines(result.output)[0]


def _full_disk_in_a_child(parent: int):
    def write(self, *args, **kwargs):
        if os.getpid() == parent:
            raise AssertionError("written in the build's own process, not an indexing process")
        # As Whoosh's writer fails on a full disk: its clean-up raises in turn, the OSError only inside.
        try:
            raise OSError(28, "No space left on device", "/ix/snapshots/.tmp-x/_MAIN_1.trm")
        except OSError:
            raise Exception("This file is already closed")  # noqa: B904 (the chain is what is tested)
    return write


@pytest.mark.parametrize("procs", ["1", "2"])
def test_a_full_disk_is_one_line_whatever_the_indexing_processes(published, corpus, monkeypatch, procs):
    # With --procs 2 it was a 30-line traceback ending "Exception: This file is already closed": the
    # OSError that the indexing process met did not come back with its exception.
    before = store.current_id(published)
    monkeypatch.setattr("index.build.SegmentBuilder.write", _full_disk_in_a_child(os.getpid() if procs == "2" else -1))
    line = assert_untouched(build(published, corpus, "--procs", procs), published, before)
    assert line == (f"Error: cannot write the index in {published}: [Errno 28] No space left on device: "
                    "'/ix/snapshots/.tmp-x/_MAIN_1.trm'")


def test_an_indexing_process_killed_is_one_line_saying_what_to_do(published, corpus, monkeypatch):
    # As the kernel's out-of-memory killer ends one: it was a traceback ending "index.build.BuildError: an
    # indexing process died before finishing its documents".
    import index.build

    before, parent, indexed = store.current_id(published), os.getpid(), index.build.indexed

    def killed_near_the_end(record, order, *rest):
        if os.getpid() != parent and order == DOCS - 10:
            os.kill(os.getpid(), signal.SIGKILL)
        return indexed(record, order, *rest)

    monkeypatch.setattr("index.build.indexed", killed_near_the_end)
    line = assert_untouched(build(published, corpus, "--procs", "2"), published, before)
    assert line == ("Error: an indexing process was killed by SIGKILL before finishing its documents: it may have run "
                    "out of memory; the live index is untouched, nothing was published: retry with fewer indexing "
                    "processes (--procs)")


def damage(root: Path, manifest: bool = False) -> str:
    """Damage the published snapshot as a disk may: a segment file cut short, and (unless *manifest*) its
    files.json gone with it, so that nothing sees the damage before Whoosh reads it; return its id."""
    served = store.current_path(root)
    if not manifest:
        (served / store.MANIFEST_FILE).unlink()
    for terms in served.glob("*.trm"):
        os.truncate(terms, 200)
    return served.name


@pytest.mark.parametrize("manifest", [False, True])
def test_a_damaged_snapshot_is_not_updated_and_a_build_repairs_it(published, corpus, tmp_path, caplog, manifest):
    # Without its files.json, both died with a 64-line traceback ending in _pickle.UnpicklingError (the
    # update in _apply, the build reading the first-seen dates).
    damaged = damage(published, manifest)
    changes = write_jsonl(tmp_path / "changes.jsonl", [{"id": "widget-1", "delete": True}])
    refused = CliRunner().invoke(main, ["update", str(changes), "--index-dir", str(published)])
    line = assert_untouched(refused, published, damaged)
    assert line.startswith(f"Error: snapshot {damaged} ") and line.endswith(
        "nothing to update; serve the snapshot before it (topichub rollback) or build, then update again"), line

    caplog.set_level("WARNING")
    rebuilt = build(published, corpus, "--procs", "1")
    assert rebuilt.exit_code == 0 and "Traceback" not in rebuilt.output, rebuilt.output
    assert store.current_id(published) != damaged
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 1 and warned[0].startswith(f"the published snapshot could not be read (snapshot {damaged} ")
    assert warned[0].endswith("first-seen dates start afresh, each document first seen by this build"), warned
    again = CliRunner().invoke(main, ["update", str(changes), "--index-dir", str(published)])
    assert again.exit_code == 0 and "1 deleted" in again.output, again.output


def test_an_update_refuses_a_snapshot_without_its_manifest_as_rollback_does(published, tmp_path):
    # Updated as healthy (and the update's manifest then vouched for it) where rollback refused it.
    served = store.current_path(published)
    (served / store.MANIFEST_FILE).unlink()
    with pytest.raises(store.IndexUnavailable, match="has no files.json"):
        store.verify(served)  # rollback's and publish's check
    changes = write_jsonl(tmp_path / "changes.jsonl", [{"id": "widget-1", "delete": True}])
    line = assert_untouched(CliRunner().invoke(main, ["update", str(changes), "--index-dir", str(published)]),
                            published, served.name)
    assert line == (f"Error: snapshot {served.name} has no files.json: the copy is incomplete: nothing to update; "
                    "serve the snapshot before it (topichub rollback) or build, then update again")


def test_a_build_over_a_damaged_snapshot_takes_the_dates_of_the_one_before(published, corpus, caplog):
    older = store.current_id(published)
    assert build(published, corpus, "--procs", "1").exit_code == 0
    damaged = damage(published)
    caplog.set_level("WARNING")
    assert build(published, corpus, "--procs", "1").exit_code == 0
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 1 and f"(snapshot {damaged} cannot be read: " in warned[0], warned
    assert warned[0].endswith(f"the first-seen dates are those of snapshot {older}"), warned
