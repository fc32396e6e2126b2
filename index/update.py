"""Update the published index from a change file, without a full rebuild.

A change file is JSONL (or .jsonl.gz), one operation a line:

- an upsert is a document in the JSONL corpus format (``id``, ``title``, ``summary``, ``topics``,
  optionally ``kind``, ``entities``, ``url``, ``published``; see corpus/jsonl.py).  A known id is
  replaced and keeps its place in listing order (``order`` and ``position``) and its ``first_seen``,
  and is stamped ``revised`` now when it says something else than before (``index.schema.content_digest``);
  a new id is added at the end of it, first seen now: its ``order`` follows the last document's, and
  its ``position`` the largest of its kind's (a build numbers them by their place in their source); one
  the index held before (``index.build.DEPARTED_FILE``) keeps its ``first_seen`` and is revised now;
- a delete is ``{"id": "...", "delete": true}`` and nothing else.  Deleting an unknown id is
  reported, not an error, so a change file can be applied twice.

A topic an upsert writes by the label of a topic the index holds, or by a slug it had before it was
renamed (its ``formerly``, which the build recorded), is that topic (its slug), as in a build, and a guide section gets an anchor no other section of its guide holds (a replaced one keeps
its own; see ``corpus.records.unique_anchors``).

When a line repeats an id, the later line wins, as in a build, and the report names the ids so
repeated (``topichub update`` warns of them: an export that repeats an id may hold an edit that was
meant to win and did not).  The whole file is validated before
anything is written.  The update copies the published snapshot into a new snapshot folder under the
write lock, applies the changes there, commits, checks that every change is visible, and publishes
it like a build: readers see the old snapshot or the new one, never a half-updated index.  It lists
the ids it changed, after those of the updates before it, in ``index.build.UPDATED_FILE``: the next
build from the sources replaces them, and says which (``index.build.undone_updates``).  The new
snapshot is this index's own: a copy's ``origin.json`` (a replica's, or a restored backup's) is not
carried into it, nor is the lock file Whoosh's writer leaves behind.
"""

from __future__ import annotations

import difflib
import hashlib
import logging
import re
import shutil
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from dataclasses import field as dataclass_field
from pathlib import Path

from whoosh import index as whoosh_index
from whoosh import query as wq

from index.dates import now_utc
from corpus.errors import CorpusError
from corpus.enrich import UNIFIED_FIELDS, enrich_records, load_taxonomy, name_topics, spelling_key, topic_names, unify_spellings
from corpus.jsonl import check_id, parse_line, read_objects
from corpus.records import EVENT, GUIDE, Event, GuideSection, Organisation, Record, Topic, unique_anchors
from index import store, vectors
from index.build import Dating, Known, dating, departures, read_departed, read_updated, write_departed, write_updated
from index.schema import SCHEMA_VERSION, content_digest, id_namespace, ids_of, to_document

# A delete line's only keys: anything else is a typo we should not guess at.
_DELETE_KEYS = {"id", "delete"}
# Whoosh's writer locks the index with this file and never removes it: not a part of any snapshot.
_WHOOSH_LOCK = "MAIN_WRITELOCK"
# Not copied into the updated snapshot: publish writes its own manifest, and a snapshot changed here
# is no longer the copy that origin.json describes (with it, serve and /healthz took it for a replica).
# Nor the notes on how the snapshot was served (``store.NOTES``): an update after a rollback copied
# stepped_back.json, which the manifest then listed, and a later switch deleting it left the new
# snapshot "missing its file stepped_back.json", refused (the regression QA pass).
_NOT_COPIED = {store.MANIFEST_FILE, store.ORIGIN_FILE, _WHOOSH_LOCK, *store.NOTES}
NEW_TOPICS_TOLD = 10  # topics no document of the index has that an update names, each warned of; the rest counted

log = logging.getLogger(__name__)


class UpdateError(RuntimeError):
    """The index cannot be updated (no index, or one of another schema version); nothing changed."""


