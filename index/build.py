"""Build a snapshot from a corpus and publish it, or leave the live index untouched on failure."""

from __future__ import annotations

import ctypes
import gc
import json
import logging
import multiprocessing
import os
import pickle
import shutil
import signal
import time
import warnings
from collections.abc import Callable, Container, Iterable, Mapping
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import NamedTuple

import numpy as np
# The sparse products of bulk embedding (index/vectors.py imports scipy only when it embeds, as web
# workers never do): loaded with this module, before the indexing processes fork, not by each.
import scipy.sparse  # noqa: F401
from whoosh import index as whoosh_index
from whoosh.codec.whoosh3 import W3Segment
from whoosh.fields import Schema
from whoosh.filedb.filestore import Storage

from index.dates import as_date_time, now_utc, parse_iso, timestamp
from corpus.jsonl import ID_MAX_LENGTH
from corpus.records import KIND_LABELS, Record
from corpus.sources import DEFAULT_DIR, Corpus, load_corpus
from index import store, vectors
from index.schema import SCHEMA_VERSION, content_digest, id_namespace, make_schema, to_document
from index.analysis import AUTO_LANGUAGE, DEFAULT_LANGUAGE, LANGUAGES, TermAnalyzer, analyse_groups, chain_language, tell_language
from index.segment import SegmentBuilder

Progress = Callable[[int], None]
log = logging.getLogger(__name__)

# The most documents in one segment: a segment's inverted lists are held in memory until written.
SEGMENT_DOCS = 80_000
# Fewer documents than this per process are indexed in one process (forking would cost more).
MIN_PART_DOCS = 1_000
_PR_SET_PDEATHSIG = 1  # prctl option (linux/prctl.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt options (glibc's malloc.h)
_PROGRESS_EVERY = 500  # documents between progress messages from an indexing process
_POLL_SECONDS = 0.2  # how long the build waits on its indexing processes before it checks for one


class BuildError(RuntimeError):
    """The new snapshot failed its checks; the live index was not touched."""


@dataclass(frozen=True, slots=True)
class _Job:
    """What every indexing process of one build shares (a forked process inherits it, no copy)."""

    storage: Storage
    schema: Schema
    records: list[Record]
    seen: dict[str, Known]  # what the published index knew of each id (first_seen, revised, what it said)
    now: str
    matrix: np.ndarray | None  # the mapped vectors file, a row per record; None when vectors are off


@dataclass(frozen=True, slots=True)
class Dating:
    """How the records a build or update indexes are dated, where a reader would not expect it.

    A record without a date of its own is dated to when the index first held it (``to_document``):
    the build or update that first indexes it, so it sorts as newest and falls into since/until
    filters as if it were news.  A date after the build or before 1970 is taken as given (it sorts
    first or last), but is more likely a placeholder (9999-12-31, 0001-01-01) than a fact.  Neither
    is refused: the summary says how many, so that the sources can be fixed.  Undated records are
    only worth a word beside dated ones: all undated (the bundled corpus), they keep the order in
    which they were first indexed, as a reader expects.
    """

    undated: int = 0  # records without a date of their own
    dated: int = 0  # records with one
    undated_now: int = 0  # of those, the ones first indexed now: dated to this build or update
    future: tuple[str, ...] = ()  # ids of records dated after the build or update
    before_1970: tuple[str, ...] = ()  # ids of records dated before 1970-01-01


def dating(records: Iterable[Record], seen: Container[str], now: str) -> Dating:
    """Return how *records* are dated when indexed at *now* (a canonical UTC date-time), the ids in
    *seen* keeping the first_seen the index already knew for them (a rebuild does not redate them)."""
    undated = undated_now = dated = 0
    future: list[str] = []
    before_1970: list[str] = []
    at = timestamp(now)
    for record in records:
        published = getattr(record, "published", None)
        if not published:
            undated += 1
            undated_now += record.id not in seen
            continue
        dated += 1
        if (moment := timestamp(published)) > at:  # as the date column sorts them: a date is its midnight
            future.append(record.id)
        elif moment < 0:
            before_1970.append(record.id)
    return Dating(undated, dated, undated_now, tuple(future), tuple(before_1970))


