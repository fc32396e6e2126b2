"""Synonyms at query time: the snapshot's analysed variant groups (corpus/synonyms.py has the data).

Each group's variants were run through the index's own query analysis when the snapshot was built,
so each is a tuple of analysed words (``("data", "centr")``); at query time a run of typed words
equal to one variant is searched as any variant of its group.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from whoosh.analysis import Analyzer

from index.analysis import analyse_groups

Words = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Synonyms:
    """Variant groups keyed by their analysed words; the longest variant is tried first."""

    variants: dict[Words, tuple[Words, ...]]  # analysed variant -> the other variants of its group
    longest: int

    def alternatives(self, words: Words) -> tuple[Words, ...]:
        """Return the other variants of the group *words* belongs to (empty when none)."""
        return self.variants.get(words, ())

    @classmethod
    def empty(cls) -> Synonyms:
        """Return the one empty set (one object: query building keeps what it made per synonym set)."""
        return _EMPTY

    @classmethod
    def from_groups(cls, groups: Iterable[Iterable[Sequence[str]]],
                    within: Iterable[Sequence[Iterable[Sequence[str]]]] = ()) -> Synonyms:
        """Return the Synonyms of analysed *groups* (each a list of variants, each a list of words) and
        regions *within* (each a pair: the region's variants, the places in it): a region's variants
        also have its places as alternatives, each with its own group's variants ("europe": "uk" and
        "britain"); a place does not have its region."""
        variants: dict[Words, set[Words]] = {}
        for group in groups:
            analysed = list(dict.fromkeys(tuple(words) for words in group if words))
            for words in analysed:
                variants.setdefault(words, set()).update(w for w in analysed if w != words)
        places_of: dict[Words, set[Words]] = {}
        for region, places in within:
            names = {tuple(words) for words in region if words}
            found = {tuple(words) for words in places if words}
            found |= {other for place in found for other in variants.get(place, ())}
            for words in names:
                places_of.setdefault(words, set()).update((found | names) - {words})
        for words, places in places_of.items():
            variants.setdefault(words, set()).update(places)
        return cls(
            variants={k: tuple(sorted(v)) for k, v in variants.items() if v},
            longest=max((len(k) for k in variants), default=0),
        )


def parse_synonyms(groups: Iterable[Iterable[str]], analyzer: Analyzer,
                   within: Iterable[tuple[Iterable[str], Iterable[str]]] = ()) -> Synonyms:
    """Return the Synonyms for *groups* of variants and regions *within* as typed, analysed with *analyzer*."""
    return Synonyms.from_groups(analyse_groups(groups, analyzer), [analyse_groups(pair, analyzer) for pair in within])


_EMPTY = Synonyms(variants={}, longest=0)
