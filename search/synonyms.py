"""Synonyms: words readers type for the same thing, kept as data in ``corpus/data/synonyms.json``.

Each group lists variants as readers write them ("datacenter", "data center", "data centre").  The
variants are run through the index's own query analysis once, so each becomes a tuple of analysed
words (``("data", "centr")``); at query time a run of typed words equal to one variant is searched
as any variant of its group.  Inflections need no entry: the analysis already stems them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from whoosh.analysis import Analyzer

from corpus.sources import DEFAULT_DIR

SYNONYMS_FILE = DEFAULT_DIR / "synonyms.json"
Words = tuple[str, ...]


class SynonymsError(ValueError):
    """The synonyms file is not a list of groups of strings."""


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
        return cls(variants={}, longest=0)


def _analyse(analyzer: Analyzer, text: str) -> Words:
    """Return *text*'s analysed words as a typed query would have them (function words dropped)."""
    words = tuple(t.text for t in analyzer(text, mode="query"))
    return words or tuple(t.text for t in analyzer(text, mode="query", removestops=False))


def parse_synonyms(groups: object, analyzer: Analyzer) -> Synonyms:
    """Return the Synonyms for *groups* (lists of variants), analysed with *analyzer*."""
    if not isinstance(groups, list) or not all(
        isinstance(g, list) and all(isinstance(v, str) for v in g) for g in groups
    ):
        raise SynonymsError("synonyms must be a list of groups, each a list of strings")
    variants: dict[Words, set[Words]] = {}
    for group in groups:
        analysed = list(dict.fromkeys(w for w in (_analyse(analyzer, v) for v in group) if w))
        for words in analysed:
            variants.setdefault(words, set()).update(w for w in analysed if w != words)
    return Synonyms(
        variants={k: tuple(sorted(v)) for k, v in variants.items() if v},
        longest=max((len(k) for k in variants), default=0),
    )


def load_synonyms(analyzer: Analyzer, path: Path = SYNONYMS_FILE) -> Synonyms:
    """Return the synonyms in *path* (``{"groups": [[variant, ...], ...]}``), analysed with *analyzer*."""
    with path.open(encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, dict):
        raise SynonymsError(f"{path}: expected an object with a 'groups' list")
    return parse_synonyms(data.get("groups"), analyzer)