@dataclass(frozen=True, slots=True)
class Changes:
    """What a change file asks for: documents to upsert and ids to delete, last line winning."""

    upserts: dict[str, Record]
    deletes: frozenset[str]
    repeated: tuple[str, ...] = ()  # ids on more than one line (upsert or delete), in the order they repeat
    organisations: Mapping[str, Organisation] = dataclass_field(default_factory=dict)  # of the gazetteer, the upserts name
    lines: Mapping[str, int] = dataclass_field(default_factory=dict)  # each upsert's line in the change file
    source: Path | None = None  # the change file

    def __len__(self) -> int:
        return len(self.upserts) + len(self.deletes)


@dataclass(frozen=True, slots=True)
class UpdateReport:
    snapshot: str  # the published snapshot (the previous one when there was nothing to change)
    previous: str
    added: int
    replaced: int
    deleted: int
    missing: tuple[str, ...]  # ids asked to be deleted that the index did not hold
    doc_count: int
    seconds: float
    repeated: tuple[str, ...] = ()  # ids the change file names on more than one line (Changes.repeated)
    dating: Dating = Dating()  # how the upserts are dated (index.build.dating)
    unchanged: int = 0  # upserts saying what the index already held: when all are, nothing is published

    @property
    def changed(self) -> bool:
        return self.snapshot != self.previous


def read_changes(path: str | Path) -> Changes:
    """Return the validated operations of change file *path*, or raise CorpusError at the bad line."""
    path = Path(path)
    upserts: dict[str, Record] = {}
    deletes: set[str] = set()
    repeated: dict[str, None] = {}  # an ordered set
    lines: dict[str, int] = {}
    for lineno, obj in read_objects(path):
        deleted = _delete_id(obj, path, lineno) if isinstance(obj, dict) and "delete" in obj else None
        # A record's place in the listing is the index's to give.
        record = parse_line(obj, path, lineno, 0) if deleted is None else None
        doc_id = record.id if record is not None else deleted
        if doc_id in upserts or doc_id in deletes:  # named by an earlier line, which this one overrides
            repeated[doc_id] = None
        upserts.pop(doc_id, None)
        deletes.discard(doc_id)
        if record is not None:
            upserts[doc_id] = record
            lines[doc_id] = lineno
        else:
            deletes.add(doc_id)
    # Updated documents get their related topics and organisations, as a build would give them.
    enriched = enrich_records(upserts.values())
    return Changes(upserts=dict(zip(upserts, enriched.records)), deletes=frozenset(deletes),
                   repeated=tuple(repeated), organisations=enriched.organisations, lines=lines, source=path)


def _delete_id(obj: dict[str, object], path: Path, lineno: int) -> str | None:
    """Return the id a delete line removes, None for ``"delete": false`` (an upsert), or raise."""
    flag = obj["delete"]
    if not isinstance(flag, bool):
        raise CorpusError(path, lineno, "'delete' must be true or false")
    if not flag:
        return None
    doc_id = obj.get("id")
    if not isinstance(doc_id, str) or not doc_id.strip():
        raise CorpusError(path, lineno, "'id' must be a non-empty string")
    extra = sorted(set(obj) - _DELETE_KEYS)
    if extra:
        raise CorpusError(path, lineno, f"a delete line has only 'id' and 'delete', not {', '.join(map(repr, extra))}")
    return check_id(doc_id.strip(), path, lineno)  # the same rules as an upsert's id


def _hub_organisations(changes: Changes, meta: dict[str, object]) -> Changes:
    """Return *changes* with the organisations their text names given to the lines of the index's hub
    topics (its snapshot's topics: those its build's topic pages defined, and the taxonomy's), as the
    build gave them: a second topic's events updated lost theirs (a QA pass: ``entity=nvidia`` of the
    second topic went from 5 to 4 when its NVIDIA Dynamo event was replaced); *changes* when no line
    is of such a topic.  A generic JSONL index records no topic, so its lines stay as they were written."""
    hub = frozenset(meta.get("topics") or ())  # type: ignore[arg-type]
    if not any(record.topic in hub for record in changes.upserts.values()):
        return changes
    enriched = enrich_records(changes.upserts.values(), hub)
    return replace(changes, upserts=dict(zip(changes.upserts, enriched.records)),
                               organisations={**changes.organisations, **enriched.organisations})


