"""Judged test collections for the relevance benchmark: the hub's own set and public ones.

A collection is documents (as JSONL objects, the generic import's format) and judged queries.  The
hub set is the seed corpus with ``bench/judgments.json``; the Debian package corpus (read in place from
``../shared/corpora/``) comes with the known-item queries of ``bench/debian_judgments.json``; CISI (1,460 abstracts on information
science, 76 judged queries, most of them pasted paragraphs) is read in place from
``../shared/corpora/cisi/`` in the SMART format its README describes, or from the 200-document
sample committed under ``tests/data/cisi-sample/`` for the tests.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CISI_DIR = REPO.parent / "shared" / "corpora" / "cisi"
CISI_SAMPLE = REPO / "tests" / "data" / "cisi-sample"
CISI_TOPIC = "cisi"
DEBIAN = REPO.parent / "shared" / "corpora" / "debian-packages.jsonl.gz"
DEBIAN_JUDGMENTS = REPO / "bench" / "debian_judgments.json"
_MARKER = re.compile(r"^\.([A-Z])(?:\s+(\S+))?\s*$")


@dataclass(frozen=True, slots=True)
class Judged:
    """One judged query: its category, its text and the grade of each relevant document."""

    category: str
    query: str
    grades: dict[str, int]


@dataclass(frozen=True, slots=True)
class Collection:
    """Documents as JSONL objects (None: the seed corpus) and the judged queries over them."""

    name: str
    documents: tuple[dict[str, object], ...] | None
    judged: tuple[Judged, ...]
    # The same queries with the grades written before any system ran, where ``judged`` adds pooled ones.
    listed: tuple[Judged, ...] | None = None


def _read(path: Path) -> str:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="latin-1") as handle:
        return handle.read()


def _smart_records(text: str) -> Iterator[tuple[str, dict[str, str]]]:
    """Yield (id, {field letter: text}) for each ``.I`` record of a SMART-format file."""
    record_id: str | None = None
    fields: dict[str, list[str]] = {}
    field: str | None = None
    for line in text.splitlines():
        marker = _MARKER.match(line)
        if marker and marker.group(1) == "I":
            if record_id is not None:
                yield record_id, {k: " ".join(" ".join(v).split()) for k, v in fields.items()}
            record_id, fields, field = marker.group(2), {}, None
        elif marker and marker.group(2) is None:
            field = marker.group(1)
            fields.setdefault(field, [])
        elif field is not None:
            fields[field].append(line)
    if record_id is not None:
        yield record_id, {k: " ".join(" ".join(v).split()) for k, v in fields.items()}


def cisi_documents(text: str) -> list[dict[str, object]]:
    """Return CISI.ALL's records as JSONL objects: title and abstract."""
    docs = []
    for record_id, fields in _smart_records(text):
        title = fields.get("T", "").strip() or f"CISI {record_id}"
        docs.append({"id": f"cisi-{record_id}", "title": title, "summary": fields.get("W", ""), "topics": [CISI_TOPIC]})
    return docs


def cisi_queries(text: str) -> dict[str, str]:
    """Return CISI.QRY's query texts by query number (``.I`` counts in file order, 1..112)."""
    queries = {}
    for number, (_, fields) in enumerate(_smart_records(text), start=1):
        queries[str(number)] = fields.get("W", "")
    return queries


def cisi_judgments(text: str) -> dict[str, dict[str, int]]:
    """Return CISI.REL's relevant documents per query number (every listed pair is relevant)."""
    grades: dict[str, dict[str, int]] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            grades.setdefault(parts[0], {})[f"cisi-{parts[1]}"] = 1
    return grades


def load_cisi(folder: Path = CISI_DIR) -> Collection:
    """Return CISI from *folder* (``CISI.ALL``, ``CISI.QRY``, ``CISI.REL``, each maybe gzipped)."""

    def text(name: str) -> str:
        for candidate in (folder / f"{name}.gz", folder / name):
            if candidate.exists():
                return _read(candidate)
        raise FileNotFoundError(folder / name)

    docs = cisi_documents(text("CISI.ALL"))
    queries = cisi_queries(text("CISI.QRY"))
    judged = tuple(
        Judged("cisi", queries[number], grades)
        for number, grades in sorted(cisi_judgments(text("CISI.REL")).items(), key=lambda kv: int(kv[0]))
        if number in queries and queries[number]
    )
    return Collection("cisi" if folder == CISI_DIR else folder.name, tuple(docs), judged)


def write_jsonl(docs: tuple[dict[str, object], ...], path: Path) -> Path:
    """Write *docs* to *path* as JSONL, for the service's own import."""
    path.write_text("".join(json.dumps(doc, ensure_ascii=False) + "\n" for doc in docs), encoding="utf-8")
    return path


def load_debian(path: Path = DEBIAN, judgments: Path = DEBIAN_JUDGMENTS) -> Collection:
    """Return the Debian package corpus (63,956 lines, 63,905 packages) with the known-item queries of *judgments*
    (bench/debian_judgments.json: what a Debian user asks, and the packages expected in the top 3),
    graded with the pooled grades added; ``listed`` has the grades written before any system ran."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        docs = tuple(json.loads(line) for line in handle if line.strip())
    return Collection("debian", docs, *debian_judged(judgments))


def debian_judged(path: Path = DEBIAN_JUDGMENTS) -> tuple[tuple[Judged, ...], tuple[Judged, ...]]:
    """Return *path*'s queries graded with the pooled grades added, and graded as listed.

    A need's list is not exhaustive, so the grades of the packages the systems' top 10 held and the
    list lacked were added later ("about" in the file says how); a listed grade is never replaced."""
    data = json.loads(path.read_text(encoding="utf-8"))
    listed = tuple(Judged(q["category"], q["query"], dict(q["judgments"])) for q in data["queries"])
    pooled = tuple(Judged(q["category"], q["query"], {**q.get("pooled", {}), **q["judgments"]}) for q in data["queries"])
    return pooled, listed
