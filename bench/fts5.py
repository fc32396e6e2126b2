"""SQLite FTS5 doing the service's work, for the benchmark and the reference service.

"The same work" as ``SearchService.search`` for a query text means, on the same documents:

- the words are the service's: lower-case function words are dropped (unless there is nothing
  else) outside "quoted phrases", which stay phrases, function words and all; both sides stem (Whoosh: Snowball English, FTS5: Porter);
- the total counts documents matching *any* word (FTS5 ``OR``), exactly;
- ranking puts documents matching *every* word first (FTS5 implicit ``AND``, BM25 with the title
  weighted 3 and the body 1, as the service's BM25F), then fills the top 10 with the any-word rest;
- each hit carries its title with matches marked and a body snippet with matches marked, as HTML
  (source text escaped, ``<mark>`` around matches);
- facet counts (topic, entity, kind) are exact, over every any-word match, with ``GROUP BY``.

Differences that remain (and make match counts differ for some queries) are the tokenizers'
and stemmers': the service also indexes the parts of mixed words (``trainium2`` → ``trainium``),
keeps ``1.0.0`` whole, and stems with Porter2; FTS5's unicode61 splits on every punctuation mark.
"""

from __future__ import annotations

import html
import json
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from corpus.records import KIND_LABELS, Record
from index.analysis import STOP_WORDS

TITLE_WEIGHT = 3.0
SNIPPET_TOKENS = 32
FACETS = ("topic", "entity", "kind")
_START, _END = "\x02", "\x03"
_PHRASE = re.compile(r'"([^"]*)"')
_WORDS = re.compile(r"\w+(?:[.'’]\w+)*")

_SCHEMA = """
CREATE TABLE docs(
    rowid INTEGER PRIMARY KEY, id TEXT, kind TEXT, title TEXT, body TEXT, url TEXT,
    topics TEXT, entities TEXT, position INTEGER
);
CREATE VIRTUAL TABLE fts USING fts5(
    title, body, content='docs', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TABLE facets(docid INTEGER NOT NULL, facet TEXT NOT NULL, value TEXT NOT NULL);
"""


@dataclass(frozen=True, slots=True)
class FtsQuery:
    """The FTS5 match expressions for one query text (None: nothing to search)."""

    all_words: str | None
    any_words: str | None
    rest: str | None  # any-word matches that are not all-word matches


def _quote(words: Iterable[str]) -> str:
    return '"' + " ".join(w.replace('"', '""') for w in words) + '"'


def _keep(word: str) -> bool:
    return not (word.lower() in STOP_WORDS and not (word.isupper() and len(word) > 1))


def translate(text: str) -> FtsQuery:
    """Return the FTS5 expressions that ask what the service asks for *text*."""
    units: list[str] = []
    phrases = [_WORDS.findall(p) for p in _PHRASE.findall(text)]
    loose = _WORDS.findall(_PHRASE.sub(" ", text))
    for keep_all in (False, True):
        units = [_quote(p) for p in phrases if p]  # a phrase keeps its function words, as the service's does
        units += [_quote([w]) for w in loose if keep_all or _keep(w)]
        if units:
            break
    units = list(dict.fromkeys(units))
    if not units:
        return FtsQuery(None, None, None)
    all_words = " AND ".join(units)
    any_words = " OR ".join(units)
    rest = None if len(units) == 1 else f"({any_words}) NOT ({all_words})"
    return FtsQuery(all_words, any_words, rest)


def create(path: Path, records: Iterable[Record]) -> int:
    """Write an FTS5 database of *records* at *path*; return the number of documents."""
    conn = sqlite3.connect(path)
    try:
        conn.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _SCHEMA)
        count = 0
        docs, facets = [], []
        for rowid, record in enumerate(records, start=1):
            topics = tuple(dict.fromkeys((record.topic, *record.topics)))
            url = f"/events/{record.id}" if record.kind == "event" else record.url
            docs.append((rowid, record.id, record.kind, record.title, record.body, url,
                         ",".join(topics), ",".join(record.entities), record.position))
            facets.extend((rowid, "topic", t) for t in topics)
            facets.extend((rowid, "entity", e) for e in record.entities)
            facets.append((rowid, "kind", record.kind))
            count += 1
        conn.executemany("INSERT INTO docs VALUES (?,?,?,?,?,?,?,?,?)", docs)
        conn.executemany("INSERT INTO facets VALUES (?,?,?)", facets)
        conn.execute("CREATE INDEX facets_doc ON facets(docid, facet, value)")
        conn.execute("INSERT INTO fts(fts) VALUES ('rebuild')")
        conn.execute("INSERT INTO fts(fts) VALUES ('optimize')")
        conn.commit()
        return count
    finally:
        conn.close()


