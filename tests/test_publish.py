"""Replicas: `topichub publish` copies a snapshot into other index folders, verified before the switch;
`prune` and `rollback`; a replica's health.  Copies cut short or altered are never published, and a
publish, prune or rollback killed with SIGKILL at any step leaves a complete snapshot served and
finishes when run again."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from index import store
from tests.conftest import AFTER_STEP, REPO, free_port, leftovers, write_jsonl
from tests.waiting import wait_until
from web import create_app
from web.cli import _needs_build, main

NEW = {"id": "numbat-cluster", "title": "Numbat cluster opens", "summary": "A numbat-named GPU cluster.",
       "topics": ["training-infrastructure"]}


def topichub(*args: object) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def run(*args: object) -> subprocess.CompletedProcess:
    """Run a command in a process of its own, as an operator would (its stderr holds its warnings)."""
    return subprocess.run([sys.executable, "-m", "web.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=120, cwd=REPO)


def refused(*args: object) -> str:
    """Run a command that must fail cleanly; return its error line."""
    result = run(*args)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    return result.stderr


def health(root: Path) -> tuple[int, dict]:
    response = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client().get("/healthz")
    return response.status_code, response.get_json()


def numbats(client) -> tuple[str, int]:
    """Return the snapshot that answered a search for the new document, and how many it found."""
    body = client.get("/api/search?q=numbat").get_json()
    return body["snapshot"], body["total"]


@pytest.fixture()
def builder(tmp_path) -> Path:
    """Return a builder index with two snapshots: the seed corpus (S0), then an update adding NEW (S1)."""
    corpus = shutil.copytree(REPO / "corpus" / "data", tmp_path / "corpus")
    root = tmp_path / "builder"
    topichub("build", corpus, "--index-dir", root, "--procs", 1)
    topichub("update", write_jsonl(tmp_path / "new.jsonl", [NEW]), "--index-dir", root)
    return root


@pytest.fixture()
def replica(builder, tmp_path) -> Path:
    """Return a replica folder serving the builder's first snapshot (S0)."""
    root = tmp_path / "replica"
    first = store.older_snapshots(builder, store.current_id(builder))[0]
    staging = tmp_path / "staging"  # an index folder whose current is S0, as rsync would bring it
    store.snapshots_dir(staging).mkdir(parents=True)
    shutil.copytree(store.snapshots_dir(builder) / first, store.snapshots_dir(staging) / first)
    (staging / "current").symlink_to(Path("snapshots") / first)
    topichub("publish", "--index-dir", staging, "--to", root)
    return root


def test_publish_copies_verifies_and_switches_every_replica_and_is_safe_twice(builder, replica, tmp_path):
    other = tmp_path / "replica2"
    client = create_app({"INDEX_DIR": str(replica), "TESTING": True}).test_client()
    first = store.current_id(replica)
    assert numbats(client) == (first, 0)

    out = topichub("publish", "--index-dir", builder, "--to", replica, "--to", other)
    new = store.current_id(builder)
    assert f"published snapshot {new} in {replica} (was {first};" in out
    assert f"published snapshot {new} in {other} (was nothing;" in out
    for root in (replica, other):
        assert store.current_id(root) == new and leftovers(root) == []
        copy, original = store.snapshots_dir(root) / new, store.snapshots_dir(builder) / new
        assert all((copy / p.name).read_bytes() == p.read_bytes() for p in original.iterdir())
    assert numbats(client) == (new, 1)  # the running app moved over without a restart

    again = topichub("publish", "--index-dir", builder, "--to", replica)
    assert f"published snapshot {new} in {replica} (already served; 0.0 MB copied" in again
    assert store.current_id(replica) == new



def test_replicas_of_one_snapshot_say_one_last_modified_in_their_feeds(builder, replica, tmp_path):
    # Each replica's feed said when it switched, seconds apart: behind a balancer revalidation missed
    # and entries' updated flipped between polls (a QA pass on time and feeds). Published, a replica
    # switches "when the builder did", never before its own last switch.
    import os

    link = builder / "current"
    os.utime(link, (1_700_000_000, 1_700_000_000), follow_symlinks=False)  # the builder switched long ago
    other = tmp_path / "replica2"
    topichub("publish", "--index-dir", builder, "--to", other)
    topichub("publish", "--index-dir", builder, "--to", replica)  # its last switch (S0) is newer than the builder's
    feeds = {root: create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client().get("/feeds/search.atom?q=numbat")
             for root in (other, replica)}
    assert feeds[other].headers["Last-Modified"] == "Tue, 14 Nov 2023 22:13:20 GMT"
    assert os.lstat(replica / "current").st_mtime > 1_700_000_000  # not back before what it served
    third = tmp_path / "replica3"
    topichub("publish", "--index-dir", builder, "--to", third)
    again = create_app({"INDEX_DIR": str(third), "TESTING": True}).test_client().get("/feeds/search.atom?q=numbat")
    assert (again.headers["Last-Modified"], again.headers["ETag"]) == (feeds[other].headers["Last-Modified"], feeds[other].headers["ETag"])

