"""Build a snapshot from a corpus and publish it, or leave the live index untouched on failure."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from whoosh import index as whoosh_index

from corpus.records import Record
from corpus.sources import DEFAULT_DIR, Corpus, load_corpus
from index import store
from index.schema import SCHEMA_VERSION, make_schema, to_document

Progress = Callable[[int], None]


class BuildError(RuntimeError):
    """The new snapshot failed its checks; the live index was not touched."""


@dataclass(frozen=True, slots=True)
class BuildReport:
    snapshot: str
    path: str
    doc_count: int
    replaced_duplicates: int
    seconds: float
    docs_per_second: float
    size_bytes: int


def _dedupe(records: Iterable[Record]) -> tuple[list[Record], int]:
    by_id: dict[str, Record] = {}
    seen = 0
    for record in records:
        seen += 1
        by_id.pop(record.id, None)  # a repeated id replaces the earlier one, at its new place
        by_id[record.id] = record
    return list(by_id.values()), seen - len(by_id)


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.iterdir() if p.is_file())


def build_corpus(
    corpus: Corpus,
    root: Path,
    *,
    progress: Progress | None = None,
    procs: int = 1,
    lock_wait: float = 0.0,
) -> BuildReport:
    """Index *corpus* into a new snapshot under *root* and publish it."""
    root = Path(root)
    started = time.perf_counter()
    records, replaced = _dedupe(corpus.records)
    with store.write_lock(root, wait=lock_wait):
        snap_id, work = store.new_workdir(root)
        try:
            ix = whoosh_index.create_in(str(work), make_schema())
            # Separate segment files, not one compound file: Whoosh reads a compound file's parts
            # into memory (BytesIO copies) in every worker, where plain files are memory-mapped.
            writer_args = {"limitmb": 256, "compound": False}
            if procs > 1:
                # Sub-processes analyse and sort in parallel; their runs are merged into ONE segment.
                # Several segments (multisegment=True) would skip the merge, but Whoosh 2.7's top-k
                # collection across segments then misses hits (tests/test_bench.py shows one).
                writer_args.update(procs=procs, multisegment=False)
            writer = ix.writer(**writer_args)
            try:
                for order, record in enumerate(records, start=1):
                    writer.add_document(**to_document(record, order))
                    if progress is not None:
                        progress(1)
            except BaseException:
                writer.cancel()
                raise
            writer.commit()
            _check(work, len(records))
            seconds = time.perf_counter() - started
            store.write_meta(
                work,
                {
                    "snapshot": snap_id,
                    "doc_count": len(records),
                    "schema_version": SCHEMA_VERSION,
                    "fingerprint": corpus.fingerprint,
                    "sources": [str(p) for p in corpus.sources],
                    "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    "build_seconds": round(seconds, 3),
                    "topics": {slug: asdict(topic) for slug, topic in corpus.topics.items()},
                    "organisations": {slug: asdict(org) for slug, org in corpus.organisations.items()},
                },
            )
            size = _size(work)
            final = store.publish(root, snap_id, work)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    return BuildReport(
        snapshot=snap_id,
        path=str(final),
        doc_count=len(records),
        replaced_duplicates=replaced,
        seconds=round(seconds, 3),
        docs_per_second=round(len(records) / seconds, 1) if seconds else 0.0,
        size_bytes=size,
    )


def _check(work: Path, expected: int) -> None:
    ix = whoosh_index.open_dir(str(work))
    try:
        with ix.searcher() as searcher:
            found = searcher.doc_count()
    finally:
        ix.close()
    if found != expected:
        raise BuildError(f"the new index holds {found} documents, expected {expected}; not published")


def build(
    sources: Iterable[str | Path] = (DEFAULT_DIR,),
    root: str | Path = "instance/index",
    **options: object,
) -> BuildReport:
    """Load the corpus from *sources* and build it into *root* (see build_corpus)."""
    return build_corpus(load_corpus(sources), Path(root), **options)  # type: ignore[arg-type]
