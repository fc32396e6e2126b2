"""A build, update, publish or serve's first build stopped by SIGTERM (systemd, docker stop, Kubernetes),
SIGINT (Ctrl-C) or SIGHUP (its terminal closed) stops at its next safe point: one Error line, exit 128 + the signal, its temporary
folder removed, its indexing processes ended, the lock released and the published snapshot serving.
They exited 143 with no word, a .tmp- folder left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.servers import free_port
from index import store
from index.update import update
from search.params import SearchParams
from search.service import SearchService
from tests.conftest import AFTER_STEP, REPO, leftovers, write_jsonl

SEED = REPO / "corpus" / "data"
NEW = {"id": "numbat-cluster", "title": "Numbat cluster opens", "summary": "A numbat-named GPU cluster.",
       "topics": ["training-infrastructure"]}

# The command signals itself once it reaches the named moment, then carries on as it would.
SIGNAL_AT = """
import os, shutil, signal, sys
from pathlib import Path
import corpus.sources
import index.build
from index import store
from web.cli import main

sig = getattr(signal, sys.argv[2])
if os.environ.get("IGNORED") == sys.argv[2]:  # as nohup (SIGHUP) or a script's background job (SIGINT) start it
    signal.signal(sig, signal.SIG_IGN)
sent = []

def send():
    if not sent:
        sent.append(True)
        os.kill(os.getpid(), sig)

act = send

def told(real, what):  # says on stderr that the command went on with *what* after the signal
    def step(*args, **kwargs):
        if sent:
            print(f"after the signal: {what}", file=sys.stderr)
        return real(*args, **kwargs)
    return step
""" + AFTER_STEP + """
moment = sys.argv[1]
if moment == "reading":
    corpus.sources.load_corpus = after(corpus.sources.load_corpus)
elif moment == "checksumming":  # the published snapshot's first file, read for what it knows of each id
    store._digest = after(store._digest)
    index.build.whoosh_index.open_dir = told(index.build.whoosh_index.open_dir, "opened the published index")
elif moment == "knowing":  # the published snapshot's first document
    index.build.content_digest = told(after(index.build.content_digest), "read another document")
elif moment == "indexing":
    index.build.indexed = after(index.build.indexed, when=lambda record, order, *rest: order == 10)
elif moment == "waiting":  # for the lock another writer holds (--wait)
    store.time.sleep = after(store.time.sleep)
elif moment == "copying":
    store.shutil.copy2 = after(shutil.copy2)
elif moment == "publishing":
    store.os.rename = after(os.rename, when=lambda src, dst: Path(dst).parent.name == "snapshots")
