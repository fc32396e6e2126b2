"""Synonym groups, kept as data in ``corpus/data/synonyms.json``: words readers type for the same thing.

Each group lists variants as readers write them ("datacenter", "data center", "data centre").  A
build analyses them with the index's own query analysis and stores them in the snapshot
(index/build.py), so a snapshot searches with the synonyms it was built with, and the file is part
of the sources' fingerprint.  Inflections need no entry: the analysis already stems them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from corpus.errors import CorpusError

SYNONYMS_FILE = Path(__file__).resolve().parent / "data" / "synonyms.json"
Groups = tuple[tuple[str, ...], ...]


def check_groups(groups: object, path: Path | str = SYNONYMS_FILE, topics: Iterable[str] | None = None) -> Groups:
    """Return *groups* as tuples of variants, or raise CorpusError naming *path*.

    A group is a list of variants, or ``{"variants": [...], "applies_to": [topic, ...]}``: a group
    of the hub's own wording ("future", "outlook" and "heading", for its guide's "Where it is
    heading"), kept only for a corpus holding one of those topics (*topics*; None: every group).  In
    a corpus of sport, "future" found "Heading technique" first, and in CISI's abstracts "library
    outlook" the papers on subject headings (a QA pass)."""
    present = None if topics is None else frozenset(topics)
    out: list[tuple[str, ...]] = []
    for group in groups if isinstance(groups, list) else [None]:
        variants, scope = (group.get("variants"), group.get("applies_to")) if isinstance(group, dict) else (group, [])
        if not (isinstance(variants, list) and all(isinstance(v, str) for v in variants)
                and isinstance(scope, list) and all(isinstance(t, str) for t in scope)):
            raise CorpusError(path, None, "synonyms must be a list of groups, each a list of strings or an object "
                                          "with 'variants' (a list of strings) and 'applies_to' (a list of topic slugs)")
        if present is None or not scope or present.intersection(scope):
            out.append(tuple(variants))
    return tuple(out)


def load_synonym_groups(path: Path = SYNONYMS_FILE, topics: Iterable[str] | None = None) -> Groups:
    """Return the synonym groups in *path* (``{"groups": [...]}``) for a corpus of *topics* (None: all)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusError(path, None, f"cannot be read: {exc}") from exc
    if not isinstance(data, dict):
        raise CorpusError(path, None, "expected an object with a 'groups' list")
    return check_groups(data.get("groups"), path, topics)