def update(path: str | Path, root: str | Path, *, lock_wait: float = 0.0) -> UpdateReport:
    """Apply change file *path* to the index under *root* and publish the result as a new snapshot."""
    changes = read_changes(path)
    return apply_changes(changes, Path(root), source=Path(path), lock_wait=lock_wait)


def apply_changes(changes: Changes, root: Path, *, source: Path | None = None, lock_wait: float = 0.0) -> UpdateReport:
    """Apply *changes* to a copy of the published snapshot under *root* and publish it."""
    started = time.perf_counter()
    store.current_path(root)  # no index: say so before creating a lock file in a folder that is wrong
    with store.write_lock(root, wait=lock_wait, writer="update"):
        previous = store.current_path(root)
        try:  # verified as a rollback verifies it: without its manifest its damage went unseen (a traceback
            # from Whoosh mid-update), and the update's own manifest would have vouched for it
            meta = store.verify(previous)
        except store.IndexUnavailable as exc:  # what is there to update is gone: say how to get an index back
            raise store.IndexUnavailable(f"{exc}: nothing to update; serve the snapshot before it "
                                         f"(topichub rollback) or build, then update again") from None
        if meta.get("schema_version") != SCHEMA_VERSION:
            raise UpdateError(
                f"the published snapshot has schema version {meta.get('schema_version')}, this code writes "
                f"{SCHEMA_VERSION}: run a full build instead of an update"
            )
        if not changes.upserts:  # only deletes: those of ids the index lacks change nothing
            missing = _unknown(previous, changes.deletes)
            if len(missing) == len(changes.deletes):
                return UpdateReport(previous.name, previous.name, 0, 0, 0, missing, int(meta.get("doc_count", 0)), 0.0,
                                    repeated=changes.repeated)
        # A topic written by the label of one the index holds ("Compute deals") is that topic (its slug).
        changes = _named_topics(changes, meta)
        _tell_new_topics(previous, changes, meta)
        changes = _hub_organisations(changes, meta)
        store.check_stop()
        snap_id, work = store.new_workdir(root)
        try:
            for item in previous.iterdir():  # a snapshot is flat: Whoosh files and snapshot.json
                if item.is_file() and item.name not in _NOT_COPIED:
                    store.check_stop()
                    shutil.copy2(item, work / item.name)
            added, replaced, missing, doc_count, dates, unchanged, changed = _apply(
                work, changes, store.listing_is_time(meta), read_departed(previous))
            if not added and unchanged == replaced and len(missing) == len(changes.deletes):
                # Every line says what the index holds (a change file applied again): a new snapshot
                # would serve the same and push an older one out of those kept for a rollback, and
                # "2 replaced" said nothing of it (a QA pass of the operator's).
                shutil.rmtree(work, ignore_errors=True)
                return UpdateReport(previous.name, previous.name, 0, 0, 0, missing, int(meta.get("doc_count", 0)),
                                    round(time.perf_counter() - started, 3), repeated=changes.repeated, unchanged=unchanged)
            if not doc_count:  # as a build of nothing is refused (a QA pass: it published an empty index)
                raise UpdateError("the update would delete every document the index holds, leaving it empty (a build "
                                  "of no documents is refused too): nothing was published")
            store.check_stop()
            meta["semantic"] = vectors.update(previous, work, meta.get("semantic"), changes.upserts)
            seconds = time.perf_counter() - started
            meta["id_prefix"] = _namespace(previous, changes)
            # Their names, as a build records them: an organisation the index had not named before was
            # labelled by its slug ("sk-group") where a build of the same says "SK Group" (a QA pass).
            if changes.organisations:
                meta["organisations"] = {**meta.get("organisations", {}),
                                         **{slug: asdict(org) for slug, org in changes.organisations.items()}}
            _count_rule_events(previous, changes, meta)
            meta.update(
                snapshot=snap_id,
                doc_count=doc_count,
                updated_at=now_utc(),  # with a Z, as every other time the service gives
            )
            if floor := store.feed_floor(root):  # served by a step back: its feeds' entries never go back before it
                meta["feed_floor"] = floor
            if len(changes.deletes) > len(missing) or replaced > unchanged:  # a document taken out or changed (index.build._changed_at)
                meta["changed_at"] = now_utc()  # as a changed document's revised
            history = list(meta.get("updates", []))  # type: ignore[arg-type]
            history.append(
                {
                    "file": str(source.resolve()) if source else None,
                    # A pipe's bytes are read once, by read_changes: opened again, it waited for a writer for ever.
                    "sha256": _sha256(source) if source and source.is_file() else None,
                    "at": meta["updated_at"],
                    "upserted": len(changes.upserts),
                    "deleted": len(changes.deletes) - len(missing),
                    "seconds": round(seconds, 3),
                    "doc_count": doc_count,
                }
            )
            meta["updates"] = history[-50:]  # the recent ones: the meta file stays small
            # With the earlier updates' ids, for the build that will undo them (index.build.undone_updates);
            # not when an earlier update listed none (before the file existed): the list would look whole.
            if (earlier := read_updated(previous) if len(history) > 1 else []) is not None:
                write_updated(work, [*earlier, *changed])
            store.write_meta(work, meta)
            store.publish(root, snap_id, work)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    return UpdateReport(
        snapshot=snap_id,
        previous=previous.name,
        added=added,
        replaced=replaced,
        deleted=len(changes.deletes) - len(missing),
        missing=missing,
        doc_count=doc_count,
        seconds=round(seconds, 3),
        repeated=changes.repeated,
        dating=dates,
    )


