"""A fast segment writer: documents in, one standard Whoosh 2.7 segment (W3 codec) out.

Whoosh's own ``SegmentWriter`` runs every token through a chain of generators, puts one tuple per
posting into a pool that it sorts, and at commit asks the file system, once per posting, whether a
length column exists.  This writer does the same work in bulk: index-mode analysis with
``TermAnalyzer`` (a cache per raw token and chunk); text fields kept as each document's term codes
and inverted at write time with numpy (``_TextInverter``), other fields' inverted lists appended in
document order; and posting blocks, term infos, length columns, stored fields and the sortable
columns written in the W3 codec's own layout,
so unmodified Whoosh reads the segment (and ``index/update.py`` keeps adding to it with Whoosh's
writer).  ``tests/test_fast_build.py`` checks that a reader sees the same index either way.
"""

from __future__ import annotations

import struct
from array import array
from collections import defaultdict
from hashlib import md5
from itertools import accumulate, chain, repeat
from operator import add, lt, sub
from pickle import dumps

import numpy as np
# ISA-L's deflate writes the zlib format (the reader's zlib.decompress reads it) 2-4x faster than zlib.
from isal.isal_zlib import compress as _compress
from whoosh import fields as wf
from whoosh import formats
from whoosh.codec import default_codec
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, WHOOSH3_HEADER_MAGIC, W3Codec, W3Segment
from whoosh.columns import VarBytesColumn
from whoosh.analysis import IDTokenizer, RegexTokenizer
from whoosh.fields import Schema
from whoosh.filedb.filestore import Storage
from whoosh.filedb.filetables import OrderedHashWriter
from whoosh.system import pack_byte, pack_int, pack_long, pack_uint, pack_ushort
from whoosh.util.numeric import _length_byte_cache, byte_to_length, length_to_byte, to_sortable

from index.whoosh_compat import TERM_INFO_STRUCT, numeric_struct, set_field_lengths

from index.analysis import TermAnalyzer, chain_language

BLOCK_LIMIT = 128  # postings per block, as W3Codec() writes them
# zlib level of the posting blocks: W3Codec() uses 3; 1 is ~12% faster on these blocks (~1.5 KB of
# pickled postings) for 3% more bytes.  The reader reads the level from each block's info.
COMPRESSION = 1
# zlib level of the stored fields (W3Codec() uses 3): ISA-L's level 0 (Huffman codes only) takes
# ~2 µs a Debian document for 570 bytes, its level 1 ~9 µs for 420 bytes, zlib's level 3 ~22 µs.
STORED_COMPRESSION = 0
# W3Codec() compresses every block, however small; a block of a few postings gets no smaller.
COMPRESS_FROM = 128  # bytes of pickled block data (a few postings with positions)
# Pickle protocol of the text fields' posting blocks.  W3Codec() writes protocol 2, where each bytes
# value (a posting's positions) becomes a call of codecs.encode on a str: 7x slower to write, 10x
# slower to read and twice as long as protocol 3's plain bytes.  The reader unpickles either.
BLOCK_PROTOCOL = 3
_PACK_INFO = TERM_INFO_STRUCT.pack
# A term info followed by its postings' offset and length (pack_long, pack_int), in one call.
_PACK_INFO_AT = struct.Struct(TERM_INFO_STRUCT.format + "qi").pack
_PACK_LENGTHS = struct.Struct("!ii").pack  # a key/value record of Whoosh's hash file


def _md5_hash(key: bytes) -> int:
    """Return Whoosh's ``md5_hash`` of *key* (the digest's last 32 bits) without a hex round trip."""
    return int.from_bytes(md5(key).digest()[12:], "big")


class _StoredColumn(VarBytesColumn):
    """The codec's stored-fields column: a pickled dict per document, each in its own zlib stream.

    The reader (CompressedBytesColumn.Reader) calls ``zlib.decompress`` on each document, which reads
    any level, stored (level-0) deflate blocks included: see STORED_COMPRESSION.
    """

    class Writer(VarBytesColumn.Writer):
        def add(self, docnum: int, v: object) -> None:
            VarBytesColumn.Writer.add(self, docnum, _compress(dumps(v, 2), STORED_COMPRESSION))


class UnknownField(ValueError):
    """A document names a field the schema does not have."""


