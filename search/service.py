"""The search service: run a request's queries against the published snapshot.

Ranking is one score (search/ranking.py): BM25F over title and body (the title weighing as the body)
times the share of the query a document covers, each concept weighing by its rarity (idf).  A document
with only some of the words is a match too, so a long question still finds what is there; there are
no tiers, so one with every word ranks first only when it scores higher (by date, ``sort=newest``, the
documents with every concept do come first).
Totals and facet counts are exact: they come from the set of matching document numbers,
not from scoring every match.  Facets are disjunctive: each facet's counts ignore that facet's own
selection, so a count says how many results clicking the value would give.
"""

from __future__ import annotations

import gc
import logging
import math
import os
import re
from bisect import bisect_left
import threading
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from functools import partial
from pathlib import Path
from urllib.parse import quote

from whoosh import query as wq

from index import store
from index.analysis import searching_in
from index.schema import guide_url, plain_text
from search.cache import ResultCache, memory_lock, unpatched
from search.facets import count_facets, selected_docs
from search.highlight import highlight_snippet, highlight_title, together
from search.params import MAX_QUERY_WORDS, SearchParams
from search.explain import explain, unqueried
from search.evaluator import matches
from search.query import (
    ParsedQuery, Vocabulary, bare_request, build_query, caps_lock, corrected_query, excluded_words, function_words,
    function_words_in_capitals,
    exclusion_fixes, ignored_syntax, keep_informative, meaning_text, negation_offers, non_places, segmented, short_prefixes, shorthands, the_us,
    typed_marks,
)
from search import semantic
from search import ranking
from search.ranking import rank
from search.alternatives import ways_out
from search.results import Answer, Hit, SearchResult, Suggestion, WayOut
from search.snapshot import ResourceShortage, Snapshot, TokenReplay
from search.spell import Speller, exclusion_hint, expand_helpfully, far_word_fixes, rare_word_fixes, respelt, suggested_fixes

# Each search has a time budget; ranking that runs past it stops and returns what it has found.
DEFAULT_BUDGET_S = 2.0

# Highlighted titles and snippets kept, keyed by document, field and the query terms it holds: the
# same document is often shown for different queries that mark the same words in it.
HIGHLIGHT_CACHE_SIZE = 8192

# A guide section among the first hits, nearly as good as the first, is shown as an answer card.
ANSWER_WITHIN = 3
ANSWER_SCORE_RATIO = 0.6
# A topic's name and "guide" ("training infrastructure guide"): its guide asked for.
_GUIDE_ASKED = re.compile(r"^(?P<topic>.*?\S)\s+guides?[\s?!.]*$", re.IGNORECASE)
# "More like this" without vectors: a document's LIKE_TERMS key words.
LIKE_TERMS = 15
# ... picked from the first LIKE_TEXT_CHARS characters of its title and text (``more_like_this``).
LIKE_TEXT_CHARS = 100_000

_NO_TERMS: frozenset[str] = frozenset()
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Refusal:
    """A published snapshot that could not be opened, and why; the service serves an older one."""

    snapshot: str
    key: tuple[int, int] | None  # its folder's inode and mtime (None: no folder): a new copy of it is tried again
    reason: str


LIKE_POOL = 4  # candidates looked at for "more like this", per document shown
LIKE_POOL_WIDER = 40  # ... when too few of those are left once a text's copies are dropped

# After an unexpected error the open snapshot's files are checked against its manifest: their sizes
# each time (a stat a file), their checksums (a read of the whole index: about 0.3 s at 64k) at most
# once in RECHECK_SUMS_S, so that a query that fails for another reason cannot make every worker
# hash the index over and over.
RECHECK_SUMS_S = 60.0

# A published snapshot of more documents than the open one's OPEN_INLINE_DOCS is opened beside the
# requests, the open one answering meanwhile (``SearchService._opened_beside``); a smaller one in the
# request that finds it (a few milliseconds on the seed corpus).
OPEN_INLINE_DOCS = 2_000

# After a worker ran out of a resource (open files, memory: search.snapshot.SHORTAGES), /healthz says
# degraded, naming it, for SHORTAGE_HOLD_S: a load balancer's check (one a second, 2 failures) takes
# the replica out while its searches fail, though the check itself needs no file the searches need.
SHORTAGE_HOLD_S = 10.0


