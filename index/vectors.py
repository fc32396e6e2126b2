"""Document vectors: what a document means, as one short unit vector per document in the snapshot.

The model is WordLlama's ``l2_supercat`` at 256 dimensions, a static embedding table (one vector per
token of Llama 2's vocabulary) that ships inside the ``wordllama`` wheel with its tokenizer, so
nothing is fetched at build or query time.  A text's vector is the mean of its tokens' vectors,
scaled to unit length; the text is split on white space first and each distinct word is tokenised
once, which is several times faster than tokenising whole texts and drops the line-break and
space-run tokens that carry no meaning.

On disk a snapshot holds, beside the Whoosh segments, ``vectors.npy`` (int8, one row per Whoosh
document number, each scaled so that its largest component is ±127 (see ``quantise``), all zero for a
deleted document or one without words), ``vectors-signs.npy`` (their sign bits, for a coarse first
pass), ``vectors-lengths.npy`` (float32, each row's length, which an exact cosine divides by) and
``vectors-ids.json`` (the document id of each row, null for a hole), which an update needs to carry
rows over when Whoosh renumbers documents.  ``snapshot.json`` records the model under
``"semantic"``; vectors of another model are not used (the service falls back to words alone and
``topichub serve`` rebuilds).
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import json
import os
import struct
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, count
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
LENGTHS_FILE = "vectors-lengths.npy"
SWITCH = "TOPICHUB_SEMANTIC"  # "0" turns the signal off, in builds and in the service
_BATCH_DOCS = 2048  # documents embedded at a time; 8192 took as long and 140 MB more at peak (64k Debian)
_QUANTISED_ROWS = 1024  # rows quantised at a time (quantise)
_MEASURED_ROWS = 1024  # rows measured at a time (measure): 64k rows in 5-8 ms, against 18 ms 4,096 at a time
_JOINED_WORDS = 256  # words tokenised in one string: longer strings cost more a piece (64k Debian)
# Words whose vectors a query encoder keeps (embed_one): 1 KB each, so at most some 4 MB a worker.
QUERY_WORDS_KEPT = 4096
# A snapshot of at most this many rows keeps its live rows as float32 (2 MB a worker at most): as many
# as search.semantic scores exactly for every query (EXACT_UP_TO), the hub's and CISI's.
FLOAT_ROWS_UP_TO = 2000
WORD_MARK = "\u2581"  # Llama's mark of a word's start, in place of the space before it


SWITCH_WORDS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def switch(raw: str | None) -> bool:
    """Return what ``TOPICHUB_SEMANTIC`` says (unset or empty: on), or raise ValueError for a word it
    does not know ("off" and "false" left the signal on, as only "0" was read)."""
    text = (raw or "").strip().lower()
    if not text:
        return True
    if text not in SWITCH_WORDS:
        raise ValueError(f"{SWITCH}={raw!r} must be 0 or 1 (false/true, no/yes and off/on are read too)")
    return SWITCH_WORDS[text]


def enabled() -> bool:
    """Return whether the semantic signal is switched on (``TOPICHUB_SEMANTIC``; on when it names
    nothing it knows: ``topichub serve`` refuses such a value before starting)."""
    try:
        return switch(os.environ.get(SWITCH))
    except ValueError:
        return True


@functools.cache
def model_info() -> dict[str, object]:
    """Return the model's name, package version and dimensions, as a snapshot records them."""
    return {
        "model": f"{MODEL_PACKAGE}/{MODEL_CONFIG}",
        "version": importlib.metadata.version(MODEL_PACKAGE),
        "dim": DIM,
        "dtype": "int8",  # float16 before: such a snapshot counts as another model's and is rebuilt
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


def _table_place(path: Path, key: str = "embedding.weight") -> tuple[int, tuple[int, int]]:
    """Return where tensor *key* of a safetensors file starts (bytes) and its shape; it must be float16."""
    with path.open("rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(length))
    entry = header[key]
    if entry["dtype"] != "F16":
        raise ValueError(f"{path}: {key} is {entry['dtype']}, expected F16")
    start, _ = entry["data_offsets"]
    rows, dim = entry["shape"]
    return 8 + length + start, (rows, dim)


class _TableRows:
    """Rows of the model's table read from its file one by one, for the few tokens of a query.

    A query touches a handful of rows, but through the mapping each costs a 4 KB page (8 rows) of the
    worker's resident memory, and over many queries most of the 16 MB table; read with pread, rows
    pass through the page cache only.  The descriptor is shared by forked workers (pread keeps no
    position).
    """

    def __init__(self, path: Path, offset: int, shape: tuple[int, int]) -> None:
        self.fd = os.open(path, os.O_RDONLY)
        self.offset = offset
        self.row_bytes = shape[1] * 2

    def read(self, ids: Sequence[int]) -> np.ndarray:
        """Return the float16 rows *ids*, in their order."""
        data = b"".join(os.pread(self.fd, self.row_bytes, self.offset + int(i) * self.row_bytes) for i in ids)
        return np.frombuffer(data, dtype=np.float16).reshape(len(ids), -1)


class Encoder:
    """Turn texts into unit vectors with the packaged WordLlama table.

    Bulk embedding (builds, in their own processes) reads the memory-mapped table; a single text
    (a query, in a web worker) reads its tokens' rows from the file instead (``_TableRows``).
    """

    def __init__(self, tokenizer: Tokenizer, table: np.ndarray, rows: _TableRows) -> None:
        self.tokenizer = tokenizer
        self.table = table
        self.rows = rows
        self.dim = table.shape[1]
        self._word_vectors: dict[str, np.ndarray] = {}  # embed_one's: a word's float32 vector (unscaled)
        # A word's first piece, and only it, starts with Llama's word mark: no piece holds the mark
        # after its first character unless it is all marks (checked by tests/test_vectors.py).
        pieces = tokenizer.get_vocab()
        self.starts_word = np.zeros(len(table), dtype=bool)
        self.starts_word[[n for piece, n in pieces.items() if piece.startswith(WORD_MARK) and n < len(table)]] = True

    @classmethod
    def load(cls) -> Encoder:
        """Load the packaged model from the installed wheel; never touches the network."""
        tokenizer_file, weights_file = model_files()
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        offset, shape = _table_place(weights_file)
        table = np.asarray(np.memmap(weights_file, dtype=np.float16, mode="r", offset=offset, shape=shape))  # a plain array over the mapping
        return cls(tokenizer, table, _TableRows(weights_file, offset, shape))

    def embed_one(self, text: str) -> np.ndarray:
        """Return *text*'s float32 unit vector (all zero without words); for short texts such as queries.

        The same vector as ``embed([text])[0]``: the sum of its words' vectors in order, each word's
        the sum of its pieces' rows in order.  A word's vector is kept (QUERY_WORDS_KEPT of them): a
        query never asked before is made of words asked before, and its vector is then a few sums,
        not a tokenizer call and a file read.
        """
        words = text.split()
        if not words:
            return np.zeros(self.dim, np.float32)
        known = self._word_vectors
        # This text's words' vectors, each read once from the shared map: another thread may empty it
        # between two look-ups (a KeyError, a 500, under threaded workers: a QA pass).
        have = {word: known.get(word) for word in words}
        missing = [word for word, vector in have.items() if vector is None]
        if missing:
            if len(known) + len(missing) > QUERY_WORDS_KEPT:
                known.clear()
            ids, starts = self._pieces_of(missing)
            rows = self.rows.read(ids).astype(np.float32)
            for word, lo, hi in zip(missing, starts[:-1], starts[1:]):
                have[word] = known[word] = rows[lo:hi].sum(axis=0)  # row after row, from the first, as embed's sparse product adds them
        vector = have[words[0]].copy()
        for word in words[1:]:
            vector += have[word]  # in order, as embed's sparse product adds them
        # np.linalg.norm's sum (embed's), to the last bit, without its checks (np.linalg.norm alone: 4 µs).
        norm = np.sqrt(np.add.reduce(vector * vector))
        if norm > 0:
            vector /= norm
        return vector

    def _pieces_of(self, words: list[str]) -> tuple[Sequence[int], Sequence[int]]:
        """Return ``tokenise(words)`` for a query's few words: one tokenizer call, split where a piece
        starts a word, without tokenise's array work (which costs more than the call for two words)."""
        if not any(WORD_MARK in word for word in words):
            # A word that is one piece of the vocabulary (two in three of a Debian query's words) is
            # tokenised as that piece (tests/test_vectors.py checks every such piece): looked up, it
            # spares the tokenizer call, 0.075 ms in a search, whose tables the search left out of the cache.
            whole = [self.tokenizer.token_to_id(WORD_MARK + word) for word in words]
            if None not in whole:
                return whole, range(len(words) + 1)
            ids = self.tokenizer.encode(" ".join(words), add_special_tokens=False).ids
            starts_word = self.starts_word
            starts = [at for at, piece in enumerate(ids) if starts_word[piece]]
            if len(starts) == len(words) and starts[0] == 0:
                starts.append(len(ids))
                return ids, starts
        return self.tokenise(words)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return one float32 unit row per text (all zero for a text without words).

        A text's row is the float32 sum of its words' vectors in order, each word's vector the
        float32 sum of its pieces' rows in order, scaled to unit length.
        """
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        words = _WordTable()  # one tokenisation per distinct word, for this call only
        batches = [words.number(texts[lo : lo + _BATCH_DOCS]) for lo in range(0, len(texts), _BATCH_DOCS)]
        pieces = words.pieces(self)
        for lo, (counts, numbers) in zip(range(0, len(texts), _BATCH_DOCS), batches):
            sums = _sum_words(pieces, counts, numbers)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            out[lo : lo + _BATCH_DOCS] = np.divide(sums, norms, out=sums, where=norms > 0)
        return out

    def tokenise(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Return the piece ids of *words*, all in one array, and where each word's pieces start (and end).

        Words are tokenised many at a time, joined by spaces, which gives each word the pieces it
        gets alone (no piece spans a word mark) several times faster than one call per word.  A word
        holding the mark itself is tokenised alone: its pieces could not be told from the next word's.
        """
        runs: list[str] = []
        alone: list[int] = []  # runs of one word that holds the mark
        lo = 0
        for n in [*(n for n, word in enumerate(words) if WORD_MARK in word), len(words)]:
            runs.extend(" ".join(words[i : min(i + _JOINED_WORDS, n)]) for i in range(lo, n, _JOINED_WORDS))
            if n < len(words):
                alone.append(len(runs))
                runs.append(words[n])
            lo = n + 1
        encoded = [e.ids for e in self.tokenizer.encode_batch_fast(runs, add_special_tokens=False)]
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        ids = np.fromiter(chain.from_iterable(encoded), dtype=np.int32, count=int(lengths.sum()))
        firsts = self.starts_word[ids]
        for run, start in zip(alone, (np.cumsum(lengths) - lengths)[alone]):
            firsts[start : start + lengths[run]] = False
            firsts[start] = True
        starts = np.flatnonzero(firsts)
        if len(starts) != len(words):  # a model whose pieces span words: this shortcut would not do
            raise ValueError(f"{len(words)} words were tokenised as {len(starts)}")
        return ids, np.append(starts, len(ids))


class _WordTable:
    """The distinct words of one Encoder.embed call, numbered in order of first sight."""

    def __init__(self) -> None:
        self.numbers: defaultdict[str, int] = defaultdict(count().__next__)  # a new word takes the next number

    def number(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Return each text's number of words and the numbers of all their words, text after text."""
        split = [text.split() for text in texts]
        counts = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
        numbers = np.fromiter(map(self.numbers.__getitem__, chain.from_iterable(split)), dtype=np.int32, count=int(counts.sum()))
        return counts, numbers

    def pieces(self, encoder: Encoder) -> _Pieces:
        """Return the pieces of every word numbered so far, with the float32 rows of those pieces."""
        ids, starts = encoder.tokenise(list(self.numbers))
        # Sparse products take float32: only the rows used are converted (the whole table is 32 MB).
        used = np.zeros(len(encoder.table), dtype=bool)
        used[ids] = True
        rows = encoder.table[used].astype(np.float32)
        return _Pieces(rows, (np.cumsum(used, dtype=np.int32) - 1)[ids], starts)


@dataclass(frozen=True, slots=True)
class _Pieces:
    """The pieces of numbered words: word *n*'s are rows[ids[starts[n]:starts[n + 1]]], in order."""

    rows: np.ndarray  # float32, one per distinct piece
    ids: np.ndarray
    starts: np.ndarray


def _sum_words(pieces: _Pieces, counts: np.ndarray, numbers: np.ndarray) -> np.ndarray:
    """Return the (unscaled) float32 sum of word vectors of each text, given its words' *numbers*.

    Both sums are sparse products whose rows add their terms one by one, in order, from zero: a 0/1
    matrix times the pieces' rows gives each distinct word's vector, a second times those each text's.
    Repeated words are repeated terms, never counts, so every row is the plain sum in text order.
    """
    if not len(numbers):
        return np.zeros((len(counts), pieces.rows.shape[1]), dtype=np.float32)
    seen = np.zeros(len(pieces.starts) - 1, dtype=bool)
    seen[numbers] = True
    distinct = np.flatnonzero(seen)
    local = np.empty(len(seen), dtype=np.int32)
    local[distinct] = np.arange(len(distinct), dtype=np.int32)
    starts = pieces.starts[distinct]
    lengths = pieces.starts[distinct + 1] - starts
    bounds = np.concatenate(([0], np.cumsum(lengths)))
    # Each distinct word's pieces, one after the other: position k of word i is ids[starts[i] + k].
    columns = pieces.ids[np.repeat(starts - bounds[:-1], lengths) + np.arange(bounds[-1])]
    word_vectors = _ones(columns, bounds, len(pieces.rows)) @ pieces.rows
    return _ones(local[numbers], np.concatenate(([0], np.cumsum(counts))), len(distinct)) @ word_vectors


def _ones(columns: np.ndarray, bounds: np.ndarray, width: int):  # -> scipy.sparse.csr_matrix
    """Return the 0/1 matrix whose row i holds a one at each of columns[bounds[i]:bounds[i + 1]], in order."""
    from scipy import sparse  # here: 22 MB and 0.17 s that a web worker, which never embeds in bulk, would pay

    return sparse.csr_matrix((np.ones(len(columns), dtype=np.float32), columns, bounds), shape=(len(bounds) - 1, width))


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

    matrix: np.ndarray  # (documents, dim) int8: a row is its vector's direction (quantise), or zero
    signs: np.ndarray  # (dim / 64, documents) uint64: the sign bits of each row, word-major, for a coarse first pass
    lengths: np.ndarray  # float32 per row: its length (measure), what a cosine divides by; 0.0 for a zero row
    live: np.ndarray  # bool per row: the row has a vector (not a hole, not a text without words)
    holes: np.ndarray  # the numbers of the rows without one (few: deleted documents, texts without words)
    small: LiveRows | None  # a small snapshot's live rows, ready for cosines (at most FLOAT_ROWS_UP_TO rows)

    @classmethod
    def of(cls, matrix: np.ndarray, signs: np.ndarray, lengths: np.ndarray | None = None) -> DocVectors:
        """Return the vectors of int8 *matrix* with its sign bits; its rows are measured unless *lengths* are given."""
        lengths = measure(matrix) if lengths is None else lengths
        live = lengths > 0
        small = LiveRows.of(matrix, lengths) if len(matrix) <= FLOAT_ROWS_UP_TO else None
        return cls(matrix=matrix, signs=signs, lengths=lengths, live=live, holes=np.flatnonzero(~live), small=small)


@dataclass(frozen=True, slots=True)
class LiveRows:
    """Every live row of a small snapshot as float32, with its length: a query there scores them all.

    Converting and measuring the same rows again for every query cost two thirds of the cosines
    of the hub's 57 documents (docs/performance.md, "The semantic signal's query side").
    """

    docnums: np.ndarray  # ascending
    floats: np.ndarray  # (rows, dim) float32: the int8 rows' values
    lengths: np.ndarray  # float32, each above zero

    @classmethod
    def of(cls, matrix: np.ndarray, lengths: np.ndarray) -> LiveRows:
        """Return the rows of *matrix* whose *lengths* are above zero."""
        docnums = np.flatnonzero(lengths > 0)
        return cls(docnums, matrix[docnums].astype(np.float32), lengths[docnums])


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
    """Return the sign bits (component above zero) of each row of *matrix* packed into uint64 words."""
    return np.packbits(np.asarray(matrix) > 0, axis=-1).view(np.uint64)


def quantise(rows: np.ndarray) -> np.ndarray:
    """Return float *rows* as int8 rows of the same directions, each scaled so its largest |component| is 127.

    The scale is not stored: a cosine divides by the int8 row's own length (``cosines``).  A unit
    row of 256 dimensions has its largest component near 0.2, so scaling each row to its own maximum
    keeps four times the precision of unit × 127 (at 64k Debian documents, cosines within 0.0032 of
    float16's against 0.012; docs/performance.md, issue 17).
    """
    out = np.empty(rows.shape, np.int8)
    # A block of rows at a time: each step's temporaries stay in the cache (1,024 rows: 1 MB).  With
    # whole-matrix ones (32 MB each for 32k rows) it took 0.03-0.05 s in a fresh process and up to
    # 0.2 s in a build, against 0.022 s.
    for lo in range(0, len(rows), _QUANTISED_ROWS):
        block = rows[lo : lo + _QUANTISED_ROWS]
        largest = np.abs(block).max(axis=1, keepdims=True)
        scaled = np.divide(block * np.float32(127), largest, out=np.zeros(block.shape, np.float32), where=largest > 0)
        out[lo : lo + _QUANTISED_ROWS] = np.rint(scaled).astype(np.int8)
    return out


def cosines(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Return the cosine of each int8 row of *rows* (from quantise) with the float32 unit *query*; 0.0 for a zero row."""
    lengths = measure(rows)
    dots = _dots(rows, query.astype(np.float32, copy=False))
    return np.divide(dots, lengths, out=np.zeros_like(dots), where=lengths > 0)


def live_cosines(rows: np.ndarray, lengths: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Return the cosines of int8 *rows* (or their float32 values), none all zero, of *lengths* with the float32 unit *query*."""
    # Dividing the dot products by the lengths, not the rows, costs half (1,000 rows: 0.12 against 0.27 ms).
    return _dots(rows, query) / lengths


def _dots(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Return the float32 dot product of each row of *rows* (int8 or float32) with float32 *query*."""
    # einsum, not @: OpenBLAS's threads make a small matrix-vector product a hundred times slower
    # on a busy machine (measured: 2,000 rows, 4.8 ms CPU against 0.2 ms); and every cosine is summed
    # in einsum's order, to the last bit.  It converts int8 rows a buffer at a time as it goes, to the
    # same sums as of a float32 copy (tests/test_vectors.py), without writing that copy (4 bytes a
    # component: 1 MB for 1,000 rows).
    return np.einsum("ij,j->i", rows, query, dtype=np.float32)


def measure(matrix: np.ndarray) -> np.ndarray:
    """Return the length of each int8 row of *matrix* as float32 (0.0 for a zero row), a block of rows at a time.

    Exact in any order of summing: the squares of an int8 row add up to an integer below 2**24
    (256 * 127**2), which float32 holds; vecdot takes 0.7 of einsum's time.
    """
    lengths = np.empty(len(matrix), dtype=np.float32)
    for lo in range(0, len(matrix), _MEASURED_ROWS):
        floats = matrix[lo : lo + _MEASURED_ROWS].astype(np.float32)
        lengths[lo : lo + _MEASURED_ROWS] = np.sqrt(np.vecdot(floats, floats))
    return lengths


def new_matrix(work: Path, rows: int) -> np.ndarray:
    """Create the vectors file of the snapshot in *work*, *rows* zero rows, and return it mapped for writing.

    The mapping is shared: indexing processes forked after this call fill their rows in place.
    """
    for name in (VECTORS_FILE, SIGNS_FILE, LENGTHS_FILE, IDS_FILE):
        (work / name).unlink(missing_ok=True)  # new files, never written through one an older snapshot shares
    matrix = np.lib.format.open_memmap(work / VECTORS_FILE, mode="w+", dtype=np.int8, shape=(rows, DIM))
    # The file is sparse: a row written to a page the disk has no room for killed the build with
    # SIGBUS ("Bus error", no message, a .tmp- folder left).  Its blocks taken now, a full disk is
    # an OSError here, which the build reports in one line and cleans up.
    with (work / VECTORS_FILE).open("r+b") as handle:
        os.posix_fallocate(handle.fileno(), 0, os.fstat(handle.fileno()).st_size)
    return matrix


def write(work: Path, ids: Sequence[str | None], matrix: np.ndarray) -> dict[str, object]:
    """Finish the vectors of *work*: *matrix* (from new_matrix) row *n* is document number *n*, of id ids[n].

    Write its sign bits, its rows' lengths and the ids; return the manifest entry.
    """
    matrix.flush()  # type: ignore[attr-defined]
    # Word-major: the first pass reads each 64-bit word of every row as one contiguous run.
    np.save(work / SIGNS_FILE, np.ascontiguousarray(sign_bits(matrix).T), allow_pickle=False)
    np.save(work / LENGTHS_FILE, measure(matrix), allow_pickle=False)
    (work / IDS_FILE).write_text(json.dumps(list(ids), separators=(",", ":")), encoding="utf-8")
    return {**model_info(), "rows": len(ids), "vectors": int(sum(i is not None for i in ids))}


def embed_records(records: Sequence[Record]) -> np.ndarray:
    """Return the stored (int8) vectors of *records*, one row each, in their order."""
    return quantise(encoder().embed([document_text(record) for record in records]))


def update(previous: Path, work: Path, recorded: object, upserts: Mapping[str, Record]) -> dict[str, object] | None:
    """Bring the vectors in *work* in step with its updated index; return the manifest entry.

    Rows of unchanged documents are carried over from *previous*; upserted documents, and every
    document when *previous* holds another model's vectors, are embedded.  A snapshot built
    without vectors stays without.
    """
    if not isinstance(recorded, dict):
        return None
    ids = _docnum_ids(work)
    matrix = new_matrix(work, len(ids))
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
        matrix[fresh] = quantise(encoder().embed(_texts(work, [(n, ids[n]) for n in fresh], upserts)))
    return write(work, ids, matrix)


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
    # The stored lengths tell the rows without a vector too, so opening reads 256 KB at 64k rows, not
    # the whole matrix (every page of it would count in each worker's resident memory from the
    # start).  A snapshot written before they were stored has its rows measured here (5–8 ms at 64k).
    lengths_file = path / LENGTHS_FILE
    lengths = np.asarray(np.load(lengths_file, mmap_mode="r", allow_pickle=False)) if lengths_file.exists() else measure(matrix)
    if matrix.shape != (rows, DIM) or matrix.dtype != np.int8 or signs.shape != (DIM // 64, rows) or lengths.shape != (rows,):
        raise ValueError(f"snapshot {path.name}: its vectors files do not hold {rows} rows of {DIM}")
    return DocVectors.of(matrix, signs, lengths)