@dataclass(frozen=True, slots=True)
class BuildReport:
    snapshot: str
    path: str
    doc_count: int
    replaced_duplicates: int
    seconds: float
    docs_per_second: float
    size_bytes: int
    dating: Dating = Dating()
    language: str = DEFAULT_LANGUAGE  # its words in Latin letters stemmed as this language's
    told: tuple[int, int] | None = None  # told from the texts: its function words' count in them, and English's
    named: bool = False  # named by build --language, for this build or (kept) for the published snapshot
    kept: bool = False  # the one named for the published snapshot
    undone: Undone | None = None  # the published snapshot's updates this build's sources do not make


@dataclass(frozen=True, slots=True)
class Undone:
    """What ``topichub update`` changed in the published snapshot since its build and a build from the
    sources replaced (``undone_updates``): said, not refused, since such a build is how an index is
    reset, but an editor who forgot an update lost it without a word (docs/topics.md said so; a QA pass)."""

    ids: tuple[str, ...] | None  # the documents, in the order first changed; None: not listed (``read_updated``)
    updates: int  # the updates since the build (the latest 50 of them: snapshot.json keeps no more)
    latest: str  # when the last of them was applied


def _dedupe(records: Iterable[Record]) -> tuple[list[Record], int]:
    by_id: dict[str, Record] = {}
    seen = 0
    for record in records:
        if not seen % store.STOP_EVERY:
            store.check_stop()
        seen += 1
        by_id.pop(record.id, None)  # a repeated id replaces the earlier one, at its new place
        by_id[record.id] = record
    return list(by_id.values()), seen - len(by_id)


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.iterdir() if p.is_file())


