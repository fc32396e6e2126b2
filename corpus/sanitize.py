"""Sanitising: the one place bleach runs, on untrusted text as it enters the corpus.

Every record's title and text pass through ``plain_text`` when a source is loaded or a change file
is read, so what gets indexed and stored is plain text: tags are stripped (their words kept, a
line break or a block's edge a space or a new line between them; a script's or a style sheet's
contents dropped), entities are decoded (``&amp;`` is ``&``), control characters become spaces.  Only the tags of
elements a browser knows are stripped: ``<https://ardour.org/>``, ``<sources.list>`` or
``-j<jobs>`` in a package description are text, and stay.  Pages and snippets then only need to
HTML-escape that text: search.highlight adds nothing but ``<mark>`` around whole words, which
``clean(markup, MARK)`` leaves unchanged (tests/test_highlight.py proves it by hypothesis, with the
Big List of Naughty Strings and XSS vectors among its examples).  A long text goes to bleach in pieces
(``_clean_in_pieces``), text without markup not at all: what is stored is what bleach gives for the
whole text (tests/test_sanitize.py), in time that grows with its length, not its square.
"""

from __future__ import annotations

import html
import re
import string
import threading
import unicodedata
from collections.abc import Callable, Iterator, Mapping

import bleach
from bleach.html5lib_shim import HTML_TAGS, match_entity

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


def plain_text(text: str, typed: bool = False) -> str:
    """Return untrusted *text* as plain text: tags stripped, entities decoded, controls made spaces,
    and composed (NFC: "n" and a combining tilde are "ñ", as a reader types it, so the words match).
    A script's or a style sheet's contents are no text of a document, but what a reader *typed* (a
    query pasted with markup: "<script>alert(1)</script>" is searched as "alert(1)")."""
    if not _MAY_CHANGE.search(text):
        return unicodedata.normalize("NFC", text)
    return _plain(text, _clean_in_pieces, typed)


def _plain(text: str, cleaner: Callable[[str], str] = clean, typed: bool = False) -> str:
    """Return what ``plain_text`` returns, going through bleach *cleaner* (by default the whole text at
    once, the reference)."""
    text = _CONTROLS.sub(" ", _CR.sub("\n", text))
    marked = _APART not in text and _BROKEN not in text
    if not typed:
        text = _without_hidden(text, _APART if marked else " ")
    text = _TAG.sub(_tag_or_text if marked else _tag_or_text_unmarked, text)
    cleaned = cleaner(text)
    if marked and (_APART in cleaned or _BROKEN in cleaned):
        cleaned = _SEPARATORS.sub(_separator, cleaned)
    return unicodedata.normalize("NFC", INVISIBLE.sub("", _CONTROLS.sub(" ", _CR.sub("\n", _unescape(cleaned)))))


