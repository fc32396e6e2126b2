"""Compare the snippets two versions of the service show for the judged queries, side by side.

    PYTHONPATH=WORKTREE_A python -m bench.snippet_diff dump INDEX_DIR A.json
    PYTHONPATH=WORKTREE_B python -m bench.snippet_diff dump INDEX_DIR B.json
    python -m bench.snippet_diff compare A.json B.json

``dump`` asks ``/api/search`` (the app's test client, in-process) each query of the hub's and the
organisations' judged sets (``bench/judgments.json``, ``bench/organisation_judgments.json``) for its
first 10 hits and writes each hit's and the answer card's snippet; ``compare`` counts the snippets
that differ and prints them as a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

JUDGED = ("judgments.json", "organisation_judgments.json")


def queries() -> list[str]:
    """Return the judged sets' queries, each once, in their order."""
    here = Path(__file__).parent
    found = [q["query"] for name in JUDGED for q in json.loads((here / name).read_text())["queries"]]
    return list(dict.fromkeys(found))


def dump(index_dir: str, out: str) -> None:
    from web import create_app

    client = create_app({"INDEX_DIR": index_dir}).test_client()
    shown: dict[str, list[list[str]]] = {}
    for q in queries():
        body = client.get("/api/search", query_string={"q": q, "per_page": 10}).get_json()
        hits = [[hit["id"], hit["snippet_html"]] for hit in body.get("hits", [])]
        if body.get("answer"):
            hits.append(["card: " + body["answer"]["id"], body["answer"]["snippet_html"]])
        shown[q] = hits
    Path(out).write_text(json.dumps(shown, ensure_ascii=False, indent=0))
    print(f"{len(shown)} queries, {sum(map(len, shown.values()))} snippets -> {out}")


def _bold(snippet: str) -> str:
    return re.sub(r"</?mark>", "**", snippet).replace("|", "\\|")


def compare(before: str, after: str) -> None:
    a, b = json.loads(Path(before).read_text()), json.loads(Path(after).read_text())
    rows, count = [], 0
    for q, hits in a.items():
        theirs = dict(map(tuple, b.get(q, [])))
        for doc_id, snippet in hits:
            count += 1
            if doc_id in theirs and theirs[doc_id] != snippet:
                rows.append(f"| `{q}` | {doc_id} | {_bold(snippet)} | {_bold(theirs[doc_id])} |")
    print(f"{len(rows)} of {count} snippets differ, in {len({r.split('|')[1] for r in rows})} of {len(a)} queries\n")
    print("| query | document | before | after |\n|---|---|---|---|")
    print("\n".join(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("index_dir")
    d.add_argument("out")
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.index_dir, args.out)
    else:
        compare(args.before, args.after)


if __name__ == "__main__":
    main()
