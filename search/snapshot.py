"""An open, read-only snapshot of the index and what is worth computing once per snapshot.

Snapshots never change after they are published, so their facet postings (which documents carry
each topic, organisation, type and month) and their documents' order by date are read once and
kept, and the documents of recently used terms are kept in a bounded cache (compact arrays, a few
MB) until the snapshot is replaced.
Whoosh searchers are not safe to share between threads, so each thread gets its own searcher per
snapshot.  Under gunicorn's gevent worker a "thread" is the worker's OS thread, not a greenlet: see
``_per_thread``.
"""

from __future__ import annotations

import difflib
import errno
import heapq
import os
import pickle
import re
import resource
import struct
import sys
from bisect import bisect_left, bisect_right
import threading
import time
import weakref
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from itertools import islice, repeat
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from whoosh import index as whoosh_index
from whoosh.columns import NumericColumn
from whoosh.searching import Searcher

from index.dates import month_label
from index import store, vectors
from index.analysis import TermAnalyzer, chain_language
from index.whoosh_compat import Unsupported, length_bytes, read_postings
from index.schema import NAME_MAX_CHARS, SCHEMA_VERSION, from_document, ids_of, name_ids, title_slug, whole_slug
from search.alternatives import OPERATORS
from search.cache import Bounded, unpatched
from search.params import _DAY_S, MAX_FILTER_VALUES, as_parameter, inline_operators, without_spans
from search.query import analysed_word
from search.results import FacetValue
from search.when import with_dates, words_kept
from search.scoring import LENGTH_OF_BYTE, TermScores
from search.synonyms import Synonyms
from search.weighting import Weighting

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from collections.abc import Set as AbstractSet

    from search.facets import FacetColumn
    from search.params import SearchParams

# Facets as a request names them → the indexed field of their values.
FACETS = {"topic": "topics", "entity": "entities", "kind": "kind", "month": "month"}
FACET_FIELDS = tuple(FACETS.values())
# How like a known topic or organisation (difflib's ratio, 0-1) a filter value no document has must be
# spelt to be offered in its place: "compute-deal" is compute-deals (0.97), "inference-acelerators"
# inference-accelerators; "nope" is nothing.
CLOSE_VALUE_CUTOFF = 0.8
# Document numbers kept in the term cache (4 bytes each): 4M is 16 MB, some 80 common terms at 64k.
TERM_CACHE_IDS = 4_000_000
# Documents whose analysed tokens, and whose stored fields, are kept (some 8 KB each with their
# tokens at 64k: 2,048 held 17 MB less than 4,096, at the same CPU a search, docs/performance.md).
TOKEN_CACHE_DOCS = 2048
# Distinct raw tokens (and text chunks) whose analysis is kept for highlighting.
TOKEN_CACHE_WORDS = 50_000
# Documents of phrases' scores kept (a dict entry, ~100 bytes each: 200k is some 20 MB).
PHRASE_CACHE_DOCS = 200_000
# Documents of words' positions kept (a dict entry and a short list: some 170 bytes each, tracemalloc at
# 64k, so 8.5 MB at most).
POSITIONS_CACHE_DOCS = 50_000
# Documents of whole queries' match sets, and of their scores, kept (search/evaluator.py): a document
# in both costs some 180 bytes (tracemalloc), so the two stay under some 18 MB.
QUERY_CACHE_DOCS = 100_000
# Documents of the match sets whose facets are kept (some 70 bytes each: about 4 MB).
FACET_MATCH_DOCS = 60_000
# Snapshots of at most this many documents keep their ids in a set (``Snapshot._few_ids``): 10k ids
# are some 1 MB and 15 ms to list.
IDS_KEPT_DOCS = 10_000
# A version number after a name, a hyphen between or none: the "2" of "apache2", "5.4" of "lua5.4", "-12" of "gcc-12".
_VERSION = r"-?([0-9]+(?:\.[0-9]+)*)"
VERSION_AFTER = re.compile(_VERSION)
_VERSIONED = re.compile(r"([a-z][a-z0-9.+]*?[a-z+])" + _VERSION)  # a name and its version
# Errors Whoosh raises on a missing, truncated or garbled index folder.
_OPEN_ERRORS = (
    whoosh_index.IndexError,
    OSError,
    EOFError,
    ValueError,
    KeyError,
    struct.error,
    pickle.UnpicklingError,
    ImportError,
    AttributeError,
)


# Errors of the environment, not of a snapshot: the worker or the host ran out of something (open
# files, memory, buffers).  A snapshot that met one is neither refused nor passed over for an older one:
# the request is answered 503 "try again", and the same snapshot answers once the resource is relieved.
# (EIO is not one: a read the disk could not serve, after the kernel's own retries, is a file that
# cannot be read, refused as a damaged one is, and an older snapshot answers.)
SHORTAGES: dict[int, tuple[str, str]] = {
    errno.EMFILE: ("open files", "the worker's limit on open files{limit} is reached: raise it (`ulimit -n` in the "
                   "shell that starts topichub, LimitNOFILE= in its systemd unit; each gevent worker takes up to "
                   "1,000 connections, a file each)"),
    errno.ENFILE: ("open files", "the host's table of open files is full: raise fs.file-max (sysctl) or close "
                   "files elsewhere"),
    errno.ENOMEM: ("memory", "free memory, run fewer workers, or raise the memory limit (`ulimit -v`, MemoryMax=)"),
    errno.ENOBUFS: ("buffer space", "the kernel is short of buffer memory: free memory or lower the load"),
    errno.EAGAIN: ("a resource", "the system had none to spare for now (a process or locked-memory limit: "
                   "`ulimit -u`, `ulimit -l`, TasksMax=)"),
}


class ResourceShortage(store.IndexUnavailable):
    """The worker ran out of a resource (open files, memory) opening or reading a snapshot: nothing is
    wrong with the snapshot, which answers again as soon as the resource is relieved."""

    def __init__(self, cause: OSError, doing: str) -> None:
        self.errno = cause.errno if cause.errno in SHORTAGES else errno.ENOMEM
        self.resource, remedy = SHORTAGES[self.errno]
        limit = ""
        if self.errno == errno.EMFILE:  # (resource imported up front: out of files, an import fails)
            limit = f" ({resource.getrlimit(resource.RLIMIT_NOFILE)[0]:,})"
        super().__init__(f"{doing}: out of {self.resource} ({errno.errorcode[self.errno]}: {cause.strerror or cause}): "
                         f"{remedy.format(limit=limit)}")

    @classmethod
    def of(cls, exc: BaseException, doing: str, probe: str | os.PathLike[str] | None = None) -> ResourceShortage | None:
        """Return *exc* as the shortage it is or was raised from (``resource_shortage``), said of *doing*;
        None when it is none."""
        if isinstance(exc, cls):
            return exc
        short = resource_shortage(exc, probe)
        return None if short is None else cls(short, doing)


