"""Grid search of ranking settings on every collection: ``python -m bench.tune '{"ranking.COVERAGE_POWER": [0.5, 1]}'``.

Each key names a module of ``search`` (``ranking``, ``weighting``, ``service``, ``query``) and one of
its constants; each combination is set in this process, the hub set and CISI are searched through
``SearchService`` (what ``/api/search`` calls) and nDCG@10 is printed: hub overall, CISI overall and
its odd and even queries (a setting is kept only when both halves agree), and the hub's categories.
``--debian`` adds the 64k Debian packages and their judged queries (bench/debian_judgments.json), a
line of their categories under each combination (a 64k build first: some 10 s more).
The index-time title boost is not a runtime setting: change ``index.schema.TITLE_BOOST`` and rerun.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from pathlib import Path

from bench import relevance
from bench.collections import load_cisi, load_debian, write_jsonl
from corpus.sources import DEFAULT_DIR
from index.build import build
from search import query, ranking, service, weighting
from search.params import SearchParams
from search.service import SearchService

MODULES = {"ranking": ranking, "weighting": weighting, "service": service, "query": query}


def answers(collection, root: Path) -> dict[str, relevance.Answer]:
    """Return the service's answer to each judged query of *collection* (a fresh service: no caches)."""
    svc = SearchService(root, budget_s=relevance.RANKING_BUDGET_S)  # ranking, not the machine's speed
    out = {}
    for judged in collection.judged:
        result = svc.search(SearchParams(q=judged.query, per_page=relevance.DEPTH))
        if result.timed_out:
            raise RuntimeError(f"ran out of {relevance.RANKING_BUDGET_S} s for {judged.query[:80]!r}: the machine is too busy to measure")
        card = [result.answer.id] if result.answer else []  # shown first, not repeated among the hits
        ids = tuple([*card, *(h.id for h in result.hits)][: relevance.DEPTH])
        out[judged.query] = relevance.Answer(ids, result.match in relevance.NO_ANSWER_MATCHES)
    return out


def _categories(summary: dict[str, dict[str, float]]) -> str:
    return " ".join(f"{k[:5]}={v['nDCG@10']:.4f}" for k, v in summary.items() if k != "overall")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tune", description=__doc__.split("\n\n")[0])
    parser.add_argument("grid", help='a JSON object of settings and their values: \'{"ranking.COVERAGE_POWER": [0.5, 1]}\'')
    parser.add_argument("--debian", action="store_true", help="add the 64k Debian packages and their judged queries")
    args = parser.parse_args(argv)
    with_debian = args.debian
    try:
        grid: dict[str, list[object]] = json.loads(args.grid)
    except json.JSONDecodeError as exc:
        parser.error(f"the grid is no JSON object: {exc}")
    hub, cisi = relevance.hub_collection(), load_cisi()
    debian = load_debian() if with_debian else None
    with tempfile.TemporaryDirectory(prefix="bench-tune-") as tmp:
        build([DEFAULT_DIR], root=Path(tmp) / "hub")
        build([write_jsonl(cisi.documents, Path(tmp) / "cisi.jsonl")], root=Path(tmp) / "cisi")
        if debian is not None:
            build([write_jsonl(debian.documents, Path(tmp) / "debian.jsonl")], root=Path(tmp) / "debian", procs=2)
        for combo in itertools.product(*grid.values()):
            for key, value in zip(grid, combo):
                module, name = key.split(".")
                setattr(MODULES[module], name, value)
            h = relevance.summarise(hub.judged, answers(hub, Path(tmp) / "hub"))
            found = answers(cisi, Path(tmp) / "cisi")
            c = relevance.summarise(cisi.judged, found)["overall"]["nDCG@10"]
            halves = [relevance.summarise(cisi.judged[k::2], found)["overall"]["nDCG@10"] for k in (0, 1)]
            print(dict(zip(grid, combo)), f"hub {h['overall']['nDCG@10']:.3f} cisi {c:.3f} "
                  f"(odd {halves[0]:.3f} even {halves[1]:.3f}) | {_categories(h)}", flush=True)
            if debian is not None:
                d = relevance.summarise(debian.judged, answers(debian, Path(tmp) / "debian"))
                print(f"    debian {d['overall']['nDCG@10']:.3f} | {_categories(d)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