# Bleach's own costs grow with the square of a text's length (QA pass AI): html5lib appends each piece
# of text to all the text before it ("<x" 500,000 times, 1 MB: 88 s), compares each attribute's name
# with every earlier one of its tag (15,000 attributes: 5 s), and bleach reads the digits of a character
# reference one by one off the front of the rest of the text ("&#" and 100,000 digits: 0.7 s).  So a
# long text goes to bleach in pieces of about PIECE characters, cut where bleach, reading the pieces
# one by one, gives what it gives for the whole text (tests/test_sanitize.py proves it by hypothesis);
# its tags' attributes are left out and a long reference is written short.  Bleach's parser sees no
# element at all: its tokenizer turns every tag it strips into text ("", or "\n" for a block's start
# tag after the first tag), so nothing but that "after the first tag" is carried from piece to piece.
PIECE = 4096
# Where html5lib reads markup: "<" and "!", "?", "/" or a letter (after _TAG, only an element's name).
_MARKUP = re.compile("<[!?/A-Za-z]")
# A tag as html5lib's tokenizer reads it: its name, then attributes (a name, which may start with "=",
# and a value, quoted or not, or none), separated by blanks or "/", to the first ">" outside a quoted
# value.  Each attribute is read once (an atomic group): where html5lib reads no tag (no ">" before the
# end of the text), neither does this.
_TAG_ITEM = (
    r"""[\t\n\f /]|(?>[^\t\n\f />][^\t\n\f />=]*"""
    r"""(?:[\t\n\f ]*=[\t\n\f ]*(?:"[^"]*"|'[^']*'|[^\t\n\f >"'][^\t\n\f >]*|(?=>))|(?![\t\n\f ]*=)))"""
)
_TAG_START = r"<(/?)([A-Za-z][^\t\n\f />]*)(?:%s)*+" % _TAG_ITEM
_TAG_READ = re.compile(_TAG_START + ">")
_TAG_NAME = re.compile(r"</?[A-Za-z][^\t\n\f />]*")
_TAG_ITEMS = re.compile(_TAG_ITEM)
# An attribute, its name's first character and its value's (html5lib's state after it is the same).
_ATTRIBUTE = re.compile(r"""([^\t\n\f />])[^\t\n\f />=]*([\t\n\f ]*=[\t\n\f ]*)?(?:"[^"]*"|'([^']*)'|([^\t\n\f >"']))?.*""", re.DOTALL)
# A tag whose quoted value runs to the end of the text: html5lib reads it all, and bleach writes nothing.
_TAG_UNENDED = re.compile(_TAG_START + r"""[^\t\n\f />][^\t\n\f />=]*[\t\n\f ]*=[\t\n\f ]*["']""")
_COMMENT_END = re.compile("--!?>")
_CUT = re.compile("[&<]")  # where text may be cut: before a reference, or a "<" that is text
# A character reference's digits, when 9 or more: bleach reads them one at a time.
_LONG_REF = re.compile("&#(?:([0-9]{9,})|([xX])([0-9a-fA-F]{9,}))")
_ENDS_REF_NAME = frozenset("<&=;" + string.whitespace)  # bleach's end_characters
_DECIDES_REF = re.compile("[%s]" % re.escape("".join(sorted(_ENDS_REF_NAME))))


def _clean_in_pieces(markup: str, piece: int = PIECE) -> str:
    """Return ``clean(markup)`` (its characters escaped or not: it is decoded next), bleach reading a
    long *markup* in pieces of about *piece* characters, and none that holds no markup."""
    if len(markup) <= piece:
        return _text_as_bleach_writes_it(markup) if _MARKUP.search(markup) is None else clean(markup)
    cleaned = []
    for after_a_tag, text in _pieces(_LONG_REF.sub(_short_ref, markup), piece):
        if _MARKUP.search(text) is None:
            cleaned.append(_text_as_bleach_writes_it(text))
        else:  # a void tag first, which bleach writes as nothing, when a tag came before
            cleaned.append(clean("<wbr>" + text if after_a_tag else text))
    return "".join(cleaned)


def _pieces(markup: str, piece: int) -> Iterator[tuple[bool, str]]:
    """Yield (whether a tag comes before it, text) for the pieces of *markup*.

    A piece ends before an "&" or a "<" of text, or before markup once what follows the piece's last "&"
    cannot make a reference of it (bleach reads text on across the tags it strips: "&am<b>p;" is
    "&amp;"), as long as the markup before is comments, doctypes and tags that end (_TAG_READ)."""
    tagged = False  # a tag has been read
    pending = False  # the text since the piece's last "&" may yet make a reference of it
    parts: list[str] = []  # the piece so far
    size = 0
    starts_after_tag = False
    at: int | None = 0
    while at is not None:
        found = _MARKUP.search(markup, at)
        end = found.start() if found else len(markup)
        while size + end - at > piece:  # the text up to the markup: cut before an "&" or a "<"
            cut = _CUT.search(markup, at + max(1, piece - size), end)
            if cut is None:
                break
            parts.append(markup[at : cut.start()])
            yield starts_after_tag, "".join(parts)
            starts_after_tag, parts, size, at = tagged, [], 0, cut.start()
        text = markup[at:end]
        parts.append(text)
        size += len(text)
        if (amp := text.rfind("&")) >= 0 or pending:
            pending = _DECIDES_REF.search(text, amp + 1) is None
        if not found:
            break
        if size >= piece and not pending:  # cut before the markup
            yield starts_after_tag, "".join(parts)
            starts_after_tag, parts, size = tagged, [], 0
        at, written = _read_markup(markup, end)
        if at is None:  # markup not read here: the rest is one piece
            written = markup[end:]
        parts.append(written)
        size += len(written)
        tagged = tagged or written[1 + (written[1:2] == "/") :][:1].isalpha()  # not a comment, doctype or "</" and no name
    yield starts_after_tag, "".join(parts)