def resource_shortage(exc: BaseException, probe: str | os.PathLike[str] | None = None) -> OSError | None:
    """Return the error of a resource running out (``SHORTAGES``; a MemoryError reads as ENOMEM) that
    *exc* is or was raised from, else None.  With *probe* (a folder), a failure that names none (Whoosh
    reads a folder it cannot list as an empty index) is one when opening *probe* runs out too."""
    for seen in store.raised_from(exc):
        if isinstance(seen, ResourceShortage):
            return OSError(seen.errno, os.strerror(seen.errno))
        if isinstance(seen, OSError) and seen.errno in SHORTAGES:
            return seen
        if isinstance(seen, MemoryError):
            return OSError(errno.ENOMEM, os.strerror(errno.ENOMEM))
    return probe_shortage(probe) if probe is not None else None


def probe_shortage(path: str | os.PathLike[str]) -> OSError | None:
    """Return the error of a resource running out when opening *path* (a file or folder) does, else None."""
    try:
        os.close(os.open(path, os.O_RDONLY))
    except OSError as probed:
        return probed if probed.errno in SHORTAGES else None
    return None



def _spelt_like(value: str, named: Iterable[tuple[str, str]]) -> str | None:
    """Return the value of *named* (each a value and its label, lower case) whose value or label is spelt
    most like *value*, where one is close enough (``CLOSE_VALUE_CUTOFF``), else None."""
    forms: dict[str, str] = {}
    for known, folded_label in named:
        forms.setdefault(known.lower(), known)
        forms.setdefault(folded_label, known)
    found = difflib.get_close_matches(value.lower(), list(forms), n=1, cutoff=CLOSE_VALUE_CUTOFF)
    return forms[found[0]] if found else None


_LEADING_ANDNOT = re.compile(r"^ANDNOT\s+")


