"""How long a query of words typed as one takes ("packagelibrary"): each may be tried as two index words.

Queries of 1, 4, 16 and 32 such words, made of two common Debian words each, three of each size
(the slowest shown), with and without ``explain``, 50 hits a page.  Each query is new, so no
result cache answers it.

    PYTHONPATH=. python -m bench.run_together INDEX_DIR   # an index of the Debian corpus, e.g.
    topichub build --index-dir /tmp/deb ../shared/corpora/debian-packages.jsonl.gz
"""

from __future__ import annotations

import itertools
import random
import sys
import time

from bench import positional
from web import create_app

COMMON = ("package library files data python development documentation module support version contains "
          "provides tool perl file java rust crate debug shared").split()


def main(index_dir: str) -> None:
    client = create_app({"INDEX_DIR": index_dir, "TESTING": True}).test_client()
    client.get("/api/search?q=warmup")
    pairs = [a + b for a, b in itertools.permutations(COMMON, 2)]
    rng = random.Random(2)
    for explain in ("0", "1"):
        for words in (1, 4, 16, 32):
            took = []
            for _ in range(3):
                q = " ".join(rng.sample(pairs, words))
                started = time.perf_counter()
                answer = client.get("/api/search", query_string={"q": q, "explain": explain, "per_page": "50"})
                took.append(time.perf_counter() - started)
            found = answer.get_json()
            print(f"explain={explain} {words:2d} words: slowest {max(took) * 1000:6.1f} ms  "
                  f"(last: {found['total']} hits, timed_out={found['timed_out']})")


if __name__ == "__main__":
    main(positional(sys.argv[1:], "bench.run_together INDEX_DIR")[0])
