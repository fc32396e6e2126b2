"""Spelling: match a word the index does not have to the index words a few edits away.

The index's vocabulary is its analysed (stemmed) words.  A typed word whose analysed form is not in
it is compared, both as typed and as analysed, with the vocabulary's words of the same first letter,
listed once per snapshot, by RapidFuzz's Levenshtein distance in C (Whoosh's automaton over the
term lists, used before, took 60–490 ms for a long misspelling at 64k documents); an adjacent
transposition ("kuberentes") counts as one edit.  How far a word may be from its match grows
with its length: not at all under 4 characters or past 40 (``LONGEST_CORRECTED``), 1 edit up to 8,
2 from 9; the first letter must be right (or swapped with the second), which keeps "mining" from
matching "fine".  The closest words win, the most frequent first.  For a did-you-mean the analysed
word is turned back into a word a reader would type, taken from a document that contains it.

Look-ups are cached per snapshot in a bounded dict the service holds (snapshots never change).
"""

from __future__ import annotations

import functools
import html
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from pathlib import Path

from rapidfuzz import process
from rapidfuzz.distance import OSA, Levenshtein

from whoosh import query as wq
from whoosh.analysis import Analyzer
from whoosh.searching import Searcher

from index import vectors as doc_vectors
from index.analysis import CHARSET_MAP, WORD, TermAnalyzer, english_stemmer, greek_names, query_language
from search.cache import remember
from search.query import (
    SEARCH_FIELDS, Concept, ParsedQuery, assemble, corrected_query, excluded_at, excluded_in_vain, expand, function_terms,
)
from search.results import Suggestion
from search.synonyms import Synonyms

CACHE_LIMIT = 4096
_UNSET = object()  # no entry: a look-up result may be None
SURFACE_TIES = 8  # close spellings at most that are told apart by how documents write them
_DIGIT = re.compile(r"\d")
_VOWEL = re.compile("[aeiouy]")
_WRITTEN_WORD = re.compile(WORD)
FORM_DOCS = 4  # the documents of each field a word's written forms are read from
SENTENCE_ENDS = frozenset(".!?:;\"'(\u2022-")  # what a sentence's first word follows (as do a line's start, the text's)
WRITES_DOCS = 64  # the documents of each field searched for the word a typo is close to (``surface``)


COMPLETION_MIN_CHARS = 5  # letters a word cut short needs to be completed ("wiresha"; not "cart")
COMPLETIONS = 4  # index words at most a word cut short is searched as
COMPLETION_STRETCH = 1.5  # ... each at most this many times as long as what was typed (stems)


LONGEST_CORRECTED = 40  # characters: a longer "word" is no typo of one (a pasted hash, a run of keys)


def _side_by_side(terms: Sequence[str]) -> wq.Query:
    """Return the query for the words *terms* (analysed) side by side in a searched field."""
    return wq.Or([wq.Phrase(field, list(terms)) for field in SEARCH_FIELDS])


def allowed_distance(length: int) -> int:
    """Return how many edits a typed word of *length* characters may be from an index word: none for
    a word too short to tell a typo from another word, or too long to be a misspelt one (its one-edit
    variants and distances cost the square of its length: 4,096 letters took 12 s)."""
    if length < 4 or length > LONGEST_CORRECTED:
        return 0
    return 1 if length < 9 else 2


