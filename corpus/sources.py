"""Find a corpus's source files, load them all, and fingerprint them.

A corpus is a folder (read with its subfolders, hidden ones such as ``.git`` aside), or a list of
files and folders, holding topic pages (``<slug>.topic.txt``), guides
(``<slug>.guide.txt``) and JSONL files (``*.jsonl`` or ``*.jsonl.gz``; ``*.ndjson``, ``*.ndjson.gz``),
their suffixes in any case (``NAMING``).  Records keep the order of
their sources, so "listing order" means: each topic page's events, then its guide, then JSONL lines.
Every load is enriched (see corpus.enrich): records of the taxonomy's home topic get their related
topics, and records of the gazetteer's topics the organisations they name.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import logging
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from corpus.enrich import (
    ORGANISATIONS_FILE,
    TAXONOMY_FILE,
    Gazetteer,
    Taxonomy,
    enrich,
    load_gazetteer,
    load_taxonomy,
    spelling_key,
    topic_names,
)
from corpus.errors import CorpusError, UnreadableSource
from corpus.jsonl import REPEATS_TOLD, facet_value_problem, load_jsonl
from corpus.records import GUIDE, Event, Organisation, Record, Topic, normal_text, slugify, unique_anchors, unique_ids
from corpus.sanitize import plain_text
from corpus.seeds import event_line, load_guide, load_topic_page
from corpus.synonyms import SYNONYMS_FILE, Groups, Within, load_synonyms

log = logging.getLogger(__name__)

DEFAULT_DIR = Path(__file__).resolve().parent / "data"
# Besides the sources themselves, a fingerprint covers the rules that change what gets indexed.
RULE_FILES = (TAXONOMY_FILE, ORGANISATIONS_FILE, SYNONYMS_FILE)
TOPIC_SUFFIX = ".topic.txt"
GUIDE_SUFFIX = ".guide.txt"
# NDJSON is JSONL under another name (one JSON value a line, UTF-8, LF): read as JSONL.  A .json file
# is not: it is one JSON document (an array, an object over many lines), and corpus/data's rule files
# are .json, so it is skipped and said to be (a QA pass: a folder's B.JSONL, c.ndjson and d.json were
# skipped without a word, "built 1 document").
JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")
# The naming rule, as the help, the docs and the refusals state it.
NAMING = "*.topic.txt (topic pages), *.guide.txt (guides), *.jsonl, *.jsonl.gz, *.ndjson or *.ndjson.gz (JSONL), in any case"
SKIPS_TOLD = 10  # files a folder build skips that are named in its warning; the rest counted


@dataclass(frozen=True, slots=True)
class Corpus:
    """Everything a build indexes: topics by slug, records in listing order, and where they came from."""

    topics: dict[str, Topic]
    records: list[Record]
    sources: tuple[Path, ...]
    fingerprint: str
    organisations: dict[str, Organisation] = field(default_factory=dict)  # the ones records name
    synonyms: Groups = ()  # as readers type them; a build analyses them into the snapshot
    within: Within = ()  # regions and the places in them, as typed (corpus/synonyms.py)


def _kind(path: Path) -> str | None:
    name = path.name.lower()  # an export named DOCS.JSONL is one (it was skipped without a word)
    if name.endswith(TOPIC_SUFFIX):
        return "topic"
    if name.endswith(GUIDE_SUFFIX):
        return "guide"
    if name.endswith(JSONL_SUFFIXES):
        return "jsonl"
    return None


def discover(paths: Iterable[str | Path]) -> tuple[Path, ...]:
    """Return the source files named by *paths* (files, or folders to scan with their subfolders), a
    folder's in name order (``_files_in``)."""
    found: list[Path] = []
    seen: set[Path] = set()
    skipped: list[Path] = []
    for entry in map(Path, paths):
        if entry.is_dir():
            start, skipped_from = len(found), len(skipped)
            found.extend(_files_in(entry, seen, skipped))
            if len(found) == start:
                _check_gives_a_source(entry, found, skipped[skipped_from:])
        elif entry.is_file() and _kind(entry):
            found.append(entry)
        elif entry.exists():
            raise CorpusError(entry, None, f"is not a topic page, guide or JSONL file by its name: a source is named {NAMING}")
        else:
            raise CorpusError(entry, None, "does not exist")
    _tell_skipped(skipped)
    # Topic pages first, so that a guide can use its topic's name; JSONL last.
    order = {"topic": 0, "guide": 1, "jsonl": 2}
    return tuple(sorted(dict.fromkeys(found), key=lambda p: order[_kind(p) or "jsonl"]))


