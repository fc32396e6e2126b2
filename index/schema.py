"""The Whoosh schema, and the one mapping from a record to an indexed document."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from whoosh.fields import ID, KEYWORD, NUMERIC, STORED, TEXT, Schema

from index.dates import month_of, timestamp
from corpus.records import SLUG_MAX_CHARS, Record, slugify
from index.analysis import text_analyzer

# Bump when the schema or the analysis changes: a snapshot of another version is rebuilt.
SCHEMA_VERSION = 7  # 7: an acronym's plural is the acronym ("GPUs" is "gpu")
# 6: first_seen, and the date (published, else first_seen) as a column and a month
# 5: titles weigh as one field among two (boost 1); 4: PyStemmer's Snowball English stemmer
# A title word scores in the title field and, being short, nearly saturates it: a title match
# already counts for much.  A boost of 3 on top ranked worse on CISI and no better on the hub
# (docs/relevance.md).
TITLE_BOOST = 1.0


def make_schema() -> Schema:
    """Return the schema every snapshot is written with."""
    analyzer = text_analyzer()
    return Schema(
        id=ID(stored=True, unique=True),
        kind=ID(stored=True),
        topic=ID(stored=True),
        topics=KEYWORD(stored=True, commas=True, scorable=False, lowercase=False),
        entities=KEYWORD(stored=True, commas=True, scorable=False, lowercase=False),
        title=TEXT(analyzer=analyzer, stored=True, field_boost=TITLE_BOOST),
        body=TEXT(analyzer=analyzer, stored=True),
        url=STORED(),
        source_url=STORED(),
        published=STORED(),
        # Neither is searched by range: position is only shown, order only sorted by (its column), so
        # order is indexed once at full precision (shift_step=0) instead of at eight precisions.
        position=STORED(),
        order=NUMERIC(int, stored=True, sortable=True, signed=False, shift_step=0),
        first_seen=STORED(),
        # A document's date: published, else first_seen.  Newest-first order and since/until read its
        # column (seconds since the epoch, 64 bits for dates before 1970); the month is a facet.
        date=NUMERIC(int, bits=64, sortable=True, shift_step=0),
        month=ID(),
    )


def to_document(record: Record, order: int) -> dict[str, object]:
    """Return the Whoosh document for *record*, the *order*-th in listing order."""
    topics = tuple(dict.fromkeys((record.topic, *record.topics)))
    published = getattr(record, "published", None)
    dated = published or record.first_seen
    return {
        "id": record.id,
        "kind": record.kind,
        "topic": record.topic,
        "topics": ",".join(topics),
        "entities": ",".join(record.entities),
        "title": record.title,
        "body": record.body,
        "url": f"/events/{record.id}" if record.kind == "event" else record.url,
        "source_url": getattr(record, "url", None) if record.kind == "event" else None,
        "published": published,
        "position": record.position,
        "order": order,
        "first_seen": record.first_seen,
        "date": timestamp(dated) if dated else None,
        "month": month_of(dated) if dated else None,
    }


def from_document(fields: dict[str, object]) -> dict[str, object]:
    """Return a stored document with its lists decoded (``topics`` and ``entities`` as tuples): to_document's inverse."""
    doc = dict(fields)
    for name in ("topics", "entities"):
        doc[name] = tuple(v for v in str(doc.get(name) or "").split(",") if v)
    return doc


# -- names: what a reader types for a document's id -------------------------------------------------

# A text longer than this names no document (an id has at most 512 characters, corpus/jsonl.py).
NAME_MAX_CHARS = 512
_WORDY = re.compile(r"\w")
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def id_namespace(ids: Iterable[str]) -> str:
    """Return the start every one of *ids* shares, cut after its last character that is not a letter or
    digit: ``deb-`` of ``deb-0ad`` … ``deb-zzuf``, and ``doc-`` (not ``doc-1``) of ``doc-100`` … ``doc-199``.
    Such a start is a namespace, not part of a name a reader types (``name_ids``)."""
    ids = list(ids)
    if not ids:
        return ""
    shared = os.path.commonprefix((min(ids), max(ids)))  # the sorted ends share what all share
    cut = max((i for i, char in enumerate(shared) if not char.isalnum()), default=-1)
    return shared[: cut + 1]


def name_ids(text: str, namespace: str) -> tuple[str, ...]:
    """Return the ids *text* can name, most literal first: the text as typed, lower-cased and as a slug
    (words joined by ``-``: ``build essential`` names ``build-essential``, and a title typed whole names
    the event whose id is its slug), each in *namespace* (``gimp`` names ``deb-gimp``) and as a whole id."""
    words = text.split()
    if not words or len(text) > NAME_MAX_CHARS:
        return ()
    joined = "-".join(words)
    lower = joined.lower()
    # Most texts are their own slug already: slugify (some 2.5 µs) only the others.
    slug = lower if len(lower) <= SLUG_MAX_CHARS and _SLUG.fullmatch(lower) else slugify(text) if _WORDY.search(text) else joined
    forms = dict.fromkeys((joined, lower, slug))
    if not namespace:
        return tuple(forms)
    return tuple(dict.fromkeys(i for form in forms for i in ((form,) if form.startswith(namespace) else (namespace + form, form))))
