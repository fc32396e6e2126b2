"""``prune`` and the clean-up every writer runs say what they deleted and what they could not: a folder
that could not be deleted (root-owned, read-only) holds its disk until it is, and was not said."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from index import store
from tests.conftest import write_jsonl
from web.cli import main


@pytest.fixture()
def three(tmp_path) -> tuple[Path, list[str]]:
    """Return an index folder holding three snapshots, and their ids."""
    corpus = write_jsonl(tmp_path / "c.jsonl", [{"id": f"w-{n}", "title": f"Widget {n}", "summary": "A gadget.",
                                                 "topics": ["t"]} for n in range(20)])
    root = tmp_path / "index"
    for _ in range(3):
        result = CliRunner().invoke(main, ["build", str(corpus), "--index-dir", str(root), "--procs", "1"])
        assert result.exit_code == 0, result.output
    return root, store.snapshot_ids(root)


def prune(root: Path, *options: str):
    return CliRunner().invoke(main, ["prune", "--index-dir", str(root), *options])


def warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


def test_a_prune_that_cannot_delete_says_so_and_counts_nothing_removed(three, monkeypatch, caplog):
    # It said "removed 2 snapshots", exit 0, and both stayed for ever as .tmp-pruned-* folders.
    root, ids = three
    real = shutil.rmtree

    def undeletable(path, *args, onerror=None, **kwargs):
        if Path(path).name.startswith(".tmp-pruned-"):  # as a root-owned or read-only folder
            error = PermissionError(13, "Permission denied", str(Path(path) / "_MAIN_1.toc"))
            onerror(os.unlink, error.filename, (PermissionError, error, None))
            return
        real(path, *args, onerror=onerror, **kwargs)

    monkeypatch.setattr(shutil, "rmtree", undeletable)
    caplog.set_level("WARNING")
    result = prune(root, "--keep", "0")
    assert result.exit_code == 0 and result.output == "removed 0 snapshots\n", result.output
    stuck = [store.snapshots_dir(root) / f".tmp-pruned-{name}" for name in ids[:2]]
    assert all(folder.is_dir() for folder in stuck)
    assert warnings(caplog) == [
        f"{stuck[0]}, {stuck[1]} could not all be deleted ([Errno 13] Permission denied: "
        f"'{stuck[0] / '_MAIN_1.toc'}'): they hold disk space until deleted: run `topichub prune` once that is fixed"]

    # Every writer's clean-up tries again, and says so again while it cannot.
    caplog.clear()
    assert prune(root).output == "removed 0 snapshots\n"
    assert len(warnings(caplog)) == 1 and warnings(caplog)[0].startswith(f"{stuck[0]}, {stuck[1]} could not all")

    monkeypatch.setattr(shutil, "rmtree", real)  # fixed
    caplog.clear()
    result = prune(root)
    assert result.exit_code == 0 and not any(folder.exists() for folder in stuck) and warnings(caplog) == []
    assert result.output.startswith(f"removed 0 snapshots; also removed what unfinished writers left: .tmp-pruned-{ids[0]} (")


def test_a_prune_never_deletes_the_snapshot_a_degraded_service_answers_from(three, caplog):
    # The published snapshot damaged, the service answering from the newest older one that verifies:
    # `prune --keep 0` deleted that one, and every search answered 503 (a QA pass).
    from tests.test_publish import _damage_flipped
    from web import create_app

    root, (oldest, middle, newest) = three
    for snap_id in (newest, middle):  # the newest that verifies is the oldest
        _damage_flipped(store.snapshots_dir(root) / snap_id)
    caplog.set_level("WARNING")
    result = prune(root, "--keep", "0")
    assert result.exit_code == 0 and result.output == f"removed 1 snapshot: {middle}\n", result.output
    assert store.snapshot_ids(root) == [oldest, newest]
    [warning] = warnings(caplog)
    assert warning.startswith(f"the published snapshot {newest} fails its checks (snapshot {newest} is damaged: ")
    assert warning.endswith(f"): kept snapshot {oldest}, which the service answers from instead; publish a good copy "
                            "or run `topichub rollback`"), warning
    body = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client().get("/api/search?q=widget").get_json()
    assert body["snapshot"] == oldest and body["total"] == 20


def test_a_snapshot_prune_cannot_rename_is_warned_of_and_the_others_are_pruned(three, monkeypatch, caplog):
    # `chattr +i` on the oldest: the prune stopped there, deleted none of the others, and exited 1.
    root, (oldest, middle, newest) = three
    real = os.rename

    def immutable(src, dst):
        if Path(src).name == oldest:
            raise PermissionError(1, "Operation not permitted", str(src))
        return real(src, dst)

    monkeypatch.setattr(store.os, "rename", immutable)
    caplog.set_level("WARNING")
    result = prune(root, "--keep", "0")
    assert result.exit_code == 0 and result.output == f"removed 1 snapshot: {middle}\n", result.output
    assert store.snapshot_ids(root) == [oldest, newest]
    folder = store.snapshots_dir(root) / oldest
    assert warnings(caplog) == [
        f"{folder} could not all be deleted ([Errno 1] Operation not permitted: '{folder}'): it holds disk "
        "space until deleted: run `topichub prune` once that is fixed"]


def test_a_prune_says_it_removed_a_dead_writers_folder(three):
    # "removed 0 snapshots" of a prune that deleted a killed build's 108 MB .tmp- folder.
    root, ids = three
    leftover = store.snapshots_dir(root) / ".tmp-20250101T000000-000000-1"
    leftover.mkdir()
    (leftover / "MAIN_x.pst").write_bytes(b"\0" * 2_500_000)
    result = prune(root)
    assert result.exit_code == 0 and not leftover.exists()
    assert result.output == "removed 0 snapshots; also removed what unfinished writers left: .tmp-20250101T000000-000000-1 (2.5 MB)\n"
    assert store.snapshot_ids(root) == ids


@pytest.mark.parametrize(("holder", "said"), [
    ("rollback", "a rollback is writing"), ("prune", "a prune is writing"), ("publish", "a publish is writing"),
    ("build", "another build or update is writing"), ("update", "another build or update is writing"),
    (None, "another writer (build, update, rollback, prune or publish) is writing"),  # a lock file of an older version
])
def test_a_writer_kept_out_names_the_kind_of_writer_holding_the_lock(three, tmp_path, holder, said):
    # A build or update blocked by a rollback, prune or publish was told "another build or update is writing".
    root, _ = three
    changes = write_jsonl(tmp_path / "changes.jsonl", [{"id": "w-1", "delete": True}])
    with store.write_lock(root, writer=holder):
        for command in (["update", str(changes)], ["build", str(tmp_path / "c.jsonl")], ["prune"], ["rollback"]):
            result = CliRunner().invoke(main, [*command, "--index-dir", str(root)])
            assert result.exit_code == 1 and result.output == (
                f"Error: {said} {root} (process {os.getpid()}); try again when it ends\n"), (command, result.output)
        # One that waited said what one refused at once says, not that it had waited (a QA pass: update --wait 1.5).
        waited = CliRunner().invoke(main, ["update", str(changes), "--wait", "0.3", "--index-dir", str(root)])
        assert waited.exit_code == 1 and waited.output == (
            f"Error: {said} {root} (process {os.getpid()}), still after waiting 0.3 s (--wait); try again when it ends\n")


def _killed_first_build(root: Path) -> Path:
    """Leave in *root* what a first build killed while it wrote leaves: its lock file and its ``.tmp-``
    folder, nothing published; return the folder."""
    with store.write_lock(root, writer="build"):
        work = store.snapshots_dir(root) / ".tmp-20250101T000000-000000-1"
        work.mkdir(parents=True)
        (work / "MAIN_x.pst").write_bytes(b"\0" * 2_500_000)
    return work


def test_a_prune_where_nothing_was_published_removes_what_a_killed_first_build_left(tmp_path):
    # `snapshots` said "`topichub prune` deletes it" of a killed first build's .tmp- folder, and prune
    # said "no index has been built in … yet", exit 1, and left it (a QA pass).
    root = tmp_path / "index"
    work = _killed_first_build(root)
    with store.write_lock(root, writer="build"):  # a build at work holds its own: said, and left alone
        busy = prune(root)
    assert busy.exit_code == 1 and "another build or update is writing" in busy.output and work.is_dir()
    result = prune(root)
    assert (result.exit_code, result.output) == (0, (
        f"removed what unfinished writers left: {work.name} (2.5 MB); no snapshot was pruned: "
        f"no index has been built in {root} yet\n"))
    assert not work.exists()
    again = prune(root)  # nothing at all to prune: refused, as before
    assert (again.exit_code, again.output) == (1, f"Error: no index has been built in {root} yet\n")


def test_a_prune_where_nothing_is_served_removes_leftovers_and_keeps_the_snapshots(three, caplog):
    # Snapshots kept without a current link: none is pruned (which one serves is the operator's
    # choice), what a killed writer left is, the snapshot it moved into place and never served too.
    root, ids = three
    (root / "current").unlink()
    never = _never_served(root)
    work = _killed_first_build(root)
    caplog.set_level("WARNING")
    result = prune(root, "--keep", "0")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"removed what unfinished writers left: {never} (never served, ")
    assert f"), {work.name} (2.5 MB); no snapshot was pruned: {root} holds 3 snapshots but no current link: " in result.output
    assert store.snapshot_ids(root) == ids and not work.exists() and not (store.snapshots_dir(root) / never).exists()
    assert warnings(caplog) == []
    assert prune(root).output.startswith(f"Error: {root} holds 3 snapshots but no current link: ")


def _never_served(root: Path) -> str:
    """Copy the newest snapshot into place under another id with its ``.publishing-`` marker, as a
    writer killed between moving it there and switching ``current`` leaves it; return its id."""
    never = "99991231T235959-999999-1"
    shutil.copytree(store.snapshots_dir(root) / store.snapshot_ids(root)[-1], store.snapshots_dir(root) / never)
    (root / f"{store.PUBLISHING}{never}").touch()
    return never


def test_a_prune_counts_a_snapshot_never_served_among_what_it_removed(three, caplog):
    # It said "removed 0 snapshots" on stdout and "warning: removed snapshot ID: its writer stopped
    # after moving it into place …" on stderr, in one run (a QA pass).
    root, ids = three
    never = _never_served(root)
    caplog.set_level("WARNING")
    result = prune(root)
    assert result.exit_code == 0 and result.output.startswith(
        f"removed 0 snapshots; also removed what unfinished writers left: {never} (never served, "), result.output
    assert result.output.endswith("B)\n") and result.output.count("\n") == 1, result.output
    assert warnings(caplog) == [] and not (store.snapshots_dir(root) / never).exists()
    assert not (root / f"{store.PUBLISHING}{never}").exists() and store.snapshot_ids(root) == ids