def _unknown(snapshot: Path, ids: frozenset[str]) -> tuple[str, ...]:
    """Return the ones of *ids* that no live document of *snapshot* has, sorted."""
    if not ids:
        return ()
    with whoosh_index.open_dir(str(snapshot)).searcher() as searcher:
        return tuple(sorted(doc_id for doc_id in ids if searcher.document_number(id=doc_id) is None))


def _count_rule_events(previous: Path, changes: Changes, meta: dict[str, object]) -> None:
    """Keep the event_count of each topic the enrichment rules assign (``corpus.enrich.enrich``: the
    home topic's events the rules put in it) true after *changes*: less those of *previous* the update
    replaces or deletes, plus those its upserts are given.  It was the build's: an event the rules put
    in data-centers-power added made its count 30 and event_count stayed 24 (a QA pass)."""
    topics = meta.get("topics")
    if not isinstance(topics, dict):
        return
    taxonomy = load_taxonomy()
    counted = [rule.topic.slug for rule in taxonomy.related if isinstance(topics.get(rule.topic.slug), dict)]
    if not counted:  # the build held no event of the home topic: the rules put no topic in the index
        return
    home = taxonomy.home.slug
    given: Counter[str] = Counter()
    with whoosh_index.open_dir(str(previous)).searcher() as searcher:
        for doc_id in (*changes.upserts, *changes.deletes):
            num = searcher.document_number(id=doc_id)
            fields = searcher.stored_fields(num) if num is not None else {}
            if fields.get("kind") == EVENT and fields.get("topic") == home:  # as the build counted it
                given.subtract(taxonomy.topics_for(f"{fields['title']}\n{fields['body']}"))
    for record in changes.upserts.values():
        if record.kind == EVENT and record.topic == home:
            given.update(taxonomy.topics_for(f"{record.title}\n{record.body}"))
    for slug in counted:
        if given[slug]:
            topics[slug] = {**topics[slug], "event_count": max(0, int(topics[slug].get("event_count") or 0) + given[slug])}


