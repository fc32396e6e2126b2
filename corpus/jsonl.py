"""Loader for JSONL corpora: one JSON object a line, optionally gzip-compressed.

Each object has ``id``, ``title``, ``summary`` (a string, possibly empty) and ``topics`` (a non-empty list, the first being the
document's home topic), and optionally ``kind`` (``event`` or ``guide``), ``entities``, ``url`` and
``published`` (an ISO 8601 date or date-time, see index/dates.py).  An id that repeats replaces the earlier document, as an update would.  A line that breaks these rules stops the load with its file and line number.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from index.dates import parse_iso
from corpus.errors import CorpusError
from corpus.records import EVENT, GUIDE, Event, GuideSection, Record, slugify
from corpus.sanitize import plain_text

_OPTIONAL_STRINGS = ("url", "published")


def _open(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def _string(obj: dict[str, Any], key: str, path: Path, lineno: int) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CorpusError(path, lineno, f"{key!r} must be a non-empty string")
    return value.strip()


def _string_list(obj: dict[str, Any], key: str, path: Path, lineno: int, required: bool) -> tuple[str, ...]:
    value = obj.get(key, [] if not required else None)
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise CorpusError(path, lineno, f"{key!r} must be a list of non-empty strings")
    if any("," in v for v in value):
        raise CorpusError(path, lineno, f"{key!r} values may not contain a comma")
    if required and not value:
        raise CorpusError(path, lineno, f"{key!r} must name at least one topic")
    return tuple(dict.fromkeys(v.strip() for v in value))


def parse_line(obj: Any, path: Path, lineno: int, position: int) -> Record:
    """Return the record described by one decoded JSONL line."""
    if not isinstance(obj, dict):
        raise CorpusError(path, lineno, "expected a JSON object")
    doc_id = _string(obj, "id", path, lineno)
    title = plain_text(_string(obj, "title", path, lineno)).strip()
    if not title:
        raise CorpusError(path, lineno, "'title' holds nothing but markup")
    summary = obj.get("summary")
    if not isinstance(summary, str):
        raise CorpusError(path, lineno, "'summary' must be a string")
    summary = plain_text(summary).strip()
    topics = _string_list(obj, "topics", path, lineno, required=True)
    entities = _string_list(obj, "entities", path, lineno, required=False)
    extra = {}
    for key in _OPTIONAL_STRINGS:
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            raise CorpusError(path, lineno, f"{key!r} must be a string")
        extra[key] = value
    if extra["url"] is not None and urlsplit(extra["url"].strip()).scheme.lower() not in ("http", "https", ""):
        extra["url"] = None  # only web or relative links are kept: javascript:, data: and the like are dropped
    if extra["published"] is not None:
        try:
            extra["published"] = parse_iso(extra["published"])
        except ValueError as exc:
            raise CorpusError(path, lineno, f"'published' must be an ISO 8601 date or date-time: {exc}") from None
    kind = obj.get("kind", EVENT)
    if kind == EVENT:
        return Event(
            id=doc_id, topic=topics[0], title=title, summary=summary, position=position,
            topics=topics, entities=entities, url=extra["url"], published=extra["published"],
        )
    if kind == GUIDE:
        return GuideSection(
            id=doc_id, topic=topics[0], heading=title, anchor=slugify(title),
            blocks=tuple(p for p in summary.split("\n") if p.strip()), order=position,
            topics=topics, entities=entities,
        )
    raise CorpusError(path, lineno, f"'kind' must be {EVENT!r} or {GUIDE!r}, not {kind!r}")


def read_objects(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, decoded JSON) for each non-blank line of a JSONL (or .jsonl.gz) file."""
    try:
        with _open(path) as handle:
            for lineno, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    yield lineno, json.loads(line)
                except json.JSONDecodeError as exc:
                    raise CorpusError(path, lineno, f"invalid JSON: {exc.msg} at column {exc.colno}") from exc
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise CorpusError(path, None, f"cannot be read: {exc}") from exc


def load_jsonl(path: str | Path) -> Iterator[Record]:
    """Yield the records of a JSONL (or .jsonl.gz) file, in file order."""
    path = Path(path)
    for position, (lineno, obj) in enumerate(read_objects(path), start=1):
        yield parse_line(obj, path, lineno, position)