class _TextField:
    """A TEXT field analysed by TermAnalyzer: weight = frequency × boost, value = encoded positions.

    Documents are kept as they come, as the analyzer's term codes one after another; they are
    inverted at write time in bulk (``_TextInverter``), not posting by posting.
    """

    __slots__ = ("name", "boost", "scorable", "lengths", "codes", "docs", "counts")

    def __init__(self, name: str, field: wf.FieldType) -> None:
        self.name = name
        self.boost = float(field.format.field_boost)
        self.scorable = field.scorable
        self.lengths: dict[int, int] = {}  # docnum -> field length, when not zero
        self.codes = array("i")  # TermAnalyzer.codes of each document with terms, one after another
        self.docs = array("i")  # those documents' numbers
        self.counts = array("i")  # and their numbers of codes

    @property
    def postings(self) -> bool:
        """Whether the field has any posting."""
        return bool(self.docs)


class _OtherField:
    """Any other indexed field: its postings are those of Whoosh's ``field.index(value)``."""

    __slots__ = ("name", "field", "boost", "scorable", "lengths", "postings", "items")

    def __init__(self, name: str, field: wf.FieldType) -> None:
        self.name = name
        self.field = field
        self.boost = 1.0  # the weight kept with each posting is already the final one
        self.scorable = field.scorable
        self.lengths: dict[int, int] = {}
        self.postings: dict[bytes, list] = {}  # term bytes -> flat [docnum, weight, value, docnum, ...]
        if isinstance(field, wf.NUMERIC) and not field.decimal_places:
            self.items = self._numeric
        elif isinstance(field, wf.ID) and type(field.analyzer) is IDTokenizer and type(field.format) is formats.Existence:
            self.items = self._id
        elif field.unique:
            self.items = self._index
        elif isinstance(field, wf.KEYWORD) and not field.scorable and _spaced(field.analyzer) and type(field.format) is formats.Frequency:
            self.items = self._words  # a name's words: a value of its own each document (no cache)
        else:
            self.items = self._cached({})  # values repeat (kinds, topics, entity lists)

    def _index(self, value: object) -> tuple:
        return tuple(self.field.index(value))

    def _cached(self, cache: dict):
        def items(value: object) -> tuple:
            try:
                found = cache.get(value)
            except TypeError:  # an unhashable value (a list)
                return self._index(value)
            if found is None:
                found = cache[value] = self._index(value)
            return found

        return items

    def _id(self, value: object) -> tuple:
        # IDTokenizer yields the whole value as one term; Existence gives it the field boost as weight.
        if not isinstance(value, str):
            return self._index(value)  # let Whoosh raise its own error
        return ((value.encode("utf-8"), 1, self.field.format.field_boost, b""),)

    def _words(self, value: object) -> tuple:
        # Whoosh's space tokenizer and Frequency: each distinct word once, its count packed, weight count times
        # the boost.  Words given once each, split at single spaces (``index.schema.name_words``), are
        # written here; any other value as Whoosh indexes it.  1.6 s of a 64k build's CPU through Whoosh.
        if not isinstance(value, str) or not value or "  " in value or value[0] == " " or value[-1] == " " \
                or "\t" in value or "\r" in value or "\n" in value:
            return self._index(value)
        words = value.split(" ")
        if len(set(words)) != len(words):
            return self._index(value)
        boost = self.field.format.field_boost
        return tuple((word.encode("utf-8"), 1, boost, _ONE) for word in words)

    def _numeric(self, value: object) -> tuple:
        # NUMERIC.index: the number at every shift of shift_step bits, weight 1.0, no value.
        field = self.field
        if not isinstance(value, int) or isinstance(value, bool):
            return self._index(value)
        x = to_sortable(field.numtype, field.bits, field.signed, field.prepare_number(value))
        pack = numeric_struct(field).pack
        if not field.shift_step:  # one term, at full precision
            return ((pack_byte(0) + pack(x), 1, 1.0, b""),)
        return tuple((pack_byte(shift) + pack(x >> shift), 1, 1.0, b"") for shift in range(0, field.bits, field.shift_step))


_ONE = pack_uint(1)  # Frequency's value of a word given once


