"""Loader for JSONL corpora: one JSON object a line, optionally gzip-compressed.

Each object has ``id``, ``title``, ``summary`` (a string, possibly empty) and ``topics`` (a non-empty list, the first being the
document's home topic), and optionally ``kind`` (``event`` or ``guide``), ``entities``, ``url`` and
``published`` (an ISO 8601 date or date-time, see index/dates.py); an optional field given null is
left out.  An id has at most 512 characters
(``ID_MAX_LENGTH``) and no control characters; a title at most 1,000 (``TITLE_MAX_LENGTH``);
``topics`` and ``entities`` list at most 100 values each (``FACET_VALUES_MAX_PER_RECORD``).  An id that repeats replaces the earlier document, as an
update would.  A line that breaks these rules stops the load with its file and line number.

Lines end with LF (or CRLF) and are UTF-8; a byte-order mark at the very start of the file is
skipped.  A line is read as bytes and decoded on its own, so a bad byte is reported by line.
Text holding a lone surrogate (a ``\\ud800`` escape without its pair) is refused wherever it is
in the line: it cannot be written as UTF-8, so it could not be indexed or stored.
"""

from __future__ import annotations

import gzip
import json
import logging
import re
import sys
import unicodedata
import zlib
from contextlib import contextmanager
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from index.dates import parse_iso
from corpus.errors import CorpusError
from corpus.records import EVENT, FACET_VALUE_MAX_CHARS, GUIDE, Event, GuideSection, Record, normal_text, slugify, visible_url
from corpus.sanitize import plain_text

_OPTIONAL_STRINGS = ("url", "published")
# An id is part of its document's URL (/events/<id>, /api/documents/<id>): 512 characters, each
# percent-encoded UTF-8 (up to 12 bytes), still fit gunicorn's request line (web/gunicorn_conf.py).
ID_MAX_LENGTH = 512
# A title is shown whole, in every hit, suggestion and feed entry that carries it: 1,000 characters
# (the Debian corpus's longest is 348).
TITLE_MAX_LENGTH = 1000
# A summary is cropped to a snippet in hits, but a document is served whole (its page, /api/documents):
# one of 14 MB took 30 s to build and 16-22 s to serve.  The Debian corpus's longest is 81,380.
SUMMARY_MAX_LENGTH = 1_000_000
RAW_SUMMARY_MAX_LENGTH = 4 * SUMMARY_MAX_LENGTH  # as written, markup included: read before it is stripped
# Topics, and organisations, a record may list: each is a facet value and a chip on every hit showing
# the record.  The seed's most tagged event has 5 topics and 12 organisations after enrichment, a
# Debian package 1 topic; news sites tag an article with a few to some 30: 100 leaves room.  Unbounded, one record of 50,000
# topics and 50,000 organisations made the home page 32 MB and 2 s (a QA pass).
FACET_VALUES_MAX_PER_RECORD = 100
# Distinct values as written a record may list before they are read (each made plain text by bleach):
# past this it stops at once, as the 50,000 of the QA pass's record; the limit above counts them read.
RAW_FACET_VALUES_MAX = 10 * FACET_VALUES_MAX_PER_RECORD
# What a line may hold ("delete" only in an update's change file); any other field is ignored, and
# said once per file and name, so a misspelt "entites" or "publised" does not vanish silently.
FIELDS = frozenset({"id", "title", "summary", "topics", "kind", "entities", "url", "published", "delete"})
log = logging.getLogger(__name__)
_told: set[tuple[Path, str]] = set()
# ... and the bidirectional overrides and isolates: an id is shown whole, and one reversed the page's text after it.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD]")  # only a \uXXXX escape makes a surrogate; one regex scan is the fastest test
# A JSON string (skipped) or number: the first number past int()'s limit is named by its column.
_STRING_OR_NUMBER = re.compile(r'"(?:[^"\\]|\\.)*"|-?([0-9]+)')
# The byte-order marks of the encodings a file saved as "Unicode" may be in instead of UTF-8 (UTF-32's first).
_OTHER_ENCODINGS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"),
                    (b"\xfe\xff", "UTF-16"))