class SearchService:
    """Answer searches from the snapshot currently published under *root*, following new publishes."""

    def __init__(self, root: str | Path, budget_s: float = DEFAULT_BUDGET_S) -> None:
        self.root = Path(root)
        self._root = os.fspath(self.root)  # for store.current_link, asked twice a request
        self.budget_s = budget_s
        self._snapshot: Snapshot | None = None
        self.refused: Refusal | None = None  # the published snapshot, when it failed its checks
        self._unanswered: Refusal | None = None  # ``refused``, when no older snapshot could answer either
        self._lock = threading.Lock()
        # A large published snapshot opened beside the requests (``_opened_beside``): which is being
        # opened, the one opened for the next request to take, and the last one that could not be.
        self._swap = memory_lock()
        self._opening: str | None = None
        self._opened: Snapshot | None = None
        self._failed: str | None = None
        self._summed_at = -RECHECK_SUMS_S  # when refuse_if_damaged last read the open snapshot's files
        self._short: tuple[float, ResourceShortage] | None = None  # the last resource run out of, and when
        self._speller = Speller()
        self._results: ResultCache[SearchResult] = ResultCache()
        self._highlights: ResultCache[str] = ResultCache(HIGHLIGHT_CACHE_SIZE)

    def snapshot(self) -> Snapshot:
        """Return the open snapshot, switching to a newer one if it was published since.

        A published snapshot that fails its checks is refused (see ``refused``) and the last good one
        keeps answering: the one already open, or else the newest older one on disk that opens.
        """
        current, link = store.current_link(self._root)
        snap = self._snapshot
        # A published snapshot folder that vanished (deleted by hand) is not served from open files.
        # The one kept open is served under the switch *link* says: a rollback to it is a switch too.
        if self._keeps(snap, current):
            return snap.switched_by(self.root, link)
        if current is not None and snap is not None and (beside := self._opened_beside(snap, current)) is not None:
            if beside is snap:  # answering until *current* is open: under the switch it was served by
                return snap
            del snap  # taken: let the replaced one's files go now, as below
            gc.collect()
            return beside.switched_by(self.root, link)  # opened at an earlier switch to it, maybe
        with self._lock:
            snap = self._snapshot
            if self._keeps(snap, current):
                return snap.switched_by(self.root, link)
            if current is None:
                raise store.no_current(self.root)
            unanswered = self._unanswered
            if snap is None and unanswered is not None and unanswered is self.refused and self._still_refused(current):
                # Refused, and no older snapshot could answer: said once (below), not tried and logged
                # again at every request (a health check each second), until current or its folder changes.
                raise store.IndexUnavailable(unanswered.reason)
            try:
                self._snapshot = Snapshot(self.root, current, link)
                if snap is not None:
                    # Under gevent a replaced snapshot can sit in a reference cycle (greenlet frames)
                    # until the collector's next full pass, keeping its files open for thousands of
                    # requests (tests/test_attack_soak.py); collect now, once per publish, to let go.
                    del snap
                    gc.collect()
            except ResourceShortage as exc:
                # Out of open files or memory: nothing is wrong with the snapshot. Nothing is refused
                # and no older one stands in; the next request opens it again.
                self.note_shortage(exc)
                if snap is not None and snap.path.is_dir():
                    log.warning("published snapshot %s not opened yet: %s; snapshot %s answers meanwhile", current, exc, snap.id)
                    return snap  # under the switch it was served by, as while one is opened beside
                raise
            except store.IndexUnavailable as exc:
                # A folder gone (deleted by hand; key None) is refused as a damaged one is: tried again
                # once it is there, and meanwhile the last good snapshot answers.
                self.refused = refused = Refusal(current, self._folder_key(current), str(exc))
                good = snap if snap is not None and snap.path.is_dir() else self._older_good(current)
                # Once a refusal (tried again only when its folder is replaced): /healthz says degraded,
                # and the log says which snapshot, why, and what answers instead.
                log.warning("published snapshot %s refused: %s; %s", current, exc,
                            f"snapshot {good.id} answers instead" if good is not None else "no snapshot can answer")
                if good is None:
                    self._unanswered = refused
                    raise
                self._snapshot = good.switched_by(self.root, link)
            else:
                self.refused = None
            return self._snapshot

    def note_shortage(self, exc: ResourceShortage) -> None:
        """Note that a request ran out of a resource (``shortage``)."""
        self._short = (time.monotonic(), exc)

    def shortage(self) -> ResourceShortage | None:
        """Return the resource a request ran out of in the last SHORTAGE_HOLD_S, or None."""
        short = self._short
        return short[1] if short is not None and time.monotonic() - short[0] < SHORTAGE_HOLD_S else None

    def refusal(self) -> Refusal | None:
        """Return the refusal of the snapshot published now, or None.

        A refusal of one published no longer (withdrawn by a rollback, superseded by a publish) says
        nothing of what is served: it is kept until this worker opens what is published (until the next
        request, or while a large one is opened beside the requests), and /healthz said degraded,
        naming it, meanwhile (5 polls of 0.1 s after a rollback and an update, a QA pass)."""
        refused = self.refused
        return refused if refused is not None and refused.snapshot == store.current_id(self._root) else None

    def refuse_if_damaged(self) -> bool:
        """After an unexpected error, refuse the open snapshot if its files no longer match its manifest
        (cut short or altered under the running server: Whoosh then raised anything, a 500 on every
        search touching them) and return True; the next request opens the newest older one that verifies.
        Raise ResourceShortage when the files could not be read for want of open files or memory: that
        says nothing of the snapshot, which is kept (it was refused, "no readable files.json: [Errno 24]").
        """
        snap = self._snapshot
        if snap is None:
            return False
        now = time.monotonic()
        sums = now - self._summed_at >= RECHECK_SUMS_S
        summed_at = self._summed_at
        if sums:
            self._summed_at = now
        try:
            store.check_files(snap.path, snap.id, sums=sums)
        except store.IndexUnavailable as exc:
            if (short := ResourceShortage.of(exc, f"snapshot {snap.id} cannot be checked now", snap.path)) is not None:
                self._summed_at = summed_at  # not read: the sums are due again
                raise short from exc
            with self._lock:
                if self._snapshot is snap:
                    self._snapshot = None
                    self.refused = Refusal(snap.id, self._folder_key(snap.id), str(exc))
                    log.warning("snapshot %s refused while it answered: %s", snap.id, exc)
            return True
        return False

    def _opened_beside(self, snap: Snapshot, current: str) -> Snapshot | None:
        """Return the snapshot to answer with while published snapshot *current* is opened beside the
        requests (an operating-system thread): the open *snap* until it is ready, then it; None to open
        it here, in the request (a small one, or one the thread could not open: refused there).

        At 64k a worker took 0.35 s to open a snapshot and 0.16 s more for its first search, inside
        the request, with the worker's other requests queued behind it (p99 978 ms through an update).
        """
        opened = self._opened
        if opened is not None:
            with self._swap:
                opened, self._opened = self._opened, None
            if opened is not None and opened.id == current:
                self._snapshot, self.refused = opened, None
                return opened
        if self._opening == current:
            return snap
        if self._failed == current or snap.doc_count <= OPEN_INLINE_DOCS or not os.path.isdir(snap.path):
            return None
        with self._swap:
            if self._opening is None:
                self._opening = current
                unpatched("_thread", "start_new_thread")(self._open_beside, (current,))
        return snap

    def _open_beside(self, snap_id: str) -> None:
        """Open snapshot *snap_id* (in a thread of its own) for the next request to take."""
        try:
            opened: Snapshot | None = Snapshot(self.root, snap_id)
            opened.warm()  # its names too, not in the first search on it
            failed = None
        except Exception:  # damaged, gone, unreadable: the next request opens it in its own turn, and says why
            opened, failed = None, snap_id
        with self._swap:
            self._opening, self._opened, self._failed = None, opened, failed

    def _keeps(self, snap: Snapshot | None, current: str | None) -> bool:
        """Return whether the open *snap* still answers for *current*: it is current, or the last good one."""
        if snap is None or not os.path.isdir(snap.path):
            return False
        if snap.id == current:
            if self.refused is not None:
                self.refused = None  # current again (a rollback): nothing is refused any more
            return True
        return self._still_refused(current)

    def _folder_key(self, snap_id: str) -> tuple[int, int] | None:
        try:
            st = (store.snapshots_dir(self.root) / snap_id).stat()
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns

    def _still_refused(self, current: str | None) -> bool:
        # Checked again only once its folder is replaced (a new publish): verifying costs a full read.
        refused = self.refused
        return refused is not None and refused.snapshot == current and refused.key == self._folder_key(current)

    def _older_good(self, than: str) -> Snapshot | None:
        for snap_id in store.stand_ins(self.root, than):
            try:
                return Snapshot(self.root, snap_id)
            except ResourceShortage:
                raise  # no older one opens either: the next request tries again
            except store.IndexUnavailable:
                continue
        return None

    def warm(self) -> None:
        """Open the published snapshot and make what a first search would make of it (its names, its
        words listed for spelling), before a reader waits: a worker calls it as it boots."""
        snap = self.snapshot()
        snap.warm()
        with searching_in(snap.language):
            self._vocabulary(snap).warm()

    # -- search ---------------------------------------------------------------------------------

    def search(self, params: SearchParams) -> SearchResult:
        """Return the page of hits, the exact total, the facet counts and, when empty, the ways out."""
        return self._search(params, with_ways=True)

    def _search(self, params: SearchParams, with_ways: bool) -> SearchResult:
        started = time.perf_counter()
        snap = self.snapshot()
        with searching_in(snap.language):
            return self._searched(snap, params, with_ways, started)

    def _searched(self, snap: Snapshot, params: SearchParams, with_ways: bool, started: float) -> SearchResult:
        params = snap.canonical_filters(snap.inline_filters(params))  # "topic:funding stargate" too
        key = (params, with_ways)
        cached = self._results.get(snap.id, key)
        if cached is not None:
            return replace(cached, took_ms=_ms_since(started))
        asked = self._understand(snap, params)
        fixes = _not_excluded(snap, asked.parsed, suggested_fixes(asked.parsed, asked.vocabulary)) if asked.parsed and asked.vocabulary else []
        written = _as_typed(asked.parsed.text, params.q) if asked.parsed else params.q  # what corrections are written into
        hint = respelt(written, fixes) if asked.parsed and fixes else None
        if (hint is not None and asked.vocabulary is not None and 2 * len(fixes) >= len(asked.parsed.concepts)  # type: ignore[union-attr]
                and not any(asked.vocabulary.contains(written[a:b]) for (a, b), _ in fixes)):
            # The meaning of what is searched, where no page holds a word corrected and those are half
            # the query or more: "firefx" searched "firefox" with no meaning of its own, its 182 pages
            # tied and listed alphabetically, Firefox itself 107th (a QA pass).  In a paragraph a word
            # or two corrected move its meaning little (two of CISI's lost 0.06 and 0.08).
            asked = replace(asked, near=_meaning(snap, hint.text, asked.vocabulary))
        found = _Found.of(snap, params, asked.parsed, asked.near, hint.text if hint else None)
        if found.named_as_typed:
            hint = None  # "dhex" is a package: not a misspelling of "dex"
        ranked, timed_out, cosines, best = self._order(snap, params, asked, found, started)
        lifted = self._lifted(snap, params, asked.parsed, found, ranked)
        if lifted is not None:  # the card's result is the first result, on every page size
            ranked = [self._scored(snap, asked.parsed, found, ranked, lifted, cosines, best),
                      *(pair for pair in ranked if pair[0] != lifted)]
        ranked = ranked[: params.end]
        lacked = found.lacked(asked.parsed)  # read once: by each hit's missing and by held_nowhere
        hits, unexplained = self._hits(snap, params, asked.parsed, found, ranked, cosines, best, started + self.budget_s, lacked)
        timed_out = timed_out or unexplained
        answer = None
        if lifted is not None and params.page == 1:  # one answer, once: the card shows it, so the list below does not
            answer = self._answer(snap, asked.parsed, lifted, hits[0])  # the card's hit is the first (lifted first)
            hits = tuple(hit for hit in hits if hit.id != answer.id)
        facets = count_facets(snap, params, found.matched, found.selected)
        match = found.match_level(asked.parsed)
        shown = hint is not None and _shows_correction(snap, asked.parsed, found.allowed)
        if shown and asked.parsed and any(hit.missing for hit in hits):
            # "Including results for oracle stargate": a hit lacks "oracle", as the results have it, not
            # the "oracel" typed (a reader's QA pass); the page's "Must include" link requires it too.
            respelt_as = {asked.parsed.text[start:end]: word for (start, end), word in fixes}
            hits = tuple(_respelt_missing(hit, respelt_as) if hit.missing else hit for hit in hits)
        in_vain, in_vain_fixed = (), None
        if asked.parsed and asked.vocabulary and not asked.parsed.plain:  # syntax the parser choked on excludes nothing
            typed = _without_markup(params.q)  # as _understand read it: "-<b>nvdia</b>" excludes "nvdia"
            also = fixes if shown and written == typed else []  # the did-you-mean's, in the same places
            in_vain, in_vain_fixed = exclusion_hint(typed, asked.read, asked.vocabulary, snap.synonyms, asked.parsed.terms, also)
            # A part of a name no text writes left out the pages so named: not excluded in vain.
            if in_vain and (kept := tuple(word for word in in_vain if not _name_holders(snap, word))) != in_vain:
                in_vain, in_vain_fixed = kept, None
        offered = None
        if hint is None and asked.parsed and asked.vocabulary and not found.named_as_typed:
            if found.allowed:
                rare = _not_excluded(snap, asked.parsed, rare_word_fixes(asked.parsed, asked.vocabulary, snap.doc_count))
                offered = respelt(written, rare) if rare else None
                if offered is None and written == asked.parsed.text:
                    offered = _negation_offered(asked.parsed, found, asked.vocabulary)
            elif written == asked.parsed.text:  # "starget": nothing found, Stargate offered
                far = _not_excluded(snap, asked.parsed, far_word_fixes(asked.parsed, asked.vocabulary))
                offered = respelt(written, far) if far else None
        if params.verbatim and asked.parsed and not found.named_as_typed:
            # Searched as typed, the correction offered is the one the search not verbatim searches, to
            # switch back to: "pyhton" offered none, "tritn" "train" where that search says Triton (a QA pass).
            corrected = self._search(params.with_(verbatim=False, page=1, per_page=1, explain=False), with_ways=False)
            offered = corrected.suggestion or offered
        # An empty result's ways out start with its respelling: the correction, else the word offered
        # ("starget" offered stargate, whose 15 results no way out named: QA pass X).
        ways = self._ways_out(snap, params, hint or offered, len(found.allowed)) if with_ways else ()
        if offered is not None and hint is None and not found.allowed and with_ways and not any(w.kind == "suggestion" for w in ways):
            # A respelling that finds nothing either is no way on: "pais" (Spanish "país") offered "paris",
            # a place of the region lists that no page of the corpus holds (a QA pass of non-English corpora).
            offered = None
        # Made once, with its time: a cached copy's time is replaced when it is served again.
        result = SearchResult(
            query=params.q,
            total=len(found.allowed),
            page=params.page,
            per_page=params.per_page,
            sort=params.effective_sort,
            took_ms=_ms_since(started),  # after everything the result holds was found
            hits=hits,
            facets=facets,
            filters=params.filters(),
            match=match,
            plain=bool(asked.parsed and asked.parsed.plain),
            snapshot=snap.id,
            suggestion=hint if shown else None,
            answer=answer,
            timed_out=timed_out,
            dropped_words=len(asked.dropped),
            dropped=asked.dropped,
            ways_out=ways,
            excluded_in_vain=in_vain,
            excluded_suggestion=in_vain_fixed,
            offered=offered,
            short_prefixes=short_prefixes(params.q, snap.analyzer) if asked.parsed else (),
            ignored_syntax=ignored_syntax(params.q),
            since=params.since,
            until=params.until,
            held_nowhere=found.held_nowhere(lacked),
        )
        if not timed_out:
            self._results.put(snap.id, key, result)
        return result

    def _understand(self, snap: Snapshot, params: SearchParams) -> _Asked:
        """Return the query for *params*: parsed, cut to its informative words, expanded (typos, prefixes)."""
        if not params.q.strip():
            return _Asked(None, None, ())
        # Markup pasted with the words ("<b>stargate</b>", an end tag saying it is markup) is its text,
        # as a document's is: its "b" ranked the pages on "$1B" first.  The query shown is as typed.
        typed = _without_markup(params.q)
        # Typed with caps lock, the function words are what they are in lower case: "HOW MUCH DID …".
        in_capitals = lambda word: self._vocabulary(snap).acronym(word)  # noqa: E731
        text = the_us(non_places(function_words_in_capitals(caps_lock(shorthands(typed_marks(typed)), in_capitals), in_capitals), snap.synonyms))
        if (guide := _GUIDE_ASKED.match(text)) is not None and snap.guide_opening(guide["topic"]) is not None:
            # "training infrastructure guide": the topic's guide (its card) and then the topic's pages, not
            # the pages titled "A Guide to …" (a QA pass: they came right after the card).
            text = guide["topic"]
        vocabulary = self._vocabulary(snap)
        text = segmented(text, vocabulary.side_by_side)  # "华为芯片": 华为 and 芯片, where no page writes them together
        # "explain analyze": a verb opening a query is a request ("explain stargate"), unless the pages
        # write it before the word after it (SQL's EXPLAIN ANALYZE, lcov's "Summarise code coverage").
        verb = bare_request(text)
        parsed = build_query(text, snap.schema, snap.synonyms, keep_verb=verb is not None and vocabulary.together(*verb, 1) > 0)
        parsed, dropped = keep_informative(parsed, snap.analyzer, snap.doc_frequency, MAX_QUERY_WORDS)
        if parsed.is_empty:
            return _Asked(parsed, None, dropped)
        expanded = expand_helpfully(parsed, vocabulary, snap.synonyms, params.verbatim)  # spell: a correction searched only where it finds more
        # A suggestion is written as typed, unless markup was taken out: "<b>stargte</b>" offered
        # "stargategte</b>", the correction put at the plain text's place in the markup (a QA pass).
        if text is not params.q and typed is params.q and expanded.text == text:
            expanded = replace(expanded, text=params.q)
        return _Asked(expanded, vocabulary, dropped, _meaning(snap, text, vocabulary), text)

    def _vocabulary(self, snap: Snapshot) -> Vocabulary:
        return self._speller.vocabulary(snap.id, snap.searcher(), snap.analyzer, snap.synonym_words, snap.named)

    def _order(
        self, snap: Snapshot, params: SearchParams, asked: _Asked, found: _Found, started: float
    ) -> tuple[list[tuple[int, float]], bool, dict[int, float], float]:
        """Return the (docnum, score) pairs up to the end of the asked page, whether time ran out,
        and for relevance the candidates' cosines and the best score by words (for explain)."""
        parsed = asked.parsed
        end = params.end
        if end - params.per_page >= len(found.allowed):
            return [], False, {}, 0.0
        if params.effective_sort == "newest":
            if parsed is None or parsed.is_empty:
                return [(docnum, 0.0) for docnum in snap.newest_first(found.allowed, end)], False, {}, 0.0
            ordered: list[int] = []
            late = False  # time ran out ordering a date's documents by relevance: said, and not kept
            for tier in found.by_coverage():  # the pages with every word first, each tier newest first
                newest = snap.newest_first(tier, end - len(ordered))
                if newest:
                    tied, out_of_time = _ties_by_relevance(
                        # By words alone: the meaning term scales with the best score among the
                        # documents ranked, so a page deeper (more of them) ordered a date's documents
                        # otherwise and paging repeated one and lost another.
                        snap, parsed, found, tier, newest, end - len(ordered), {}, started + self.budget_s
                    )
                    ordered += tied
                    late = late or out_of_time
                if len(ordered) >= end:
                    break
            return [(docnum, 0.0) for docnum in ordered], late, {}, 0.0
        if params.effective_sort == "listing" or parsed is None:
            # Every result, those found by meaning or by name alone included (the total counts them).
            return [(docnum, 0.0) for docnum in snap.in_listing_order(found.allowed, end)], False, {}, 0.0
        # Every cosine, not only the allowed documents': rank and explain look up candidates alone.
        cosines = dict(asked.near)
        # At least the answer card's candidates, on every page: the card is one of the results lifted
        # first, and each page follows on from that order whatever its size (``_lifted``).
        ranked, timed_out, best = rank(
            snap, parsed, found.allowed, found.concept_docs, max(end, ANSWER_WITHIN), started + self.budget_s, cosines, found.loose_docs,
            found.by_name,
        )
        named = found.named
        if named is not None:  # the document the query names comes first (its hit says so: matched_by "name")
            ranked = [self._scored(snap, parsed, found, ranked, named, cosines, best),
                      *((docnum, s) for docnum, s in ranked if docnum != named)][:end]
        if found.tagged and len(ranked) < end:  # pages on the organisation named without its name: after the words'
            listed = {docnum for docnum, _ in ranked}
            ranked += [(docnum, 0.0) for docnum in snap.newest_first(found.tagged - listed, end - len(ranked))]
        return ranked, timed_out, cosines, best

    @staticmethod
    def _scored(
        snap: Snapshot, parsed: ParsedQuery, found: _Found, ranked: list[tuple[int, float]], docnum: int,
        cosines: dict[int, float], best: float,
    ) -> tuple[int, float]:
        """Return *docnum* with its score: as ranked, or, ranked below the page, as explain adds it up."""
        score = next((score for ranked_doc, score in ranked if ranked_doc == docnum), None)
        if score is None:
            score = float(explain(parsed, snap, docnum, found.concept_docs, cosines.get(docnum), best, loose_docs=found.loose_docs)["score"])  # type: ignore[arg-type]
        return docnum, score

    def _hits(
        self,
        snap: Snapshot,
        params: SearchParams,
        parsed: ParsedQuery | None,
        found: _Found,
        ranked: list[tuple[int, float]],
        cosines: dict[int, float],
        best: float,
        deadline: float,
        lacked: list[tuple[str, AbstractSet[int]]],
    ) -> tuple[tuple[Hit, ...], bool]:
        """Return the asked page of *ranked* as hits, highlighted, explained when asked, and whether
        the time budget ran out before every hit asked for was explained (those after have none)."""
        page = [(docnum, score, snap.stored(docnum)) for docnum, score in ranked[(params.page - 1) * params.per_page :]]
        # A page in no concept's documents (found by meaning, or holding only a phrase's loose words)
        # has the phrase's words marked where they stand ("claude-3" marked nothing on the Claude pages).
        # Only where a phrase's words loose differ from its words together (``_highlighted``'s *loose*).
        outside = ({docnum for docnum, _, _ in page if not any(docnum in docs for docs in found.concept_docs)}
                   if parsed is not None and parsed.quoted_words and not parsed.only_together.isdisjoint(parsed.quoted_words)
                   else frozenset())
        marked = self._highlighted(
            snap, [(docnum, name, fields[name]) for docnum, _, fields in page for name in ("title", "body")], parsed, outside
        )
        explaining = params.explain and parsed is not None and not parsed.is_empty
        # First by its name under relevance only: by date or listing order it takes its place.
        first = found.named if params.effective_sort == "relevance" else None
        named = "typed" if found.named_as_typed else "corrected"
        # Found by the organisation the query names: its explanation says which (its text lacks the name).
        organisation = snap.label("entity", found.organisation) if found.organisation and explaining else None
        hits = []
        unexplained = False
        for i, (docnum, score, fields) in enumerate(page):
            explanation = None
            if explaining and not unexplained:
                explanation = explain(
                    parsed, snap, docnum, found.concept_docs, cosines.get(docnum), best,  # type: ignore[arg-type]
                    named if docnum == first else None, deadline, found.loose_docs,
                )
                unexplained = explanation is None
            elif params.explain and not explaining:  # no words: each hit scores 0 by none (``unqueried``)
                explanation = unqueried()
            if explanation is not None and docnum in found.tagged:
                explanation["organisation"] = organisation
            matched_by = ("name" if docnum == found.named else "meaning" if docnum in found.meaning
                          else "organisation" if docnum in found.tagged else "words")
            hits.append(_hit(fields, score, marked[2 * i], marked[2 * i + 1], explanation, matched_by,
                             tuple([text for text, docs in lacked if docnum not in docs]) if lacked and matched_by == "words" else ()))
        return tuple(hits), unexplained

    def _ways_out(self, snap: Snapshot, params: SearchParams, hint: Suggestion | None, total: int) -> tuple[WayOut, ...]:
        """Return, for an empty result of a query or filters, the nearby searches that find something."""
        if total or not (params.q or any(params.filters().values()) or params.since or params.until):
            return ()
        return ways_out(lambda p: self._search(p, with_ways=False), snap.label, params, hint.text if hint else None,
                        snap.close_values(params))

    def _lifted(
        self, snap: Snapshot, params: SearchParams, parsed: ParsedQuery | None, found: _Found, ranked: list[tuple[int, float]]
    ) -> int | None:
        """Return the first guide section among the top hits when it matches the query strongly: the
        answer card, shown on page 1 and counted there as the first result."""
        if parsed is None or params.effective_sort != "relevance" or found.named is not None:
            return None  # (a query that names a page asks for that page: it comes first, not a guide's card)
        if all(function_words(concept.text)
               or (function_words(concept.text.lower()) and not self._vocabulary(snap).acronym(concept.text.lower()))
               for concept in parsed.concepts):
            # "a", "the of", and "AND" or "NOT" typed alone (no page writes them as acronyms, as "US"):
            # searched, since there is nothing else, but no question to answer.
            return None
        if parsed.excluded is None:  # "what is training infrastructure": the topic's guide opens with the answer
            names = [concept.text.strip('"') for concept in parsed.concepts]
            opening = snap.guide_opening(" ".join(names), parsed.typed)
            if opening is None and len(names) > 1 and names[-1].lower() in ("guide", "guides"):
                # "training infrastructure guide": its guide, where the pages titled "A Guide to …" came
                # first and the guide's opening ninth (a QA pass).
                opening = snap.guide_opening(" ".join(names[:-1]))
            if opening is not None and opening in found.allowed:
                return opening
        top = ranked[:ANSWER_WITHIN]
        concept_docs = found.concept_docs
        guides = snap.facet_docs.get("kind", {}).get("guide", frozenset())
        if not top or not concept_docs:
            return None
        best = top[0][1]
        for docnum, score in top:
            if docnum not in guides:
                continue
            have = sum(docnum in docs for docs in concept_docs)
            # Short of every word: the query's most particular word some page holds ("llama" of "llama 4
            # training cost"), read only then; a section without it holds the question's common words,
            # not its answer.
            strong = have == len(concept_docs) or (len(concept_docs) > 2 and 2 * have > len(concept_docs)
                                                   and docnum in min((docs for docs in concept_docs if docs), key=len, default=frozenset()))
            return docnum if strong and score >= ANSWER_SCORE_RATIO * best else None
        return None

    def _answer(self, snap: Snapshot, parsed: ParsedQuery, docnum: int, hit: Hit) -> Answer:
        """Return the answer card of guide section *docnum* (its *hit*, first of the page), its text
        highlighted for *parsed* as a hit's is, with the hit's score and explanation."""
        fields = snap.stored(docnum)
        return Answer(
            id=fields["id"],
            title=fields["title"],
            url=fields["url"],
            snippet_html=self._highlighted(snap, [(docnum, "body", fields["body"])], parsed)[0],
            score=hit.score,
            explanation=hit.explanation,
            kind=hit.kind,
            title_html=hit.title_html,
            topics=hit.topics,
            entities=hit.entities,
            position=hit.position,
            published=hit.published,
            first_seen=hit.first_seen,
            revised=hit.revised,
            matched_by=hit.matched_by,
            missing=hit.missing,
        )

    def _highlighted(
        self, snap: Snapshot, texts: list[tuple[int, str, str]], parsed: ParsedQuery | None,
        outside: AbstractSet[int] = frozenset(),
    ) -> list[str]:
        """Return each (docnum, field, text) as safe HTML with *parsed*'s terms marked: titles whole,
        bodies as snippets; a quoted phrase's words where the phrase stands, and anywhere in the
        documents *outside* every concept's (found by meaning or by loose words: they hold the words,
        not the phrase)."""
        terms = parsed.terms if parsed is not None else _NO_TERMS
        postings: dict[str, list[Sequence[int]]] = {}  # each field's documents of each term, read once
        only = parsed.only_together if parsed is not None else _NO_TERMS
        loose = only - parsed.quoted_words if parsed is not None and parsed.quoted_words else only
        keys: list[tuple[object, ...]] = []
        replays: list[TokenReplay | None] = []
        aparts: list[frozenset[str]] = []
        groupings: list[frozenset[frozenset[str]] | None] = []
        concept_of: dict[str, int] | None = None
        grouped: dict[frozenset[str], frozenset[frozenset[str]] | None] = {}  # a page's bodies often hold the same terms
        for docnum, field, text in texts:
            # A text analysed before holds the terms its tokens hold: the index's terms of it, analysed by
            # the same chain (``TermAnalyzer``).  Another is analysed only when the index says it holds one.
            replay = snap.kept_tokens(docnum, field)
            if replay is None:
                held_by = postings.get(field)
                if held_by is None:
                    held_by = postings[field] = [snap.term_docs(field, term) for term in terms]
                if _holds_any(held_by, docnum):
                    replay = snap.tokens(docnum, field, text)
            held = terms & replay.texts if replay is not None else _NO_TERMS  # terms the text does not hold change nothing in its highlight
            if held:
                # Words only a multi-word synonym brings are marked where it stands whole: such a
                # text's highlight also depends on which those are, and on the synonyms.
                here = loose if docnum in outside else only
                apart = held & here if here else _NO_TERMS
                key: tuple[object, ...] = (docnum, field, held, apart, parsed.together, parsed.together_slops) if apart else (docnum, field, held)  # type: ignore[union-attr]
                grouping = None
                if len(held) > 1 and field != "title":  # which concept each term stands for picks a body's passages
                    if concept_of is None:
                        concept_of = _concept_of(parsed)  # type: ignore[arg-type]
                    if concept_of:
                        if held not in grouped:
                            grouped[held] = _grouping(held, concept_of)
                        grouping = grouped[held]
                    key = key if grouping is None else (*key, grouping)
                keys.append(key)
                groupings.append(grouping)
            else:
                # The field holds none of the terms (a hit found by meaning, a title without them):
                # nothing to mark, and no need to analyse the text to find that out.
                replay, apart = None, _NO_TERMS
                keys.append((docnum, field, held))
                groupings.append(None)
            replays.append(replay)
            aparts.append(apart)
        out = self._highlights.get_many(snap.id, keys)  # a page's highlights in one look-up
        for i, html in enumerate(out):
            if html is None:
                field, held = keys[i][1], keys[i][2]
                text, replay = texts[i][2], replays[i]
                # Without a term held a title is shown whole and a body cropped, tokens or not.
                entries, where = (replay.entries, replay.where) if replay is not None else ((), None)
                if aparts[i]:
                    entries, where = together(entries, where, parsed.together, aparts[i], parsed.together_slops)  # type: ignore[arg-type, union-attr]
                    held = held & where.keys()  # type: ignore[operator]
                if field == "title":
                    html = highlight_title(text, held, entries)
                else:
                    grouping = groupings[i]
                    weights = None if grouping is None else partial(_weights, snap, field, grouping)
                    html = highlight_snippet(text, held, entries, where=where, concepts=weights)
                self._highlights.put(snap.id, keys[i], html)
                out[i] = html
        return out  # type: ignore[return-value]

    def topics(self) -> dict[str, object]:
        """Return every topic (the taxonomy's, then any only documents name) with its document count."""
        snap = self.snapshot()
        taxonomy = snap.meta.get("topics")
        taxonomy = taxonomy if isinstance(taxonomy, dict) else {}
        everything = self.search(SearchParams(per_page=1))
        guides = self.search(SearchParams(kind=("guide",), per_page=1))
        events = self.search(SearchParams(kind=("event",), per_page=1))
        counts = {value.value: value for value in everything.facets.get("topic", ())}
        event_counts = {value.value: value.count for value in events.facets.get("topic", ())}
        with_guides = {value.value for value in guides.facets.get("topic", ()) if value.count}
        # A guide is found by its `topic` field, the facet counts `topics`: a topic has a guide page when
        # a guide section names it there (from the postings, not a search and its sections read per topic).
        guide_docs = set(snap.term_docs("kind", "guide"))
        items = []
        for slug in dict.fromkeys([*taxonomy, *counts]):
            info = taxonomy.get(slug) if isinstance(taxonomy.get(slug), dict) else {}
            facet = counts.get(slug)
            name = str(info.get("name") or info.get("label") or (facet.label if facet else slug))
            item: dict[str, object] = {
                **info,
                "slug": slug,
                "name": name,
                "label": str(info.get("label") or name),
                "description": str(info.get("description") or ""),
                "count": facet.count if facet else 0,
                # As its topic page states it; without one (0: the taxonomy does not know), the events held.
                "event_count": info.get("event_count") or event_counts.get(slug, 0),
                "search_url": f"/?topic={quote(slug, safe='')}",
                # A program's own: the same search as JSON, and the topic's newest as Atom.
                "api_url": f"/api/search?topic={quote(slug, safe='')}",
                "feed_url": f"/feeds/search.atom?topic={quote(slug, safe='')}",
                "guide_url": None,
            }
            if slug in with_guides and not guide_docs.isdisjoint(snap.term_docs("topic", slug)):
                item["guide_url"] = guide_url(slug)
            items.append(item)
        items.sort(key=lambda t: (-int(t["count"]), str(t["label"]).lower()))  # type: ignore[call-overload]
        return {"topics": items, "total": everything.total, "snapshot": everything.snapshot}

    # -- documents ------------------------------------------------------------------------------

    def renamed_id(self, doc_id: str) -> str | None:
        """Return the id a guide section has now whose id was *doc_id* before its topic was renamed
        ("<former slug>--<anchor>": a section's id is made of its topic's slug, and /events/OLD--anchor
        was a 404 after a rename that kept the topic's old addresses), or None."""
        topic, sep, anchor = doc_id.partition("--")
        now = self.snapshot().former_topics.get(topic) if sep else None
        if now is None:
            return None
        renamed = f"{now}--{anchor}"
        return renamed if self.document(renamed) is not None else None

    def document(self, doc_id: str) -> dict[str, object] | None:
        """Return a document's stored fields by id, or None.  An id not found as sent is also looked
        for composed and decomposed (NFC, NFD): "socie\u0301te\u0301-…", sent by a macOS client, was a
        404 where the query and filters are read composed (a QA pass)."""
        snap = self.snapshot()
        searcher = snap.searcher()
        docnum = searcher.document_number(id=doc_id)
        if docnum is None and not doc_id.isascii():
            for form in ("NFC", "NFD"):
                if (other := unicodedata.normalize(form, doc_id)) != doc_id:
                    docnum = searcher.document_number(id=other)
                    if docnum is not None:
                        break
        if docnum is None:
            return None
        return _document(snap.stored(docnum))

    def more_like_this(self, doc_id: str, count: int = 5) -> list[dict[str, object]]:
        """Return up to *count* documents most like *doc_id*, best first: the nearest in meaning when
        the snapshot has vectors, else those sharing the most of its key words (Whoosh's Bo1 key terms
        of its title and text, their first 100,000 characters, bare numbers left out).  Key words alone made the MTIA roadmap ("300",
        "500") like the Stargate announcement ("$500 billion") and Anthropic's funding round like an
        NVIDIA DGX page; by meaning, the first five are chip deals and Anthropic's other deals."""
        snap = self.snapshot()
        searcher = snap.searcher()
        docnum = searcher.document_number(id=doc_id)
        if docnum is None:
            return []
        docs = semantic.vectors(snap)
        vector = semantic.of_document(docs, docnum) if docs is not None else None
        # More than asked: a project's packages share one text (below).  Widened while too few are left
        # of them: firefox-esr's 20 nearest were all its own language packs, and it had none shown.
        shown: list[dict[str, object]] = []
        pools = (LIKE_POOL * count, LIKE_POOL_WIDER * count)
        for pool in pools:
            found = self._like(snap, searcher, docnum, docs, vector, pool)
            widest = pool == pools[-1] or len(found) < pool  # no wider pool to look in: filled up from this one
            shown = self._one_of_each_text(snap, docnum, found, count, fill=widest)
            if len(shown) == count or widest:
                break
        return shown

    @staticmethod
    def _like(snap: Snapshot, searcher, docnum: int, docs, vector, pool: int) -> list[int]:  # type: ignore[no-untyped-def]
        """Return up to *pool* documents nearest *docnum*: by meaning with a *vector*, else by its key words."""
        if vector is not None:
            found = [d for d, _ in semantic.nearest(docs, vector, pool + 1) if d != docnum]
        else:
            fields = searcher.stored_fields(docnum)
            # Its key words are its opening's: weighing each word looks it up in the index, and a summary
            # of 133,000 distinct words took 4.5 CPU seconds to weigh, 0.3 s since (QA pass AI); no seed
            # or Debian text is as long (20,000 changed those of texlive-latex-extra, an A-Z list).
            text = f"{fields['title']} {fields['body']}"
            if len(text) > LIKE_TEXT_CHARS:
                text = text[:LIKE_TEXT_CHARS].rsplit(None, 1)[0]  # a word cut in two is no word of the text
            try:
                terms = searcher.key_terms_from_text("body", text, numterms=2 * LIKE_TERMS)
            except ZeroDivisionError:  # Whoosh's Bo1 model, when no word of the text is in any body
                terms = []
            words = [(word, weight) for word, weight in terms if not ranking.BARE_NUMBER.fullmatch(word)][:LIKE_TERMS]
            query = wq.Or([wq.Term("body", word, boost=weight) for word, weight in words]) if words else None
            found = [hit.docnum for hit in searcher.search(query, limit=pool, mask={docnum})] if query else []
        return found[:pool]

    @staticmethod
    def _one_of_each_text(snap: Snapshot, docnum: int, found: list[int], count: int, fill: bool = True) -> list[dict[str, object]]:
        """Return up to *count* of *found* as documents, one of each text first.  Five OpenImageIO
        packages, whose descriptions open with the same paragraph (they differ in their last lines),
        were all of GIMP's "more like this".  A text is known by its opening (its first paragraph's
        first 200 characters); the document's own is taken as seen.  Then, where too few are left (and *fill*),
        the rest in their order: a Qt module's siblings, whose descriptions open as its own does, were
        all left out, and its page showed one binding or none (517 Qt packages at 64k; a QA pass)."""
        def opening(d: int) -> str:
            return str(snap.stored(d).get("body") or "").split("\n\n", 1)[0][:200]

        seen = {opening(docnum)}
        chosen: list[int] = []
        for d in found:
            text = opening(d)
            if text in seen:
                continue
            seen.add(text)
            chosen.append(d)
            if len(chosen) == count:
                break
        if fill and len(chosen) < count:
            chosen += [d for d in found if d not in chosen][: count - len(chosen)]  # after the others
        return [_document(snap.stored(d)) for d in chosen]

    def guide(self, topic: str, snap: Snapshot | None = None) -> list[dict[str, object]]:
        """Return the sections of *topic*'s guide in order (empty when it has none), in *snap* if given
        (a view reading several things of one snapshot), else in the current one."""
        snap = snap or self.snapshot()
        searcher = snap.searcher()
        query = wq.And([wq.Term("kind", "guide"), wq.Term("topic", topic)])
        results = searcher.search(query, limit=None, sortedby="order")
        return [_document(snap.stored(hit.docnum)) for hit in results]