def _spaced(analyzer: object) -> bool:
    """Return whether *analyzer* is Whoosh's KEYWORD tokenizer alone: words between spaces, tabs and line ends."""
    return type(analyzer) is RegexTokenizer and not analyzer.gaps and analyzer.expression.pattern == r"[^ \t\r\n]+"


def _fast_text(field: wf.FieldType) -> bool:
    return (
        isinstance(field, wf.TEXT)
        and type(field.format) is formats.Positions
        and not field.vector
        and not field.separate_spelling()
    )


class SegmentBuilder:
    """Collect documents and write them as one new segment of the index in *storage*."""

    def __init__(self, schema: Schema, storage: Storage, indexname: str = "MAIN", analyzer: TermAnalyzer | None = None) -> None:
        self.schema = schema
        self.storage = storage
        self.codec: W3Codec = default_codec()
        self.segment: W3Segment = self.codec.new_segment(storage, indexname)
        self.doccount = 0
        self._analyze = analyzer or TermAnalyzer(language=chain_language(schema["body"].analyzer))
        self._fields: dict[str, _TextField | _OtherField] = {}
        for name, field in schema.items():
            if field.indexed:
                self._fields[name] = _TextField(name, field) if _fast_text(field) else _OtherField(name, field)
        self._single: list[bytes] = []  # encoded single positions by position, shared by many postings
        self._many: dict[tuple[int, ...], bytes] = {}  # encoded position deltas, shared likewise
        self._lbytes: dict[str, np.ndarray] = {}  # field -> each document's length byte (0: none)
        self._columns: dict[str, tuple] = {}  # column name -> (file, writer)
        self._stored = self._column("_stored", _StoredColumn())
        self._plans: dict[tuple[str, ...], tuple] = {}  # the document's field names -> how to add each

    def _column(self, name: str, column: object):
        handle = self.storage.create_file(W3Codec.column_filename(self.segment, name))
        writer = column.writer(handle)  # type: ignore[attr-defined]
        self._columns[name] = (handle, writer)
        return writer

    def _plan(self, names: tuple[str, ...]) -> tuple:
        plan = []
        for name in sorted(names):  # Whoosh's writer takes the fields in name order
            if name.startswith("_"):
                raise UnknownField(f"field {name!r}: boosts and custom stored values are not supported here")
            if name not in self.schema:
                raise UnknownField(f"no field named {name!r} in the schema")
            field = self.schema[name]
            column = field.column_type
            if column and name not in self._columns:
                self._column(name, column)
            plan.append((name, field, self._fields.get(name), field.stored, field if column else None))
        return tuple(plan)

    def add(self, document: dict[str, object]) -> None:
        """Add *document* (field name -> value, as for ``IndexWriter.add_document``) as the next one."""
        docnum = self.doccount
        names = tuple(document)
        plan = self._plans.get(names)
        if plan is None:
            plan = self._plans[names] = self._plan(names)
        stored: dict[str, object] = {}
        for name, field, spec, is_stored, column_field in plan:
            value = document[name]
            if value is None:
                continue
            if spec is not None:
                if type(spec) is _TextField:
                    length = self._index_text(spec, docnum, value)
                else:
                    length = self._index_other(spec, docnum, value)
                if length:
                    spec.lengths[docnum] = length
            if is_stored:
                stored[name] = value
            if column_field is not None:
                self._columns[name][1].add(docnum, column_field.to_column_value(value))
        if stored:
            self._stored.add(docnum, stored)
        self.doccount += 1

    def _index_text(self, spec: _TextField, docnum: int, value: object) -> int:
        if not isinstance(value, str):
            raise ValueError(f"{value!r} is not a string")
        codes = self._analyze.codes(value)
        length = len(codes)  # a term at each position, and a token's parts at its position
        if length:
            spec.codes.extend(codes)
            spec.docs.append(docnum)
            spec.counts.append(length)
        return length if spec.scorable else 0

    def _index_other(self, spec: _OtherField, docnum: int, value: object) -> int:
        postings = spec.postings
        length = 0
        for tbytes, freq, weight, vbytes in spec.items(value):
            length += freq
            entry = postings.get(tbytes)
            if entry is None:
                postings[tbytes] = [docnum, weight, vbytes]
            else:
                entry += (docnum, weight, vbytes)
        return length if spec.scorable else 0

    def cancel(self) -> None:
        """Close the files written so far (the caller removes the unfinished index folder)."""
        for handle, _writer in self._columns.values():
            handle.close()
        self._columns.clear()

    def write(self) -> W3Segment:
        """Write the postings and close the columns; return the finished segment (not yet in a TOC)."""
        segment = self.segment
        doccount = self.doccount
        fieldlengths: defaultdict[str, int] = defaultdict(int)
        quantized: dict[str, dict[int, int]] = {}
        for name, spec in self._fields.items():
            if not spec.lengths:
                continue
            self._column(f"_{name}_len", LENGTHS_COLUMN)
            docnums = np.fromiter(spec.lengths.keys(), np.int64, len(spec.lengths))
            lengths = np.fromiter(spec.lengths.values(), np.int64, len(spec.lengths))
            fieldlengths[name] = int(lengths.sum())
            lbytes = self._lbytes[name] = np.zeros(doccount, np.uint8)
            lbytes[docnums] = _length_bytes(lengths)
            # The column as LENGTHS_COLUMN's writer leaves it, a document at a time: a byte per
            # document up to the last with a length byte (0 for those without), none after it.
            present = np.flatnonzero(lbytes)
            if len(present):
                self._columns[f"_{name}_len"][0].write(lbytes[: present[-1] + 1].tobytes())
            if type(spec) is _OtherField:  # what the reader's length column answers, for _TermEncoder
                quantized[name] = {docnum: byte_to_length(lbyte) for docnum, lbyte in zip(present.tolist(), lbytes[present].tolist())}
        for handle, writer in self._columns.values():
            writer.finish(doccount)
            handle.close()
        self._write_postings(quantized)
        segment.set_doc_count(doccount)
        set_field_lengths(segment, fieldlengths)
        return segment

    def _write_postings(self, quantized: dict[str, dict[int, int]]) -> None:
        """Write the posting blocks (.pst) and the term table (.trm) as W3FieldWriter would."""
        segment, storage = self.segment, self.storage
        tindex = _TermTable(segment.create_file(storage, W3Codec.TERMS_EXT))
        fieldmap: dict[str, int] = {}
        tindex.extras["fieldmap"] = fieldmap
        postfile = segment.create_file(storage, W3Codec.POSTS_EXT)
        offset = postfile.tell()
        for name in sorted(self._fields):  # fields get their numbers in name order, as in Whoosh
            spec = self._fields[name]
            if not spec.postings:
                continue
            prefix = pack_ushort(len(fieldmap))
            fieldmap[name] = len(fieldmap)
            if type(spec) is _TextField:
                lbytes = self._lbytes.get(name)
                if lbytes is None:
                    lbytes = np.zeros(self.doccount, np.uint8)
                inverter = _TextInverter(spec, self._analyze.terms, self._single, self._many, lbytes)
                names, postings, infos = inverter.terms(offset)
                postfile.write(postings)
                offset += len(postings)
                tindex.add_records([prefix + name for name in names], infos)
                continue
            terms = sorted(spec.postings.items())
            encoder = _TermEncoder(self.schema[name].format, spec.boost, quantized.get(name, {}))
            encode, encode_one = encoder.encode, encoder.encode_one
            chunks: list[bytes] = []
            for tbytes, entry in terms:
                if len(entry) == 3:  # one posting: most terms
                    blob, terminfo = encode_one(entry[0], entry[1], entry[2], offset)
                else:
                    blob, terminfo = encode(entry, offset)
                chunks.append(blob)
                offset += len(blob)
                tindex.add_record(prefix + tbytes, terminfo)
            postfile.write(b"".join(chunks))
        tindex.close()
        postfile.close()