def _namespace(previous: Path, changes: Changes) -> str:
    """Return the ids' namespace after *changes* (``index.schema.id_namespace``): the previous
    snapshot's ids, less those deleted, with those upserted (0.1 s at 64k)."""
    with whoosh_index.open_dir(str(previous)).searcher() as searcher:
        ids = set(ids_of(searcher.reader()))
    return id_namespace((ids - changes.deletes) | changes.upserts.keys())


def _spellings_kept(searcher, changes: Changes, gone: set[int]) -> dict[str, dict[str, str]]:
    """Return how the documents the update keeps write the topics and organisations its upserts name
    (field → spelling key → spelling); documents it replaces or deletes (*gone*) have no say."""
    settled: dict[str, dict[str, str]] = {}
    for field in UNIFIED_FIELDS:
        keys = {spelling_key(value) for record in changes.upserts.values() for value in getattr(record, field)}
        found = settled[field] = {}
        for term in searcher.lexicon(field) if keys else ():
            value = term.decode("utf-8") if isinstance(term, bytes) else term
            key = spelling_key(value)
            if key in keys and key not in found and any(num not in gone for num in searcher.docs_for_query(wq.Term(field, value))):
                found[key] = value
    return settled


def _apply(work: Path, changes: Changes, apart: bool = True, departed: dict[str, Known] | None = None
           ) -> tuple[int, int, tuple[str, ...], int, Dating, int, tuple[str, ...]]:
    """Write *changes* into the index in *work*, numbering new documents after those of their kind
    (*apart*) or after every document; return (added, replaced, missing ids, doc count, how the upserts
    are dated: a replaced document keeps its first_seen, a new one is first seen now, how many
    replaced ones say what they said, and the ids it changed: added, edited or deleted).  An id the index held before (*departed*: ``index.build.read_departed``)
    comes back first seen when it first was and revised now; the ids deleted join those departed."""
    departed = departed or {}
    ix = whoosh_index.open_dir(str(work))
    try:
        with ix.searcher() as searcher:
            existing = {doc_id: searcher.document_number(id=doc_id) for doc_id in (*changes.upserts, *changes.deletes)}
            kept = {doc_id: searcher.stored_fields(num) for doc_id, num in existing.items() if num is not None}
            last = searcher.search(wq.Every(), sortedby="order", reverse=True, limit=1)
            next_order = (last[0]["order"] + 1) if len(last) else 1
            # Read only when something is added: it reads every document's stored fields.
            last_position = _last_positions(searcher, apart) if any(doc_id not in kept for doc_id in changes.upserts) else {}
            before = searcher.doc_count()
            # A topic or organisation the index already writes one way is written that way here too.
            settled = _spellings_kept(searcher, changes, {num for num in existing.values() if num is not None})
            upserts = dict(zip(changes.upserts, unify_spellings(list(changes.upserts.values()), settled)))
            upserts = _anchored(searcher, upserts, kept, existing)
        writer = ix.writer(limitmb=128, compound=False)  # memory-mapped files, as a build writes
        try:
            missing = tuple(sorted(doc_id for doc_id in changes.deletes if doc_id not in kept))
            for doc_id in sorted(changes.deletes):
                writer.delete_by_term("id", doc_id)
            added = 0
            same: set[str] = set()  # the ids replaced by what they said
            now = now_utc()
            dates = dating(upserts.values(), {**departed, **kept}, now)
            for done, (doc_id, record) in enumerate(upserts.items()):
                if not done % store.STOP_EVERY:
                    store.check_stop()
                old = kept.get(doc_id)
                if old is not None:  # an edit keeps its place in the listing, and when it was first seen
                    position, order, first_seen = int(old["position"]), int(old["order"]), old.get("first_seen") or now
                else:  # a new one comes last: after every document of its listing, first seen now (or when it first was)
                    listing = record.kind if apart else ALL_KINDS
                    position = last_position[listing] = last_position.get(listing, 0) + 1
                    order, first_seen = next_order, departed[doc_id].first_seen if doc_id in departed else now
                    next_order += 1
                    added += 1
                record = replace(_at_position(record, position), first_seen=first_seen)
                document = to_document(record, order, revised=old.get("revised") if old is not None else None)
                if (old is not None and content_digest(document) != content_digest(old)) or doc_id in departed:
                    document["revised"] = now  # it says something else (or again): a feed shows the entry as updated
                elif old is not None:
                    same.add(doc_id)
                writer.update_document(**document)
        except BaseException:
            writer.cancel()
            raise
        writer.commit()
    finally:
        ix.close()
        (work / _WHOOSH_LOCK).unlink(missing_ok=True)  # released by commit or cancel
    gone = {doc_id: Known(str(kept[doc_id].get("first_seen") or now), None, b"") for doc_id in sorted(changes.deletes) if doc_id in kept}
    write_departed(work, departures(departed, gone, changes.upserts))
    replaced = len(changes.upserts) - added
    doc_count = before + added - (len(changes.deletes) - len(missing))
    _check(work, changes, doc_count)
    changed = (*(doc_id for doc_id in upserts if doc_id not in same), *gone)
    return added, replaced, missing, doc_count, dates, len(same), changed