_BLOCK = 1 << 15  # bytes read at a time: splitting blocks is as fast as reading text (readline is slower)
# NaN, Infinity and -Infinity outside a string: Python reads them, JSON has no such numbers.
_STRING_OR_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


class _NotJSON(ValueError):
    """A line Python's reader takes that JSON does not allow: a key twice in one object, NaN or Infinity."""


def _one_of_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Return an object's pairs as a dict, or raise _NotJSON naming a key it gives twice: the last one
    was kept without a word ({"id": "a", "id": "b"} indexed "b", a QA pass).  Some 0.4 µs a line."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        twice = next(key for number, (key, _) in enumerate(pairs) if any(key == k for k, _ in pairs[:number]))
        raise _NotJSON(f"the key {twice!r} is given twice in one object: JSON readers keep one or the other; write it once")
    return obj


def _no_constant(name: str) -> Any:
    raise _NotJSON(f"{name} is not a JSON number (JSON has no NaN or Infinity): write null, or the value as a string")


# Python's reader, with the two checks (one decoder, as json.loads's own: one made a line costs more).
_JSON = json.JSONDecoder(object_pairs_hook=_one_of_each, parse_constant=_no_constant)


@contextmanager
def _open(path: Path) -> Iterator[IO[bytes]]:
    """Open *path* for reading bytes, through gzip when it is compressed (named .gz, or starting with
    gzip's magic bytes: a compressed export saved as .jsonl).

    Opened once and its first bytes peeked at, not read: opened twice, a pipe (``zcat changes.gz |
    topichub update /dev/stdin``) gave its bytes to the probe and the file read after held none, so
    an update said "it holds no changes", exited 0 and applied nothing (a QA pass)."""
    with path.open("rb") as raw:
        if path.suffix == ".gz" or raw.peek(2)[:2] == b"\x1f\x8b":
            with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:
                yield unzipped
        else:
            yield raw


# Bytes a line may hold: more than any record can (a summary of 4,000,000 characters as written,
# each escaped as \uXXXX, is 24 MB).  A longer line is refused as it is read: one of 300 MB was read
# and parsed whole (1.25 GB) before its title was found too long.
LINE_MAX_BYTES = 32 << 20


class _LineTooLong(Exception):
    """A line ran past LINE_MAX_BYTES before its end."""


def _lines(handle: IO[bytes]) -> Iterator[bytes]:
    """Yield the lines of *handle*, without their LF, as bytes; raise _LineTooLong for one of more
    than LINE_MAX_BYTES, before reading the rest of it.

    A block is split only once it has been read whole, so a read that fails (a .gz cut short) fails
    after the last complete line was yielded.
    """
    pending: list[bytes] = []  # the start of a line that the next block goes on with
    held = 0  # bytes in pending
    while block := handle.read1(_BLOCK):
        *lines, last = block.split(b"\n")
        if lines:
            if pending:
                pending.append(lines[0])
                lines[0] = b"".join(pending)
                pending.clear()
            if max(map(len, lines)) > LINE_MAX_BYTES:  # (the lines before it are yielded: it has the next number)
                yield from lines[: next(i for i, line in enumerate(lines) if len(line) > LINE_MAX_BYTES)]
                raise _LineTooLong
            yield from lines
            held = 0
        pending.append(last)
        held += len(last)
        if held > LINE_MAX_BYTES:
            raise _LineTooLong
    tail = b"".join(pending)
    if tail:
        yield tail


def _string(obj: dict[str, Any], key: str, path: Path, lineno: int) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        _refuse_misnamed(obj, key, path, lineno)
        raise CorpusError(path, lineno, f"{key!r} must be a non-empty string{_not_a_number(value)}")
    return value.strip()


def _in_another_case(obj: dict[str, Any], key: str) -> str | None:
    """Return the field of *obj* that is *key* written in another case ("ID" for "id"), or None."""
    return next((name for name in obj if isinstance(name, str) and name != key and name.lower() == key), None)


