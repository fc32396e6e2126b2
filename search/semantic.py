"""The semantic signal: how close a document's meaning is to a query's, as a cosine in [-1, 1].

A query is embedded with the same packaged model as the documents (index/vectors.py); its nearest
documents are found over the snapshot's memory-mapped int8 vectors, which every worker shares.  The signal is off when ``TOPICHUB_SEMANTIC=0``, when the snapshot was built
without vectors (``topichub build --no-semantic``) or with another model: then ``vectors`` returns
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
# EXACT_PER_RESULT per wanted neighbour (at least COARSE_MIN), out of HAMMING_WIDEN times as many
# kept by the first pass.  The exact cosines cost most (numpy turns float16 into float32 at about
# 0.3 µs a row here), so the second pass lets half as many rows through as the Hamming distance alone
# did and still keeps more of the true nearest: at 64k Debian documents and k=100, 92 of the exact
# 100 against 90 for the 2,000 best by Hamming distance (docs/performance.md, issue 17).
EXACT_PER_RESULT = 10
COARSE_MIN = 1000
HAMMING_WIDEN = 3
_FAR = 1 << 16  # a distance no row with a vector reaches: holes go last
_WEIGHT_BITS = 3  # the second pass weighs each dimension by |query| in eighths of its largest
_PLANE_SHIFTS = np.arange(_WEIGHT_BITS, dtype=np.uint8)[:, None]
_PLANE_VALUES = (1 << np.arange(_WEIGHT_BITS)).astype(np.int32)


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


def nearest(docs: DocVectors, query: np.ndarray, k: int, among: Collection[int] | None = None) -> list[tuple[int, float]]:
    """Return the *k* documents (docnum, cosine) nearest to *query*, best first; only *among* if given.

    A float16 product over every row costs tens of ms at 64k documents, so past EXACT_UP_TO rows
    the Hamming distance of the sign bits to the query's (2 MB, read in about 0.5 ms) keeps a few
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
            distance = _hamming(docs.signs if candidates is None else docs.signs[candidates], query_signs)
            if candidates is None:
                distance[docs.holes] = _FAR
            top = np.argpartition(distance, rough - 1)[:rough]
            candidates = top if candidates is None else candidates[top]
        elif candidates is None:
            candidates = np.arange(count)
        weighted = _weighted_distance(docs.signs[candidates], query, query_signs)
        candidates = np.sort(candidates[np.argpartition(weighted, exact - 1)[:exact]])  # in order: one pass over the file
    elif candidates is None:
        candidates = np.flatnonzero(docs.live)
    candidates = candidates[docs.live[candidates]]
    scores = _cosines(docs, query, candidates)
    if len(candidates) > k:
        top = np.argpartition(-scores, k - 1)[:k]
        candidates, scores = candidates[top], scores[top]
    order = np.lexsort((candidates, -scores))  # ties go to the lower document number
    return [(int(candidates[i]), float(scores[i])) for i in order]


def _hamming(signs: np.ndarray, query_signs: np.ndarray, block: int = 8192) -> np.ndarray:
    """Return the number of sign bits each row of *signs* differs from *query_signs* in."""
    # A block at a time, so the temporaries stay in the cache and out of fresh pages; int32, as
    # argpartition is five times slower on uint16 (0.34 against 0.07 ms at 64k rows).
    total = np.empty(len(signs), dtype=np.int32)
    for lo in range(0, len(signs), block):
        differing = np.bitwise_count(signs[lo : lo + block] ^ query_signs)  # uint8 per 64-bit word
        out = total[lo : lo + block]
        np.add(differing[:, 0], differing[:, 1], out=out, dtype=np.int32)
        for word in range(2, differing.shape[1]):  # column adds: several times faster than sum(axis=1)
            out += differing[:, word]
    return total


def _weighted_distance(signs: np.ndarray, query: np.ndarray, query_signs: np.ndarray) -> np.ndarray:
    """Return, for each row of *signs*, the sum of |query| over the dimensions whose sign differs.

    |query| is rounded to _WEIGHT_BITS bits, each bit a plane of the same packing as the sign bits,
    so the sum is popcounts.  It orders rows by cosine far better than the plain Hamming distance:
    a dimension where the query is near zero no longer counts as much as one where it is large.
    """
    magnitude = np.abs(query)
    weight = np.rint(magnitude / (magnitude.max() or 1.0) * (2**_WEIGHT_BITS - 1)).astype(np.uint8)
    planes = np.packbits((weight >> _PLANE_SHIFTS) & 1, axis=-1).view(np.uint64)  # (bits, words)
    counts = np.bitwise_count((signs ^ query_signs)[:, None, :] & planes)  # (rows, bits, words) uint8
    return np.einsum("ijk,j->i", counts, _PLANE_VALUES, dtype=np.int32, casting="unsafe")


def _cosines(docs: DocVectors, query: np.ndarray, docnums: np.ndarray) -> np.ndarray:
    """Return the cosines of *query* with rows *docnums* (a zero row gives 0.0)."""
    return doc_vectors.cosines(docs.matrix[docnums], query)
