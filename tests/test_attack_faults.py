"""Attack: builds killed with SIGKILL at chosen moments, two writers at once, and a missing or damaged
index.  The served index stays intact, the next build succeeds, and a broken index is a 503 that
heals itself after a rebuild, without a restart."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import pytest

from index import store
from index.build import build, build_corpus
from tests.attack_support import children, hostile, open_paths, proc_stat  # noqa: F401 - fixture
from tests.conftest import REPO, debian_lines, leftovers
from tests.waiting import wait_until
from web import create_app
from web.errors import UNAVAILABLE_MESSAGE

pytestmark = pytest.mark.slow  # make check leaves it out; make test and CI run it

DEBIAN_LINES = 3000


@pytest.fixture(scope="module")
def big_jsonl(tmp_path_factory) -> Path:
    """Return a JSONL file of a few thousand Debian packages: a build that takes seconds."""
    path = tmp_path_factory.mktemp("debian") / "debian.jsonl"
    path.write_text("".join(debian_lines(DEBIAN_LINES)), encoding="utf-8")
    return path


def served(client) -> tuple[str, int]:
    """Return the snapshot the app serves and how many documents a search for 'stargate' finds."""
    health = client.get("/healthz")
    assert health.status_code == 200, health.get_data(as_text=True)
    search = client.get("/api/search?q=stargate")
    assert search.status_code == 200
    return health.get_json()["snapshot"], search.get_json()["total"]


def build_process(args: list[str], stdout=subprocess.DEVNULL) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *args], cwd=REPO, stdout=stdout, stderr=subprocess.DEVNULL)


def kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL


# Moments of a build chosen by what is on disk, polled while `topichub build` runs.
def _started(root: Path) -> bool:
    return any(store.snapshots_dir(root).glob(".tmp-*"))


def _indexing(root: Path) -> bool:
    # Whoosh's pool spills sorted runs to disk as it indexes: some file beside its lock.
    return any(p.name != "MAIN_WRITELOCK" for tmp in store.snapshots_dir(root).glob(".tmp-*") for p in tmp.iterdir())


def _committing(root: Path) -> bool:
    return any(store.snapshots_dir(root).glob(".tmp-*/*.pst")) or any(store.snapshots_dir(root).glob(".tmp-*/*.toc"))


def _loading(corpus_file: Path, proc: subprocess.Popen):
    """Return a check that the build process *proc* is reading *corpus_file* (open while loading)."""
    return lambda: str(corpus_file) in open_paths(proc.pid)


MOMENTS = {"loading": None, "started": _started, "indexing": _indexing, "committing": _committing}

# Moments inside publish, reached exactly: the build kills itself right after the named step.
KILL_AFTER = """
import os, signal, sys
from pathlib import Path
from index import store
from index.build import build

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

def after(real, when=lambda *args: True):
    def step(*args, **kwargs):
        real(*args, **kwargs)
        if when(*args):
            die()
    return step

moment = sys.argv[2]
if moment == "before-rename":
    store._fsync_tree = after(store._fsync_tree)
elif moment == "after-rename":  # Whoosh renames files too: only the snapshot's own move counts
    store.os.rename = after(os.rename, when=lambda src, dst: Path(dst).parent.name == "snapshots")
elif moment == "after-link":
    store.os.symlink = after(os.symlink)
elif moment == "after-swap":
    store._prune = die