class _TermTable(OrderedHashWriter):
    """Whoosh's ordered hash file (the term table), with the records kept and written in bulk."""

    def __init__(self, dbfile) -> None:
        super().__init__(dbfile)
        self._keys: list[bytes] = []
        self._values: list[bytes] = []

    def add_record(self, key: bytes, value: bytes) -> None:
        """Add *key* (greater than the last one) and *value*, as ``add`` does, without writing yet."""
        if key <= self.lastkey:
            raise ValueError(f"keys must increase: {self.lastkey!r}..{key!r}")
        self._keys.append(key)
        self._values.append(value)
        self.lastkey = key

    def add_records(self, keys: list[bytes], values: list[bytes]) -> None:
        """Add records as ``add_record`` does, *keys* in increasing order."""
        if keys:
            if keys[0] <= self.lastkey or not all(map(lt, keys, keys[1:])):
                raise ValueError(f"keys must increase, after {self.lastkey!r}")
            self._keys += keys
            self._values += values
            self.lastkey = keys[-1]

    def _write_hashes(self) -> None:
        # The records, as HashWriter.add writes them one by one: key and value lengths, key, value.
        keys, values, dbfile = self._keys, self._values, self.dbfile
        heads = list(map(_PACK_LENGTHS, map(len, keys), map(len, values)))
        sizes = map(add, map(len, heads), map(add, map(len, keys), map(len, values)))
        positions = list(accumulate(sizes, initial=dbfile.tell()))  # of each record, then the end
        dbfile.write(b"".join(chain.from_iterable(zip(heads, keys, values))))
        del positions[-1]
        if positions:
            self.index.append(positions[-1])  # the largest: sets the array's type once
            self.index.array[-1:] = array(self.index.array.typecode, positions)
        buckets = self.buckets
        for h, pos in zip(map(_md5_hash, keys), positions):
            buckets[h & 255].append((h, pos))
        self._keys, self._values = [], []
        # HashWriter._write_hashes, with each table packed in one call.
        for entries in self.buckets:
            numslots = 2 * len(entries)
            self.directory.append((dbfile.tell(), numslots))
            table = [0] * (2 * numslots)
            for hashval, position in entries:
                slot = (hashval >> 8) % numslots
                while table[2 * slot + 1]:  # a position is never 0: the file starts with a header
                    slot = (slot + 1) % numslots
                table[2 * slot] = hashval
                table[2 * slot + 1] = position
            if numslots:
                dbfile.write(struct.pack("!" + "Iq" * numslots, *table))