def _check_gives_a_source(folder: Path, found: Sequence[Path], skipped: Sequence[Path]) -> None:
    """Refuse *folder*, named on the command line, when it gives the build no source: neither in it nor
    through a folder named before it (*found*: the sources so far; *skipped*: its files that are no
    source by their name).  It only warned of its misnamed files ("x.topic.md", "x-guide.txt") and
    built and published without it: the whole topic gone from the live service, exit 0 (a QA pass),
    where such a file named itself was refused."""
    real = folder.resolve()
    if any(path.is_relative_to(folder) or path.resolve().is_relative_to(real) for path in found):
        return  # its sources were read through a folder named before it (``build corpus corpus/data``)
    if skipped:
        named = ", ".join(map(str, skipped[:SKIPS_TOLD])) + (f" and {len(skipped) - SKIPS_TOLD:,} more" if len(skipped) > SKIPS_TOLD else "")
        held = (f"{'its file' if len(skipped) == 1 else f'its {len(skipped):,} files'} {'is' if len(skipped) == 1 else 'are'} "
                f"no source by {'its' if len(skipped) == 1 else 'their'} name: {named}")
    else:
        held = "it holds no file (hidden ones such as .git aside)"
    raise CorpusError(folder, None, f"gives the build no topic page, guide or JSONL file (subfolders included): {held}; a "
                                    f"source is named {NAMING}. Nothing was built: rename the files, or leave the folder out")


def _files_in(folder: Path, seen: set[Path], skipped: list[Path]) -> Iterator[Path]:
    """Yield the source files in *folder* and its subfolders, in name order, a subfolder's files at its
    name's place; hidden folders (``.git``) and a folder already in *seen* (reached again through a
    link) are passed over.  Files in subfolders were skipped without a word, and a folder holding
    only subfolders was said to hold no source file (a QA pass).

    A file whose name is no source's goes to *skipped* (to be warned of), but for a hidden one
    (``.DS_Store``) and the enrichment rules (corpus/data's .json files); a link to nothing is refused:
    it was skipped without a word, a source gone from the build."""
    if (real := folder.resolve()) in seen:
        return
    seen.add(real)
    try:
        entries = sorted(folder.iterdir())
    except OSError as exc:  # a subfolder this user may not read
        raise UnreadableSource(folder, None, f"cannot be read: {exc.strerror or exc}") from exc
    for entry in entries:
        if entry.is_dir():
            if not entry.name.startswith("."):
                yield from _files_in(entry, seen, skipped)
        elif entry.is_file():
            if _kind(entry):
                yield entry
            elif not entry.name.startswith(".") and entry.resolve() not in RULE_FILES:
                skipped.append(entry)
        elif entry.is_symlink() and not entry.exists():
            raise CorpusError(entry, None, f"is a link to {os.readlink(entry)}, which does not exist: nothing was "
                                           "built; remove the link or restore what it points to")
        else:  # a pipe, a socket or a device in the folder
            skipped.append(entry)


def _tell_skipped(skipped: list[Path]) -> None:
    """Warn of the files a folder holds that are not read, naming the first SKIPS_TOLD."""
    if not skipped:
        return
    named = ", ".join(map(str, skipped[:SKIPS_TOLD])) + (f" and {len(skipped) - SKIPS_TOLD:,} more" if len(skipped) > SKIPS_TOLD else "")
    json_too = any(path.name.lower().endswith(".json") for path in skipped)
    log.warning("%d %s not read, as %s no source by %s name (%s): %s%s", len(skipped),
                "file is" if len(skipped) == 1 else "files are", "it is" if len(skipped) == 1 else "they are",
                "its" if len(skipped) == 1 else "their", NAMING, named,
                "; a .json file is one JSON document: one holding a record a line is read once named .jsonl" if json_too else "")


def fingerprint(sources: Sequence[Path]) -> str:
    """Return a SHA-256 over the names and bytes of *sources*, in order, and of the enrichment rules."""
    digest = hashlib.sha256()
    for path in (*sources, *RULE_FILES):
        digest.update(os.fsencode(path.name) + b"\0")  # a name need not be UTF-8: its bytes as the file system has them
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
        digest.update(b"\0")
    return digest.hexdigest()