def _negation_offered(parsed: ParsedQuery, found: _Found, vocabulary: Vocabulary) -> Suggestion | None:
    """Return "stargate -michigan" offered for "stargate not michigan" (``negation_offers``; "stargate
    -uae -uk" for "stargate except uae and uk") when leaving the words out would leave out some of the
    results, and not all of them; else None."""
    offers = negation_offers(parsed.text, vocabulary.follows)
    left_out: set[int] = set()
    for _, word_span in offers:
        # Not a place read as every other place ("not in the us" is "outside the US", said so whole).
        docs = next((docs for concept, docs in zip(parsed.concepts, found.concept_docs)
                     if concept.span == word_span and concept.text == parsed.text[word_span[0] : word_span[1]]), None)
        if docs is None:
            return None
        left_out |= found.allowed & docs
    alone = bool(offers) and not parsed.text[: offers[0][0][0]].strip()  # "not nvidia": everything else, as "-nvidia" lists
    if offers and (alone or 0 < len(left_out) < len(found.allowed)):
        return respelt(parsed.text, exclusion_fixes(parsed.text, offers))
    return None


def _subject(parsed: ParsedQuery) -> str | None:
    """Return the words *parsed* asks about, as typed, where its reading left some typed words out (a
    question's, a request's), else None."""
    concepts = parsed.concepts
    if not concepts or any(concept.members or concept.span is None for concept in concepts):
        return None
    subject = parsed.text[concepts[0].span[0] : concepts[-1].span[1]]  # type: ignore[index]
    return subject if subject.strip() != parsed.text.strip() else None