main(sys.argv[3:])
"""

STOPPED = "the live index is untouched, nothing was published"


def as_from_a_terminal() -> None:
    """Give a started command SIGINT and SIGHUP as a shell's foreground job has them, however the suite was
    launched: a background job or nohup starts with them ignored, and a build keeps a signal it finds ignored."""
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def signalled(moment: str, sig: str, *args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SIGNAL_AT, moment, sig, *map(str, args)], cwd=REPO, capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})}, preexec_fn=as_from_a_terminal)


def errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("Error:")]


def stars(root: Path) -> tuple[str, list[str]]:
    """Return the snapshot that answers a search, and the ids it finds."""
    result = SearchService(root).search(SearchParams(q="stargate"))
    return result.snapshot, [hit.id for hit in result.hits]


def assert_stopped(proc: subprocess.CompletedProcess, doing: str, sig: str, root: Path, before: tuple[str, list[str]]) -> None:
    assert proc.returncode == 128 + getattr(signal, sig), proc.stderr
    assert errors(proc.stderr) == [f"Error: {doing} stopped by {sig}; {STOPPED}"], proc.stderr
    assert "Traceback" not in proc.stderr and "published snapshot" not in proc.stdout + proc.stderr
    assert leftovers(root) == [] and list(root.glob(".publishing-*")) == []
    assert stars(root) == before and before[1]
    with store.write_lock(root):  # released
        pass


@pytest.fixture()
def published(tmp_path) -> tuple[Path, tuple[str, list[str]]]:
    root = tmp_path / "index"
    subprocess.run([sys.executable, "-m", "web.cli", "build", SEED, "--index-dir", root, "--procs", "1"], cwd=REPO,
                   check=True, capture_output=True, timeout=120)
    return root, stars(root)


@pytest.mark.parametrize(("sig", "moment"), [(sig, moment) for sig in ("SIGTERM", "SIGINT") for moment in ("reading", "indexing", "publishing")]
                         + [("SIGHUP", "indexing")])
def test_a_build_told_to_stop_stops_in_one_line_and_publishes_nothing(published, moment, sig):
    root, before = published
    proc = signalled(moment, sig, "build", SEED, "--index-dir", root, "--procs", 1)
    assert_stopped(proc, "build", sig, root, before)
    assert store.snapshot_ids(root) == [before[0]]


@pytest.mark.parametrize("moment", ["checksumming", "knowing"])
def test_a_build_told_to_stop_while_it_reads_the_published_snapshot_stops_there(published, moment):
    # QA: at 64k, Ctrl-C took 4-5 s to stop a build that was checksumming and reading the published
    # snapshot (for its documents' first-seen dates) to its end: the next file or document is not read.
    root, before = published
    proc = signalled(moment, "SIGINT", "build", SEED, "--index-dir", root, "--procs", 1)
    assert "after the signal" not in proc.stderr, proc.stderr
    assert_stopped(proc, "build", "SIGINT", root, before)
    assert store.snapshot_ids(root) == [before[0]]


@pytest.mark.parametrize("sig", ["SIGHUP", "SIGINT"])
def test_a_build_started_ignoring_a_signal_runs_on_through_it(published, sig):
    # `nohup topichub build …` whose terminal then closes; a script's background job when Ctrl-C is pressed
    root, before = published
    proc = signalled("indexing", sig, "build", SEED, "--index-dir", root, "--procs", 1, env={"IGNORED": sig})
    assert proc.returncode == 0 and errors(proc.stderr) == [], proc.stderr
    assert store.current_id(root) != before[0] and len(store.snapshot_ids(root)) == 2
    assert stars(root)[1] == before[1]


def test_a_build_told_to_stop_while_it_waits_for_the_lock_stops_in_one_line(published):
    root, before = published
    with store.write_lock(root):
        proc = signalled("waiting", "SIGTERM", "build", SEED, "--index-dir", root, "--procs", 1, "--wait", 60)
    assert_stopped(proc, "build", "SIGTERM", root, before)


@pytest.mark.parametrize(("command", "undone"), [("prune", "nothing was removed"), ("rollback", "nothing was rolled back")])
def test_a_prune_or_rollback_told_to_stop_while_it_waits_for_the_lock_stops_in_one_line(published, command, undone):
    # They died by SIGTERM without a word, where a build and an update said so (a QA pass).
    root, before = published
    with store.write_lock(root):
        proc = signalled("waiting", "SIGTERM", command, "--index-dir", root, "--wait", 60)
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr
    assert errors(proc.stderr) == [f"Error: {command} stopped by SIGTERM; the live index is untouched, {undone}"], proc.stderr
    assert stars(root) == before


@pytest.mark.parametrize("moment", ["copying", "publishing"])
def test_an_update_told_to_stop_stops_in_one_line_and_publishes_nothing(published, tmp_path, moment):
    root, before = published
    proc = signalled(moment, "SIGTERM", "update", write_jsonl(tmp_path / "new.jsonl", [NEW]), "--index-dir", root)
    assert_stopped(proc, "update", "SIGTERM", root, before)
    assert SearchService(root).search(SearchParams(q="numbat")).total == 0


def test_a_publish_told_to_stop_mid_copy_stops_in_one_line_and_the_replica_keeps_serving(published, tmp_path):
    root, before = published
    replica = tmp_path / "replica"
    store.publish_to(root, replica)
    update(write_jsonl(tmp_path / "new.jsonl", [NEW]), root)
    proc = signalled("copying", "SIGTERM", "publish", "--index-dir", root, "--to", replica)
    assert proc.returncode == 143, proc.stderr
    assert errors(proc.stderr) == [f"Error: publish stopped by SIGTERM; {replica} serves what it served, nothing was "
                                   "published there"], proc.stderr
    assert "Traceback" not in proc.stderr and leftovers(replica) == [] and list(replica.glob(".publishing-*")) == []
    assert stars(replica) == before
    store.publish_to(root, replica)  # the next one copies it whole
    assert store.current_id(replica) == store.current_id(root)


def test_serve_told_to_stop_during_its_first_build_stops_without_serving(tmp_path):
    root = tmp_path / "index"
    proc = signalled("indexing", "SIGTERM", "serve", "--index-dir", root, "--port", free_port(), env={"TOPICHUB_CORPUS": str(SEED)})
    assert proc.returncode == 143, proc.stderr
    # No live index to leave untouched: a first build (the QA pass of stop 52 read "the live index is untouched").
    assert errors(proc.stderr) == [f"Error: build stopped by SIGTERM; no index has been built in {root} yet, nothing was published"], proc.stderr
    assert "Traceback" not in proc.stderr and "serving on" not in proc.stderr
    assert store.current_id(root) is None and leftovers(root) == []


def children(pid: int) -> set[int]:
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found |= {int(n) for n in (task / "children").read_text().split()}
        except FileNotFoundError:
            pass  # a thread that ended meanwhile (tqdm's monitor)
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "to_group"), [("SIGTERM", False), ("SIGINT", True)])
def test_a_large_build_stopped_while_its_processes_index_ends_them_and_publishes_nothing(published, tmp_path, sig, to_group):
    # SIGTERM to the build alone (docker stop, kill PID); SIGINT to its process group (Ctrl-C), its
    # indexing processes included.
    root, before = published
    corpus = tmp_path / "large.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"widget-{n}", "title": f"Widget {n}", "summary": f"Widget number {n}, a small gadget.",
                                          "topics": ["training-infrastructure"]}) + "\n" for n in range(40_000)))
    build = subprocess.Popen([sys.executable, "-m", "web.cli", "build", corpus, "--index-dir", root, "--procs", "2"], cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             preexec_fn=as_from_a_terminal)
    try:
        deadline = time.monotonic() + 60
        while not (list(store.snapshots_dir(root).glob(".tmp-*")) and len(workers := children(build.pid)) == 2):
            assert build.poll() is None and time.monotonic() < deadline, build.communicate()
            time.sleep(0.01)
        if to_group:
            os.killpg(build.pid, getattr(signal, sig))
        else:
            build.send_signal(getattr(signal, sig))
        out, err = build.communicate(timeout=60)
    finally:
        if build.poll() is None:
            build.kill()
    assert_stopped(subprocess.CompletedProcess(build.args, build.returncode, out, err), "build", sig, root, before)
    assert not any(alive(pid) for pid in workers)
    assert store.snapshot_ids(root) == [before[0]]

    again = subprocess.run([sys.executable, "-m", "web.cli", "build", corpus, "--index-dir", root, "--procs", "2"], cwd=REPO,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert SearchService(root).search(SearchParams(q="widget")).total == 40_000


def test_a_rollback_told_to_stop_while_it_waits_for_the_next_second_writes_no_note(published, tmp_path, monkeypatch):
    # A switch in the second of the one before waits for the next; the wait came after a rollback wrote
    # that it withdrew the snapshot served, so a writer killed in it left the served snapshot withdrawn,
    # and a later prune deleted it first (a review).  Now the wait comes first, and a stop in it stops
    # the rollback before anything is written.
    import types

    root, before = published
    update(write_jsonl(tmp_path / "new.jsonl", [NEW]), root)
    served = store.current_id(root)
    switched = os.lstat(root / "current").st_mtime_ns

    def stopped_in_the_wait(seconds: float) -> None:
        monkeypatch.setattr(store, "_stop_signal", signal.SIGTERM)

    monkeypatch.setattr(store, "SWITCH_SECONDS_APART", True)
    monkeypatch.setattr(store, "time", types.SimpleNamespace(time_ns=lambda: switched + 1, sleep=stopped_in_the_wait, monotonic=time.monotonic))
    with pytest.raises(store.Stopped):
        store.rollback(root)
    assert store.current_id(root) == served
    assert not list(root.glob(f"snapshots/*/{store.WITHDRAWN_FILE}")) and not list(root.glob(f"snapshots/*/{store.STEPPED_BACK_FILE}"))
