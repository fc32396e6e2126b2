"""The semantic signal: how close a document's meaning is to a query's, as a cosine in [-1, 1].

A query is embedded with the same packaged model as the documents (index/vectors.py); its nearest
documents are found over the snapshot's memory-mapped int8 vectors, which every worker shares.  The
signal is off when ``TOPICHUB_SEMANTIC=0``, when the snapshot was built without vectors (``topichub build --no-semantic``) or with another model: then ``vectors`` returns
None and ranking goes on with words alone.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from index import vectors as doc_vectors
from index.vectors import DocVectors
from search.snapshot import Snapshot

# Up to this many rows, every row gets its exact cosine (the hub, CISI): nothing is approximated.
EXACT_UP_TO = 2000
# Past it, two coarse passes over the sign bits pick the rows that get their exact cosine:
# EXACT_PER_RESULT per wanted neighbour (at least COARSE_MIN), out of the HAMMING_WIDEN times as many
# nearest by Hamming distance (with every row as near as the last of them).  The second pass lets
# half as many rows through as the Hamming distance alone did and still keeps more of the true
# nearest: at 64k Debian documents and k=100, 92.5 of the exact 100 against 90 for the 2,000 best by
# Hamming distance (docs/performance.md, issue 17).  With
# int8 rows the exact cosines are cheap (1,000 rows: 0.12 ms), but more of them buy little: 94.6 of
# 100 for 2,000 rows out of 6,000, at 0.3 ms more a query.
EXACT_PER_RESULT = 10
COARSE_MIN = 1000
HAMMING_WIDEN = 3
_FAR = doc_vectors.DIM + 1  # a distance no row with a vector reaches: holes go last
_WEIGHT_BITS = 3  # the second pass weighs each dimension by |query| in eighths of its largest
_PLANE_SHIFTS = np.arange(_WEIGHT_BITS, dtype=np.uint8)[:, None]


def enabled() -> bool:
    """Return whether the semantic signal is switched on."""
    return doc_vectors.enabled()


def vectors(snap: Snapshot) -> DocVectors | None:
    """Return *snap*'s document vectors, or None when the signal is off or the snapshot has none."""
    return snap.vectors if enabled() else None


def query_vector(text: str) -> np.ndarray | None:
    """Return *text*'s unit vector (float32), or None when it has no words or the signal is off."""
    if not enabled():
        return None
    vector = doc_vectors.encoder().embed_one(text)
    return vector if vector.any() else None


def of_document(docs: DocVectors, docnum: int) -> np.ndarray | None:
    """Return document *docnum*'s unit vector (float32), or None when it has none."""
    if not (0 <= docnum < len(docs.live)) or not docs.live[docnum]:
        return None
    row = docs.matrix[docnum].astype(np.float32)
    norm = float(np.linalg.norm(row))
    return row / norm if norm else None


def nearest(docs: DocVectors, query: np.ndarray, k: int, among: Collection[int] | None = None) -> list[tuple[int, float]]:
    """Return the *k* documents (docnum, cosine) nearest to *query*, best first; only *among* if given.

    An exact cosine for every row reads all 16 MB of them at 64k documents, so past EXACT_UP_TO rows
    the Hamming distance of the sign bits to the query's (2 MB, read in about 0.2 ms) keeps a few
    thousand rows, the same bits weighed by the query's magnitudes keep a third of those, and only
    these get their exact cosine.
    """
    if k <= 0:
        return []
    if among is None:
        candidates = None  # every row
        count = len(docs.live)
    else:
        candidates = np.fromiter((d for d in among if 0 <= d < len(docs.live)), dtype=np.int64)
        candidates = np.unique(candidates[docs.live[candidates]])
        count = len(candidates)
    exact = max(COARSE_MIN, EXACT_PER_RESULT * k)
    if count > max(EXACT_UP_TO, exact):
        query_signs = doc_vectors.sign_bits(query)
        rough = HAMMING_WIDEN * exact
        if count > rough:
            distance = _hamming(docs.signs if candidates is None else _columns(docs.signs, candidates), query_signs)
            if candidates is None:
                distance[docs.holes] = _FAR
            top = _within(distance, rough)
            candidates = top if candidates is None else candidates[top]
        elif candidates is None:
            candidates = np.arange(count)
        weighted = _weighted_distance(_columns(docs.signs, candidates), query, query_signs)
        if len(candidates) > exact:
            candidates = np.sort(candidates[np.argpartition(weighted, exact - 1)[:exact]])  # in order: one pass over the file
    elif candidates is None:
        if docs.small is not None:  # every live row, converted once for the snapshot
            return _best(docs.small.docnums, doc_vectors.live_cosines(docs.small.floats, docs.small.lengths, query), k)
        candidates = np.flatnonzero(docs.live)
    candidates = candidates[docs.live[candidates]]
    return _best(candidates, _cosines(docs, query, candidates), k)