def edit_distance(a: str, b: str) -> int:
    """Return the edit distance of *a* and *b*, an adjacent transposition counting as one edit."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[-1]


def _match_case(word: str, typed: str) -> str:
    if len(typed) > 1 and typed.isupper():
        return word.upper()
    return word.capitalize() if typed[:1].isupper() else word


def _capitals_inside(word: str) -> bool:
    """Return whether *word* has a capital past its first letter ("DeepSpeed", "GPUs"; not "Stargate")."""
    return word[1:] != word[1:].lower()


SHORT_WORD_CHARS = 4  # letters at most of a typed word that one changed letter makes another word


def _changed_letter(surface: str, folded: str) -> bool:
    """Return whether *surface* differs from *folded* (typed) only by letters changed in place, not by a
    letter left out, added or swapped with its neighbour."""
    lowered = surface.lower()
    return len(lowered) == len(folded) and sorted(lowered) != sorted(folded)


def _part_of_name(written: str, folded: str) -> bool:
    """Return whether *written* (a word as a page writes it) is a name whose first part is *folded*
    (typed, folded), a capital starting the next part: "MobileMoE" of "mobile"; not "Pressure"."""
    return len(written) > len(folded) and written[: len(folded)].lower() == folded and written[len(folded)].isupper()


CASED_MAX_CHARS = 5  # letters at most of a word typed in capitals that is read as an acronym ("ASIC")


def _cased(typed: str) -> bool:
    """Return whether *typed* was written with capitals inside as a name or an acronym is: in capitals
    and short ("ASIC"; "KUBERENTES" is caps lock), or in mixed case ("RoCE", "DeepSpeeed")."""
    letters = [c for c in typed if c.isalpha()]
    if len(letters) < 2 or not _capitals_inside(typed):
        return False
    return len(letters) <= CASED_MAX_CHARS or not typed.isupper()


def _as_shown(written: str, typed: str) -> str:
    """Return a word as a page writes it (*written*: accents kept, "Jalapeño") in the case *typed* was
    typed in, unless the page writes capitals inside it, which name it ("DeepSpeed", "GitHub", "GPUs")."""
    if _capitals_inside(written) and not (len(typed) > 1 and typed.isupper()):
        return written
    return _match_case(written.lower(), typed)


COMMON_FROM = 4  # letters at least of a typed word read as a common English word
# How often (a share of English text, wordfreq's estimate) a word of Webster's list is used, at least, to
# be a common word: once in some 316,000 words (Zipf 3.5), "lease", "loan" and "wire" and not "tran".
COMMON_FREQUENCY = 10 ** (3.5 - 9)
WHOLE_FROM = 5  # letters at least of a word the tokenizer holds whole to be common by that alone
_INFLECTIONS = (("ing", "e"), ("ing", ""), ("ed", "e"), ("ed", ""), ("es", ""), ("s", ""))
COMMON_WORDS = Path(__file__).resolve().parent / "data" / "common_words.txt"


@functools.cache
def _common_words() -> frozenset[str]:
    """Return the common English words of COMMON_WORDS (``derive_common_words`` made them)."""
    return frozenset(line for line in COMMON_WORDS.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#"))


def derive_common_words() -> list[str]:
    """Return, sorted, the words of Webster's Second International (lower case, letters only) that
    English text uses at least COMMON_FREQUENCY of the time (wordfreq's large English list) or, of
    WHOLE_FROM letters at least, that the packaged model's tokenizer holds whole ("manifold",
    "resize").  Webster's alone holds rare words a typo can land on ("tran" for "train"); the
    tokenizer alone holds word starts and other languages' words ("pover", "memor", "fonction"), and
    of four letters Webster's lists many of those ("stre", "apar").  Written to COMMON_WORDS by
    ``python -m bench.common_words`` (a web worker reading Webster's 234,000 words would hold some
    9 MB more)."""
    from english_words import get_english_words_set  # test and benchmark dependencies only
    from wordfreq import get_frequency_dict

    webster = get_english_words_set(["web2"], lower=True, alpha=True)
    used = get_frequency_dict("en", wordlist="large")
    cut = len(doc_vectors.WORD_MARK)
    pieces = doc_vectors.encoder().tokenizer.get_vocab()
    whole = {p[cut:].lower() for p in pieces if p.startswith(doc_vectors.WORD_MARK)}
    return sorted(w for w in webster if used.get(w, 0.0) >= COMMON_FREQUENCY or (len(w) >= WHOLE_FROM and w in whole))


def common_word(typed: str) -> bool:
    """Return whether *typed* (COMMON_FROM letters or more) is a common English word, or one of its
    plain inflections ("exports", "turning"): "export controls" means export, not "expert"."""
    word = typed.lower()
    if len(word) < COMMON_FROM or not word.isalpha():
        return False
    words = _common_words()
    return word in words or any(
        word.endswith(end) and len(base := word[: -len(end)] + add) >= COMMON_FROM and base in words for end, add in _INFLECTIONS
    )  # "maes" is no inflection of "ma"


APART_DOCS_READ = 20  # documents read at most to find two words side by side as words of their own
WRITTEN_DOCS_READ = 50  # documents read at most to find a word's other spelling written as a word
APART_TOKENS = 10_000  # raw tokens an analyzer for that keeps analysed


def _side_by_side_whole(tokens: list[tuple[str, int, int, int]], first: str, second: str) -> bool:
    """Return whether *tokens* (``TermAnalyzer.tokens``) have *first* and then *second*, each the
    only term at its position (a whole word, not a part of one)."""
    at: dict[int, list[str]] = {}
    for term, pos, _, _ in tokens:
        at.setdefault(pos, []).append(term)
    return any(terms == [first] and at.get(pos + 1) == [second] for pos, terms in at.items())


class Vocabulary:
    """The words of one snapshot's index, read through a searcher (see search.query.Vocabulary)."""

    def __init__(
        self, searcher: Searcher, analyzer: Analyzer, cache: dict[tuple[str, ...], object],
        words: dict[str, dict[str, list[str]]] | None = None, synonym_words: dict[str, str] | None = None,
        names: Callable[[str], object] | None = None,
    ) -> None:
        self.searcher = searcher
        self.reader = searcher.reader()
        self.analyzer = analyzer
        self._cache = cache
        self._words = {} if words is None else words  # the snapshot's words by first letter, listed once
        # One-word synonym variants as written, by analysed word (``Snapshot.synonym_words``): words a
        # query may mean although no page writes them ("huggingface", where pages say "Hugging Face").
        self.synonym_words = synonym_words or {}
        # Whether a word, as written, is a document's name (``Snapshot.named``): of close spellings
        # equally near, a name is meant rather than a common English word ("nodjs": nodejs, not "nodes").
        self.names = names
        # The words typed in this query whose correction finds no more than the query as typed
        # (``expand_helpfully``): not searched corrected, only offered.  A Vocabulary is one query's.
        self.refused: dict[str, str] = {}  # typed -> the correction (analysed) not searched

    def warm(self) -> None:
        """List the snapshot's words now (at 64k some 0.5 s), not in the first search that needs them."""
        self._by_letter()

    def _by_letter(self) -> dict[str, list[str]]:
        """Return the searched fields' words grouped by their first letter (listed on first use)."""
        found = self._words.get("by_letter")
        if found is None:
            grouped: dict[str, set[str]] = {}
            for fieldname in SEARCH_FIELDS:
                for term in self.reader.field_terms(fieldname):
                    grouped.setdefault(term[:1], set()).add(term)
            found = self._words.setdefault("by_letter", {letter: sorted(words) for letter, words in grouped.items()})
        return found

    def frequency(self, word: str) -> int:
        """Return how many documents have *word* in a searched field (counted once per field)."""
        key = ("frequency", word)  # asked for the typed words of every query at 64k (``rare_word_fixes``)
        found = self._cache.get(key)
        if found is None:
            found = self._remember(key, sum(self.reader.doc_frequency(f, word) for f in SEARCH_FIELDS))
        return found  # type: ignore[return-value]

    def common(self, typed: str) -> bool:
        """Return whether *typed* is a common English word (``common_word``): meant, not a typo."""
        return common_word(typed)

    def side_by_side(self, characters: str) -> bool:
        """Return whether some document holds *characters* (Chinese or Japanese, each a word of the index)
        side by side in a searched field (``search.query.segmented``)."""
        key = ("side by side", characters)
        found = self._cache.get(key)
        if found is None:
            terms = self._analysed(characters)
            query = _side_by_side(terms) if len(terms) > 1 else wq.Or([wq.Term(field, term) for field in SEARCH_FIELDS for term in terms])
            found = self._remember(key, bool(terms) and next(iter(query.docs(self.searcher)), None) is not None)
        return found  # type: ignore[return-value]

    def follows(self, first: str, second: str) -> bool:
        """Return whether some document has the word *second* right after *first* (analysed) in a searched field."""
        return self.together(first, second, 1) > 0

    def together(self, first: str, second: str, limit: int) -> int:
        """Return how many documents (up to *limit*) have *second* right after *first* (analysed) in
        a searched field: how many pages hold a word typed in two, read apart."""
        key = ("together", first, second, limit)
        found = self._cache.get(key)
        if found is None:
            found = self._remember(key, sum(1 for _ in islice(_side_by_side((first, second)).docs(self.searcher), limit)))
        return found  # type: ignore[return-value]

    def apart(self, first: str, second: str) -> bool:
        """Return whether some document writes the words *first* and *second* (analysed) side by side
        as words of their own ("GPT-3"), not where one is a part of a word ("ruby-mysql2" holds "ruby"
        and then the "2" of "mysql2", at the same position: the index holds a word's parts there)."""
        key = ("apart", first, second)
        found = self._cache.get(key)
        if found is None:
            analyzer = TermAnalyzer(limit=APART_TOKENS, language=query_language())
            found = False
            for docnum in islice(_side_by_side((first, second)).docs(self.searcher), APART_DOCS_READ):
                stored = self.searcher.stored_fields(docnum)
                if any(_side_by_side_whole(analyzer.tokens(str(stored.get(field) or "")), first, second) for field in SEARCH_FIELDS):
                    found = True
                    break
            found = self._remember(key, found)
        return found  # type: ignore[return-value]

    def writes(self, spelled: str, word: str) -> bool:
        """Return whether some document holding *word* (analysed) writes it *spelled* (lower case), or
        that and an ending ("centers" for "center"), and not only inside longer words the stemmer cuts to
        it: "liber", the other spelling of "libre", is the stem of "Liberation" and "liberator", no page's
        word (``WRITTEN_DOCS_READ`` of its documents read at most)."""
        key = ("writes", spelled, word)
        found = self._cache.get(key)
        if found is None:
            written = re.compile(rf"(?<![^\W_]){re.escape(spelled)}(?:s|es|d|ed|ing)?(?![^\W_])", re.IGNORECASE)
            term = wq.Or([wq.Term(field, word) for field in SEARCH_FIELDS])
            found = self._remember(key, any(
                written.search(str(stored.get(field) or ""))
                for stored in map(self.searcher.stored_fields, islice(term.docs(self.searcher), WRITTEN_DOCS_READ))
                for field in SEARCH_FIELDS
            ))
        return found  # type: ignore[return-value]

    def contains(self, word: str) -> bool:
        key = ("has", word)  # asked for every typed word of every query: kept with the other look-ups
        found = self._cache.get(key)
        if found is None:
            found = self._remember(key, any(self.reader.doc_frequency(f, word) for f in SEARCH_FIELDS))
        return found  # type: ignore[return-value]

    def completions(self, typed: str) -> list[str]:
        """Return the index words that *typed*, a word the index lacks as analysed, is the start of,
        the most frequent first: its own letters, when the index has them as the stem of a longer word
        ("libreoffic", which the stemmer cuts on to "libreoff", is how the index has "LibreOffice");
        else, for a word of ``COMPLETION_MIN_CHARS`` letters or more, the ``COMPLETIONS`` commonest
        index words it begins, of up to ``COMPLETION_STRETCH`` times its length ("wiresha":
        "wireshark"), for an English word only names it is the first part of ("mobile": MobileMoE);
        else none."""
        if typed in self.refused:  # a word cut short is corrected when completed: not where refused ("megatr")
            return []
        folded = self._fold(typed)
        if folded in function_terms():
            return []
        if self.contains(folded):
            return [folded]
        if len(folded) < COMPLETION_MIN_CHARS or not folded.isalpha():
            return []
        # A beginning, not a fragment: a third of the word at most is missing ("wiresha", "kubern";
        # not "feldman" of "FeldmanHashMap", a name the pages lack).
        longest = len(folded) * COMPLETION_STRETCH
        functions = function_terms()
        words = [w for w in self.prefixed(folded, COMPLETIONS) if w not in functions and len(w) <= longest]
        if self.common(typed):
            # An English word is a word of its own ("press" is not "pressure"), unless a name the pages
            # write in parts starts with it: "mobile" of "MobileMoE".
            words = [w for w in words if any(_part_of_name(way, folded) for _, way in self._written_forms(w))]
        return sorted(words, key=lambda w: (-self.frequency(w), w))

    def _fold(self, typed: str) -> str:
        tokens = [t.text for t in self.analyzer(typed, mode="query", no_morph=True, removestops=False)]
        return tokens[0] if len(tokens) == 1 else typed.lower()

    def _remember(self, key: tuple[str, ...], value: object) -> object:
        return remember(self._cache, key, value, CACHE_LIMIT)

    def near(self, typed: str, word: str, offered: bool = False) -> list[tuple[str, int]]:
        """Return the index words closest to *typed* (analysed: *word*) with their distance, best first:
        of the ``closest`` stems, those whose words, as documents write them, are closest to *typed*.
        A correction only *offered* (a did-you-mean, not searched) may also change a short word's letter.

        Stems tie more often than words: "stargte" (stem "stargt") is one edit from the stems of both
        "Stargate" and "start"; "Stargate" is one edit from what was typed, "start" two, so "start"
        is not searched (it brought a page for "starting in 2027") nor marked."""
        if not offered and typed in self.refused:
            return []
        if not offered and self.names is not None and self.names(typed) is not None:
            return []  # a document's name is meant: "dhex editor" said "Showing results for DEX editor" (a QA pass)
        key = ("near", typed, word, str(offered))
        if (kept := self._cache.get(key, _UNSET)) is not _UNSET:  # one look-up: another thread may empty it
            return kept  # type: ignore[return-value]
        found = self.closest(typed, word)
        functions = function_terms()
        if any(w in functions for w, _ in found):
            # A misspelt function word ("thier", "wiht"): searching for it would find nearly every
            # page and rank by noise, so it is no correction.
            found = []
        if found:
            found = found[:SURFACE_TIES]  # the most frequent
            # A correction is shown, and so judged, as pages write it: a stem one edit away whose
            # words are all further from what was typed is no correction ("groq": "grow", which pages
            # only write "growing"; "several": "seven"; "classification": "classical").
            folded = self._fold(typed)
            limit = allowed_distance(len(folded))
            apart = {w: self._apart(self.surface(w, typed), folded) for w, _ in found}
            found = [(w, d) for w, d in found if apart[w] == min(apart.values()) and apart[w] <= limit]
            if len(found) > 1 and self.names is not None and common_word(self.surface(found[0][0], typed)):
                # The commonest is an English word, and another one a document's name: the name is
                # meant (a stable sort keeps the frequency order otherwise: "nmpy" is still NumPy).
                found.sort(key=lambda pair: self.names(self.surface(pair[0], typed)) is None)
            if found and len(folded) <= SHORT_WORD_CHARS and not offered:
                # In a word this short one letter changed is another word ("maia": MTIA, "asic": Asia,
                # "roce": race; QA pass T): a letter left out, added or two swapped is still a typo.
                found = [(w, d) for w, d in found if not _changed_letter(self.surface(w, typed), folded)]
            if found and _cased(typed):
                # "ASIC", "RoCE": a word typed with capitals inside is a name or an acronym as its
                # writer knows it; it is corrected only into one the pages write so ("GPUU": GPU),
                # never into a plain word ("ASIA", "Race", "OPEN").
                found = [(w, d) for w, d in found if any(_capitals_inside(way) for _, way in self._written_forms(w))]
        if not found and self.synonym_words:
            found = self._near_synonym(typed, word)
        return self._remember(key, found)  # type: ignore[return-value]

    def _near_synonym(self, typed: str, word: str) -> list[tuple[str, int]]:
        """Return the one-word synonym variants no page writes that are closest to *typed* (analysed:
        *word*) within the allowed edits, as written: "hugingface" is "huggingface", a variant of
        "Hugging Face", and "-britian" excludes "britain", the UK page's synonym."""
        folded = self._fold(typed)
        limit = allowed_distance(len(folded))
        if not limit or _DIGIT.search(word):
            return []
        scored = {}
        for analysed, written in self.synonym_words.items():
            if analysed != word and not self.contains(analysed):
                # As written, or as stems within the edits a stem that short allows: "utilities"
                # (stem "util") was two edits from "mail", the "e-mail" group's word, and every query
                # holding it and a typo said "Including results for mail …" (a QA pass).
                stems = OSA.distance(analysed, word)
                distance = min(OSA.distance(written.lower(), folded), stems if stems <= allowed_distance(len(word)) else limit + 1)
                if distance <= limit:
                    scored[analysed] = distance
        best = min(scored.values(), default=0)
        return sorted((w, d) for w, d in scored.items() if d == best)

    def _apart(self, surface: str, folded: str) -> int:
        """Return the edits from *folded* (a typed word) to *surface* as written or as folded ("GPUs"
        is "gpus" and "gpu": "gpuqs" is one edit from it)."""
        return min(_typed_distance(surface, folded), _typed_distance(self._fold(surface), folded))

    def closest(self, typed: str, word: str) -> list[tuple[str, int]]:
        """Return every index word at the least distance from *typed* (analysed: *word*) within the
        allowed edits, with that distance, the most frequent first."""
        folded = self._fold(typed)
        maxdist = allowed_distance(len(folded))
        found: dict[str, int] = {}
        if maxdist:
            forms = tuple(dict.fromkeys((word, folded)))
            # A stem within the edits its own length allows, one at least from three letters ("une"
            # of "uning": "use"; not "ad" of "added": "amd"): it is shorter than the word, and two
            # stems cut short can be closer than their words ("anthrop" and "antelop": two edits
            # apart, four between "anthropic" and "antelope").
            allowed = {f: min(maxdist, max(int(len(f) >= 3), allowed_distance(len(f)))) for f in forms}
            for term in self._within(forms, maxdist):
                near = [d for f in forms if (d := edit_distance(term, f)) <= allowed[f]]
                if near:
                    found[term] = min(near)
            for form in forms:
                for i in range(len(form) - 1):
                    swapped = form[:i] + form[i + 1] + form[i] + form[i + 2 :]
                    if swapped != form and self.contains(swapped):
                        found[swapped] = 1
            # One edit as written, more as stems ("trainng": "training", whose stem "train" is two
            # edits away), when a page writes that word: most such strings are no word ("traine" of
            # "trainer", "amdded" of "added", whose stem is "amd").
            for stem, variants in self._variants(folded).items():
                if found.get(stem, 2) > 1 and not variants.isdisjoint(form for form, _ in self._written_forms(stem)):
                    found[stem] = 1
        # A number names a thing ("h200" is not "h100", "h100" not "h100i", "gpt5" not "gp5"): a word
        # with a digit is only corrected by two letters swapped back ("pyhton3"), and a word without
        # one never into a word with one.
        numbered = _DIGIT.search(word) is not None
        found = {
            w: d for w, d in found.items()
            if 0 < d <= maxdist and w != word and (sorted(w) == sorted(word) if numbered else _DIGIT.search(w) is None)
        }
        best = min(found.values(), default=0)
        ranked = sorted((w for w, d in found.items() if d == best), key=lambda w: (-self.frequency(w), w))
        return [(w, best) for w in ranked]

    def _variants(self, folded: str) -> dict[str, set[str]]:
        """Return the index words that words one edit from *folded* (as written) analyse to, each with
        those words (``one_edit``).  A typo in an inflected word is one edit from the word and more
        from its stem: "trainng" is two from "train", one from "training".  A word of Russian or Greek
        letters varies in its alphabet (a QA pass: their words are stems since schema 20, and "стриоть"
        was more than one edit from "стро" of "строить")."""
        key = ("variants", folded)
        if (kept := self._cache.get(key, _UNSET)) is not _UNSET:  # one look-up: another thread may empty it
            return kept  # type: ignore[return-value]
        found: dict[str, set[str]] = {}
        letters = _letters_of(folded)
        if allowed_distance(len(folded)) and folded.isalpha() and letters is not None:
            words = list(dict.fromkeys(one_edit(folded, letters)))
            functions = function_terms()
            for variant, stem in zip(words, english_stemmer(query_language()).stemWords(words)):
                # A function word is no correction (``near``), and a made-up word can stem to one
                # ("aing": "a"), which would veto "along" for "alng".
                if stem not in functions and (stem in found or stem in self._letter_set(stem[:1])):
                    found.setdefault(stem, set()).add(variant)
        return self._remember(key, found)  # type: ignore[return-value]

    def _letter_set(self, letter: str) -> frozenset[str]:
        key = f"set {letter}"
        found = self._words.get(key)
        if found is None:
            found = self._words.setdefault(key, frozenset(self._by_letter().get(letter, ())))  # type: ignore[arg-type]
        return found  # type: ignore[return-value]

    def two_edits(self, typed: str) -> str | None:
        """Return the index word (analysed) the most documents hold among those two edits from *typed*
        as some document writes it ("stargate" for "starget"), of the ``FAR_TYPO_READ`` commonest that
        ``FAR_TYPO_HELD`` documents hold at least; else None."""
        folded = self._fold(typed)
        key = ("two_edits", folded)
        if (kept := self._cache.get(key, _UNSET)) is not _UNSET:  # one look-up: another thread may empty it
            return kept  # type: ignore[return-value]
        # Never a function word: "intel" offered "into", "andom" "and" (a QA pass; as ``near``)
        found = self._two_edits_of(folded, set(self._within((folded,), 2)))
        if found is None:
            # Two edits from a word as written can be three or more from its stem, which is shorter
            # ("parallism": "parallelism", stem "parallel"): the stems two edits from a beginning of
            # what was typed, of STEM_CUT letters fewer at most (a QA pass).
            cuts = range(max(FAR_TYPO_CHARS[0], len(folded) - STEM_CUT), len(folded))
            found = self._two_edits_of(folded, {t for cut in cuts for t in self._within((folded[:cut],), 2)})
        return self._remember(key, found)  # type: ignore[return-value]

    def _two_edits_of(self, folded: str, terms: set[str]) -> str | None:
        """Return the one of *terms* (index words) the most documents hold that some document writes
        two edits at most from *folded*, of the ``FAR_TYPO_READ`` commonest that ``FAR_TYPO_HELD``
        documents hold at least; else None."""
        functions = function_terms()
        held = {term: self.frequency(term) for term in terms if term not in functions}
        # The commonest first, their written forms read for a few only (at 64k a five-letter word has
        # dozens of stems two edits off, and reading a word's forms reads documents).
        likely = sorted((t for t, n in held.items() if n >= FAR_TYPO_HELD), key=lambda t: (-held[t], t))[:FAR_TYPO_READ]
        return next((t for t in likely if any(_far_typo(folded, form) for form, _ in self._written_forms(t))), None)

    def offered_instead(self, typed: str, word: str) -> str | None:
        """Return the index word to offer, as a reader would type it, for *typed* (analysed: *word*), a
        word no page holds in a query that found nothing, or None: one edit off for a short word, even
        a letter changed in an acronym, which ``near`` searches in no word this short ("fsdb": FSDP); two edits off
        as written for a longer one (``two_edits``: "starget", "parallism"); none for an English word
        ("export" is no typo of "expert"; a doer's word offered the word it seemed made from, "trainer"
        train, but "shower" show, "flower" flowing, "founders" found: a regression QA pass)."""
        folded = self._fold(typed)
        if not folded.isalpha() or self.common(typed):
            return None
        if len(folded) <= SHORT_WORD_CHARS:
            # A letter changed in a word this short makes another word ("dota": data; "maia", Microsoft's
            # chip, is no "MTIA", Meta's), but letters that make no word (no vowel: "fsdb") are an
            # acronym typed letter by letter, easily mistyped so: offered one the pages write ("FSDP").
            acronym = not _VOWEL.search(folded)
            near = [w for w, _ in self.near(typed, word, offered=True)
                    if not _changed_letter(self.surface(w, typed), folded)
                    or acronym and any(_capitals_inside(way) for _, way in self._written_forms(w))]
            return self.surface(near[0], typed) if near else None
        far = self.two_edits(typed) if FAR_TYPO_CHARS[0] <= len(folded) <= FAR_TYPO_CHARS[1] else None
        return self.surface(far, typed) if far else None

    def _within(self, forms: tuple[str, ...], maxdist: int) -> Iterator[str]:
        """Yield the index words within *maxdist* Levenshtein edits of a form that start with its letter."""
        by_letter = self._by_letter()
        for form in forms:
            for term, _distance, _ in process.extract_iter(
                form, by_letter.get(form[:1], ()), scorer=Levenshtein.distance, score_cutoff=maxdist
            ):
                yield term

    def prefixed(self, prefix: str, limit: int) -> list[str]:
        """Return the *limit* index words starting with *prefix* that the most documents hold, in
        alphabetical order.  (The first *limit* in alphabetical order, as before, left out the words
        readers mean: at 64k `py*` stopped at "pyc…", 191 results against 5,664 for `pyt*`.)"""
        key = ("prefix", prefix, str(limit))
        if (kept := self._cache.get(key, _UNSET)) is not _UNSET:  # one look-up: another thread may empty it
            return kept  # type: ignore[return-value]
        held: Counter[str] = Counter()
        for leaf, _offset in self.reader.leaf_readers():  # a segment at a time: no merging of term infos
            for fieldname in SEARCH_FIELDS:
                if fieldname not in leaf.indexed_field_names():
                    continue
                for term, info in leaf.iter_prefix(fieldname, prefix):
                    held[term.decode("utf-8") if isinstance(term, bytes) else term] += info.doc_frequency()
        # A stem shorter than the prefix whose words start with it ("trainin*": "train", written
        # "training"; not "car" for "cart*"): the index holds stems, so "trainin*" found nothing.  So
        # is one whose "e" the -ing form drops ("scalin*": "scale", written "scaling"; "usin*", "makin*"
        # found nothing, a QA pass).
        for cut in range(len(prefix) - 1, max(1, len(prefix) - 5), -1):
            for stem in (prefix[:cut], prefix[:cut] + "e") if prefix[cut] != "e" else (prefix[:cut],):
                if stem not in held and self.contains(stem) and self.begins(stem, prefix):
                    held[stem] += self.frequency(stem)
        # A stem whose last letters the stemmer wrote, that the prefix reaches into, is no word of it
        # unless a page writes one so: "onli" is the stem of "only", so "onli*" found every page saying
        # "only" (and "onl*" fewer pages than "onli*").  Stemming changes at most a word's last two
        # letters ("only": "onli", "using": "use", "tying": "tie"), into an "i" or an "e".
        for stem in [s for s in held if len(s) - len(prefix) <= 1 and s[-1] in "ie"]:
            if not self.begins(stem, prefix):
                del held[stem]
        return self._remember(key, sorted(w for w, _ in held.most_common(limit)))  # type: ignore[return-value]

    def begins(self, word: str, prefix: str) -> bool:
        """Return whether a page writes *word* (analysed) as a word starting with *prefix* (folded):
        "train", written "training", begins "trainin"; "onli", written "only", does not begin "onli"."""
        return word.startswith(prefix) and len(word) - len(prefix) > 1 or any(
            form.startswith(prefix) for form, _ in self._written_forms(word)
        )

    def surface(self, word: str, typed: str) -> str:
        """Return *word* (analysed) as a reader would type it, in the case *typed* was typed in: of the
        forms a document writes it in, the closest to *typed* ("introducing" for "introducting", where
        the text says "introduces" more often), then the most frequent."""
        if word in self.synonym_words and not self.contains(word):  # no page writes it: as the synonyms do
            return _as_shown(self.synonym_words[word], typed)
        forms = self._written_forms(word)
        folded = self._fold(typed)
        best = min(forms, key=lambda form: OSA.distance(form[0], folded)) if len(forms) > 1 else forms[0]
        limit = allowed_distance(len(folded))
        if limit and OSA.distance(best[0], folded) > limit:
            # The few pages its forms are read from may not write the word meant ("devloped":
            # "developed", where they say "development"): look further.
            best = self._written_near(word, folded, limit) or best
        return _as_shown(best[1], typed)

    def _written_near(self, word: str, folded: str, limit: int) -> tuple[str, str] | None:
        """Return the word of *word*'s (analysed) that the first WRITES_DOCS documents of each field
        holding it write closest to *folded* (a typed word), within *limit* edits, with the way it is
        written; or None."""
        key = ("written near", word, folded)
        kept = self._cache.get(key, _UNSET)  # one look-up: another thread may empty it
        if kept is _UNSET:
            best: tuple[int, str, str] | None = None
            seen: set[str] = set()
            for text in self._texts(word, WRITES_DOCS):
                for way in _WRITTEN_WORD.findall(text):
                    if way in seen:
                        continue
                    seen.add(way)
                    # Folding takes an analysis; it changes a word by a letter or so ("GPUs": gpu).
                    if OSA.distance(way.lower(), folded, score_cutoff=limit + 1) > limit + 1:
                        continue
                    form = self._fold(way)
                    distance = min(_typed_distance(way, folded), _typed_distance(form, folded))  # as ``_apart``
                    if distance <= limit and (best is None or distance < best[0]) and self._analysed(form) == [word]:
                        best = (distance, form, way if _capitals_inside(way) else way.lower())
            kept = self._remember(key, best[1:] if best else None)
        return kept  # type: ignore[return-value]

    def _analysed(self, form: str) -> list[str]:
        """Return the terms *form* (a written word) is searched as."""
        return [t.text for t in self.analyzer(form, mode="query", removestops=False)]

    def _written_forms(self, word: str) -> tuple[tuple[str, str], ...]:
        """``_forms`` of *word*, kept while the snapshot lasts."""
        key = ("surface", word)
        kept = self._cache.get(key, _UNSET)  # one look-up: another thread may empty it
        if kept is _UNSET:
            kept = self._remember(key, self._forms(word))
        return kept  # type: ignore[return-value]

    def acronym(self, word: str) -> bool:
        """Return whether the documents holding *word* (analysed) write it as an acronym, in capitals
        ("GPU", "GPUs"), in the first few documents of each field: most of its occurrences."""
        key = ("acronym", word)
        kept = self._cache.get(key, _UNSET)  # one look-up: another thread may empty it
        if kept is _UNSET:
            written = [text for text in self._written(word) if text.isalpha()]
            upper = sum(text.removesuffix("s").isupper() and len(text) > 1 for text in written)
            kept = self._remember(key, bool(written) and 2 * upper > len(written))
        return kept  # type: ignore[return-value]

    def name(self, word: str) -> bool:
        """Return whether the documents holding *word* (analysed) write it with a capital inside their
        sentences most times ("OpenAI", "NVIDIA"; not "data"): a name, read in the body of the first few
        documents holding it (titles capitalise every word)."""
        key = ("name", word)
        kept = self._cache.get(key, _UNSET)
        if kept is _UNSET:
            inside = capital = 0
            for text, start, _ in self._occurrences(word, ("body",)):
                before = text[:start].rstrip()
                if before and before[-1] not in SENTENCE_ENDS and "\n" not in text[len(before) : start]:
                    inside += 1
                    capital += text[start].isupper()
            kept = self._remember(key, 2 * capital > inside)
        return kept  # type: ignore[return-value]

    def _written(self, word: str) -> Iterator[str]:
        """Yield how the first few documents of each field holding *word* (analysed) write it."""
        for text, start, end in self._occurrences(word):
            yield text[start:end]

    def _occurrences(self, word: str, fields: tuple[str, ...] = SEARCH_FIELDS) -> Iterator[tuple[str, int, int]]:
        """Yield each place *word* (analysed) stands in the text of the first few documents of each of
        *fields* holding it: the text, and where the word starts and ends in it."""
        for text in self._texts(word, fields=fields):
            for t in self.analyzer(text, mode="index", chars=True):
                if t.text == word:
                    yield text, t.startchar, t.endchar

    def _texts(self, word: str, docs: int = FORM_DOCS, fields: tuple[str, ...] = SEARCH_FIELDS) -> Iterator[str]:
        """Yield the text of each of the first *docs* documents of each of *fields* holding *word* (analysed)."""
        for fieldname in fields:
            if not self.reader.doc_frequency(fieldname, word):
                continue
            for docnum in islice(wq.Term(fieldname, word).docs(self.searcher), docs):
                yield str(self.searcher.stored_fields(docnum).get(fieldname) or "")

    def _forms(self, word: str) -> tuple[tuple[str, str], ...]:
        """Return the forms the first few documents holding *word* write it in, most frequent first
        (*word* itself when none analyses to it), each with the way the text writes it most often
        (its capitals and accents: "deepspeed", "DeepSpeed"; "jalapeno", "Jalapeño")."""
        forms: Counter[str] = Counter()
        written: dict[str, str] = {}  # a form with Greek letters -> as the text writes it ("μP")
        spelt: dict[str, Counter[str]] = {}  # a form -> how the text writes it
        for text in self._texts(word):
            before = None
            for t in self.analyzer(text, mode="index", no_morph=True, positions=True, chars=True):
                if before is not None and t.pos == before[0] and greek_names(before[1]) == t.text:
                    continue  # the names of the letters of the token before ("mup" of "μp"): no form
                before = (t.pos, t.text)
                forms[t.text] += 1
                way = text[t.startchar : t.endchar]
                # The token's letters (a part's span is its whole word's: "mips64el"), or a word with a
                # letter folded to two or a mark folded away ("Straße" is "strasse", "مُحَمَّد" "محمد").
                if len(way) == len(t.text) or way.lower().translate(CHARSET_MAP) == t.text:
                    spelt.setdefault(t.text, Counter())[way] += 1
                if greek_names(t.text) is not None:
                    written.setdefault(t.text, text[t.startchar : t.endchar])
        greek = None  # a form whose letters' names the word is: "mup" is written "μP"
        found: list[str] = []
        for form, _count in forms.most_common():
            if form[:1] != word[:1] and form not in written:
                continue  # a word's stem keeps its first letter: not a form of it (and not analysed)
            if self._analysed(form) == [word]:
                found.append(form)
            elif greek is None and form in written and word in (t.text for t in self.analyzer(form, mode="index")):
                greek = written[form]
        if found:
            return tuple((form, _as_written(form, spelt.get(form, Counter()))) for form in found)
        return ((greek, greek),) if greek is not None else ((word, word),)