def _meaning(snap: Snapshot, text: str, vocabulary: Vocabulary) -> tuple[tuple[int, float], ...]:
    """Return the documents nearest in meaning to the query *text* (``_near``), of its words the index knows."""
    return _near(snap, meaning_text(text, lambda word: vocabulary.contains(word) and not vocabulary.acronym(word)))


def _near(snap: Snapshot, text: str) -> tuple[tuple[int, float], ...]:
    """Return the SEMANTIC_POOL documents nearest to *text* in meaning with their cosines, best first.

    Only these can earn the meaning term (or win a tie by it), so only these are looked at, not every
    candidate: search.semantic finds them from the sign bits, then exact cosines.
    """
    docs = semantic.vectors(snap)
    if docs is None or not ranking.SEMANTIC_WEIGHT:
        return ()
    vector = semantic.query_vector(text)
    if vector is None:
        return ()
    return tuple(semantic.nearest(docs, vector, ranking.SEMANTIC_POOL))


def _not_excluded(snap: Snapshot, parsed: ParsedQuery, fixes: list[tuple[tuple[int, int], str]]) -> list[tuple[tuple[int, int], str]]:
    """Return *fixes* (a respelling's) without those that write a word the query excludes: "pyhton
    -python" offered "python -python", a query that contradicts itself (a QA pass)."""
    if not fixes or parsed.excluded is None:
        return fixes
    excluded = {text for _, text in parsed.excluded.all_terms()}
    return [(span, word) for span, word in fixes
            if excluded.isdisjoint(t.text for t in snap.analyzer(word, mode="query", removestops=False))]


