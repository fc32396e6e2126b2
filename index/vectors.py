"""Document vectors: what a document means, as one short unit vector per document in the snapshot.

The model is WordLlama's ``l2_supercat`` at 256 dimensions, a static embedding table (one vector per
token of Llama 2's vocabulary) that ships inside the ``wordllama`` wheel with its tokenizer, so
nothing is fetched at build or query time.  A text's vector is the mean of its tokens' vectors,
scaled to unit length; the text is split on white space first and each distinct word is tokenised
once, which is several times faster than tokenising whole texts and drops the line-break and
space-run tokens that carry no meaning.

On disk a snapshot holds, beside the Whoosh segments, ``vectors.npy`` (float16, one row per Whoosh
document number, all zero for a deleted document or one without words) and ``vectors-ids.json`` (the
document id of each row, null for a hole), which an update needs to carry rows over when Whoosh
renumbers documents.  ``snapshot.json`` records the model under ``"semantic"``; vectors of another
model are not used (the service falls back to words alone and ``topichub serve`` rebuilds).
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import json
import os
import struct
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer
from whoosh import index as whoosh_index

from corpus.records import Record

MODEL_PACKAGE = "wordllama"
MODEL_CONFIG = "l2_supercat"
DIM = 256
VECTORS_FILE = "vectors.npy"
SIGNS_FILE = "vectors-signs.npy"
IDS_FILE = "vectors-ids.json"
SWITCH = "TOPICHUB_SEMANTIC"  # "0" turns the signal off, in builds and in the service
_BATCH_DOCS = 2048  # documents embedded at a time; 8192 took as long and 140 MB more at peak (64k Debian)


def enabled() -> bool:
    """Return whether the semantic signal is switched on (``TOPICHUB_SEMANTIC`` is not "0")."""
    return os.environ.get(SWITCH, "1").strip() != "0"


@functools.cache
def model_info() -> dict[str, object]:
    """Return the model's name, package version and dimensions, as a snapshot records them."""
    return {
        "model": f"{MODEL_PACKAGE}/{MODEL_CONFIG}",
        "version": importlib.metadata.version(MODEL_PACKAGE),
        "dim": DIM,
        "dtype": "float16",
    }


def model_files() -> tuple[Path, Path]:
    """Return the tokenizer and weights files inside the installed wordllama package."""
    # find_spec does not run the package's __init__, which configures the root logger at INFO.
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"the {MODEL_PACKAGE} package is not installed")
    package = Path(next(iter(spec.submodule_search_locations)))
    # The wheel's folder is "tokenizers/": WordLlama.load() looks in "tokenizer/" and then downloads.
    return package / "tokenizers" / f"{MODEL_CONFIG}_tokenizer_config.json", package / "weights" / f"{MODEL_CONFIG}_{DIM}.safetensors"