def _as_written(form: str, spelt: Counter[str]) -> str:
    """Return the way of writing *form* that the text uses most often, its accents and the capitals
    inside it kept ("Jalapeño": "jalapeño", "DeepSpeed"); a capital that only starts it may only
    start a sentence."""
    if not spelt:
        return form
    way = spelt.most_common(1)[0][0]
    return way if _capitals_inside(way) else way.lower()


class Speller:
    """Vocabularies for the snapshot being searched, sharing one bounded cache per snapshot."""

    def __init__(self) -> None:
        self._state: tuple[str, dict[tuple[str, ...], object], dict[str, dict[str, list[str]]]] = ("", {}, {})
        self._lock = threading.Lock()

    def vocabulary(
        self, snapshot_id: str, searcher: Searcher, analyzer: Analyzer, synonym_words: dict[str, str] | None = None,
        names: Callable[[str], object] | None = None,
    ) -> Vocabulary:
        """Return the vocabulary of *searcher*'s index (and its one-word synonyms, *synonym_words*),
        caching look-ups while the snapshot lasts."""
        state = self._state
        if state[0] != snapshot_id:
            with self._lock:
                if self._state[0] != snapshot_id:
                    self._state = (snapshot_id, {}, {})
                state = self._state
        return Vocabulary(searcher, analyzer, state[1], state[2], synonym_words, names)