def _without_markup(q: str) -> str:
    """Return the query *q* as it is read: markup pasted with the words ("<b>stargate</b>", an end tag
    saying it is markup) is its text, as a document's is; *q* itself when it has none."""
    return plain_text(q, typed=True) if "</" in q else q


def _as_typed(read: str, typed: str) -> str:
    """Return the text a correction is written into: *typed* where *read* is it with the syntax's own
    marks for curly quotes and dashes, in lower case where typed with caps lock, or with a quote left
    open at its end closed ('training 5" -nvdia': the reader's inch mark is not shown closed); else
    *read*.  Each of those changes keeps the places of the words."""
    closed = len(read) == len(typed) + 1 and read.endswith('"')
    return typed if (read[:-1] if closed else read).lower() == typed_marks(typed).lower() else read


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


@dataclass(frozen=True, slots=True)
class _Asked:
    """What the reader asked: the parsed query (None: browsing), the index words near it, words left out."""

    parsed: ParsedQuery | None
    vocabulary: Vocabulary | None
    dropped: tuple[str, ...]  # the concepts of a long query left out, as typed
    near: tuple[tuple[int, float], ...] = ()  # the nearest documents by meaning, with their cosines, best first
    read: str = ""  # the query as read: in lower case where typed with caps lock (search.query.caps_lock)