def test_a_replica_health_names_the_builder_and_ignores_the_builder_sources(builder, replica, tmp_path):
    topichub("publish", "--index-dir", builder, "--to", replica)
    built_status, built = health(builder)
    status, body = health(replica)
    assert built_status == status == 200
    for fact in ("snapshot", "fingerprint", "built_at", "updated_at", "doc_count", "schema_version"):
        assert body[fact] == built[fact], fact
    assert body["replica"]["from"] == str(builder.resolve()) and body["replica"]["published_at"]
    assert "replica" not in built

    # The builder's sources change (or vanish): the builder says so, the replica does not compare.
    source = next((tmp_path / "corpus").glob("*.topic.txt"))
    source.write_text(source.read_text(encoding="utf-8") + "\nA new line.\n", encoding="utf-8")
    assert health(builder)[1]["sources_changed"] is True
    shutil.rmtree(tmp_path / "corpus")
    assert health(builder)[1]["sources_changed"] is True
    assert health(replica)[1]["sources_changed"] is None


def test_serve_never_rebuilds_a_replica_from_the_builder_sources(replica, tmp_path):
    source = next((tmp_path / "corpus").glob("*.topic.txt"))
    source.write_text(source.read_text(encoding="utf-8") + "\nA new line.\n", encoding="utf-8")
    staging = tmp_path / "staging"  # the same snapshot, built here as far as it knows: rebuilt
    assert _needs_build(staging)[0] == "the sources changed since the index was built: rebuilding it"
    assert _needs_build(replica) is None


@pytest.mark.parametrize("damage", ["flipped", "gone"])
def test_serve_never_builds_the_bundled_corpus_over_a_damaged_snapshot(builder, damage, capsys):
    # It did, and a replica of thousands of pages then answered from 57 and said it was healthy.
    first, damaged = store.older_snapshots(builder, store.current_id(builder))[0], store.current_id(builder)
    if damage == "flipped":
        _damage_flipped(store.snapshots_dir(builder) / damaged)
    else:
        shutil.rmtree(store.snapshots_dir(builder) / damaged)
    assert _needs_build(builder) is None
    said = capsys.readouterr().err
    assert f"{damaged}" in said and "topichub rollback" in said  # an older snapshot can stand in
    assert store.snapshot_ids(builder)[0] == first and store.current_id(builder) == damaged  # nothing built
    status, body = health(builder)
    assert status == 503 and body["status"] == "degraded" and body["snapshot"] == first
    client = create_app({"INDEX_DIR": str(builder), "TESTING": True}).test_client()
    assert numbats(client) == (first, 0)  # the last good snapshot answers


def test_serve_says_to_rebuild_a_damaged_snapshot_nothing_can_stand_in_for(builder, capsys):
    # It said "publish a good copy, or run topichub rollback", and rollback had nothing to go back to.
    first, damaged = store.snapshot_ids(builder)
    shutil.rmtree(store.snapshots_dir(builder) / first)
    _damage_flipped(store.snapshots_dir(builder) / damaged)
    assert _needs_build(builder) is None
    said = capsys.readouterr().err
    assert f"rebuild with `topichub build SOURCES --index-dir {builder}`" in said and "rollback" not in said, said
    assert "nothing to roll back to" in refused("rollback", "--index-dir", builder)  # as said: no way back


def _damage_missing(snap: Path) -> None:
    next(snap.glob("*.pst")).unlink()