def _far_typo(typed: str, form: str) -> bool:
    """Return whether *form* (a word as a page writes it, lower case) is two edits at most from
    *typed* and holds all its letters but one: a typo adds a letter, drops one, swaps two or hits a
    neighbour's key, and two of those in one word keep the rest of it.  "zebra", two of five letters
    not in "ZeRO", is no typo of it (offered so: a reader pass); "starget" of "stargate", "brodcam"
    of "broadcom" and "antrhopci" of "anthropic" lack none."""
    return edit_distance(typed, form) <= 2 and (Counter(typed) - Counter(form)).total() <= 1


_ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_RUSSIAN_LETTERS = "абвгдежзийклмнопрстуфхцчшщъыьэюя"
_GREEK_LETTERS = "αβγδεζηθικλμνξοπρστυφχψως"


def _letters_of(word: str) -> str | None:
    """Return the letters ``one_edit`` adds and changes in *word* (lower case): the ASCII letters, the
    Russian or Greek alphabet for a word of it, and a Latin word's own accented letters too; None for a
    word of no one of these."""
    if word.isascii():
        return _ASCII_LETTERS
    if all(c in _RUSSIAN_LETTERS or c == "ё" for c in word):
        return _RUSSIAN_LETTERS
    if all(c in _GREEK_LETTERS or c in "άέήίόύώϊϋΐΰ" for c in word):
        return _GREEK_LETTERS
    if all(c.isascii() or unicodedata.name(c, "").startswith("LATIN") for c in word):
        return _ASCII_LETTERS + "".join(sorted({c for c in word if not c.isascii()}))
    return None


