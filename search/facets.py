"""Facet counts: exact, disjunctive, from per-snapshot postings.

The facets are topic, organisation (entity), type (kind) and month (of the document's date:
published, else first seen).  Several values of one facet combine with OR, different facets with AND.  Each facet is counted
with its own selection removed, so every count says how many results clicking that value would
give; selected values are always listed, even at zero.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np

from search.cache import remember
from search.params import SearchParams
from search.results import FacetValue
from search.snapshot import FACETS, Snapshot

# Facets whose values read best in their own order (months: newest first), not most frequent first.
VALUE_ORDER_DESC = {"month"}
# Match sets up to this size have their facets kept per snapshot (Snapshot.facets_by_matches).
FACETS_BY_MATCHES_MAX = 1000
# Facets' value lists kept per snapshot, by the values and counts they show (a few KB each at most).
FACET_VALUES_KEPT = 4096
# Single facet values kept per snapshot, by facet, value and count (some 165 bytes each, tracemalloc:
# under 3 MB).
FACET_VALUE_OBJECTS_KEPT = 16384
# Bases (match sets, less the other facets' selections) from this size are counted with numpy over
# per-snapshot arrays (FacetColumn): turning the set into an array once, for every facet, then costs
# less than looking each match up in a dict per facet (measured: see docs/performance.md).
COUNT_WITH_ARRAYS_MIN = 128


def selected_docs(snap: Snapshot, params: SearchParams) -> dict[str, set[int] | None]:
    """Return, per facet, the documents its selected values allow (None: no selection)."""
    selected: dict[str, set[int] | None] = {}
    for name, values in params.filters().items():
        if not values:
            selected[name] = None
            continue
        postings = snap.facet_docs[FACETS[name]]
        docs: set[int] = set()
        for value in values:
            docs |= postings.get(value, frozenset())
        selected[name] = docs
    return selected


def count_facets(
    snap: Snapshot,
    params: SearchParams,
    matched: Iterable[int],
    selected: dict[str, set[int] | None],
) -> dict[str, tuple[FacetValue, ...]]:
    """Return each facet's values with exact counts, most frequent first."""
    matched = matched if isinstance(matched, (set, frozenset)) else set(matched)
    if len(matched) <= FACETS_BY_MATCHES_MAX and all(docs is None for docs in selected.values()):
        # Nothing selected: the facets are the match set's alone, and small match sets recur (a rare
        # word's, a name's): counted once per snapshot.  A copy, so no caller can change the kept one.
        kept = snap.facets_by_matches.get_or_make(
            frozenset(matched), lambda: (_count(snap, params, matched, selected), len(matched))
        )
        return dict(kept[0])
    return _count(snap, params, matched, selected)


def _count(
    snap: Snapshot, params: SearchParams, matched: set[int] | frozenset[int], selected: dict[str, set[int] | None]
) -> dict[str, tuple[FacetValue, ...]]:
    facets: dict[str, tuple[FacetValue, ...]] = {}
    matched_ids = None  # the match set as an array, made once for every facet that counts all of it
    for name, field in FACETS.items():
        others = [docs for other, docs in selected.items() if other != name and docs is not None]
        base = matched.intersection(*others) if others else matched
        ids = None
        if len(base) >= COUNT_WITH_ARRAYS_MIN:
            if base is not matched:
                ids = _ids(base)
            elif matched_ids is None:
                ids = matched_ids = _ids(matched)
            else:
                ids = matched_ids
        counts = _counts(snap, field, base, ids)
        labels = snap.facet_labels[name]
        if not getattr(params, name):
            facets[name] = _unselected(snap, name, counts, labels)
            continue
        chosen = set(getattr(params, name))
        # (sort key, value, label, count); the position keeps equal keys in counting order, as a stable sort.
        rows = []
        for value, count in counts.items():
            if count or value in chosen:
                label, lower = labels[value]
                rows.append(((-count, lower, len(rows)), value, label, count))
        for value in chosen - {row[1] for row in rows}:
            label = labels[value][0] if value in labels else snap.label(name, value)
            rows.append(((0, label.lower(), len(rows)), value, label, 0))
        if name in VALUE_ORDER_DESC:
            rows.sort(key=_value, reverse=True)
        else:
            rows.sort()
        facets[name] = tuple(FacetValue(value, label, count, value in chosen) for _, value, label, count in rows)
    return facets


def _unselected(snap: Snapshot, name: str, counts: dict[str, int], labels: dict[str, tuple[str, str]]) -> tuple[FacetValue, ...]:
    """Return the values of a facet nothing is selected in: those counted, in the order ``count_facets`` gives.

    Two stable sorts with keys looked up in C, instead of a key tuple made per value: by label
    (``Snapshot.facet_ranks``: equal lower-cased labels share a rank, so they keep counting order), then
    by count.  The values made are kept per snapshot by what they show: many queries count alike.
    """
    values = [value for value, count in counts.items() if count]
    if name in VALUE_ORDER_DESC:
        values.sort(reverse=True)
    else:
        values.sort(key=snap.facet_ranks[name].__getitem__)
        values.sort(key=counts.__getitem__, reverse=True)  # a reverse sort keeps equal counts' order
    key = (name, tuple(values), tuple(map(counts.__getitem__, values)))
    made = snap.facet_values.get(key)
    if made is None:
        kept = snap.facet_value_of
        made = tuple([
            kept.get((name, value, count)) or _unselected_value(kept, name, value, count, labels)
            for value, count in zip(key[1], key[2])
        ])
        remember(snap.facet_values, key, made, FACET_VALUES_KEPT)
    return made