def build_corpus(
    corpus: Corpus,
    root: Path,
    *,
    progress: Progress | None = None,
    procs: int = 1,
    lock_wait: float = 0.0,
    lock_held: bool = False,
    semantic: bool | None = None,
    language: str | None = None,
) -> BuildReport:
    """Index *corpus* into a new snapshot under *root* and publish it, with vectors when *semantic* says
    so (None: when ``TOPICHUB_SEMANTIC`` does; an explicit ``build --semantic`` wins over it).

    *language*: the language (of ``index.analysis.LANGUAGES``) its words in Latin letters are stemmed as,
    named (``build --language``: a later build keeps it); None: the one named for the published snapshot,
    else the one its texts' function words tell (``tell_language``), English unless another's are many
    more; ``AUTO_LANGUAGE``: the one its texts tell.

    *lock_held*: the caller holds *root*'s write lock already (taken before it read the sources)."""
    root = Path(root)
    started = time.perf_counter()
    records, replaced = _dedupe(corpus.records)
    if language not in (None, AUTO_LANGUAGE, *LANGUAGES):
        raise BuildError(f"no stemmer for the language {language!r}: one of {', '.join(sorted(LANGUAGES))}")
    with nullcontext() if lock_held else store.write_lock(root, wait=lock_wait, writer="build"):
        (seen, served, departed), now = known_documents(root), now_utc()
        language, named, told, kept = _language(records, language, served)
        undone = undone_updates(root, served, seen, records)
        known = {**departed, **seen}  # an id taken out and back: first seen when it first was, revised now
        dates = dating(records, known, now)
        store.check_stop()
        snap_id, work = store.new_workdir(root)
        try:
            matrix = vectors.new_matrix(work, len(records)) if (vectors.enabled() if semantic is None else semantic) else None
            _write_index(work, records, known, now, matrix, procs=procs, progress=progress, language=language)
            write_departed(work, departures(departed, seen, {record.id for record in records}))
            store.check_stop()
            _check(work, len(records))
            # A fresh build numbers its documents in the order of *records* (segments in range order).
            semantic_meta = None if matrix is None else vectors.write(work, [r.id for r in records], matrix)
            store.check_stop()
            seconds = time.perf_counter() - started
            query_analyzer = make_schema(language)["body"].analyzer
            store.write_meta(
                work,
                {
                    "snapshot": snap_id,
                    "doc_count": len(records),
                    "schema_version": SCHEMA_VERSION,
                    "language": language,  # its words in Latin letters stemmed as this language's (the schema's chain says it too)
                    "language_named": named,  # by build --language (a later build keeps it: ``_language``)
                    "fingerprint": corpus.fingerprint,
                    "sources": [str(p) for p in corpus.sources],
                    "built_at": now_utc(),  # with a Z, as every other time the service gives
                    "build_seconds": round(seconds, 3),
                    "build_doc_count": len(records),  # doc_count moves with updates; this stays (for /metrics)
                    **({"feed_floor": floor} if (floor := store.feed_floor(root)) else {}),  # after a rollback (index.store)
                    **({"changed_at": changed} if (changed := _changed_at(root, served, seen, records, corpus.fingerprint, now)) else {}),
                    "topics": {slug: asdict(topic) for slug, topic in corpus.topics.items()},
                    "organisations": {slug: asdict(org) for slug, org in corpus.organisations.items()},
                    "kind_labels": dict(KIND_LABELS),
                    "id_prefix": id_namespace(record.id for record in records),  # search/snapshot.py ``named``
                    # Analysed now, searched with by this snapshot: an edit means a rebuild, like a schema change.
                    "synonyms": analyse_groups(corpus.synonyms, query_analyzer),
                    "synonyms_written": [list(group) for group in corpus.synonyms],  # as typed: a correction shows them
                    # Regions, one way: each a pair of its variants and the places in it (as typed: written).
                    "synonyms_within": [analyse_groups(pair, query_analyzer) for pair in corpus.within],
                    "synonyms_within_written": [[list(side) for side in pair] for pair in corpus.within],
                    "semantic": semantic_meta,
                },
            )
            size = _size(work)
            final = store.publish(root, snap_id, work)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    return BuildReport(
        snapshot=snap_id,
        path=str(final),
        doc_count=len(records),
        replaced_duplicates=replaced,
        seconds=round(seconds, 3),
        docs_per_second=round(len(records) / seconds, 1) if seconds else 0.0,
        size_bytes=size,
        dating=dates,
        language=language,
        told=told,
        named=named,
        kept=kept,
        undone=undone,
    )


def _language(records: list[Record], language: str | None, served: Mapping[str, object] | None
              ) -> tuple[str, bool, tuple[int, int] | None, bool]:
    """Return the language *records* are stemmed as (``build_corpus``'s *language*), whether it is named,
    its function words' count in their texts and English's when they tell it, and whether it is the
    one named for the published snapshot (its facts *served*, as ``known_documents`` read them)."""
    if language not in (None, AUTO_LANGUAGE):
        return language, True, None, False
    if language is None and served is not None and served.get("language_named") and served.get("language") in LANGUAGES:
        return str(served["language"]), True, None, True
    told, hits = tell_language(text for record in records for text in (record.title, record.body))
    return told, False, (hits[told], hits[DEFAULT_LANGUAGE]), False


class Known(NamedTuple):
    """What the published snapshot knew of a document id: when it was first seen and last revised,
    and the digest of what it said (``index.schema.content_digest``)."""

    first_seen: str
    revised: str | None
    content: bytes


