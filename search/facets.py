"""Facet counts: exact, disjunctive, from per-snapshot postings.

The facets are topic, organisation (entity), type (kind) and month (of the document's date:
published, else first seen).  Several values of one facet combine with OR, different facets with AND.  Each facet is counted
with its own selection removed, so every count says how many results clicking that value would
give; selected values are always listed, even at zero.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import chain, repeat

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
    for name, field in FACETS.items():
        others = [docs for other, docs in selected.items() if other != name and docs is not None]
        base = matched.intersection(*others) if others else matched
        counts = _counts(snap, field, base)
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
        made = tuple([FacetValue(value, labels[value][0], count, False) for value, count in zip(key[1], key[2])])
        remember(snap.facet_values, key, made, FACET_VALUES_KEPT)
    return made


def _value(row: tuple[object, str, str, int]) -> str:
    return row[1]


def _counts(snap: Snapshot, field: str, base: set[int] | frozenset[int]) -> dict[str, int]:
    """Return how many documents of *base* carry each value of *field*."""
    postings = snap.facet_docs[field]
    if len(base) >= snap.doc_count and base >= snap.all_docs:
        return {value: len(docs) for value, docs in postings.items()}
    # Few matches: look up each match's values (cached per snapshot) and count them in one pass.
    # Many: one set intersection per value costs less than visiting every match.
    if len(base) * 16 < sum(map(len, postings.values())):
        by_doc = snap.doc_facets[field]
        return Counter(chain.from_iterable(map(by_doc.get, base, repeat(()))))
    # A set intersection walks the smaller of the two sets, whichever is on the left.
    return dict(zip(postings, map(len, map(base.__and__, postings.values()))))
