"""How often search as you type offers the word a reader is typing, after the words before it.

    .venv/bin/python -m bench.suggest_eval INDEX_DIR [--phrases FILE.jsonl] [--max 20000] [--seed 7]

The phrases are the ones the hub writes: each title and each sentence of each body stored in the
index (or, with ``--phrases``, the titles and summaries of a JSONL file, such as documents the index
was not built from).  Each word a completion can be (a word offered: ``_Candidates.terms``) after at
least one word of its sentence is cut after its first one or two letters, with one, two or three words
before it as written ("Expanding Stargate to M", "to M", "Stargate to M"), and
``Suggester.suggest`` is asked; the word completions (kind "term") are looked at:

- **first**: how often the first word completion is the word written, folded;
- **MRR**: the mean of 1 / its place among the word completions (0 when it is not offered);
- **none**: how often no word is offered at all.

Every occurrence counts (a prefix written with several next words is asked once for each), at most
``--max`` of them for each context (drawn at random, seeded).  The CPU µs a prefix over all of them
(``time.process_time``) is printed too: the per-request cost of the completions alone.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|\s*[()\[\]]\s*|\n+")
CONTEXTS = (1, 2, 3)
LETTERS = (1, 2)


def _texts(service, phrases: str | None) -> Iterator[str]:
    """Yield each title and body: the index's own, or those of the JSONL file *phrases*."""
    if phrases:
        with Path(phrases).open(encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    doc = json.loads(line)
                    yield str(doc.get("title") or "")
                    yield str(doc.get("summary") or doc.get("body") or "")
        return
    reader = service.snapshot().searcher().reader()
    for _, fields in reader.iter_docs():
        yield str(fields.get("title") or "")
        yield str(fields.get("body") or "")


def cases(texts: Iterator[str], offered: dict, context: int) -> list[tuple[str, str]]:
    """Return (the words before, the word written) for each word of *offered* after at least one of
    its sentence's words, with *context* words before it at most, as written."""
    from index.analysis import WORD
    from search.suggest import fold

    _WORD = re.compile(WORD)

    found = []
    for text in texts:
        for sentence in _SENTENCE.split(text):
            words = list(_WORD.finditer(sentence))
            for i, match in enumerate(words[1:], 1):
                word, at = match.group(), match.start()
                if sentence[at - 1 : at] == "-" or sentence[match.end() : match.end() + 1] == "-":
                    continue  # a part of a hyphenated word: completed otherwise
                if fold(word) not in offered:
                    continue
                found.append((" ".join(w.group() for w in words[max(0, i - context) : i]), word))
    return found


def evaluate(index_dir: str, phrases: str | None, most: int, seed: int) -> list[dict[str, float | int | str]]:
    """Return the figures of each context and letters typed."""
    from search.service import SearchService
    from search.suggest import Suggester, fold

    service = SearchService(index_dir)
    suggester = Suggester(service.snapshot)
    while (candidates := suggester._candidates()) is None:  # a large snapshot is read beside the requests
        time.sleep(0.2)
    offered = candidates.terms
    rows = []
    for context in CONTEXTS:
        found = cases(_texts(service, phrases), offered, context)
        random.Random(seed).shuffle(found)
        found = found[:most]
        for letters in LETTERS:
            asked = [(f"{before} {word[:letters]}", fold(f"{before} {word}")) for before, word in found if len(word) > letters]
            first = reciprocal = none = 0
            started = time.process_time()
            answers = [suggester.suggest(prefix) for prefix, _ in asked]
            spent = time.process_time() - started
            for (_, wanted), answer in zip(asked, answers):
                words = [fold(s.text) for s in answer if s.kind == "term"]
                none += not words
                if wanted in words:
                    place = words.index(wanted) + 1
                    first += place == 1
                    reciprocal += 1 / place
            count = len(asked) or 1
            rows.append({"context": context, "letters": letters, "prefixes": len(asked), "first": first / count,
                         "mrr": reciprocal / count, "none": none / count, "us_per_prefix": spent / count * 1e6})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.suggest_eval", description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("--phrases", help="a JSONL file whose titles and summaries give the phrases (default: the index's own)")
    parser.add_argument("--max", type=int, default=20_000, help="prefixes a context at most")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    rows = evaluate(args.index_dir, args.phrases, args.max, args.seed)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print("words before | letters | prefixes | first  | MRR    | none   | µs a prefix")
    for row in rows:
        print(f"{row['context']:>12} | {row['letters']:>7} | {row['prefixes']:>8} | {row['first']:.3f}  | {row['mrr']:.3f}  "
              f"| {row['none']:.3f}  | {row['us_per_prefix']:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