def _changed_at(root: Path, served: dict[str, object] | None, seen: Iterable[str], records: list[Record], fingerprint: str,
                now: str) -> str | None:
    """Return when a document the index held was last taken out of it or may have changed (``changed_at``
    in snapshot.json): *now* when the published snapshot (its facts *served*, as ``known_documents``
    read them: None when it could not be read) held one *records* lacks, or was built from other
    sources (*fingerprint*), else what that snapshot says.  A feed's updated is no earlier: it went
    back to the entry before's date when its newest was deleted (a QA pass), or edited out of the
    feed's search (a review)."""
    if served is None:  # none published (a first build: None), or damaged: what changed since is not known
        return None if store.current_id(root) is None else now  # (it gave none, and a feed's updated went back: a review)
    ids = {record.id for record in records}
    if any(doc_id not in ids for doc_id in seen) or served.get("fingerprint") != fingerprint:
        return now
    earlier = served.get("changed_at")
    return earlier if isinstance(earlier, str) else None


def known_documents(root: Path) -> tuple[dict[str, Known], dict[str, object] | None, dict[str, Known]]:
    """Return what the published snapshot knows of each document id (empty when none is readable), its
    facts (snapshot.json) when it is the one read, else None, and the ids it no longer holds
    (``read_departed``).

    A snapshot written before first_seen existed gives its build time: its documents were in the
    index at least since then.  A damaged or missing published snapshot gives way to the newest
    older one that verifies and was not rolled back from (the one ``serve`` answers from meanwhile):
    the rebuild that repaired it dated every document to itself, and the feeds and the newest-first
    listing offered them all as new.  With none readable the rebuild still runs, everything first
    seen now: a build is how a damaged index is repaired (one without its manifest, its damage
    unseen until Whoosh read it, stopped the build with a traceback).  A snapshot that could not be
    read is warned of, in one line with the consequence.
    """
    current = store.current_id(root)
    unreadable: list[str] = []
    for snap_id in [current, *store.stand_ins(root, current)] if current is not None else []:
        read = _read_known(store.snapshots_dir(root) / snap_id)
        if isinstance(read, str):
            unreadable.append(read)
            continue
        if unreadable:
            log.warning("the published snapshot could not be read (%s): the first-seen dates are "
                        "those of snapshot %s", "; ".join(unreadable), snap_id)
        known, meta, departed = read
        return known, None if unreadable else meta, departed
    if unreadable:
        log.warning("the published snapshot could not be read (%s): first-seen dates start afresh, "
                    "each document first seen by this build", "; ".join(unreadable))
    return {}, None, {}


def _read_known(path: Path) -> tuple[dict[str, Known], dict[str, object], dict[str, Known]] | str:
    """Return what snapshot *path* knows of each document id (``known_documents``), its facts and the
    ids it no longer holds, or why it cannot be read."""
    with warnings.catch_warnings():
        # A segment Whoosh fails to open leaves the files it had opened to the collector, which warns.
        warnings.simplefilter("ignore", ResourceWarning)
        try:
            meta = store.read_meta(path, stoppable=True)  # a stop is honoured while it is read (store.check_files)
            return _known(meta, whoosh_index.open_dir(str(path))), meta, read_departed(path)
        except store.Stopped:
            raise
        except store.IndexUnavailable as exc:
            why = str(exc)
        except Exception as exc:  # noqa: BLE001 - Whoosh has no checksums: a damaged file raises anything
            why = f"snapshot {path.name} cannot be read: {type(exc).__name__}: {exc}"
        gc.collect()  # the frames holding them went with the exception: closed here, without a word
    return why


def _known(meta: dict[str, object], ix: whoosh_index.Index) -> dict[str, Known]:
    built = meta.get("built_at")
    fallback = parse_iso(built) if isinstance(built, str) else now_utc()
    known: dict[str, Known] = {}
    try:
        with ix.searcher() as searcher:
            for fields in searcher.reader().all_stored_fields():
                store.check_stop()  # each document a safe point: at 64k they take a second or more to read
                known[str(fields["id"])] = Known(str(fields.get("first_seen") or fallback), fields.get("revised"),
                                                 content_digest(fields))
            return known
    finally:
        ix.close()


