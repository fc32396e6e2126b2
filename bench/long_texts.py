"""How long a search takes whose hits are the longest texts a corpus may hold.

Ten documents of about 960,000 characters (just under the 1,000,000 a JSONL field may hold), each
a random run of ten words, so every query word matches some 16,000 times in each hit.  Each query
is asked once, so no result cache answers it; the first search also reads the texts in.

    PYTHONPATH=. python -m bench.long_texts /tmp/long   # builds /tmp/long/index on its first run
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from index.build import build
from web import create_app

WORDS = "alpha beta gamma delta epsilon zeta theta iota kappa lambda".split()
QUERIES = ("alpha", "beta", "gamma", "delta epsilon", "zeta theta")


def main(folder: str) -> None:
    root = Path(folder)
    if not (root / "index").exists():
        root.mkdir(parents=True, exist_ok=True)
        rng = random.Random(1)
        with open(root / "long.jsonl", "w", encoding="utf-8") as out:
            for i in range(10):
                summary = " ".join(rng.choice(WORDS) for _ in range(160_000))
                out.write(json.dumps({"id": f"d{i}", "title": f"Long {i}", "summary": summary, "topics": ["long"]}) + "\n")
        build([root / "long.jsonl"], root=root / "index", semantic=False)
    client = create_app({"INDEX_DIR": str(root / "index"), "TESTING": True}).test_client()
    for q in QUERIES:
        started = time.perf_counter()
        answer = client.get("/api/search", query_string={"q": q})
        took = time.perf_counter() - started
        print(f"{q!r:16} {answer.status_code} {took * 1000:6.0f} ms  {answer.get_json()['total']} hits")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])  # "--help" made a folder of that name
    parser.add_argument("folder", nargs="?", default="/tmp/topichub-long-texts", help="where the corpus and its index are kept")
    main(parser.parse_args().folder)