def one_edit(word: str, letters: str = _ASCII_LETTERS) -> Iterator[str]:
    """Yield the words one edit from *word* (lower case, of *letters*): two neighbours swapped, then,
    keeping the first letter, one letter added (the typo left it out) or left out, and, in a word
    that may be two edits from a correction, one letter changed ("operzting": "operating").

    A letter changed in a shorter word turns words a corpus lacks into words it has ("mining" into
    "mixing"); a changed letter inside the stem is found from the stems (``closest``)."""
    for i in range(len(word) - 1):
        if word[i] != word[i + 1]:
            yield word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    for i in range(1, len(word) + 1):
        for c in letters:
            yield word[:i] + c + word[i:]
    for i in range(1, len(word)):
        yield word[:i] + word[i + 1 :]
    if allowed_distance(len(word)) > 1:
        for i in range(1, len(word)):
            for c in letters:
                if c != word[i]:
                    yield word[:i] + c + word[i + 1 :]


def _typed_distance(surface: str, typed: str) -> int:
    """Return the edits from *typed* (folded) to *surface*, or to its Greek letters' names ("μP": mup);
    two letters swapped are one edit ("modles" and "models"), as in ``edit_distance``."""
    lowered = surface.lower()
    named = greek_names(lowered)
    return min(OSA.distance(lowered, typed), OSA.distance(named, typed) if named else len(typed) + len(lowered))


