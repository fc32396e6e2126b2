"""Synonym groups, kept as data in ``corpus/data/synonyms.json``: words readers type for the same thing.

Each group lists variants as readers write them ("datacenter", "data center", "data centre").  A
build analyses them with the index's own query analysis and stores them in the snapshot
(index/build.py), so a snapshot searches with the synonyms it was built with, and the file is part
of the sources' fingerprint.  Inflections need no entry: the analysis already stems them.
"""

from __future__ import annotations

import json
from pathlib import Path

from corpus.errors import CorpusError

SYNONYMS_FILE = Path(__file__).resolve().parent / "data" / "synonyms.json"
Groups = tuple[tuple[str, ...], ...]


def check_groups(groups: object, path: Path | str = SYNONYMS_FILE) -> Groups:
    """Return *groups* as tuples of variants, or raise CorpusError naming *path*."""
    if not isinstance(groups, list) or not all(
        isinstance(g, list) and all(isinstance(v, str) for v in g) for g in groups
    ):
        raise CorpusError(path, None, "synonyms must be a list of groups, each a list of strings")
    return tuple(tuple(group) for group in groups)


def load_synonym_groups(path: Path = SYNONYMS_FILE) -> Groups:
    """Return the synonym groups in *path* (``{"groups": [[variant, ...], ...]}``)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusError(path, None, f"cannot be read: {exc}") from exc
    if not isinstance(data, dict):
        raise CorpusError(path, None, "expected an object with a 'groups' list")
    return check_groups(data.get("groups"), path)
