"""The one seam to Whoosh's private internals, pinned to Whoosh 2.7.4.

Three speed-ups reach below Whoosh's public API: reading a term's postings (``read_postings``), or
its positions in some documents (``read_positions``), a block at a time; reading a segment's
field-length column as raw bytes (``length_bytes``) and BM25F's per-posting arithmetic
(``bm25_posting_score``, or ``bm25_posting_scores`` over arrays) for the per-snapshot score cache;
and writing W3 segments directly (index/segment.py: the term-info and numeric-field structs).  Every
private name they use is read here and nowhere else, so a Whoosh upgrade is checked in one place:
``check_version`` refuses any version but the pinned one (tests/test_whoosh_compat.py), and the
equivalence tests (tests/test_scoring.py, tests/test_fast_build.py) compare each shortcut with
Whoosh's own public path.
"""

from __future__ import annotations

import pickle
import struct
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate, compress

import numpy as np
import whoosh
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3TermInfo, _lenfield
from whoosh.formats import Positions
from whoosh.matching.wrappers import FilterMatcher
from whoosh.scoring import BM25FScorer
from whoosh.system import _INT_SIZE

PINNED = (2, 7, 4)

# W3's on-disk term-info record (index/segment.py writes it directly).
TERM_INFO_STRUCT: struct.Struct = W3TermInfo._struct


# What a W3 posting matcher has that lets its blocks be read whole.
BLOCK_READER = ("_read_data", "_data", "_byteids", "_read_weights", "_read_values", "_next_block", "_maxid")


class Unsupported(Exception):
    """This index or query needs Whoosh's own (public, slower) path."""


def check_version(version: tuple[int, ...] = tuple(whoosh.__version__[:3])) -> None:
    """Raise RuntimeError unless *version* is the Whoosh this seam was written and tested against."""
    if tuple(version[:3]) != PINNED:
        raise RuntimeError(
            f"Whoosh {'.'.join(map(str, version))} is installed; index/whoosh_compat.py reads private "
            f"internals of Whoosh {'.'.join(map(str, PINNED))}: pin it, or check the seam and its tests"
        )


check_version()


def numeric_struct(field) -> struct.Struct:
    """Return a NUMERIC field's packing struct (how Whoosh stores its sortable value)."""
    return field._struct


def bm25_posting_score(scorer, weight: float, length: int) -> float:
    """Return BM25F's score of one posting (*weight* in a field *length* long), as Whoosh computes it."""
    return scorer._score(weight, length)