class Snapshot:
    """One published snapshot, opened for searching."""

    def __init__(self, root: Path, snap_id: str, link: os.stat_result | None = None) -> None:
        """Open snapshot *snap_id*; raise IndexUnavailable when it cannot be (damaged, gone, another
        schema), ResourceShortage when the worker ran out of open files or memory opening it."""
        try:
            self._open(root, snap_id, link)
        except (store.IndexUnavailable, OSError, MemoryError) as exc:
            probe = store.snapshots_dir(root) / snap_id if isinstance(exc, store.IndexUnavailable) else None
            short = ResourceShortage.of(exc, f"snapshot {snap_id} cannot be opened now", probe)
            if short is None or short is exc:
                raise
            raise short from exc

    def _open(self, root: Path, snap_id: str, link: os.stat_result | None) -> None:
        path = store.snapshots_dir(root) / snap_id
        self.id = snap_id
        self.path = path
        self.meta = store.read_meta(path)
        # The switch of ``current`` it is served under (*link*: the link's status, else read now),
        # read again at each switch (``switched_by``): a rollback to a snapshot a worker still has
        # open is a switch of its own.
        self.switch = Switch.of(root, snap_id, link if link is not None else store.current_link(root)[1])
        if self.meta.get("schema_version") != SCHEMA_VERSION:
            raise store.IndexUnavailable(
                f"snapshot {snap_id} was built with schema version {self.meta.get('schema_version')}, "
                f"this service needs {SCHEMA_VERSION}: rebuild the index"
            )
        try:
            self.index = whoosh_index.open_dir(str(path))
            with self.index.searcher() as searcher:
                reader = searcher.reader()
                self.doc_count = searcher.doc_count()
                self.all_docs = frozenset(reader.all_doc_ids())
                self.facet_docs = {name: self._postings(reader, name) for name in FACET_FIELDS}
                self.doc_facets = {name: _by_doc(docs) for name, docs in self.facet_docs.items()}
                # Each facet field's (document, value) pairs, its postings' lengths added (search/facets.py).
                self.facet_pairs = {name: sum(map(len, docs.values())) for name, docs in self.facet_docs.items()}
                self.newest, self._newest_rank, self._dates, self._dated_docs, self._date_of, self._order_of = _date_order(searcher)
            # Memory-mapped, so every worker shares one copy; None without vectors of this model.
            self.vectors = vectors.open_vectors(path, self.meta)
        except _OPEN_ERRORS as exc:
            raise store.IndexUnavailable(f"snapshot {snap_id} cannot be opened: {exc}") from exc
        self.schema = self.index.schema
        self.analyzer = self.schema["body"].analyzer
        self.language = chain_language(self.analyzer)  # its words in Latin letters stemmed as this language's
        # The namespace every document id starts with (index.schema.id_namespace), "" for none: written
        # by build and update into every snapshot of this schema version.
        self.id_prefix = str(self.meta.get("id_prefix") or "")
        # Each facet value's label and its sort key (the label lower-cased), made once, not per search.
        self.facet_labels = {
            facet: {value: (label := self.label(facet, value), label.lower()) for value in self.facet_docs[field]}
            for facet, field in FACETS.items()
        }
        # Each facet value's place among its facet's labels lower-cased (equal ones share a place): the
        # counts' tie-break, looked up in C (search/facets.py).
        self.facet_ranks = {facet: _ranks(labels) for facet, labels in self.facet_labels.items()}
        # Each facet's values by their case-folded form, where that names one value only ("OpenAI").
        self._folded = {facet: _unambiguous_folds((value, value) for value in self.facet_docs[field]) for facet, field in FACETS.items()}
        # A topic asked for by its label ("Training Infrastructure"), as a build reads one written so.
        labels = _unambiguous_folds((label, value) for value, (label, _) in self.facet_labels["topic"].items())
        # A topic asked for by a slug it had before it was renamed (the taxonomy's "formerly"): its
        # address moved for good (the pages and feeds answer it with a 301, the API reads it as the topic).
        self.former_topics = _former_slugs(self.meta.get("topics"), self.facet_docs[FACETS["topic"]])
        self._folded["topic"] = {**_unambiguous_folds(self.former_topics.items()), **labels, **self._folded["topic"]}
        # So is an organisation by its name ("Hugging Face", which the facets show for hugging-face: it found
        # nothing, where topic=Compute%20deals was read as compute-deals; an API QA pass).  Not an alias:
        # "AWS" is narrower than Amazon, as in a query (``organisation``).
        names = _unambiguous_folds((label, value) for value, (label, _) in self.facet_labels["entity"].items())
        self._folded["entity"] = {**names, **self._folded["entity"]}
        self._former_folds = frozenset(map(_fold_case, self.former_topics))
        self.facet_values: dict[tuple[str, tuple[str, ...], tuple[int, ...]], tuple[FacetValue, ...]] = {}  # search/facets.py
        self.facet_value_of: dict[tuple[str, str, int], FacetValue] = {}  # each one of them, by (facet, value, count)
        # Each facet field's values by document as arrays, for counting large match sets (search/facets.py).
        self.facet_columns: dict[str, FacetColumn] = {}
        # The facets of small match sets when nothing is selected (search/facets.py), with the size of
        # the set: bounded by the documents of the keys.
        self.facets_by_matches: Bounded[frozenset[int], tuple[dict[str, tuple[FacetValue, ...]], int]] = Bounded(
            FACET_MATCH_DOCS, cost=lambda kept: kept[1] + 1
        )
        self._local = _per_thread()
        # Every thread's searcher, closed (with its open segment files) once no request holds the
        # snapshot any more: a request in flight keeps its snapshot alive, so nothing closes under it.
        self._searchers: list[Searcher] = []
        self._searchers_lock = threading.Lock()
        weakref.finalize(self, _close_searchers, self._searchers)
        self._terms: Bounded[tuple[str, str], array] = Bounded(TERM_CACHE_IDS, cost=len)
        self._tokens: Bounded[tuple[int, str], TokenReplay] = Bounded(TOKEN_CACHE_DOCS)
        self._stored: Bounded[int, dict[str, object]] = Bounded(TOKEN_CACHE_DOCS)
        groups, within = self.meta.get("synonyms") or (), self.meta.get("synonyms_within") or ()
        self.synonyms = Synonyms.from_groups(groups, within)  # analysed by the build
        # A synonym's one-word variants as written ("huggingface", "Britain") by their analysed word:
        # a misspelling of one is corrected to it even when no page writes it (``Vocabulary.near``).
        self.synonym_words = _one_word_variants(
            [*groups, *(region + places for region, places in within)],
            [*(self.meta.get("synonyms_written") or ()),
             *(region + places for region, places in self.meta.get("synonyms_within_written") or ())],
        )
        self.term_scores = TermScores()  # each (field, term)'s BM25F scores, read once (search/scoring.py)
        # Each phrase's matches with Whoosh's scores, found once (search/evaluator.py): a synonym's
        # multi-word variants are the same few phrases in every query that names the concept.
        self.phrases: Bounded[tuple[object, ...], dict[int, float]] = Bounded(PHRASE_CACHE_DOCS, cost=lambda d: len(d) + 1)
        # Each rare word's positions in every document holding it (search/evaluator.py): phrases reuse words.
        self.positions: Bounded[tuple[str, str], dict[int, list[int]]] = Bounded(POSITIONS_CACHE_DOCS, cost=lambda d: len(d) + 1)
        # Each query's (a concept's: its words, synonyms, spellings) live documents, and its score in
        # each, found once: a query never asked before is made of concepts asked before.
        self.query_docs: Bounded[tuple[object, ...], frozenset[int]] = Bounded(QUERY_CACHE_DOCS, cost=lambda d: len(d) + 1)
        self.query_scores: Bounded[tuple[object, ...], dict[int, float] | None] = Bounded(
            QUERY_CACHE_DOCS, cost=lambda d: len(d) + 1 if d is not None else 1
        )

    @property
    def served_since(self) -> float:
        """When what this worker serves changed (a feed's Last-Modified): when ``current`` was last switched."""
        return self.switch.served_since

    @property
    def feed_floor(self) -> str:
        """The time no feed entry says it changed before ("" for none): see ``index.store.feed_floor``;
        the snapshot's own, or the note of its switch."""
        return store.latest(self.meta.get("feed_floor"), self.switch.feed_floor) or ""

    @property
    def changed_at(self) -> str:
        """When a build or update last took a document out of the index or changed one ("" for never,
        as far as its snapshot.json says: ``index.build._changed_at``): no feed's updated is earlier."""
        changed = self.meta.get("changed_at")
        return changed if isinstance(changed, str) else ""

    @property
    def stepped_back(self) -> bool:
        """Whether it is served in place of a newer one (a rollback, or an older snapshot published to
        a replica): a feed's entries may then be older than those a reader already saw."""
        return self.switch.stepped_back

    def switched_by(self, root: Path, link: os.stat_result | None) -> Snapshot:
        """Return this snapshot, served under the switch of ``current`` whose link's status is *link*.

        Each switch makes the link anew (``store._switch``), so another inode or time is another switch,
        read again (its time, and whether it stepped back): a worker that kept this snapshot open
        through a publish it never served, then a rollback to it, said the time of its first switch
        (a feed reader polling with If-Modified-Since got 304 from that worker, 200 from another)."""
        switch = self.switch
        if link is not None and (link.st_mtime_ns != switch.mtime_ns or link.st_ino != switch.ino):
            self.switch = Switch.of(root, self.id, link)
        return self

    @staticmethod
    def _postings(reader, fieldname: str) -> dict[str, frozenset[int]]:
        docs: dict[str, frozenset[int]] = {}
        for term in reader.lexicon(fieldname):
            value = term.decode("utf-8") if isinstance(term, bytes) else term
            # An update's deleted documents leave their values in the term list: a value no live
            # document holds is no value (a respelt topic's old spelling made the case fold ambiguous).
            if held := frozenset(reader.postings(fieldname, term).all_ids()):
                docs[value] = held
        return docs

    def dated_between(self, since: int | None, until: int | None) -> set[int]:
        """Return the documents whose date (published, else first_seen) is within [since, until] (seconds)."""
        sortable = self.schema["date"].to_column_value  # the column's own form of a date
        lo = 0 if since is None else bisect_left(self._dates, sortable(since))
        hi = len(self._dates) if until is None else bisect_right(self._dates, sortable(until))
        return set(self._dated_docs[lo:hi])

    def same_date(self, docnum: int) -> set[int]:
        """Return the live documents dated as *docnum* is (its date's sortable form, to the second)."""
        date = self._date_of[docnum]
        return set(self._dated_docs[bisect_left(self._dates, date) : bisect_right(self._dates, date)])

    def date_key(self, docnum: int) -> int:
        """Return *docnum*'s date in its sortable form (larger is newer)."""
        return self._date_of[docnum]

    def newest_rank(self, docnum: int) -> int:
        """Return *docnum*'s place among the live documents newest first (listing order breaking ties)."""
        return self._newest_rank[docnum]

    def newest_first(self, docs: set[int] | frozenset[int], limit: int) -> list[int]:
        """Return the newest *limit* of *docs* by date, listing order breaking ties."""
        if len(docs) * 8 < len(self.newest):  # few: sort them rather than walk the whole order
            return heapq.nsmallest(limit, docs, key=self._newest_rank.__getitem__)
        return list(islice((docnum for docnum in self.newest if docnum in docs), limit))

    def in_listing_order(self, docs: set[int] | frozenset[int], limit: int) -> list[int]:
        """Return the first *limit* of *docs* in listing order (the corpus's own order: ``sort=listing``)."""
        return heapq.nsmallest(limit, docs, key=lambda docnum: (self._order_of[docnum], docnum))

    def term_docs(self, fieldname: str, text: str | bytes) -> array:
        """Return the document numbers holding *text* in *fieldname*, ascending (cached)."""
        key = (fieldname, text.decode("utf-8") if isinstance(text, bytes) else text)
        return self._terms.get_or_make(key, lambda: _read_term(self.searcher(), *key))

    @cached_property
    def listing_is_time(self) -> bool:
        """Return whether this snapshot's listing order is its documents' order in time (``store.listing_is_time``)."""
        return store.listing_is_time(self.meta)

    @cached_property
    def listing_is_newest(self) -> bool:
        """Return whether listing order puts the documents in the order newest first does (every one
        of the seed's, dated by the build that first saw them in the order their page lists them)."""
        return all(self._order_of[a] < self._order_of[b] for a, b in zip(self.newest, self.newest[1:]))

    def sorts_alike(self, with_query: bool) -> bool:
        """Return whether sort=listing gives the order sort=newest gives, for a search with or without a
        query: with one, newest puts documents of one date in relevance order, unless their listing
        is their order in time (``listing_is_time``)."""
        return self.listing_is_newest and (not with_query or self.listing_is_time)

    @cached_property
    def guide_topics(self) -> tuple[str, ...]:
        """Return the topics that have a guide (a guide section's first topic is its guide's), in order."""
        guides = self.facet_docs.get("kind", {}).get("guide", frozenset())
        return tuple(dict.fromkeys(topics[0] for d in sorted(guides) if (topics := self.stored(d).get("topics"))))

    @cached_property
    def _few_ids(self) -> frozenset[str] | None:
        """Every id of a small snapshot (``IDS_KEPT_DOCS`` documents at most), None for a larger one.

        A look-up in Whoosh's term table costs some 5 µs hot and more in a request, on every search;
        a set answers most forms of a text for nothing (measured: docs/performance.md)."""
        return frozenset(ids_of(self.searcher().reader())) if self.doc_count <= IDS_KEPT_DOCS else None

    @cached_property
    def _organisations(self) -> dict[str, str]:
        """Each organisation with documents tagged, by its name folded (case, spaces): the build's
        gazetteer's by their names, and an organisation a source names itself (a JSONL line's
        ``entities``) by what it writes: "Сбер" did not find the page tagged Сбер that writes "Сбера"
        (a QA pass of non-English corpora)."""
        orgs = self.meta.get("organisations")
        tagged = self.facet_docs.get("entities", {})
        out: dict[str, str] = {}
        for slug, org in (orgs.items() if isinstance(orgs, dict) else ()):
            if isinstance(org, dict) and isinstance(org.get("name"), str) and slug in tagged:
                out.setdefault(_folded_name(org["name"]), slug)
        known = orgs if isinstance(orgs, dict) else {}
        for value in tagged:
            if value not in known:
                out.setdefault(_folded_name(value), value)
        return out

    @cached_property
    def _guide_openings(self) -> dict[str, int]:
        """Each guide's first section, by its topic's value and label, folded (case, blanks, "-")."""
        firsts: dict[str, tuple[int, int]] = {}
        for docnum in self.facet_docs.get("kind", {}).get("guide", frozenset()):
            fields = self.stored(docnum)
            topic, position = fields.get("topic"), fields.get("position")
            if isinstance(topic, str) and isinstance(position, int) and (topic not in firsts or position < firsts[topic][0]):
                firsts[topic] = (position, docnum)
        out: dict[str, int] = {}
        for topic, (_, docnum) in firsts.items():
            for name in (self.label("topic", topic), topic):
                out.setdefault(_folded_name(name.replace("-", " ")), docnum)
        return out

    def guide_opening(self, text: str, words: tuple[str, ...] | None = None) -> int | None:
        """Return the first section of the guide whose topic *text* names ("training infrastructure",
        "Training-Infrastructure"), or whose topic's words, analysed as a query's, are *words* (the
        query's, analysed: "trainning infrastructure", whose first word the stemmer reads as
        "training"'s), or None."""
        if not self._guide_openings:
            return None
        found = self._guide_openings.get(_folded_name(text.replace("-", " ")))
        return found if found is not None or not words else self._guide_openings_by_words.get(words)

    @cached_property
    def title_lengths(self) -> np.ndarray:
        """Return every document's title length as BM25 reads it (Whoosh's length byte), by document
        number: the points of a word a name gives (``ranking.name_points``) for thousands of documents
        at once ("gtk library dev" gives 7,284 at 64k, 27 µs each one by one)."""
        lengths = np.ones(self.searcher().doc_count_all())
        for leaf, offset in self.searcher().leaf_searchers():
            reader = leaf.reader()
            try:
                raw = length_bytes(reader, "title")
            except Unsupported:  # another reader: one document at a time
                for docnum in range(reader.doc_count_all()):
                    lengths[offset + docnum] = reader.doc_field_length(docnum, "title", 1)
                continue
            if raw is not None:
                lengths[offset : offset + len(raw)] = LENGTH_OF_BYTE[np.frombuffer(raw, dtype=np.uint8)]
        return lengths

    @cached_property
    def _guide_openings_by_words(self) -> dict[tuple[str, ...], int]:
        """Each guide's first section by its topic's words as a query's are analysed (value and label)."""
        analyzer = self.schema["title"].analyzer
        out: dict[tuple[str, ...], int] = {}
        for name, docnum in self._guide_openings.items():
            words = tuple(t.text for t in analyzer(name, mode="query"))
            if words:
                out.setdefault(words, docnum)
        return out

    def organisation(self, text: str) -> str | None:
        """Return the organisation *text* is the name of ("alibaba", "Mistral  AI"), or None.

        Only its name: an alias is narrower ("AWS", "Azure", "Qwen" are part of what the name covers)."""
        return self._organisations.get(_folded_name(text)) if self._organisations else None

    def warm(self) -> None:
        """Walk the ids for the names they give now (at 64k some 0.3 s), not in the first search of a name."""
        self._name_forms  # noqa: B018 - a cached property, made here

    def named(self, text: str) -> int | None:
        """Return the live document whose name is *text*, or None.

        A document's name is its id less the snapshot's namespace (``id_prefix``): ``gimp`` names
        ``deb-gimp``; see ``index.schema.name_ids`` for the forms tried.  Each is one look-up, in the
        ids of a small snapshot or in the id field's term table, not a scan.  A text longer than a slug
        id names the document whose id is its slug cut short only when that document's title is the
        same text (``index.schema.title_slug``): a title typed whole, not a title with more after it."""
        for doc_id in name_ids(text, self.id_prefix):
            docnum = self._live_id(doc_id)
            if docnum is not None:
                return docnum
        cut = title_slug(text)
        if cut is not None:
            docnum = self._live_id(cut[0])
            if docnum is not None and whole_slug(str(self.stored(docnum)["title"])) == cut[1]:
                return docnum
        # A name no document has but with a version after it: "apache" names apache2, "sqlite" sqlite3,
        # "lua" the newest of lua5.1 … lua5.4 (a QA pass on the Debian corpus: apache2 was 16th).
        key = text.strip().lower() if text and len(text) <= NAME_MAX_CHARS else ""
        if not key:
            return None
        versioned, carried = self._name_forms
        found = versioned.get(key)
        if found is None and self.id_prefix:
            # Nor with a version: the one name of two parts ending with it, in a namespaced corpus: "numpy"
            # is python3-numpy, "pip" python3-pip (Debian's judged "numpy" and "pip" scored 0: a QA pass's
            # set); "yaml" is no one's (lua-yaml, node-yaml), nor "dev" (thousands).  Not an English word
            # alone: 731 are so carried at 64k, and "training" is no query for hamradio-training, "history"
            # none for debian-history.
            from search.spell import common_word  # (here: the speller's word list, read once, on this path only)

            found = carried.get(key) if not common_word(key) else None
            words = key.split()
            if found is None and len(words) == 2 and (carrier := carried.get(words[1])) is not None \
                    and carrier[len(self.id_prefix):].startswith(words[0]):
                found = carrier  # "python requests": python3-requests (0 on Debian's judged set)
        return self._live_id(found) if found is not None else None

    @cached_property
    def _name_forms(self) -> tuple[dict[str, str], dict[str, str]]:
        """Return, from one walk over the ids (0.17 s at 64k), the names ids have only with a version
        number after them and the words exactly one name of two hyphenated parts ends with, each with
        its id, in the snapshot's namespace; neither holds a name an id has (found as it is).

        Versioned: "apache" of ``deb-apache2``, "lua" of ``deb-lua5.4``, a major version first
        ("python3", not "python3.11"), the highest.  Carried: "numpy" of ``deb-python3-numpy``; not a
        word two names end with."""
        best: dict[str, tuple[tuple[int, tuple[int, ...]], str]] = {}
        ends: dict[str, str | None] = {}
        prefix = self.id_prefix
        ids = ids_of(self.searcher().reader())
        for doc_id in ids:
            if not doc_id.startswith(prefix):
                continue
            if prefix:
                parts = doc_id[len(prefix):].lower().split("-")
                if len(parts) == 2 and parts[0] and len(parts[1]) > 1 and not parts[1].isdigit():
                    ends[parts[1]] = None if parts[1] in ends else doc_id  # two names end with it: no one's
            found = _VERSIONED.fullmatch(doc_id, len(prefix))
            if found is None or ("." not in found.group(2) and len(found.group(2)) > 3):
                # Four digits and no dot are a model or a year, not a version: "fonts" named fonts-3270, a
                # font for IBM 3270 terminals, first of every font (a QA pass); emu8051, warzone2100 alike.
                continue
            parts_of = tuple(int(part) for part in found.group(2).split("."))
            version = (-len(parts_of), parts_of)  # a major version first ("python3", not "python3.11"), the highest
            if found.group(1) not in best or version > best[found.group(1)][0]:
                best[found.group(1)] = (version, doc_id)
        names = set(ids)
        versioned = {name: doc_id for name, (_, doc_id) in best.items() if prefix + name not in names}
        carried = {word: doc_id for word, doc_id in ends.items() if doc_id is not None and prefix + word not in names}
        return versioned, carried

    def _live_id(self, doc_id: str) -> int | None:
        few = self._few_ids
        if few is not None and doc_id not in few:
            return None
        if ("id", doc_id) not in self.searcher().reader():
            return None
        live = [docnum for docnum in _read_term(self.searcher(), "id", doc_id) if docnum in self.all_docs]
        return live[-1] if live else None  # an id is unique among live documents

    def holds(self, doc_id: str) -> bool:
        """Return whether a live document of this snapshot has the id *doc_id* (as the id is stored)."""
        return self._live_id(doc_id) is not None

    def title_of(self, doc_id: str) -> str | None:
        """Return the title of the live document with the id *doc_id*, or None when there is none."""
        docnum = self._live_id(doc_id)
        return None if docnum is None else str(self.stored(docnum).get("title") or "")

    def doc_frequency(self, word: str) -> int:
        """Return how many documents hold the analysed *word* in a searched field (the larger field count)."""
        reader = self.searcher().reader()
        return max(reader.doc_frequency("title", word), reader.doc_frequency("body", word))

    def stored(self, docnum: int) -> dict[str, object]:
        """Return document *docnum*'s stored fields, decoded (cached: treat the dict as read-only)."""
        return self._stored.get_or_make(docnum, lambda: from_document(self.searcher().stored_fields(docnum)))

    def was_topic(self, text: str) -> bool:
        """Return whether *text* is, in any case, a slug a topic had before it was renamed (``former_topics``)."""
        return _fold_case(text) in self._former_folds

    def canonical_filters(self, params: SearchParams) -> SearchParams:
        """Return *params* with each filter value this snapshot lacks, but has in another case, in its
        own case: ``entity=OpenAI`` filters by ``openai``.  Other unknown values stay (they match nothing).
        A facet's values combine with OR, so their order says nothing: they are put in order, and a
        search has one address, one feed id and one ETag however its filters were clicked."""
        if not (params.topic or params.entity or params.kind or params.month):
            return params  # most searches: no filter to look at
        changes: dict[str, tuple[str, ...]] = {}
        for facet, field in FACETS.items():
            values, known = getattr(params, facet), self.facet_docs[field]
            if values and not all(value in known for value in values):
                folded = self._folded[facet]
                values = tuple(dict.fromkeys(read for v in values for read in _read_values(v, known, folded)))
            if len(values) > 1:
                values = tuple(sorted(values))
            if values != getattr(params, facet):
                changes[facet] = values
        return params.with_(**changes) if changes else params

    def inline_filters(self, params: SearchParams) -> SearchParams:
        """Return *params* with the filters typed in its query (``typed_filters``) and then its phrase of
        time ("stargate last week": ``search.when.with_dates``) read as their parameters."""
        typed = self.typed_filters(params)
        if not self.dated_apart:
            return typed  # dates that tell nothing apart: a phrase of time is words
        if (typed.since, typed.until, typed.month) != (params.since, params.until, params.month):
            # A bound or a month typed ("since:2025-01-01 stargate last month") says exactly what is
            # meant: the phrase is words, quoted so that the search read again (the API reads it for its
            # ETag, then the service) does not take it for the dates then.
            return words_kept(typed)
        return with_dates(typed, held=self._holds_word)

    def _holds_word(self, word: str) -> bool:
        """Return whether a document holds *word* (as a query's word is analysed) in a searched field."""
        term = analysed_word(word)
        return term is not None and self.doc_frequency(term) > 0

    @property
    def dated_apart(self) -> bool:
        """Whether the documents are dated over more than one day (by published, or by arrivals over
        several builds): else a phrase of time could keep them all or none (``search.when``)."""
        if len(self._dates) < 2:
            return False
        column = self.schema["date"]
        return self._dates[-1] >= column.to_column_value(column.from_column_value(self._dates[0]) + _DAY_S)

    def typed_filters(self, params: SearchParams) -> SearchParams:
        """Return *params* with each filter typed in its query (``params.INLINE_FILTER``: "topic:funding
        stargate") taken out of the query and added to its filters, as the filter's parameter would add
        it: a topic or organisation this snapshot has (in any case, or by its label or name; a comma
        list of them, or a name the gazetteer gives an organisation, as the parameter reads one), a
        kind, a month, a date bound the address does not give, no more values than a parameter takes.
        Any other stays words of the query, as before ("topic:nowhere" searches "topic" and "nowhere"),
        and so does one beside OR or after NOT (``inline_operators``: the page says why)."""
        typed = [(span, name, value) for span, name, value, apart in inline_operators(params.q) if apart]
        if not typed:
            return params
        changes: dict[str, object] = {}
        taken: list[tuple[int, int]] = []
        dated: list[tuple[int, int]] = []
        for span, name, value in typed:
            if name in ("topic", "entity"):
                known = self.facet_docs[FACETS[name]]
                read = _read_values(value, known, self._folded[name])
                if not any(one in known for one in read) and not (name == "entity" and len(read) == 1 and self._alias_of(read[0])):
                    continue  # no value this snapshot has, nor a name of one (the page offers it then)
            elif (given := as_parameter(name, value)) is None:  # a kind, a month, a date bound its parameter cannot read
                continue
            elif name in ("kind", "month"):  # (a comma list too; commas alone are no value)
                read = getattr(given, name)
                if not read:
                    continue
            else:  # since, until: one bound, the address's own first
                bound = getattr(given, name)
                if bound is None or changes.get(name, getattr(params, name)) not in (None, bound):
                    continue
                changes[name] = bound
                dated.append(span)
                continue
            values = tuple(dict.fromkeys((*changes.get(name, getattr(params, name)), *read)))  # type: ignore[misc]
            if len(values) > MAX_FILTER_VALUES:  # no more than the parameter takes: the rest stays words
                continue
            changes[name] = values
            taken.append(span)
        inlined = params.with_(**changes)
        opens, closes = inlined.date_range
        if opens is not None and closes is not None and closes < opens:  # bounds in the wrong order: those stay words
            inlined = inlined.with_(since=params.since, until=params.until)
        else:
            taken += dated
        if not taken:
            return params
        # A filter ANDNOT joined to what follows leaves it excluded: "topic:funding ANDNOT stargate" left
        # "ANDNOT stargate", an ANDNOT joining nothing, dropped: Funding's Stargate pages, the opposite of
        # what was asked (a QA pass); "NOT stargate" within Funding, as "topic:funding NOT stargate" is.
        # (Only a filter's: an ANDNOT the reader typed first joins nothing, "ANDNOT topic:funding stargate"
        # is Funding's Stargate pages, as "ANDNOT openai stargate" is Stargate's.)
        rest = without_spans(params.q, sorted(taken))
        if not params.q[: min(taken)[0]].strip():
            rest = _LEADING_ANDNOT.sub("NOT ", rest)
        if rest in OPERATORS:  # an operator the filter was to join: "topic:funding ANDNOT"
            rest = ""  # found "No results for ANDNOT", with no way out (a QA pass); the filter's list instead
        inlined = inlined.with_(q=rest)
        if not inlined.q and inlined.sort == "relevance":  # the default without a query is newest (``parse_params``)
            inlined = inlined.with_(sort=None)
        return inlined

    def unknown_values(self, params: SearchParams) -> list[tuple[str, str, str | None]]:
        """Return each topic and organisation filter value (*params* read by ``canonical_filters``) no
        document of this snapshot has, with the organisation it is a name of when the gazetteer gives it
        as an alias (``entity=qwen``: Alibaba, which a filter does not read for an alias, "AWS" being
        narrower than Amazon), else None: ``/?topic=nope`` said only that nothing matched (a QA pass)."""
        unknown: list[tuple[str, str, str | None]] = []
        for facet in ("topic", "entity"):
            for value in getattr(params, facet):
                if value not in self.facet_docs[FACETS[facet]]:
                    unknown.append((facet, value, self._alias_of(value) if facet == "entity" else None))
        return unknown

    def close_values(self, params: SearchParams) -> dict[tuple[str, str], str]:
        """Return, for each topic and organisation filter value no document has (``unknown_values``) and
        no alias names, the value of that facet spelt most like it, by its slug or its label, where one
        is close (``compute-deal``: compute-deals; a topic renamed without its old slug kept: a page said
        only "No topic is called …", the API nothing, an editor's QA pass)."""
        close: dict[tuple[str, str], str] = {}
        for facet, value, meant in self.unknown_values(params):
            if meant is not None:
                continue
            found = _spelt_like(value, ((known, folded_label) for known, (_, folded_label) in self.facet_labels[facet].items()))
            if found is not None and found not in getattr(params, facet):
                close[(facet, value)] = found
        return close

    def unheard_of(self, params: SearchParams) -> list[tuple[str, str, str | None]]:
        """Return each topic and organisation filter value of *params* (read by ``canonical_filters``)
        that names nothing of this snapshot's, with the value it may be meant for (the organisation an
        alias names, else the close value: ``close_values``), else None.

        No document has it (``unknown_values``), and it is no topic or organisation the build recorded:
        a taxonomy topic without a document yet, or whose last one an update deleted, is a topic
        still, and its feed is an empty one to follow; a former slug is its topic (a 301).  A feed of
        such a value (``topic=compute-deal``) stayed empty for ever, and its reader never learnt why
        (web.feeds answers it 404, an editor's QA pass).  Only where each value of its filter is one:
        a filter's values combine with OR, so ``topic=funding&topic=nowhere`` finds Funding's pages, and
        its feed (7 entries) was a 404 too (a regression pass)."""
        close = self.close_values(params)
        unheard = [(facet, value, meant or close.get((facet, value)) or self._close_recorded(facet, value))
                   for facet, value, meant in self.unknown_values(params)
                   if not self.recorded(facet, value) and not (facet == "topic" and self.was_topic(value))]
        whole = {facet for facet in ("topic", "entity")
                 if (values := getattr(params, facet)) and {v for f, v, _ in unheard if f == facet} >= set(values)}
        return [item for item in unheard if item[0] in whole]

    def _close_recorded(self, facet: str, value: str) -> str | None:
        """Return the topic or organisation (*facet*) the build recorded whose slug or name is spelt most
        like *value*, with or without documents: a feed of it is one to follow (``topic=networkin``
        offered nothing once Networking's last page was gone, a regression pass)."""
        known = self.meta.get({"topic": "topics", "entity": "organisations"}[facet])
        return _spelt_like(value, ((slug, self.label(facet, slug).lower()) for slug in known)) if isinstance(known, dict) else None

    def recorded(self, facet: str, value: str) -> bool:
        """Return whether the build recorded *value* as a topic or organisation (*facet*) of the corpus,
        whether or not a document of this snapshot has it (a taxonomy topic without a page yet)."""
        known = self.meta.get({"topic": "topics", "entity": "organisations"}[facet])
        return isinstance(known, dict) and value in known

    def _alias_of(self, name: str) -> str | None:
        """Return the organisation (its slug) whose gazetteer aliases hold *name* in any case, else None."""
        folded = _fold_case(name)
        organisations = self.meta.get("organisations", {})
        return next((slug for slug, org in organisations.items() if isinstance(org, dict) and slug in self.facet_docs[FACETS["entity"]]
                     and any(_fold_case(str(alias)) == folded for alias in org.get("aliases", ()))), None)

    def label(self, facet: str, value: str) -> str:
        """Return the human label of a facet value, as the snapshot's build recorded it."""
        if facet == "kind":
            return str(self.meta.get("kind_labels", {}).get(value, value))
        if facet == "month":
            return month_label(value)
        if facet == "topic":
            topic = self.meta.get("topics", {}).get(value)
            if isinstance(topic, dict) and (topic.get("label") or topic.get("name")):
                return str(topic.get("label") or topic.get("name"))
        if facet == "entity":
            org = self.meta.get("organisations", {}).get(value)
            if isinstance(org, dict) and org.get("name"):
                return str(org["name"])
        return value

    def tokens(self, docnum: int, field: str, text: str) -> TokenReplay:
        """Return *text*'s analysed tokens (document *docnum*'s *field*), analysed once and replayed."""
        # TermAnalyzer gives what the index's analyzer chain gives in index mode, from a cache of
        # analysed tokens instead of Whoosh's generator chain (the schema version ties them together).
        return self._tokens.get_or_make((docnum, field), lambda: TokenReplay(tuple(self._term_analyzer().tokens(text))))

    def kept_tokens(self, docnum: int, field: str) -> TokenReplay | None:
        """Return the token replay ``tokens`` keeps for document *docnum*'s *field*, or None when none is kept."""
        return self._tokens.get((docnum, field))

    def _term_analyzer(self) -> TermAnalyzer:
        # One per thread: its stemmer must not be called from two threads at once.
        analyzer = getattr(self._local, "term_analyzer", None)
        if analyzer is None:
            analyzer = self._local.term_analyzer = TermAnalyzer(limit=TOKEN_CACHE_WORDS, language=self.language)
        return analyzer

    def searcher(self) -> Searcher:
        """Return this thread's searcher on the snapshot."""
        searcher = getattr(self._local, "searcher", None)
        if searcher is None:
            searcher = self.index.searcher(weighting=Weighting())
            self._local.searcher = searcher
            with self._searchers_lock:
                self._searchers.append(searcher)
        return searcher


