"""Snapshots on disk: where the live index is, and how a new one is published.

Layout of an index folder::

    current -> snapshots/<id>      a symlink, swapped with os.replace (atomic on POSIX)
    snapshots/<id>/                a committed Whoosh index plus snapshot.json and files.json
    snapshots/.tmp-<id>/           a build or copy in progress (removed by the next writer if it died)
    snapshots/<id>/origin.json     on a replica: where the snapshot was published from, and when
    snapshots/<id>/withdrawn.json  a snapshot rolled back from (or replaced by an older one): never rolled back to
    .current-<id>                  the next ``current`` link, before it is swapped in (likewise)
    .publishing-<id>               snapshots/<id> moved into place and not yet served: removed once ``current``
                                   names it; a writer that died before that left an orphan, never listed
                                   (no rollback or fallback picks it) and removed by the next writer
    .write.lock                    names the one writer, which locks it and the folder (flock, released if it dies)

A build killed at any moment leaves ``current`` on the old snapshot: the new one is only linked
once it is complete, and its leftovers are removed by the next build, which holds the lock.  A writer
(build, update, publish) asked to stop (SIGTERM, SIGINT, SIGHUP: ``stop_on_signals``) stops at its next ``check_stop``,
raising ``Stopped``, and removes its temporary folder itself.
``files.json`` records each file's size and SHA-256 at publish, so a truncated or altered snapshot
is refused when it is opened (IndexUnavailable, a 503) instead of failing in the middle of a search.

Replicas get their snapshots with ``publish_to``: the snapshot is copied under its builder's id into
the replica's folder, verified there against the builder's manifest, and only then linked, so a copy
cut short or altered in transit is never served.  ``prune`` and ``rollback`` are the other two
writes an operator makes; all of them hold the write lock and leave ``current`` on a complete,
verified snapshot if they are killed at any step.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

# Where an index is built and served by default, whatever the working directory: instance/index beside
# the packages (the CLI's --index-dir, build()'s root); build()'s relative "instance/index" built into the
# folder a script was run from, where `topichub serve` never read.
DEFAULT_INDEX = Path(__file__).resolve().parent.parent / "instance" / "index"

META_FILE = "snapshot.json"
MANIFEST_FILE = "files.json"
ORIGIN_FILE = "origin.json"
WITHDRAWN_FILE = "withdrawn.json"
# In a snapshot served by a step back (a rollback, or a replica given its builder's rolled-back
# choice): when, and from which; kept while it is served so, whatever prune deletes (``stepped_back``).
STEPPED_BACK_FILE = "stepped_back.json"
# The time no feed entry of a snapshot served forward again after a step back may say it changed before
# (``feed_floor``): it was made before the rollback, so its snapshot.json cannot say it (a review).
FLOOR_FILE = "feed_floor.json"
NOTES = frozenset({WITHDRAWN_FILE, STEPPED_BACK_FILE, FLOOR_FILE})  # written beside a published snapshot's files, never its own
KEEP_OLD = 2  # snapshots kept besides the current one, for readers still on them
PUBLISHING = ".publishing-"  # + an id: that snapshot was moved into place and is not yet served
# What systemd, docker stop, Kubernetes and Ctrl-C send, and a terminal that closes (an ssh session
# dropped).  One a process started with it ignored stays ignored: `nohup topichub build …` runs on
# when its terminal closes, and a script's background job (SIGINT ignored) ignores Ctrl-C.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
STOP_EVERY = 256  # records a writer handles between two check_stop calls
# Seconds a writer holding the index folder's lock waits for ``.write.lock``'s, which ``writer_at_work``
# holds for microseconds (and a writer of an older version for as long as it writes).
PROBE_WAIT = 0.5

log = logging.getLogger(__name__)


class IndexUnavailable(RuntimeError):
    """There is no usable published snapshot."""


class WriterBusy(RuntimeError):
    """Another writer (build, update, rollback, prune or publish) holds the write lock."""


class Stopped(RuntimeError):
    """A signal asked the writer to stop, and it stopped at a safe point: nothing was published."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)

    def __reduce__(self):  # sent back from an indexing process as it is
        return Stopped, (self.signum,)


def os_error_in(exc: BaseException) -> OSError | None:
    """Return the OSError that *exc* is, or that raised it on the way (a full disk under Whoosh's
    writer surfaced as "This file is already closed", raised while it cleaned up), or None."""
    return next((error for error in raised_from(exc) if isinstance(error, OSError)), None)