def _unselected_value(
    kept: dict[tuple[str, str, int], FacetValue], name: str, value: str, count: int, labels: dict[str, tuple[str, str]]
) -> FacetValue:
    """Return a new unselected FacetValue, kept per snapshot by (facet, value, count): a list of values
    never shown before is made of values shown before with the same counts, and a frozen dataclass
    costs more to make than to look up."""
    return remember(kept, (name, value, count), FacetValue(value, labels[value][0], count, False), FACET_VALUE_OBJECTS_KEPT)


def _value(row: tuple[object, str, str, int]) -> str:
    return row[1]


def _counts(
    snap: Snapshot, field: str, base: set[int] | frozenset[int], ids: np.ndarray | None = None
) -> dict[str, int]:
    """Return how many documents of *base* carry each value of *field* (with *ids*, *base* as an array: by numpy)."""
    postings = snap.facet_docs[field]
    if len(base) >= snap.doc_count and base >= snap.all_docs:
        return {value: len(docs) for value, docs in postings.items()}
    if ids is not None:
        return _column(snap, field).counts(ids)
    # Few matches: look up each match's values (cached per snapshot) and count them in one pass.
    # Many: one set intersection per value costs less than visiting every match.
    if len(base) * 16 < snap.facet_pairs[field]:
        by_doc = snap.doc_facets[field]
        return Counter(chain.from_iterable(map(by_doc.get, base, repeat(()))))
    # A set intersection walks the smaller of the two sets, whichever is on the left.
    return dict(zip(postings, map(len, map(base.__and__, postings.values()))))


def _ids(docs: set[int] | frozenset[int]) -> np.ndarray:
    """Return *docs* as an array, in the set's own order (the order ``_counts``'s Counter meets them)."""
    return np.fromiter(docs, np.int64, len(docs))


@dataclass(frozen=True, slots=True)
class FacetColumn:
    """A facet field's values by document, as arrays numpy counts with: made once per snapshot.

    A value is its index in ``values`` (the postings' order).  When no document has two values,
    ``single`` holds each document's, ``len(values)`` for none; otherwise document d's values are
    ``flat[starts[d]:starts[d + 1]]``, ascending, as ``Snapshot.doc_facets`` lists them.  A few hundred
    KB at 64k documents.
    """

    values: tuple[str, ...]
    pairs: int  # (document, value) pairs: all the postings' lengths
    single: np.ndarray | None
    starts: np.ndarray | None
    flat: np.ndarray | None

    @classmethod
    def of(cls, postings: dict[str, frozenset[int]], size: int) -> FacetColumn:
        """Return the column of a field's *postings*, for document numbers below *size*."""
        values = tuple(postings)
        docs = np.fromiter(chain.from_iterable(postings.values()), np.int64)
        codes = np.repeat(np.arange(len(values)), [len(d) for d in postings.values()])
        code_type = np.int16 if len(values) < np.iinfo(np.int16).max else np.int32  # room for "none"
        per_doc = np.bincount(docs, minlength=size)
        if per_doc.max(initial=0) <= 1:
            single = np.full(size, len(values), code_type)
            single[docs] = codes
            return cls(values, len(docs), single, None, None)
        starts = np.zeros(size + 1, np.int64)
        np.cumsum(per_doc, out=starts[1:])
        return cls(values, len(docs), None, starts, codes[np.lexsort((codes, docs))].astype(code_type))

    def counts(self, ids: np.ndarray) -> dict[str, int]:
        """Return how many of documents *ids* carry each value, in the order ``_counts`` gives for a set of them.

        Like the set path: when few (the Counter's case), the values the documents carry in the order
        they first appear; when many, every value (zeros too) in the postings' order.  The order
        breaks ties between equal counts of equal labels, so it is kept.
        """
        none = len(self.values)
        if not none:  # a field no document has (the Debian corpus's organisations)
            return {}
        if self.single is not None:
            codes = self.single[ids]  # "none" included: counted in a bin of its own, never shown
        else:
            starts = self.starts[ids]
            lengths = self.starts[ids + 1] - starts
            ends = np.cumsum(lengths)
            # Each document's run of flat, one after another: positions 0.. shifted by run.
            codes = self.flat[np.arange(ends[-1] if ends.size else 0) + np.repeat(starts - (ends - lengths), lengths)]
        if len(ids) * 16 < self.pairs:
            found, first, counts = np.unique(codes, return_index=True, return_counts=True)
            if found.size and found[-1] == none:
                found, first, counts = found[:-1], first[:-1], counts[:-1]
            order = np.argsort(first)
            return dict(zip(map(self.values.__getitem__, found[order].tolist()), counts[order].tolist()))
        return dict(zip(self.values, np.bincount(codes, minlength=none + 1)[:none].tolist()))


def _column(snap: Snapshot, field: str) -> FacetColumn:
    """Return *field*'s FacetColumn of *snap*, made on first use (two threads at once make it twice, harmlessly)."""
    column = snap.facet_columns.get(field)
    if column is None:
        postings = snap.facet_docs[field]
        size = 1 + max(chain(snap.all_docs, *postings.values()), default=-1)
        column = snap.facet_columns[field] = FacetColumn.of(postings, size)
    return column