@dataclass(frozen=True, slots=True)
class _Found:
    """Which documents a search matches: before filters, per filter, after them, and per concept (all exact)."""

    matched: set[int] | frozenset[int]
    selected: dict[str, set[int] | None]
    allowed: set[int] | frozenset[int]
    concept_docs: list[set[int] | frozenset[int]]  # read-only: a concept's set is the snapshot's cached one
    # Per concept, the documents holding its loose words (a hyphenated word's parts) and not it.
    loose_docs: list[set[int] | frozenset[int]] = dataclass_field(default_factory=list)
    meaning: frozenset[int] = frozenset()  # found by their vectors alone (no word in common)
    # (concept index, documents) of the documents a word of the query names, whole or in part, and their
    # text does not hold (their points: ranking.name_points).
    by_name: tuple[tuple[int, AbstractSet[int]], ...] = ()
    named: int | None = None  # the document whose name the query is (``Snapshot.named``), first by relevance
    named_as_typed: bool = False  # named by the query as typed, not by its correction
    # Tagged with the organisation the query is the name of, without its words ("Alibaba": the page
    # on Qwen, which the gazetteer tags Alibaba), after every page the words score.
    tagged: frozenset[int] = frozenset()
    organisation: str | None = None  # the one the query is the name of, when it found some page so
    # Some result is tagged with the organisation the query names, by its words or not ("Google
    # DeepMind": the page saying "DeepMind has published…"): it answers all of the query.
    on_organisation: bool = False

    @classmethod
    def of(
        cls,
        snap: Snapshot,
        params: SearchParams,
        parsed: ParsedQuery | None,
        near: tuple[tuple[int, float], ...] = (),
        corrected: str | None = None,
    ) -> _Found:
        """Return what *parsed* matches; the document *params*' query names, or else its spelling
        correction *corrected* names (``imagemagik`` is ImageMagick's), is among the matches."""
        concept_docs: list[set[int] | frozenset[int]] = []
        loose_docs: list[set[int] | frozenset[int]] = []
        by_name: list[tuple[int, AbstractSet[int]]] = []
        meaning: frozenset[int] = frozenset()
        tagged: frozenset[int] = frozenset()
        organisation = None
        on_organisation: AbstractSet[int] = frozenset()
        named = None
        as_typed = False
        if parsed is None:
            matched: set[int] | frozenset[int] = snap.all_docs
        elif parsed.is_empty:
            matched = frozenset()
        else:
            excluded = matches(parsed.excluded, snap) if parsed.excluded is not None else set()
            for typed in excluded_words(params.q) if parsed.excluded is not None else ():
                # An organisation's name leaves out the pages tagged with it, as searching for the name
                # finds them: "anthropic -amazon" kept the page on "three AWS data centers".
                if (slug := snap.organisation(typed)) is not None:
                    excluded = excluded | snap.facet_docs["entities"][slug]
                # And a part of a name the pages whose name has it, as it counts for them when asked for
                # ("libcurl -dev": not libcurl4-openssl-dev, which is held to have "dev").
                excluded = excluded | _name_holders(snap, typed)
            for typed in excluded_words(params.q, whole=True) if parsed.excluded is not None else ():
                # So does a document's name the document ("web browser -chromium": the package chromium;
                # "selenium webdriver -chromium-driver", a name a hyphen joins, kept it: a QA pass).
                if (name := snap.named(typed)) is not None:
                    excluded = excluded | {name}
            matched = set()
            required = []
            # A word naming a document counts where the whole query is no name: beside other words, or
            # beside an exclusion, which leaves the whole query unread as a name ("sfeed -test" found nothing).
            several = len(parsed.concepts) > 1 or parsed.excluded is not None
            for concept in parsed.concepts:
                docs = matches(concept.query, snap)
                if several and concept.word and concept.span and (name := snap.named(parsed.text[concept.span[0] : concept.span[1]])) is not None \
                        and name not in docs:
                    # A word of the query that names a document the document holds by its name, as a whole
                    # query that is its name finds it: "dhex editor" listed other editors, each "Missing:
                    # dhex", the package dhex not among the first (a QA pass on the Debian corpus).
                    docs = docs | {name}
                    if name not in excluded:
                        by_name.append((len(concept_docs), frozenset((name,))))  # its points as a title word (ranking.name_points)
                concept_docs.append(docs - excluded if excluded else docs)
                if concept.loose:  # a hyphenated word's parts apart match too, and cover less (``Coverage``)
                    apart = matches(concept.any_query, snap) - docs
                    loose_docs.append(apart - excluded if excluded else apart)
                    matched |= docs | apart
                else:
                    loose_docs.append(frozenset())
                    matched |= docs
                if concept.required:
                    required.append(docs)
            if several and snap.id_prefix:
                _name_parts(snap, parsed, concept_docs, excluded, by_name)
            if any(concept_docs):
                # The loose words of a hyphenated word no page writes earn nothing (ranking.Coverage): a
                # page holding them and nothing else asked for is no match ("space-based compute" listed
                # pages of "Megatron-based" at a score of 0, said to miss every word: a QA pass).
                unheld = [apart for docs, apart in zip(concept_docs, loose_docs) if apart and not docs]
                if unheld:
                    kept = set().union(*concept_docs, *(apart for docs, apart in zip(concept_docs, loose_docs) if docs))
                    matched -= set().union(*unheld) - kept
            if required:  # "+amd", "nvidia AND amd": only the documents that have each
                matched.intersection_update(*required)
            if near and not required:  # the nearest documents by meaning are candidates too
                closest = [d for d, cosine in near[: ranking.SEMANTIC_NEIGHBOURS] if cosine > ranking.SEMANTIC_FLOOR]
                meaning = frozenset(closest) - matched - excluded
                matched |= meaning
            if parsed.excluded is None:  # a query with exclusions asks for words, not for a name
                named = snap.named(params.q)
                if named is None and (subject := _subject(parsed)) is not None:
                    # The name asked about: "what is gimp", "tell me about gimp", "gimp explained" put
                    # GIMP 47th, where "gimp" names it first (a QA pass on the Debian corpus).
                    named = snap.named(subject)
                as_typed = named is not None
                if named is None and corrected:
                    named = snap.named(corrected)
                if named is not None and all(named in docs for docs in required):
                    matched.add(named)
                    if several and snap.id_prefix:
                        # The named page holds by its name the words its text does not write: "libxml2 dev"
                        # names libxml2-dev ("development files for the GNOME XML library"), first with a
                        # score of 0, "Missing: libxml2, dev" (a regression pass).
                        for at, concept in enumerate(parsed.concepts):
                            if concept.word and named not in concept_docs[at] and named in _name_holders(snap, concept.text):
                                concept_docs[at] = concept_docs[at] | {named}
                                by_name.append((at, frozenset((named,))))
                else:
                    named, as_typed = None, False
                organisation = snap.organisation(params.q) if not required else None
                if organisation is not None:
                    on_organisation = snap.facet_docs["entities"][organisation]
                    tagged = on_organisation - matched - excluded
                    matched |= tagged
            matched -= excluded
        if params.since or params.until:  # a date range narrows what matches, as the query does
            matched = snap.dated_between(*params.date_range) & matched
        selected = selected_docs(snap, params)
        chosen = [docs for docs in selected.values() if docs is not None]
        # No filter: the match set itself (read-only from here on), not a copy of tens of thousands.
        allowed = matched.intersection(*chosen) if chosen else matched
        if named not in allowed:
            named, as_typed = None, False
        tagged &= allowed
        return cls(matched, selected, allowed, concept_docs, loose_docs, meaning & allowed, tuple(by_name), named, as_typed, tagged,
                   organisation if tagged else None, not on_organisation.isdisjoint(allowed))

    def by_coverage(self) -> list[AbstractSet[int]]:
        """Return the allowed documents in tiers for a sort by date: those holding every concept, those
        holding some, then those found by meaning (or name) alone; the empty tiers left out.  By date,
        "gamma launch january" put its one page with all three words 17th of 18, below pages of
        "january" alone, and a quoted phrase's pages came below pages near it in meaning only."""
        allowed, concept_docs = self.allowed, self.concept_docs
        if not concept_docs:
            return [allowed]
        every = concept_docs[0].intersection(*concept_docs[1:]) & allowed
        some = concept_docs[0].union(*concept_docs[1:]) & allowed if len(concept_docs) > 1 else every
        tiers = [every, some - every, allowed - some]
        return [tier for tier in tiers if tier] or [allowed]

    def lacked(self, parsed: ParsedQuery | None) -> list[tuple[str, AbstractSet[int]]]:
        """Return, for a query of several concepts (*parsed*), each as typed (a quoted phrase in its
        quotes) with the documents holding it: a hit's ``missing`` are those it is not among ("michigan"
        on the page of Stargate UK for "stargate michigan"); empty for a query of one concept, unless
        its words alone also match (a hyphenated word: "end-to-end" found 1,177 Debian packages, 70 of
        them holding it, the rest "front-end" and the like, each said to miss nothing: a QA pass)."""
        if parsed is None or not self.concept_docs or (len(self.concept_docs) < 2 and not parsed.concepts[0].loose):
            return []
        return [(f'"{concept.text}"' if f'"{concept.text}"' in parsed.text else concept.text, docs)
                for concept, docs in zip(parsed.concepts, self.concept_docs)]

    def held_nowhere(self, lacked: list[tuple[str, AbstractSet[int]]]) -> tuple[str, ...]:
        """Return what *lacked* (``lacked``'s answer) names that no result holds."""
        return tuple(text for text, docs in lacked if docs.isdisjoint(self.allowed)) if self.allowed else ()

    def match_level(self, parsed: ParsedQuery | None) -> str:
        """Return "all", "most" (a hit has more than half the concepts), "partial" or "none"."""
        allowed, concept_docs = self.allowed, self.concept_docs
        if not allowed:
            return "none"
        if self.named is not None or self.on_organisation:
            return "all"  # the page the query names (or a page on the organisation it names) answers all of it
        if parsed is None or not concept_docs or concept_docs[0].intersection(*concept_docs[1:]) & allowed:
            return "all"
        needed = len(concept_docs) // 2 + 1  # a majority
        if needed < len(concept_docs):
            counts = Counter(d for docs in concept_docs for d in docs & allowed)
            if counts and max(counts.values()) >= needed:
                return "most"
        return "partial"