def raised_from(exc: BaseException) -> Iterator[BaseException]:
    """Yield *exc*, then the exception it was raised from or while handling, and so on (each once)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        yield current
        seen.add(id(current))
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)


_stop_signal: int | None = None  # set by the handler of stop_on_signals, read by check_stop
_stop_handled = False  # within stop_on_signals


def _note_stop(signum: int, frame: object) -> None:
    """Only note the signal: an exception raised here landed anywhere (inside logging's fork handler,
    an import lock's callback), was swallowed there, and the build ran on and published."""
    global _stop_signal
    if _stop_signal is None:
        _stop_signal = signum


def check_stop() -> None:
    """Raise Stopped if a stop signal came since ``stop_on_signals`` began: a writer calls it at its
    safe points (between records, files and segments, and last before ``current`` is switched)."""
    if _stop_signal is not None:
        raise Stopped(_stop_signal)


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within it, SIGTERM, SIGINT and SIGHUP ask the writer to stop at its next ``check_stop`` (the main
    thread only; indexing processes forked meanwhile inherit the handler and stop at theirs); a signal
    the process ignores (``nohup``) stays ignored."""
    global _stop_signal, _stop_handled
    if _stop_handled or threading.current_thread() is not threading.main_thread():
        yield  # within another (serve's, around its build), which keeps the flag to its end; or no handler can be set
        return
    _stop_signal = None
    before = {sig: signal.signal(sig, _note_stop) for sig in STOP_SIGNALS if signal.getsignal(sig) is not signal.SIG_IGN}
    _stop_handled = True
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        _stop_signal, _stop_handled = None, False


def snapshots_dir(root: Path) -> Path:
    return root / "snapshots"


def current_id(root: str | os.PathLike[str]) -> str | None:
    """Return the id of the published snapshot, or None when nothing is published."""
    try:  # os.path, not pathlib: a server asks twice a request, and pathlib's join cost more than the system calls
        return os.path.basename(os.readlink(os.path.join(root, "current")))
    except OSError:
        return None


def current_link(root: str | os.PathLike[str]) -> tuple[str | None, os.stat_result | None]:
    """Return the id of the published snapshot and the status of the ``current`` link itself (None for
    either when it is missing).  The link is made anew at each switch (``_switch``): its inode and time
    tell one switch from another, a rollback to a snapshot served before included, and its time is
    when what is served changed (a feed's Last-Modified), a build's, a rollback's or a replica's
    publish alike (not the served snapshot's build time: a rollback serves an older build from now
    on).  A worker serving an older snapshot in place of a refused one changed then too: every worker
    says the same time."""
    link = os.path.join(root, "current")
    try:
        status = os.lstat(link)
        seen = _LINKS_READ.get(link)
        if seen is not None and seen[0] == (status.st_ino, status.st_mtime_ns, status.st_dev):
            return seen[1], status  # the link read before: its target too
        # The target first: a switch between the two reads gives the new link's time, read again next time.
        target, read = os.path.basename(os.readlink(link)), os.lstat(link)
    except OSError:
        return current_id(root), None
    if (read.st_ino, read.st_mtime_ns, read.st_dev) == (status.st_ino, status.st_mtime_ns, status.st_dev):
        if len(_LINKS_READ) >= 64:  # (a test suite's many index folders)
            _LINKS_READ.clear()
        _LINKS_READ[link] = ((read.st_ino, read.st_mtime_ns, read.st_dev), target)  # no switch between the reads
    return target, read


# Each ``current`` link's target as last read, by the link's inode, time and device: a server asks for
# the link at every request, and its target is read again only when the link is another one (each switch
# makes a new link, a second after the one before at least: ``_switch_time``).  One system call of the
# three a request made to check its snapshot (readlink, lstat, and the folder's stat in
# ``SearchService._keeps``), some 2-5 us each on a virtual machine.
_LINKS_READ: dict[str, tuple[tuple[int, int, int], str]] = {}


def new_snapshot_id() -> str:
    now = datetime.now(timezone.utc)
    return f"{now:%Y%m%dT%H%M%S}-{now.microsecond:06d}-{os.getpid()}"


def read_meta(snapshot: Path, snap_id: str | None = None, *, stoppable: bool = False) -> dict[str, object]:
    """Return a snapshot's recorded facts (document count, schema version, fingerprint, build time).

    Errors name the snapshot *snap_id* (default: its folder's name; a copy in progress has a .tmp- one).
    *stoppable*: checking its files is a writer's safe point (``check_files``).
    """
    snap_id = snap_id or snapshot.name
    try:
        meta = json.loads((snapshot / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexUnavailable(f"snapshot {snap_id} has no readable {META_FILE}: {exc}") from exc
    if not isinstance(meta, dict):
        raise IndexUnavailable(f"snapshot {snap_id} has a damaged {META_FILE}")
    check_files(snapshot, snap_id, stoppable=stoppable)
    return meta


_DIGEST_BLOCK = 1 << 22  # bytes checksummed between two stop checks: some 10 ms


def _digest(path: Path, stoppable: bool = False) -> str:
    """Return the SHA-256 of *path*; *stoppable*: a stop asked meanwhile (``check_stop``) is honoured
    between blocks of it."""
    with path.open("rb") as handle:
        if not stoppable:
            return hashlib.file_digest(handle, "sha256").hexdigest()
        digest = hashlib.sha256()
        while True:
            check_stop()
            if not (block := handle.read(_DIGEST_BLOCK)):
                return digest.hexdigest()
            digest.update(block)


def _manifest(folder: Path) -> dict[str, dict[str, object]]:
    return {
        p.name: {"size": p.stat().st_size, "sha256": _digest(p)}
        for p in sorted(folder.iterdir())
        if p.is_file() and p.name != MANIFEST_FILE and p.name not in NOTES
    }


def check_files(snapshot: Path, snap_id: str | None = None, *, sums: bool = True, stoppable: bool = False) -> None:
    """Raise IndexUnavailable (naming *snap_id*, as read_meta) if a file recorded at publish is missing or
    altered (only missing or of another size without *sums*: no file is read).

    *stoppable*: a writer's safe point, raising Stopped for a stop asked while the files are read (a
    build checks the published snapshot's 110 MB at 64k: SIGINT took 4-5 s to stop it, a QA pass);
    not for a reader, whose caller does not expect Stopped (serve's check before its build)."""
    snap_id = snap_id or snapshot.name
    try:
        recorded = json.loads((snapshot / MANIFEST_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return  # published before manifests existed
    except (OSError, ValueError) as exc:
        raise IndexUnavailable(f"snapshot {snap_id} has no readable {MANIFEST_FILE}: {exc}") from exc
    if not isinstance(recorded, dict) or not all(isinstance(v, dict) for v in recorded.values()):
        raise IndexUnavailable(f"snapshot {snap_id} has a damaged {MANIFEST_FILE}")
    # Sizes first: they are free and catch the usual damage (a copy or a disk that ran out).
    for name, facts in recorded.items():
        try:
            size = (snapshot / name).stat().st_size
        except OSError:
            raise IndexUnavailable(f"snapshot {snap_id} is missing its file {name}") from None
        if size != facts.get("size"):
            raise IndexUnavailable(f"snapshot {snap_id} is damaged: {name} has {size} bytes, not {facts.get('size')}")
    if not sums:
        return
    # Whoosh has no checksums of its own, and a flipped byte can make it raise anything mid-search.
    for name, facts in recorded.items():
        try:
            digest = _digest(snapshot / name, stoppable)
        except OSError as exc:
            raise IndexUnavailable(f"snapshot {snap_id} cannot read {name}: {exc}") from exc
        if digest != facts.get("sha256"):
            raise IndexUnavailable(f"snapshot {snap_id} is damaged: {name} does not match its checksum")


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
def write_lock(root: Path, wait: float = 0.0, writer: str | None = None) -> Iterator[None]:
    """Hold the index folder's single write lock; wait up to *wait* seconds, then raise WriterBusy.

    *writer* (build, update, rollback, prune, publish) is recorded beside the process id, for the
    writer kept out to name the one holding it (``_busy``).

    The lock is on the index folder itself as well as on ``.write.lock`` (which names the holder):
    that file outlives every writer, and deleted by hand as a stale lock while a build ran, it let a
    second writer in, whose clean-up removed the running build's folder ("No such file or directory").
    """
    root.mkdir(parents=True, exist_ok=True)
    folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        handle = (root / ".write.lock").open("a+")
    except BaseException:
        os.close(folder)
        raise
    deadline = time.monotonic() + wait
    try:
        # The file too: a writer of an older version locks only that.  Once the folder is ours no writer
        # of this version holds the file, only ``writer_at_work`` for an instant (``topichub snapshots``
        # asking whether a writer runs): it is waited for, --wait 0 or not; refused at once, a cron
        # build would fail "busy" whenever a monitor looked at that moment.
        for fd, least in ((folder, 0.0), (handle.fileno(), PROBE_WAIT)):
            deadline = max(deadline, time.monotonic() + least)
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES):
                        raise
                    if time.monotonic() >= deadline:
                        handle.seek(0)
                        raise _busy(root, handle.read(), wait) from None
                    check_stop()  # asked to stop while it waits (--wait)
                    time.sleep(0.1)
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()} {writer}" if writer else str(os.getpid()))
        handle.flush()
        yield
    finally:
        handle.close()  # closing releases the locks
        os.close(folder)


def writer_at_work(root: Path) -> str | None:
    """Return the writer holding *root*'s write lock ("PID WRITER", as ``.write.lock`` names it), or None
    when none runs.  The lock is what tells a writer's temporary folder from one a killed writer left
    (``_remove_leftovers`` deletes, under the lock, every one it finds): the file's name of the last
    writer outlives it, and a folder's age tells a killed build from a slow one only by a guess.

    Takes the file's lock shared for an instant, never the folder's: a writer takes that first, at once
    with --wait 0, and would be refused; a writer that has the folder waits for the file
    (``PROBE_WAIT``).  No file is None (every writer makes it); one that cannot be read raises OSError."""
    try:
        handle = (root / ".write.lock").open(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None  # every writer makes it: none has run here
    with handle:  # closing releases the lock
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            return handle.read().strip() or "?"  # a writer between taking the lock and naming itself
    return None


def _busy(root: Path, holder: str, waited: float = 0.0) -> WriterBusy:
    """Return the refusal of a writer kept out of *root* by the one the lock file's *holder* names
    ("PID WRITER", or a PID alone from an older version): a rollback, prune or publish holding it
    was called "another build or update".  One that *waited* (--wait) says so: it said what one
    refused at once says."""
    pid, _, writer = holder.strip().partition(" ")
    if writer in ("build", "update"):
        who = "another build or update"  # as it always said: scripts may look for it
    elif writer:
        who = f"a {writer}"
    else:
        who = "another writer (build, update, rollback, prune or publish)"
    still = f", still after waiting {waited:g} s (--wait)" if waited > 0 else ""
    return WriterBusy(f"{who} is writing {root} (process {pid or 'unknown'}){still}; try again when it ends")


class Leftover(NamedTuple):
    """What a writer that died left behind and ``_remove_leftovers`` removed: a folder's name in
    ``snapshots/``, the bytes it held, and whether it is a whole snapshot that never served (its
    writer stopped between moving it into place and switching ``current`` to it) rather than a
    ``.tmp-`` folder."""

    name: str
    size: int
    never_served: bool = False


def _remove_leftovers(root: Path, adopt: str | None = None, *, reported: bool = False) -> list[Leftover]:
    """Remove what a writer that died left behind (call under the write lock: none of it is live);
    return what was removed, each with the bytes it held.  Those that could not all be deleted are
    warned of (``_warn_undeleted``).

    A snapshot moved into place whose writer died before switching ``current`` to it never served:
    it is removed, with a warning, but for *adopt* (the snapshot the caller is about to serve: a
    publish run again after one killed there finishes it, nothing copied twice).  A caller that
    *reported* what it removed (``prune``, on stdout) is not warned of it besides: a prune said
    "removed 0 snapshots" and "warning: removed snapshot ID" in one run (a QA pass)."""
    base = snapshots_dir(root)
    base.mkdir(parents=True, exist_ok=True)
    current = current_id(root)
    removed: list[Leftover] = []
    for marker in root.glob(f"{PUBLISHING}*"):
        snap_id = marker.name[len(PUBLISHING):]
        if snap_id == adopt and snap_id != current:
            continue
        orphan = base / snap_id
        if snap_id != current and orphan.exists():
            size = _tree_bytes(orphan)
            error = _delete(orphan)
            if error is not None:  # not all of it could be deleted: unlisted while its marker is there
                log.warning("snapshot %s never served (its writer stopped before publishing it) and could not all "
                            "be deleted (%s): delete %s", snap_id, error, orphan)
                continue
            removed.append(Leftover(snap_id, size, never_served=True))
            if not reported:
                log.warning("removed snapshot %s: its writer stopped after moving it into place and before "
                            "publishing it (it never served)", snap_id)
        marker.unlink(missing_ok=True)
    stuck: list[tuple[Path, OSError]] = []
    for stale in sorted(base.glob(".tmp-*")):
        size = _tree_bytes(stale)
        error = _delete(stale)
        if error is None:
            removed.append(Leftover(stale.name, size))
        else:
            stuck.append((stale, error))
    _warn_undeleted(stuck)
    for stale_link in root.glob(".current-*"):
        stale_link.unlink(missing_ok=True)
    return removed


def _tree_bytes(folder: Path) -> int:
    """Return the bytes the files under *folder* hold (what deleting it frees)."""
    try:
        return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    except OSError:
        return 0


def _delete(folder: Path) -> OSError | None:
    """Delete *folder* and all it holds; return the first OSError that kept some of it, or None when it is gone."""
    errors: list[OSError] = []
    shutil.rmtree(folder, onerror=lambda func, path, info: errors.append(info[1]))
    if not os.path.lexists(folder):
        return None
    return errors[0] if errors else OSError(errno.ENOTEMPTY, "not all of it could be deleted", str(folder))


def _warn_undeleted(stuck: list[tuple[Path, OSError]]) -> None:
    """Warn in one line of the folders that could not all be deleted, with the first reason: each
    holds its disk until it is (a delete that failed was silent, and a prune counted it removed)."""
    if stuck:
        log.warning("%s could not all be deleted (%s): %s disk space until deleted: run `topichub prune` "
                    "once that is fixed", ", ".join(str(path) for path, _ in stuck), stuck[0][1],
                    "it holds" if len(stuck) == 1 else "they hold")


def new_workdir(root: Path) -> tuple[str, Path]:
    """Return a fresh snapshot id and the temporary folder to build it in (under the write lock)."""
    _remove_leftovers(root)
    base = snapshots_dir(root)
    snap_id = new_snapshot_id()
    work = base / f".tmp-{snap_id}"
    work.mkdir()
    return snap_id, work


def publish(root: Path, snap_id: str, work: Path) -> Path:
    """Move a committed, checked build into place and point ``current`` at it atomically.

    Asked to stop (``check_stop``) or failing before the switch, the snapshot goes back to *work*,
    for the caller to remove; killed there, it is an orphan that ``_remove_leftovers`` removes."""
    write_meta(work, _manifest(work), MANIFEST_FILE)
    _fsync_tree(work)
    final = snapshots_dir(root) / snap_id
    marker = _mark_publishing(root, snap_id)
    os.rename(work, final)
    try:
        _fsync_dir(snapshots_dir(root))
        check_stop()
        _switch(root, snap_id)
    except BaseException:
        if current_id(root) != snap_id:  # not served: no snapshot, only a folder its writer removes
            os.rename(final, work)
            marker.unlink(missing_ok=True)
        raise
    marker.unlink(missing_ok=True)
    _prune_published(root, snap_id)
    return final


def _prune_published(root: Path, snap_id: str) -> list[str]:
    """Prune after *snap_id* was published; return the ids deleted.  An old snapshot that cannot be
    deleted is a warning: the work is done (the command said "Error: cannot write the index" and
    exited 1, the new snapshot served all the same)."""
    try:
        return _prune(root, keep=snap_id)
    except OSError as exc:
        log.warning("published snapshot %s, but the older snapshots could not all be deleted (%s): run "
                    "`topichub prune` once that is fixed", snap_id, exc)
        return []


def _mark_publishing(root: Path, snap_id: str) -> Path:
    """Note, durably, that snapshots/*snap_id* is about to be moved into place and is not served yet
    (a writer killed before the switch left a complete snapshot that never served, which a rollback
    then "rolled back" to); return the note, to remove once ``current`` names it."""
    marker = root / f"{PUBLISHING}{snap_id}"
    marker.touch()
    _fsync_dir(root)
    return marker


_SECOND_NS = 1_000_000_000
# Switches a second apart at least (``_switch``): a switch in the second of the one before waits for the next.
SWITCH_SECONDS_APART = True


# A link time at most this far ahead of the clock (a clock set back a little) is kept to: a second past it.
_AHEAD_KEPT_NS = 60 * _SECOND_NS


def _switch_time(root: Path) -> int | None:
    """Return the time (ns) the next switch of *root*'s ``current`` is to have at least, having waited
    for it where that is the next second (then checked for a stop: a signal in the wait stops the
    writer before anything moved), or None for any time.

    A switch in the second of the one before waits for the next second: the link's time is when it
    was switched, the feeds' and the sitemap's Last-Modified in whole seconds, and two switches in one
    second said one, so a feed reader revalidating with If-Modified-Since alone got a 304 for a feed
    that had changed (a QA pass under updates).  Setting the time a second on instead put it ahead of
    the clock, a Last-Modified later than the answer's Date, further with each switch of a burst (a
    review).  Where the link is ahead of the clock (the clock was set back) it goes a second past it,
    not back (a Last-Modified going back got a 304 for a feed that had changed: a review); the answers
    then say their Date instead (``web.feeds.published_at``)."""
    before = _switched_at(root)
    if before is None or not SWITCH_SECONDS_APART:
        return None
    now = time.time_ns()
    later = (before // _SECOND_NS + 1) * _SECOND_NS
    if now // _SECOND_NS == before // _SECOND_NS:
        time.sleep((later - now) / _SECOND_NS)
        check_stop()
        return later
    return later if now < before < now + _AHEAD_KEPT_NS else None


def _switch(root: Path, snap_id: str, at: int | None = None) -> None:
    """Point ``current`` at snapshots/*snap_id* atomically, and durably, at the time ``_switch_time``
    gives (*at*, when the caller asked it before what it did first)."""
    at = _switch_time(root) if at is None else at
    # Never before the clock: the file system's lags a few ms behind it, and a first build's documents
    # were first seen (by the clock) a second after the feed's Last-Modified (by the link) said it
    # changed, when the build took less than that lag across a second's turn (a flaky test).
    at = time.time_ns() if at is None else at
    link = root / f".current-{snap_id}"
    link.unlink(missing_ok=True)
    os.symlink(Path("snapshots") / snap_id, link)
    if os.lstat(link).st_mtime_ns < at:
        os.utime(link, ns=(at, at), follow_symlinks=False)
    os.replace(link, root / "current")
    _fsync_dir(root)


def _serve(root: Path, snap_id: str, previous: str | None) -> None:
    """Switch ``current`` from *previous* to *snap_id*, an existing snapshot, and record a step back.

    A snapshot left for an older one (a rollback, or a replica given the builder's rolled-back
    choice) is withdrawn: a later rollback passes over it rather than serve again what an operator
    took back.  A withdrawn snapshot served again on purpose (``publish``) is withdrawn no more.
    """
    # The note before the switch: a disk too full for it stops the step back before anything moved
    # (switched, then said to have failed, a retry went one snapshot too far), and a folder gone
    # (deleted by hand) has none to write.
    at = _switch_time(root)  # any wait first: a writer killed in it has written no note (a review)
    left = snapshots_dir(root) / previous if previous is not None and previous > snap_id else None
    target = snapshots_dir(root) / snap_id
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    if left is None and previous is not None and (floor := feed_floor(root)) is not None:
        # Forward again after a step back: a newer snapshot made before the rollback carries no floor,
        # and its feeds went back before it (``rollback --to`` the newer one: a review).
        write_meta(target, {"feed_floor": latest(floor, floor_note(target))}, FLOOR_FILE)
    if left is not None and left.is_dir():
        write_meta(left, {"withdrawn_at": now, "for": snap_id}, WITHDRAWN_FILE)
    if left is not None:  # what was stepped back from, kept with what is served (a prune may delete *left*)
        write_meta(target, {"stepped_back_at": now, "from": previous}, STEPPED_BACK_FILE)
    try:
        _switch(root, snap_id, at)
    except BaseException:
        if left is not None:
            (left / WITHDRAWN_FILE).unlink(missing_ok=True)
            (target / STEPPED_BACK_FILE).unlink(missing_ok=True)
        raise
    (target / WITHDRAWN_FILE).unlink(missing_ok=True)
    if left is None:
        (target / STEPPED_BACK_FILE).unlink(missing_ok=True)  # served forward: no longer by a step back
    (root / f"{PUBLISHING}{snap_id}").unlink(missing_ok=True)  # a copy moved into place: served now


def read_note(snapshot: Path, name: str) -> dict[str, object] | None:
    """Return the JSON object a snapshot's note file *name* holds ({} when unreadable), or None if there is none."""
    try:
        note = json.loads((snapshot / name).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}  # there all the same: its presence is what counts
    return note if isinstance(note, dict) else {}


def stepped_back(snapshot: Path) -> dict[str, object] | None:
    """Return when and from which snapshot *snapshot* was last served by a step back (a rollback), or
    None when it was last served forward (published, or ``rollback --to`` a newer one)."""
    return read_note(snapshot, STEPPED_BACK_FILE)


def listing_is_time(meta: dict[str, object]) -> bool:
    """Return whether a snapshot's listing order (the sources' order) is its documents' order in time:
    built from topic pages (each lists its events most recent first) and guides, no JSONL file, whose
    lines' order says nothing known of time (the 64k Debian corpus lists its packages A to Z: "newest"
    with a query then listed them so, where one build's first_seen dates them all alike: a review).
    Such a snapshot numbers each kind's documents apart (a topic page's events, its guide's sections);
    one with a JSONL file numbers them in one listing (its lines, across kinds)."""
    sources = meta.get("sources")
    return isinstance(sources, list) and not any(str(s).endswith((".jsonl", ".jsonl.gz")) for s in sources)


def feed_floor(root: Path) -> str | None:
    """Return the time no feed entry of a snapshot made now from the one *root* serves may say it
    changed before: when that one was served by a step back (a rollback), or the floor it inherited.
    Served stepped back, a feed's entries and its updated say the rollback's time at least (they may
    say again what a reader's copy no longer does); the next update's snapshot said their own dates
    again, back before the rollback (a review: a feed's updated went back).  Carried in each snapshot
    made since (``feed_floor`` in snapshot.json)."""
    try:
        served = current_path(root)
    except IndexUnavailable:
        return None
    note = stepped_back(served)
    try:
        carried = read_meta(served).get("feed_floor")
    except IndexUnavailable:
        carried = None
    return latest(carried, floor_note(served), note.get("stepped_back_at") if note else None)


def floor_note(snapshot: Path) -> str | None:
    """Return the feed floor a forward switch left beside *snapshot* (FLOOR_FILE), or None."""
    note = read_note(snapshot, FLOOR_FILE)
    return note.get("feed_floor") if note else None  # type: ignore[return-value]


def latest(*times: object) -> str | None:
    """Return the latest of *times* (ISO 8601 date-times; None and "" passed over) in UTC with a ``Z``, or None."""
    found = [datetime.fromisoformat(t.replace("Z", "+00:00")) for t in times if isinstance(t, str) and t]
    return max(found).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if found else None


def withdrawn(snapshot: Path) -> dict[str, object] | None:
    """Return when and for what *snapshot* was withdrawn (rolled back from), or None if it never was."""
    return read_note(snapshot, WITHDRAWN_FILE)


def is_snapshot(folder: Path) -> bool:
    """Return whether *folder* is a snapshot (complete, or damaged since): a folder of its own, not a
    link, named as a build names one (``new_snapshot_id``), holding its facts or its manifest.  Anything
    else in ``snapshots/`` is no snapshot: a ``publish --to`` into it once left ``current`` (a link) and
    ``snapshots/`` there, which ``prune`` then "removed" as snapshots, leaving ``.tmp-pruned-current``
    behind; and a copy an operator made by hand ("backup copy") sorted after every id, so it was the
    newest: ``prune --keep 1`` kept it and deleted the snapshot it copied (a regression pass)."""
    return (SNAPSHOT_ID.fullmatch(folder.name) is not None and folder.is_dir() and not folder.is_symlink()
            and ((folder / META_FILE).is_file() or (folder / MANIFEST_FILE).is_file()) and recorded_as(folder) in (None, folder.name))


def recorded_as(folder: Path) -> str | None:
    """Return the id a snapshot's facts record (``snapshot`` in snapshot.json), None when they cannot be
    read (a damaged snapshot is one still): a copy under another build's id ("cp -a snapshots/ID
    snapshots/99991231T235959-999999-1") was the newest snapshot, which prune kept (a QA pass)."""
    try:
        recorded = json.loads((folder / META_FILE).read_text(encoding="utf-8")).get("snapshot")
    except (OSError, ValueError, AttributeError):
        return None
    return recorded if isinstance(recorded, str) else None


SNAPSHOT_ID = re.compile(r"[0-9]{8}T[0-9]{6}-[0-9]{6}-[0-9]+")  # ``new_snapshot_id``'s: its UTC time, then its process


def snapshot_ids(root: Path) -> list[str]:
    """Return the ids of the snapshots under *root* (``is_snapshot``), oldest first (ids start with their UTC time).

    One moved into place and never served (its writer died before the switch: ``publish``) is not
    listed: a rollback, the service's fallback and ``prune`` took it for one that had served."""
    unserved = {p.name[len(PUBLISHING):] for p in root.glob(f"{PUBLISHING}*")} - {current_id(root)}
    try:
        return sorted(p.name for p in snapshots_dir(root).iterdir() if is_snapshot(p) and p.name not in unserved)
    except (FileNotFoundError, NotADirectoryError):  # a file named snapshots holds no snapshot
        return []


def file_in_the_way(path: Path) -> tuple[Path, str] | None:
    """Return the nearest of *path* and the folders above it that exists, when it is no folder, with
    what it is ("a file": "/dev/null/x" names nothing a folder could be made at; "a link to nothing"),
    else None."""
    for at in (path, *path.absolute().parents) if not path.is_absolute() else (path, *path.parents):
        if at.is_symlink() and not at.exists():
            return at, "a link to nothing"  # it said "a file" of a broken link (a regression QA pass)
        if at.exists():
            return None if at.is_dir() else (at, "a file")
    return None


class NotAReplicaFolder(ValueError):
    """A ``publish`` target that is no index folder of its own: it lies inside another index's ``snapshots/``."""


def index_holding(path: Path) -> Path | None:
    """Return the index folder whose ``snapshots/`` holds *path* (that folder itself, a snapshot, or
    anything below, ``current`` included), or None: such a path is no index folder of its own."""
    target = path.resolve()  # through links, and ".." read as the file system does
    for folder in (target, *target.parents):
        if folder.name != "snapshots":
            continue
        root = folder.parent
        if (root / "current").is_symlink() or (root / ".write.lock").is_file() or snapshot_ids(root):
            return root
    return None


def check_target(dest_root: Path) -> None:
    """Raise NotAReplicaFolder if *dest_root* lies inside an index folder's ``snapshots/`` (that folder
    itself, a snapshot, or anything below): published into, it got a ``current`` link and a
    ``snapshots/`` of its own inside the other index's snapshots."""
    root = index_holding(dest_root)
    if root is not None:
        raise NotAReplicaFolder(
            f"{dest_root} is inside the snapshots folder of the index {root}: publish to an index folder "
            f"of its own (--to {root} to publish to that index)"
        )


def _prune(root: Path, keep: str, old: int = KEEP_OLD, spare: str | None = None) -> list[str]:
    """Delete all but the *old* newest snapshots besides *keep* (and *spare*), withdrawn ones first (a
    rollback passes over them: kept, they took the place of a good one); return the ids deleted, oldest first."""
    olds = [name for name in snapshot_ids(root) if name not in (keep, spare)]
    ranked = sorted(olds, key=lambda name: (withdrawn(snapshots_dir(root) / name) is None, name))  # doomed first
    removed: list[str] = []
    stuck: list[tuple[Path, OSError]] = []
    for name in sorted(ranked[: max(0, len(olds) - old)]):
        # Renamed away first: a delete cut short leaves a leftover, never a half snapshot to roll back to.
        gone = snapshots_dir(root) / f".tmp-pruned-{name}"
        try:
            os.rename(snapshots_dir(root) / name, gone)
        except OSError as exc:  # (chattr +i) warned of with the rest; it stopped the prune, none deleted (a QA pass)
            stuck.append((snapshots_dir(root) / name, exc))
            continue
        error = _delete(gone)
        if error is None:
            removed.append(name)
        else:  # not removed: its leftover holds the disk (the next writer tries again)
            stuck.append((gone, error))
    _warn_undeleted(stuck)
    return removed


def other_schema(meta: dict[str, object]) -> str | None:
    """Return why a snapshot of facts *meta* cannot be served by this code (built with another schema
    version: each worker refuses it, search.snapshot), or None when it can."""
    from index.schema import SCHEMA_VERSION  # here: the analyzers (whoosh) are no concern of most callers

    if meta.get("schema_version") == SCHEMA_VERSION:
        return None
    return f"built with schema version {meta.get('schema_version')}, this code serves {SCHEMA_VERSION}"


def verify(snapshot: Path, snap_id: str | None = None) -> dict[str, object]:
    """Return the facts of *snapshot* if its manifest is there and every file matches it; else raise IndexUnavailable."""
    snap_id = snap_id or snapshot.name
    if not (snapshot / MANIFEST_FILE).is_file():
        # check_files lets snapshots from before manifests pass; a copy must prove it is complete.
        raise IndexUnavailable(f"snapshot {snap_id} has no {MANIFEST_FILE}: the copy is incomplete")
    meta = read_meta(snapshot, snap_id)
    if meta.get("snapshot", snap_id) != snap_id:
        raise IndexUnavailable(f"snapshot {snap_id} holds the files of snapshot {meta.get('snapshot')}")
    return meta


@dataclass(frozen=True, slots=True)
class PublishReport:
    snapshot: str
    previous: str | None
    copied_bytes: int  # 0 when the snapshot was already there, complete
    seconds: float
    pruned: tuple[str, ...]


def publish_to(source_root: Path, dest_root: Path, *, lock_wait: float = 0.0) -> PublishReport:
    """Copy the snapshot published under *source_root* into *dest_root*, verify it there, and switch to it."""
    started = time.perf_counter()
    check_target(dest_root)
    source = publishable(source_root)
    snap_id = source.name
    try:
        recorded = json.loads((source / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexUnavailable(
            f"snapshot {snap_id} in {source_root} has no readable {MANIFEST_FILE} ({exc}); not published"
        ) from exc
    if not isinstance(recorded, dict) or not all(isinstance(n, str) and n == Path(n).name for n in recorded):
        raise IndexUnavailable(f"snapshot {snap_id} in {source_root} has a damaged {MANIFEST_FILE}; not published")
    with write_lock(dest_root, wait=lock_wait, writer="publish"):
        _remove_leftovers(dest_root, adopt=snap_id)
        previous = current_id(dest_root)
        final = snapshots_dir(dest_root) / snap_id
        copied = 0 if _verifies(final) else _copy_in(source, dest_root, (*recorded, MANIFEST_FILE))
        switched = previous != snap_id
        before = _switched_at(dest_root)
        if switched:
            _serve(dest_root, snap_id, previous)
        # Served by a step back where it comes from, or with a floor, so here too (a new replica gave its
        # feeds' entries their own dates where the builder and the other replicas gave the rollback's,
        # and so did one already serving the snapshot: reviews); before the link's time is set below,
        # which a worker's switch is read by.
        notes = {STEPPED_BACK_FILE: stepped_back(source), FLOOR_FILE: read_note(source, FLOOR_FILE)}
        copied_note = False
        for name, note in notes.items():
            if note is not None and read_note(final, name) != note:
                write_meta(final, note, name)
                copied_note = True
        if switched or copied_note:
            # Switched "when the source was": replicas of one snapshot then say one Last-Modified in
            # their feeds (each said when it switched, seconds apart, and revalidation missed behind a
            # balancer: a QA pass); never before this replica's last switch (a step back here since).
            when = max(_switched_at(source_root) or 0, (before or 0) + _SECOND_NS)
            os.utime(dest_root / "current", ns=(when, when), follow_symlinks=False)
        pruned = _prune_published(dest_root, snap_id)
    return PublishReport(snap_id, previous, copied, round(time.perf_counter() - started, 3), tuple(pruned))


def publishable(source_root: Path) -> Path:
    """Return the folder of the snapshot *source_root* serves, to publish; raise IndexUnavailable when
    there is none, or when it is of a schema version this code cannot serve: published, the replica's
    workers refused it, /healthz 503 degraded, and publish said it had published (a QA pass)."""
    source = current_path(source_root)
    try:  # its facts alone, not its files: a damaged snapshot is refused in its own words by the copy's check
        meta = json.loads((source / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return source
    if isinstance(meta, dict) and (why := other_schema(meta)) is not None:
        raise IndexUnavailable(
            f"snapshot {source.name} in {source_root} was {why}: not published, a replica would refuse it; "
            f"build the index again with this code (`topichub build SOURCES --index-dir {source_root}`) and publish that"
        )
    return source


def _switched_at(root: Path) -> int | None:
    """Return when *root*'s ``current`` was last switched (its link's time, ns), or None without one."""
    try:
        return os.lstat(root / "current").st_mtime_ns
    except FileNotFoundError:
        return None


def _copy_in(source: Path, dest_root: Path, names: tuple[str, ...]) -> int:
    """Copy snapshot *source*'s files *names* under *dest_root*, verify and move them into place; return bytes copied."""
    snap_id = source.name
    try:  # before copying: a damaged source is refused in its own name, without a copy made in vain
        verify(source)
    except IndexUnavailable as exc:
        raise IndexUnavailable(f"the snapshot in {source.parent.parent} failed verification ({exc}); "
                               "nothing copied, not published") from None
    base = snapshots_dir(dest_root)
    work = base / f".tmp-{snap_id}"
    work.mkdir()
    copied = 0
    try:
        for name in names:
            check_stop()
            try:
                shutil.copy2(source / name, work / name)
            except FileNotFoundError:
                raise IndexUnavailable(f"snapshot {snap_id} in {source.parent.parent} is missing its file {name}: "
                                       "the copy there is incomplete; not published") from None
            copied += (work / name).stat().st_size
        try:
            verify(work, snap_id)
        except IndexUnavailable as exc:
            raise IndexUnavailable(f"the copy in {dest_root} failed verification ({exc}); not published") from None
        write_meta(work, {"from": str(source.parent.parent.resolve()), "host": os.uname().nodename,
                          "published_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}, ORIGIN_FILE)
        _fsync_tree(work)
        final = base / snap_id
        if final.exists():  # there but damaged: set aside first, as rename cannot replace a full folder
            os.rename(final, base / f".tmp-damaged-{snap_id}")
        check_stop()
        _mark_publishing(dest_root, snap_id)  # removed by _serve once served
        os.rename(work, final)
        _fsync_dir(base)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(base / f".tmp-damaged-{snap_id}", ignore_errors=True)
    return copied


def _verifies(snapshot: Path) -> bool:
    try:
        verify(snapshot)
    except IndexUnavailable:
        return False
    return True


class Pruned(NamedTuple):
    snapshots: list[str]  # the ids of the snapshots deleted, oldest first
    leftovers: list[Leftover]  # what unfinished writers left and was deleted, with its bytes
    # Why no snapshot was pruned, when none is published (``no_current``'s words); else None.
    unpublished: str | None = None


def left_behind(root: Path) -> bool:
    """Return whether *root* holds what a writer leaves until it ends, or until the next writer removes
    it when it died: a ``.tmp-`` folder in ``snapshots/``, or a snapshot moved into place and not
    served (its ``.publishing-`` marker).  Whether its writer runs is not asked here: the write lock
    tells (``writer_at_work``), and only a writer holding it removes any (``_remove_leftovers``)."""
    try:
        return any(True for _ in snapshots_dir(root).glob(".tmp-*")) or any(True for _ in root.glob(f"{PUBLISHING}*"))
    except OSError:
        return False


def prune(root: Path, keep: int = KEEP_OLD, *, lock_wait: float = 0.0) -> Pruned:
    """Delete all but the *keep* newest snapshots besides the published one, and what unfinished
    writers left; return what was deleted (what could not all be is warned of, not counted).  When the
    published one fails its checks, the snapshot answering in its place is kept too, with a warning.

    With nothing published (a first build killed, snapshots kept without a ``current`` link) no
    snapshot is pruned, but what unfinished writers left is (``Pruned.unpublished`` says why no
    snapshot was): ``topichub snapshots`` said "`topichub prune` deletes it" of a killed first build's
    28 MB ``.tmp-`` folder, and prune answered "no index has been built in … yet", exit 1, leaving it
    to the next build (a QA pass).  With nothing of the kind either there is nothing to prune: refused
    as before, in ``no_current``'s words, and no folder is made (a mistyped ``--index-dir``)."""
    if current_id(root) is None:
        if not left_behind(root):
            raise no_current(root)
    else:
        current_path(root)  # its folder gone: say so rather than delete anything
    with write_lock(root, wait=lock_wait, writer="prune"):  # a writer at work holds its own: busy, or waited for
        leftovers = _remove_leftovers(root, reported=True)
        # Read under the lock: a rollback or publish may have moved it since, and a first build waited
        # for (--wait) published one.
        if current_id(root) is None:
            if not leftovers:  # its writer ended meanwhile and removed its own, or none could be deleted (warned)
                raise no_current(root)
            return Pruned([], leftovers, str(no_current(root)))
        served = current_path(root).name
        answering = _answering_instead(root, served)
        if answering is not None:
            log.warning("the published snapshot %s fails its checks (%s): kept snapshot %s, which the "
                        "service answers from instead; publish a good copy or run `topichub rollback`", served,
                        answering[1], answering[0])
        return Pruned(_prune(root, keep=served, old=keep, spare=answering and answering[0]), leftovers)


def _answering_instead(root: Path, served: str) -> tuple[str, str] | None:
    """Return the snapshot the service answers from in place of published *served* when that one fails
    its checks (the newest older one that verifies, of this code's schema and not withdrawn: what a
    worker opens, search.service), with why *served* is refused; None when *served* passes them.

    A prune of a degraded service deleted the snapshot it answered from: a full outage (a QA pass)."""
    def refusal(snap_id: str) -> str | None:
        try:
            return other_schema(read_meta(snapshots_dir(root) / snap_id))
        except IndexUnavailable as exc:
            return str(exc)

    if (why := refusal(served)) is None:
        return None
    return next(((name, why) for name in stand_ins(root, served) if refusal(name) is None), None)


def rollback(root: Path, *, lock_wait: float = 0.0, to: str | None = None) -> tuple[str, str]:
    """Switch ``current`` to the newest snapshot older than the published one that verifies; return (from, to).

    Snapshots on the way that were themselves rolled back from (withdrawn) are passed over, and so are
    damaged ones and those of another schema version (``other_schema``: kept from before a code
    upgrade), each with a warning naming it and why (those of another schema in one); when none is
    left, IndexUnavailable says why for each and ``current`` stays where it was.  The snapshot left is
    withdrawn.  With *to*, that kept snapshot is served, older or newer, once it verifies and is of
    this code's schema (forward again on one host, where ``publish`` has nothing to copy), and is
    withdrawn no more.
    """
    # Nothing served: say so before the lock, which makes the folder.  With --to, snapshots kept without
    # a current link are served so (no_current names that way out); with none kept either, a mistyped
    # --index-dir was told "no snapshot … is kept … (kept: none)" and left holding snapshots/ and
    # .write.lock, where every other command says no index has been built there and makes nothing.
    if current_id(root) is None and (to is None or not snapshot_ids(root)):
        raise no_current(root)
    if to is not None:
        return _serve_kept(root, to, lock_wait)
    with write_lock(root, wait=lock_wait, writer="rollback"):
        _remove_leftovers(root)
        served = current_id(root) or ""  # its folder may be gone (deleted by hand): what serve says to fix this way
        older = older_snapshots(root, served)
        if not older:
            raise IndexUnavailable(f"no snapshot older than {served} is kept in {root}: nothing to roll back to")
        passed: list[str] = []
        unservable: list[str] = []  # snapshots of another schema version, said in one reason
        for target in older:
            facts = withdrawn(snapshots_dir(root) / target)
            if facts is not None:
                when = f" at {facts['withdrawn_at']}" if isinstance(facts.get("withdrawn_at"), str) else ""
                passed.append(f"snapshot {target} was rolled back from{when}")
                continue
            try:
                meta = verify(snapshots_dir(root) / target)
            except IndexUnavailable as exc:
                passed.append(f"damaged: {exc}")
                continue
            # One of another schema (kept from before a code upgrade) is refused by every worker, which
            # then served an even older one, /healthz degraded: passed over as a damaged one is (a QA pass).
            if other_schema(meta) is not None:
                unservable.append(f"{target} (schema version {meta.get('schema_version')})")
                continue
            for reason in _with_unservable(passed, unservable):
                log.warning("rollback skipped a snapshot: %s", reason)
            _serve(root, target, served)
            return served, target
        raise IndexUnavailable(
            f"no snapshot older than {served} in {root} can be rolled back to "
            f"({'; '.join(_with_unservable(passed, unservable))}): nothing to roll back to, {served} stays served"
        )


def _with_unservable(passed: list[str], unservable: list[str]) -> list[str]:
    """Return the reasons a rollback passed snapshots over, those of another schema version in one."""
    if not unservable:
        return passed
    from index.schema import SCHEMA_VERSION

    many = len(unservable) > 1
    return [*passed, f"another schema version: snapshot{'s' if many else ''} {', '.join(unservable)} "
                     f"{'were' if many else 'was'} built by other code; this code serves schema version "
                     f"{SCHEMA_VERSION} only"]


def _serve_kept(root: Path, snap_id: str, lock_wait: float) -> tuple[str, str]:
    """Serve kept snapshot *snap_id* once it verifies; return (from, to)."""
    with write_lock(root, wait=lock_wait, writer="rollback"):
        _remove_leftovers(root)
        served = current_id(root)  # None: snapshots kept but no current link (serve says to choose one so)
        kept = snapshot_ids(root)
        if snap_id not in kept:
            raise IndexUnavailable(f"no snapshot {snap_id} is kept in {root} (kept: {', '.join(kept) or 'none'})")
        if snap_id == served:
            raise IndexUnavailable(f"snapshot {snap_id} is the one served in {root} already")
        meta = verify(snapshots_dir(root) / snap_id)
        if (why := other_schema(meta)) is not None:  # served, every worker refused it (a QA pass)
            raise IndexUnavailable(f"snapshot {snap_id} was {why}: the service would refuse it; nothing was "
                                   "rolled back (build the index again with this code instead)")
        _serve(root, snap_id, served)
        return served or "", snap_id  # "": no snapshot was current


def older_snapshots(root: Path, than: str) -> list[str]:
    """Return the ids of the snapshots under *root* older than *than*, newest first."""
    return [name for name in reversed(snapshot_ids(root)) if name < than]


def stand_ins(root: Path, than: str) -> list[str]:
    """Return the ids of the snapshots that may stand in for a damaged or missing *than*, newest first:
    the older ones, less those rolled back from (withdrawn: never served again in its place, as a
    rollback passes them over)."""
    return [name for name in older_snapshots(root, than) if withdrawn(snapshots_dir(root) / name) is None]


def no_current(root: Path) -> IndexUnavailable:
    """Return the error of *root* serving no snapshot: never built, or snapshots kept and no
    ``current`` link (a copy without it, a link deleted by hand), with the command that picks one
    ("no index has been built" sent an operator to build again over a site's snapshots)."""
    if kept := snapshot_ids(root):
        # The newest not rolled back from: the hint named the one an operator had just withdrawn.
        good = [name for name in kept if withdrawn(snapshots_dir(root) / name) is None]
        newest = f"the newest is {kept[-1]}" if good[-1:] == kept[-1:] else (
            f"the newest not rolled back from is {good[-1]}" if good else "each was rolled back from")
        return IndexUnavailable(
            f"{root} holds {len(kept):,} snapshot{'' if len(kept) == 1 else 's'} but no current link: choose the one to serve "
            f"with `topichub rollback --to SNAPSHOT --index-dir {root}` ({newest})"
        )
    return IndexUnavailable(f"no index has been built in {root} yet")


def current_path(root: Path) -> Path:
    """Return the published snapshot's folder, or raise IndexUnavailable."""
    snap = current_id(root)
    if snap is None:
        raise no_current(root)
    path = snapshots_dir(root) / snap
    if not path.is_dir():
        raise IndexUnavailable(f"the published snapshot {snap} is missing from {root}")
    return path