def _named_topics(changes: Changes, meta: dict[str, object]) -> Changes:
    """Return *changes* with each topic the index holds that an upsert writes by its label (or its slug
    in another case, or a slug it had before it was renamed) written by its slug, as a build writes it
    (``corpus.enrich.name_topics``)."""
    held = meta.get("topics")
    if not isinstance(held, dict) or not changes.upserts:
        return changes
    # A former slug is read from the build's topics (their "formerly"), not from the taxonomy: a topic
    # page's is there only, and the old slug of a renamed topic made a topic of its own (an editor's QA pass).
    topics = [Topic(slug=str(slug), name=str(fields.get("label") or fields.get("name") or slug), description="", event_count=0,
                    formerly=tuple(str(old) for old in fields.get("formerly") or () if isinstance(old, str)))
              for slug, fields in held.items() if isinstance(fields, dict)]
    named = name_topics(changes.upserts.values(), topic_names(topics))
    return replace(changes, upserts=dict(zip(changes.upserts, named)))


def _tell_new_topics(snapshot: Path, changes: Changes, meta: dict[str, object]) -> None:
    """Warn of each topic the upserts of *changes* write that neither a document of *snapshot* nor its
    build's topics (*meta*) has, naming the first line writing it and the topic of the index it may
    be a typo of: an update may add a topic on purpose, and still does, but "inference-acelerators"
    made a topic of its own with its one event, out of the topic meant, said as "1 added" (an editor's
    QA pass)."""
    written: dict[str, str] = {}  # spelling key: the upsert's id that first writes it
    for doc_id, record in changes.upserts.items():
        for topic in (record.topic, *record.topics):
            written.setdefault(spelling_key(topic), doc_id)
    if not written:
        return
    held = {str(slug) for slug in meta.get("topics") or ()}  # type: ignore[union-attr]
    with whoosh_index.open_dir(str(snapshot)).searcher() as searcher:
        held.update(term.decode("utf-8") if isinstance(term, bytes) else term for term in searcher.lexicon("topics"))
    known = {spelling_key(topic) for topic in held}
    new = [(key, doc_id) for key, doc_id in written.items() if key not in known]
    where = changes.source or "the change file"
    for key, doc_id in new[:NEW_TOPICS_TOLD]:
        record = changes.upserts[doc_id]
        topic = next(t for t in (record.topic, *record.topics) if spelling_key(t) == key)
        others = sum(1 for r in changes.upserts.values() if key in {spelling_key(t) for t in (r.topic, *r.topics)}) - 1
        close = difflib.get_close_matches(topic, sorted(held), n=1, cutoff=0.8)
        log.warning("%s:%d: topic %r is no topic of the index: the update adds it, a topic of its own%s%s",
                    where, changes.lines.get(doc_id, 0), topic,
                    f", with {others} more line{'s' if others != 1 else ''} writing it" if others else "",
                    f" (did you mean {close[0]!r}?)" if close else "")
    if len(new) > NEW_TOPICS_TOLD:
        log.warning("%s: %d more topics no document of the index has are added", where, len(new) - NEW_TOPICS_TOLD)