def _slug_of(path: Path, suffix: str) -> str:
    """Return the topic a guide's file name gives, checked as a JSONL line's topic is (a QA pass: a file
    named "..guide.txt" linked its guide as /guides/.., a comma split the topic in two, and control
    and bidi characters reached the guide's title and ids)."""
    slug = path.name[: -len(suffix)]
    problem = "it is empty" if not slug else (
        "it holds markup, control or invisible characters" if normal_text(plain_text(slug)) != slug
        else facet_value_problem("topics", slug))
    if problem is not None:
        raise CorpusError(path, None, f"the file's name gives its guide the topic {slug!r}, which cannot be one: "
                                      f"{problem}; rename the file")
    return slug


def load_corpus(
    paths: Iterable[str | Path] = (DEFAULT_DIR,),
    taxonomy: Taxonomy | None = None,
    gazetteer: Gazetteer | None = None,
) -> Corpus:
    """Load every source under *paths* into one enriched corpus; the first bad line stops the load."""
    paths = tuple(paths)
    sources = discover(paths)
    if not sources:
        raise CorpusError(", ".join(map(str, paths)), None, "holds no topic page, guide or JSONL file (subfolders included)")
    # Fingerprinted before they are read, and checked unchanged after: a file replaced while a build
    # read it was indexed as it was and recorded as it is now, so the index said its sources were
    # unchanged and serve never rebuilt it; one rewritten in place was read half old, half new.
    states = _states(sources)
    try:
        printed = fingerprint(sources)
    except OSError as exc:  # a file in a source folder this user may not read: it was "cannot write the index"
        unreadable = UnreadableSource if Path(exc.filename or "") in sources else CorpusError
        raise unreadable(exc.filename or ", ".join(map(str, paths)), None, f"cannot be read: {exc.strerror or exc}") from exc
    records: list[Record | None] = []  # None: an event a later topic page lists too (_listed_in_both)
    first_in: dict[str, Path] = {}  # each id's first source file
    listed: dict[str, int] = {}  # each topic page event's place in records, by id
    taxonomy = taxonomy or load_taxonomy()
    pages = _load_topic_pages([path for path in sources if _kind(path) == "topic"], taxonomy)
    # With the former slugs the taxonomy's "renamed" gives them: a guide or line still naming one is the topic.
    topics = {topic.slug: taxonomy.declared(topic) for topic, _ in pages.values()}
    _tell_renamed_undeclared(topics, taxonomy)
    guides: list[tuple[Path, str]] = []
    for path in sources:
        kind = _kind(path)
        start = len(records)
        if kind == "topic":
            events = pages[path][1]
            records.extend(_listed_in_both(records, events, listed, path, first_in, taxonomy.home.slug))
        elif kind == "guide":
            guides.append((path, _slug_of(path, GUIDE_SUFFIX)))
            records.extend(load_guide(path, guides[-1][1]))
        else:
            records.extend(load_jsonl(path))
        _tell_repeated_across(records[start:], path, first_in)
    _check_guides_topics(guides, topics, records, taxonomy)
    records = [record for record in records if record is not None]
    if not records:  # an empty export would replace every document with none: refuse it, publish nothing
        raise CorpusError(", ".join(map(str, paths)), None, "holds no documents: nothing was built")
    enriched = enrich(records, topics, taxonomy, gazetteer or load_gazetteer())
    synonyms, within = load_synonyms(topics={topic for record in enriched.records for topic in (record.topic, *record.topics)})
    for path, before, after in zip((*sources, *RULE_FILES), states, _states(sources)):
        if before != after:
            raise CorpusError(path, None, "changed while it was being read (replaced or written to): nothing was "
                                          "built; run the build again once it is written")
    return Corpus(
        topics=enriched.topics,
        records=with_unique_anchors(enriched.records),
        sources=sources,
        fingerprint=printed,
        organisations=enriched.organisations,
        synonyms=synonyms,
        within=within,
    )