class _TermEncoder:
    """Encode one term's postings as W3PostingsWriter would: blocks of 128, then the term info."""

    def __init__(self, fmt: formats.Format, boost: float, qlens: dict[int, int]) -> None:
        fixedsize = fmt.fixed_value_size()
        self.values_kind = "tuple" if fixedsize is None or fixedsize < 0 else ("none" if fixedsize == 0 else "bytes")
        self.boost = boost
        self.qlens = qlens  # docnum -> field length as the length column gives it back (absent: none)
        self.lbytes = {docnum: length_to_byte(length) for docnum, length in qlens.items()}
        self.f32: dict[float, float] = {}  # weight -> the same weight as a float32 array holds it

    def encode_one(self, docnum: int, weight: float, value: bytes, start: int) -> tuple[bytes, bytes]:
        """Return the postings bytes and the term info of a term with one posting."""
        weight *= self.boost
        f32 = self.f32.get(weight)
        if f32 is None:
            f32 = self.f32[weight] = array("f", (weight,))[0]
        kind = self.values_kind
        if kind == "none":
            mini = None
        elif kind == "tuple":
            mini = (value,) if value else ()  # W3PostingsWriter keeps only non-empty values
        else:
            mini = value
        data = dumps(((docnum,), None if f32 == 1.0 else f32, mini), 2)
        comp = 0
        if len(data) >= COMPRESS_FROM:
            data, comp = _compress(data, COMPRESSION), COMPRESSION
        lbyte = self.lbytes.get(docnum, 0)
        if weight < 0:
            weight = 0
        info = dumps((1, docnum, weight, comp, lbyte, lbyte), 2)
        size = len(info) + len(data)
        blob = b"".join((WHOOSH3_HEADER_MAGIC, pack_int(-size), info, data))
        return blob, _PACK_INFO_AT(False, f32, 1, lbyte, lbyte, weight, docnum, docnum, start, size + 8)

    def encode(self, entry: list, start: int) -> tuple[bytes, bytes]:
        """Return the postings bytes of a term (flat [docnum, weight, value, ...]) and its term info."""
        boost, qlens = self.boost, self.qlens
        if len(entry) == 3:
            return self.encode_one(entry[0], entry[1], entry[2], start)
        docs, weights, values = entry[0::3], entry[1::3], entry[2::3]
        chunks = [WHOOSH3_HEADER_MAGIC]
        n = len(docs)
        total_weight = 0.0
        maxweight = 0
        minlength = None
        maxlength = 0
        kind = self.values_kind
        for lo in range(0, n, BLOCK_LIMIT):
            hi = lo + BLOCK_LIMIT
            ids = docs[lo:hi]
            count = len(ids)
            block_weights = array("f", map(boost.__mul__, weights[lo:hi]))
            block_max = max(weights[lo:hi]) * boost
            if block_max <= 0:
                block_max = 0
            total_weight += sum(block_weights)  # as W3TermInfo.add_block sums the float32 array
            if block_weights.count(1.0) == count:
                mini_weights = None
            elif block_weights.count(block_weights[0]) == count:
                mini_weights = block_weights[0]
            else:
                mini_weights = tuple(block_weights)
            deltas = (ids[0], *map(sub, ids[1:], ids))
            if kind == "none":
                mini_values = None
            elif kind == "tuple":
                mini_values = tuple(filter(None, values[lo:hi]))  # only non-empty values are kept
            else:
                mini_values = b"".join(values[lo:hi])
            data = dumps((deltas, mini_weights, mini_values), 2)
            comp = 0
            if len(data) >= COMPRESS_FROM:
                data, comp = _compress(data, COMPRESSION), COMPRESSION
            if qlens:
                lens = list(filter(None, map(qlens.get, ids)))
                bmin = min(lens) if lens else None
                bmax = max(lens) if lens else 0
            else:
                bmin, bmax = None, 0
            info = dumps((count, ids[-1], block_max, comp, length_to_byte(bmin), length_to_byte(bmax)), 2)
            size = len(info) + len(data)
            chunks += (pack_int(-size if hi >= n else size), info, data)
            if block_max > maxweight:
                maxweight = block_max
            if bmin is not None:
                minlength = bmin if minlength is None else min(minlength, bmin)
            if bmax > maxlength:
                maxlength = bmax
        blob = b"".join(chunks)
        terminfo = _PACK_INFO(
            False,
            total_weight,
            n,
            0 if minlength is None else length_to_byte(minlength),
            length_to_byte(maxlength),
            maxweight,
            docs[0],
            docs[-1],
        )
        return blob, terminfo + pack_long(start) + pack_int(len(blob))