def _anchored(searcher, upserts: dict[str, Record], kept: dict[str, dict], existing: dict[str, int | None]) -> dict[str, Record]:
    """Return *upserts* with each guide section at an anchor no other section of its topic's guide
    holds (``corpus.records.unique_anchors``), as a build gives them: a replaced section keeps its
    anchor (its heading's slug, or one with a suffix) while it has the same heading's slug; a new one
    comes after the index's sections, with a suffix (``-2``) when its heading's slug is taken."""
    sections = [record for record in upserts.values() if isinstance(record, GuideSection)]
    if not sections:
        return upserts
    gone = {num for num in existing.values() if num is not None}
    taken: dict[str, set[str]] = {}
    for num in searcher.docs_for_query(wq.Term("kind", GUIDE)):
        if num not in gone:
            fields = searcher.stored_fields(num)
            taken.setdefault(str(fields["topic"]), set()).add(str(fields.get("url") or "").partition("#")[2])
    before: dict[str, str] = {}  # a replaced section's anchor, when its heading still gives it
    for section in sections:
        old = kept.get(section.id)
        if old is not None and old.get("kind") == GUIDE and old.get("topic") == section.topic:
            anchor = str(old.get("url") or "").partition("#")[2]
            if anchor == section.anchor or re.fullmatch(re.escape(section.anchor) + r"-\d+", anchor):
                before[section.id] = anchor
    # In listing order: the replaced sections at their places, then the new ones, as the update lists them.
    sections.sort(key=lambda s: (s.id not in kept, int(kept[s.id]["order"]) if s.id in kept else 0))
    anchors = unique_anchors(sections, taken, before)
    out = dict(upserts)
    for section, anchor in zip(sections, anchors):
        if anchor != section.anchor:
            out[section.id] = replace(section, anchor=anchor)
    return out


ALL_KINDS = "*"  # the key of _last_positions' one listing, where every kind shares one numbering


def _last_positions(searcher, apart: bool) -> dict[str, int]:
    """Return the largest ``position`` of each listing in the index: of each kind where each kind is
    numbered apart (*apart*, ``store.listing_is_time``: a topic page's events 1-50, its guide's sections
    1-7), else of the whole index under ALL_KINDS (a JSONL file numbers its lines across kinds: a new
    event numbered after the events alone took the number of the guide section on the last line,
    ``sp-new`` 520 as ``sp-199``: a QA pass on the API)."""
    last: dict[str, int] = {}
    for fields in searcher.reader().all_stored_fields():
        kind = str(fields["kind"]) if apart else ALL_KINDS
        last[kind] = max(last.get(kind, 0), int(fields.get("position") or 0))
    return last


def _at_position(record: Record, position: int) -> Record:
    if isinstance(record, Event):
        return replace(record, position=position)
    assert isinstance(record, GuideSection)
    return replace(record, order=position)


def _check(work: Path, changes: Changes, expected: int) -> None:
    """Reopen the updated index and raise UpdateError unless every change is visible."""
    ix = whoosh_index.open_dir(str(work))
    try:
        with ix.searcher() as searcher:
            found = searcher.doc_count()
            lost = [doc_id for doc_id in changes.upserts if searcher.document_number(id=doc_id) is None]
            kept = [doc_id for doc_id in changes.deletes if searcher.document_number(id=doc_id) is not None]
            titles = {doc_id: searcher.stored_fields(searcher.document_number(id=doc_id))["title"]
                      for doc_id in changes.upserts if doc_id not in lost}
    finally:
        ix.close()
    stale = [doc_id for doc_id, title in titles.items() if title != changes.upserts[doc_id].title]
    if found != expected or lost or kept or stale:
        raise UpdateError(
            f"the updated index holds {found} documents (expected {expected}); missing {lost[:3]}, "
            f"not deleted {kept[:3]}, stale {stale[:3]}; not published"
        )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