def _load_topic_pages(paths: Sequence[Path], taxonomy: Taxonomy) -> dict[Path, tuple[Topic, list[Event]]]:
    """Return each topic page's topic and events, its events' ids unique across the pages (``_event_ids``);
    a topic defined twice, or by a slug the taxonomy gives another topic, is refused at the page's line 2."""
    pages: dict[Path, tuple[Topic, list[Event]]] = {}
    defined: dict[str, Path] = {}
    related = {rule.topic.slug: rule.topic for rule in taxonomy.related}
    for path in paths:
        topic, events = load_topic_page(path)
        if topic.slug in defined:
            raise CorpusError(path, 2, f"topic {topic.slug!r} is defined twice")
        if (renamed := taxonomy.former(topic.slug)) is not None:
            raise CorpusError(path, 2, f"topic {topic.slug!r} is a former slug of {renamed.slug!r} in "
                                       f"{taxonomy.path}: a topic's slug now cannot be one")
        if topic.slug in related:
            # Built before, its name and description relabelling the records the taxonomy gives the
            # related topic (16 of the seed's), and its own events mixed in with them (a QA pass).
            raise CorpusError(path, 2, f"topic {topic.slug!r} is a related topic of the home topic "
                                       f"{taxonomy.home.slug!r} in {taxonomy.path} ({related[topic.slug].name!r}, given "
                                       "to the home topic's records by rule): a topic page's slug cannot be one; give "
                                       "the page a slug of its own")
        defined[topic.slug] = path
        pages[path] = (topic, events)
    return _event_ids(pages, taxonomy.home.slug)


def _tell_renamed_undeclared(topics: Mapping[str, Topic], taxonomy: Taxonomy) -> None:
    """Warn of each topic the taxonomy's "renamed" lists that no topic page of a build with topic pages
    declares: its former slugs lead nowhere in this build (a slug mistyped there, or a page not in it).
    Not an error: one taxonomy serves builds of other sources (the seed topic alone)."""
    if not topics:
        return  # no topic page: a generic corpus, no hub topic to rename
    for slug, formerly in taxonomy.renamed.items():
        if slug in topics:
            continue
        meant = difflib.get_close_matches(slug, sorted(topics), n=1, cutoff=0.6)
        guess = f" (did you mean {meant[0]!r}?)" if meant else ""
        log.warning("%s: renamed topic %r is no topic page's slug in this build%s: its former slugs (%s) lead "
                    "nowhere here; the build's topic pages: %s", taxonomy.path, slug, guess,
                    ", ".join(map(repr, formerly)), ", ".join(map(repr, sorted(topics))))


def _event_ids(pages: dict[Path, tuple[Topic, list[Event]]], home: str) -> dict[Path, tuple[Topic, list[Event]]]:
    """Return *pages* with their events' ids unique across pages, but for one event several pages list.

    An event is one that several pages list when its title is the same on each (as ``normal_text``
    writes it: spaces collapsed, composed; its case as written): the n-th event of a page with a title
    is the n-th of another page with it, and has one id.  Any other event keeps the id its page gives it
    unless an event of another page has it, and then gets the first free suffix (``unique_ids``): an id
    is the title's slug, cut at 80 characters, so "… 10 Gigawatts of AI Inference Capacity for ChatGPT"
    on a second page had the id of the seed's "… 10 Gigawatts of AI Datacenters", and replaced it (a QA
    pass: "built 79 documents" of 81, one warning of "another summary").  Case counts: the hub lists
    one event on every topic page by one title, so a title in another case is another headline, kept
    (a reader may see two alike) rather than lost; such pairs are warned of.  The taxonomy's home
    topic's page is given its ids first, so that its events keep theirs when another page is added,
    whichever page sorts first."""
    held: set[str] = set()
    by_title: dict[tuple[str, int], str] = {}
    by_folded: dict[str, tuple[str, str]] = {}  # a title casefolded: the title as an earlier page writes it, and its topic
    out: dict[Path, tuple[Topic, list[Event]]] = {}
    for path, (topic, events) in sorted(pages.items(), key=lambda page: page[1][0].slug != home):
        seen: dict[str, int] = {}
        keys = []
        for event in events:
            seen[event.title] = seen.get(event.title, 0) + 1
            keys.append((event.title, seen[event.title]))
        new = [number for number, key in enumerate(keys) if key not in by_title]
        ids = [by_title.get(key, "") for key in keys]
        for number, event_id in zip(new, unique_ids([slugify(events[number].title) for number in new], held)):
            ids[number] = event_id
            title = events[number].title
            other = by_folded.get(title.casefold())
            if other is not None and other[0] != title:
                log.warning("%s:%d: event %r and %r of topic %r differ in case only: they are two documents, %r and %r",
                            path, event_line(events[number].position), title, other[0], other[1], event_id,
                            next(i for k, i in by_title.items() if k[0] == other[0]))
        for event, key, event_id in zip(events, keys, ids):
            by_title.setdefault(key, event_id)
            by_folded.setdefault(event.title.casefold(), (event.title, topic.slug))
        held.update(ids)
        _tell_repeated_titles(path, events, ids)
        out[path] = (topic, [event if event.id == event_id else dataclasses.replace(event, id=event_id)
                             for event, event_id in zip(events, ids)])
    return {path: out[path] for path in pages}  # in the pages' order