@dataclass(frozen=True, slots=True)
class Switch:
    """What a worker reads of one switch of ``current`` to a snapshot (not of the snapshot: a rollback
    to a snapshot already served is another switch, later, and a step back)."""

    ino: int  # the link's inode and time (ns): the link is made anew at each switch
    mtime_ns: int
    served_since: float  # when it was switched to, seconds since the epoch (a feed's Last-Modified)
    stepped_back: bool  # a newer snapshot is kept, served in place of it, or was (a step back's note)
    feed_floor: str = ""  # the floor note beside it (index.store.floor_note), read at the switch

    @classmethod
    def of(cls, root: Path, snap_id: str, link: os.stat_result | None) -> Switch:
        """Return the switch whose ``current`` link's status is *link* (None: no link, read as now)."""
        # Its own note too: a prune deletes the snapshots stepped back from (a feed's updated went back).
        folder = store.snapshots_dir(root) / snap_id
        stepped_back = any(other > snap_id for other in store.snapshot_ids(root)) or store.stepped_back(folder) is not None
        floor = store.floor_note(folder) or ""
        if link is None:
            return cls(-1, -1, time.time(), stepped_back, floor)
        return cls(link.st_ino, link.st_mtime_ns, link.st_mtime, stepped_back, floor)


def _per_thread() -> threading.local:
    """Return storage private to the calling OS thread, also when gevent has patched ``threading.local``.

    gevent's patched ``threading.local`` is private to a greenlet, and gunicorn's gevent worker runs
    each connection in a new one: every connection would open (and keep, until the snapshot goes) a
    searcher of its own, two more open files each.  Greenlets of one thread take turns only where one
    waits on a socket or sleeps, which nothing between a request's first and last use of the searcher
    does (index files are read with blocking calls), so the thread's greenlets can share it.
    """
    return unpatched("threading", "local")()