def _completes(surface: str, typed: str) -> bool:
    """Return whether *surface* is the whole word of which *typed* is the stem Porter2 cuts it to:
    the same letters and a final "e" ("Stargate" of "stargat"), or more after a "y" made "i"
    ("companies" of "compani").  "Invests" does not complete "invest", a word of its own."""
    lowered, typed = surface.lower(), typed.lower()
    if len(lowered) <= len(typed) or not lowered.startswith(typed):
        return False
    return lowered[len(typed) :] == "e" or typed.endswith("i")


def suggested_fixes(parsed: ParsedQuery, vocabulary: Vocabulary) -> list[tuple[tuple[int, int], str]]:
    """Return the corrected query's words, each with where it goes in ``parsed.text`` (``respelt``
    writes them in), when the corrected words find documents (the results then hold them): with every
    word, or, when no document has them all, some ("kuberentes amazon" is searched with Kubernetes
    even though no page names both, and says so); empty when there is no such correction."""
    if not parsed.corrections:
        return []
    corrected = {c.span: c for c in parsed.corrections}
    fixed = [corrected_query(corrected[c.span].word, c) for c in parsed.typed_concepts() if c.span in corrected]
    # A quoted phrase with a misspelt word: the phrase as corrected ("trainng infrastructure").
    fixed += [a.query for c in parsed.concepts for m in (c.members or (c,)) if m.word is None
              for a in m.alternatives if a.via == "typo"]
    if not fixed:  # no concept is where a correction was made (none is known to happen)
        return []
    query: wq.Query = wq.Or(fixed) if len(fixed) > 1 else fixed[0]
    if parsed.excluded is not None:
        query = wq.AndNot(query, parsed.excluded)
    if next(iter(query.docs(vocabulary.searcher)), None) is None:
        return []
    # A typed word that is only its own stem ("stargat", which the index has as the stem of "Stargate")
    # finds what the whole word does; in the corrected query it is written whole, not left as typed.
    cut_short = [
        (c.span, c.word) for c in parsed.typed_concepts()
        if c.span and c.word and c.span not in corrected and c.text.lower() == c.word
        and _completes(vocabulary.surface(c.word, c.text), c.text)
    ]
    # Each written as it stands in the text (in capitals when typed with caps lock; ``service._understand``).
    fixes = [(fix.span, fix.word, parsed.text[fix.span[0] : fix.span[1]]) for fix in parsed.corrections]
    fixes += [(span, word, parsed.text[span[0] : span[1]]) for span, word in cut_short]
    # The same word typed again is the same mistake ("kuberentes OR kuberentes"): corrected each time,
    # but where it is excluded: "nvdia -nvdia" respelt both ways would find nothing.
    for _, analysed, typed in list(fixes):
        for m in re.finditer(rf"(?<!\w){re.escape(typed)}(?!\w)", parsed.text):
            if excluded_at(parsed.text, m.start()):
                continue
            if not any(start < m.end() and m.start() < end for (start, end), _, _ in fixes):  # not where a fix is
                fixes.append((m.span(), analysed, m.group()))
    return [(span, vocabulary.surface(analysed, typed)) for span, analysed, typed in sorted(fixes)]


