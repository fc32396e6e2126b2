"""Search as you type: completions for a prefix, drawn from what the hub actually holds.

Four kinds of completion come from the published snapshot: document titles (which link straight to
the document), organisation names and topic labels (which link to the filtered list), and frequent
words (which complete the last word typed and are searched).  Text is compared folded (lower case,
no accents, punctuation as spaces), and a completion matches when the typed text starts it or starts
one of its words.  Completions that start with the typed text come first; then topics and
organisations before words before titles; then the more frequent first.  The candidates are read
once per snapshot and kept on the Suggester, keyed by snapshot id, so a publish is picked up (while
a large snapshot is read, the one read before answers, less the titles of documents deleted since).

A word completion keeps everything typed before the word being typed, as typed: the earlier words,
a search operator (``-star`` gives ``-Stargate``, ``"star`` gives ``"Stargate``) and the start of a
hyphenated word (``memory-eff`` gives ``memory-efficient``, as the hub writes it, before
``memory-efficiency``; a single word is glued after a hyphen only where a page writes it so, side
by side: ``ai-t`` gives ``ai-training``, not ``ai-targeting``).  After earlier words, the last word's completions are only those that
occur in documents holding them all, the words an OR joins it to aside (``stargate m`` gives ``stargate Michigan``; a word too short
to be offered counts, ``sk h`` giving ``sk hynix``'s neighbours; a word with "++" or "#" is read with
them, as the search reads it, ``c++ lib`` giving nothing on the seed hub, which holds no C++; after
words no document holds together, no word).  They come in the order the pages write them: first the words pages write after
the last word offered typed (side by side, or with at most two other words between, "to", "in", a
number, in one clause: ``stargate m`` gives ``stargate Michigan``, written so, before ``stargate
major``, which a page only holds; a plural's "s" aside, ``data center t`` giving ``Texas`` from "data
centers in Texas"), by how many pages write them so, a title's counting twice (past 2,000 documents,
only a pair two pages' worth write); when no page writes one so, those written after the last word
typed (``stargate in te``: "in Texas"); then the most shared, then the most frequent.  The words the
last two typed words start when written as one
are offered too (``open ai`` gives ``OpenAI``, as the search reads it), by how many documents hold
them.  While the text excludes something, no title, topic or organisation is offered: choosing one
would search for what is excluded.

Under a page's filters (topic, organisation, kind, month, dates: ``Suggester.suggest``'s *filters*,
read as a search reads them), only what finds something under them is offered: a title of a document
they allow, a topic or an organisation some such document carries (weighed by how many do), a word
some such document holds with the earlier words typed.  On the page of the data centers topic "d"
offered the organisation DeepSeek and "ana" the word "analysis", which no page of the topic names,
and "acc" the titles of the Accelerate posts, pages outside it.  What a filter allows is worked out
once per filter and snapshot read (``_Within``); without filters none of it is done.
"""

from __future__ import annotations

import heapq
import logging
import re
import threading
import time
import unicodedata
import weakref
from array import array
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from itertools import chain
from urllib.parse import urlencode

import numpy as np

from index import store
from index.analysis import HAN_SIMPLIFIED, IDEOGRAPH, MARKS, STOP_WORDS, WORD, query_stop_words, searching_in
from index.schema import INVISIBLE, LATIN_LETTERS
from search.cache import malloc_trim, remember, unpatched
from search.evaluator import matches
from search.facets import selected_docs
from search.params import InvalidParameter, SearchParams
from search.query import COMPARISON_WORDS, build_query, hyphenated_query, typed_marks
from search.snapshot import Snapshot

_log = logging.getLogger(__name__)
MAX_PREFIX_CHARS = 256  # what is typed into the search box so far; a search itself may be longer
MAX_SUGGESTIONS = 8
# How many of each kind may appear, so one kind cannot crowd out the rest.
KIND_CAPS = {"topic": 3, "organisation": 3, "term": 3, "title": 4}
KIND_ORDER = {"topic": 0, "organisation": 1, "term": 2, "title": 3}
MIN_TERM_DOCS = 2  # a word must occur in this many documents to be offered
# ... but in a corpus this small, a word one document holds is offered too: on the hub's 57 pages the
# guide's "Iranian", "Bahrain" and "Shannon" could not be typed to (a QA pass).
ONE_DOCUMENT_WORDS_UP_TO = 2_000
MIN_TERM_CHARS = 3
# After a hyphen, how many words glued to it are looked up as the search reads them (``_written_glued``).
GLUED_CHECKS = 12
# A last word this long at least, that nothing completes, is tried one letter off (``_respelt``); of
# each start so found, at most RESPELT_WORDS words are looked at.
RESPELT_MIN_CHARS = 4
RESPELT_WORDS = 8
# Titles holding the typed words apart are looked for among at most this many documents holding the
# earlier words (``_titles_holding``): at 64k "files d" (13,686 documents hold "files") took 41.7 ms
# for 21.3 with 20,000 allowed (the regression QA pass).
SPREAD_TITLE_DOCS = 4_000
EARLIER_WORD_CHARS = 2  # an earlier word this short still narrows the completions after it ("sk h")
# Words completed inside a quote checked at most, a request, to make a phrase some page writes (each
# check a phrase search: some 1-10 ms at 64k), and the phrases remembered, a snapshot read.
PHRASE_CHECKS = 12
PHRASE_CHECK_S = 0.03  # and none begun past this much time checking (a phrase of common words: some 10 ms each at 64k)
# While a snapshot is read, the titles the one read before offers are looked up in the one served, at most
# this many a keystroke (the rest left out): where an update retitled most documents, every candidate
# title was looked up, 23,932 for "a" at 64k, 2.8 s a keystroke (a review).
TITLE_CHECKS = 64
PHRASES_REMEMBERED = 4096
# The filters whose documents and completions are kept, a snapshot read (``_Within``): each holds the
# documents a filter allows and their titles, at 64k some 2.6 MB for a filter allowing most pages.
WITHIN_REMEMBERED = 16
# The facets whose values are offered: (the filter, the facet's field, the completion's kind).
_FACET_KINDS = (("topic", "topics", "topic"), ("entity", "entities", "organisation"))


def _phrase_to_check(text: str) -> str | None:
    """Return the quoted phrase a completion *text* ending inside a quote must make for it to be offered:
    the word completed with the one before it (the earlier words were checked as they were typed, and a
    whole phrase of common words took 15-200 ms a check at 64k: a review), and with the function words
    between them and the word before those ('"samsung and s' offered '"samsung and SpaceX' and
    '"samsung and Sequoia', never checked, phrases no page writes: a QA pass); None when there is none
    to check: not inside a quote (read as the search reads quotes: curly, angled, full-width), the
    quote's first word, or after function words only (a phrase search of "the …" reads the commonest
    word's positions)."""
    text = typed_marks(text)
    if text.count('"') % 2 == 0:
        return None
    words = text[text.rfind('"') + 1:].split()
    at = len(words) - 2
    while at >= 0 and fold(words[at]) in STOP_WORDS:
        at -= 1
    if at < 0:
        return None
    return '"' + " ".join(words[at:]) + '"'


