"""Synonyms at query time: the snapshot's analysed variant groups (corpus/synonyms.py has the data).

Each group's variants were run through the index's own query analysis when the snapshot was built,
so each is a tuple of analysed words (``("data", "centr")``); at query time a run of typed words
equal to one variant is searched as any variant of its group.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from whoosh.analysis import Analyzer

from index.analysis import analyse_groups

Words = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Synonyms:
    """Variant groups keyed by their analysed words; the longest variant is tried first."""

    variants: dict[Words, tuple[Words, ...]]  # analysed variant -> the other variants of its group
    longest: int
    places: dict[Words, frozenset[Words]] = field(default_factory=dict)  # a region's variant -> its places' words

    def alternatives(self, words: Words) -> tuple[Words, ...]:
        """Return the other variants of the group *words* belongs to (empty when none), its places too
        when it is a region's."""
        return self.variants.get(words, ())

    def place_in(self, words: Words, other: Words) -> bool:
        """Return whether *other*, an alternative of *words*, is a place in the region *words* names,
        not a variant of its own group ("uk" for "europe"; "european" is a variant)."""
        return other in self.places.get(words, ())

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
        names_of: dict[Words, set[Words]] = {}  # a region's variant -> its other variants
        places_of: dict[Words, set[Words]] = {}  # ... -> its places and their groups' variants
        for region, places in within:
            names = {tuple(words) for words in region if words}
            found = {tuple(words) for words in places if words}
            found |= {other for place in found for other in variants.get(place, ())}
            for words in names:
                names_of.setdefault(words, set()).update(names - {words})
                places_of.setdefault(words, set()).update(found)
        # A place is what the region's own variants are not ("europe": "uk", not "european").
        only_places = {words: frozenset(places - names_of[words] - variants.get(words, set()) - {words})
                       for words, places in places_of.items()}
        for words in names_of:
            variants.setdefault(words, set()).update(names_of[words] | places_of[words])
            variants[words].discard(words)
        return cls(
            variants={k: tuple(sorted(v)) for k, v in variants.items() if v},
            longest=max((len(k) for k in variants), default=0),
            places={k: v for k, v in only_places.items() if v},
        )


def parse_synonyms(groups: Iterable[Iterable[str]], analyzer: Analyzer,
                   within: Iterable[tuple[Iterable[str], Iterable[str]]] = ()) -> Synonyms:
    """Return the Synonyms for *groups* of variants and regions *within* as typed, analysed with *analyzer*."""
    return Synonyms.from_groups(analyse_groups(groups, analyzer), [analyse_groups(pair, analyzer) for pair in within])


_EMPTY = Synonyms(variants={}, longest=0)