def respelt(text: str, fixes: list[tuple[tuple[int, int], str]]) -> Suggestion:
    """Return *text* with each (span, word) of *fixes* (in order, apart) written in, and the same as
    HTML: escaped text, each word written in marked (a query has no control characters:
    ``search.params``), which bleach with the one-tag allow-list leaves as it is."""
    text_parts: list[str] = []
    html_parts: list[str] = []
    pos = 0
    for (start, end), word in fixes:
        text_parts += [text[pos:start], word]
        html_parts += [html.escape(text[pos:start]), f"<mark>{html.escape(word)}</mark>"]
        pos = end
    text_parts.append(text[pos:])
    html_parts.append(html.escape(text[pos:]))
    return Suggestion(text="".join(text_parts), html="".join(html_parts))  # escaped text and <mark> only


RARE_TYPED = 3  # documents at most that hold a typed word for it to be offered another spelling
RARE_RATIO = 100  # ... held by this many times as many documents ("pyhton": 1 at 64k, "python" 9,175)


def rare_word_fixes(parsed: ParsedQuery, vocabulary: Vocabulary, doc_count: int) -> list[tuple[tuple[int, int], str]]:
    """Return a spelling to offer for each typed word that a few documents hold (a typo written in
    them: "pyhton") and that is close to a word a hundred times as many hold, with where it was
    typed; empty when there is none.  The words found are searched as typed: this is offered.  So is
    the correction of a word whose correction was not searched since it found no more than the query
    as typed (``expand_helpfully``: "mixtral of experts" offers "mistral of experts")."""
    # Not one no page writes (a synonym's variant: "Dota" in a pasted sentence was searched as "doha").
    # (A vocabulary ``expand_helpfully`` did not read the query with refused nothing.)
    refused: dict[str, str] = getattr(vocabulary, "refused", {})
    fixes: list[tuple[tuple[int, int], str]] = [
        (concept.span, vocabulary.surface(fixed, typed)) for concept in parsed.typed_concepts()
        if concept.span and (fixed := refused.get(typed := parsed.text[concept.span[0] : concept.span[1]]))
        and vocabulary.contains(fixed)
    ]
    if doc_count < RARE_RATIO:  # too few documents to tell a misspelling from a rare word (the seed's 57)
        return fixes
    looked = 0
    typed_concepts = list(parsed.typed_concepts())
    for at, concept in enumerate(typed_concepts):
        word = concept.word
        if not word or not concept.span or concept.prefix or len(concept.alternatives) != 1:
            continue  # a phrase, a prefix, a word already read another way (synonym, correction)
        held = vocabulary.frequency(word)
        if not 0 < held <= RARE_TYPED or held * RARE_RATIO > doc_count:
            continue
        if looked == RARE_LOOKED_UP:  # a pasted paragraph's rare words: each look-up reads its forms
            break  # (some 150,000 tokens for a 4,000-character package description: 0.4-1 s at 64k)
        looked += 1
        typed = parsed.text[concept.span[0] : concept.span[1]]
        if vocabulary.common(typed):
            continue  # an English word is meant, however rare here: CISI's "biases" was offered "bases" (a QA pass)
        if not any(vocabulary.frequency(w) >= held * RARE_RATIO for w, _ in vocabulary.closest(typed, word)):
            continue  # no much commoner word near: its close words' written forms need not be read
        commoner = [w for w, _ in vocabulary.near(typed, word, offered=True) if vocabulary.frequency(w) >= held * RARE_RATIO]
        if commoner and (names := getattr(vocabulary, "names", None)) is not None and names(typed) is not None:
            # A document's name is offered another word only where the pages write that word beside one
            # typed with it: "conmon lisp" is Common Lisp, "htop alternative" no "HTTP alternative" (QA passes).
            before = typed_concepts[at - 1].word if at else None
            after = typed_concepts[at + 1].word if at + 1 < len(typed_concepts) else None
            commoner = [w for w in commoner[:1] if (before and vocabulary.follows(before, w)) or (after and vocabulary.follows(w, after))]
        if commoner:
            fixes.append((concept.span, vocabulary.surface(commoner[0], typed)))
    return sorted(fixes)


def expand_helpfully(parsed: ParsedQuery, vocabulary: Vocabulary, synonyms: Synonyms | None = None,
                     verbatim: bool = False) -> ParsedQuery:
    """Return *parsed* expanded (``search.query.expand``), less each correction by a letter changed
    that finds no more than the query as typed: no page holds more of the query's words with it than
    without it.  "mixtral of experts" said "Including results for mistral of experts" and listed pages
    each missing "mistral" (the one page naming Mistral AI lacks "experts"): a letter changed can make
    another name (Mixtral is a model of Mistral's) that no page writes.  Such a word is searched as
    typed and its correction offered (``rare_word_fixes``).  A letter left out, added or two swapped
    is a slip of the fingers and stays corrected ("kuberentes amazon": Kubernetes, though no page
    names both), as does a correction that finds more ("stargare uae", "mixtral" alone).  With
    *verbatim*, no correction of any kind is searched (``_as_typed``)."""
    expanded = expand(parsed, vocabulary, synonyms)
    # Asked for as typed (``SearchParams.verbatim``, the page's "Search instead for …"): no word corrected.
    refused = {fix.typed: fix.word for fix in expanded.corrections} if verbatim else _finding_no_more(expanded, vocabulary)
    if not refused:
        return expanded
    vocabulary.refused = refused
    return _as_typed(parsed, vocabulary, synonyms) if verbatim else expand(parsed, vocabulary, synonyms)