def _best(candidates: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Return the *k* (docnum, cosine) of *candidates* with the best *scores*, best first."""
    if len(candidates) > k:
        top = np.argpartition(-scores, k - 1)[:k]
        candidates, scores = candidates[top], scores[top]
    order = np.lexsort((candidates, -scores))  # ties go to the lower document number
    # tolist gives the same ints and floats as int() and float() of each element, in one call.
    return list(zip(candidates[order].tolist(), scores[order].tolist()))


def _within(distance: np.ndarray, count: int) -> np.ndarray:
    """Return, in order, the positions whose *distance* is at most the *count*-th smallest one (ties included)."""
    # np.partition finds that distance among 64k uint16 values in a copy of them (0.02 ms), without
    # argpartition's 512 KB of int64 positions (0.11 ms); one pass then keeps every row that near.
    cut = np.partition(distance, count - 1)[count - 1]
    return np.flatnonzero(distance <= cut)


def _columns(signs: np.ndarray, docnums: np.ndarray) -> np.ndarray:
    """Return the sign bits of rows *docnums*, word-major as *signs* holds them."""
    return np.take(signs, docnums, axis=1)  # half the time of signs[:, docnums] (3,400 rows: 0.019 against 0.038 ms)


def _hamming(signs: np.ndarray, query_signs: np.ndarray, block: int = 16384) -> np.ndarray:
    """Return the number of sign bits each column of *signs* (one row per 64-bit word) differs from *query_signs* in."""
    # Word-major, so each step runs over a contiguous row (0.62 -> 0.20 ms at 64k documents, against
    # columns of a document-major array); a block at a time, so the temporaries stay in the cache and
    # out of fresh pages; uint16, half the bytes of int32 for _within to partition.
    total = np.empty(signs.shape[1], dtype=np.uint16)
    for lo in range(0, len(total), block):
        out = total[lo : lo + block]
        np.add(np.bitwise_count(signs[0, lo : lo + block] ^ query_signs[0]),
               np.bitwise_count(signs[1, lo : lo + block] ^ query_signs[1]), out=out, dtype=np.uint16)
        for word in range(2, len(signs)):
            out += np.bitwise_count(signs[word, lo : lo + block] ^ query_signs[word])
    return total


def _weighted_distance(signs: np.ndarray, query: np.ndarray, query_signs: np.ndarray) -> np.ndarray:
    """Return, for each column of *signs*, the sum of |query| over the dimensions whose sign differs.

    |query| is rounded to _WEIGHT_BITS bits, each bit a plane of the same packing as the sign bits,
    so the sum is popcounts.  It orders rows by cosine far better than the plain Hamming distance:
    a dimension where the query is near zero no longer counts as much as one where it is large.
    """
    magnitude = np.abs(query)
    weight = np.rint(magnitude / (magnitude.max() or 1.0) * (2**_WEIGHT_BITS - 1)).astype(np.uint8)
    planes = np.packbits((weight >> _PLANE_SHIFTS) & 1, axis=-1).view(np.uint64)  # (bits, words)
    differing = signs ^ query_signs[:, None]
    # A word of every plane at a time, each a contiguous row (3,400 rows: 0.095 -> 0.07 ms, against a
    # call per plane and word; one broadcast over all of them took twice as long).
    counts = np.bitwise_count(differing[0] & planes[:, :1]).astype(np.uint16)  # (bits, rows)
    for word in range(1, len(differing)):
        counts += np.bitwise_count(differing[word] & planes[:, word : word + 1])
    total = counts[0].astype(np.int32)
    for shift in range(1, len(planes)):
        total += counts[shift].astype(np.int32) << shift
    return total


def _cosines(docs: DocVectors, query: np.ndarray, docnums: np.ndarray) -> np.ndarray:
    """Return the cosines of *query* with the live rows *docnums*."""
    # np.take copies whole rows, faster than fancy indexing (1,000 rows: 0.044 against 0.057 ms cold).
    return doc_vectors.live_cosines(np.take(docs.matrix, docnums, axis=0), docs.lengths[docnums], query)