def _refuse_misnamed(obj: dict[str, Any], key: str, path: Path, lineno: int) -> None:
    """Raise CorpusError when the field *key* is missing but written in another case: an export's
    {"ID": "a", "Title": …} was refused as "'id' must be a non-empty string", and the warning that
    would name "ID" never came, as the id is read first (a QA pass)."""
    if key not in obj and (other := _in_another_case(obj, key)) is not None:
        raise CorpusError(path, lineno, f"{other!r} is no field: did you mean {key!r}? (a field's name is lower case)")


def _not_a_number(value: Any) -> str:
    """Return what to add to "must be a string" for a number: {"id": 5} said only "'id' must be a
    non-empty string" (a QA pass), where it is the quotes that are missing."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f", not the number {value!r}: quote it (\"{value!r}\")"
    return ""


def facet_value_problem(key: str, value: str) -> str | None:
    """Return why *value* (read as a request's filter is: ``normal_text``) cannot be a value of facet
    *key* ("topics", "entities"), or None: a comma splits it, . and .. are folders in a guide's URL,
    past FACET_VALUE_MAX_CHARS no filter can ask for it."""
    if "," in value:
        return f"{key!r} values may not contain a comma"
    if key == "topics" and value in (".", ".."):  # as an id: part of its guide's URL
        return "a topic cannot be . or ..: browsers read /guides/. and /guides/.. as folders"
    if len(value) > FACET_VALUE_MAX_CHARS:
        return (f"{key!r} value {value[:20]!r}… is {len(value):,} characters long; the limit is {FACET_VALUE_MAX_CHARS}, "
                "as a filter's value (?topic=…, ?entity=…)")
    return None


def _string_list(obj: dict[str, Any], key: str, path: Path, lineno: int, required: bool) -> tuple[str, ...]:
    value = obj.get(key)
    if value is None and not required:  # left out or null, as an optional url or published may be
        value = []
    if (isinstance(value, list) and len(value) > FACET_VALUES_MAX_PER_RECORD  # before each is made plain text
            and len(distinct := {v for v in value if isinstance(v, str)}) > RAW_FACET_VALUES_MAX):  # a value repeated is one
        _too_many(key, len(distinct), path, lineno)
    # Plain text as a title is ("AT&amp;T" is "AT&T", tags stripped: a value is shown as a facet's
    # label), then composed, without invisible characters, spaces collapsed: as a request's filter is read.
    value = [normal_text(plain_text(v)) for v in value] if isinstance(value, list) and all(isinstance(v, str) for v in value) else None
    if value is not None and len(value) > FACET_VALUES_MAX_PER_RECORD and len(read := set(value)) > FACET_VALUES_MAX_PER_RECORD:
        _too_many(key, len(read), path, lineno)  # as the values read: "games" and "games\u200b" are one (a review)
    if required and (value is None or not value):
        _refuse_misnamed(obj, key, path, lineno)
    if value is None or not all(value):
        raise CorpusError(path, lineno, f"{key!r} must be a list of non-empty strings (of text once markup is removed)")
    for v in value:
        if (problem := facet_value_problem(key, v)) is not None:
            raise CorpusError(path, lineno, problem)
    if required and not value:
        raise CorpusError(path, lineno, f"{key!r} must name at least one topic")
    return tuple(dict.fromkeys(value))


def _too_many(key: str, count: int, path: Path, lineno: int) -> None:
    raise CorpusError(path, lineno, f"{key!r} lists {count:,} values; the limit is {FACET_VALUES_MAX_PER_RECORD} "
                                    "a record, as each is a filter's value and a chip on the record's hits")


def check_id(doc_id: str, path: Path, lineno: int) -> str:
    """Return *doc_id*, or raise CorpusError when it is too long, holds a control character or is . or .."""
    if len(doc_id) > ID_MAX_LENGTH:
        raise CorpusError(
            path, lineno,
            f"'id' is {len(doc_id):,} characters long; the limit is {ID_MAX_LENGTH}, "
            "as an id is part of its URL (/events/<id>)",
        )
    control = not doc_id.isprintable() and _CONTROL.search(doc_id)  # isprintable: the fast test
    if control:
        where = control.start() + 1
        raise CorpusError(path, lineno, f"'id' holds the control character {control[0]!r} at character {where}")
    # Past _string's strip, which takes a lone no-break space: an id of zero-width spaces ("\u200b")
    # made a document at /events/%E2%80%8B, shown as nothing (a QA pass).  Non-ASCII ids only, and
    # all() stops at the first character seen: the 64k load does not notice it.
    if not doc_id.isascii() and all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in doc_id):
        raise CorpusError(path, lineno, f"'id' {doc_id!r} holds only invisible characters: an id must have "
                                        "one that can be seen, as it is shown and is part of its URL (/events/<id>)")
    if doc_id in (".", ".."):  # a browser reads /events/. and /events/.. as folders, even encoded
        raise CorpusError(path, lineno, f"'id' {doc_id!r} cannot be part of a URL: browsers read it as a folder")
    return doc_id


def parse_line(obj: Any, path: Path, lineno: int, position: int) -> Record:
    """Return the record described by one decoded JSONL line."""
    if not isinstance(obj, dict):
        raise CorpusError(path, lineno, "expected a JSON object")
    if "delete" in obj and not isinstance(obj["delete"], bool):
        raise CorpusError(path, lineno, "'delete' must be true or false")
    if obj.get("delete") is True:  # an update reads delete lines before it parses records
        raise CorpusError(path, lineno, "a delete line belongs in a change file: run `topichub update` with it")
    doc_id = check_id(_string(obj, "id", path, lineno), path, lineno)
    if not obj.keys() <= FIELDS:
        _tell_unknown(obj, path, lineno)
    # One line: a tab, a line break or a run of spaces is one space (it is shown whole on one line).
    title = normal_text(plain_text(_string(obj, "title", path, lineno)))
    if not title:
        raise CorpusError(path, lineno, "'title' holds nothing but markup")
    if len(title) > TITLE_MAX_LENGTH:
        raise CorpusError(
            path, lineno,
            f"'title' is {len(title):,} characters long; the limit is {TITLE_MAX_LENGTH:,}, as a title is shown "
            "whole (put the rest in 'summary')",
        )
    summary = obj.get("summary")
    if not isinstance(summary, str):
        _refuse_misnamed(obj, "summary", path, lineno)
        raise CorpusError(path, lineno, f"'summary' must be a string{_not_a_number(summary)}")
    if len(summary) > RAW_SUMMARY_MAX_LENGTH:  # before sanitising: 5 MB of "&amp;" took over 13 minutes
        raise CorpusError(
            path, lineno,
            f"'summary' is {len(summary):,} characters long with its markup; the limit is {RAW_SUMMARY_MAX_LENGTH:,} "
            f"(and {SUMMARY_MAX_LENGTH:,} once plain)",
        )
    summary = plain_text(summary).strip()
    if len(summary) > SUMMARY_MAX_LENGTH:
        raise CorpusError(
            path, lineno,
            f"'summary' is {len(summary):,} characters long; the limit is {SUMMARY_MAX_LENGTH:,} (a document is "
            "served whole: split a longer text into several)",
        )
    topics = _string_list(obj, "topics", path, lineno, required=True)
    entities = _string_list(obj, "entities", path, lineno, required=False)
    extra = {}
    for key in _OPTIONAL_STRINGS:
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            raise CorpusError(path, lineno, f"{key!r} must be a string{_not_a_number(value)}")
        extra[key] = value
    if extra["url"] is not None:
        extra["url"] = _source_url(extra["url"], path, lineno)
    if extra["published"] is not None:
        try:
            extra["published"] = parse_iso(extra["published"])
        except ValueError as exc:
            raise CorpusError(path, lineno, f"'published' must be an ISO 8601 date or date-time: {exc}") from None
    kind = EVENT if obj.get("kind") is None else obj["kind"]  # null: left out, as for the other optional fields
    if kind == EVENT:
        return Event(
            id=doc_id, topic=topics[0], title=title, summary=summary, position=position,
            topics=topics, entities=entities, url=extra["url"], published=extra["published"],
        )
    if kind == GUIDE:
        return GuideSection(
            id=doc_id, topic=topics[0], heading=title, anchor=slugify(title),
            blocks=tuple(p for p in summary.split("\n") if p.strip()), order=position,
            topics=topics, entities=entities, published=extra["published"], source_url=extra["url"],
        )
    # Said in JSON, as the line wrote it: 'not True' and 'not None' were Python's words for true and null.
    raise CorpusError(path, lineno, f"'kind' must be {EVENT!r} or {GUIDE!r}, not {json.dumps(kind, ensure_ascii=False)[:60]}")


def _source_url(url: str, path: Path, lineno: int) -> str | None:
    """Return a record's url as kept: web or relative links only, javascript:, data: and the like
    dropped, and said once a file and scheme; also a "relative" one that names another host (``//host``,
    ``/\\host``: browsers read both as off-site); what a reader does not see as written (control
    characters, a line break, a right-to-left override) percent-encoded, as the JSON API gives it to
    clients that link it (QA pass AA: they were given raw)."""
    url = visible_url(url.strip())
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https") or (not scheme and not parts.netloc and not url.startswith(("//", "/\\", "\\"))):
        return url
    said = scheme or "//"
    if (path, f"url:{said}") not in _told:
        _told.add((path, f"url:{said}"))
        why = f"the scheme {scheme[:20]!r}" if scheme else "no scheme but another host (//…)"
        log.warning("%s:%d: 'url' with %s dropped (only http, https and relative links are kept)", path, lineno, why)
    return None


def _tell_unknown(obj: dict[str, Any], path: Path, lineno: int) -> None:
    """Warn of each field of *obj* that is not a record's, once per file and name."""
    for key in sorted(obj.keys() - FIELDS, key=str):
        if (path, key) not in _told:
            _told.add((path, key))
            meant = f": did you mean {key.lower()!r}?" if isinstance(key, str) and key.lower() in FIELDS else ""
            log.warning("%s:%d: unknown field %r ignored%s (a record's fields: %s)", path, lineno, key, meant,
                        ", ".join(sorted(FIELDS - {"delete"})))


def read_objects(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, decoded JSON) for each non-blank line of a JSONL (or .jsonl.gz) file."""
    lineno = 0
    try:
        with _open(path) as handle:
            for lineno, raw in enumerate(_lines(handle), start=1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:  # a UTF-16 file was "invalid UTF-8 at byte 1", not named
                    raise CorpusError(path, lineno, not_utf8(raw, exc, lineno == 1, "of the line")) from exc
                if lineno == 1 and line.startswith("\ufeff"):
                    line = line[1:]  # a byte-order mark, as many exports write one
                if not line.strip():
                    continue
                obj = _decode(line, path, lineno)
                if _SURROGATE_ESCAPE.search(line):
                    _refuse_surrogates(obj, path, lineno)
                yield lineno, obj
    except _LineTooLong:
        raise CorpusError(path, lineno + 1, f"the line is longer than {LINE_MAX_BYTES >> 20} MB, more than any "
                                            "record can be (a file without line breaks?)") from None
    except EOFError:
        raise CorpusError(path, lineno + 1, f"the compressed file ends early, after line {lineno}") from None
    except (OSError, zlib.error) as exc:
        if not lineno:
            raise CorpusError(path, None, f"cannot be read: {exc}") from exc
        raise CorpusError(path, lineno + 1, f"cannot be read after line {lineno}: {exc}") from exc


def not_utf8(raw: bytes, exc: UnicodeDecodeError, start: bool, within: str) -> str:
    """Return why *raw* (a file's bytes from its *start*, or a line's) is not UTF-8, as *exc* found: in
    UTF-16 or UTF-32 when it starts with their byte-order mark, else the byte (counted *within* the
    file or the line) and the reason.  Topic pages and guides say it as JSONL files do: a topic page
    saved as UTF-16 was ":1: is not valid UTF-8" (a QA pass)."""
    for bom, name in _OTHER_ENCODINGS:
        if start and raw.startswith(bom):
            return (f"the file is in {name}, not UTF-8 (it starts with {name}'s byte-order mark, "
                    f"{bom.hex(' ').upper()}): save it as UTF-8")
    return f"invalid UTF-8 at byte {exc.start + 1} {within} ({exc.reason})"


def _decode(line: str, path: Path, lineno: int) -> Any:
    """Return the JSON value of one line, or raise CorpusError at it."""
    if line.startswith("\ufeff"):  # the first line's is dropped: this one is further down (json.loads said it; decode does not)
        raise CorpusError(path, lineno, "a byte-order mark (U+FEFF) starts the line: only the file's "
                                        "first line may begin with one (files joined together?)")
    try:
        return _JSON.decode(line)
    except _NotJSON as exc:
        constant = next((found for found in _STRING_OR_CONSTANT.finditer(line) if found[1]), None)
        if constant is not None and str(exc).startswith(constant[1]):
            raise CorpusError(path, lineno, f"invalid JSON at column {constant.start(1) + 1}: {exc}") from None
        raise CorpusError(path, lineno, str(exc)) from None
    except json.JSONDecodeError as exc:
        if line.count("\x00") * 3 >= len(line):  # UTF-16 without a byte-order mark: a NUL beside each ASCII character
            raise CorpusError(path, lineno, "invalid JSON: every other byte of the line is NUL: the file looks like UTF-16 "
                                            "(without a byte-order mark), not UTF-8: save it as UTF-8") from exc
        if "\r" in line.rstrip("\r\n") and exc.msg == "Extra data":  # "Extra data at column 61" named no cause
            raise CorpusError(path, lineno, "invalid JSON: records are separated by carriage returns alone (old Mac "
                                            "line ends): end each line with a line feed, \\n or \\r\\n") from exc
        # "Unterminated string starting at" ends where the column goes.
        raise CorpusError(path, lineno, f"invalid JSON: {exc.msg.removesuffix(' at')} at column {exc.colno}") from exc
    except RecursionError:
        raise CorpusError(path, lineno, "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer past int()'s limit of digits: its advice was sys.set_int_max_str_digits()
        limit = sys.get_int_max_str_digits()
        for found in _STRING_OR_NUMBER.finditer(line):
            if found[1] and len(found[1]) > limit:
                raise CorpusError(path, lineno, f"a number of {len(found[1]):,} digits at column {found.start() + 1}: at "
                                                f"most {limit:,} can be read (quote it to keep it as text)") from exc
        raise CorpusError(path, lineno, f"invalid JSON: {exc}") from exc


def _refuse_surrogates(obj: Any, path: Path, lineno: int) -> None:
    """Raise CorpusError naming the first field of *obj* whose text (or key) holds a lone surrogate."""
    stack: list[tuple[str, Any]] = [("the line", obj)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            found = _SURROGATE.search(value)
            if found:
                raise CorpusError(
                    path, lineno,
                    f"{where} holds a lone surrogate (\\u{ord(found[0]):04x}): text must be valid Unicode to be stored",
                )
        elif isinstance(value, dict):
            for key, item in reversed(value.items()):
                name = repr(key) if where == "the line" else f"{where}[{key!r}]"
                stack.extend(((f"the key {name}", key), (name, item)))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", item) for i, item in reversed(list(enumerate(value))))


REPEATS_TOLD = 10  # lines repeating an id named (with the id's first line), per file; the rest counted


def load_jsonl(path: str | Path) -> Iterator[Record]:
    """Yield the records of a JSONL (or .jsonl.gz) file, in file order; warn of each id repeated
    (the later line replaces the earlier: the build counted them, and named no line to look at)."""
    path = Path(path)
    first: dict[str, int] = {}
    repeated = 0  # lines whose id an earlier line has
    ids: set[str] = set()  # those ids
    for position, (lineno, obj) in enumerate(read_objects(path), start=1):
        record = parse_line(obj, path, lineno, position)
        at = first.setdefault(record.id, lineno)
        if at != lineno:
            repeated += 1
            ids.add(record.id)
            if repeated <= REPEATS_TOLD:
                log.warning("%s:%d: id %r repeats line %d; the later line replaces it", path, lineno, record.id, at)
        yield record
    if repeated > REPEATS_TOLD:
        log.warning("%s: %d more lines repeat an id (%d lines repeat %d ids in all), each replacing the one before",
                    path, repeated - REPEATS_TOLD, repeated, len(ids))