def _tell_repeated_titles(path: Path, events: Sequence[Event], ids: Sequence[str]) -> None:
    """Warn of each event of the topic page *path* whose title an event above it on the page has (in
    any case), naming both lines and the two ids: the second is another event, at an address with a
    suffix (``-2``), which was taken without a word, where a JSONL file repeating an id is warned of
    (an editor's QA pass: "Groq Opens an LPU Cluster in Helsinki" twice on one page)."""
    first: dict[str, int] = {}
    for number, event in enumerate(events):
        earlier = first.setdefault(event.title.casefold(), number)
        if earlier == number:
            continue
        other = events[earlier]
        how = "repeats the title of" if other.title == event.title else "differs in case only from the title of"
        log.warning("%s:%d: event %r %s line %d: they are two events, %r and %r (a title gives an event its "
                    "id and address: give this one a title of its own, or delete it if it is the same event)",
                    path, event_line(event.position), event.title, how, event_line(other.position), ids[earlier], ids[number])


def _check_guides_topics(guides: Sequence[tuple[Path, str]], topics: dict[str, Topic], records: Sequence[Record | None],
                         taxonomy: Taxonomy) -> None:
    """Refuse a guide file whose name gives a topic no topic page, JSONL record or taxonomy topic of the
    build has (by its slug or label, in any case), when the build has topic pages: "inference.guide.txt" beside
    "inference-infrastructure.topic.txt" made a second topic, "inference", with the guide, and the
    topic got none (a QA pass).  Guides with no topic page in the build stay (a guide with a JSONL
    corpus, or alone)."""
    if not topics:
        return
    # As enrichment reads a topic (corpus.enrich.name_topics): by its slug or label in any case, or a former slug.
    known = set(topic_names([*topics.values(), taxonomy.home, *(rule.topic for rule in taxonomy.related)]))
    known.update(spelling_key(topic) for record in records if record is not None and record.kind != GUIDE
                 for topic in (record.topic, *record.topics))
    for path, slug in guides:
        if spelling_key(slug) in known:
            continue
        pages = sorted(topics)
        meant = [page for page in pages if slug in page or page in slug]
        meant += [page for page in difflib.get_close_matches(slug, pages, n=3, cutoff=0.6) if page not in meant]
        guess = (f"; did you mean {' or '.join(map(repr, meant))} (rename the file {meant[0]}{GUIDE_SUFFIX})?"
                 if meant else "")
        raise CorpusError(path, None, f"the file's name gives its guide the topic {slug!r}, which no topic page in "
                                      f"this build has{guess or '.'} A guide is named by its topic page's slug; the build's "
                                      f"topic pages: {', '.join(map(repr, pages))}")


