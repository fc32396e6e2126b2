"""Facet counts: exact, disjunctive, from per-snapshot postings.

Several values of one facet combine with OR, different facets with AND.  Each facet is counted
with its own selection removed, so every count says how many results clicking that value would
give; selected values are always listed, even at zero.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from search.params import SearchParams
from search.results import FacetValue
from search.snapshot import Snapshot

# Request filter name → indexed facet field.
FACETS = {"topic": "topics", "entity": "entities", "kind": "kind"}

Labeler = Callable[[str, str, Snapshot], str]


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
    label: Labeler,
) -> dict[str, tuple[FacetValue, ...]]:
    """Return each facet's values with exact counts, most frequent first."""
    facets: dict[str, tuple[FacetValue, ...]] = {}
    for name, field in FACETS.items():
        base = set(matched)
        for other, docs in selected.items():
            if other != name and docs is not None:
                base &= docs
        chosen = set(getattr(params, name))
        values = []
        for value, docs in snap.facet_docs[field].items():
            count = len(base & docs) if len(base) > len(docs) else len(docs & base)
            if count or value in chosen:
                values.append(FacetValue(value, label(name, value, snap), count, value in chosen))
        for value in chosen - {v.value for v in values}:
            values.append(FacetValue(value, label(name, value, snap), 0, True))
        values.sort(key=lambda v: (-v.count, v.label.lower()))
        facets[name] = tuple(values)
    return facets