# The ids an index held and no longer does (deleted by an update, or left out of a rebuild's sources), each
# with when it was first seen, in the order they left, the latest DEPARTED_KEPT of them: one that comes back
# is first seen when it first was, and revised when it comes back.  As new, it had no revised, and its feed
# entry's updated was its date, before what the feed showed of it until it left (a correction's time): a
# feed reader kept the text it had (a QA pass).  Beside the snapshot's files, read only by builds and updates.
DEPARTED_FILE = "departed.json"
DEPARTED_KEPT = 50_000


def read_departed(snapshot: Path) -> dict[str, Known]:
    """Return the ids *snapshot* no longer holds (``DEPARTED_FILE``), each Known by its first_seen alone:
    what it said is no one's (``indexed`` then revises it).

    A file that cannot be read as written (JSON, entries of an id and a date-time) is warned of and
    read as none: only the departed ids are lost, not the snapshot's own dates.  Trusted, a first_seen
    of null became a document's and broke its feed (a 500) and every later build of it; unreadable,
    it made the whole snapshot unreadable to a build (every date afresh) and an update a traceback (a
    QA pass)."""
    path = snapshot / DEPARTED_FILE
    try:
        listed = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:  # none has left it, or it was written before the file
        return {}
    except json.JSONDecodeError as exc:
        return _unread(path, f"line {exc.lineno}, column {exc.colno}: {exc.msg}")
    except (OSError, UnicodeDecodeError) as exc:
        return _unread(path, str(exc))
    entries = listed.get("departed") if isinstance(listed, dict) else None
    if not isinstance(entries, list):
        return _unread(path, "it holds no list \"departed\"")
    departed: dict[str, Known] = {}
    for number, entry in enumerate(entries, start=1):
        if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(part, str) for part in entry)
                and entry[0] and len(entry[0]) <= ID_MAX_LENGTH):
            return _unread(path, f"entry {number} is not [id, first_seen]")
        try:
            first_seen = as_date_time(parse_iso(entry[1]))
        except ValueError:
            return _unread(path, f"entry {number}: first_seen {entry[1][:40]!r} is no ISO 8601 date-time")
        departed[entry[0]] = Known(first_seen, None, b"")
    return departed


def _unread(path: Path, why: str) -> dict[str, Known]:
    """Warn that *path* (a ``DEPARTED_FILE``) is read as none, and why; return none."""
    log.warning("%s: %s: read as none (an id that left the index and comes back is first seen now)", path, why)
    return {}


def departures(departed: dict[str, Known], held: Mapping[str, Known], kept: Container[str]) -> dict[str, Known]:
    """Return the ids departed from an index that held *held* (and had seen *departed* leave) once it
    holds only *kept*: those that left before and did not come back, then those leaving now."""
    return {doc_id: known for doc_id, known in (*departed.items(), *held.items()) if doc_id not in kept}


# The ids `topichub update` changed (added, edited or deleted) in a snapshot since its build, in the order
# first changed: each update writes them beside its snapshot, the earlier updates' with its own, and a build
# reads them to say which of those changes it undoes (a build writes none: its snapshot says what its
# sources say).  Not in snapshot.json, which every worker reads: an update of the 64k corpus names 64k ids.
UPDATED_FILE = "updated.json"


