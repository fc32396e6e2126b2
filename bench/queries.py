"""The benchmark's queries: drawn from the corpus with a fixed seed, so every run asks the same.

A query is one to three neighbouring content words of a random document's title or body; some
two- and three-word queries are "quoted phrases" of words that stand side by side in the text.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from urllib.parse import urlencode

from corpus.records import Record
from index.analysis import STOP_WORDS

_WORD = re.compile(r"[^\W\d_][\w]*")
PHRASE_SHARE = 0.15
LENGTHS = (1, 2, 3)
LENGTH_WEIGHTS = (0.4, 0.35, 0.25)
KINDS = ("phrase", *(f"words{n}" for n in LENGTHS))


def _content(words: list[str]) -> list[str]:
    return [w for w in words if len(w) > 2 and w.lower() not in STOP_WORDS]


def make_queries(records: Sequence[Record], count: int, seed: int) -> list[str]:
    """Return *count* distinct queries drawn from *records* (fewer if the corpus runs out)."""
    rng = random.Random(seed)
    queries: dict[str, None] = {}
    attempts = 0
    while len(queries) < count and attempts < count * 50:
        attempts += 1
        record = records[rng.randrange(len(records))]
        text = record.title if rng.random() < 0.4 else record.body
        words = _WORD.findall(text)
        length = rng.choices(LENGTHS, LENGTH_WEIGHTS)[0]
        if length > 1 and rng.random() < PHRASE_SHARE and len(words) >= length:
            start = rng.randrange(len(words) - length + 1)
            picked = words[start:start + length]
            if len(_content(picked)) == length:
                queries.setdefault('"' + " ".join(w.lower() for w in picked) + '"')
            continue
        content = _content(words)
        if len(content) < length:
            continue
        start = rng.randrange(len(content) - length + 1)
        queries.setdefault(" ".join(w.lower() for w in content[start:start + length]))
    return list(queries)


def query_kind(query: str) -> str:
    """Return "phrase" for a quoted phrase, else "words" and the number of words ("words2")."""
    return "phrase" if query.startswith('"') else f"words{len(query.split())}"


def api_paths(queries: Sequence[str]) -> list[str]:
    """Return the /api/search request paths for *queries*."""
    return ["/api/search?" + urlencode({"q": q}) for q in queries]


def page_paths(paths: Sequence[str]) -> list[str]:
    """Return the search pages (what a browser loads) of the /api/search *paths*: the same query and parameters."""
    return ["/" + path.removeprefix("/api/search") for path in paths]


def repeated_mix(queries: Sequence[str], length: int, seed: int, popular: int = 50) -> list[str]:
    """Return *length* queries drawn from the first *popular* with Zipf-like weights (a few are hot)."""
    rng = random.Random(seed)
    head = list(queries[:popular])
    weights = [1 / rank for rank in range(1, len(head) + 1)]
    return rng.choices(head, weights, k=length)


def distinct_queries(records: Sequence[Record], count: int, seed: int, exclude: Iterable[str] = ()) -> list[str]:
    """Return up to *count* distinct queries, none in *exclude*: one to three content words of one text.

    Unlike ``make_queries``, the words need not stand side by side, so even the 57-document seed
    corpus yields tens of thousands of queries a reader could type, and a load run never asks one twice.
    """
    rng = random.Random(seed)
    texts = [words for record in records for words in (_content(_WORD.findall(record.title)),
                                                       _content(_WORD.findall(record.body))) if words]
    seen = set(exclude)
    queries: list[str] = []
    for _ in range(count * 20):
        if len(queries) == count:
            break
        words = texts[rng.randrange(len(texts))]
        length = min(rng.choices(LENGTHS, LENGTH_WEIGHTS)[0], len(words))
        picked = [words[i].lower() for i in sorted(rng.sample(range(len(words)), length))]
        query = " ".join(picked)
        if query not in seen and len(set(picked)) == length:
            seen.add(query)
            queries.append(query)
    return queries


def corpus_records(corpus: str) -> list[Record]:
    """Return the records of *corpus*: "seed" (the embedded corpus) or "debian" (the 64k packages,
    read from ../shared/corpora/), to draw queries from."""
    if corpus == "debian":
        from bench.rss_probe import DEBIAN
        from corpus.jsonl import load_jsonl

        return list(load_jsonl(DEBIAN))
    from corpus.sources import load_corpus

    return list(load_corpus().records)