def _close_searchers(searchers: list[Searcher]) -> None:
    for searcher in searchers:
        searcher.close()
    searchers.clear()


class TokenReplay:
    """A text's analysed tokens, kept for the highlighter: (term, position, startchar, endchar) each."""

    __slots__ = ("entries", "texts", "where")

    def __init__(self, entries: tuple[tuple[str, int, int, int], ...]) -> None:
        self.entries = entries
        where: dict[str, list[int]] = {}
        for i, entry in enumerate(entries):
            where.setdefault(entry[0], []).append(i)
        self.where = where  # each term's entries, by index: a snippet finds its matches without a scan
        self.texts = frozenset(where)  # the terms the text holds


def _date_order(searcher: Searcher) -> tuple[tuple[int, ...], array, array, array, array, array]:
    """Return the live documents newest first, each document number's place in that order, the
    dates ascending beside their document numbers, each document number's date and its place in
    listing order.

    Documents of the same date (the seed corpus: all first seen at one build) keep listing order.
    """
    dates: list[int] = []
    orders: list[int] = []
    live: list[int] = []
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        dates += _column(reader, "date")
        orders += _column(reader, "order")
        live += (i + offset for i in reader.all_doc_ids())
    newest = tuple(sorted(live, key=lambda docnum: (-dates[docnum], orders[docnum])))
    rank = array("i", bytes(4 * len(dates)))
    for place, docnum in enumerate(newest):
        rank[docnum] = place
    by_date = sorted(live, key=dates.__getitem__)
    return newest, rank, array("Q", (dates[d] for d in by_date)), array("i", by_date), array("Q", dates), array("Q", orders)