def connect(path: Path) -> sqlite3.Connection:
    """Open an FTS5 database made by create() for reading."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    conn.execute("PRAGMA query_only=ON")
    return conn


def _markup(text: str) -> str:
    return html.escape(text, quote=True).replace(_START, "<mark>").replace(_END, "</mark>")


def _hits(conn: sqlite3.Connection, expr: str, limit: int) -> list[dict[str, object]]:
    # Rank first, then mark up only the top rows: auxiliary functions in a sorted SELECT would run
    # for every match.
    top = conn.execute(
        f"SELECT rowid, bm25(fts, {TITLE_WEIGHT}, 1.0) AS score FROM fts WHERE fts MATCH ? ORDER BY score LIMIT ?",
        (expr, limit),
    ).fetchall()
    if not top:
        return []
    marks = ",".join("?" * len(top))
    rows = conn.execute(
        f"""SELECT f.rowid, highlight(fts, 0, ?, ?), snippet(fts, 1, ?, ?, '…', {SNIPPET_TOKENS}),
                   d.id, d.kind, d.url, d.topics, d.entities, d.position
            FROM fts AS f JOIN docs AS d ON d.rowid = f.rowid
            WHERE fts MATCH ? AND f.rowid IN ({marks})""",
        (_START, _END, _START, _END, expr, *(rowid for rowid, _ in top)),
    ).fetchall()
    by_rowid = {row[0]: row[1:] for row in rows}
    hits = []
    for rowid, score in top:
        title_hl, snippet, doc_id, kind, url, topics, entities, position = by_rowid[rowid]
        hits.append({
            "id": doc_id, "kind": kind, "title": title_hl.replace(_START, "").replace(_END, ""),
            "title_html": _markup(title_hl), "snippet_html": _markup(snippet), "url": url,
            "topics": [t for t in topics.split(",") if t], "entities": [e for e in entities.split(",") if e],
            "score": round(-score, 4), "position": position,
        })
    return hits


def search(conn: sqlite3.Connection, text: str, per_page: int = 10) -> dict[str, object]:
    """Return the API's JSON fields for *text*: top *per_page*, exact total, exact facet counts."""
    query = translate(text)
    total = all_count = 0
    hits: list[dict[str, object]] = []
    facets: dict[str, list[dict[str, object]]] = {name: [] for name in FACETS}
    if query.any_words is not None:
        total = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (query.any_words,)).fetchone()[0]
        all_count = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (query.all_words,)).fetchone()[0]
        hits = _hits(conn, query.all_words, per_page) if all_count else []
        if len(hits) < per_page and query.rest is not None and total > all_count:
            hits += _hits(conn, query.rest, per_page - len(hits))
        rows = conn.execute(
            """SELECT f.facet, f.value, count(*) FROM fts JOIN facets AS f ON f.docid = fts.rowid
               WHERE fts MATCH ? GROUP BY f.facet, f.value""",
            (query.any_words,),
        ).fetchall()
        for facet, value, count in rows:
            label = KIND_LABELS.get(value, value) if facet == "kind" else value
            facets[facet].append({"value": value, "label": label, "count": count, "selected": False})
        for values in facets.values():
            values.sort(key=lambda v: (-v["count"], str(v["label"]).lower()))
    return {
        "query": text, "total": total, "page": 1, "per_page": per_page,
        "pages": max(1, -(-total // per_page)), "sort": "relevance", "took_ms": 0.0,
        "match": "none" if not total else ("all" if all_count else "partial"), "plain_query": False,
        "filters": {name: [] for name in FACETS}, "hits": hits, "facets": facets,
    }


def dumps(result: dict[str, object]) -> str:
    """Return *result* as the API's JSON text."""
    return json.dumps(result, ensure_ascii=False)