def bm25_posting_scores(scorer, weights: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """Return BM25F's score of each posting (*weights* in fields *lengths* long, float64 arrays), the
    floats Whoosh's ``bm25()`` gives one at a time; None when *scorer* is not Whoosh's BM25F scorer.

    Each of ``bm25()``'s operations is one correctly rounded IEEE operation on doubles, done here in
    the same order over the arrays, so every score is the same float (tests/test_scoring.py).
    """
    if type(scorer)._score is not BM25FScorer._score:
        return None
    idf, avgfl, b, k1 = scorer.idf, scorer.avgfl, scorer.B, scorer.K1
    # bm25(idf, tf, fl, avgfl, B, K1) = idf * ((tf * (K1 + 1)) / (tf + K1 * ((1 - B) + B * fl / avgfl)))
    return idf * ((weights * (k1 + 1)) / (weights + k1 * ((1 - b) + b * lengths / avgfl)))


def field_bs(weighting) -> tuple[tuple[str, float], ...]:
    """Return a BM25F weighting's per-field B values."""
    return tuple(sorted(weighting._field_B.items()))


def read_postings(reader, fieldname: str, text: str | bytes, weights: bool = False) -> tuple[list[int], list[float]]:
    """Return a segment's live documents holding a term (its own numbers) and, if asked, their weights.

    Whoosh 2.7's block reader decodes a block's ids (and weights) at once, several times faster than
    stepping a matcher through them one call at a time; other readers are stepped.
    """
    matcher = reader.postings(fieldname, text)
    if type(matcher) is FilterMatcher:  # the segment's deletions, filtered below
        matcher = matcher.child
    ids: list[int] = []
    found: list[float] = []
    if all(hasattr(matcher, name) for name in BLOCK_READER):
        while matcher.is_active():
            ids.extend(_block_ids(matcher))
            if weights:
                matcher._read_weights()
                found.extend(matcher._weights)
            matcher._next_block()
    else:
        while matcher.is_active():
            ids.append(matcher.id())
            if weights:
                found.append(matcher.weight())
            matcher.next()
    if reader.has_deletions():
        live = [not reader.is_deleted(i) for i in ids]
        ids = list(compress(ids, live))
        found = list(compress(found, live)) if weights else found
    return ids, found


def read_positions(reader, fieldname: str, text: bytes, wanted: list[int]) -> dict[int, list[int]]:
    """Return a term's positions in each of *wanted* (a segment's own live document numbers, ascending)
    that holds it, reading only the posting blocks that can hold one of them."""
    matcher = reader.postings(fieldname, text)
    if type(matcher) is FilterMatcher:  # deletions: none of *wanted* is deleted
        matcher = matcher.child
    decode = positions_decoder(reader.schema[fieldname].format)  # what value_as("positions") calls, or its equal
    found: dict[int, list[int]] = {}
    if not all(hasattr(matcher, name) for name in BLOCK_READER):
        for docnum in wanted:
            if not matcher.is_active():
                break
            if matcher.id() < docnum:
                matcher.skip_to(docnum)
            if matcher.is_active() and matcher.id() == docnum:
                found[docnum] = matcher.value_as("positions")
        return found
    wanted_set = set(wanted)
    # A common word's values repeat (one position, the same few): four in five of the 150,000 that
    # "of the" reads at 64k.  Each is decoded once; the lists are shared, read and never changed.
    decoded: dict[bytes, list[int]] = {}
    i = 0
    while matcher.is_active() and i < len(wanted):
        if wanted[i] <= matcher._maxid:  # else no wanted document is in this block: its data stays unread
            matcher._read_values()
            for docnum, value in zip(_block_ids(matcher), matcher._values):
                if docnum in wanted_set:
                    positions = decoded.get(value)
                    if positions is None:
                        positions = decoded[value] = decode(value)
                    found[docnum] = positions
            i = bisect_right(wanted, matcher._maxid, i)
        matcher._next_block()
    return found


def positions_decoder(fmt) -> Callable[[bytes], list[int]]:
    """Return what turns a posting value of the field format *fmt* into its positions: for Whoosh's
    ``Positions``, its ``decode_positions`` with the deltas added in C (a common word's phrase at 64k
    decodes some 150,000 values), else the format's own."""
    return _decode_positions if type(fmt) is Positions else fmt.decode_positions


def _decode_positions(value: bytes) -> list[int]:
    """``Positions.decode_positions``: a count, then the pickled deltas (their STOP byte may be cut)."""
    if value[-1:] != b".":
        value += b"."
    return list(accumulate(pickle.loads(value[_INT_SIZE:])))


def _block_ids(matcher) -> Sequence[int]:
    """Return the document numbers of a W3 matcher's current block (``_read_ids``'s, its deltas added in C)."""
    if matcher._data is None:
        matcher._read_data()
    ids = matcher._data[0]
    return ids if matcher._byteids else list(accumulate(ids))


def length_bytes(reader, fieldname: str) -> bytes | None:
    """Return a segment's stored length byte of *fieldname* per document, or None if it has none."""
    cached_reader = getattr(getattr(reader, "_perdoc", None), "_cached_reader", None)
    if cached_reader is None:
        raise Unsupported(f"reader {type(reader).__name__}")
    column = cached_reader(_lenfield(fieldname), LENGTHS_COLUMN)
    if column is None:
        return None
    count = reader.doc_count_all()
    if getattr(column, "_fixedlen", None) == 1 and getattr(column, "_typecode", None) == "B":
        # One byte per document from the start of the column; documents past its end have the default 0.
        raw = bytes(column._dbfile.get(column._basepos, column._count))
        return raw[:count] + bytes(max(0, count - len(raw)))
    return bytes(column[i] for i in range(count))


def set_field_lengths(segment, lengths: dict[str, int]) -> None:
    """Record a written W3 segment's total field lengths (Whoosh's writer keeps them privately)."""
    segment._fieldlengths = lengths
