"""Snapshots on disk: where the live index is, and how a new one is published.

Layout of an index folder::

    current -> snapshots/<id>      a symlink, swapped with os.replace (atomic on POSIX)
    snapshots/<id>/                a committed Whoosh index plus snapshot.json
    snapshots/.tmp-<id>/           a build in progress (removed by the next build if it died)
    .write.lock                    held by the one writer (fcntl lock, released if it dies)
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

META_FILE = "snapshot.json"
KEEP_OLD = 2  # snapshots kept besides the current one, for readers still on them


class IndexUnavailable(RuntimeError):
    """There is no usable published snapshot."""


class WriterBusy(RuntimeError):
    """Another build or update holds the write lock."""


def snapshots_dir(root: Path) -> Path:
    return root / "snapshots"


def current_id(root: Path) -> str | None:
    """Return the id of the published snapshot, or None when nothing is published."""
    try:
        return os.path.basename(os.readlink(root / "current"))
    except OSError:
        return None


def new_snapshot_id() -> str:
    now = datetime.now(timezone.utc)
    return f"{now:%Y%m%dT%H%M%S}-{now.microsecond:06d}-{os.getpid()}"


def read_meta(snapshot: Path) -> dict[str, object]:
    """Return a snapshot's recorded facts (document count, schema version, fingerprint, build time)."""
    try:
        return json.loads((snapshot / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexUnavailable(f"snapshot {snapshot.name} has no readable {META_FILE}: {exc}") from exc


def write_meta(snapshot: Path, meta: dict[str, object]) -> None:
    path = snapshot / META_FILE
    with path.open("w", encoding="utf-8") as handle:
        json.dump(meta, handle, indent=2, sort_keys=True)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(path: Path) -> None:
    for child in path.iterdir():
        if child.is_file():
            with child.open("rb") as handle:
                os.fsync(handle.fileno())
    _fsync_dir(path)


@contextmanager
def write_lock(root: Path, wait: float = 0.0) -> Iterator[None]:
    """Hold the index folder's single write lock; wait up to *wait* seconds, then raise WriterBusy."""
    root.mkdir(parents=True, exist_ok=True)
    handle = (root / ".write.lock").open("a+")
    deadline = time.monotonic() + wait
    try:
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    handle.seek(0)
                    holder = handle.read().strip() or "unknown"
                    raise WriterBusy(
                        f"another build or update is writing {root} (process {holder}); try again when it ends"
                    ) from None
                time.sleep(0.1)
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        yield
    finally:
        handle.close()  # closing releases the lock


def new_workdir(root: Path) -> tuple[str, Path]:
    """Return a fresh snapshot id and the temporary folder to build it in (under the write lock)."""
    base = snapshots_dir(root)
    base.mkdir(parents=True, exist_ok=True)
    for stale in base.glob(".tmp-*"):  # left by a build that died; we hold the lock, so none is live
        shutil.rmtree(stale, ignore_errors=True)
    snap_id = new_snapshot_id()
    work = base / f".tmp-{snap_id}"
    work.mkdir()
    return snap_id, work


def publish(root: Path, snap_id: str, work: Path) -> Path:
    """Move a committed, checked build into place and point ``current`` at it atomically."""
    _fsync_tree(work)
    final = snapshots_dir(root) / snap_id
    os.rename(work, final)
    _fsync_dir(snapshots_dir(root))
    link = root / f".current-{snap_id}"
    os.symlink(Path("snapshots") / snap_id, link)
    os.replace(link, root / "current")
    _fsync_dir(root)
    _prune(root, keep=snap_id)
    return final


def _prune(root: Path, keep: str) -> None:
    olds = sorted(p for p in snapshots_dir(root).iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != keep)
    for old in olds[: max(0, len(olds) - KEEP_OLD)]:
        shutil.rmtree(old, ignore_errors=True)


def current_path(root: Path) -> Path:
    """Return the published snapshot's folder, or raise IndexUnavailable."""
    snap = current_id(root)
    if snap is None:
        raise IndexUnavailable(f"no index has been built in {root} yet")
    path = snapshots_dir(root) / snap
    if not path.is_dir():
        raise IndexUnavailable(f"the published snapshot {snap} is missing from {root}")
    return path