def read_updated(snapshot: Path) -> list[str] | None:
    """Return the ids updates changed in *snapshot* since its build (``UPDATED_FILE``), or None when they
    are not known: it was updated before updates listed them, or the file cannot be read as written."""
    try:
        listed = json.loads((snapshot / UPDATED_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    ids = listed.get("updated") if isinstance(listed, dict) else None
    return ids if isinstance(ids, list) and all(isinstance(doc_id, str) for doc_id in ids) else None


def write_updated(snapshot: Path, ids: Iterable[str]) -> None:
    """Write *ids* (each once, where first named) as *snapshot*'s ``UPDATED_FILE``."""
    store.write_meta(snapshot, {"updated": list(dict.fromkeys(ids))}, UPDATED_FILE)


def undone_updates(root: Path, served: dict[str, object] | None, seen: Mapping[str, Known], records: list[Record]
                   ) -> Undone | None:
    """Return what the updates of *root*'s published snapshot (its facts *served*, its documents *seen*:
    ``known_documents``) changed that *records* do not say again, or None when they undo nothing.

    A document an update added or edited is undone when the build lacks it or says something else
    (``content_digest``), one it deleted when the build holds it: a build with the change file among its
    sources, or sources edited the same way, undoes none, and is not warned of.  A few ids read, and
    the documents of those: nothing at all after a build, whose snapshot lists no update."""
    updates = served.get("updates") if served is not None else None  # None: unread, and warned of
    if not isinstance(updates, list) or not updates:
        return None
    latest = str(updates[-1].get("at") if isinstance(updates[-1], dict) else "")
    updated = read_updated(store.current_path(root))
    if updated is None:  # listed by count alone: none can be told kept
        return Undone(None, len(updates), latest)
    by_id = {record.id: record for record in records} if updated else {}
    undone = tuple(doc_id for doc_id in updated if _undoes(by_id.get(doc_id), seen.get(doc_id)))
    return Undone(undone, len(updates), latest) if undone else None


def _undoes(record: Record | None, known: Known | None) -> bool:
    """Return whether indexing *record* (None: the build lacks its id) undoes what the published
    snapshot says of its id (*known*; None: it holds none, an update deleted it)."""
    if record is None or known is None:
        return (record is None) != (known is None)
    return content_digest(to_document(record, 0)) != known.content


def write_departed(snapshot: Path, departed: dict[str, Known]) -> None:
    """Write *departed* (the latest DEPARTED_KEPT) as *snapshot*'s ``DEPARTED_FILE``, or none when it is empty."""
    if not departed:
        (snapshot / DEPARTED_FILE).unlink(missing_ok=True)  # an update's copy of its snapshot's
        return
    latest = list(departed.items())[-DEPARTED_KEPT:]
    store.write_meta(snapshot, {"departed": [[doc_id, known.first_seen] for doc_id, known in latest]}, DEPARTED_FILE)


def indexed(record: Record, order: int, known: Known | None, now: str) -> dict[str, object]:
    """Return the document *record* is indexed as, the *order*-th, at *now*: with the first_seen the
    index knew for its id (else *now*), and revised *now* where it says something else than the
    index's document of that id did (else when that one was revised): a feed entry's ``updated``."""
    if known is None:
        return to_document(record, order, now)
    document = to_document(record, order, known.first_seen, known.revised)
    if content_digest(document) != known.content:
        document["revised"] = now
    return document


def _ranges(start: int, stop: int, parts: int) -> list[tuple[int, int]]:
    """Split [start, stop) into *parts* contiguous ranges of nearly equal size."""
    size, extra = divmod(stop - start, parts)
    bounds = [start]
    for i in range(parts):
        bounds.append(bounds[-1] + size + (1 if i < extra else 0))
    return list(zip(bounds, bounds[1:]))


def _segment_ranges(start: int, stop: int) -> list[tuple[int, int]]:
    count = stop - start
    return _ranges(start, stop, max(1, -(-count // SEGMENT_DOCS))) if count else []


def _write_range(job: _Job, start: int, stop: int, report: Progress | None) -> list[W3Segment]:
    """Index records[start:stop] into segments, then embed them into their rows of the vectors file."""
    part = job.records[start:stop]
    segments = _write_segments(job.storage, job.schema, part, start, report, job.seen, job.now)
    if job.matrix is not None:
        job.matrix[start:stop] = vectors.embed_records(part)  # title and body: first_seen plays no part
    return segments


def _write_segments(
    storage: Storage, schema, records: list[Record], offset: int, report: Progress | None, seen: dict[str, Known], now: str
) -> list[W3Segment]:
    """Index *records* (listing order offset+1...) into segments of at most SEGMENT_DOCS.

    Each record is indexed with its first_seen and revised (``indexed``: from *seen*, else *now*),
    passed to ``to_document`` rather than stamped on a copy of the record: a
    ``dataclasses.replace`` per record cost 0.09 CPU s for each 32k documents."""
    analyzer = TermAnalyzer(language=chain_language(schema["body"].analyzer))  # its cache of analysed tokens serves every segment
    segments = []
    gc_was_enabled = gc.isenabled()
    # Millions of small lists and no cycles: the cyclic collector would walk them all, again and again.
    gc.disable()
    try:
        for lo, hi in _segment_ranges(0, len(records)):
            builder = SegmentBuilder(schema, storage, analyzer=analyzer)
            try:
                for n in range(lo, hi):
                    if not n % store.STOP_EVERY:
                        store.check_stop()
                    record = records[n]
                    builder.add(indexed(record, offset + n + 1, seen.get(record.id), now))
                    if report is not None:
                        report(1)
                segments.append(builder.write())
            except BaseException:
                builder.cancel()
                raise
    finally:
        if gc_was_enabled:
            gc.enable()
    return segments


def _die_with(parent: int) -> None:
    """End this indexing process as soon as the build process *parent* is gone.

    A worker inherits the build's write lock (flock belongs to the open file, which fork shares), so
    a worker left running by a killed build would keep the next build out until it finished.
    """
    try:  # Linux: the kernel sends SIGKILL when the parent dies
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass  # elsewhere the progress reports below notice it
    if os.getppid() != parent:  # it died before prctl took effect
        os._exit(1)


def _keep_freed_memory() -> None:
    """Have glibc's malloc keep the memory this indexing process frees, to serve its next allocations.

    By default a block of more than 128 KB-32 MB (numpy's token arrays, posting lists, pickled
    blocks) is mapped on its own and unmapped when freed, and the heap's free top is given back, so
    the next array of that size is faulted in again page by page.  An indexing process lives for one
    build, so it keeps what it freed: 4 % less CPU for each half of the 64k corpus (5.36-5.42 ->
    5.07-5.22 s, 96k -> 88k page faults).  Only here: a long-lived process that builds in-process
    (one part) keeps the default.
    """
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)  # glibc's largest: blocks up to 32 MB from the heap
        libc.mallopt(_M_TRIM_THRESHOLD, 1 << 30)
    except (OSError, AttributeError):
        pass  # not glibc: its own defaults


def _worker(conn: Connection, job: _Job, start: int, stop: int, parent: int) -> None:
    """Index (and embed) a range of records in a forked process; send progress, then the segments or the error."""
    _die_with(parent)
    _keep_freed_memory()
    pending = 0

    def report(count: int) -> None:
        nonlocal pending
        pending += count
        if pending >= _PROGRESS_EVERY:
            if os.getppid() != parent:
                os._exit(1)
            conn.send(("progress", pending))
            pending = 0

    try:
        segments = _write_range(job, start, stop, report)
        if pending:
            conn.send(("progress", pending))
        conn.send(("done", segments))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent, which raises it
        # With the OSError that raised it on the way, if any: pickling drops __cause__ and __context__, and
        # a full disk under Whoosh's writer ("This file is already closed") reached the command as a traceback.
        cause = store.os_error_in(exc)
        try:
            conn.send(("error", (_portable(exc), None if cause is None or cause is exc else _portable(cause))))
        except OSError:
            pass  # the parent stopped listening (it is stopping, and ends this process): a traceback here said nothing
    finally:
        conn.close()


def _portable(exc: BaseException) -> BaseException:
    """Return *exc* as it can be sent to the build's process: itself, or as text if it does not pickle."""
    try:
        return pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - an exception that does not pickle is sent as text
        return BuildError(f"indexing process failed: {type(exc).__name__}: {exc}")


def _parallel_segments(job: _Job, parts: int, progress: Progress | None) -> list[W3Segment]:
    """Index the records in *parts* forked processes, each writing (and embedding) one range."""
    ctx = multiprocessing.get_context("fork")
    workers = []
    try:
        for lo, hi in _ranges(0, len(job.records), parts):
            receive, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_worker, args=(send, job, lo, hi, os.getpid()), daemon=True)
            proc.start()
            send.close()
            workers.append((proc, receive))
        results: dict[Connection, list[W3Segment]] = {}
        open_conns = [conn for _, conn in workers]
        while open_conns:
            store.check_stop()
            for conn in wait(open_conns, timeout=_POLL_SECONDS):
                try:
                    kind, payload = conn.recv()
                except EOFError:
                    store.check_stop()  # killed with the build's own process group (it is being stopped)
                    raise BuildError(_died(next(proc for proc, c in workers if c is conn))) from None
                if kind == "progress":
                    if progress is not None:
                        progress(payload)
                elif kind == "error":
                    error, cause = payload
                    if cause is not None:
                        raise error from cause
                    raise error
                else:
                    results[conn] = payload
                    open_conns.remove(conn)
        return [segment for _, conn in workers for segment in results[conn]]
    finally:
        for proc, conn in workers:
            conn.close()
            if proc.is_alive():
                proc.kill()  # not SIGTERM: an indexing process forked under stop_on_signals would only note it
            proc.join()


def _died(proc: multiprocessing.process.BaseProcess) -> str:
    """Return why the build failed when indexing process *proc* ended without a word: killed (by the
    kernel's out-of-memory killer, most likely) or exited, with what to do."""
    proc.join(timeout=5)  # its pipe closed as it died: reaped now, its exit status is known
    code = proc.exitcode
    if code is not None and code < 0:
        try:
            how = f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"was killed by signal {-code}"
    else:
        how = "died" if code is None else f"exited with status {code}"
    return (f"an indexing process {how} before finishing its documents: it may have run out of memory; the live "
            "index is untouched, nothing was published: retry with fewer indexing processes (--procs)")


def _write_index(
    work: Path,
    records: list[Record],
    seen: dict[str, Known],
    now: str,
    matrix: np.ndarray | None,
    *,
    procs: int,
    progress: Progress | None,
    language: str,
) -> None:
    """Write *records* as a Whoosh index in *work*, and their vectors into *matrix* unless it is None.

    The indexing processes embed their own ranges of records after indexing them, into the shared
    mapping of the vectors file, so the vectors add no step of their own to a build's critical path.
    """
    ix = whoosh_index.create_in(str(work), make_schema(language))
    storage, schema = ix.storage, ix.schema
    job = _Job(storage, schema, records, seen, now, matrix)
    parts = max(1, min(procs, len(records) // MIN_PART_DOCS))
    if parts == 1:
        segments = _write_range(job, 0, len(records), progress)
    else:
        segments = _parallel_segments(job, parts, progress)
    # Plain segment files, not one compound file: Whoosh reads a compound file's parts into memory
    # (BytesIO copies) in every worker, where plain files are memory-mapped.
    generation = ix.latest_generation() + 1
    whoosh_index.TOC(schema, segments, generation).write(storage, ix.indexname)
    whoosh_index.clean_files(storage, ix.indexname, generation, segments)


def _check(work: Path, expected: int) -> None:
    ix = whoosh_index.open_dir(str(work))
    try:
        with ix.searcher() as searcher:
            found = searcher.doc_count()
    finally:
        ix.close()
    if found != expected:
        raise BuildError(f"the new index holds {found} documents, expected {expected}; not published")


def build(
    sources: Iterable[str | Path] = (DEFAULT_DIR,),
    root: str | Path = store.DEFAULT_INDEX,
    **options: object,
) -> BuildReport:
    """Load the corpus from *sources* and build it into *root* (see build_corpus)."""
    return build_corpus(load_corpus(sources), Path(root), **options)  # type: ignore[arg-type]
