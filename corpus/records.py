"""Typed records: what the loaders produce and the indexer consumes."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

EVENT = "event"
GUIDE = "guide"
KINDS = (EVENT, GUIDE)
KIND_LABELS = {EVENT: "Event", GUIDE: "Guide section"}
# Invisible characters that only hint where a line may break or which way text runs (a soft hyphen,
# a zero-width space, a word joiner, a byte-order mark, the left-to-right, right-to-left and Arabic
# letter marks, invisible operators, the combining grapheme joiner, the Mongolian vowel separator,
# and the bidirectional embeddings, overrides and isolates, U+202A-202E and U+2066-2069: a title
# holding an unbalanced override reversed the text after it on the page, a facet chip included):
# dropped from a record's text when it is loaded (corpus/sanitize.py) and from a query
# (search/params.py), so "star\u00adgate" copied from a web page is "stargate", one word, as a reader
# sees it.  ZWJ and ZWNJ are kept where they shape Persian and Indic text and emoji, not between two
# ASCII letters or digits, where they shape nothing ("star\u200dgate" found nothing: a QA pass).
INVISIBLE = re.compile("[\u00ad\u034f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
                       "|(?<=[A-Za-z0-9])[\u200c\u200d]+(?=[A-Za-z0-9])")
# What an address may hold that a reader does not see as written: blanks, control characters and the
# invisible ones (bidirectional overrides among them).
_UNSEEN_IN_URL = re.compile(r"[\s\x00-\x1f\x7f-\x9f]|" + INVISIBLE.pattern)


def visible_url(url: str) -> str:
    """Return *url* with what a reader does not see as written percent-encoded, as a browser sends it:
    ``https://evil.example/#`` then a right-to-left override and ``/moc.elpmaxe.doog//:sptth`` read
    "https://evil.example/#https://good.example.com/" (QA pass AA)."""
    return _UNSEEN_IN_URL.sub(lambda unseen: quote(unseen[0], safe=""), url)


@dataclass(frozen=True, slots=True)
class Topic:
    """A topic page's header: who it is and how many events it says it has, and the slugs it had before
    it was renamed (the taxonomy's ``formerly``): their addresses lead to its own."""

    slug: str
    name: str
    description: str
    event_count: int
    formerly: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Organisation:
    """An organisation records can name: its slug, display name and the other names it goes by."""

    slug: str
    name: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Event:
    """One listed event: a title and a summary, in listing order (1 = first listed)."""

    id: str
    topic: str
    title: str
    summary: str
    position: int
    topics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    url: str | None = None
    published: str | None = None  # an ISO 8601 date or UTC date-time (index/dates.py), when the source gives one
    first_seen: str | None = None  # when the index first held it (set by index/, kept across builds)
    kind: str = field(default=EVENT, init=False)

    @property
    def body(self) -> str:
        return self.summary


@dataclass(frozen=True, slots=True)
class GuideSection:
    """One section of a topic's guide: a heading and its paragraphs and bullets."""

    id: str
    topic: str
    heading: str
    anchor: str
    blocks: tuple[str, ...]
    order: int
    topics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    first_seen: str | None = None  # when the index first held it (set by index/, kept across builds)
    published: str | None = None  # as an event's: a JSONL guide record may give one
    source_url: str | None = None  # where the section was published, when a JSONL record gives it
    kind: str = field(default=GUIDE, init=False)

    @property
    def title(self) -> str:
        return self.heading

    @property
    def body(self) -> str:
        return "\n".join(self.blocks)

    @property
    def position(self) -> int:
        return self.order

    @property
    def url(self) -> str:
        return guide_url(self.topic, self.anchor)


def guide_url(topic: str, anchor: str = "") -> str:
    """Return the guide page of *topic* (at the section *anchor*): the topic percent-encoded, as an
    event's id is, so that one written with ``?``, ``#``, ``/`` or ``<`` (a JSONL topic may) is one
    path segment, not a query, a fragment or markup in a JSON ``url`` and an Atom link."""
    return "/guides/" + quote(topic, safe="") + (f"#{anchor}" if anchor else "")


Record = Event | GuideSection


SLUG_MAX_CHARS = 80


def _mark_ranges() -> str:
    """Return a regular expression character class's ranges of the combining marks (categories Mn, Mc
    and Me) of the Basic Multilingual Plane."""
    marks = [code for code in range(0x0300, 0x10000) if unicodedata.category(chr(code)) in ("Mn", "Mc", "Me")]
    ranges, start = [], marks[0]
    for previous, code in zip(marks, marks[1:] + [-1]):
        if code != previous + 1:
            ranges.append(f"{chr(start)}-{chr(previous)}" if previous > start else chr(start))
            start = code
    return "".join(ranges)


# A word: a letter, digit or "_", then those and the combining marks written on them.  \w alone took
# a mark for a break: a Hindi word was cut at each vowel sign ("हिन्दी" was ह, न, द) and an Arabic or
# Hebrew word written with its vowel points at each point, so the word typed without them found nothing.
MARKS = _mark_ranges()
# Chinese characters and Japanese hiragana are written without spaces between words: each is a word of
# its own, as Unicode's word boundaries (UAX #29) and Lucene's standard tokenizer make them, so that
# "北京" finds "北京建设新的数据中心" (a run was one word, found only whole).  A query reads a run of them
# as the phrase of its characters (search/query.py).  So is katakana (not its middle dot, U+30FB): UAX
# #29 keeps a katakana run one word, and Japanese writes compounds so, "センター" found nothing in
# "データセンター", "データ" only by meaning (a QA pass of non-English corpora).  Hangul words, written
# with spaces, stay whole.
IDEOGRAPHS = ("\u3005-\u3007\u3021-\u3029\u3038-\u303b\u3040-\u309f\u30a1-\u30fa\u30fc-\u30ff\u3400-\u4dbf"
              "\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f")
IDEOGRAPH = re.compile("[" + IDEOGRAPHS + "]")  # one such character
# Japanese writes a katakana word with or without its final long-vowel mark "ー" (コンピューター and
# コンピュータ, サーバー and サーバ): as Lucene's JapaneseKatakanaStemFilter reads it, the "ー" ending a katakana
# run (katakana side by side, "ー" among them) of four characters or more is no word, in texts and queries
# alike, so either way finds the other ("コンピューター" said "Missing: ター" on pages writing "コンピュータ").
# Skipped, not removed: the characters keep their offsets.  "データ", three, keeps its "ー" (Lucene's too).
KATAKANA = "\u30a1-\u30fa\u30fc-\u30ff"
WORD = (r"(?:[" + IDEOGRAPHS + r"](?:(?<!ー)|(?<![" + KATAKANA + r"]{4})|(?=[" + KATAKANA + r"]))"
        r"|[^\W" + IDEOGRAPHS + r"](?:[^\W" + IDEOGRAPHS + r"]|[" + MARKS + r"])*)")
# A slug's word where the text has no Latin letter or digit: letters and digits with their marks.
_SLUG_WORD = re.compile(r"(?:[^\W_]|[" + MARKS + r"])+")

# Latin letters that Unicode does not decompose into a base letter and an accent, written as readers
# type them on an English keyboard: "Straße" is "strasse", "Ørsted" "orsted", "Łódź" "lodz", "Æon"
# "aeon".  The slug, the index's terms (index/analysis.py) and completions (search/suggest.py) all
# read them so, so "strasse" finds "Straße" and a slug no longer drops them ("Ørsted" was "rsted").
LATIN_LETTERS = str.maketrans({
    "ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l",
    "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH", "ı": "i", "ħ": "h",
    "Ħ": "H", "ŀ": "l", "Ŀ": "L", "ŧ": "t", "Ŧ": "T", "ĸ": "k", "ŋ": "n", "Ŋ": "N",
})
# A topic or an organisation is a filter's value (?topic=…, ?entity=…): what a request may carry.
FACET_VALUE_MAX_CHARS = 64
_CONTROL_CHARS = re.compile("[\x00-\x1f\x7f-\x9f]")


def normal_text(text: str) -> str:
    """Return a query, topic or organisation as it is searched and stored: composed (NFC), without
    invisible characters, its spaces (and control characters) collapsed to one, so "cafe\u0301" sent
    by a macOS client, or "openai\u200b" pasted from a page, is the text the corpus wrote."""
    return unicodedata.normalize("NFC", collapsed(text))


def collapsed(text: str) -> str:
    """Return *text* as ``normal_text`` reads it, less the composing: what a length limit counts."""
    return " ".join(_CONTROL_CHARS.sub(" ", INVISIBLE.sub("", text)).split())


def slugify(text: str, max_length: int = SLUG_MAX_CHARS) -> str:
    """Return a lowercase ASCII slug of *text*, cut at a word boundary.

    An accented letter is its base letter: "Données" is ``donnees`` and "Überblick" ``uberblick``
    (the accent, split off by NFKD, was taken for a separator: ``donne-es``, ``u-berblick``), and a
    letter of ``LATIN_LETTERS`` is written as it says ("Straße" is ``strasse``, not ``strae``).  Text
    without a Latin letter or digit is its words lower-cased ("概要" is ``概要``, "Москва строит" is
    ``москва-строит``): every such title was ``item``, so a topic page's events were ``item``,
    ``item-2`` … in listing order, and an event added at the top took the id, page and first_seen of
    the one before it.  Text without a letter or digit at all is written ``item``."""
    decomposed = unicodedata.normalize("NFKD", text)
    if not decomposed.isascii():  # ASCII text has no combining mark: its slug is as it always was
        decomposed = "".join(char for char in decomposed if not unicodedata.combining(char)).translate(LATIN_LETTERS)
    spaced = re.sub(r"[^\w]+", " ", decomposed)
    ascii_text = spaced.encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if not slug and not text.isascii():
        # No Latin letter or digit: its words as written, lower-cased ("Москва строит" is
        # ``москва-строит``), so each event keeps its own id whatever the page lists before it.
        slug = "-".join(_SLUG_WORD.findall(unicodedata.normalize("NFC", text).lower()))
    if len(slug) > max_length:
        slug = slug[:max_length].rsplit("-", 1)[0]
    return slug or "item"


# The ids the site's pages give their own elements (web/templates, and web/static/app.js's list of
# completions): a guide section anchored at one of them ("Main", "Q", "TOC heading") shared it with
# the page's element, so "Skip to content", the search box's label and a link to /guides/…#main went
# to the wrong one.  A section there gets a suffix, as a second section with one slug does.
# tests/test_guides.py checks the list against the templates and the script.
PAGE_IDS = frozenset((
    "main", "q", "q-hint", "q-suggestions", "q-status", "announce", "doc-title", "mlt", "toc-heading",
    "results-heading", "summary", "sort-label", "answer-heading", "ways-heading", "filters", "filters-heading", "filters-hint",
    *(f"facet-{name}{end}" for name in ("topic", "entity", "kind", "month") for end in ("", "-heading")),
))
PAGE_ID_PATTERN = re.compile(r"q-option-\d+")  # a completion in the search box's list
# A section's heading has the id of its anchor with this suffix (web/templates/guide.html): a section
# holds both, so "Sections" and "Sections heading" are not given one id twice.
HEADING_ID_SUFFIX = "-heading"


def _free(anchor: str, held: set[str]) -> bool:
    """Tell whether a section at *anchor* would share no id with the page or with *held*'s sections."""
    ids = (anchor, anchor + HEADING_ID_SUFFIX)
    return not any(i in held or i in PAGE_IDS or PAGE_ID_PATTERN.fullmatch(i) for i in ids)


def _hold(anchor: str, held: set[str]) -> str:
    held.update((anchor, anchor + HEADING_ID_SUFFIX))
    return anchor


def unique_anchors(
    sections: Sequence[GuideSection],
    taken: Mapping[str, Iterable[str]] | None = None,
    kept: Mapping[str, str] | None = None,
) -> list[str]:
    """Return the anchor of each of *sections*, in order, so that no two sections of a topic's guide
    share one (they would share a URL, /guides/<topic>#<anchor>, and a feed entry's id).

    A section's own anchor is the slug of its heading (``section.anchor`` as loaded); *taken* holds
    the anchors other sections of a topic's guide have already (an index's, at an update), and *kept*
    the anchor a section (by id) had before, which it keeps while no other section holds it.  A
    section whose anchor is taken gets the anchor with the first free suffix, ``-2``, ``-3`` …, after
    every section that can have its own took it: the first section keeps the plain anchor, and a
    heading whose slug is ``phase-2`` keeps it beside two headings "Phase".  Nor is an anchor one of
    the ids the page gives its own elements (``PAGE_IDS``) or another section's heading: a section
    titled "Main" is at ``main-2``.
    """
    used: dict[str, set[str]] = {}
    for topic, anchors in (taken or {}).items():
        for anchor in anchors:
            _hold(anchor, used.setdefault(topic, set()))
    kept = kept or {}
    anchors: list[str | None] = []
    for section in sections:
        held = used.setdefault(section.topic, set())
        for anchor in (kept.get(section.id), section.anchor):
            if anchor and _free(anchor, held):
                anchors.append(_hold(anchor, held))
                break
        else:
            anchors.append(None)
    for number, section in enumerate(sections):
        if anchors[number] is None:
            held = used[section.topic]
            suffix = 2
            while not _free(f"{section.anchor}-{suffix}", held):
                suffix += 1
            anchors[number] = _hold(f"{section.anchor}-{suffix}", held)
    return anchors  # type: ignore[return-value]


def unique_ids(bases: Sequence[str], held: Iterable[str] = ()) -> list[str]:
    """Return an id for each of *bases* (the slugs of events' titles, in listing order), no two the
    same nor one of *held* (the ids other topic pages' events have): each keeps its base while no
    earlier one, nor *held*, has it; the others get the first free suffix, ``-2``, ``-3`` …, after every
    one that can keep its own took it, as ``unique_anchors`` gives a guide's anchors.  So a title whose
    slug is ``phase-2`` keeps it beside two titles "Phase" (``phase``, ``phase-3``): the second "Phase"
    was given ``phase-2`` too, and one of the two events replaced the other."""
    taken = set(held)
    ids: list[str | None] = []
    for base in bases:
        ids.append(None if base in taken else base)
        taken.add(base)
    for number, base in enumerate(bases):
        if ids[number] is None:
            suffix = 2
            while f"{base}-{suffix}" in taken:
                suffix += 1
            ids[number] = f"{base}-{suffix}"
            taken.add(ids[number])  # type: ignore[arg-type]
    return ids  # type: ignore[return-value]