def _as_typed(parsed: ParsedQuery, vocabulary: Vocabulary, synonyms: Synonyms | None) -> ParsedQuery:
    """Return *parsed* expanded with no correction searched, its vocabulary refusing those of its
    typos and words cut short: what makes a word another word, not what writes the same one
    otherwise (its stem, a synonym, "colour" as "color", "multigpu" as "multi-GPU", none of which a
    search calls a correction).  Two typed words the index holds as one are the two words again,
    each read as if typed alone ("fluid stack" searched Fluidstack and said so, verbatim or not: a QA
    pass), and a hyphenated word no page holds a word of is the phrase typed ("fluid-stack")."""
    expanded = expand(parsed, vocabulary, synonyms)
    # What is corrected still was joined (``search.query._joined``, a hyphenated word's join), which
    # asks the vocabulary nothing it could refuse.
    joined = {fix.span for fix in expanded.corrections}
    if not joined:
        return expanded
    typed = [(concept.span, concept) for concept in parsed.concepts if concept.span is not None]
    concepts: list[Concept] = []
    for concept in expanded.concepts:
        span = concept.span
        if span is None or span not in joined:
            concepts.append(concept)
            continue
        concepts += [part if at == span else _read_alone(parsed, part, vocabulary, synonyms)
                     for at, part in typed if span[0] <= at[0] and at[1] <= span[1]]
    return assemble(parsed.text, concepts, expanded.excluded, parsed.plain)


def _read_alone(parsed: ParsedQuery, concept: Concept, vocabulary: Vocabulary, synonyms: Synonyms | None) -> Concept:
    """Return typed *concept* of *parsed* expanded as if typed alone, no correction of it searched
    ("netes" of "kuber netes" is no "note")."""
    alone = assemble(parsed.text, (concept,), None, parsed.plain)
    read = expand(alone, vocabulary, synonyms)
    if read.corrections:
        vocabulary.refused.update({fix.typed: fix.word for fix in read.corrections})
        read = expand(alone, vocabulary, synonyms)
    return read.concepts[0] if read.concepts else concept


def _finding_no_more(parsed: ParsedQuery, vocabulary: Vocabulary) -> dict[str, str]:
    """Return the typed words of *parsed* (expanded) corrected by a letter changed in place, each with
    its correction (analysed), whose correction finds no page holding more of the query's concepts
    than a page holds without it."""
    if len(parsed.concepts) < 2 or not parsed.corrections:  # one word corrected finds more than nothing
        return {}
    at = {concept.span: i for i, concept in enumerate(parsed.concepts) if concept.span and not concept.members}
    changed = [fix for fix in parsed.corrections if fix.span in at
               and _changed_letter(vocabulary.surface(fix.word, fix.typed), vocabulary._fold(fix.typed))]
    if not changed:
        return {}
    searcher = vocabulary.searcher
    excluded = set(parsed.excluded.docs(searcher)) if parsed.excluded is not None else set()
    held = [set(concept.query.docs(searcher)) - excluded for concept in parsed.concepts]

    def most(concepts: list[set[int]]) -> int:  # the most concepts a page holds
        return max(Counter(doc for docs in concepts for doc in docs).values(), default=0)

    # As typed, a corrected word finds nothing: the index lacks it.
    return {fix.typed: fix.word for fix in changed if most(held) <= most([docs for i, docs in enumerate(held) if i != at[fix.span]])}


FAR_TYPO_CHARS = (5, LONGEST_CORRECTED)  # a word of these lengths may be offered a word two edits off as written
STEM_CUT = 4  # letters at most a stem is shorter than the word written ("parallel" of "parallelism")
FAR_TYPO_HELD = 3  # documents at least that hold a word two edits off for it to be offered
FAR_TYPO_READ = 8  # ... of which the commonest this many have their written forms read


def far_word_fixes(parsed: ParsedQuery, vocabulary: Vocabulary) -> list[tuple[tuple[int, int], str]]:
    """Return, for a query that found nothing, a spelling to offer for each typed word the index
    lacks (``Vocabulary.offered_instead``): a word two edits off as written that ``FAR_TYPO_HELD``
    documents hold ("starget": Stargate, which is not searched, since a word of that length is
    corrected by one edit; "parallism": parallelism, three edits from its stem), or, for a word of
    four letters, one a letter changed ("fsdb": FSDP); empty when any typed word the index lacks has
    none.  The respelt query is offered (a did-you-mean), not searched: "fsdb", "parallism" and
    found nothing and offered nothing (a QA pass)."""
    fixes: list[tuple[tuple[int, int], str]] = []
    for concept in parsed.typed_concepts():
        word = concept.word
        if not word or not concept.span or concept.prefix or vocabulary.contains(word):
            continue
        if len(fixes) == RARE_LOOKED_UP:
            return []
        offered = vocabulary.offered_instead(parsed.text[concept.span[0] : concept.span[1]], word)
        if offered is None:
            return []
        fixes.append((concept.span, offered))
    return fixes


RARE_LOOKED_UP = 4  # rare typed words at most looked up for a did-you-mean (as EXCLUSIONS_CORRECTED)
EXCLUSIONS_CORRECTED = 4  # excluded words at most offered respelt (a correction of each costs a look-up)


def exclusion_hint(
    text: str,
    read: str,
    vocabulary: Vocabulary,
    synonyms: Synonyms,
    asked: frozenset[str],
    also: list[tuple[tuple[int, int], str]],
) -> tuple[tuple[str, ...], Suggestion | None]:
    """Return the words *text* excludes in vain (no page holds them: nothing was left out), as typed,
    and *text* respelt: those of them that have a close spelling, with the corrections *also* (the
    did-you-mean's, in *text*) ("trainng -nvdia": "training -NVIDIA"), or None when none has.

    *read* is *text* as the parser read it (in lower case where typed with caps lock, whose NOT is a
    word).  A close spelling that the query asks for (*asked*: every word its concepts stand for) is
    not offered: excluding it would leave nothing ("nvdia -nvdia").  The respelt query is offered, not
    searched: excluding a guess could leave out pages the reader wants."""
    found = excluded_in_vain(read, synonyms, vocabulary.contains, asked=asked)
    same = len(read) == len(text)  # caps lock changed the case of letters only: the places hold
    typed_words = tuple(dict.fromkeys((text if same else read)[start:end] for (start, end), _ in found))
    fixes = []
    corrected: dict[str, str | None] = {}  # a word excluded twice is corrected twice
    for (start, end), word in found if same else ():
        typed = text[start:end]
        if word is None:  # a phrase: said, not respelt
            continue
        if word not in corrected:
            if len(corrected) == EXCLUSIONS_CORRECTED:
                break
            near = [w for w, _ in vocabulary.near(typed, word) if w not in asked]
            corrected[word] = near[0] if near else None
        if corrected[word] is not None:
            fixes.append(((start, end), vocabulary.surface(corrected[word], typed)))
    if not fixes:
        return typed_words, None
    taken = {span for span, _ in fixes}
    return typed_words, respelt(text, sorted([*fixes, *(fix for fix in also if fix[0] not in taken)]))