def _read_markup(markup: str, start: int) -> tuple[int | None, str]:
    """Read the markup at *start* as html5lib does; return where it ends and how to write it for bleach,
    or (None, "") for markup without its end that bleach keeps as text (a comment, a doctype or a tag
    whose quoted value runs on to the end is read to the end, and written as nothing)."""
    if markup.startswith("<!--", start):
        if markup.startswith(">", start + 4):
            return start + 5, "<!---->"
        if markup.startswith("->", start + 4):
            return start + 6, "<!---->"
        closed = _COMMENT_END.search(markup, start + 4)
        return (closed.end(), "<!---->") if closed else (len(markup), "")  # to the end: a comment, written as nothing
    if markup[start + 1] in "!?" or (markup[start + 1] == "/" and not markup[start + 2 : start + 3].isalpha()):
        closed = markup.find(">", start + 2)  # a doctype or a bogus comment (which bleach may keep as text): as written
        if closed < 0:  # to the end: nothing, but "</" and no name, which bleach keeps as text
            return (None, "") if markup[start + 1] == "/" else (len(markup), "")
        return closed + 1, markup[start : closed + 1]
    tag = _TAG_READ.match(markup, start)
    if tag is not None:
        return tag.end(), f"<{tag[1]}{tag[2]}>"
    if _TAG_UNENDED.match(markup, start):
        return len(markup), ""
    # A tag to the end of the text: bleach writes it as text, or as nothing, by the state html5lib ends
    # in, which its name, its last attributes and what follows them tell (the others read once here).
    at = _TAG_NAME.match(markup, start).end()
    items = [at]
    while (item := _TAG_ITEMS.match(markup, at)) and item.end() > at:
        at = item.end()
        items.append(at)
    bounds = items[-4:]  # the last three attributes and blanks
    kept = [_ATTRIBUTE.sub(_first_characters, markup[a:b]) for a, b in zip(bounds, bounds[1:])]
    probe = markup[start : items[0]] + (" " if len(items) > 4 else "") + "".join(kept) + markup[items[-1] :]
    written = clean(probe) if len(probe) <= PIECE else None
    if written is None or written and written != clean(probe.replace("<", "&lt;")):
        return None, ""  # (not seen but for a long last attribute)
    return len(markup), written and markup[start:].replace("<", "&lt;")  # as text: "&lt;" is read as "<"


def _first_characters(attribute: re.Match[str]) -> str:
    """Return *attribute* as its name's first character, and its value's (a quoted one as empty quotes)."""
    if not attribute[2]:
        return attribute[1]
    quote = "'" if attribute[3] is not None else '"' if attribute[4] is None else ""
    return attribute[1] + attribute[2] + (quote * 2 if quote else attribute[4])


def _text_as_bleach_writes_it(text: str) -> str:
    """Return *text*, which holds no markup, as bleach writes it, but for "<" and ">" (which it escapes):
    each "&" escaped unless it starts a reference bleach keeps (``match_entity``'s, ended by ";")."""
    parts = text.split("&")
    written = [parts[0]]
    for part in parts[1:]:
        name = match_entity("&" + part)
        written.append("&amp;" + part if name is None else f"&{name};{part[len(name) + 1 :]}")
    return "".join(written)


