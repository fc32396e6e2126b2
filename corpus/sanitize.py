"""Sanitising: the one place bleach runs, on untrusted text as it enters the corpus.

Every record's title and text pass through ``plain_text`` when a source is loaded or a change file
is read, so what gets indexed and stored is plain text: tags are stripped (their words kept),
entities are decoded (``&amp;`` is ``&``), control characters become spaces.  Only the tags of
elements a browser knows are stripped: ``<https://ardour.org/>``, ``<sources.list>`` or
``-j<jobs>`` in a package description are text, and stay.  Pages and snippets then only need to
HTML-escape that text: search.highlight adds nothing but ``<mark>`` around whole words, which
``clean(markup, MARK)`` leaves unchanged (tests/test_highlight.py proves it by hypothesis, with the
Big List of Naughty Strings and XSS vectors among its examples).
"""

from __future__ import annotations

import html
import re
import threading
import unicodedata
from collections.abc import Mapping

import bleach
from bleach.html5lib_shim import HTML_TAGS

from corpus.records import INVISIBLE

MARK = frozenset({"mark"})  # the one tag a highlight may carry
# What a guide's text may carry on its page (web/pages.py event_links): links to events, and marks.
EVENT_LINKS = (frozenset({"a", "mark"}), {"a": frozenset({"href"})})
NO_TAGS: frozenset[str] = frozenset()

# Characters bleach (html5lib) does not keep as they are: markup starts, CR (read as a newline),
# control characters (some turned into "?"), and lone surrogates.  Text without any of them comes
# out of bleach unchanged but for ">" escaped, which decoding undoes, so it skips bleach entirely.
_MAY_CHANGE = re.compile("[<&\r\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]|" + INVISIBLE.pattern)
# Controls become spaces before bleach (which would make some of them "?") and after decoding
# (an entity such as &#12; decodes to one); CR and CRLF are line ends.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CR = re.compile("\r\n?")

# The elements whose tags are markup (HTML's, with the obsolete ones browsers still parse, and the
# roots of SVG and MathML).  Anything else written like a tag is kept as text: keeping it is as
# safe as stripping it, since text is always escaped when shown.
ELEMENTS = frozenset(HTML_TAGS) | frozenset(
    "svg math main search frame frameset noframes noembed xmp plaintext listing marquee blink isindex image applet "
    "font center big tt strike basefont nobr acronym dir menuitem".split()
)
# A start or end tag as html5lib reads one: "<" or "</", an ASCII letter, then the name up to a
# space, "/" or ">".  Read no further than one character past the longest element's name: a longer
# name is none of them.  (Read to its end, the name after each "<" of "<x<x<x…" was the rest of the
# text: 100,000 characters took 6.9 s to read, 0.65 s since; QA pass AA.  What is left is bleach's
# own: html5lib appends each piece of text to the one before, 80 s for 1,000,000 such characters.)
_TAG = re.compile(r"<(?=/?([A-Za-z][^\t\n\f />]{0,%d}))" % max(map(len, ELEMENTS)))
# A decimal character reference of 8 digits or more: html.unescape reads its digits with int(), which
# refuses more than 4,300 of them (ValueError: a title holding "&#" and 5,000 nines stopped the load with
# a traceback).  Leading zeros aside, 8 digits are past U+10FFFF, which reads as U+FFFD, as 1114112 does.
_LONG_DECIMAL_REF = re.compile("&#([0-9]{8,})")

# A Cleaner is costly to build and not meant to be shared between threads: one per thread and allow-list.
_cleaners = threading.local()


def clean(markup: str, tags: frozenset[str] = NO_TAGS, attributes: Mapping[str, frozenset[str]] | None = None) -> str:
    """Return *markup* with every tag not in *tags*, and every attribute not in *attributes* (tag →
    names), removed by bleach; a link's address may be relative, or http(s) (``EVENT_LINKS``)."""
    cleaners = getattr(_cleaners, "by_tags", None)
    if cleaners is None:
        cleaners = _cleaners.by_tags = {}
    key = (tags, tuple(sorted((attributes or {}).items())))
    cleaner = cleaners.get(key)
    if cleaner is None:
        cleaner = cleaners[key] = bleach.Cleaner(
            tags=tags, attributes={tag: sorted(names) for tag, names in (attributes or {}).items()},
            protocols=["http", "https"] if attributes else [], strip=True, strip_comments=True
        )
    return cleaner.clean(markup)


def plain_text(text: str) -> str:
    """Return untrusted *text* as plain text: tags stripped, entities decoded, controls made spaces,
    and composed (NFC: "n" and a combining tilde are "ñ", as a reader types it, so the words match)."""
    if not _MAY_CHANGE.search(text):
        return unicodedata.normalize("NFC", text)
    return _plain(text)


def _plain(text: str) -> str:
    """Return what ``plain_text`` returns, always going through bleach (its reference)."""
    text = _TAG.sub(_tag_or_text, _CONTROLS.sub(" ", _CR.sub("\n", text)))
    return unicodedata.normalize("NFC", INVISIBLE.sub("", _CONTROLS.sub(" ", _CR.sub("\n", _unescape(clean(text))))))


def _unescape(markup: str) -> str:
    """Return *markup* (bleach's) with its entities and character references decoded, as html.unescape does."""
    return html.unescape(_LONG_DECIMAL_REF.sub(_short_decimal_ref, markup))


def _short_decimal_ref(match: re.Match[str]) -> str:
    digits = match[1].lstrip("0")
    return "&#" + ((digits or "0") if len(digits) <= 7 else "1114112")


def _tag_or_text(match: re.Match[str]) -> str:
    return "<" if match[1].lower() in ELEMENTS else "&lt;"