def _column(reader, fieldname: str) -> array:
    """Return a numeric column's stored values (Whoosh's sortable form: the same order as the
    numbers) for every document of a segment, deleted ones included.

    The column is a run of fixed-size big-endian numbers, read here in one go: asking Whoosh for
    each value in turn took 0.3 s per column on the 64k-document Debian index.
    """
    count = reader.doc_count_all()
    if not count:  # an index of no documents has no columns to read (Whoosh's empty reader raises)
        return array("Q")
    column = reader.column_reader(fieldname, translate=False)
    if not isinstance(column, NumericColumn.Reader):  # a segment without the column: all defaults
        return array("Q", (column[i] for i in range(count)))
    values = array(column._typecode, column._dbfile.get(column._basepos, column._count * column._fixedlen))
    if sys.byteorder == "little":
        values.byteswap()
    values.extend(repeat(column._default, count - len(values)))  # trailing defaults are not written
    return values


def _one_word_variants(analysed: Iterable[Iterable[Iterable[str]]], written: Iterable[Iterable[str]]) -> dict[str, str]:
    """Return each one-word variant of the synonym groups as written, by its analysed word."""
    found: dict[str, str] = {}
    for words_group, typed_group in zip(analysed, written):
        for words, typed in zip(words_group, typed_group):
            words = list(words)
            if len(words) == 1 and isinstance(typed, str) and typed.strip().isalnum():
                found.setdefault(words[0], typed.strip())
    return found