def _map_safetensors(path: Path, key: str = "embedding.weight") -> np.ndarray:
    """Return tensor *key* of a safetensors file memory-mapped (read-only, shared between processes)."""
    with path.open("rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(length))
    entry = header[key]
    if entry["dtype"] != "F16":
        raise ValueError(f"{path}: {key} is {entry['dtype']}, expected F16")
    start, _ = entry["data_offsets"]
    return np.memmap(path, dtype=np.float16, mode="r", offset=8 + length + start, shape=tuple(entry["shape"]))


class Encoder:
    """Turn texts into unit vectors with the packaged WordLlama table (the table is memory-mapped)."""

    def __init__(self, tokenizer: Tokenizer, table: np.ndarray) -> None:
        self.tokenizer = tokenizer
        self.table = table
        self.dim = table.shape[1]

    @classmethod
    def load(cls) -> Encoder:
        """Load the packaged model from the installed wheel; never touches the network."""
        tokenizer_file, weights_file = model_files()
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        return cls(tokenizer, np.asarray(_map_safetensors(weights_file)))  # a plain array over the mapping

    def embed_one(self, text: str) -> np.ndarray:
        """Return *text*'s float32 unit vector (all zero without words); for short texts such as queries."""
        # Words joined by single spaces tokenise as the words one by one do (Llama's pieces never
        # span a space), in one call instead of embed's batch machinery.
        ids = self.tokenizer.encode(" ".join(text.split()), add_special_tokens=False).ids
        vector = self.table[ids].astype(np.float32).sum(axis=0) if ids else np.zeros(self.dim, np.float32)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else vector

    def embed(self, texts: Sequence[str], dtype: type = np.float32) -> np.ndarray:
        """Return one unit row per text (all zero for a text without words), float32 unless *dtype*."""
        out = np.zeros((len(texts), self.dim), dtype=dtype)
        words = _WordTable(self)  # one tokenisation per distinct word, for this call only
        for lo in range(0, len(texts), _BATCH_DOCS):
            sums = words.embed(texts[lo : lo + _BATCH_DOCS])
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            out[lo : lo + _BATCH_DOCS] = np.divide(sums, norms, out=sums, where=norms > 0)
        return out


class _WordTable:
    """The token ids of every distinct word seen by one Encoder.embed call."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder
        self.index: dict[str, int] = {}
        self.starts = array("q")
        self.lengths = array("q")
        self.tokens = array("q")

    def _learn(self, words: set[str]) -> None:
        new = [w for w in words if w not in self.index]
        # encode_batch_fast: no character offsets, which are not needed here.
        ids = [encoding.ids for encoding in self.encoder.tokenizer.encode_batch_fast(new, add_special_tokens=False)]
        lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        self.index.update(zip(new, range(len(self.starts), len(self.starts) + len(new))))
        self.starts.extend((np.cumsum(lengths) - lengths + len(self.tokens)).tolist())
        self.lengths.extend(lengths.tolist())
        self.tokens.extend(chain.from_iterable(ids))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return the (unscaled) sum of token vectors of each text."""
        split = [text.split() for text in texts]
        self._learn(set().union(*split))
        counts = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
        words = np.fromiter(map(self.index.__getitem__, chain.from_iterable(split)), dtype=np.int64, count=int(counts.sum()))
        sums = np.zeros((len(texts), self.encoder.dim), dtype=np.float32)
        if not len(words):
            return sums
        distinct, inverse = np.unique(words, return_inverse=True)
        tokens = np.frombuffer(self.tokens, dtype=np.int64)
        starts = np.frombuffer(self.starts, dtype=np.int64)[distinct]
        lengths = np.frombuffer(self.lengths, dtype=np.int64)[distinct]
        word_vectors = _segment_sums(self.encoder.table, tokens, starts, lengths)
        return _segment_sums(word_vectors, inverse, np.cumsum(counts) - counts, counts)


def _segment_sums(rows: np.ndarray, index: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Return, for each segment i, the float32 sum of rows[index[starts[i] + k]] for k < lengths[i].

    One vectorised step per position within a segment, over the segments still that long: they are
    taken longest first, so those are always a prefix (a slice, not a gather and scatter).  numpy's
    reduceat and add.at take several times longer on many short segments of 256-wide rows.
    """
    order = np.argsort(-lengths, kind="stable")
    starts, lengths = starts[order], lengths[order]
    sums = np.zeros((len(order), rows.shape[1]), dtype=np.float32)
    # How many segments are longer than each step: lengths are descending.
    longer = np.searchsorted(-lengths, -np.arange(int(lengths[0]) if len(lengths) else 0), side="left")
    for step, count in enumerate(longer):
        sums[:count] += rows[index[starts[:count] + step]]
    out = np.empty_like(sums)
    out[order] = sums
    return out


@functools.cache
def encoder() -> Encoder:
    """Return the process's encoder, loaded on first use (its table is shared through the page cache)."""
    return Encoder.load()


def document_text(record: Record) -> str:
    """Return the text of *record* that its vector stands for: title and body."""
    return f"{record.title}\n{record.body}"


# -- snapshots ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DocVectors:
    """A snapshot's document vectors, memory-mapped: row *n* is Whoosh document *n*."""

    matrix: np.ndarray  # (documents, dim) float16, unit rows or zero
    signs: np.ndarray  # (documents, dim / 64) uint64: the sign bits of each row, for a coarse first pass
    live: np.ndarray  # bool per row: the row has a vector (not a hole, not a text without words)
    holes: np.ndarray  # the numbers of the rows without one (few: deleted documents, texts without words)


def _docnum_ids(work: Path) -> list[str | None]:
    """Return the id of each Whoosh document number of the index in *work* (None for a deleted one)."""
    ix = whoosh_index.open_dir(str(work))
    try:
        with ix.searcher() as searcher:
            ids: list[str | None] = [None] * searcher.reader().doc_count_all()
            for leaf, offset in searcher.leaf_searchers():
                reader = leaf.reader()
                # An id is unique, so its term's first document is its only one: read from the term
                # table, without a postings reader per term (ten times faster at 64k documents).
                for term, info in reader.iter_field("id"):
                    text = term.decode("utf-8") if isinstance(term, bytes) else term
                    docnums = [info.min_id()] if info.doc_frequency() == 1 else list(reader.postings("id", term).all_ids())
                    for docnum in docnums:
                        if not reader.is_deleted(docnum):
                            ids[offset + docnum] = text
    finally:
        ix.close()
    return ids


def sign_bits(matrix: np.ndarray) -> np.ndarray:
    """Return the sign bits of each row of *matrix* packed into uint64 words."""
    return np.packbits(np.asarray(matrix) > 0, axis=-1).view(np.uint64)


def _write(work: Path, ids: list[str | None], matrix: np.ndarray) -> dict[str, object]:
    """Write the float16 *matrix* with its sign bits and row ids into *work*; return the manifest entry."""
    np.save(work / VECTORS_FILE, matrix, allow_pickle=False)
    np.save(work / SIGNS_FILE, sign_bits(matrix), allow_pickle=False)
    (work / IDS_FILE).write_text(json.dumps(ids, separators=(",", ":")), encoding="utf-8")
    return {**model_info(), "rows": len(ids), "vectors": int(sum(i is not None for i in ids))}


def write(work: Path, records: Sequence[Record], *, on: bool = True) -> dict[str, object] | None:
    """Embed *records* into the new index in *work*; return the manifest entry (None when switched off)."""
    if not (on and enabled()):
        return None
    ids = _docnum_ids(work)
    by_id = {record.id: record for record in records}
    # A hole (none in a fresh build) has no text, so a zero row; float16 rows halve the peak memory.
    texts = [document_text(by_id[doc_id]) if doc_id is not None else "" for doc_id in ids]
    return _write(work, ids, encoder().embed(texts, dtype=np.float16))


def update(previous: Path, work: Path, recorded: object, upserts: Mapping[str, Record]) -> dict[str, object] | None:
    """Bring the vectors in *work* in step with its updated index; return the manifest entry.

    Rows of unchanged documents are carried over from *previous*; upserted documents, and every
    document when *previous* holds another model's vectors, are embedded.  A snapshot built
    without vectors stays without.
    """
    if not isinstance(recorded, dict):
        return None
    ids = _docnum_ids(work)
    matrix = np.zeros((len(ids), DIM), dtype=np.float16)
    old = open_vectors(previous, {"semantic": recorded})
    old_row: dict[str, int] = {}
    if old is not None:
        old_ids = json.loads((previous / IDS_FILE).read_text(encoding="utf-8"))
        old_row = {doc_id: n for n, doc_id in enumerate(old_ids) if doc_id is not None}
    carried = [(n, old_row[doc_id]) for n, doc_id in enumerate(ids) if doc_id is not None and doc_id not in upserts and doc_id in old_row]
    if carried:
        dst, src = map(list, zip(*carried))
        matrix[dst] = old.matrix[src]  # type: ignore[union-attr]
    kept = {n for n, _ in carried}
    fresh = [n for n, doc_id in enumerate(ids) if doc_id is not None and n not in kept]
    if fresh:
        matrix[fresh] = encoder().embed(_texts(work, [(n, ids[n]) for n in fresh], upserts), dtype=np.float16)
    for name in (VECTORS_FILE, SIGNS_FILE, IDS_FILE):
        (work / name).unlink(missing_ok=True)  # write new files, never through one the old snapshot might share
    return _write(work, ids, matrix)


def _texts(work: Path, rows: list[tuple[int, str | None]], upserts: Mapping[str, Record]) -> list[str]:
    """Return the text of each (docnum, id): an upsert's from its record, any other from stored fields."""
    stored = [n for n, doc_id in rows if doc_id not in upserts]
    fields: dict[int, dict[str, object]] = {}
    if stored:  # only when the previous vectors are of another model
        ix = whoosh_index.open_dir(str(work))
        try:
            with ix.searcher() as searcher:
                fields = {n: searcher.stored_fields(n) for n in stored}
        finally:
            ix.close()
    return [
        document_text(upserts[doc_id]) if n not in fields else f"{fields[n].get('title', '')}\n{fields[n].get('body', '')}"
        for n, doc_id in rows  # type: ignore[index]
    ]


def same_model(recorded: object) -> bool:
    """Return whether a snapshot's recorded ``semantic`` entry is of the model installed here."""
    info = model_info()
    return isinstance(recorded, dict) and all(recorded.get(key) == value for key, value in info.items())


def open_vectors(path: Path, meta: Mapping[str, object]) -> DocVectors | None:
    """Map the vectors of the snapshot in *path*; None when it has none or they are of another model."""
    recorded = meta.get("semantic")
    if not same_model(recorded):
        return None
    rows = recorded["rows"]  # type: ignore[index]
    # Plain arrays over the mapped files (np.asarray drops np.memmap's per-operation overhead).
    matrix = np.asarray(np.load(path / VECTORS_FILE, mmap_mode="r", allow_pickle=False))
    signs = np.asarray(np.load(path / SIGNS_FILE, mmap_mode="r", allow_pickle=False))
    if matrix.shape != (rows, DIM) or matrix.dtype != np.float16 or signs.shape != (rows, DIM // 64):
        raise ValueError(f"snapshot {path.name}: {VECTORS_FILE} or {SIGNS_FILE} does not hold {rows} rows of {DIM}")
    # A row with a sign bit set is not zero; only the rows without one are read from the matrix, so
    # opening touches the 2 MB of sign bits, not the whole matrix (every page of it would count in
    # each worker's resident memory from the start).
    live = signs.any(axis=1)
    unsigned = np.flatnonzero(~live)
    live[unsigned] = matrix[unsigned].view(np.uint16).any(axis=1)  # all-negative rows, in theory
    return DocVectors(matrix=matrix, signs=signs, live=live, holes=np.flatnonzero(~live))