# A snapshot whose completions cost at most this much to read (``_read_size``: words, title and body,
# and READ_DOC_WORDS a document) has them read in the request that first asks; a larger one in a
# thread of its own (``Suggester``).  The read's cost grows with the text, not the documents: under
# the old limit of 2,000 documents, 1,950 documents of ~5,000 characters each (10.7 MB) were read
# inside the first /api/suggest after each publish (6-9 s, the worker blocked), of ~40 KB each (80 MB)
# past gunicorn's 30 s timeout on every keystroke (a QA pass).  ``_Candidates(snap)`` timed in-process
# on built indexes (min of 3 unless said; 2026-12-06, 2 shared cores; the timing script and indexes
# under /tmp/s54/sugg-meas): the seed corpus, 57 documents, 5,138 words, 31.6 ms; 1,000 one-line
# documents, 7,687 words, 64.9 ms; 160 Debian packages, 9,552 words, 57.7 ms; 12 documents of 5,000
# characters (/tmp/s54/qaC/gen_long.py 12 5000), 10,015 words, 64.6 ms; tests/data/debian-dated.jsonl,
# 320 documents, 20,947 words, 125.8 ms; 20,000 Debian packages, 1,252,649 words, 4.1 s (min of 2);
# the QA pass's 1,950 documents of 5,000 characters, 1,661,294 words, 9.4 s (once), and of 20 KB,
# 6,320,475 words, 21.7 s (min of 2).  About 5-6 µs a word and 25 µs a document in a small snapshot
# (3.3-5.7 µs a word in a large one): at this limit a read inside a request takes some 65 ms.
READ_INLINE_WORDS = 10_000
READ_DOC_WORDS = 5  # what a document costs the read beyond its words, in words
# A read beside the requests pauses PAUSE_S every PAUSE_EVERY documents (about 10 ms of reading), so
# that a request waiting for the interpreter gets it (a health check took 1.1-1.6 s during a read).
PAUSE_EVERY = 50
PAUSE_S = 0.005
_HYPHENATED = re.compile(WORD + "(?:-" + WORD + ")+")
_NON_WORD = re.compile(f"(?:[^\\w{MARKS}]|_)+")
# What the search box reads before a word: an exclusion, an inclusion, a group, a phrase (search/query.py).
_OPERATORS = '-+("'
# An exclusion typed, or being typed: "stargate -" offered the Stargate pages' titles, links to what
# the reader was about to leave out (a QA pass).
_EXCLUDING = re.compile(r'(?:^|[\s(])-(?=[\w"(]|$)|(?:^|[\s(])NOT(?:\s|$)')  # "NOT mi" too (a QA pass)
# The search's operators written as words, in capitals: after other words, one being typed is no word
# to complete ("post-training OR" offered "post-training original": a QA pass).
_OPERATOR_WORDS = frozenset({"AND", "OR", "NOT"})


# A word offered after earlier words is weighed by the pages writing it after the last of them
# (``_Candidates.follows``): side by side, or with at most PHRASE_GAP words between that are not words
# offered ("Stargate to Michigan", "data centers in Texas"), within a clause (``_WORDS_AND_BREAKS``).
PHRASE_GAP = 2
# The words a page writes and what ends a clause among them, in one pass (a second pass for the clauses
# cost a 64k read 2.3 CPU s).  A word's combining marks are its own (index.analysis.WORD): "हिन्दी" is
# one word, not ह, न and द.
_WORDS_AND_BREAKS = re.compile(WORD + r"|[.!?;:,](?=\s|$)|[()\[\]{}\"“”|•]|\s[–—-]\s")


# A word written with the marks the search keeps as its own ("c++", "g++", "c#": index.analysis,
# ``_PLUSES_OR_SHARP``), or with a dot opening it (".net"), typed: fold() made "c++" and "c#" "c", ".net"
# "net", and "c++" offered "Compute deals" and "Cinnamon" on the seed hub, which holds no C++, and at
# 64k the topics cli-mono and comm before "C++ tweeners" (a regression pass).  A "+" ending the prefix
# is "++" being typed ("c+").  Only the words of *prefix* so marked, as typed; a word's inner dots are
# already its words ("node.js" is "node js", as titles write it).
_OWN_MARKS = r"\w*[^\W\d_]\+\+|[^\W\d_]#"  # the words the search reads with their marks, as their own
_MARKED_WORD = re.compile(r"(?<![\w.+#])(?:\.[^\W_]\w*|" + _OWN_MARKS + r"|\w*[^\W\d_]\+$)(?![\w+#])")
_OWN_MARKED = re.compile(r"(?<![\w.+#])(?:" + _OWN_MARKS + r")(?![\w+#])")
# A word's "++" half typed, ending the prefix ("g+"): the name of a document it starts is looked up whole
# (``_Candidates.complete``).
_PLUS_BEING_TYPED = re.compile(r"(?<![\w.+#])\w*[^\W\d_]\+$")


def _as_read(text: str) -> list[str]:
    """Return the words of *text* folded, as fold() makes them, but a word written with "++" or "#"
    (``_OWN_MARKED``) with its marks, as the search reads it: "C++ lib" is "c++" and "lib", where fold()
    makes "c" and "lib".  One word for each word fold() makes, in the same order."""
    words: list[str] = []
    at = 0
    for match in _OWN_MARKED.finditer(text):
        word = match.group()
        bare = word.rstrip("+#")
        words += fold(text[at : match.start()]).split()
        parts = fold(bare).split()
        words += [*parts[:-1], parts[-1] + word[len(bare) :]] if parts else []
        at = match.end()
    return words + fold(text[at:]).split()


def _marks(prefix: str, whole: bool) -> tuple[list[re.Pattern[str]], list[re.Pattern[str]]]:
    """Return what an entry (a title, a topic, an organisation) completing *prefix* must write for each
    marked word typed (``_MARKED_WORD``): the patterns of the words with "++" or "#", which the search
    reads as words of their own ("f#" finds nothing at 64k, not the pages of "f"), and those of the
    words opening with a dot, which it reads without it (".net" finds the pages of "net"), wanted where
    some entry writes them.  The last word, unless typed *whole*, as a start ("c+" starts "C++", ".ne" ".NET")."""
    own: list[re.Pattern[str]] = []
    dotted: list[re.Pattern[str]] = []
    for match in _MARKED_WORD.finditer(prefix):
        word = match.group()
        last = match.end() == len(prefix) and not whole
        pattern = re.compile(r"(?<![\w.+#])" + re.escape(word) + ("" if last else r"(?![\w+#])"), re.IGNORECASE)
        (dotted if word.startswith(".") else own).append(pattern)
    return own, dotted