def _name_parts(
    snap: Snapshot, parsed: ParsedQuery, concept_docs: list[set[int] | frozenset[int]], excluded: AbstractSet[int],
    by_name: list[tuple[int, AbstractSet[int]]],
) -> None:
    """Count a typed word as held by each document its other words find whose name has it as a part and
    whose text does not write it (``index.schema.name_words``), with the points of a word its name gives
    (``ranking.name_points``): *concept_docs* and *by_name* are extended.

    In a namespaced corpus only, where a name is no title's slug: "libcurl dev" listed 22 packages on
    libcurl before libcurl4-openssl-dev, "development files and documentation for libcurl", said to miss
    "dev", and "java 17 jdk" put openjdk-17-jdk 11th, whose text never says 17 (Debian's judged set).
    Only the documents another word of the query finds: "dev" alone is in 11,385 names."""
    for at, concept in enumerate(parsed.concepts):
        held = _name_holders(snap, concept.text) - concept_docs[at] if concept.word else None
        if not held:
            continue
        found = held.intersection(set().union(*(docs for other, docs in enumerate(concept_docs) if other != at)))
        found -= excluded
        if found:
            concept_docs[at] = concept_docs[at] | found
            by_name.append((at, found))


def _name_holders(snap: Snapshot, typed: str) -> AbstractSet[int]:
    """Return the live documents whose name has the word *typed* as a part (``index.schema.name_words``),
    in a namespaced snapshot (none elsewhere, nor for the namespace's own word: "deb" of "deb-")."""
    word = typed.lower()
    if not snap.id_prefix or not 0 < len(word) <= NAME_PART_MAX_CHARS or word == _NAMESPACE_WORD.sub("", snap.id_prefix.lower()):
        return frozenset()
    return matches(wq.Term("name", word), snap)