def _damage_truncated(snap: Path) -> None:
    segment = next(snap.glob("*.pst"))
    segment.write_bytes(segment.read_bytes()[: segment.stat().st_size // 2])


def _damage_flipped(snap: Path) -> None:  # same size: only the checksum tells
    segment = next(snap.glob("*.trm"))
    data = bytearray(segment.read_bytes())
    data[len(data) // 2] ^= 0x01
    segment.write_bytes(bytes(data))


def _damage_no_manifest(snap: Path) -> None:
    (snap / store.MANIFEST_FILE).unlink()


def _damage_meta(snap: Path) -> None:
    meta = json.loads((snap / store.META_FILE).read_text(encoding="utf-8"))
    meta["doc_count"] += 1
    (snap / store.META_FILE).write_text(json.dumps(meta), encoding="utf-8")


DAMAGE = {
    "a file missing": (_damage_missing, "is missing its file"),
    "a file cut short": (_damage_truncated, "bytes, not"),
    "one flipped bit": (_damage_flipped, "does not match its checksum"),
    "no manifest": (_damage_no_manifest, f"no readable {store.MANIFEST_FILE}"),
    "snapshot.json edited": (_damage_meta, f"{store.META_FILE} has"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_copy_cut_short_or_altered_is_never_published(builder, replica, damage, monkeypatch):
    first = store.current_id(replica)
    new = store.current_id(builder)
    pristine = builder.parent / "pristine"
    shutil.copytree(store.snapshots_dir(builder) / new, pristine)
    harm, message = DAMAGE[damage]
    harm(store.snapshots_dir(builder) / new)  # as an rsync cut short, or a bad disk, would leave it

    copies = []
    with monkeypatch.context() as patched:  # the builder's snapshot is checked before anything is copied
        patched.setattr(store.shutil, "copy2", lambda *args, **kwargs: copies.append(args))
        with pytest.raises(store.IndexUnavailable):
            store.publish_to(builder, replica)
    assert copies == []
    error = refused("publish", "--index-dir", builder, "--to", replica)
    assert error.startswith(f"Error: {replica}: ") and message in error and "not published" in error, error
    assert f"snapshot {new} " in error and ".tmp-" not in error, error  # named by its own id, not a copy's
    assert store.current_id(replica) == first and store.snapshot_ids(replica) == [first]
    assert leftovers(replica) == []
    status, body = health(replica)
    assert status == 200 and body["snapshot"] == first

    # Once the source is whole again, the same command publishes it.
    shutil.rmtree(store.snapshots_dir(builder) / new)
    shutil.copytree(pristine, store.snapshots_dir(builder) / new)
    topichub("publish", "--index-dir", builder, "--to", replica)
    assert store.current_id(replica) == new and health(replica)[0] == 200


# Moments inside publish, prune and rollback, reached exactly: the command kills itself right after
# the named step, as a power cut or `kill -9` would.
KILL_AFTER = """
import os, shutil, signal, sys
from pathlib import Path
from index import store
from web.cli import _needs_build, main

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

act = die
""" + AFTER_STEP + """


copies = []
def second_copy(src, dst):
    copies.append(dst)
    return len(copies) == 2

def one_file_then_die(path, ignore_errors=False, onerror=None):
    next(p for p in Path(path).iterdir() if p.is_file()).unlink()
    die()

moment = sys.argv[1]
if moment == "mid-copy":
    store.shutil.copy2 = after(shutil.copy2, when=second_copy)
elif moment == "before-rename":
    store._fsync_tree = after(store._fsync_tree)
elif moment == "after-rename":
    store.os.rename = after(os.rename, when=lambda src, dst: Path(dst).parent.name == "snapshots")
elif moment == "after-link":
    store.os.symlink = after(os.symlink)
elif moment == "after-swap":
    store.os.replace = after(os.replace)
elif moment == "mid-delete":
    store.shutil.rmtree = one_file_then_die
main(sys.argv[2:])
"""


def killed(moment: str, *args: object) -> None:
    proc = subprocess.run([sys.executable, "-c", KILL_AFTER, moment, *map(str, args)], cwd=REPO,
                          capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()


@pytest.mark.parametrize("moment", ["mid-copy", "before-rename", "after-rename", "after-link", "after-swap"])
def test_a_publish_killed_at_any_step_serves_a_whole_snapshot_and_finishes_when_run_again(builder, replica, moment):
    first, new = store.current_id(replica), store.current_id(builder)
    client = create_app({"INDEX_DIR": str(replica), "TESTING": True}).test_client()
    assert numbats(client) == (first, 0)

    killed(moment, "publish", "--index-dir", builder, "--to", replica)
    served = store.current_id(replica)
    assert served == (new if moment == "after-swap" else first)
    store.verify(store.snapshots_dir(replica) / served)
    assert numbats(client) == (served, 1 if served == new else 0)
    assert health(replica)[0] == 200

    topichub("publish", "--index-dir", builder, "--to", replica)
    assert store.current_id(replica) == new and leftovers(replica) == []
    assert numbats(client) == (new, 1)


def _snapshot_folders(root: Path) -> set[str]:
    return {p.name for p in store.snapshots_dir(root).iterdir() if not p.name.startswith(".")}


WRITERS = {"build": lambda tmp: ("build", REPO / "corpus" / "data", "--procs", 1),
           "update": lambda tmp: ("update", write_jsonl(tmp / "late.jsonl", [{**NEW, "id": "late-numbat"}]))}


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_killed_before_its_switch_is_never_rolled_back_to_and_the_next_writer_removes_it(builder, tmp_path, writer):
    # S0, S1 (current); a build or update killed between moving its snapshot into place and switching
    # current left a complete snapshot that never served, which a rollback after the next build chose.
    good, before = store.current_id(builder), _snapshot_folders(builder)
    killed("after-rename", *WRITERS[writer](tmp_path), "--index-dir", builder)
    (orphan,) = _snapshot_folders(builder) - before
    assert store.current_id(builder) == good and orphan not in store.snapshot_ids(builder)

    result = run("build", REPO / "corpus" / "data", "--index-dir", builder, "--procs", 1)
    assert result.returncode == 0, result.stderr
    assert f"removed snapshot {orphan}: its writer stopped after moving it into place and before publishing it" in result.stderr
    assert orphan not in _snapshot_folders(builder) and leftovers(builder) == []
    newest = store.current_id(builder)
    assert topichub("rollback", "--index-dir", builder).strip() == f"rolled back from snapshot {newest} to {good} in {builder}"
    assert health(builder)[0] == 200


def test_an_orphan_the_next_writer_cannot_delete_stays_unlisted(builder, monkeypatch):
    # Its marker went with the first try, so what was left of it was listed again: a rollback candidate.
    good, before = store.current_id(builder), _snapshot_folders(builder)
    killed("after-rename", "build", REPO / "corpus" / "data", "--index-dir", builder, "--procs", 1)
    (orphan,) = _snapshot_folders(builder) - before
    real = shutil.rmtree

    def partly(path, ignore_errors=False, onerror=None):
        if Path(path).name == orphan:
            (Path(path) / store.MANIFEST_FILE).unlink()  # one file gone, the rest refused
            return None
        return real(path, ignore_errors=ignore_errors, onerror=onerror)

    monkeypatch.setattr(store.shutil, "rmtree", partly)
    topichub("prune", "--index-dir", builder)
    assert orphan in _snapshot_folders(builder) and orphan not in store.snapshot_ids(builder)
    monkeypatch.undo()
    topichub("prune", "--index-dir", builder)
    assert orphan not in _snapshot_folders(builder) and store.current_id(builder) == good


def test_a_first_build_killed_before_its_switch_is_built_again_not_offered_to_serve(tmp_path):
    root = tmp_path / "index"
    killed("after-rename", "build", REPO / "corpus" / "data", "--index-dir", root, "--procs", 1)
    (orphan,) = _snapshot_folders(root)
    assert store.current_id(root) is None
    # serve said "holds 1 snapshot but no current link: choose the one to serve with rollback --to" (it never served)
    assert _needs_build(root)[0].startswith(f"no index has been built in {root} yet")
    # Nor is it served by rollback --to, which says what serve and every other command say of the folder.
    assert refused("rollback", "--to", orphan, "--index-dir", root).startswith(f"Error: no index has been built in {root} yet")
    topichub("build", REPO / "corpus" / "data", "--index-dir", root, "--procs", 1)
    assert _snapshot_folders(root) == {store.current_id(root)} and leftovers(root) == []


# docs/operations.md's two steps to another host, here from one folder to another.
RSYNC = ["rsync", "-a", "--delete", "--exclude", ".write.lock", "--exclude", ".current-*", "--exclude", ".tmp-*"]


def test_rsync_then_publish_is_safe_cut_short_and_run_twice(builder, replica, tmp_path):
    first, new = store.current_id(replica), store.current_id(builder)
    incoming = tmp_path / "incoming"
    # Slowed down, and killed once some of the snapshot's files are in.
    rsync = subprocess.Popen([*RSYNC, "--bwlimit=100", f"{builder}/", f"{incoming}/"], stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: any(p.is_file() for p in incoming.glob(f"snapshots/{new}/*")),
                   "rsync to copy some of the snapshot", alive=rsync)
    finally:
        rsync.kill()
        rsync.wait()
    error = refused("publish", "--index-dir", incoming, "--to", replica)
    assert "not published" in error or "no index has been built" in error, error
    assert store.current_id(replica) == first and leftovers(replica) == []

    for _ in range(2):
        subprocess.run([*RSYNC, f"{builder}/", f"{incoming}/"], check=True, timeout=60)
        out = topichub("publish", "--index-dir", incoming, "--to", replica)
        assert store.current_id(replica) == new and health(replica)[0] == 200
    assert "already served; 0.0 MB copied" in out


def test_rollback_goes_back_one_snapshot_at_a_time_and_refuses_a_damaged_one(builder, replica):
    first = store.current_id(replica)
    topichub("publish", "--index-dir", builder, "--to", replica)
    new = store.current_id(replica)
    client = create_app({"INDEX_DIR": str(replica), "TESTING": True}).test_client()
    assert numbats(client) == (new, 1)

    assert topichub("rollback", "--index-dir", replica).strip() == f"rolled back from snapshot {new} to {first} in {replica}"
    assert numbats(client) == (first, 0)
    assert "nothing to roll back to" in refused("rollback", "--index-dir", replica)
    topichub("publish", "--index-dir", builder, "--to", replica)  # forward again: nothing copied
    assert numbats(client) == (new, 1)

    _damage_flipped(store.snapshots_dir(replica) / first)
    assert "does not match its checksum" in refused("rollback", "--index-dir", replica)
    assert store.current_id(replica) == new


def test_rollback_skips_damaged_snapshots_to_the_newest_one_that_verifies(builder, tmp_path):
    topichub("update", write_jsonl(tmp_path / "more.jsonl", [{**NEW, "id": "more-numbats"}]), "--index-dir", builder)
    oldest, middle, newest = (store.snapshots_dir(builder) / name for name in store.snapshot_ids(builder))
    pristine = shutil.copytree(oldest, tmp_path / "pristine")
    _damage_flipped(middle)
    _damage_flipped(oldest)

    error = refused("rollback", "--index-dir", builder)  # none verifies: each is named, nothing moves
    assert f"no snapshot older than {newest.name} in {builder} can be rolled back to" in error, error
    assert f"snapshot {middle.name} is damaged" in error and f"snapshot {oldest.name} is damaged" in error
    assert store.current_id(builder) == newest.name

    shutil.rmtree(oldest)
    shutil.copytree(pristine, oldest)
    result = run("rollback", "--index-dir", builder)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"rolled back from snapshot {newest.name} to {oldest.name} in {builder}"
    assert f"skipped a snapshot: damaged: snapshot {middle.name} is damaged" in result.stderr, result.stderr
    assert store.current_id(builder) == oldest.name and health(builder)[0] == 200


def _built_by_other_code(snap: Path) -> int:
    """Make *snap* a whole snapshot of the schema version before this code's (as kept from before a code
    upgrade): its snapshot.json says so, and its manifest agrees; return that version."""
    import index.schema

    meta = json.loads((snap / store.META_FILE).read_text(encoding="utf-8"))
    meta["schema_version"] = index.schema.SCHEMA_VERSION - 1
    (snap / store.META_FILE).write_text(json.dumps(meta), encoding="utf-8")
    store.write_meta(snap, store._manifest(snap), store.MANIFEST_FILE)
    return meta["schema_version"]


def test_rollback_skips_a_snapshot_of_another_schema_version_and_rollback_to_refuses_it(builder, tmp_path):
    # Right after a code upgrade the snapshot before was of the old schema: a rollback switched to it,
    # every worker refused it and served an even older one, /healthz 503 degraded (a QA pass).
    import index.schema

    topichub("update", write_jsonl(tmp_path / "more.jsonl", [{**NEW, "id": "more-numbats"}]), "--index-dir", builder)
    oldest, middle, newest = store.snapshot_ids(builder)
    old = _built_by_other_code(store.snapshots_dir(builder) / middle)

    result = run("rollback", "--index-dir", builder)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"rolled back from snapshot {newest} to {oldest} in {builder}"
    assert result.stderr.strip() == (
        f"warning: rollback skipped a snapshot: another schema version: snapshot {middle} (schema version {old}) was built "
        f"by other code; this code serves schema version {index.schema.SCHEMA_VERSION} only"), result.stderr
    assert store.current_id(builder) == oldest and health(builder)[0] == 200

    error = refused("rollback", "--index-dir", builder, "--to", middle)
    assert error.strip() == (
        f"Error: snapshot {middle} was built with schema version {old}, this code serves "
        f"{index.schema.SCHEMA_VERSION}: the service would refuse it; nothing was rolled back (build the index "
        "again with this code instead)"), error
    assert store.current_id(builder) == oldest

    # None left: each named, nothing moves.
    assert run("rollback", "--to", newest, "--index-dir", builder).returncode == 0
    _built_by_other_code(store.snapshots_dir(builder) / oldest)
    error = refused("rollback", "--index-dir", builder)
    assert f"snapshots {middle} (schema version {old}), {oldest} (schema version {old}) were built by other code" in error
    assert len(error.strip().splitlines()) == 1 and store.current_id(builder) == newest, error


def test_publish_refuses_a_snapshot_of_another_schema_version_and_leaves_the_replica_untouched(builder, replica):
    # It was copied, switched to and said published; the replica's workers refused it (503 degraded, a QA pass).
    import index.schema

    served, kept = store.current_id(replica), store.snapshot_ids(replica)
    new = store.current_id(builder)
    old = _built_by_other_code(store.snapshots_dir(builder) / new)
    error = refused("publish", "--index-dir", builder, "--to", replica)
    assert error.strip() == (
        f"Error: snapshot {new} in {builder} was built with schema version {old}, this code serves "
        f"{index.schema.SCHEMA_VERSION}: not published, a replica would refuse it; build the index again with this "
        f"code (`topichub build SOURCES --index-dir {builder}`) and publish that"), error
    assert store.current_id(replica) == served and store.snapshot_ids(replica) == kept and leftovers(replica) == []
    with pytest.raises(store.IndexUnavailable, match=f"schema version {old}"):  # the store's own callers too
        store.publish_to(builder, replica)
    assert store.current_id(replica) == served and health(replica)[0] == 200


def test_a_rollback_never_brings_back_the_snapshot_it_took_back(builder, tmp_path):
    # S0 (seed), S1 (+numbat); roll back to S0, update S0 (+other), roll back: S0 again, not S1.
    bad = store.current_id(builder)
    topichub("rollback", "--index-dir", builder)
    good = store.current_id(builder)
    topichub("update", write_jsonl(tmp_path / "fix.jsonl", [{**NEW, "id": "other-fix", "title": "Quokka"}]),
             "--index-dir", builder)
    fixed = store.current_id(builder)
    client = create_app({"INDEX_DIR": str(builder), "TESTING": True}).test_client()
    assert numbats(client) == (fixed, 1)  # the fix holds the quokka, whose summary names a numbat

    result = run("rollback", "--index-dir", builder)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"rolled back from snapshot {fixed} to {good} in {builder}"
    assert f"skipped a snapshot: snapshot {bad} was rolled back from at " in result.stderr, result.stderr
    assert numbats(client) == (good, 0)
    assert "nothing to roll back to" in refused("rollback", "--index-dir", builder)  # S0 is the oldest
    # The fix, made from a snapshot served by a rollback, took none of its notes (stepped_back.json was
    # copied and listed, and served again it was "missing its file stepped_back.json": refused; a QA pass).
    assert run("rollback", "--to", fixed, "--index-dir", builder).returncode == 0
    assert numbats(client) == (fixed, 1)
    assert client.get("/healthz").get_json()["status"] == "ok"
    assert not set(json.loads((store.snapshots_dir(builder) / fixed / store.MANIFEST_FILE).read_text())) & store.NOTES


def test_a_prune_deletes_a_withdrawn_snapshot_before_a_good_one_and_rollback_to_moves_forward(builder, tmp_path):
    # S0 (good), S1 (+numbat); rollback to S0; two updates of S0: S2, S3.  Keeping two besides S3 kept
    # the withdrawn S1 and deleted S0, the good build the fixes were made from.
    good, bad = store.snapshot_ids(builder)
    topichub("rollback", "--index-dir", builder)
    for n in range(2):
        topichub("update", write_jsonl(tmp_path / f"fix{n}.jsonl", [{**NEW, "id": f"fix-{n}", "title": "Quokka"}]),
                 "--index-dir", builder)
    fix1, fix2 = store.snapshot_ids(builder)[-2:]
    assert store.snapshot_ids(builder) == [good, fix1, fix2] and bad not in store.snapshot_ids(builder)

    # Back, then forward again on this host (publish has nothing to copy here): --to names a kept one.
    assert topichub("rollback", "--index-dir", builder).strip() == f"rolled back from snapshot {fix2} to {fix1} in {builder}"
    assert topichub("rollback", "--index-dir", builder, "--to", fix2).strip() == (
        f"moved forward from snapshot {fix1} to {fix2} in {builder}")
    assert store.current_id(builder) == fix2 and store.withdrawn(store.snapshots_dir(builder) / fix2) is None
    assert store.withdrawn(store.snapshots_dir(builder) / fix1) is None  # left for a newer one: not taken back
    assert "no snapshot nope is kept" in refused("rollback", "--index-dir", builder, "--to", "nope")
    assert "is the one served" in refused("rollback", "--index-dir", builder, "--to", fix2)
    _damage_flipped(store.snapshots_dir(builder) / good)
    assert "does not match its checksum" in refused("rollback", "--index-dir", builder, "--to", good)
    assert store.current_id(builder) == fix2


def test_a_snapshot_rolled_back_from_is_never_the_fallback_for_a_damaged_one(builder, tmp_path):
    # S0 good, S1 bad (rolled back from), S2 a fix of S0; S2 damaged: the workers served S1 again.
    good, bad = store.snapshot_ids(builder)
    topichub("rollback", "--index-dir", builder)
    topichub("update", write_jsonl(tmp_path / "fix.jsonl", [{**NEW, "id": "fix", "title": "Quokka"}]), "--index-dir", builder)
    _damage_flipped(store.current_path(builder))
    status, body = health(builder)
    assert status == 503 and body["snapshot"] == good, body


def test_a_rollback_from_a_current_folder_deleted_by_hand_and_one_that_cannot_write_its_note(builder, monkeypatch):
    # serve's warning says to run rollback: it stopped at "the published snapshot … is missing".
    good, gone = store.snapshot_ids(builder)
    shutil.rmtree(store.snapshots_dir(builder) / gone)
    assert topichub("rollback", "--index-dir", builder).strip() == f"rolled back from snapshot {gone} to {good} in {builder}"
    assert store.current_id(builder) == good
    (builder / "current").unlink()
    # A free port: on 8000, the default, a reader's `make run` beside the tests made this "cannot listen".
    assert "no current link" in refused("serve", "--index-dir", builder, "--port", str(free_port()))  # not the bundled corpus built over it
    # search and a plain rollback said "no index has been built": the same way out as serve's, instead.
    for command in (("search", "quokka"), ("rollback",)):
        said = refused(*command, "--index-dir", builder)
        assert "no current link" in said and f"rollback --to SNAPSHOT --index-dir {builder}" in said, command
    assert topichub("rollback", "--to", good, "--index-dir", builder).strip() == f"now serving snapshot {good} in {builder} (none was current)"


def test_with_no_current_link_the_hint_names_no_snapshot_rolled_back_from(builder):
    # "the newest is S1" named the snapshot the operator had just rolled back from (a QA pass).
    good, bad = store.snapshot_ids(builder)
    topichub("rollback", "--index-dir", builder)
    (builder / "current").unlink()
    said = refused("search", "quokka", "--index-dir", builder)
    assert f"the newest not rolled back from is {good}" in said and bad not in said, said


def test_a_step_back_that_cannot_write_its_note_moves_nothing(builder, monkeypatch):
    new = store.current_id(builder)
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(store, "write_meta", full)
    result = CliRunner().invoke(main, ["rollback", "--index-dir", str(builder)])
    assert result.exit_code == 1 and "[Errno 28]" in result.output
    assert store.current_id(builder) == new and store.withdrawn(store.snapshots_dir(builder) / new) is None


def test_a_replica_given_an_older_snapshot_withdraws_the_newer_and_a_publish_restores_it(builder, replica):
    first = store.current_id(replica)
    topichub("publish", "--index-dir", builder, "--to", replica)
    new = store.current_id(replica)
    topichub("rollback", "--index-dir", builder)  # the builder takes its last snapshot back...
    topichub("publish", "--index-dir", builder, "--to", replica)  # ...and the replica follows
    assert store.current_id(replica) == first
    assert store.withdrawn(store.snapshots_dir(replica) / new) is not None
    assert store.withdrawn(store.snapshots_dir(replica) / first) is None

    store._serve(replica, new, first)  # served again on purpose (as publish does): no longer withdrawn
    assert store.withdrawn(store.snapshots_dir(replica) / new) is None
    assert store.withdrawn(store.snapshots_dir(replica) / first) is None  # newer replaced older: not a step back


def test_an_update_of_a_published_copy_is_no_longer_a_copy(builder, replica, tmp_path):
    # As on a replica, or on a folder restored from a backup with publish (docs/operations.md).
    topichub("update", write_jsonl(tmp_path / "here.jsonl", [{**NEW, "id": "local-numbat"}]), "--index-dir", replica)
    assert not (store.current_path(replica) / store.ORIGIN_FILE).exists()
    status, body = health(replica)
    assert status == 200 and "replica" not in body and body["sources_changed"] is False
    assert body["snapshot"] == store.current_id(replica) and body["updated_at"]


@pytest.mark.parametrize("moment", ["after-link", "after-swap"])
def test_a_rollback_killed_at_any_step_serves_one_of_the_two_snapshots(builder, replica, moment):
    first = store.current_id(replica)
    topichub("publish", "--index-dir", builder, "--to", replica)
    new = store.current_id(replica)
    killed(moment, "rollback", "--index-dir", replica)
    assert store.current_id(replica) == (first if moment == "after-swap" else new)
    assert health(replica)[0] == 200
    topichub("prune", "--index-dir", replica)  # the next writer clears what the killed one left
    assert leftovers(replica) == []


def test_prune_keeps_the_served_snapshot_even_after_a_rollback(builder, tmp_path):
    for n in range(3):
        topichub("update", write_jsonl(tmp_path / f"more{n}.jsonl", [{**NEW, "id": f"more-{n}"}]), "--index-dir", builder)
    snapshots = store.snapshot_ids(builder)
    assert len(snapshots) == 3  # the build keeps two besides the served one
    topichub("rollback", "--index-dir", builder)
    topichub("rollback", "--index-dir", builder)
    oldest = store.current_id(builder)
    assert oldest == snapshots[0]

    assert topichub("prune", "--index-dir", builder, "--keep", 1).strip() == f"removed 1 snapshot: {snapshots[1]}"
    assert store.snapshot_ids(builder) == [snapshots[0], snapshots[2]]
    topichub("prune", "--index-dir", builder, "--keep", 0)
    assert store.snapshot_ids(builder) == [oldest] and store.current_id(builder) == oldest
    assert health(builder)[0] == 200


def test_a_prune_killed_mid_delete_leaves_no_half_snapshot(builder, replica):
    first = store.current_id(replica)
    topichub("publish", "--index-dir", builder, "--to", replica)
    killed("mid-delete", "prune", "--index-dir", replica, "--keep", 0)
    assert store.snapshot_ids(replica) == [store.current_id(builder)]  # the old one is gone whole
    assert leftovers(replica) == [f".tmp-pruned-{first}"]
    assert "nothing to roll back to" in refused("rollback", "--index-dir", replica)
    assert leftovers(replica) == []  # cleared by the next writer


def test_a_replica_refuses_a_damaged_snapshot_and_keeps_serving_the_last_good_one(builder, replica):
    first, new = store.current_id(replica), store.current_id(builder)
    client = create_app({"INDEX_DIR": str(replica), "TESTING": True}).test_client()
    assert numbats(client) == (first, 0)

    # By hand, as the old instructions did: a copy with a flipped bit, linked without a check.
    shutil.copytree(store.snapshots_dir(builder) / new, store.snapshots_dir(replica) / new)
    _damage_flipped(store.snapshots_dir(replica) / new)
    (replica / "next").symlink_to(Path("snapshots") / new)
    (replica / "next").replace(replica / "current")

    for app_client in (client, create_app({"INDEX_DIR": str(replica), "TESTING": True}).test_client()):
        # The worker that had it open, and a fresh one that must find the last good one on disk.
        assert numbats(app_client) == (first, 0)
        response = app_client.get("/healthz")
        body = response.get_json()
        assert response.status_code == 503 and body["status"] == "degraded"
        assert body["refused"] == new and body["snapshot"] == first
        assert "does not match its checksum" in body["reason"]

    topichub("rollback", "--index-dir", replica)  # back to the good one: healthy again
    assert client.get("/healthz").status_code == 200 and numbats(client) == (first, 0)
    topichub("publish", "--index-dir", builder, "--to", replica)  # replaces the damaged copy
    assert numbats(client) == (new, 1)
    assert client.get("/healthz").status_code == 200


@pytest.mark.parametrize("cut", ["segment cut short", "segment rewritten"])
def test_a_snapshot_damaged_under_a_running_worker_is_refused_not_a_500_on_every_search(builder, cut):
    # A segment file of the open snapshot cut short (a restore or a disk gone wrong) gave Whoosh's
    # "Block tag error" and a KeyError: a 500 on every search and page touching it, /healthz "ok".
    first, new = store.older_snapshots(builder, store.current_id(builder))[0], store.current_id(builder)
    client = create_app({"INDEX_DIR": str(builder), "TESTING": True}).test_client()
    assert numbats(client) == (new, 1)  # opened
    segment = max(store.snapshots_dir(builder).joinpath(new).glob("*.pst"), key=lambda p: p.stat().st_size)
    if cut == "segment cut short":
        segment.write_bytes(segment.read_bytes()[:100])
    else:  # same size, other bytes: only the checksums tell
        segment.write_bytes(bytes(segment.stat().st_size))
    statuses = [client.get(url).status_code for url in ("/api/search?q=gpu", "/?q=texas", "/api/search?q=chips")]
    assert 500 not in statuses and statuses[0] == 503, statuses
    assert numbats(client) == (first, 0)  # the last good snapshot answers, without a restart
    body = client.get("/healthz").get_json()
    assert body["status"] == "degraded" and body["refused"] == new and body["snapshot"] == first
    topichub("rollback", "--index-dir", builder)  # what the operator does: healthy again
    assert client.get("/healthz").status_code == 200 and numbats(client) == (first, 0)


def test_a_refusal_of_a_snapshot_no_longer_published_leaves_healthz_ok(builder, tmp_path, monkeypatch):
    # A QA pass: a published snapshot cut short under a running server, refused; `rollback`, then a good
    # `update`. Polling /healthz every 0.1 s gave 5 x degraded, refused=<the withdrawn snapshot>, before
    # ok: the worker, still on the last good snapshot while it opened the update's beside the requests,
    # kept the refusal of one no longer published (a load balancer's 2-failure rule took it out).
    monkeypatch.setattr("search.service.OPEN_INLINE_DOCS", 0)  # each publish opened beside, as at 64k
    first, new = store.older_snapshots(builder, store.current_id(builder))[0], store.current_id(builder)
    client = create_app({"INDEX_DIR": str(builder), "TESTING": True}).test_client()
    assert numbats(client) == (new, 1)
    segment = max(store.snapshots_dir(builder).joinpath(new).glob("*.pst"), key=lambda p: p.stat().st_size)
    segment.write_bytes(segment.read_bytes()[:100])
    assert client.get("/api/search?q=gpu").status_code == 503  # refused while it answered
    assert numbats(client) == (first, 0)
    assert client.get("/healthz").get_json()["refused"] == new  # published, refused: degraded
    topichub("rollback", "--index-dir", builder)  # withdrawn; no request reaches the worker before...
    topichub("update", write_jsonl(tmp_path / "more.jsonl", [{**NEW, "id": "quokka-cluster", "title": "Quokka"}]),
             "--index-dir", builder)  # ...a good update, published
    response = client.get("/healthz")
    body = response.get_json()
    assert response.status_code == 200 and body["status"] == "ok" and "refused" not in body, body
    assert body["snapshot"] in (first, store.current_id(builder))  # the one it had open, or the update's
    wait_until(lambda: client.get("/healthz").get_json()["snapshot"] == store.current_id(builder), "the update served")
    assert client.get("/healthz").status_code == 200