build(root=Path(sys.argv[1]))
"""


def _unpublished(root: Path) -> bool:
    names = {p.name for p in store.snapshots_dir(root).iterdir() if not p.name.startswith(".")}
    return bool(names - {store.current_id(root)})


PUBLISH_MOMENTS = {
    "before-rename": lambda root: any(store.snapshots_dir(root).glob(f".tmp-*/{store.MANIFEST_FILE}")),
    "after-rename": _unpublished,
    "after-link": lambda root: any(root.glob(".current-*")),
}


def test_kill_9_during_a_build_leaves_the_served_index_intact(tmp_path, big_jsonl, hostile):  # noqa: F811
    root = tmp_path / "index"
    build(root=root)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    before = served(client)

    for moment, reached in MOMENTS.items():
        proc = build_process(["-m", "web.cli", "build", str(big_jsonl), "--index-dir", str(root)])
        try:
            if reached is None:  # still loading the corpus: nothing on disk yet
                wait_until(_loading(big_jsonl, proc), "the build to read its corpus", alive=proc)
                assert not _started(root), "the build was past loading when it was seen loading"
            else:
                wait_until(lambda: reached(root), f"the build to be {moment}", alive=proc)
        finally:
            kill(proc)
        hostile["killed builds"] += 1
        assert served(client) == before, moment
        assert served(create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()) == before

    for moment, left in PUBLISH_MOMENTS.items():
        proc = build_process(["-c", KILL_AFTER, str(root), moment])
        assert proc.wait(timeout=60) == -signal.SIGKILL, moment
        hostile["killed builds"] += 1
        assert left(root), f"the build did not die {moment}"
        assert served(client) == before, moment
        assert store.current_id(root) == before[0]

    assert leftovers(root)  # the dead builds left their temporary folders and links behind

    # The next build takes the lock a dead build held, clears what it left and publishes.
    done = subprocess.run(
        [sys.executable, "-m", "web.cli", "build", str(big_jsonl), "--index-dir", str(root)],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert leftovers(root) == []
    after_snapshot, _ = served(client)
    assert after_snapshot != before[0]
    found = client.get("/api/search?q=strategy+game").get_json()
    assert found["total"] > 0 and all(hit["id"].startswith("deb-") for hit in found["hits"])


def test_kill_9_right_after_the_swap_serves_the_complete_new_snapshot(tmp_path, hostile):  # noqa: F811
    root = tmp_path / "index"
    build(root=root)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    old, total = served(client)
    proc = build_process(["-c", KILL_AFTER, str(root), "after-swap"])
    assert proc.wait(timeout=60) == -signal.SIGKILL
    hostile["killed builds"] += 1
    new, new_total = served(client)
    assert new != old and new_total == total
    store.check_files(store.current_path(root))
    build(root=root)
    assert leftovers(root) == []


def test_two_builds_at_once_one_writer_at_a_time(tmp_path, seed_corpus, monkeypatch):
    root = tmp_path / "index"
    started, release, second_waits = threading.Event(), threading.Event(), threading.Event()

    def waiting_sleep(seconds: float) -> None:  # the lock's retry pause: a writer found the lock taken
        second_waits.set()
        time.sleep(seconds)

    monkeypatch.setattr(store, "time", types.SimpleNamespace(monotonic=time.monotonic, sleep=waiting_sleep, time_ns=time.time_ns))
    outcome: dict[str, object] = {}

    def slow_progress(_: int) -> None:
        started.set()
        release.wait(timeout=30)

    def first() -> None:
        outcome["first"] = build_corpus(seed_corpus, root, progress=slow_progress)

    writer = threading.Thread(target=first)
    writer.start()
    try:
        assert started.wait(timeout=30)
        with pytest.raises(store.WriterBusy) as busy:
            build_corpus(seed_corpus, root)
        message = str(busy.value)
        assert "another build or update is writing" in message and str(os.getpid()) in message

        # A second writer that agrees to wait gets its turn once the first is done.
        waiting = threading.Thread(target=lambda: outcome.setdefault("second", build_corpus(seed_corpus, root, lock_wait=30)))
        waiting.start()
        assert second_waits.wait(timeout=30)
        assert "second" not in outcome
    finally:
        release.set()
        writer.join(timeout=60)
    waiting.join(timeout=60)
    assert outcome["first"].doc_count == outcome["second"].doc_count == len(seed_corpus.records)
    assert store.current_id(root) == outcome["second"].snapshot
    assert outcome["first"].snapshot != outcome["second"].snapshot


def test_a_second_build_process_is_refused_with_a_clear_message(tmp_path, big_jsonl, hostile):  # noqa: F811
    root = tmp_path / "index"
    proc = build_process(["-m", "web.cli", "build", str(big_jsonl), "--index-dir", str(root)])
    try:
        wait_until(lambda: _started(root), "the build to start", alive=proc)
        # Hold the build with its lock taken: a build of a few thousand documents can end before a
        # second Python process has started.
        proc.send_signal(signal.SIGSTOP)
        assert proc.poll() is None and _started(root), "the build ended before it could be held"
        second = subprocess.run(
            [sys.executable, "-m", "web.cli", "build", "--index-dir", str(root)],
            cwd=REPO, capture_output=True, text=True, timeout=60,
        )
        assert second.returncode == 1
        assert f"another build or update is writing {root} (process {proc.pid})" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        kill(proc)
    hostile["killed builds"] += 1


# -- a missing or damaged index ----------------------------------------------------------------


def _garble(path: Path) -> None:
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 16] = bytes(b ^ 0xFF for b in data[middle : middle + 16])
    path.write_bytes(bytes(data))


def _snapshot(root: Path) -> Path:
    return store.current_path(root)


DAMAGE = {
    "no current link": lambda root: (root / "current").unlink(),
    "current points nowhere": lambda root: (root / "current").unlink() or os.symlink("snapshots/gone", root / "current"),
    "current is a plain file": lambda root: (root / "current").unlink() or (root / "current").write_text("x"),
    "snapshot folder deleted": lambda root: shutil.rmtree(_snapshot(root)),
    "snapshot.json garbled": lambda root: (_snapshot(root) / store.META_FILE).write_text("{not json"),
    "segment emptied": lambda root: next(_snapshot(root).glob("*.pst")).write_bytes(b""),
    "segment cut in half": lambda root: [
        f.write_bytes(f.read_bytes()[: f.stat().st_size // 2]) for f in _snapshot(root).glob("*.pst")
    ],
    "segment garbled": lambda root: _garble(next(_snapshot(root).glob("*.pst"))),
    "table of contents emptied": lambda root: next(_snapshot(root).glob("*.toc")).write_bytes(b""),
    "table of contents garbled": lambda root: _garble(next(_snapshot(root).glob("*.toc"))),
    "file manifest garbled": lambda root: (_snapshot(root) / store.MANIFEST_FILE).write_text("[1"),
}


def assert_unavailable(client) -> None:
    for url in ("/api/search?q=stargate", "/api/search", "/"):
        response = client.get(url)
        assert response.status_code == 503, (url, response.get_data(as_text=True)[:300])
        assert response.headers["Retry-After"]
        if url.startswith("/api/"):
            assert response.get_json()["error"] == {"code": "index_unavailable", "message": UNAVAILABLE_MESSAGE}
        else:
            assert response.mimetype == "text/html"
            assert UNAVAILABLE_MESSAGE in response.get_data(as_text=True)
    for url in ("/events/expanding-stargate-to-michigan", "/guides/training-infrastructure"):
        assert client.get(url).status_code == 503
    health = client.get("/healthz")
    assert health.status_code == 503 and health.get_json()["status"] == "degraded" and health.headers["Retry-After"]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("pristine") / "index"
    build(root=root)
    return root


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_missing_or_damaged_index_is_a_503_that_heals_after_a_rebuild(tmp_path, pristine, hostile, damage):  # noqa: F811
    root = tmp_path / "index"
    shutil.copytree(pristine, root, symlinks=True)
    kept = store.current_id(root)
    DAMAGE[damage](root)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    if damage == "current points nowhere":
        # A good snapshot is still kept beside the folder current names: it answers, and the health
        # check says degraded (the load balancer takes the host out until a good one is published).
        for _ in range(2):
            search = client.get("/api/search?q=stargate")
            assert search.status_code == 200 and search.get_json()["snapshot"] == kept
            health = client.get("/healthz")
            assert health.status_code == 503 and health.get_json()["status"] == "degraded"
            assert health.get_json()["refused"] == "gone" and health.get_json()["snapshot"] == kept
    else:
        assert_unavailable(client)
        assert_unavailable(client)  # a second look does not turn a 503 into something else
    hostile["damaged index"] += 12

    build(root=root)
    snapshot, total = served(client)  # the same app, not restarted
    assert snapshot == store.current_id(root) and total > 0


def test_an_index_never_built_is_a_503_until_the_first_build(tmp_path):
    root = tmp_path / "index"
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    assert_unavailable(client)
    build(root=root)
    assert served(client)[1] > 0


def test_the_current_link_removed_under_a_running_app(tmp_path):
    root = tmp_path / "index"
    build(root=root)
    client = create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client()
    served(client)
    target = os.readlink(root / "current")
    (root / "current").unlink()
    assert_unavailable(client)
    os.symlink(target, root / "current")
    assert served(client)[1] > 0


def _cpu_seconds(pid: int) -> float:
    """Return the CPU time *pid* has used (user + system), 0 once it has gone."""
    fields = proc_stat(pid)
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _alive(pid: int) -> bool:
    fields = proc_stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")  # a zombie has exited; only its parent has not collected it


def test_killing_a_parallel_build_ends_its_indexing_processes_and_frees_the_lock(tmp_path, hostile):  # noqa: F811
    # Enough documents that the indexing processes would run on for seconds after their parent.
    bigger = tmp_path / "debian.jsonl"
    bigger.write_text("".join(debian_lines(40_000)), encoding="utf-8")
    root = tmp_path / "index"
    build(root=root)
    before = served(create_app({"INDEX_DIR": str(root), "TESTING": True}).test_client())
    proc = build_process(["-m", "web.cli", "build", str(bigger), "--index-dir", str(root), "--procs", "2"])
    try:
        wait_until(lambda: len(children(proc.pid)) == 2, "two indexing processes", alive=proc)
        workers = children(proc.pid)
        # Once they are indexing (past setting their parent-death signal, the first thing they do),
        # stopped, they cannot finish their share and end on their own: only their parent's death can
        # end them now (the kernel's SIGKILL reaches a stopped process).
        wait_until(lambda: all(_cpu_seconds(worker) >= 0.2 for worker in workers), "both to be indexing", alive=proc)
        for worker in workers:
            os.kill(worker, signal.SIGSTOP)
    finally:
        kill(proc)
    hostile["killed builds"] += 1
    wait_until(lambda: not any(map(_alive, workers)), "the indexing processes to end with their build")
    # Nothing holds the lock now: the next build starts at once (no --wait) and publishes.
    done = subprocess.run(
        [sys.executable, "-m", "web.cli", "build", str(bigger), "--index-dir", str(root), "--procs", "2"],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert store.current_id(root) != before[0]