_LENGTH_BYTES = np.frombuffer(_length_byte_cache, np.int32)  # byte -> the least length it stands for


def _length_bytes(lengths: np.ndarray) -> np.ndarray:
    """Return Whoosh's ``length_to_byte`` of each of *lengths* (all above 0), as uint8."""
    return np.minimum(np.searchsorted(_LENGTH_BYTES, lengths, side="left"), 255).astype(np.uint8)


def _starts(keys: np.ndarray) -> np.ndarray:
    """Return the indexes where a run of equal *keys* starts (keys grouped, not empty)."""
    changed = np.empty(len(keys), bool)
    changed[0] = True
    np.not_equal(keys[1:], keys[:-1], out=changed[1:])
    return np.flatnonzero(changed)


def _deltas(values: np.ndarray, firsts: np.ndarray) -> np.ndarray:
    """Return each of *values* minus the one before it, except at *firsts* (0 among them): the value itself.

    In the dtype of *values* (int32): ``np.diff(values, prepend=0)`` concatenates with an int64 zero,
    which copies a token array into a new int64 one first (1.8M tokens: 0.009-0.16 s, against 0.004 s).
    """
    deltas = np.empty_like(values)
    np.subtract(values[1:], values[:-1], out=deltas[1:])
    deltas[firsts] = values[firsts]
    return deltas