def _short_ref(match: re.Match[str]) -> str:
    """Return a numeric character reference of many digits as bleach and html.unescape read it, in few."""
    after = match.string[match.end() : match.end() + 2]
    if _MARKUP.match(match.string, match.end()) or _MARKUP.match(match.string, match.end() + 1):
        return match[0]  # a tag may follow, which bleach strips: it reads the text after it as following on
    # Bleach's match_entity: a reference ends at ";", or one character past its digits before a ";".
    if not (after[:1] == ";" or (after[:1] and after[0] not in _ENDS_REF_NAME and after[1:2] == ";")):
        return "&amp;" + match[0][1:]  # not one: text, its "&" as bleach writes it
    if match[1] is not None:
        digits = match[1].lstrip("0") or "0"
        return "&#" + (digits if len(digits) <= 7 else "1114112")
    digits = match[3].lstrip("0") or "0"
    return "&#" + match[2] + (digits if len(digits) <= 6 else "110000")


def _unescape(markup: str) -> str:
    """Return *markup* (bleach's) with its entities and character references decoded, as html.unescape does."""
    return html.unescape(_LONG_DECIMAL_REF.sub(_short_decimal_ref, markup))


def _short_decimal_ref(match: re.Match[str]) -> str:
    digits = match[1].lstrip("0")
    return "&#" + ((digits or "0") if len(digits) <= 7 else "1114112")


# Elements whose tags stand between words: a browser sets what is on either side apart (a line, a
# cell), bleach strips them to nothing.  "Install<br>Configure" was stored "InstallConfigure", and
# "<td>alpha</td><td>bravo</td>" "alphabravo": no word of them could be found (a QA pass).
_LINE_BREAKS = frozenset(  # what starts or ends a line on the page: a new line
    "address article aside blockquote br caption dd details dialog div dl dt fieldset figcaption figure footer form "
    "h1 h2 h3 h4 h5 h6 header hgroup hr legend li main nav ol option p pre section summary table tbody tfoot thead "
    "tr ul".split()
)
_SEPARATING = frozenset({"td", "th"})  # cells side by side: a space
# Elements whose contents a browser does not show as text: a script's code, a style sheet.
_HIDDEN_START = re.compile(r"<(script|style)(?=[\t\n\f />])", re.IGNORECASE)
_HIDDEN_END = {name: re.compile(f"</{name}", re.IGNORECASE) for name in ("script", "style")}


# Where such a tag stood, marked before bleach (two noncharacters, which bleach keeps as they are) and
# made one space (a new line for a line break, or where the text has one) after it: "<td>alpha</td>
# <td>bravo</td>" is "alpha bravo", not "  alpha  bravo  ".  A text holding either mark itself has
# plain spaces and new lines instead.
_APART, _BROKEN = "\ufdd0", "\ufdd1"
_SEPARATORS = re.compile("[\t\n\f \ufdd0\ufdd1]*[\ufdd0\ufdd1][\t\n\f \ufdd0\ufdd1]*")


def _tag_or_text(match: re.Match[str]) -> str:
    name = match[1].lower()
    if name not in ELEMENTS:
        return "&lt;"
    return _BROKEN + "<" if name in _LINE_BREAKS else _APART + "<" if name in _SEPARATING else "<"


def _tag_or_text_unmarked(match: re.Match[str]) -> str:
    return _tag_or_text(match).replace(_BROKEN, "\n").replace(_APART, " ")


def _separator(match: re.Match[str]) -> str:
    """Return the separator a run of marks and blanks (``_SEPARATORS``) stands for: nothing at either end of
    the text, a new line where it holds one (or a line break's mark), else a space."""
    if match.start() == 0 or match.end() == len(match.string):
        return ""
    return "\n" if "\n" in match[0] or _BROKEN in match[0] else " "


def _without_hidden(text: str, apart: str = " ") -> str:
    """Return *text* with each of its script and style elements *apart* (a separator): "Hello
    <script>var token = 1;</script> world" stored the code as words of the text (a QA pass).  One left
    open is left to bleach (its text kept), as is all that follows it.  Each tag and end is looked for once."""
    parts = []
    at = 0
    while (start := _HIDDEN_START.search(text, at)) is not None:
        opened = text.find(">", start.end())
        end = _HIDDEN_END[start[1].lower()].search(text, opened) if opened >= 0 else None
        closed = text.find(">", end.end()) if end is not None else -1
        if closed < 0:
            break
        parts += [text[at : start.start()], apart]
        at = closed + 1
    return "".join(parts) + text[at:] if parts else text
