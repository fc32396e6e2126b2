"""The Whoosh schema, and the one mapping from a record to an indexed document."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from functools import lru_cache
from urllib.parse import quote
from collections.abc import Iterable, Mapping

from whoosh.fields import ID, KEYWORD, NUMERIC, STORED, TEXT, Schema

from index.dates import month_of, timestamp
from corpus.records import FACET_VALUE_MAX_CHARS, INVISIBLE, KINDS, LATIN_LETTERS, SLUG_MAX_CHARS, Record, collapsed, guide_url, normal_text, slugify  # INVISIBLE, FACET_VALUE_MAX_CHARS, LATIN_LETTERS, collapsed, normal_text, guide_url: for requests (search/)
from corpus.sanitize import plain_text  # noqa: F401 - for requests (search/): markup pasted into a query
from index.analysis import DEFAULT_LANGUAGE, text_analyzer, writes_marked_word

# Bump when the schema or the analysis changes: a snapshot of another version is rebuilt.
SCHEMA_VERSION = 23  # 23: the parts of a document's name are indexed (``name_words``: "dev" of libcurl4-openssl-dev)
# 22: a katakana word's final "ー" is no word, from four characters (コンピューター finds コンピュータ)
# 21: a traditional Chinese character is its simplified form (數據 finds 数据); 20: a word of Russian, Greek or Arabic letters stemmed as its language (a QA pass of
# non-English corpora); 19: "ё" is "е", Arabic letters and digits folded as readers type them, katakana a word a
# character (a QA pass of non-English corpora); 18: "c++" and "c#" are words of their own, and "c" too (a QA pass)
# 17: "acceleration" is an accelerator's (a regression QA pass)
# 16: a noun in "-ification" is stemmed as its verb ("diversification": diversify)
# 15: security, engineer(ing), initiative and tens too
# 14: a few words Porter2 stems as words of other meanings keep their own stem
# (index.analysis.STEM_OVERRIDES: accelerators, customers, transformers)
# 13: each Chinese character (and hiragana) is a word, as Unicode's word boundaries make it
# 12: a word holds the combining marks written on it (a Hindi vowel sign, Arabic harakat), which
# fold away where readers leave them out (Latin accents NFC could not compose, harakat, Hebrew points)
# 11: Latin letters without a decomposition folded as typed (ß "ss", æ "ae", œ "oe", þ "th"),
# ligatures written out ("ﬁ" "fi") and the dot lower-casing "İ" leaves dropped ("İstanbul" is "istanbul")
# 10: revised, when a rebuild or update last changed what a document says
# 9: a Greek letter's accents folded, and a document's Greek letters also indexed by their names ("μP" also as "mup")
# 8 (briefly): Greek letters folded to their names in documents and queries alike
# 7: an acronym's plural is the acronym ("GPUs" is "gpu")
# 6: first_seen, and the date (published, else first_seen) as a column and a month
# 5: titles weigh as one field among two (boost 1); 4: PyStemmer's Snowball English stemmer
# A title word scores in the title field and, being short, nearly saturates it: a title match
# already counts for much.  A boost of 3 on top ranked worse on CISI and no better on the hub
# (docs/relevance.md).
TITLE_BOOST = 1.0


def make_schema(language: str = DEFAULT_LANGUAGE) -> Schema:
    """Return the schema every snapshot of a corpus in *language* is written with."""
    analyzer = text_analyzer(language)
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
        revised=STORED(),  # when a build or update last changed what the document says (None: never since first seen)
        # A document's date: published, else first_seen.  Newest-first order and since/until read its
        # column (seconds since the epoch, 64 bits for dates before 1970); the month is a facet.
        date=NUMERIC(int, bits=64, sortable=True, shift_step=0),
        month=ID(),
        # The parts of the document's id, not searched as text: a query word its text does not write
        # counts where its name has it (search/service.py ``_Found``: "libcurl dev").
        name=KEYWORD(lowercase=False, scorable=False),
    )


def to_document(record: Record, order: int, first_seen: str | None = None, revised: str | None = None) -> dict[str, object]:
    """Return the Whoosh document for *record*, the *order*-th in listing order.

    *first_seen*, when given, stands for the record's own (a build stamps each record so, without
    copying it: ``index.build._write_segments``); *revised* is when a build or update last changed
    what it says (``content_digest``), None if none has."""
    topics = tuple(dict.fromkeys((record.topic, *record.topics)))
    published = getattr(record, "published", None)
    if first_seen is None:
        first_seen = record.first_seen
    dated = published or first_seen
    moment = _date_fields(dated) if dated else (None, None)
    return {
        "id": record.id,
        "kind": record.kind,
        "topic": record.topic,
        "topics": ",".join(topics),
        "entities": ",".join(record.entities),
        "title": record.title,
        "body": record.body,
        "url": event_url(record.id) if record.kind == "event" else record.url,
        "source_url": getattr(record, "url", None) if record.kind == "event" else getattr(record, "source_url", None),
        "published": published,
        "position": record.position,
        "order": order,
        "first_seen": first_seen,
        "revised": revised,
        "date": moment[0],
        "month": moment[1],
        "name": name_words(record.id),
    }


_NAME_PARTS = re.compile(r"[^\w+#]+|_")  # a name's parts are joined by anything but letters, digits, "+" and "#"


def name_words(doc_id: str) -> str:
    """Return the words of the name *doc_id* gives its document, lower-cased, space-separated: its parts
    ("libcurl4-openssl-dev": libcurl4, openssl, dev), and a part's letters before a one-digit version
    (libcurl, python of python3, gtk of gtk3); not before two digits, which name more often than they
    number: amd64 is no "amd", arm64 no "arm", base64 no "base", win32 no "win" (a regression pass:
    "amd firmware" put fwupd-amd64-signed first).  "g++-12" keeps "g++".  The namespace is a part too
    (``service._name_holders`` passes over it)."""
    parts = [part for part in _NAME_PARTS.split(doc_id.lower()) if part]
    words = dict.fromkeys(parts)
    for part in parts:
        if len(part) > 2 and part[-1].isdigit() and not part[-2].isdigit() and part[-2] not in "+#":
            words[part[:-1]] = None
    return " ".join(words)


# What a document says: a change to any of these is a revision (not its place in the listing, nor its dates).
CONTENT_FIELDS = ("kind", "topic", "topics", "entities", "title", "body", "url", "source_url", "published")


def content_digest(document: Mapping[str, object]) -> bytes:
    """Return a digest of what *document* (``to_document``'s, or its stored fields) says: equal for
    the same ``CONTENT_FIELDS``, whatever its order, first_seen or revised."""
    digest = hashlib.blake2b(digest_size=16)
    for name in CONTENT_FIELDS:
        digest.update(repr(document.get(name)).encode("utf-8", "surrogatepass"))
        digest.update(b"\x1f")
    return digest.digest()


@lru_cache(maxsize=4096)
def _date_fields(dated: str) -> tuple[int, str]:
    """Return the date column's seconds and the month of the canonical date *dated*.

    Cached: a build gives every record without a date of its own the same first_seen (the build's
    time), so a 64k-document build would parse that one date 64k times (0.1 s)."""
    return timestamp(dated), month_of(dated)


def event_url(doc_id: str) -> str:
    """Return the page of the event *doc_id*: the id percent-encoded, so that an id holding ``?``, ``#``,
    ``%`` or ``/`` (a JSONL id may) is one path segment, not a query, a fragment or another path."""
    return "/events/" + quote(doc_id, safe="")


def from_document(fields: dict[str, object]) -> dict[str, object]:
    """Return a stored document with its lists decoded (``topics`` and ``entities`` as tuples): to_document's inverse."""
    doc = dict(fields)
    for name in ("topics", "entities"):
        doc[name] = tuple(v for v in str(doc.get(name) or "").split(",") if v)
    if doc.get("kind") == "event" and "id" in doc:
        doc["url"] = event_url(str(doc["id"]))  # also for a snapshot built before ids were encoded
    elif doc.get("kind") == "guide" and "topic" in doc:  # the same for a guide's topic
        doc["url"] = guide_url(str(doc["topic"]), str(doc.get("url") or "").partition("#")[2])
    return doc


# -- names: what a reader types for a document's id -------------------------------------------------

# A text longer than this names no document (an id has at most 512 characters, corpus/jsonl.py).
NAME_MAX_CHARS = 512
_WORDY = re.compile(r"\w")
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_SEGMENT = re.compile(r"[^\W_]+[\W_]")  # letters or digits, then one character that is neither
# A namespace is the first segment of all ids but 1% of them (at least one may stray, so one stray id
# added by an update does not take it away), and of 3 ids at least.
NAMESPACE_STRAYS = 0.01
NAMESPACE_MIN_IDS = 3


def id_namespace(ids: Iterable[str]) -> str:
    """Return the namespace of *ids*: the first segment (up to and with the first character that is not a
    letter or digit) that all of them but a stray 1% start with (``NAMESPACE_STRAYS``), or "" when none does.

    ``deb-`` for the Debian corpus, ``cisi-`` for CISI, "" for the hub's slugs.  One segment only:
    ``deb-gimp-data``, ``deb-gimp-help`` … give ``deb-``, so ``gimp data`` names the first.  A few ids
    outside it (a stray ``gimp2`` added by an update) leave it in place; they are named by their whole id.
    """
    counts: Counter[str] = Counter()
    total = 0
    for doc_id in ids:
        total += 1
        match = _SEGMENT.match(doc_id)
        if match:
            counts[match.group()] += 1
    if not counts:
        return ""
    segment, count = counts.most_common(1)[0]
    strays = max(1, int(total * NAMESPACE_STRAYS))
    return segment if count >= NAMESPACE_MIN_IDS and count >= total - strays else ""


def ids_of(reader) -> list[str]:
    """Return every id in *reader*'s id field, deleted documents' ones included (the term list, sorted)."""
    return [t.decode("utf-8") if isinstance(t, bytes) else t for t in reader.lexicon("id")]


def name_ids(text: str, namespace: str) -> tuple[str, ...]:
    """Return the ids *text* can name, most literal first: the text as typed, lower-cased and as a slug
    (words joined by ``-``: ``build essential`` names ``build-essential``, and a title typed whole names
    the event whose id is its slug), each in *namespace* (``gimp`` names ``deb-gimp``) and as a whole id.

    The slug is left out where it is empty (text without a letter or digit of the Latin alphabet, which
    slugify writes as "item") or was cut (a text longer than any slug id: ``title_slug`` checks those)."""
    words = text.split()
    if not words or len(text) > NAME_MAX_CHARS:
        return ()
    joined = "-".join(words)
    lower = joined.lower()
    # Most texts are their own slug already: slugify (some 2.5 µs) only the others.
    if len(lower) <= SLUG_MAX_CHARS and _SLUG.fullmatch(lower):
        forms = dict.fromkeys((joined, lower))
    else:
        # Not a slug that drops a word's "++" or "#": "c++" and "c#" would name a package "c" (a QA pass).
        slug = "" if writes_marked_word(text) else whole_slug(text)
        forms = dict.fromkeys((joined, lower, slug) if slug and len(slug) <= SLUG_MAX_CHARS else (joined, lower))
    if len(words) == 2 and all(word.isalpha() for word in words):
        # A name typed in two words, last: "node js" names nodejs, "libre office" libreoffice, "open
        # ssh" openssh (a QA pass: nodejs was not in the first six of "node js").
        forms.update(dict.fromkeys(("".join(words), "".join(words).lower())))
    if len(words) > 1 and any(word[:1].isdigit() for word in words[1:]):
        # A version typed apart from its name: "lua 5.4" names lua5.4, "python 3.11 dev" python3.11-dev
        # (a QA pass: neither was in the first 50; "gcc 12" named gcc-12 already).
        forms.update(dict.fromkeys(_VERSION_APART.sub("", form) for form in list(forms)))
    if not namespace:
        return tuple(forms)
    return tuple(dict.fromkeys(i for form in forms for i in ((form,) if form.startswith(namespace) else (namespace + form, form))))


_VERSION_APART = re.compile(r"(?<=[^\W\d_])-(?=\d)")  # a hyphen between a name's last letter and a version


def whole_slug(text: str) -> str:
    """Return *text*'s slug, not cut, or "" when it has none: no Latin letter or digit, or a letter the
    slug would drop (``β-VAE`` is not ``vae``)."""
    if not text.isascii() and any(char.isalnum() and not char.isascii() and not _ascii_letters(char) for char in text):
        return ""
    slug = slugify(text, max_length=NAME_MAX_CHARS * 4)
    return slug if slug != "item" or "item" in text.lower() else ""


def _ascii_letters(char: str) -> bytes:
    return unicodedata.normalize("NFKD", char).translate(LATIN_LETTERS).encode("ascii", "ignore")


def title_slug(text: str) -> tuple[str, str] | None:
    """Return (the id, the whole slug) of a text whose slug is longer than an id's, cut as an id is cut,
    or None: such a text names the document with that id only when its title's whole slug is the same."""
    if len(text) <= SLUG_MAX_CHARS and (text.isascii() or len(unicodedata.normalize("NFKD", text)) <= SLUG_MAX_CHARS):
        return None  # its slug is no longer than the text (written out by NFKD): not cut
    slug = whole_slug(text)
    return (slugify(text), slug) if len(slug) > SLUG_MAX_CHARS else None