class _TextInverter:
    """Invert a text field's documents at once with numpy, then encode each term as _TermEncoder does.

    The tokens (term, document, position) are sorted by term with a stable sort, so each term's
    postings come in document order and each posting's positions in order; the statistics of every
    block (Whoosh's 128 postings) are computed for all blocks together, so only the pickling of each
    block is left per block in Python.
    """

    def __init__(self, spec: _TextField, terms: list[str], single: list[bytes], many: dict, lbytes: np.ndarray) -> None:
        self.spec = spec
        self.names = terms  # term number -> term (TermAnalyzer.terms)
        self.single = single
        self.many = many
        self.lbytes = lbytes  # docnum -> length byte, 0 when the field is empty or not scored

    def _tokens(self) -> tuple[list[bytes], np.ndarray, np.ndarray, np.ndarray]:
        """Return the field's terms (UTF-8, sorted) and its tokens' term ranks, documents and positions, sorted."""
        spec = self.spec
        codes = np.frombuffer(spec.codes, np.int32)
        counts = np.frombuffer(spec.counts, np.int32)
        numbers = codes >> 1
        starts_pos = np.cumsum(codes & 1, dtype=np.int32)  # positions + 1, counted from the first document
        firsts = np.cumsum(counts, dtype=np.int64) - counts
        positions = starts_pos - np.repeat(starts_pos[firsts], counts)
        del starts_pos, firsts
        # The term numbers in use, in order: flagged in a table of all numbers, in a pass over the
        # tokens (0.004 s for 1.8M tokens, where np.unique hashes them in 0.066 s).
        in_use = np.zeros(int(numbers.max()) + 1, bool)
        in_use[numbers] = True
        used = np.flatnonzero(in_use)
        names = self.names
        tbytes = [names[n].encode("utf-8") for n in used.tolist()]
        order = sorted(range(len(tbytes)), key=tbytes.__getitem__)  # term order is UTF-8 byte order
        rank = np.zeros(int(used[-1]) + 1, np.int32)
        rank[used[order]] = np.arange(len(order), dtype=np.int32)
        ranks = rank[numbers]
        del numbers
        # numpy sorts 16-bit keys stably by radix: 4x faster than 32-bit ones (1.8M tokens of 40k
        # terms, half the Debian corpus's bodies: 0.025 s against 0.11 s), in the same order.
        by_term = np.argsort(ranks.astype(np.uint16) if len(order) <= 1 << 16 else ranks, kind="stable")
        docs = np.repeat(np.frombuffer(spec.docs, np.int32), counts)[by_term]
        return [tbytes[i] for i in order], ranks[by_term], docs, positions[by_term]

    def _values(self, firsts: np.ndarray, freqs: np.ndarray, positions: np.ndarray) -> list[bytes]:
        """Return each posting's encoded positions (Positions.encode), shared with equal ones."""
        single = self.single
        top = int(positions.max()) + 1
        if top > len(single):
            single += [pack_uint(1) + dumps([pos], 2) for pos in range(len(single), 2 * top)]
        values = np.array(single, dtype=object)[positions[firsts]]
        multi = np.flatnonzero(freqs > 1)
        if len(multi):
            # Position lists are stored as deltas, and short lists of deltas repeat a lot: each
            # distinct list is encoded once, found by numpy among the postings of each frequency.
            deltas = _deltas(positions, firsts)
            bits = max(1, int(deltas.max()).bit_length())
            multi = multi[np.argsort(freqs[multi], kind="stable")]
            sizes = freqs[multi]
            bounds = np.flatnonzero(np.diff(sizes)) + 1
            for group in np.split(multi, bounds):
                size = int(freqs[group[0]])
                rows = deltas[firsts[group][:, None] + np.arange(size)]
                if size * bits < 63:  # each list as one integer
                    packed = (rows.astype(np.int64) << (bits * np.arange(size - 1, -1, -1))).sum(axis=1)
                    _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
                    distinct = rows[first].tolist()
                else:
                    found, inverse = np.unique(rows, axis=0, return_inverse=True)
                    distinct = found.tolist()
                encoded = np.empty(len(distinct), dtype=object)
                encoded[:] = [self._positions(row) for row in distinct]
                values[group] = encoded[inverse.ravel()]
        return values.tolist()

    def _positions(self, deltas: list[int]) -> bytes:
        """Return the encoding of a list of position deltas (Positions.encode), kept to be shared."""
        key = tuple(deltas)
        found = self.many.get(key)
        if found is None:
            found = self.many[key] = pack_uint(len(deltas)) + dumps(deltas, 2)
        return found

    def terms(self, start: int) -> tuple[list[bytes], bytes, list[bytes]]:
        """Return the terms in order, their postings written from offset *start*, and their term infos."""
        tbytes, ranks, docs, positions = self._tokens()
        firsts = np.flatnonzero(np.concatenate(([True], (ranks[1:] != ranks[:-1]) | (docs[1:] != docs[:-1]))))
        freqs = np.diff(firsts, append=len(ranks))
        values = self._values(firsts, freqs, positions)
        ranks, docs = ranks[firsts], docs[firsts]  # now one a posting
        count = len(docs)
        boost = self.spec.boost
        weights = (freqs * boost).astype(np.float32)  # as the writer's float32 array holds them
        del positions
        term_firsts = _starts(ranks)
        # Blocks of BLOCK_LIMIT postings, counted from each term's first posting.
        within = np.arange(count) - np.repeat(term_firsts, np.diff(term_firsts, append=count))
        block_firsts = np.flatnonzero(within % BLOCK_LIMIT == 0)
        block_ends = np.append(block_firsts[1:], count)
        lbytes = self.lbytes[docs]
        lmins = np.where(lbytes == 0, 256, lbytes).astype(np.int16)  # 256: no length (byte 0)
        block_wmin = np.minimum.reduceat(weights, block_firsts)
        block_wmax = np.maximum.reduceat(weights, block_firsts)
        # 0: every weight 1.0 (None), 1: one weight for all (a float), 2: a tuple of weights.
        kinds = np.where(block_wmin == block_wmax, np.where(block_wmax == 1.0, 0, 1), 2).tolist()
        block_weight = block_wmax.tolist()
        block_max = np.maximum(np.maximum.reduceat(freqs, block_firsts) * boost, 0.0).tolist()
        block_lmin = np.minimum.reduceat(lmins, block_firsts)
        block_lmin = np.where(block_lmin == 256, 0, block_lmin).tolist()
        block_lmax = np.maximum.reduceat(lbytes, block_firsts).tolist()
        deltas = _deltas(docs, block_firsts).tolist()
        term_ends = np.append(term_firsts[1:], count)
        term_blocks = np.searchsorted(block_firsts, term_firsts)
        opens = np.zeros(len(block_firsts), bool)  # a term's first block, after the postings header
        opens[term_blocks] = True
        closes = np.append(opens[1:], True)  # a term's last block: its length is written negative
        blocks = zip(
            block_firsts.tolist(), block_ends.tolist(), kinds, block_weight, docs[block_ends - 1].tolist(),
            block_max, block_lmin, block_lmax, opens.tolist(), closes.tolist(),
        )
        parts: list[bytes] = []
        sizes: list[int] = []
        for lo, hi, kind, weight, last_id, most, lmin, lmax, opening, closing in blocks:
            mini_weights = None if kind == 0 else (weight if kind == 1 else tuple(weights[lo:hi].tolist()))
            data = dumps((tuple(deltas[lo:hi]), mini_weights, tuple(values[lo:hi])), BLOCK_PROTOCOL)
            comp = 0
            if len(data) >= COMPRESS_FROM:
                data, comp = _compress(data, COMPRESSION), COMPRESSION
            info = dumps((hi - lo, last_id, most, comp, lmin, lmax), 2)
            size = len(info) + len(data)
            if opening:
                parts.append(WHOOSH3_HEADER_MAGIC)
            parts += (pack_int(-size if closing else size), info, data)
            sizes.append(size)
        # Each term's postings: the header, then each block's length and bytes.
        lengths = np.add.reduceat(np.array(sizes, np.int64) + 4, term_blocks) + len(WHOOSH3_HEADER_MAGIC)
        offsets = np.cumsum(lengths) - lengths + start
        # Per term: total weight (exact in float64: float32 values of one scale), extremes of the blocks.
        term_lmin = np.minimum.reduceat(lmins, term_firsts)
        infos = map(
            _PACK_INFO_AT,
            repeat(False),
            np.add.reduceat(weights.astype(np.float64), term_firsts).tolist(),
            (term_ends - term_firsts).tolist(),
            np.where(term_lmin == 256, 0, term_lmin).tolist(),
            np.maximum.reduceat(lbytes, term_firsts).tolist(),
            np.maximum(np.maximum.reduceat(freqs, term_firsts) * boost, 0.0).tolist(),
            docs[term_firsts].tolist(),
            docs[term_ends - 1].tolist(),
            offsets.tolist(),
            lengths.tolist(),
        )
        return tbytes, b"".join(parts), list(infos)