def _former_slugs(topics: object, held: Mapping[str, object]) -> dict[str, str]:
    """Return each former slug of the build's *topics* (meta "topics") by the topic's slug now, but one
    that documents (*held*, the topics facet's postings) or a topic still hold."""
    if not isinstance(topics, dict):
        return {}
    return {old: slug for slug, fields in topics.items() if isinstance(fields, dict)
            for old in (fields.get("formerly") or ()) if isinstance(old, str) and old not in held and old not in topics}


def _unambiguous_folds(written: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Return each value by the case-folded form of how it is written (its own text, or its label),
    leaving out forms that two values share."""
    by_fold: dict[str, list[str]] = {}
    for text, value in written:
        by_fold.setdefault(_fold_case(text), []).append(value)
    return {fold: same[0] for fold, same in by_fold.items() if len(same) == 1}


def _fold_case(text: str) -> str:
    """Return *text* case-folded, without the combining dot that folding "İ" leaves: "TÜRKİYE" is
    "türkiye", as "Türkiye" is (it was "türki̇ye", so the topic typed in capitals was no topic)."""
    return text.casefold().replace("\u0307", "")


def _read_values(value: str, known: AbstractSet[str], folded: Mapping[str, str]) -> tuple[str, ...]:
    """Return the facet values a filter *value* is read as: itself when the snapshot has it, else the one
    it is in another case (or the label, the name, the former slug ``folded`` maps), else the values it
    lists with commas when one of them is one, each read so (``topic=compute-deals,funding``, as some
    clients write a list: it was one unknown value, and found nothing; an API QA pass; and
    ``topic=funding,nowhere`` as ``topic=funding&topic=nowhere``, Funding's pages, where it matched
    nothing and its feed was a 404), else itself (it matches nothing)."""
    if value in known:
        return (value,)
    if (one := folded.get(_fold_case(value))) is not None:
        return (one,)
    parts = [part.strip() for part in value.split(",")] if "," in value else []
    if len(parts) > MAX_FILTER_VALUES:  # no more than a filter may list
        return (value,)
    found = [part if part in known else folded.get(_fold_case(part)) for part in parts if part]
    if not any(found):
        return (value,)
    return tuple(dict.fromkeys(read or part for read, part in zip(found, (part for part in parts if part))))


def _folded_name(text: str) -> str:
    return " ".join(_fold_case(text).split())


def _ranks(labels: dict[str, tuple[str, str]]) -> dict[str, int]:
    """Return each value's rank by its lower-cased label (the second of its pair), equal labels sharing one."""
    places = {lower: place for place, lower in enumerate(sorted({lower for _, lower in labels.values()}))}
    return {value: places[lower] for value, (_, lower) in labels.items()}


def _by_doc(postings: dict[str, frozenset[int]]) -> dict[int, tuple[str, ...]]:
    """Invert a facet's postings: each document's values (equal tuples shared, to stay small)."""
    values: dict[int, list[str]] = {}
    for value, docs in postings.items():
        for doc in docs:
            values.setdefault(doc, []).append(value)
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}
    return {doc: shared.setdefault(tuple(vals), tuple(vals)) for doc, vals in values.items()}


def _read_term(searcher: Searcher, fieldname: str, text: str) -> array:
    """Read a term's document numbers a block at a time, without scoring or walking a matcher."""
    docs = array("i")
    for leaf, offset in searcher.leaf_searchers():
        reader = leaf.reader()
        if (fieldname, text) not in reader:
            continue
        ids, _ = read_postings(reader, fieldname, text)
        docs.extend(i + offset for i in ids) if offset else docs.extend(ids)
    return docs