def _listed_in_both(records: list[Record | None], events: list[Event], listed: dict[str, int],
                    path: Path, first_in: dict[str, Path], home: str) -> list[Event]:
    """Return *events* (read from the topic page *path*) less those an earlier topic page lists too (the
    same title, so the same id), each such event one record in both pages' topics; note each event's
    place in *listed*.  An event two topics list is one document in both: the later page's replaced the
    earlier one's, so the earlier topic lost it from its search, facet and feed (QA pass AF).

    Which page's event is that record (its summary, its place, its topic) does not hang on the order
    of the pages: the *home* topic's (enrichment, related topics and organisations, reads its text),
    else the page of the topic whose slug sorts first (``_kept_of``).  The later page's was kept, so
    that a second topic's page listing a seed event with its own summary took the event's related
    topics and organisations computed from that summary (Compute deals, Amazon, NVIDIA lost) when its
    folder came after corpus/data on the command line, and not when it came first (an editor's QA
    pass); the warning of the two summaries named no line."""
    out: list[Event] = []
    for offset, event in enumerate(events):
        earlier = records[listed[event.id]] if event.id in listed else None
        if isinstance(earlier, Event) and earlier.topic != event.topic:
            kept, dropped = _kept_of(earlier, event, home)
            kept_in, dropped_in = (first_in[event.id], path) if kept is earlier else (path, first_in[event.id])
            if earlier.summary != event.summary:
                why = f"the home topic {home!r}" if kept.topic == home else f"the topic {kept.topic!r}, whose slug sorts first"
                log.warning("%s:%d: event %r is listed in topic %r too (%s:%d), with another summary: that one is "
                            "kept, as the summary of %s; this one is not used", dropped_in, event_line(dropped.position) + 1,
                            event.title, kept.topic, kept_in, event_line(kept.position) + 1, why)
            both = {dropped.topic, *kept.topics, *dropped.topics} - {kept.topic}
            merged = dataclasses.replace(kept, topics=tuple(sorted(both)))
            if kept is earlier:  # at its place; this page's is not a record of its own
                records[listed[event.id]] = merged
                continue
            records[listed[event.id]] = None
            first_in[event.id] = path  # one document in both topics: no id replaced to warn of
            event = merged
        listed[event.id] = len(records) + len(out)
        out.append(event)
    return out


def _kept_of(earlier: Event, later: Event, home: str) -> tuple[Event, Event]:
    """Return which of two pages' listings of one event is kept, and which is not: the *home* topic's,
    else the one of the topic whose slug sorts first."""
    if sorted((earlier, later), key=lambda event: (event.topic != home, event.topic))[0] is earlier:
        return earlier, later
    return later, earlier


def _states(sources: Sequence[Path]) -> list[tuple[int, int, int] | None]:
    """Return each of *sources*' and the rule files' (inode, size, modification time), None for one
    gone: what a file replaced, written to or deleted changes."""
    states: list[tuple[int, int, int] | None] = []
    for path in (*sources, *RULE_FILES):
        try:
            st = path.stat()
        except FileNotFoundError:
            states.append(None)
        else:
            states.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return states


def _tell_repeated_across(records: list[Record], path: Path, first_in: dict[str, Path]) -> None:
    """Warn of each id of *records* (read from *path*) that an earlier source file holds, naming both
    files (the first REPEATS_TOLD, then a count), and note the ids first seen here in *first_in*.  The
    later document replaces the earlier, as in one file; a repeat across files was said only as a
    count ("1 line replaced by a later one of the same id"), and the event it replaced was gone
    without a word (QA pass Y).  Repeats within one file are told by the file's loader."""
    repeated = 0
    for record in records:
        earlier = first_in.setdefault(record.id, path)
        if earlier != path:
            repeated += 1
            if repeated <= REPEATS_TOLD:
                log.warning("%s: id %r was read before from %s; this one replaces it", path, record.id, earlier)
    if repeated > REPEATS_TOLD:
        log.warning("%s: %d more ids were read before from other files, each replaced by this file's", path,
                    repeated - REPEATS_TOLD)


def with_unique_anchors(records: list[Record]) -> list[Record]:
    """Return *records* with every section of a topic's guide at its own anchor (``unique_anchors``),
    in listing order: a guide file's sections, then a JSONL file's for the same topic.

    After enrichment, which writes a topic named by its label by its slug (the guide it is in), and as
    a build keeps records (``index.build._dedupe``): of the lines with one id, the last, at its place."""
    if not any(record.kind == GUIDE for record in records):
        return records  # most large corpora: no guide
    last = {record.id: number for number, record in enumerate(records)}
    places = [number for number, record in enumerate(records) if record.kind == GUIDE and last[record.id] == number]
    sections = [records[number] for number in places]
    anchors = unique_anchors(sections)  # type: ignore[arg-type]
    out = list(records)
    for number, section, anchor in zip(places, sections, anchors):
        if anchor != section.anchor:  # type: ignore[union-attr]
            out[number] = dataclasses.replace(section, anchor=anchor)
    return out