# A completion's place: starts the typed text, kind, hyphenated words first, pages writing it after the
# earlier words, documents shared with them, weight, length, text.
_Rank = tuple[int, int, int, int, int, int, int, str]


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One completion: what to show, what kind it is, and where it leads (None: search the text)."""

    text: str
    kind: str
    url: str | None = None
    # A title's document id (not in the JSON): a title read from a snapshot before the one served is
    # offered only while the one served holds its document (``Suggester.suggest``).  At 64k the ids
    # kept so are some 5 MB a worker.
    doc_id: str | None = dataclass_field(default=None, compare=False)

    def to_json(self) -> dict[str, str | None]:
        """Return the API's JSON object for this completion: url null for a word (it was left out, where
        every other field a client reads is there, null when it has no value: QA pass X)."""
        return {"text": self.text, "kind": self.kind, "url": self.url}


@dataclass(frozen=True, slots=True)
class _Candidate:
    suggestion: Suggestion
    folded: str  # the text folded, with a leading space so " prefix" finds word starts
    weight: int  # how many documents it stands for


@dataclass(frozen=True, slots=True)
class _Within:
    """A page's filters as the completions read them, in the snapshot read: the documents they allow,
    and the titles, topics and organisations completing a prefix under them (``_Candidates.phrases``
    of the documents allowed, a topic or organisation weighed by its documents allowed)."""

    key: tuple[object, ...]  # the filters, canonical: what a phrase found under them is remembered by
    docs: AbstractSet[int]
    phrases: list[_Candidate]


def _filtering(filters: SearchParams) -> bool:
    """Return whether *filters* (a search's parameters: only its filters and dates are read) narrow anything."""
    return bool(filters.topic or filters.entity or filters.kind or filters.month or filters.since or filters.until)


def _some_within(docs: AbstractSet[int] | array, within: _Within | None) -> bool:
    """Return whether *docs* holds a document *within* allows (any document, without filters)."""
    return bool(docs) if within is None else not within.docs.isdisjoint(docs)


def _within_docs(docs: AbstractSet[int] | None, within: _Within | None) -> AbstractSet[int] | None:
    """Return *docs* (None: no word narrows them) narrowed to the documents *within* allows (None: no filter)."""
    if within is None:
        return docs
    return within.docs if docs is None else docs & within.docs


def fold(text: str) -> str:
    """Return *text* lower-cased, without accents, with runs of punctuation and spaces as one space;
    a Latin letter without a decomposition as readers type it ("Łódź" is "lodz", "Ørsted" "orsted");
    each Chinese character a word of its own, as the index has it ("数据" starts a word of "北京建设新的数据中心")."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c)).translate(LATIN_LETTERS)
    if not bare.isascii():
        # A traditional Chinese character is its simplified form, as the index has it (``HAN_SIMPLIFIED``).
        bare = IDEOGRAPH.sub(r" \g<0> ", bare.translate(HAN_SIMPLIFIED))
    return " ".join(_NON_WORD.sub(" ", bare.casefold()).split())


def _hyphenated_key(text: str) -> str:
    """Return a hyphenated word folded part by part, its hyphens kept ("Memory-Eff" is "memory-eff")."""
    return "-".join(fold(part) for part in text.split("-"))


def _typed_word(prefix: str) -> tuple[str, str]:
    """Split *prefix* into what comes before the word being typed and that word ("" after punctuation)."""
    start = len(prefix)
    while start and (prefix[start - 1].isalnum() or unicodedata.combining(prefix[start - 1])):
        start -= 1
    return prefix[:start], prefix[start:]


def check_prefix(q: str | None) -> str:
    """Return the prefix *q* with spaces collapsed and invisible marks dropped (as a search drops
    them), one space kept at its end when it ends with some (the last word is then whole: "the "
    is not completed to "theoretical"), or raise InvalidParameter naming 'q'."""
    visible = INVISIBLE.sub("", q or "")
    text = " ".join(visible.split())
    whole = bool(text) and visible[-1].isspace()
    if "\x00" in text:
        raise InvalidParameter("q", "'q' may not contain a NUL character")
    if len(text) > MAX_PREFIX_CHARS:  # the space after the last word aside: the box holds as much
        raise InvalidParameter("q", f"'q' may be at most {MAX_PREFIX_CHARS} characters")
    return text + " " if whole else text


class _WordKeys(dict[str, str | None]):
    """Each written word's key (None: not offered, being short, a number or a function word), made once."""

    def __missing__(self, word: str) -> str | None:
        if "-" in word:
            key = _hyphenated_key(word)
            bare = key.replace("-", "")  # nothing: a dash between words, where a clause ends (_WORDS_AND_BREAKS)
            offered = bool(bare) and not bare.isdigit()  # dates and ranges of numbers are not words
        else:
            key = fold(word)
            offered = _is_word(key)
        self[word] = key if offered else None
        return self[word]


def _after(key: str) -> str:
    """Return the key of *key* (folded) as the word a completion follows: a word offered without its
    plural's "s" ("data centers in Texas" is written after "center" too), any other word as it is."""
    if len(key) > MIN_TERM_CHARS and key.endswith("s") and not key.endswith("ss") and _is_word(key):
        return key[:-1]
    return key


def _following(earlier: list[str]) -> list[str]:
    """Return the keys (``_after``) of the typed words a completion may be written after, the first
    looked at first: the last word offered among *earlier* (folded) with at most PHRASE_GAP others
    after it ("stargate in te" is after "stargate"), and the last word typed ("in")."""
    offered = next((key for key in reversed(earlier[-PHRASE_GAP - 1 :]) if _is_word(key)), None)
    return list(dict.fromkeys(_after(key) for key in (offered, *earlier[-1:]) if key is not None))


def _written_after(follows: _Follows, keys: list[str], typed: str, earlier: list[str]) -> dict[str, int]:
    """Return the words starting with *typed* (folded), not among *earlier*, that the first of *keys*
    (``_following``) written before any is written before in *follows*, with their weights."""
    for key in keys:
        if found := follows.written(key, typed, earlier):
            return found
    return {}


def _is_word(key: str, least: int = MIN_TERM_CHARS) -> bool:
    """Return whether *key* (folded, no hyphen) is a word of *least* characters or more, not a number
    nor a function word the search drops (a question word too: "how m" offered "how many", and the
    search then said "how" was missing; a QA pass): one that can be offered; with a smaller *least*,
    one that still says what earlier words are about ("sk" of "sk h": SK hynix, not "sk Hugging")."""
    return len(key) >= least and not key.isdigit() and key not in query_stop_words()


def _one_letter_off(word: str) -> tuple[set[str], set[str]]:
    """Return the words one letter from *word* (being typed): the starts of words keeping every letter
    typed (a letter added, two swapped: "brodc" starts "broadcom"), and the whole words that do not (a
    letter changed, "hugginf" is "hugging"; or left out, not the last: "multig" is "multi" and a letter
    more).  Longer words from a start not keeping every letter were "fixes" of words typed right or
    half typed: "gimp" offered "improve", "café" "safety", "multig" "multiple" (a QA pass)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    kept = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1} | {a + c + b for a, b in splits for c in letters}
    whole = {a + b[1:] for a, b in splits[:-2]} | {a + c + b[1:] for a, b in splits if b for c in letters}
    return kept - {word}, whole - kept - {word}


def _narrowing(before: str, read: bool = False) -> list[str]:
    """Return the words (folded) typed in *before* that a word completed after them must share a page
    with, as the search reads them: not an excluded word's operator, nor the words an OR joins, the
    one before and the one after ("a b OR c" is a AND (b OR c)): "post-training OR tp" offered
    nothing, no page holding TPU with "post-training" (a QA pass).  *read*: a word written with "++"
    or "#" kept so (``_as_read``), for the documents holding it; else folded, as the pages' words are
    tallied (``follows``: "C++ library" is "library" written after "c")."""
    tokens = before.split()
    joined = {at + step for at, token in enumerate(tokens) if token == "OR" for step in (-1, 0, 1)}
    kept = " ".join(token for at, token in enumerate(tokens) if at not in joined and not _EXCLUDING.match(token))
    return _as_read(kept) if read else fold(kept).split()


def _excluding(before: str) -> bool:
    """Return whether the word typed after *before* (its marks as the search reads them) is excluded:
    after "-" ("stargate -", "(-") or "NOT "."""
    tokens = before.split()
    if not tokens:
        return False
    return tokens[-1] == "NOT" if before[-1].isspace() else bool(_EXCLUDING.match(tokens[-1]))


def _asking(words: list[str]) -> list[str]:
    """Return the typed *words* (folded) a search would look for: not the function and question words
    it drops ("how much did anth" offered nothing: no page holds "much" with Anthropic), nor "vs"
    between two things compared ("nvidia vs a" offered nothing; a QA pass)."""
    stops = query_stop_words()
    return [word for word in words if word not in stops and word not in COMPARISON_WORDS]


class _PhraseTally:
    """The words offered each page writes after another (``_Candidates.follows``), tallied as a
    snapshot is read: a word offered after the word before it, and after the last word offered with
    at most PHRASE_GAP others between, in one clause; a page counts 1 for a pair, 2 when its title
    writes it.  Each pair a page writes is one 8-byte number (the two words' ids) in an array, counted
    once all are read: with a Counter of pairs a 64k read took 22 CPU s and 172 MB more, for 12 s and
    84 MB without the pairs.  The words between were once keys of their own ("library for", "library
    …": "library for p" gave "library for Python" before "library provides"), 163k more at 64k: a read
    took 3 CPU s and 36 MB more (RSS kept, in the freed keys' place), past what a worker may hold."""

    def __init__(self, keys: _WordKeys) -> None:
        self._keys = keys
        self._ids: dict[str, int] = {}
        self._names: list[str] = []
        self._words: dict[str, tuple[int, int]] = {}  # a written word's id when offered (else -1), and as the word before
        self._codes = array("q")

    def _id(self, key: str) -> int:
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self._names)
            self._names.append(key)
        return found

    def _word(self, word: str) -> tuple[int, int]:
        key, folded = self._keys[word], fold(word)
        # What ends a clause (folded to nothing) is no word before: -1.
        self._words[word] = (-1 if key is None else self._id(key), self._id(_after(folded)) if folded else -1)
        return self._words[word]

    def add(self, title: list[str], body: list[str]) -> None:
        """Tally the pairs one page writes, in its *title* and *body* (``_WORDS_AND_BREAKS``'s tokens)."""
        written: dict[int, int] = {}
        for tokens, weight in ((body, 1), (title, 2)):
            before = last = -1  # the word before's id; the last word offered's, while near enough
            gap = 0
            for word in tokens:
                key, after = self._words.get(word) or self._word(word)
                if key >= 0:
                    if before >= 0:
                        written[before << 32 | key] = weight
                    if last >= 0 and last != before:
                        written[last << 32 | key] = weight
                    before = last = after
                    gap = 0
                else:
                    before = after
                    gap += 1
                    if gap > PHRASE_GAP or after < 0:
                        last = -1
        self._codes.extend(written)
        self._codes.extend(code for code, weight in written.items() if weight == 2)

    def follows(self, least: int, offered: list[str]) -> _Follows:
        """Return the pairs written by *least* pages' worth whose second word is one of *offered* (the
        words offered, in order), as a ``_Follows``."""
        # Sorted where they lie, each run of one pair its weight; no pair made a Python object: as
        # dicts of dicts, the 485k pairs kept at 64k cost a read 6 CPU s and 81 MB kept.
        codes = np.frombuffer(self._codes, dtype=np.int64)
        if not len(codes):  # no pair at all (a corpus of Chinese: each character a word, none offered)
            return _Follows([], np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int32), offered)
        codes.sort()
        starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
        weights = np.diff(starts, append=len(codes))
        codes = codes[starts]
        del starts
        rank = {key: at for at, key in enumerate(offered)}
        ranks = np.array([rank.get(name, -1) for name in self._names], dtype=np.int64)  # a name's place in *offered*
        del rank
        kept = np.flatnonzero((weights >= least) & (ranks[codes & _LOW] >= 0))
        codes, weights = codes[kept], weights[kept].astype(np.int32)
        firsts, rows = np.unique(codes >> 32, return_inverse=True)
        names = [self._names[at] for at in firsts.tolist()]
        order = sorted(range(len(names)), key=names.__getitem__)
        place = np.empty(len(order), dtype=np.int64)
        place[order] = np.arange(len(order), dtype=np.int64)
        codes = place[rows.ravel()] << 32 | ranks[codes & _LOW]
        at = np.argsort(codes, kind="stable")
        return _Follows([names[at] for at in order], codes[at], weights[at], offered)


_LOW = 0xFFFFFFFF


class _Follows:
    """The words offered written after each word, or words ("stargate to", "stargate …"), with how many
    pages write them so (a title's twice): the keys written after, in order, and for each pair one
    8-byte number, the key's place << 32 | the word's place among the words offered (in order: the
    words starting with what is typed are a range of them), ascending, with its weight beside it
    (4 bytes).  At 64k, 485k pairs under 84k keys: some 10 MB."""

    __slots__ = ("_keys", "_codes", "_weights", "_offered")

    def __init__(self, keys: list[str], codes: np.ndarray, weights: np.ndarray, offered: list[str]) -> None:
        self._keys, self._codes, self._weights, self._offered = keys, codes, weights, offered

    def __len__(self) -> int:
        return len(self._codes)

    def __contains__(self, key: str) -> bool:
        return self._row(key) is not None

    def _row(self, key: str) -> int | None:
        at = bisect_left(self._keys, key)
        return at if at < len(self._keys) and self._keys[at] == key else None

    def after(self, key: str) -> dict[str, int]:
        """Return the words written after *key*, with their weights."""
        return self.written(key, "", [])

    def written(self, key: str, typed: str, earlier: list[str]) -> dict[str, int]:
        """Return the words starting with *typed* (folded), not among *earlier*, written after *key*,
        with their weights."""
        row = self._row(key)
        if row is None:
            return {}
        offered = self._offered
        low = bisect_left(offered, typed) if typed else 0
        high = bisect_left(offered, typed + "\U0010ffff") if typed else len(offered)
        if low == high:
            return {}
        start, end = np.searchsorted(self._codes, (row << 32 | low, row << 32 | high)).tolist()
        return {offered[at]: weight for at, weight in zip((self._codes[start:end] & _LOW).tolist(), self._weights[start:end].tolist())
                if offered[at] not in earlier}


def _give_back() -> None:
    """Hand the memory freed by a large read back to the operating system, where the C library can
    (glibc's malloc_trim): the read's passing objects left 45 MB of a 64k read's freed memory held by
    the worker (RSS kept +163 MB, +118 after a trim)."""
    trim = malloc_trim()  # None without glibc (musl, macOS): nothing to give back this way
    if trim is not None:
        trim()


def _pause() -> None:
    """Give the requests' thread the interpreter for a moment (a read beside them, in a thread of its own)."""
    unpatched("time", "sleep")(PAUSE_S)


class _Candidates:
    """The completions one snapshot can give, read from its stored fields and facet postings."""

    def __init__(self, snap: Snapshot, pause: Callable[[], None] | None = None) -> None:
        self._snap = weakref.ref(snap)  # for the words the search matches (``_held``); kept by the service
        # (snapshot, quoted phrase, the filters' key or None) -> some page (that they allow) writes it
        self._phrases_found: dict[tuple[str, str, tuple[object, ...] | None], bool] = {}
        self._within: dict[tuple[object, ...], _Within] = {}  # per filter (``within``)
        self.snapshot_id = snap.id  # the snapshot read: served while a later one is read (``Suggester``)
        titles: list[tuple[str, str, str]] = []
        postings: dict[str, array] = defaultdict(lambda: array("i"))
        surfaces: dict[str, Counter[str]] = defaultdict(Counter)
        keys = _WordKeys()
        tally = _PhraseTally(keys)
        # The reader's own document numbers, as ``_held`` gets them from the index: counting the
        # documents read instead shifted every one after a deleted document (an update deletes).
        self._title_docs = array("i")  # the document of each title, ascending: titles are phrases[:len]
        for docnum, fields in snap.searcher().reader().iter_docs():
            if pause is not None and not docnum % PAUSE_EVERY:
                pause()
            title = str(fields.get("title") or "")
            titles.append((title, str(fields.get("url") or ""), str(fields.get("id") or "")))
            self._title_docs.append(docnum)
            body = str(fields.get("body") or "")
            text = f"{title} {body}"
            title_words, body_words = _WORDS_AND_BREAKS.findall(title), _WORDS_AND_BREAKS.findall(body)
            seen: set[str] = set()
            for word in chain(title_words, body_words, _HYPHENATED.findall(text) if "-" in text else ()):
                key = keys[word]
                if key is not None:
                    surfaces[key][word] += 1
                    seen.add(key)
            for key in seen:
                postings[key].append(docnum)
            tally.add(title_words, body_words)
        # Made in one run after reading, so that what complete() walks for every prefix lies together in
        # memory, not among the words' tallies (on 64k documents the walk took 6.6 ms rather than 13.4).
        self.phrases = [_Candidate(Suggestion(title, "title", url, doc_id), " " + fold(title), 1) for title, url, doc_id in titles]
        self._facet_values: list[tuple[str, str]] = []  # the (field, value) of each of phrases[len(titles):]
        for facet, field, kind in _FACET_KINDS:
            for value, docs in snap.facet_docs[field].items():
                label = snap.label(facet, value)
                url = "/?" + urlencode({facet: value})
                self.phrases.append(_Candidate(Suggestion(label, kind, url), " " + fold(label), len(docs)))
                self._facet_values.append((field, value))
        # Each word offered, with the documents holding it (in the order read, 4 bytes each); a word is
        # shown as it is most often written ("Trainium2", "OpenAI", "gigawatts", "memory-efficient").
        # Only a hyphenated word's key holds a hyphen: fold() makes every hyphen a space.
        least = 1 if snap.doc_count <= ONE_DOCUMENT_WORDS_UP_TO else MIN_TERM_DOCS
        self.postings = {key: docs for key, docs in postings.items() if len(docs) >= least}
        self.terms: dict[str, tuple[str, int]] = {}
        self.hyphenated: dict[str, tuple[str, int]] = {}
        for key, docs in self.postings.items():
            words = self.hyphenated if "-" in key else self.terms
            words[key] = (surfaces[key].most_common(1)[0][0], len(docs))
        # The words offered written after each word, or words ("stargate to", "stargate …"), by pages
        # writing them so (a title's twice).
        self._sorted = sorted(self.terms)  # the words offered in order: a start is a range of them
        self.follows = tally.follows(least, self._sorted)
        if not _read_inline(snap):
            del tally, keys, surfaces, postings, titles
            _give_back()

    def within(self, filters: SearchParams) -> _Within | None:
        """Return what *filters* (a search's parameters: only its filters and dates are read) allow in
        the snapshot read, made once per filter (None when that snapshot is gone)."""
        snap = self._snap()
        if snap is None:
            return None
        filters = snap.canonical_filters(filters)  # "topic=Funding" is funding, as the search reads it
        key = (*filters.filters().values(), *filters.date_range)
        found = self._within.get(key)
        if found is None:
            chosen = [docs for docs in selected_docs(snap, filters).values() if docs is not None]
            if filters.since or filters.until:
                chosen.append(snap.dated_between(*filters.date_range))
            chosen.sort(key=len)
            # One filter: its own set, read only (a copy of a wide one was some 2 MB at 64k, 16 filters kept).
            docs = (chosen[0] if len(chosen) == 1 else chosen[0].intersection(*chosen[1:])) if chosen else snap.all_docs
            phrases = [cand for cand, docnum in zip(self.phrases, self._title_docs) if docnum in docs]
            for cand, (field, value) in zip(self.phrases[len(self._title_docs) :], self._facet_values):
                if allowed := len(docs.intersection(snap.facet_docs[field].get(value, ()))):
                    phrases.append(_Candidate(cand.suggestion, cand.folded, allowed))
            found = remember(self._within, key, _Within(key, docs, phrases), WITHIN_REMEMBERED)
        return found

    def _phrase_found(self, phrase: str, snap: Snapshot, within: _Within | None = None) -> bool:
        """Return whether some page of *snap* (the snapshot served) writes the quoted *phrase*
        (``_phrase_to_check``), a page *within* allows when given: a word offered after the earlier
        words may be written a word or two from them, so '"stargate mi' offered '"stargate Microsoft'
        and '"gpu cl' '"gpu cloud', phrases no page writes (a QA pass found 12 such of the completions
        of 10 quoted prefixes).  Remembered per snapshot read and filter (a phrase checked at one
        keystroke comes again at the next)."""
        parsed = build_query(phrase, snap.schema, snap.synonyms)
        found = not parsed.concepts or _some_within(matches(parsed.concepts[0].query, snap), within)
        if len(self._phrases_found) >= PHRASES_REMEMBERED:
            self._phrases_found.clear()
        self._phrases_found[(snap.id, phrase, None if within is None else within.key)] = found
        return found

    def _docs_with(self, words: list[str]) -> set[int] | None:
        """Return the documents holding every one of *words* (folded) that is a word (None: none is),
        as the search matches them (``_held``)."""
        held = sorted((self._held(key) for key in words if key in self.postings or _is_word(key, EARLIER_WORD_CHARS)),
                      key=lambda lists: sum(map(len, lists)))
        docs: set[int] | None = None
        for lists in held:
            docs = set().union(*lists) if docs is None else set().union(*(docs.intersection(docnums) for docnums in lists))
            if not docs:
                break
        return docs

    def _held(self, key: str) -> list[array]:
        """Return the documents whose title or body holds *key*, a word (folded), as the search matches
        it, one list a term and field: the index's terms, stemmed ("building data centers in te" offered
        nothing, no page writing "building" with Texas, where the search's first page for "building data
        centers in texas" holds every word: a QA pass), read once and kept by the snapshot (``term_docs``);
        and as written, where the search reads it otherwise than its analyser (the index holds "GPUs"
        as "gpu", the analyser makes "gpus").  The index is read only for a word it holds otherwise than
        written (reading every earlier word's, the QA's first pass over 3,835 prefixes at 64k, cold,
        took p90 63.1 ms for 38.9).  A word too rare to be offered ("meta", on one page) too."""
        snap = self._snap()
        written = [self.postings[key]] if key in self.postings else []
        # A word with "++" or "#" ("c++": ``_as_read``) is its own term alone, as a query reads it: the
        # index holds a page's "C++" as "c" too, which the analyser, reading for a page, also makes.
        mode = "query" if key.endswith(("+", "#")) else ""
        terms = {token.text for token in snap.analyzer(key, mode=mode)} if snap is not None else set()
        if snap is None or (written and terms <= {key}):  # the index's word is the one written: nothing more to read
            return written
        return written + [snap.term_docs(field, term) for term in terms for field in ("title", "body")]

    def _words(self, before: str, last: str, limit: int, within: _Within | None = None) -> list[tuple[_Rank, Suggestion]]:
        """Return the words completing *last* typed after *before*, ranked, each shown after *before* as
        typed; with *within*, only those a document it allows holds with the earlier words.

        After a hyphen, the hyphenated words the hub writes, or, when it writes none that fits, single
        words some page writes right after the typed parts (``_written_glued``: what the search then
        finds); among them, those the pages write after the earlier words (``follows``, ``_following``),
        then those sharing the most documents with the earlier words, then the most frequent.
        """
        # Read as the search reads it, one character for one: an en or em dash starting a word excludes
        # it ("–st" offered the Stargate pages' titles, and no "–Stargate": a QA pass).
        marked = typed_marks(before + last)[: len(before)]
        token = marked.rfind(" ") + 1
        start = len(marked) - len(marked[token:].lstrip(_OPERATORS))  # the typed word's start, after its operators
        if start < len(marked) and marked[-1] != "-":
            return []  # inside a word ("openai's", "u.s"): no word starts here
        if last in _OPERATOR_WORDS and before.strip():
            return []
        # (group, the typed word folded, its candidates, how many of a candidate's parts were typed)
        groups: list[tuple[int, str, dict[str, tuple[str, int]], int]] = []
        if start < len(marked):
            groups.append((0, _hyphenated_key(marked[start:] + last), self.hyphenated, marked[start:].count("-")))
        if last:
            groups.append((1, fold(last), self.terms, 0))
        earlier = fold(before).split()
        narrowing = _narrowing(marked)  # documents holding an excluded word are not what is asked for
        # The documents holding "c++", not those of "c", which narrow nothing (a word too short): on the
        # seed hub, which holds no C++, "c++ lib" offered "c++ library" (a QA pass).
        docs = _within_docs(self._docs_with(_asking(_narrowing(marked, read=True))), within)
        followed = _following(narrowing)
        # A word excluded leaves out some of what the earlier words (and filters) find, not all: "stargate
        # -o" offered "-OpenAI", which every Stargate page names (0 results); "-st" "-Stargate" on the page
        # of SoftBank, which every page of names.
        leaving = docs is not None and _excluding(marked)
        ranked: list[tuple[_Rank, Suggestion]] = []
        for group, typed, words, typed_parts in groups:
            if group == 1 and ranked:
                break  # after a hyphen, a word the hub writes hyphenated, not "fine-" glued to any word
            matches = [(key, surface, count) for key, (surface, count) in words.items() if key.startswith(typed) and key not in earlier]
            written = _written_after(self.follows, followed, typed, earlier)
            shared = self._shared(docs, matches, limit, written) if docs else {}
            if (group == 1 and (start < len(before) or docs is not None)) or within is not None:
                # A word glued after a hyphen only where a page holds it with the earlier words: "gcc-1"
                # offered "gcc-100dpi" and "gcc-1024x768", which no page writes nor means.  After words
                # some pages hold together, only a word one of them holds: "Conseil d" offered "Conseil
                # data" and "Conseil deal", searches with no result holding all their words; after words
                # no page holds together, none ("mobile m" offered "mobile model": no page says "mobile").
                # Under filters, only a word a page they allow holds, hyphenated or not.
                matches = [match for match in matches if shared.get(match[0], 0) > 0]
            if leaving:
                matches = [match for match in matches if shared.get(match[0], 0) < len(docs)]  # type: ignore[arg-type]
            found = sorted(((0, KIND_ORDER["term"], group, -written.get(key, 0), -shared.get(key, 0), -count, len(key), key), surface)
                           for key, surface, count in matches)
            if group == 1 and start < len(before):
                found = self._written_glued(marked[start:], found, min(limit, KIND_CAPS["term"]), within)
            ranked.extend((rank, Suggestion(before + surface.split("-", typed_parts)[-1], "term")) for rank, surface in found)
        return ranked + self._joined(before, last, within)

    def _titles_holding(self, prefix: str, whole: bool, within: _Within | None = None) -> list[tuple[_Rank, Suggestion]]:
        """Return the titles holding every word typed in *prefix*, in any order and with others between,
        the last as a word's start (whole when *whole*): "stargate m" offered no title, "Expanding
        Stargate to Michigan" not holding the two side by side.  Ranked after the titles holding them
        side by side.  Only the titles of the documents holding the earlier words (a word with "++" or
        "#" as the search reads it: ``_as_read``) are read, and none when more than SPREAD_TITLE_DOCS
        do (a common first word: its side-by-side titles are then enough)."""
        *earlier, last = fold(prefix).split()
        words = [f" {word} " for word in _asking(earlier)]
        docs = self._docs_with(_asking(_as_read(prefix)[:-1]))
        if docs is None:
            return []
        docs = _within_docs(docs, within)  # (the titles of documents *within* allows)
        if len(docs) > SPREAD_TITLE_DOCS:
            return []
        start = f" {last} " if whole else f" {last}"
        ranked = []
        for docnum in sorted(docs):
            at = bisect_left(self._title_docs, docnum)
            if at == len(self._title_docs) or self._title_docs[at] != docnum:
                continue
            cand = self.phrases[at]
            spaced = cand.folded + " "
            if start in spaced and all(word in spaced for word in words):
                ranked.append(((2, KIND_ORDER["title"], 0, 0, 0, 0, len(cand.folded), cand.folded), cand.suggestion))
        return ranked

    def _starting(self, start: str) -> list[str]:
        """Return the words offered that begin with *start* (folded), in order."""
        return self._sorted[bisect_left(self._sorted, start) : bisect_left(self._sorted, start + "\U0010ffff")]

    def _respelt(self, before: str, last: str, within: _Within | None = None) -> list[tuple[_Rank, Suggestion]]:
        """Return the words that the last word typed, one letter off, starts, when nothing else
        completes the text: "brodc" offered nothing, "hugginf" nothing, where the search corrects
        them (a QA pass).  One letter left out, added, changed or two swapped (``_one_letter_off``); only
        a word held with the earlier words ("memory band" offered "memory bend" and "memory land", which
        no page holds together: a QA pass); the commonest first."""
        typed = fold(last)
        if len(typed) < RESPELT_MIN_CHARS or not typed.isalpha() or not typed.isascii() or (before and not before[-1].isspace()):
            return []
        if typed in self.terms:  # a word the pages write is no misspelling: "stargate fine" offered "stargate five"
            return []
        docs = _within_docs(self._docs_with(_asking(_narrowing(before, read=True))), within)
        if docs is not None and not docs:
            return []
        kept, whole = _one_letter_off(typed)
        found: dict[str, int] = {}
        for key in chain((key for start in kept for key in self._starting(start)[:RESPELT_WORDS]), (key for key in whole if key in self.terms)):
            if docs is None or not docs.isdisjoint(self.postings[key]):
                found[key] = self.terms[key][1]
        best = sorted(found, key=lambda key: (-found[key], len(key), key))[:KIND_CAPS["term"]]
        return [((0, KIND_ORDER["term"], 2, 0, 0, -found[key], len(key), key), Suggestion(before + self.terms[key][0], "term")) for key in best]

    def _whole(self, prefix: str, within: _Within | None = None) -> list[tuple[_Rank, Suggestion]]:
        """Return the last word of *prefix*, typed whole, as the pages most often write it ("nvidia "
        gives "NVIDIA"), when it is a word offered (inside a word, "openai's ", nothing), by a page
        *within* allows when given."""
        before, last = _typed_word(prefix)
        token = prefix[prefix.rfind(" ") + 1 :].lstrip(_OPERATORS)
        if "-" in token.strip("-"):  # a hyphenated word ("multi-gpu "): as the pages write it hyphenated
            key, words, before = _hyphenated_key(token), self.hyphenated, prefix[: len(prefix) - len(token)]
        else:
            key, words = fold(last), self.terms
            bare = before.rstrip(_OPERATORS)
            if bare and not bare[-1].isspace():
                return []
        if not last or key not in words or not _some_within(self.postings[key], within):
            return []
        surface, count = words[key]
        return [((0, KIND_ORDER["term"], 1, 0, 0, -count, len(key), key), Suggestion(before + surface, "term"))]

    def _written_glued(self, start: str, found: list[tuple[_Rank, str]], limit: int,
                       within: _Within | None = None) -> list[tuple[_Rank, str]]:
        """Return the first *limit* words of *found* (ranked) that some page writes after *start*, the
        hyphenated word's typed parts, as the search reads the word glued so: its words side by side.
        "state-of-the-a" offered "state-of-the-announcement" and "ai-t" "ai-targeting", searches no
        page matched whole (with *within*, a page it allows).  At most GLUED_CHECKS words are looked up."""
        snap = self._snap()
        if snap is None:
            return []
        kept = []
        for rank, surface in found[:GLUED_CHECKS]:
            made = hyphenated_query(start + surface, snap.analyzer)
            if made is None or _some_within(matches(made[1], snap), within):
                kept.append((rank, surface))
                if len(kept) == limit:
                    break
        return kept

    def _joined(self, before: str, last: str, within: _Within | None = None) -> list[tuple[_Rank, Suggestion]]:
        """Return the words that the last two typed words start when written as one ("open ai" gives
        "OpenAI", "fluid st" "Fluidstack"), as the search reads such a pair; ranked among the last
        word's completions as if each of its documents held the earlier words ("data cen" gives
        "data center" before "datacenter", which fewer pages write); with *within*, those a document
        it allows holds."""
        head = before.rstrip()
        previous = head[head.rfind(" ") + 1 :]
        if not last or len(head) == len(before) or not previous.isalnum():
            return []
        if len(previous) < 2 or fold(previous) in STOP_WORDS:  # "stargate in te" is "in Texas", not "integration"
            return []
        joined = fold(previous + last)
        ranked = []
        for key in self._starting(joined):
            if within is not None and within.docs.isdisjoint(self.postings[key]):
                continue
            surface, count = self.terms[key]
            rank = (0, KIND_ORDER["term"], 1, -count, -count, -count, len(key), key)
            ranked.append((rank, Suggestion(head[: len(head) - len(previous)] + surface, "term")))
        return ranked

    def _shared(self, docs: set[int], matches: list[tuple[str, str, int]], limit: int, first: dict[str, int]) -> dict[str, int]:
        """Return how many of *docs* hold each word of *first* (written after the earlier words: ranked
        before the others) and each other word of *matches* (key, surface, count) that can be among the
        *limit* sharing the most (more than are shown, as some may repeat another completion); the
        words left out share fewer than those."""
        shared = {key: len(docs.intersection(self.postings[key])) for key in first}
        best: list[int] = []  # the largest shares so far, at most *limit* (a heap: best[0] the least)
        for key, _, count in sorted(matches, key=lambda match: -match[2]):
            if key in first:
                continue
            # A word shares at most its own documents: once they are fewer than the limit-th largest
            # share so far, neither it nor any rarer word can be among the first *limit*.
            if len(best) == limit and count < best[0]:
                break
            shared[key] = len(docs.intersection(self.postings[key]))
            (heapq.heappush if len(best) < limit else heapq.heappushpop)(best, shared[key])
        return shared

    def complete(self, prefix: str, limit: int, held: Callable[[Suggestion], bool] | None = None,
                 served: Snapshot | None = None, within: _Within | None = None) -> list[Suggestion]:
        """Return up to *limit* completions of *prefix*, best first; a prefix ending with a space
        ends with a whole word, completed by what starts with it, not by longer words.  With *held*,
        only the suggestions of documents it holds (looked up for those chosen only).  A word
        completed inside a quote is checked to make a phrase *served* (the snapshot served; by default
        the one read) writes.  With *within* (``within``), only what finds something under its filters,
        a phrase checked in the snapshot read (the filters' documents are its own)."""
        served = served if served is not None and within is None else self._snap()
        checks, began = 0, 0.0
        whole = prefix[-1:].isspace()
        prefix = " ".join(prefix.split())
        folded = fold(prefix)
        if not folded:
            return []
        ranked: list[tuple[_Rank, Suggestion]] = []
        if not _EXCLUDING.search(typed_marks(prefix)):
            snap = self._snap()
            named = None
            if snap is not None and not whole and _PLUS_BEING_TYPED.search(prefix):
                # A word's "++" half typed names what the word does, first: "g+" offered nothing where
                # "g++" offers the package g++, "GNU C++ compiler" (a QA pass on the Debian corpus); not
                # a package "g", which "g+" names as its slug, as "c+" would name one "c".
                named = snap.named(prefix + "+")
            if named is None and snap is not None:
                named = snap.named(prefix)
            if named is not None and (within is None or named in within.docs):
                # The document the text names, first, as the search puts it: "gimp" offered GIMP's plugins,
                # data files and Czech help, never GIMP (titles are matched on their words; a QA pass).
                fields = snap.stored(named)
                title = Suggestion(str(fields["title"]), "title", str(fields.get("url") or ""), str(fields.get("id") or ""))
                ranked.append(((-1, 0, 0, 0, 0, 0, 0, ""), title))
            needle = " " + folded
            own, dotted = _marks(prefix, whole) if not prefix.isalnum() else ([], [])
            # A number typed whole first ("$50": "Anthropic Commits $50 Billion" before "7,500 Nodes");
            # not a word's start: "gi" put "GI friendly Binding…" first at 64k, and the check cost
            # 10-30 % of a short prefix's time (the second regression QA pass).
            numeric = folded[-1:].isdigit()
            for cand in self.phrases if within is None else within.phrases:
                at = cand.folded.find(needle)
                if whole:  # the word typed whole: "open " is "Open-source training tools", not "OpenAI"
                    while at >= 0 and cand.folded[at + len(needle) : at + len(needle) + 1] not in ("", " "):
                        at = cand.folded.find(needle, at + 1)
                if at < 0:
                    continue
                if own and not all(mark.search(cand.suggestion.text) for mark in own):
                    continue  # "c++" is not "c"
                kind = cand.suggestion.kind
                part = 0 if not numeric or cand.folded[at + len(needle) : at + len(needle) + 1] in ("", " ") else 1 << 16
                ranked.append(((0 if at == 0 else 1, KIND_ORDER[kind], 0, 0, 0, -cand.weight, part + len(cand.folded), cand.folded), cand.suggestion))
            if " " in folded:
                ranked += [pair for pair in self._titles_holding(prefix, whole, within)
                           if all(mark.search(pair[1].text) for mark in own)]
            if dotted and any(all(mark.search(found.text) for mark in dotted) for _, found in ranked):
                ranked = [pair for pair in ranked if all(mark.search(pair[1].text) for mark in dotted)]  # ".net": .NET's
        before, last = _typed_word(prefix)
        if whole:
            ranked += self._whole(prefix, within)
            # Two words typed whole that the pages write as one ("lib ssl ": libssl), that word alone.
            one = fold(before.rstrip()[before.rstrip().rfind(" ") + 1 :] + last)
            ranked += [((*rank[:2], 2, *rank[3:]), found) for rank, found in self._joined(before, last, within)
                       if fold(found.text.rsplit(" ", 1)[-1]) == one]  # after the words as typed
        else:
            ranked += self._words(before, last, limit, within)
            # Tried one letter off while no word completes it, whatever else does: at 64k "pyhton" offered
            # only the title "Documentation pyhton peewee simple ORM", never Python (a QA pass).
            if not any(suggestion.kind == "term" for _, suggestion in ranked):
                ranked += self._respelt(before, last, within)
        ranked.sort(key=lambda pair: pair[0])
        chosen: list[Suggestion] = []
        per_kind: Counter[str] = Counter()
        seen: set[str] = set()
        for _, suggestion in ranked:
            if per_kind[suggestion.kind] >= KIND_CAPS[suggestion.kind]:
                continue  # checked first: folding every word of a full kind is most of a call's time
            if held is not None and suggestion.doc_id and not held(suggestion):
                continue  # deleted or retitled since: its title led to a 404 (left out before its text counts as seen: a title alike stays)
            key = fold(suggestion.text)
            if key in seen:
                continue
            seen.add(key)
            if suggestion.kind == "term" and served is not None and (phrase := _phrase_to_check(suggestion.text)):
                # Each check is a phrase search of the snapshot: at 64k, '"this package provides the command
                # line t' made some 300 of them, 2.4 s (a review); past PHRASE_CHECKS, or PHRASE_CHECK_S,
                # only phrases remembered (first asked, "package c" offered one word, then three: a review).
                began = began or time.perf_counter()
                may_search = checks < PHRASE_CHECKS and time.perf_counter() - began <= PHRASE_CHECK_S
                found = self._phrases_found.get((served.id, phrase, None if within is None else within.key))
                if found is None:
                    if not may_search:
                        continue
                    found = self._phrase_found(phrase, served, within)
                checks += may_search  # a phrase remembered counts as checked while checks may be made
                if not found:
                    continue
            per_kind[suggestion.kind] += 1
            chosen.append(suggestion)
            if len(chosen) == limit:
                break
        return chosen


def _read_size(snap: Snapshot) -> int:
    """Return what reading *snap*'s completions costs, in words (``READ_INLINE_WORDS``): the words of
    its titles and bodies as Whoosh counts them per field (known without reading a document; a
    deleted document's count until its segment is merged), and READ_DOC_WORDS a document."""
    reader = snap.searcher().reader()
    return reader.field_length("title") + reader.field_length("body") + READ_DOC_WORDS * snap.doc_count


def _read_inline(snap: Snapshot) -> bool:
    """Return whether *snap*'s completions are read in the request that first asks (a snapshot with
    little text), not in a thread of their own."""
    return _read_size(snap) <= READ_INLINE_WORDS


def _gone(snap: Snapshot) -> bool:
    """Return whether *snap* is no longer the one published, or its folder is gone."""
    root = snap.path.parent.parent  # store.snapshots_dir(root) / id
    return store.current_id(root) != snap.id or not snap.path.is_dir()


class Suggester:
    """Complete prefixes from the snapshot *snapshot()* returns (the one served); candidates are kept per snapshot.

    A snapshot with more text than READ_INLINE_WORDS words is read in an operating-system thread of
    its own (64k documents: some 12 CPU seconds), not in the request that first asks: that request,
    and every other one of the worker, waited for it (a health check 9.6 s after a publish, a search
    16.9 s; 1,950 long documents, 6-9 s and more, past gunicorn's timeout).  Until it is read,
    completions come from the snapshot read before (no title of a document the one served no longer
    holds), or there are none.
    """

    def __init__(self, snapshot: Callable[[], Snapshot]) -> None:
        self.snapshot = snapshot
        self._cached: tuple[str, _Candidates] | None = None
        self._reading: str | None = None  # the snapshot being read in the background (one at a time)
        self._wanted: str | None = None  # the snapshot last served
        self._lock = threading.Lock()

    def _candidates(self, snap: Snapshot | None = None) -> _Candidates | None:
        """Return the candidates to serve for *snap* (default: the one served now): its own, or while
        it is read beside the requests the snapshot's read before (None: none yet)."""
        snap = self.snapshot() if snap is None else snap
        self._wanted = snap.id  # what a read beside the requests is measured against once it ends
        cached = self._cached
        if cached is not None and cached[0] == snap.id:
            return cached[1]
        if not _read_inline(snap):
            with self._lock:
                if self._reading is None:  # one read at a time: publishes in a row started one each (RSS 630 MB)
                    self._reading = snap.id
                    unpatched("_thread", "start_new_thread")(self._read, (snap,))
            return cached[1] if cached is not None else None
        with self._lock:
            cached = self._cached
            if cached is None or cached[0] != snap.id:
                with searching_in(snap.language):  # its function words are offered as no word
                    cached = (snap.id, _Candidates(snap))
                self._cached = cached
            return cached[1]

    @property
    def reading(self) -> bool:
        """Whether a snapshot is being read beside the requests (completions are then not the current's)."""
        return self._reading is not None

    def _read(self, snap: Snapshot) -> None:
        """Read *snap*'s candidates (in a thread of their own) and serve them from then on."""
        try:
            with searching_in(snap.language):
                candidates = _Candidates(snap, pause=_pause)
            with self._lock:
                # Overtaken by a publish or a rollback, it is dropped only where the one served is read
                # already; else it answers, as the read before does, until the next read ends (what the
                # one served no longer holds left out).  Always dropped, a worker started while updates
                # came every few seconds offered nothing at all (1,077 of 1,077 answers at 64k, a QA
                # pass), each read overtaken before it ended.
                if self._wanted == snap.id or self._cached is None or self._cached[0] != self._wanted:
                    self._cached = (snap.id, candidates)
        except Exception as error:  # a snapshot gone while read, an index file unreadable: the next request tries again
            if _gone(snap):  # pruned while read (update, then prune --keep 0): dropped, as a publish drops it
                _log.info("search as you type: snapshot %s was replaced while read; its read is dropped (%s)", snap.id, type(error).__name__)
            else:
                _log.exception("search as you type: snapshot %s could not be read", snap.id)
        finally:
            with self._lock:
                if self._reading == snap.id:
                    self._reading = None

    def suggest(self, prefix: str, limit: int = MAX_SUGGESTIONS, filters: SearchParams | None = None) -> list[Suggestion]:
        """Return up to *limit* completions of *prefix*, best first (none for an empty prefix, and
        none while a large snapshot is first read); with *filters* (a search's parameters: its
        filters and dates are read), only those finding something under them.  While a snapshot is
        read, the one read before answers without the titles of documents the one served no longer
        holds: after an update deleted a document from the 64k index, its title was offered, a link to
        a 404, for ~40 s (a QA pass; a takedown's page named as you type).  Under filters it answers
        only while the service still holds it (its document numbers are what the filters are read in)."""
        if not fold(prefix):
            return []
        snap = self.snapshot()
        candidates = self._candidates(snap)
        if candidates is None:
            return []
        within = None
        if filters is not None and _filtering(filters):
            within = candidates.within(filters)
            if within is None:  # the snapshot read is gone: nothing tells what the filters allow
                return []
        with searching_in(snap.language):
            return candidates.complete(prefix, limit, None if candidates.snapshot_id == snap.id else _StillHeld(snap), snap, within)


class _StillHeld:
    """Whether the snapshot served still holds the document of a suggestion from the snapshot read
    before, under the same title when it is a title (right after an update, half the answers offered a
    retitled document's old title: a QA pass under updates); after TITLE_CHECKS look-ups, no."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap, self.left = snap, TITLE_CHECKS

    def __call__(self, suggestion: Suggestion) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        if suggestion.kind != "title":
            return self.snap.holds(suggestion.doc_id)
        return self.snap.title_of(suggestion.doc_id) == suggestion.text
