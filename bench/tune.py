"""Grid search of ranking settings on every collection: ``python -m bench.tune '{"ranking.COVERAGE_POWER": [0.5, 1]}'``.

Each key names a module of ``search`` (``ranking``, ``weighting``, ``service``, ``query``) and one of
its constants; each combination is set in this process, the hub set and CISI are searched through
``SearchService`` (what ``/api/search`` calls) and nDCG@10 is printed: hub overall, CISI overall and
its odd and even queries (a setting is kept only when both halves agree), and the hub's categories.
The index-time title boost is not a runtime setting: change ``index.schema.TITLE_BOOST`` and rerun.
"""

from __future__ import annotations

import itertools
import json
import sys
import tempfile
from pathlib import Path

from bench import relevance
from bench.collections import load_cisi, write_jsonl
from corpus.sources import DEFAULT_DIR
from index.build import build
from search import query, ranking, service, weighting
from search.params import SearchParams
from search.service import SearchService

MODULES = {"ranking": ranking, "weighting": weighting, "service": service, "query": query}


def answers(collection, root: Path) -> dict[str, relevance.Answer]:
    """Return the service's answer to each judged query of *collection* (a fresh service: no caches)."""
    svc = SearchService(root)
    out = {}
    for judged in collection.judged:
        result = svc.search(SearchParams(q=judged.query, per_page=relevance.DEPTH))
        card = [result.answer.id] if result.answer else []  # shown first, not repeated among the hits
        ids = tuple([*card, *(h.id for h in result.hits)][: relevance.DEPTH])
        out[judged.query] = relevance.Answer(ids, result.match in relevance.NO_ANSWER_MATCHES)
    return out


def main(argv: list[str]) -> int:
    grid: dict[str, list[object]] = json.loads(argv[0])
    hub, cisi = relevance.hub_collection(), load_cisi()
    with tempfile.TemporaryDirectory(prefix="bench-tune-") as tmp:
        build([DEFAULT_DIR], root=Path(tmp) / "hub")
        build([write_jsonl(cisi.documents, Path(tmp) / "cisi.jsonl")], root=Path(tmp) / "cisi")
        for combo in itertools.product(*grid.values()):
            for key, value in zip(grid, combo):
                module, name = key.split(".")
                setattr(MODULES[module], name, value)
            h = relevance.summarise(hub.judged, answers(hub, Path(tmp) / "hub"))
            found = answers(cisi, Path(tmp) / "cisi")
            c = relevance.summarise(cisi.judged, found)["overall"]["nDCG@10"]
            halves = [relevance.summarise(cisi.judged[k::2], found)["overall"]["nDCG@10"] for k in (0, 1)]
            cats = " ".join(f"{k[:5]}={v['nDCG@10']:.4f}" for k, v in h.items() if k != "overall")
            print(dict(zip(grid, combo)), f"hub {h['overall']['nDCG@10']:.3f} cisi {c:.3f} "
                  f"(odd {halves[0]:.3f} even {halves[1]:.3f}) | {cats}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
