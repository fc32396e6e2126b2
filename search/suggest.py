"""Search as you type: completions for a prefix, drawn from what the hub actually holds.

Four kinds of completion come from the published snapshot: document titles (which link straight to
the document), organisation names and topic labels (which link to the filtered list), and frequent
words (which complete the last word typed and are searched).  Text is compared folded (lower case,
no accents, punctuation as spaces), and a completion matches when the typed text starts it or starts
one of its words.  Completions that start with the typed text come first; then topics and
organisations before words before titles; then the more frequent first.  The candidates are read
once per snapshot and kept on the Suggester, keyed by snapshot id, so a publish is picked up.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from index.analysis import STOP_WORDS
from search.params import InvalidParameter
from search.snapshot import Snapshot

MAX_PREFIX_CHARS = 256  # what is typed into the search box so far; a search itself may be longer
MAX_SUGGESTIONS = 8
# How many of each kind may appear, so one kind cannot crowd out the rest.
KIND_CAPS = {"topic": 3, "organisation": 3, "term": 3, "title": 4}
KIND_ORDER = {"topic": 0, "organisation": 1, "term": 2, "title": 3}
MIN_TERM_DOCS = 2  # a word must occur in this many documents to be offered
MIN_TERM_CHARS = 3
_WORD = re.compile(r"\w+")
_NON_WORD = re.compile(r"[\W_]+")


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One completion: what to show, what kind it is, and where it leads (None: search the text)."""

    text: str
    kind: str
    url: str | None = None

    def to_json(self) -> dict[str, str]:
        """Return the API's JSON object for this completion."""
        item = {"text": self.text, "kind": self.kind}
        if self.url:
            item["url"] = self.url
        return item


@dataclass(frozen=True, slots=True)
class _Candidate:
    suggestion: Suggestion
    folded: str  # the text folded, with a leading space so " prefix" finds word starts
    weight: int  # how many documents it stands for


def fold(text: str) -> str:
    """Return *text* lower-cased, without accents, with runs of punctuation and spaces as one space."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(_NON_WORD.sub(" ", bare.casefold()).split())


def check_prefix(q: str | None) -> str:
    """Return the prefix *q* with spaces collapsed, or raise InvalidParameter naming 'q'."""
    text = " ".join((q or "").split())
    if "\x00" in text:
        raise InvalidParameter("q", "'q' may not contain a NUL character")
    if len(text) > MAX_PREFIX_CHARS:
        raise InvalidParameter("q", f"'q' may be at most {MAX_PREFIX_CHARS} characters")
    return text


class _Candidates:
    """The completions one snapshot can give, read from its stored fields and facet postings."""

    def __init__(self, snap: Snapshot) -> None:
        self.phrases: list[_Candidate] = []
        term_docs: Counter[str] = Counter()
        surfaces: dict[str, Counter[str]] = defaultdict(Counter)
        for fields in snap.searcher().reader().all_stored_fields():
            title = str(fields.get("title") or "")
            self.phrases.append(_Candidate(Suggestion(title, "title", str(fields.get("url") or "")), " " + fold(title), 1))
            seen: set[str] = set()
            for word in _WORD.findall(f"{title} {fields.get('body') or ''}"):
                key = fold(word)
                if len(key) < MIN_TERM_CHARS or key.isdigit() or key in STOP_WORDS:
                    continue
                surfaces[key][word] += 1
                if key not in seen:
                    seen.add(key)
                    term_docs[key] += 1
        for facet, field, kind in (("topic", "topics", "topic"), ("entity", "entities", "organisation")):
            for value, docs in snap.facet_docs[field].items():
                label = snap.label(facet, value)
                url = "/?" + urlencode({facet: value})
                self.phrases.append(_Candidate(Suggestion(label, kind, url), " " + fold(label), len(docs)))
        # A word is shown as it is most often written ("Trainium2", "OpenAI", "gigawatts").
        self.terms = {
            key: (surfaces[key].most_common(1)[0][0], count)
            for key, count in term_docs.items()
            if count >= MIN_TERM_DOCS
        }

    def complete(self, prefix: str, limit: int) -> list[Suggestion]:
        """Return up to *limit* completions of *prefix*, best first."""
        folded = fold(prefix)
        if not folded:
            return []
        ranked: list[tuple[tuple[int, int, int, int, str], Suggestion]] = []
        needle = " " + folded
        for cand in self.phrases:
            at = cand.folded.find(needle)
            if at < 0:
                continue
            kind = cand.suggestion.kind
            ranked.append(((0 if at == 0 else 1, KIND_ORDER[kind], -cand.weight, len(cand.folded), cand.folded), cand.suggestion))
        head, _, last = folded.rpartition(" ")
        shown_head = " ".join(prefix.split()[:-1]) if head else ""
        for key, (surface, count) in self.terms.items():
            if key.startswith(last):
                text = f"{shown_head} {surface}" if shown_head else surface
                ranked.append(((0, KIND_ORDER["term"], -count, len(key), key), Suggestion(text, "term")))
        ranked.sort(key=lambda pair: pair[0])
        chosen: list[Suggestion] = []
        per_kind: Counter[str] = Counter()
        seen: set[str] = set()
        for _, suggestion in ranked:
            key = fold(suggestion.text)
            if key in seen or per_kind[suggestion.kind] >= KIND_CAPS[suggestion.kind]:
                continue
            seen.add(key)
            per_kind[suggestion.kind] += 1
            chosen.append(suggestion)
            if len(chosen) == limit:
                break
        return chosen


class Suggester:
    """Complete prefixes from the snapshot *snapshot()* returns (the one served); candidates are kept per snapshot."""

    def __init__(self, snapshot: Callable[[], Snapshot]) -> None:
        self.snapshot = snapshot
        self._cached: tuple[str, _Candidates] | None = None
        self._lock = threading.Lock()

    def _candidates(self) -> _Candidates:
        snap = self.snapshot()
        cached = self._cached
        if cached is not None and cached[0] == snap.id:
            return cached[1]
        with self._lock:
            cached = self._cached
            if cached is None or cached[0] != snap.id:
                cached = (snap.id, _Candidates(snap))
                self._cached = cached
            return cached[1]

    def suggest(self, prefix: str, limit: int = MAX_SUGGESTIONS) -> list[Suggestion]:
        """Return up to *limit* completions of *prefix*, best first (none for an empty prefix)."""
        if not fold(prefix):
            return []
        return self._candidates().complete(prefix, limit)
