"""Time the close-spelling look-up of a misspelt word, as the service does it and as it did before.

``python -m bench.spell_lookup INDEX_DIR [--count N]`` makes N misspellings of the index's own words
(one letter changed, inserted or dropped after the first; seeded, so every run asks the same), and
times, per word, ``search.spell.Vocabulary.near`` (RapidFuzz's Levenshtein distance in C over the
words of the same first letter, listed once per snapshot) against the look-up it replaced (Whoosh's
Levenshtein automaton over each segment's term list, ``terms_within``).  It also checks that both
give the same words, and prints the one-off cost of listing the words.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from whoosh.reading import TermNotFound

from search.query import SEARCH_FIELDS, _query_tokens
from search.service import SearchService
from search.spell import Vocabulary


def _misspellings(words: list[str], count: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    made = []
    for word in rng.sample(words, count):
        i = rng.randrange(1, len(word))
        change = rng.choice("dis")
        if change == "d":
            made.append(word[:i] + word[i + 1 :])
        elif change == "i":
            made.append(word[:i] + rng.choice("abcdefghijklmnopqrstuvwxyz") + word[i:])
        else:
            made.append(word[:i] + rng.choice("aeiou") + word[i + 1 :])
    return made


class AutomatonVocabulary(Vocabulary):
    """The look-up before: Whoosh's Levenshtein automaton over each segment's term list."""

    def _within(self, forms: tuple[str, ...], maxdist: int) -> Iterator[str]:
        for leaf, _offset in self.reader.leaf_readers():
            for fieldname in SEARCH_FIELDS:
                for form in forms:
                    try:
                        yield from leaf.terms_within(fieldname, form, maxdist, prefix=1)
                    except TermNotFound:  # a segment without this field
                        continue


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir", type=Path)
    parser.add_argument("--count", type=int, default=300)
    args = parser.parse_args(argv)
    service = SearchService(args.index_dir)
    snap = service.snapshot()
    searcher = snap.searcher()
    words = sorted({w for f in SEARCH_FIELDS for w in searcher.reader().field_terms(f) if w.isalpha() and len(w) >= 4})
    typos = _misspellings(words, min(args.count, len(words)))
    listed: dict[str, dict[str, list[str]]] = {}
    vocabulary = Vocabulary(searcher, snap.analyzer, {}, listed)
    automaton = AutomatonVocabulary(searcher, snap.analyzer, {})
    started = time.perf_counter()
    vocabulary._by_letter()
    listing = time.perf_counter() - started
    new = old = 0.0
    differ = 0
    for typed in typos:
        word = _query_tokens(typed)[0][0]
        vocabulary._cache.clear()
        automaton._cache.clear()
        started = time.perf_counter()
        near = vocabulary.near(typed, word)
        new += time.perf_counter() - started
        started = time.perf_counter()
        before = automaton.near(typed, word)
        old += time.perf_counter() - started
        differ += near != before
    print(f"{args.index_dir}: {len(typos)} misspellings, {sum(map(len, listed['by_letter'].values())):,} words "
          f"listed once in {listing * 1e3:.0f} ms")
    print(f"per misspelling: {new / len(typos) * 1e3:.2f} ms now, {old / len(typos) * 1e3:.2f} ms with Whoosh's automaton; "
          f"{differ} answers differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
