"""How well the service corrects typos, and how often it "corrects" a real word it lacks.

``python -m bench.spelling INDEX_DIR [--corpus seed|debian] [--out FILE.json]`` asks the service
(``SearchService.search``, as the API does) two sets of words, the same on every run (seeded):

- **typos**: four one-edit slips (a letter left out, added, changed, or two swapped, never the first
  letter) of each of the corpus's 400 most frequent words of five letters or more; each answer is
  *exact* when the offered correction is that word (in any case), *other* when it is another word,
  *none* when nothing is offered;
- **words the index lacks**: the commonest words of CISI's abstracts (``../shared/corpora/cisi``,
  another domain) that no page of the index has, at most 1,500; each offered correction turns a real
  word into one the reader did not type.

``--out`` keeps every answer, to compare two versions of the code word by word.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import random
import re
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

from bench.collections import CISI_DIR, DEBIAN
from corpus.sources import DEFAULT_DIR
from search.params import SearchParams
from search.query import _query_tokens
from search.service import SearchService

WORD = re.compile(r"[A-Za-z]{5,}")
COMMON = 400
SLIPS = 4
LACKING = 1500


def _texts(corpus: str) -> Iterator[str]:
    if corpus == "seed":
        for path in sorted(Path(DEFAULT_DIR).glob("*.txt")):
            yield path.read_text(encoding="utf-8")
        return
    with gzip.open(DEBIAN, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if number == 20_000:
                return
            record = json.loads(line)
            yield " ".join(str(record.get(key, "")) for key in ("title", "summary", "text"))


def _slip(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word))
    kind, letter = rng.choice("dist"), rng.choice("abcdefghijklmnopqrstuvwxyz")
    if kind == "d":
        return word[:i] + word[i + 1 :]
    if kind == "s":
        return word[:i] + letter + word[i + 1 :]
    if kind == "t" and i < len(word) - 1:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word[:i] + letter + word[i:]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir", type=Path)
    parser.add_argument("--corpus", choices=("seed", "debian"), default="seed", help="whose words to misspell")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", category=SyntaxWarning)
    service = SearchService(args.index_dir)
    snap = service.snapshot()
    vocabulary = service._speller.vocabulary(snap.id, snap.searcher(), snap.analyzer)

    def offered(q: str) -> str | None:
        suggestion = service.search(SearchParams(q=q)).suggestion
        return suggestion.text if suggestion else None

    counts = collections.Counter(w.lower() for text in _texts(args.corpus) for w in WORD.findall(text))
    rng = random.Random(31)
    typos: dict[str, list[str | None]] = {}
    for word, _ in counts.most_common(COMMON):
        for _ in range(SLIPS):
            typed = _slip(word, rng)
            if typed != word and typed not in typos:
                typos[typed] = [word, offered(typed)]
    with gzip.open(CISI_DIR / "CISI.ALL.gz", "rt", encoding="utf-8", errors="replace") as cisi:
        other = collections.Counter(w.lower() for w in WORD.findall(cisi.read()))
    lacking = [w for w, _ in other.most_common() if not vocabulary.contains(_query_tokens(w)[0][0])][:LACKING]
    lacks = {word: offered(word) for word in lacking}
    exact = sum(1 for word, got in typos.values() if got and got.lower() == word)
    none = sum(1 for _, got in typos.values() if not got)
    print(f"{args.index_dir}: {len(typos)} typos of the {COMMON} commonest {args.corpus} words: {exact} corrected "
          f"exactly, {len(typos) - exact - none} into another word, {none} not corrected")
    print(f"{len(lacks)} CISI words the index lacks: {sum(1 for got in lacks.values() if got)} offered as another word")
    if args.out:
        args.out.write_text(json.dumps({"typos": typos, "lacking": lacks}, indent=0), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
