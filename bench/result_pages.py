"""Write every field of many result pages, to check that a speed-up changes nothing a reader sees.

    .venv/bin/python -m bench.result_pages INDEX_DIR OUT.jsonl      # in each checkout, on one seed index
    cmp BEFORE.jsonl AFTER.jsonl

One JSON line per page (``SearchResult.to_json()`` less ``took_ms``, keys sorted): 1,500 queries of
the natural mix and 1,500 of the never-repeated one (``bench.queries``, seed corpus), plus syntax,
typos and prefixes; every tenth also with ``explain`` and a topic filter, every 25th also as page 2
of five guides.  Highlights, facets, answer cards, suggestions and ways out are all in the lines.
The result cache is off.
"""

from __future__ import annotations

import argparse
import json

from bench.queries import distinct_queries, make_queries
from corpus.sources import load_corpus
from search.params import SearchParams
from search.service import SearchService

ODD_QUERIES = ('"data center" -nvidia', "gpu*", "kuberentes", "nvdia", "how big is the stargate site", "a OR b",
               "(gpu OR tpu) AND -google", "the", "trainium2", '"mixture of experts"')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_dir")
    parser.add_argument("out")
    args = parser.parse_args(argv)
    records = list(load_corpus().records)
    queries = [*make_queries(records, 1500, 5), *distinct_queries(records, 1500, 6), *ODD_QUERIES]
    service = SearchService(args.index_dir)
    service._results.size = 0  # every page computed
    with open(args.out, "w", encoding="utf-8") as out:
        for i, q in enumerate(queries):
            pages = [SearchParams(q=q)]
            if i % 10 == 0:
                pages.append(SearchParams(q=q, explain=True, topic=("training-infrastructure",)))
            if i % 25 == 0:
                pages.append(SearchParams(q=q, page=2, per_page=5, kind=("guide",)))
            for params in pages:
                page = service.search(params).to_json()
                page.pop("took_ms")
                out.write(json.dumps(page, ensure_ascii=False, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
