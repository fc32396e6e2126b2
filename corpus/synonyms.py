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
# Places within a region, one way: a region's variants and the places it includes ("Europe" finds
# "Norway"; "Norway" does not find every page on Europe).
Within = tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]


def check_synonyms(groups: object, path: Path | str = SYNONYMS_FILE, topics: Iterable[str] | None = None) -> tuple[Groups, Within]:
    """Return *groups* as tuples of variants and the places within regions, or raise CorpusError naming *path*.

    A group is a list of variants, or ``{"variants": [...], "applies_to": [topic, ...]}``: a group
    of the hub's own wording ("future", "outlook" and "heading", for its guide's "Where it is
    heading"), kept only for a corpus holding one of those topics (*topics*; None: every group).  In
    a corpus of sport, "future" found "Heading technique" first, and in CISI's abstracts "library
    outlook" the papers on subject headings (a QA pass).  An object with ``"includes": [...]`` is a
    region and the places in it: a search for the region also finds the places (and their own
    groups' variants), not the other way round ("stargate europe" missed Stargate UK; a QA pass)."""
    present = None if topics is None else frozenset(topics)
    out: list[tuple[str, ...]] = []
    within: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    for group in groups if isinstance(groups, list) else [None]:
        variants, scope, places = (
            (group.get("variants"), group.get("applies_to", []), group.get("includes"))
            if isinstance(group, dict) else (group, [], None)
        )
        if not (isinstance(variants, list) and all(isinstance(v, str) for v in variants)
                and isinstance(scope, list) and all(isinstance(t, str) for t in scope)
                and (places is None or isinstance(places, list) and all(isinstance(p, str) for p in places))):
            raise CorpusError(path, None, "synonyms must be a list of groups, each a list of strings or an object "
                                          "with 'variants' (a list of strings), and 'applies_to' (a list of topic "
                                          "slugs) or 'includes' (a list of places), each optional")
        if present is None or not scope or present.intersection(scope):
            if places is None:
                out.append(tuple(variants))
            else:
                within.append((tuple(variants), tuple(places)))
    return tuple(out), tuple(within)


def load_synonyms(path: Path = SYNONYMS_FILE, topics: Iterable[str] | None = None) -> tuple[Groups, Within]:
    """Return the synonym groups and the regions in *path* (``{"groups": [...]}``) for a corpus of
    *topics* (None: all)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusError(path, None, f"cannot be read: {exc}") from exc
    if not isinstance(data, dict):
        raise CorpusError(path, None, "expected an object with a 'groups' list")
    return check_synonyms(data.get("groups"), path, topics)
