"""``topichub snapshots``: the snapshots an index folder keeps, newest first, the one served marked,
each with what ``snapshot.json`` records and whether a rollback withdrew it.  Nothing listed them:
an operator choosing ``rollback --to`` read ``ls snapshots/`` and each folder's snapshot.json."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from index import store
from index.schema import SCHEMA_VERSION
from tests.conftest import write_jsonl
from web.cli import main


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture()
def index(tmp_path) -> Path:
    """An index folder of three builds (20 documents), the newest rolled back from, then updated (21)."""
    corpus = write_jsonl(tmp_path / "c.jsonl", [{"id": f"w-{n}", "title": f"Widget {n}", "summary": "A gadget.",
                                                 "topics": ["t"]} for n in range(20)])
    root = tmp_path / "index"
    for _ in range(3):
        assert cli("build", str(corpus), "--index-dir", str(root), "--procs", "1", "--no-semantic").exit_code == 0
    assert cli("rollback", "--index-dir", str(root)).exit_code == 0
    return root


def test_snapshots_lists_each_newest_first_marking_the_served_and_the_withdrawn(index):
    first, served, withdrawn = store.snapshot_ids(index)
    result = cli("snapshots", "--index-dir", str(index))
    assert result.exit_code == 0, result.output
    header, *lines = result.output.splitlines()
    assert header.split() == ["SNAPSHOT", "BUILT", "UPDATED", "DOCUMENTS", "SCHEMA", "LANGUAGE", "SIZE", "STATE"]
    assert [line.lstrip("* ").split()[0] for line in lines] == [withdrawn, served, first]
    built = {snap: store.read_meta(store.snapshots_dir(index) / snap)["built_at"] for snap in (first, served, withdrawn)}
    assert lines[0].split()[:6] == [withdrawn, built[withdrawn], "-", "20", str(SCHEMA_VERSION), "en"]
    assert lines[0].split()[7] in ("MB", "B")  # a 20-document snapshot holds some 40 kB: shown in bytes
    assert lines[0].split()[8] == "withdrawn" and lines[0].endswith(f", rolled back to {served}")
    assert lines[1].startswith(f"*  {served}  {built[served]}") and lines[1].endswith("  served")
    assert lines[2].startswith(f"   {first}") and lines[2].endswith("  kept")


def test_snapshots_json_gives_the_same_facts(index):
    first, served, withdrawn = store.snapshot_ids(index)
    listed = json.loads(cli("snapshots", "--index-dir", str(index), "--json").output)
    assert [(s["snapshot"], s["served"]) for s in listed] == [(withdrawn, False), (served, True), (first, False)]
    assert listed[0]["withdrawn"]["for"] == served and listed[1]["withdrawn"] is None
    assert all(s["doc_count"] == 20 and s["schema_version"] == SCHEMA_VERSION and s["language"] == "en"
               and s["size_bytes"] > 0 and s["updated_at"] is None and s["problem"] is None for s in listed)

    changes = write_jsonl(index.parent / "u.jsonl", [{"id": "w-new", "title": "New widget", "summary": "Another.",
                                                      "topics": ["t"]}])
    assert cli("update", str(changes), "--index-dir", str(index)).exit_code == 0
    result = cli("snapshots", "--index-dir", str(index), "--json")
    assert result.exit_code == 0, result.output
    newest = json.loads(result.output)[0]
    assert newest["snapshot"] == store.current_id(index) and newest["served"] and newest["doc_count"] == 21
    assert newest["updated_at"] and newest["built_at"] == listed[1]["built_at"]  # an update keeps its build's time


def test_snapshots_says_what_is_damaged_of_another_schema_or_not_served(index):
    first, served, withdrawn = store.snapshot_ids(index)
    meta_file = store.snapshots_dir(index) / first / store.META_FILE
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    meta_file.write_text(json.dumps({**meta, "schema_version": 3}), encoding="utf-8")
    folder = store.snapshots_dir(index) / withdrawn
    segment = next(folder.glob("*.pst"))
    segment.write_bytes(b"cut")
    (index / "current").unlink()
    result = cli("snapshots", "--index-dir", str(index))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert not any(line.startswith("*") for line in lines)
    assert f"is damaged: {segment.name} has 3 bytes, not" in lines[1]
    assert f"  kept; schema 3: this code reads {SCHEMA_VERSION}, it cannot be served" in lines[3]
    assert lines[-1] == (f"none is served: no current link; choose one with `topichub rollback --to SNAPSHOT "
                         f"--index-dir {index}`")


def test_snapshots_of_a_folder_without_an_index_is_one_error_line(tmp_path):
    result = cli("snapshots", "--index-dir", str(tmp_path / "none"))
    assert result.exit_code == 1 and result.output == f"Error: no index has been built in {tmp_path / 'none'} yet\n"


def test_snapshots_json_is_a_list_also_before_a_first_build_made_snapshots(tmp_path):
    # A first build reading its sources (the lock held, no snapshots/ yet) and a folder with nothing
    # in it: --json printed no JSON at all, only the Error line, and a monitor parsing it failed (a QA
    # pass).  Exit 1 as with a first build's folder listed: no index has been built all the same.
    root = tmp_path / "first"
    with store.write_lock(root, writer="build"):
        result = CliRunner().invoke(main, ["snapshots", "--json", "--index-dir", str(root)])
    assert (result.exit_code, json.loads(result.stdout)) == (1, [])
    assert result.stderr == f"Error: no index has been built in {root} yet\n"
    assert json.loads(cli("snapshots", "--json", "--index-dir", str(tmp_path / "none")).stdout) == []
    table = cli("snapshots", "--index-dir", str(tmp_path / "none"))  # the table prints no empty header
    assert (table.exit_code, table.stdout) == (1, "")


def test_a_size_below_a_tenth_of_a_megabyte_is_shown_in_bytes(index):
    # A 3-byte file showed as "0.0 MB", as an empty folder would (a QA pass).
    base = store.snapshots_dir(index)
    (base / "note.txt").write_bytes(b"abc")
    (base / "notes").mkdir()
    (base / "notes" / "big.txt").write_bytes(b"x" * 49_999)
    rows = {line.split()[0]: line.split() for line in cli("snapshots", "--index-dir", str(index)).output.splitlines()}
    assert rows["note.txt"][6:8] == ["3", "B"] and rows["notes"][6:8] == ["49,999", "B"]
    (base / "notes" / "big.txt").write_bytes(b"x" * 50_000)  # 0.05 MB: a tenth, rounded
    rows = {line.split()[0]: line.split() for line in cli("snapshots", "--index-dir", str(index)).output.splitlines()}
    assert rows["notes"][6:8] == ["0.1", "MB"]


def test_snapshots_lists_every_other_folder_with_its_size_after_the_snapshots(index):
    # QA: a folder in snapshots/ without snapshot.json (a hand copy, a copy cut short) and a killed
    # build's .tmp- folder were passed over in silence: the list summed to less than `du` said.
    first, served, withdrawn = store.snapshot_ids(index)
    base = store.snapshots_dir(index)
    (base / "copy" / "sub").mkdir(parents=True)  # prune and rollback leave it alone: no snapshot
    (base / "copy" / "sub" / "MAIN.pst").write_bytes(b"x" * 2_500_000)
    work = base / f".tmp-{store.new_snapshot_id()}"  # a build writes here first: in progress, or killed
    work.mkdir()
    (work / "MAIN.seg").write_bytes(b"x" * 1_200_000)
    (base / "elsewhere").symlink_to(index.parent)  # a link holds no disk of its own
    result = cli("snapshots", "--index-dir", str(index))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()[1:]
    assert [line.lstrip("* ").split()[0] for line in lines] == [withdrawn, served, first, "copy", work.name]
    assert lines[3].split()[1:8] == ["-", "-", "-", "-", "-", "2.5", "MB"]
    assert "a name no build gives" in lines[3] and "no snapshot, so prune and rollback leave it alone" in lines[3]
    assert lines[4].split()[6:8] == ["1.2", "MB"] and "temporary, left by a build, update or publish that was killed" in lines[4]
    assert "damaged" not in lines[4]

    listed = {s["snapshot"]: s for s in json.loads(cli("snapshots", "--index-dir", str(index), "--json").output)}
    assert [listed[name]["kind"] for name in (withdrawn, served, first, "copy", work.name)] == \
        ["snapshot"] * 3 + ["other", "temporary"]
    assert (listed["copy"]["size_bytes"], listed[work.name]["size_bytes"]) == (2_500_000, 1_200_000)
    assert not listed["copy"]["served"] and listed["copy"]["problem"].startswith("a name no build gives")

    assert cli("prune", "--index-dir", str(index)).exit_code == 0  # the leftover goes, the copy stays
    assert [s["snapshot"] for s in json.loads(cli("snapshots", "--index-dir", str(index), "--json").output)][3:] == ["copy"]


def test_snapshots_lists_a_snapshot_not_yet_served_and_a_first_build_at_work(tmp_path, index):
    # One moved into place whose writer has not switched `current` to it (or died first) is no
    # snapshot to roll back to (``snapshot_ids``), but holds a whole snapshot's disk.
    base = store.snapshots_dir(index)
    unserved = store.new_snapshot_id()
    (base / unserved).mkdir()
    (base / unserved / store.META_FILE).write_text("{}", encoding="utf-8")
    (index / f"{store.PUBLISHING}{unserved}").touch()
    last = json.loads(cli("snapshots", "--index-dir", str(index), "--json").output)[-1]
    assert (last["snapshot"], last["kind"], last["served"]) == (unserved, "unserved", False)
    assert last["problem"].startswith("not served: moved into place by a writer that stopped before serving it")

    # A first build, running or killed: its folder is shown, and no index has been built all the same.
    root = tmp_path / "first"
    (store.snapshots_dir(root) / f".tmp-{store.new_snapshot_id()}").mkdir(parents=True)
    result = cli("snapshots", "--index-dir", str(root))
    assert result.exit_code == 1
    *rows, error = result.output.splitlines()
    assert len(rows) == 2 and "temporary, left by a build" in rows[1]
    assert error == f"Error: no index has been built in {root} yet"


def test_a_whole_copy_made_by_hand_is_no_snapshot_prune_keeps_or_rollback_takes(index):
    # A copy under another name ("backup copy") was a snapshot: it sorted after every id, so it was the
    # newest, and `prune --keep 1` kept it and deleted the snapshot it copied (a regression pass).
    import shutil

    served = store.current_id(index)
    twin = index.parent / "twin"  # the same index without the copy: what prune keeps of it
    shutil.copytree(index, twin, symlinks=True)
    shutil.copytree(store.snapshots_dir(index) / served, store.snapshots_dir(index) / "backup copy")
    assert "backup copy" not in store.snapshot_ids(index)
    # Nor is one under another build's id: its facts record the id it was built as (a QA pass).
    shutil.copytree(store.snapshots_dir(index) / served, store.snapshots_dir(index) / "99991231T235959-999999-1")
    assert "99991231T235959-999999-1" not in store.snapshot_ids(index)
    assert f"a copy of snapshot {served} under another id" in cli("snapshots", "--index-dir", str(index)).output
    # One cut short under a snapshot's name is said to be so.
    (store.snapshots_dir(index) / store.new_snapshot_id()).mkdir()
    assert "incomplete: no snapshot.json" in cli("snapshots", "--index-dir", str(index)).output
    listed = json.loads(cli("snapshots", "--index-dir", str(index), "--json").output)
    copy = next(entry for entry in listed if entry["snapshot"] == "backup copy")
    assert copy["kind"] == "other" and "a name no build gives" in copy["problem"]
    for root in (index, twin):
        assert cli("prune", "--keep", "1", "--index-dir", str(root)).exit_code == 0
    assert store.snapshot_ids(index) == store.snapshot_ids(twin)  # the copy kept no snapshot out
    assert (store.snapshots_dir(index) / "backup copy").is_dir()
    assert "backup copy" in cli("rollback", "--to", "backup copy", "--index-dir", str(index)).output  # refused, named
    assert store.current_id(index) == served


def test_a_folder_s_name_is_told_escaped_not_acted_on(index):
    # A name with a tab or a line break broke the table's columns and lines (a regression pass).
    (store.snapshots_dir(index) / "odd\tname\nhere").mkdir()
    lines = cli("snapshots", "--index-dir", str(index)).output.splitlines()
    assert len(lines) == 5 and any(line.split()[0] == "odd\\tname\\nhere" for line in lines)


def _unserved_copy(index: Path) -> tuple[str, dict[str, object]]:
    """Copy the served snapshot into place under another id, unserved (its ``.publishing-`` marker), as a
    writer leaves it between moving it there and switching ``current``; return its id and facts."""
    import shutil

    base = store.snapshots_dir(index)
    unserved = "99991231T235959-999999-1"
    shutil.copytree(base / store.current_id(index), base / unserved)
    meta = {**store.read_meta(base / unserved), "snapshot": unserved}
    (base / unserved / store.META_FILE).write_text(json.dumps(meta), encoding="utf-8")
    (index / f"{store.PUBLISHING}{unserved}").touch()
    return unserved, meta


def _listed(index: Path) -> dict[str, dict[str, object]]:
    result = cli("snapshots", "--index-dir", str(index), "--json")
    assert result.exit_code == 0, result.output
    return {s["snapshot"]: s for s in json.loads(result.output)}


def test_a_writer_s_folders_need_no_operator_while_it_runs_and_do_once_it_is_killed(index):
    # A monitor alerting on any problem fired on every build: its .tmp- folder had one while it ran,
    # the same as after a kill -9.  The write lock tells them apart.
    base = store.snapshots_dir(index)
    work, pruned = base / f".tmp-{store.new_snapshot_id()}", base / ".tmp-pruned-20250101T000000-000000-1"
    work.mkdir()
    pruned.mkdir()
    unserved, _ = _unserved_copy(index)

    with store.write_lock(index, writer="build"):  # a build running (this process, as far as the lock goes)
        running = _listed(index)
        table = cli("snapshots", "--index-dir", str(index)).output
    assert all(s["problem"] is None for s in running.values()), running
    assert running[work.name]["note"] == f"temporary: a build, update or publish writing it (build, process {os.getpid()}, holds the write lock)"
    assert running[pruned.name]["note"].startswith("temporary: a prune deleting it (build, process")
    assert running[unserved]["note"].startswith("not served yet: moved into place by a writer about to serve it (build")
    assert running[work.name]["note"] in table

    killed = _listed(index)  # the lock released, as a killed writer's is
    assert killed[work.name]["problem"].startswith("temporary, left by a build, update or publish that was killed")
    assert killed[pruned.name]["problem"].startswith("temporary, left by a prune that could not finish deleting it")
    assert killed[unserved]["problem"].startswith("not served: moved into place by a writer that stopped before serving it")
    assert all("`topichub prune` deletes it" in killed[name]["problem"] for name in (work.name, pruned.name, unserved))
    assert all(killed[name]["problem"] == killed[name]["note"] for name in (work.name, pruned.name, unserved))
    assert all(s["problem"] is None and s["note"] is None for s in killed.values() if s["kind"] == "snapshot")

    assert cli("prune", "--index-dir", str(index)).exit_code == 0  # what the problem says: prune deletes them
    assert not {work.name, pruned.name, unserved} & set(_listed(index))


def test_snapshots_asking_whether_a_writer_runs_never_turns_a_writer_away(tmp_path):
    # `snapshots` takes the lock file's lock shared for an instant: a writer meeting it then waits,
    # --wait 0 or not (refused at once, a cron build would fail "busy" whenever a monitor looked).
    import fcntl
    import threading

    (tmp_path / ".write.lock").touch()
    looking = (tmp_path / ".write.lock").open()
    fcntl.flock(looking.fileno(), fcntl.LOCK_SH)
    done_looking = threading.Timer(0.05, looking.close)  # closing releases it
    done_looking.start()
    try:
        with store.write_lock(tmp_path, writer="build"):
            assert store.writer_at_work(tmp_path) == f"{os.getpid()} build"
    finally:
        done_looking.join()
    assert store.writer_at_work(tmp_path) is None


def test_an_unserved_snapshot_shows_what_its_snapshot_json_records(index):
    # It is whole (a writer moves a snapshot into place once written), and showed "-" for its build
    # time and document count.
    unserved, meta = _unserved_copy(index)
    assert {key: _listed(index)[unserved][key] for key in ("built_at", "doc_count", "schema_version", "language")} == \
        {"built_at": meta["built_at"], "doc_count": 20, "schema_version": SCHEMA_VERSION, "language": "en"}
    row = next(line for line in cli("snapshots", "--index-dir", str(index)).output.splitlines() if unserved in line)
    assert row.split()[0:6] == [unserved, meta["built_at"], "-", "20", str(SCHEMA_VERSION), "en"]


def test_a_stray_file_is_listed_with_its_size(index):
    # A file in snapshots/ was not listed at all: the list summed to less than `du` said.
    base = store.snapshots_dir(index)
    (base / "backup.tar.gz").write_bytes(b"x" * 3_000_000)
    lines = cli("snapshots", "--index-dir", str(index)).output.splitlines()
    row = next(line for line in lines if "backup.tar.gz" in line)
    assert row.split()[0:8] == ["backup.tar.gz", "-", "-", "-", "-", "-", "3.0", "MB"]
    assert "a file: nothing writes one here, and no command deletes it" in row
    listed = {s["snapshot"]: s for s in json.loads(cli("snapshots", "--index-dir", str(index), "--json").output)}
    assert (listed["backup.tar.gz"]["kind"], listed["backup.tar.gz"]["size_bytes"]) == ("file", 3_000_000)
    assert listed["backup.tar.gz"]["problem"]
    assert sum(s["size_bytes"] for s in listed.values()) == sum(p.stat().st_size for p in base.rglob("*") if p.is_file())


def test_a_writer_s_folder_is_a_problem_when_whether_one_runs_cannot_be_told(index):
    # The lock file unreadable (here a folder in its place): the folder may be a killed writer's.
    (index / ".write.lock").unlink()
    (index / ".write.lock").mkdir()
    (store.snapshots_dir(index) / f".tmp-{store.new_snapshot_id()}").mkdir()
    [work] = [s for s in _listed(index).values() if s["kind"] == "temporary"]
    assert work["problem"].startswith("temporary: a build, update or publish writing it, or left by one that stopped "
                                      "(whether a writer runs cannot be told: ")
