"""Snapshots on disk: where the live index is, and how a new one is published.

Layout of an index folder::

    current -> snapshots/<id>      a symlink, swapped with os.replace (atomic on POSIX)
    snapshots/<id>/                a committed Whoosh index plus snapshot.json and files.json
    snapshots/.tmp-<id>/           a build in progress (removed by the next build if it died)
    .current-<id>                  the next ``current`` link, before it is swapped in (likewise)
    .write.lock                    held by the one writer (fcntl lock, released if it dies)

A build killed at any moment leaves ``current`` on the old snapshot: the new one is only linked
once it is complete, and its leftovers are removed by the next build, which holds the lock.
``files.json`` records each file's size and SHA-256 at publish, so a truncated or altered snapshot
is refused when it is opened (IndexUnavailable, a 503) instead of failing in the middle of a search.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

META_FILE = "snapshot.json"
MANIFEST_FILE = "files.json"
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
        meta = json.loads((snapshot / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexUnavailable(f"snapshot {snapshot.name} has no readable {META_FILE}: {exc}") from exc
    if not isinstance(meta, dict):
        raise IndexUnavailable(f"snapshot {snapshot.name} has a damaged {META_FILE}")
    check_files(snapshot)
    return meta


def _digest(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _manifest(folder: Path) -> dict[str, dict[str, object]]:
    return {
        p.name: {"size": p.stat().st_size, "sha256": _digest(p)}
        for p in sorted(folder.iterdir())
        if p.is_file() and p.name != MANIFEST_FILE
    }


def check_files(snapshot: Path) -> None:
    """Raise IndexUnavailable if a file recorded at publish is missing, cut short or altered."""
    try:
        recorded = json.loads((snapshot / MANIFEST_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return  # published before manifests existed
    except (OSError, ValueError) as exc:
        raise IndexUnavailable(f"snapshot {snapshot.name} has no readable {MANIFEST_FILE}: {exc}") from exc
    if not isinstance(recorded, dict) or not all(isinstance(v, dict) for v in recorded.values()):
        raise IndexUnavailable(f"snapshot {snapshot.name} has a damaged {MANIFEST_FILE}")
    # Sizes first: they are free and catch the usual damage (a copy or a disk that ran out).
    for name, facts in recorded.items():
        try:
            size = (snapshot / name).stat().st_size
        except OSError:
            raise IndexUnavailable(f"snapshot {snapshot.name} is missing its file {name}") from None
        if size != facts.get("size"):
            raise IndexUnavailable(f"snapshot {snapshot.name} is damaged: {name} has {size} bytes, not {facts.get('size')}")
    # Whoosh has no checksums of its own, and a flipped byte can make it raise anything mid-search.
    for name, facts in recorded.items():
        try:
            digest = _digest(snapshot / name)
        except OSError as exc:
            raise IndexUnavailable(f"snapshot {snapshot.name} cannot read {name}: {exc}") from exc
        if digest != facts.get("sha256"):
            raise IndexUnavailable(f"snapshot {snapshot.name} is damaged: {name} does not match its checksum")


def write_meta(snapshot: Path, meta: dict[str, object], name: str = META_FILE) -> None:
    """Write *meta* as the JSON file *name* in *snapshot*, durably."""
    path = snapshot / name
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
    # Left by a build that died; we hold the lock, so none of them is live.
    for stale in base.glob(".tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)
    for stale_link in root.glob(".current-*"):
        stale_link.unlink(missing_ok=True)
    snap_id = new_snapshot_id()
    work = base / f".tmp-{snap_id}"
    work.mkdir()
    return snap_id, work


def publish(root: Path, snap_id: str, work: Path) -> Path:
    """Move a committed, checked build into place and point ``current`` at it atomically."""
    write_meta(work, _manifest(work), MANIFEST_FILE)
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