NAME_PART_MAX_CHARS = 64
_NAMESPACE_WORD = re.compile(r"[^\w+#]+$")  # "deb-" is the namespace word "deb"


def _respelt_missing(hit: Hit, respelt_as: Mapping[str, str]) -> Hit:
    """Return *hit* with the words it lacks named as corrected (*respelt_as*: typed -> corrected), in its
    explanation too ("missing": ["oracel"] beside the hit's ["oracle"]: a QA pass on the API)."""
    def respelt(text: str) -> str:
        # A word of a longer concept as corrected too: "post-trainig" is missing as "post-training" (a review).
        if text in respelt_as:
            return respelt_as[text]
        for typed, word in respelt_as.items():
            text = re.sub(r"(?<!\w)%s(?!\w)" % re.escape(typed), word, text)
        return text

    explanation = hit.explanation
    if explanation is not None and explanation.get("missing"):
        explanation = {**explanation, "missing": [respelt(text) for text in explanation["missing"]]}  # type: ignore[union-attr]
    return replace(hit, missing=tuple(respelt(text) for text in hit.missing), explanation=explanation)


def _ties_by_relevance(
    snap: Snapshot, parsed: ParsedQuery, found: _Found, pool: AbstractSet[int], newest: list[int], end: int,
    cosines: dict[int, float], deadline: float,
) -> tuple[list[int], bool]:
    """Return the newest *end* of *pool* (matches) with documents of the same published date in
    relevance order, and whether time ran out ordering them (a page of a date shared by thousands:
    ``timed_out``).  Documents dated by their arrival (no ``published``: all of a build share its
    time) keep the order their source lists them in, as without a query, where that order is their
    time's (``Snapshot.listing_is_time``: topic pages, which list their events most recent first;
    ordered by relevance, the seed's feed of "stargate" put the oldest Stargate events first: a QA
    pass); a JSONL file's order says nothing of time, and its undated lines stay in relevance order.

    *newest* is the newest *end* by date, listing order breaking ties.  The documents newer than its
    last one's date are all in it, and are put in order among themselves.  Of that last date, the
    documents of *pool* beyond the window may be more relevant: the best of them by relevance fill the
    rest (a relevance search, with its cost, where the whole corpus shares one date)."""
    arrivals: dict[int, bool] = {}

    def by_arrival(docnum: int) -> bool:
        """Whether *docnum*'s date is its arrival (decided for its whole date by the one listed first)."""
        date = snap.date_key(docnum)
        if date not in arrivals:
            arrivals[date] = snap.listing_is_time and snap.stored(docnum).get("published") is None
        return arrivals[date]

    boundary = snap.date_key(newest[-1])
    newer = [docnum for docnum in newest if snap.date_key(docnum) != boundary]
    out, late = _by_relevance(snap, parsed, found, [d for d in newer if not by_arrival(d)], len(newer), cosines, deadline)
    place = {docnum: n for n, docnum in enumerate(out)}
    newer.sort(key=lambda d: (-snap.date_key(d), place[d] if d in place else snap.newest_rank(d)))
    if by_arrival(newest[-1]):
        return newer + [docnum for docnum in newest if snap.date_key(docnum) == boundary], late
    tied = snap.same_date(newest[-1]) & pool
    rest, later = _by_relevance(snap, parsed, found, tied, end - len(newer), cosines, deadline)
    return newer + rest, late or later


def _by_relevance(
    snap: Snapshot, parsed: ParsedQuery, found: _Found, docs: Iterable[int], limit: int, cosines: dict[int, float], deadline: float
) -> tuple[list[int], bool]:
    """Return the best *limit* of *docs* in relevance order, then by date order those no word scores,
    and whether time ran out (the order is then of the documents scored in time: a QA pass found it
    served as complete, ``timed_out`` false, and cached)."""
    candidates = set(docs)
    if not candidates or limit <= 0:
        return [], False
    ranked, timed_out, _best = rank(snap, parsed, candidates, found.concept_docs, limit, deadline, cosines, found.loose_docs, found.by_name)
    best = [docnum for docnum, _score in ranked]
    if len(best) < limit:  # found by name or meaning alone, without a word: after the scored ones
        best += snap.newest_first(candidates.difference(best), limit - len(best))
    return best, timed_out


def _hit(
    fields: dict[str, object],
    score: float,
    title_html: str,
    snippet_html: str,
    explanation: dict[str, object] | None,
    matched_by: str = "words",
    missing: tuple[str, ...] = (),
) -> Hit:
    return Hit(
        id=fields["id"],
        kind=fields["kind"],
        title=fields["title"],
        title_html=title_html,
        snippet_html=snippet_html,
        url=fields["url"],
        topics=fields["topics"],
        entities=fields["entities"],
        score=round(float(score), 4),
        position=int(fields.get("position", 0)),
        explanation=explanation,
        published=fields.get("published"),
        first_seen=fields.get("first_seen"),
        revised=fields.get("revised"),
        matched_by=matched_by,
        missing=missing,
    )


def _document(fields: dict[str, object]) -> dict[str, object]:
    """Return a decoded stored document as the API gives it (lists as lists)."""
    doc = dict(fields)
    for name in ("topics", "entities"):
        doc[name] = list(doc[name])
    return doc


def _shows_correction(snap: Snapshot, parsed: ParsedQuery | None, allowed: set[int] | frozenset[int]) -> bool:
    """Return whether a result (its *allowed* documents, filters applied) holds a corrected word: only
    then does it say "Including results for" (the ways out of an empty one still try the correction)."""
    if parsed is None or not parsed.corrections:
        return False
    concepts = {c.span: c for c in parsed.typed_concepts()}
    return any(not allowed.isdisjoint(matches(corrected_query(fix.word, concepts.get(fix.span)), snap))
               for fix in parsed.corrections)


def _concept_of(parsed: ParsedQuery) -> dict[str, int]:
    """Return the concept each analysed term of *parsed* stands for, by its place among the typed
    concepts (an OR group's words each their own; a synonym's words their word's); {} for one concept."""
    concept_of: dict[str, int] = {}
    if len(parsed.concepts) < 2 and not any(concept.members for concept in parsed.concepts):
        return concept_of
    for at, concept in enumerate(parsed.typed_concepts()):
        for alternative in concept.alternatives:
            for word in alternative.words:
                concept_of.setdefault(word, at)
    return concept_of


def _grouping(held: frozenset[str], concept_of: Mapping[str, int]) -> frozenset[frozenset[str]] | None:
    """Return *held* grouped by concept when it holds terms of two concepts or more, else None: what
    a highlight's passages depend on besides the terms (the same terms, grouped alike, highlight alike)."""
    groups: dict[object, list[str]] = {}
    for term in held:
        concept = concept_of.get(term, term)
        group = groups.get(concept)
        if group is None:
            groups[concept] = [term]
        else:
            group.append(term)
    return frozenset(map(frozenset, groups.values())) if len(groups) > 1 else None


def _weights(snap: Snapshot, field: str, grouping: frozenset[frozenset[str]]) -> dict[str, tuple[object, float]]:
    """Return each term of *grouping* with its concept (its group) and its inverse document frequency
    in *field*: how much showing it tells a reader (``highlight_snippet``'s *concepts*)."""
    return {term: (group, math.log(1 + snap.doc_count / (1 + len(snap.term_docs(field, term)))))
            for group in grouping for term in group}


def _holds_any(postings: list[Sequence[int]], docnum: int) -> bool:
    """Return whether any of the ascending *postings* holds *docnum*."""
    for docs in postings:
        at = bisect_left(docs, docnum)
        if at < len(docs) and docs[at] == docnum:
            return True
    return False
