"""Request parameters: parse and validate them into a frozen SearchParams, or say which one is wrong."""

from __future__ import annotations

import calendar
import re
from datetime import datetime, timedelta, timezone
from dataclasses import dataclass, replace
from collections.abc import Callable, Iterator
from typing import Protocol

from index.dates import DATE_PATTERN, format_utc, is_date_only, is_month, parse_iso, timestamp, to_datetime
from index.schema import FACET_VALUE_MAX_CHARS, INVISIBLE, KINDS, collapsed, normal_text

# A pasted paragraph is searched: up to this many characters (past it, a 400) ...
MAX_QUERY_CHARS = 4096
# ... by at most this many of its concepts, the most informative ones (the answer says how many were left out).
MAX_QUERY_WORDS = 32
# ... and with at most this many prefixes (word*): each is looked up in the whole vocabulary before
# the time budget can cut anything short (520 OR'd two-letter prefixes took 3.5 s at 64k).
MAX_PREFIXES = 16
# A star glued to what comes before it (not a blank, a quote, a bracket or another star): a word's,
# whatever it ends with ("pyt\u0331*", a mark NFC does not merge, was no "\w" and went uncounted).
_PREFIX = re.compile(r"(?<=[^\s*\"'()+\-])\*")
MAX_PER_PAGE = 50
DEFAULT_PER_PAGE = 10
MAX_RESULT_WINDOW = 1000  # results served, at most: a page may start only before this one
MAX_FILTER_VALUES = 10
MAX_FILTER_CHARS = FACET_VALUE_MAX_CHARS  # what a build accepts as a topic or organisation
# A topic or organisation filter's value may list several with commas (``topic=compute-deals,funding``,
# read by search.snapshot as those values when each is one): MAX_FILTER_CHARS is then each one's, and
# the whole value may be as long as a list of as many values as a filter takes, each at its longest,
# with a comma and a blank either side between them.  Its 64 counted the whole list: four short topics
# were a 400 "each 'topic' value may be at most 64 characters" (a QA pass).
# A kind or a month listed with commas (``kind=event,guide``, ``month=2024-05,2024-06``) was a 400 "each
# 'kind' value must be one of: event, guide" where a topic's list was read (a QA pass of the API): every
# filter takes a list, to the same limits.  A kind or a month holds no comma, so its list is split here
# (``SPLIT``); a topic or an organisation may (a name: "Acme, Inc."), so the snapshot reads its list.
LISTED = ("topic", "entity", "kind", "month")
SPLIT = ("kind", "month")
MAX_FILTER_LIST_CHARS = MAX_FILTER_VALUES * (MAX_FILTER_CHARS + 3) - 3
SORTS = ("relevance", "newest", "listing")
FILTERS = ("topic", "entity", "kind", "month")
SINGLE_VALUED = ("q", "page", "per_page", "sort", "explain", "verbatim", "since", "until")
DATE_BOUNDS = ("since", "until")  # a document's date (published, else first_seen) within them, inclusive
_DAY_S = 86_400
# What since and until accept, exactly (the OpenAPI spec states it), is what a record's published
# accepts (index/dates.py DATE_PATTERN).  RFC 3339 allows a lower-case "t" and "z", and Go's RFC3339Nano
# writes nine digits of a second's fraction: both were a 400 (a QA pass).  The value is read in upper
# case (``_raw_date``).  RFC 3339 (5.6) also lets a space stand for the "T", as SQL and Python's str()
# write a date-time, and strftime's %z writes an offset without its colon (+0200): both were a 400 (QA
# passes X and Q).
# A space for the "+" of an offset: a URL's query reads an unencoded "+" as a space, so
# "since=2026-03-01T09:00+02:00" typed as the README writes it arrives as "…T09:00 02:00".
_PLUS_AS_SPACE = re.compile(r"([T ][0-9:.,]+) ((?:[01][0-9]|2[0-3])(?::?[0-5][0-9])?)$")
_BLANK = " \t\n\r\f\v"  # around a date, or all of it (a form's empty date field): no bound
# What since and until accept: a date with blanks around it, or blanks only (the spec states it).
DATE_PARAM_PATTERN = (r"^[ \t\n\r\f\v]*(?:" + DATE_PATTERN[1:-1].replace("[Zz]|[+-]", "[Zz]|[+ -]") + r"[ \t\n\r\f\v]*)?$")


# A month is read as the other filters' values are (``as_sent``, ``normal_text``): what a reader does
# not see (INVISIBLE) is dropped, and blanks and control characters around it, so "month=%202024-05"
# was answered while the spec's pattern forbade blanks (a QA pass).  The pattern says each exactly.
def _chars(*classes: str) -> str:
    """Return a pattern's character class of the characters (NUL aside: it is a 400) that any of the
    Python character *classes* matches, as ranges, for a spec's pattern (JSON Schema's regex knows no
    Unicode \\s).  Found by one regex scan of the plane, not a call a character (68 ms at import)."""
    runs: list[list[int]] = []
    for found in re.finditer("|".join(classes), _PLANE):
        code = found.start() + 1
        if runs and code == runs[-1][1] + 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "[" + "".join(f"\\u{low:04x}" + (f"-\\u{high:04x}" if high > low else "") for low, high in runs) + "]"


_PLANE = "".join(map(chr, range(1, 0x10000)))
_INVISIBLE_CHAR = INVISIBLE.pattern.split("|", 1)[0]  # the characters dropped wherever they stand
_UNSEEN = _chars(_INVISIBLE_CHAR)
_CONTROL = "[\x01-\x1f\x7f-\x9f]"  # read as a space (``collapsed``); NUL is a 400
_AROUND = _chars(r"\s", _CONTROL, _INVISIBLE_CHAR) + "*"  # \s: str.isspace's
_SPACES = _chars(r"\s") + "*"  # what str.strip() takes off around sort and explain
# Between two ASCII letters or digits any of them goes (ZWJ and ZWNJ too, read twice: ``as_sent`` then
# ``normal_text``); elsewhere ZWJ and ZWNJ stay, and make no month nor kind.
_IN, _IN_ASCII = _UNSEEN + "*", _chars(_INVISIBLE_CHAR, "[\u200c\u200d]") + "*"
_MONTH = (f"{_AROUND}(?:(?!0{_IN_ASCII}0{_IN_ASCII}0{_IN_ASCII}0)[0-9]{_IN_ASCII}[0-9]{_IN_ASCII}[0-9]{_IN_ASCII}"
          f"[0-9]{_IN}-{_IN}(?:0{_IN_ASCII}[1-9]|1{_IN_ASCII}[0-2]){_AROUND})?")  # year 1 on, as since= (0000-01 was read)


def _comma_list(item: str) -> str:
    """Return the spec's pattern for a filter value listing *item*s with commas (``SPLIT``: a month or a
    kind holds no comma); each *item* may be blank, as the server drops a blank one."""
    return f"^{item}(?:,{item})*$"


MONTH_PATTERN = _comma_list(_MONTH)


def _any_case(words: tuple[str, ...], around: str = _SPACES, between: str = "") -> str:
    """Return the spec's pattern for one of *words* in any case (JSON Schema patterns have no flags), or
    an empty value, which is read as none (a form's blank field); *around* it and *between* its
    characters, what the server drops there.  Blanks around sort and explain were a 400 by the
    pattern and read by the server (a QA pass)."""
    return f"^{around}(?:" + _spelled(words, between) + f")?{around}$"


def _spelled(words: tuple[str, ...], between: str) -> str:
    """Return the alternatives of *words* in any case, *between* their characters what the server drops there."""
    return "|".join(between.join(f"[{c.upper()}{c}]" if c.isalpha() else re.escape(c) for c in word) for word in words)


# What the spec says kind, sort and explain accept: each read in any case, an empty one as absent; a kind
# as any filter value is read (``as_sent``, ``normal_text``: MONTH_PATTERN's), sort and explain stripped.
# A kind's blanks are in the optional group, as a month's: blanks alone then match one way only, and a
# list of them (``_comma_list``) is refused without backtracking through every way of splitting them.
KIND_PATTERN = _comma_list(f"{_AROUND}(?:(?:{_spelled(KINDS, _IN_ASCII)}){_AROUND})?")
SORT_PATTERN = _any_case(SORTS)
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
_BOOLEANS = _TRUE | _FALSE
BOOLEAN_PATTERN = _any_case(tuple(sorted(_BOOLEANS - {""})))
_DIGITS = re.compile(r"[0-9]+")  # plain ASCII digits only: int() would also take '+1', ' 1 ', '1_0', '١'
_SURROGATE = re.compile("[\ud800-\udfff]")  # half a UTF-16 pair: cannot be written as UTF-8 or JSON


def at_most_pattern(chars: int, controls: bool = True, each: int | None = None) -> str:
    """Return the spec's pattern for a text of at most *chars* characters as the server counts them:
    blanks collapsed to one space and dropped around it, what a reader does not see dropped (``INVISIBLE``:
    ZWJ and ZWNJ only between two ASCII letters or digits), control characters read as spaces when
    *controls* (``collapsed``; else they count, as ``search.suggest.check_prefix`` counts them), and no
    NUL.  A maxLength counts the characters sent: "a", 70 spaces and "b" as a topic was answered while
    the spec forbade it (a QA pass).  Each unit of the repeat is one character of the text as counted:
    a visible one with what is dropped after it, or a run of blanks between two visible ones; each can
    match one way only, so a text past the limit is refused without backtracking through its blanks.
    With *each*, the text lists values with commas, each of at most *each* characters counted alone
    (blanks around a comma do not count), as ``LISTED`` filters are read."""
    blanks = (r"\s", _CONTROL) if controls else (r"\s",)
    blank, dropped = _chars(*blanks), _chars(*blanks, _INVISIBLE_CHAR)

    def counted(most: int, apart: str = "") -> str:
        """Return the pattern of a text of at most *most* characters, holding no *apart*."""
        shown = "[^\\u0000" + apart + dropped[1:-1] + "]"  # not blank, nor dropped, nor NUL
        alnum, joiners = "[0-9A-Za-z]", "[\\u200c\\u200d]+"
        unit = (f"{alnum}(?:{joiners}(?={alnum})|(?!{joiners}{alnum})){_IN}"  # ZWJ and ZWNJ between two: dropped
                f"|(?!{alnum}){shown}{_IN}"
                f"|{blank}{dropped}*(?={shown})")
        return f"{dropped}*(?!{dropped})(?:{unit}){{0,{most}}}"

    if each is None:
        return f"^{counted(chars)}{dropped}*$"
    # All the text within its limit (the lookahead), and each value within its own; the blanks before a
    # comma go with it (one way only: what a value's last character leaves after it is not blank).
    value = counted(each, ",")
    return f"^(?={counted(chars)}{dropped}*$)(?:{value}(?:{blank}{dropped}*)?,)*{value}{dropped}*$"


def nonblank_pattern(controls: bool = True) -> str:
    """Return the spec's pattern for a value that is not blank as ``at_most_pattern`` reads it (a blank
    filter value is ignored: it does not count among the MAX_FILTER_VALUES)."""
    dropped = _chars(r"\s", _CONTROL, _INVISIBLE_CHAR) if controls else _chars(r"\s", _INVISIBLE_CHAR)
    return "[^\\u0000" + dropped[1:-1] + "]"


class InvalidParameter(ValueError):
    """A request parameter that cannot be used; *param* names it."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(message)
        self.param = param
        self.message = message


class MultiMapping(Protocol):
    def get(self, key: str, default: str | None = None) -> str | None: ...
    def getlist(self, key: str) -> list[str]: ...
    def __iter__(self) -> Iterator[str]: ...  # the names given


@dataclass(frozen=True, slots=True)
class SearchParams:
    """What a search asks for; the same for the page and the API."""

    q: str = ""
    topic: tuple[str, ...] = ()
    entity: tuple[str, ...] = ()
    kind: tuple[str, ...] = ()
    page: int = 1
    per_page: int = DEFAULT_PER_PAGE
    sort: str | None = None  # None: relevance for a query, newest first for browsing
    explain: bool = False
    # The words searched as typed, none corrected (the page's "Search instead for stargte", as Google's
    # nfpr): a correction is then only offered.
    verbatim: bool = False
    month: tuple[str, ...] = ()  # YYYY-MM
    since: str | None = None  # canonical ISO 8601 date or UTC date-time (index/dates.py)
    until: str | None = None

    @property
    def end(self) -> int:
        """Return how many results, from the first, reach to the end of the asked page (at most
        MAX_RESULT_WINDOW: the last page a window allows holds what is left of it)."""
        return min(self.page * self.per_page, MAX_RESULT_WINDOW)

    @property
    def effective_sort(self) -> str:
        """Return the order the results come in: as asked, else relevance with a query and newest without;
        relevance without a query (nothing to be relevant to) is newest, and says so."""
        if self.q.strip():
            return self.sort or "relevance"
        return "newest" if self.sort in (None, "relevance") else self.sort

    @property
    def date_range(self) -> tuple[int | None, int | None]:
        """Return since and until in seconds since the epoch; a date-only until takes in its whole day."""
        since = timestamp(self.since) if self.since else None
        until = None
        if self.until:
            until = timestamp(self.until) + (_DAY_S - 1 if is_date_only(self.until) else 0)
        return since, until

    def filters(self) -> dict[str, tuple[str, ...]]:
        return {"topic": self.topic, "entity": self.entity, "kind": self.kind, "month": self.month}

    def with_(self, **changes: object) -> SearchParams:
        return replace(self, **changes)  # type: ignore[arg-type]

    def with_value(self, facet: str, old: str, new: str) -> SearchParams:
        """Return these params with the *facet* filter's value *old* replaced by *new* (once, if it is there too)."""
        return self.with_(**{facet: tuple(dict.fromkeys(new if value == old else value for value in getattr(self, facet)))})


_FIELDS = frozenset(SearchParams.__dataclass_fields__)


def last_window_page(per_page: int) -> int:
    """Return the last page any search serves at *per_page* results a page (it starts before MAX_RESULT_WINDOW)."""
    return -(-MAX_RESULT_WINDOW // per_page)


def _int(args: MultiMapping, name: str, default: int, low: int, high: int) -> int:
    raw = (args.get(name) or "").strip()
    if raw == "":
        return default
    if not _DIGITS.fullmatch(raw):
        raise InvalidParameter(name, f"'{name}' must be a whole number written with the digits 0-9")
    # Measure before converting: int() refuses strings of more than 4,300 digits with a ValueError.
    digits = raw.lstrip("0") or "0"
    value = int(digits) if len(digits) <= len(str(high)) else high + 1
    if not low <= value <= high:
        raise InvalidParameter(name, f"'{name}' must be between {low} and {high}")
    return value


def _values(args: MultiMapping, name: str, bracketed: bool = True) -> tuple[str, ...]:
    # ``topic[]=a&topic[]=b`` is how jQuery's $.param, the qs library (axios's default) and PHP's forms
    # write a list: the same filter.  Ignored as an unknown parameter, it searched everything unfiltered.
    given = args.getlist(name) + (args.getlist(name + "[]") + _indexed(args, name) if bracketed else [])
    if not given:  # the usual case: most requests name no filter at all
        return ()
    for value in given:  # before the value is read as the corpus stores it, which drops control characters
        _check_text(name, value)
    sent = [v for v in map(as_sent, given) if v]
    if len(sent) > MAX_FILTER_VALUES:
        raise InvalidParameter(name, f"'{name}' may be given at most {MAX_FILTER_VALUES} times")
    if name in LISTED and sum(len([each for each in v.split(",") if each.strip()]) for v in sent) > MAX_FILTER_VALUES:
        # Listed with commas, as many as given apart: eleven were a 400 given apart and answered, 0 results,
        # listed (a regression pass).
        raise InvalidParameter(name, f"'{name}' may name at most {MAX_FILTER_VALUES} values, listed with commas or given apart")
    for value in sent:
        if name in LISTED and "," in value:
            if len(value) > MAX_FILTER_LIST_CHARS:
                raise InvalidParameter(name, f"a '{name}' value listing several with commas may be at most "
                                             f"{MAX_FILTER_LIST_CHARS} characters")
            if any(len(each.strip()) > MAX_FILTER_CHARS for each in value.split(",")):
                raise InvalidParameter(name, f"each '{name}' value, and each that one lists with commas, may be at "
                                             f"most {MAX_FILTER_CHARS} characters")
        elif len(value) > MAX_FILTER_CHARS:
            raise InvalidParameter(name, f"each '{name}' value may be at most {MAX_FILTER_CHARS} characters")
    if name in SPLIT:
        return tuple(dict.fromkeys(normal_text(each) for value in sent for each in value.split(",") if each.strip()))
    return tuple(dict.fromkeys(map(normal_text, sent)))  # as the corpus stores them


# A limit counts the text a client sent, whitespace collapsed, before it is composed (NFC: index.schema
# ``collapsed``): composing lengthens some text (U+0958, a Devanagari letter with its nukta, is two
# characters composed), and 2,049 such letters were refused as a q longer than 4,096 characters, 33 as
# a topic longer than 64 (a QA pass).  Composed, it is at most three times as long (Unicode's bound
# for NFC), which bounds what a search then reads.
as_sent = collapsed


def _indexed(args: MultiMapping, name: str) -> list[str]:
    """Return the values of *name* written as a numbered list (``topic[0]=a&topic[1]=b``: how qs by
    default and PHP's http_build_query write one), in their numbers' order.  Read as an unknown
    parameter, such a filter searched everything unfiltered (a QA pass)."""
    start = name + "["
    keyed = [(key, key[len(start) : -1]) for key in args if key.startswith(start) and key.endswith("]") and key != start + "]"]
    # Numbered in their numbers' order, any other key ("topic[x]", "topic[-1]") after, as sent: a
    # value is never dropped without a word (a QA pass found "topic[9999999999]" ignored).
    numbered = sorted((int(number), key) for key, number in keyed if number.isascii() and number.isdigit())
    others = [key for key, number in keyed if not (number.isascii() and number.isdigit())]
    return [value for key in [*(key for _, key in numbered), *others] for value in args.getlist(key)]


def _check_text(name: str, value: str) -> None:
    if "\x00" in value:
        raise InvalidParameter(name, f"'{name}' may not contain a NUL character")
    if _SURROGATE.search(value):
        raise InvalidParameter(name, f"'{name}' is not valid UTF-8 text")


def _date(args: MultiMapping, name: str) -> str | None:
    raw = _raw_date(args, name)
    if not raw:
        return None
    message = f"'{name}' must be an ISO 8601 date (2024-05-01) or date-time (2024-05-01T09:30:00Z)"
    if not re.fullmatch(DATE_PATTERN[1:-1], raw):
        raise InvalidParameter(name, _past_the_month(name, raw) or message)
    # Off the calendar in UTC, a bound says which end and why: until=9999-12-31T23:59:59-01:00 was told
    # of since's rounding, which it has none of (a QA pass).
    end = "before year 1" if raw.startswith("0001") else "after year 9999"
    try:
        canonical = parse_iso(raw)  # to the second, as documents are dated
    except ValueError:  # its offset takes it off the calendar
        raise InvalidParameter(name, f"'{name}' ({raw}) is {end} in UTC once its offset is applied") from None
    if name == "since" and len(canonical) > 10 and _FRACTION.search(raw):
        # 08:00:00.5 leaves out what was dated 08:00:00: the bound is the next whole second.
        try:
            canonical = format_utc(datetime.fromisoformat(raw) + timedelta(seconds=1))
        except OverflowError:  # the second after 9999-12-31T23:59:59.5
            raise InvalidParameter(
                name, f"'since' ({raw}) is after year 9999 in UTC at its next whole second (documents are dated "
                      "to the second: a fraction of one moves 'since' to the next)") from None
    return canonical


def _past_the_month(name: str, raw: str) -> str | None:
    """Return what to say of a date bound whose day is past its month's end (2025-02-29, 2024-04-31),
    else None: such a day got the message for a date written wrong, though it is written right (a QA pass)."""
    day = re.match(r"([0-9]{4})(-?)(0[1-9]|1[0-2])\2(29|30|31)(?![0-9])", raw)
    if day is None or day[1] == "0000":
        return None
    year, month = int(day[1]), int(day[3])
    days = calendar.monthrange(year, month)[1]
    if int(day[4]) <= days:
        return None
    return f"'{name}' ({raw}) names no day: {calendar.month_name[month]} {day[1]} has {days} days"


def written_otherwise(args: MultiMapping) -> bool:
    """Return whether a kind or a month in *args* is written otherwise than its search's address writes
    it: listed with commas (``kind=event,guide`` is ``kind=event&kind=guide``), or a kind in capitals
    or with blanks around it (``kind=EVENT``).  The page answered at such an address, the feed too
    (its self link saying kind=event): one search, two addresses (a regression pass).  Not a value that
    reads as none (blanks, commas alone: no filter, answered as the empty field a form sends)."""
    return any(name.partition("[")[0] in SPLIT and value.strip() and ("," in value and any(map(str.strip, value.split(",")))
                                                                      or value != value.strip().lower())
               for name, value in args.items(multi=True))


def one_value(args: MultiMapping, name: str) -> str | None:
    """Return parameter *name*'s value (None when absent), or raise InvalidParameter when it was given
    different values: the first would win unseen (an appended override, or a bad second value, ignored).
    Values are compared as they are read: an empty one counts as absent ("q=&q=stargate" is stargate),
    blanks around one do not count, nor a whole number's leading zeros ("page=2&page=02"), nor the
    case of a sort, nor how an explain or a date bound is spelled ("1" and "true"; "…T12:00+02:00" and
    "…T10:00:00Z")."""
    given = args.getlist(name)
    if len(given) <= 1:
        return given[0] if given else None
    meant = {_as_read(name, value): value for value in given if value.strip(_BLANK)}
    if len(meant) > 1:
        # A value that cannot be read is named first: "page=2&page=%2B2" said only "given 2 different
        # values", as if "+2" were a page, and fixing the one left the other's 400 to come (a QA pass).
        if (read := _READERS.get(name)) is not None:
            for value in meant.values():
                try:
                    read(_Chosen(args, {name: value}))
                except InvalidParameter as exc:
                    shown = value.strip(_BLANK)
                    shown = shown if len(shown) <= 24 else shown[:24] + "…"
                    raise InvalidParameter(name, f"'{name}' was given {len(meant)} values, and {shown!r} cannot be "
                                                 f"read: {exc.message}") from None
        raise InvalidParameter(name, f"'{name}' was given {len(meant)} different values; give it once")
    return next(iter(meant.values()), given[0])


def _as_read(name: str, value: str) -> str:
    """Return single-valued parameter *name*'s *value* as the reading compares it (``one_value``):
    sort and explain are read in any case, q as the search reads it (one Unicode form: "café" sent
    composed and decomposed was two values, a 400, though both search the same)."""
    value = value.strip(_BLANK)
    if name in ("explain", "verbatim") and value.lower() in _BOOLEANS:
        return str(value.lower() in _TRUE)  # "explain=1&explain=true" say one thing (a QA pass: a 400)
    if name in ("sort", "explain", "verbatim"):
        return value.lower()
    if name == "q":
        return normal_text(value)
    if name in DATE_BOUNDS:
        # The same moment spelled two ways ("…t10:00z" and "…T10:00:00Z", "…T12:00+02:00" and
        # "…T10:00:00Z") was a 400 "given 2 different values" (a QA pass).  A date stays a date: as
        # until it is its whole day, not its midnight.  One that is no date is compared as sent.
        try:
            return _utc_reading(_as_date(value))
        except ValueError:
            return value
    return value.lstrip("0") or "0" if _DIGITS.fullmatch(value) else value


def _boolean(args: MultiMapping, name: str) -> bool:
    """Return the switch *name* (explain, verbatim): 1 or 0, true/false, yes/no, on/off; absent is off."""
    raw = (args.get(name) or "").strip().lower()
    if raw not in _BOOLEANS:
        raise InvalidParameter(name, f"'{name}' must be 1 or 0 (true/false, yes/no and on/off are read too)")
    return raw in _TRUE


def _sort(args: MultiMapping) -> str | None:
    """Return the order asked for (None: the default); a closed list, read in any case (as kind)."""
    sort = (args.get("sort") or "").strip().lower() or None
    if sort is not None and sort not in SORTS:
        raise InvalidParameter("sort", f"'sort' must be one of: {', '.join(SORTS)}")
    return sort


def _page(args: MultiMapping) -> int:
    return _int(args, "page", 1, 1, MAX_RESULT_WINDOW)


def _per_page(args: MultiMapping) -> int:
    return _int(args, "per_page", DEFAULT_PER_PAGE, 1, MAX_PER_PAGE)


# How each single-valued parameter but q is read from a request, or refused (each can be, whatever the others say).
_READERS: dict[str, Callable[[MultiMapping], object]] = {
    "page": _page,
    "per_page": _per_page,
    "sort": _sort,
    "explain": lambda args: _boolean(args, "explain"),
    "verbatim": lambda args: _boolean(args, "verbatim"),
    "since": lambda args: _date(args, "since"),
    "until": lambda args: _date(args, "until"),
}


class _Chosen:
    """A request's parameters, each single-valued one read as ``one_value`` chose it."""

    def __init__(self, args: MultiMapping, chosen: dict[str, str | None]) -> None:
        self._args, self._chosen = args, chosen

    def get(self, key: str, default: str | None = None) -> str | None:
        if key in self._chosen:
            value = self._chosen[key]
            return default if value is None else value
        return self._args.get(key, default)

    def getlist(self, key: str) -> list[str]:
        return self._args.getlist(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._args)


# A filter typed in the query, as other engines read their operators: "topic:funding stargate",
# "kind:guide", "entity:OpenAI", "month:2025-03", "since:2025-01-01", a value with blanks in quotes
# ("entity:\"Mistral AI\"").  The box had no way to filter but its links, and "topic:funding stargate"
# searched the words "topic" and "funding" in silence (a QA pass).  Only at a word's start, not inside a
# quoted phrase; read by ``Snapshot.inline_filters``, which knows the values a search can filter by.
# A full-width colon as phones type it; curly quotes around a value as they write '"' (a QA pass).
INLINE_FILTER = re.compile(r'(?<![^\s(+\-])(topic|entity|kind|month|since|until)[:：](?:["“”]([^"“”]+)["“”]|([^\s"“”()]+))(?![^\s)])', re.IGNORECASE)
_CLOSING = ".,;:!?"  # a sentence's mark after a value: "stargate topic:funding?"
# A filter beside OR, or after NOT, is no filter of the search (they combine words): "stargate NOT
# topic:funding" filtered by Funding, the opposite of what was asked, and "topic:funding OR stargate"
# required both (a QA pass).  Left as words, and the page says why.  ANDNOT excludes as NOT does:
# 'stargate ANDNOT entity:"Mistral AI"' was applied as the filter, leaving "stargate ANDNOT" (its ANDNOT
# joining nothing, dropped), and listed Mistral AI's page alone.  An ANDNOT opening the query joins
# nothing and is dropped (``search.query._as_meant``): a filter after it stands apart, as it is searched.
_EXCLUDING = r"(?:^|\s)NOT\s+$|\sANDNOT\s+$"
_JOINED_BEFORE = re.compile(rf"{_EXCLUDING}|(?:^|\s)OR\s+$|[-+(]$")
_JOINED_AFTER = re.compile(r"^\s+OR(?:\s|$)|^\)")


def inline_operators(q: str) -> list[tuple[tuple[int, int], str, str, bool]]:
    """Return each filter typed in *q* (``INLINE_FILTER``) as (its span, its parameter, its value,
    whether it stands apart: not beside OR, nor after NOT, a sign or in parentheses)."""
    if ":" not in q and "：" not in q:
        return []
    found = []
    for match in INLINE_FILTER.finditer(q):
        if q.count('"', 0, match.start()) % 2:  # inside a quoted phrase: words
            continue
        quoted = match.group(2) is not None
        value = (match.group(2) if quoted else match.group(3).rstrip(_CLOSING)).strip()
        if value:
            apart = not _JOINED_BEFORE.search(q[: match.start()]) and not _JOINED_AFTER.match(q[match.end():])
            found.append((match.span(), match.group(1).lower(), value, apart))
    return found


# A filter after a minus, NOT or ANDNOT: the reader meant to leave its pages out, which no filter does.
_EXCLUDED_BEFORE = re.compile(rf"{_EXCLUDING}|-$")


def typed_as_words(params: SearchParams, in_vain: tuple[str, ...] = ()) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """Return each filter typed in *params*' query (which ``Snapshot.inline_filters`` has read: those
    left in it are words) as (its parameter, its value, why it is words, the words of it excluded in
    vain), for the page's and the command line's notes.  Why:

    - "joined": beside OR, in parentheses or with a plus (``inline_operators``): its words were searched;
    - "excluded": after a minus or NOT (its words were searched, excluded); "excluded in vain" when no
      page has them (*in_vain*, the result's ``excluded_in_vain``, holds it as typed: ``-topic:funding``),
      else with the words of it *in_vain* holds (``-entity:"Mistral AI"``: "entity"), which
      ``in_vain_besides_filters`` keeps out of their own note: one note for one thing;
    - "too many": it would give its filter more values than a parameter takes (``too_many_values``);
    - "unread": a value the index cannot filter by (no such topic, no date; the page says which).

    Thirteen organisations typed (``entity:a,b,…``), or an eleventh ``entity:`` beside ten, were noted
    "no organisation is called …", of organisations the index has (a QA pass)."""
    vain: dict[tuple[int, int], list[str]] = {}
    for span, word in _typed_in_vain(params.q, in_vain):
        vain.setdefault(span, []).append(word)
    found = []
    for span, name, value, apart in inline_operators(params.q):
        words: tuple[str, ...] = ()
        if apart:
            why = "too many" if too_many_values(params, name, value) else "unread"
        elif not _EXCLUDED_BEFORE.search(params.q[: span[0]]):
            why = "joined"
        elif params.q[span[0] : span[1]].casefold() in (word.casefold() for word in vain.get(span, ())):
            why = "excluded in vain"
        else:
            why, words = "excluded", tuple(vain.get(span, ()))
        found.append((name, value, why, words))
    return found


def too_many_values(params: SearchParams, name: str, value: str) -> bool:
    """Return whether filter *name* typed with *value* names more values, beside those *params* has of
    it, than a parameter takes (MAX_FILTER_VALUES), counted as ``_values`` counts them (each of a comma
    list).  Said before whether the index has them: the parameter is refused for it before that too."""
    return name in LISTED and len(getattr(params, name)) + len([each for each in value.split(",") if each.strip()]) > MAX_FILTER_VALUES


def in_vain_besides_filters(q: str, in_vain: tuple[str, ...]) -> tuple[str, ...]:
    """Return the words of *in_vain* (a result's ``excluded_in_vain``, as typed in *q*) but those of a
    filter typed excluded: ``-topic:funding stargate`` (searched as its words, by design) was noted
    "No page has topic:funding, so excluding it left nothing out" beside its note that a filter is not
    left out, two notes for one thing, the first wrong of the topic, which has pages (a QA pass).
    ``typed_as_words`` says it once, in the filter's note."""
    said = {word for _span, word in _typed_in_vain(q, in_vain)}
    return tuple(word for word in in_vain if word not in said)


def _typed_in_vain(q: str, in_vain: tuple[str, ...]) -> list[tuple[tuple[int, int], str]]:
    """Return (the filter's span, the word) for each word of *in_vain* typed in *q* only within filters
    typed excluded (``-topic:funding``: "topic:funding"; ``-entity:"Mistral AI"``: "entity")."""
    excluded = [span for span, _name, _value, apart in inline_operators(q) if not apart and _EXCLUDED_BEFORE.search(q[: span[0]])]
    found = []
    for word in in_vain if excluded else ():
        places = [match.span() for match in re.finditer(re.escape(word), q, re.IGNORECASE)]
        within = [next((span for span in excluded if span[0] <= start and end <= span[1]), None) for start, end in places]
        if places and None not in within:
            found.extend((span, word) for span in dict.fromkeys(within))  # type: ignore[misc]
    return found


def as_parameter(name: str, value: str) -> SearchParams | None:
    """Return the search that parameter *name* given *value* alone asks for, read as ``parse_params``
    reads it (a kind in any case, a comma list, a date bound in UTC), or None when it cannot be read."""
    try:
        return parse_params(_Given({name: [value]}))
    except InvalidParameter:
        return None


class _Given(dict):
    """Parameters as lists of values (a MultiMapping)."""

    def get(self, key: str, default: str | None = None) -> str | None:  # type: ignore[override]
        values = super().get(key)
        return values[0] if values else default

    def getlist(self, key: str) -> list[str]:
        return list(super().get(key, []))


def without_spans(q: str, spans: list[tuple[int, int]]) -> str:
    """Return *q* without the text of *spans* (in order, apart), its blanks collapsed."""
    kept, at = [], 0
    for start, end in spans:
        kept.append(q[at:start])
        at = end
    kept.append(q[at:])
    return normal_text(" ".join(kept))


def parse_params(args: MultiMapping) -> SearchParams:
    """Return the SearchParams in *args* (a request's query string), or raise InvalidParameter."""
    # A parameter the request does not name is its default, unread: most name q alone, and reading each
    # of the others as absent (a look-up, a strip, a date's pattern) took most of this function's time.
    named = set(args)
    args = _Chosen(args, {name: one_value(args, name) for name in SINGLE_VALUED if name in named})
    # Composed (NFC), as the corpus is when loaded: "Jalapen\u0303o" pasted from a decomposed source is "Jalapeño".
    raw = args.get("q") or ""
    _check_text("q", raw)
    # Control characters (NUL is refused) read as spaces, as a document's text has them (corpus/sanitize.py):
    # shown in a did-you-mean, they are then nothing bleach would change.  Filter values are read the same way.
    sent = as_sent(raw)
    if len(sent) > MAX_QUERY_CHARS:
        raise InvalidParameter("q", f"'q' may be at most {MAX_QUERY_CHARS} characters once whitespace is collapsed")
    q = normal_text(sent)
    if len(_PREFIX.findall(q)) > MAX_PREFIXES:
        raise InvalidParameter("q", f"'q' may hold at most {MAX_PREFIXES} prefixes (words typed with a *)")
    bracketed = any("[" in key for key in named)  # a list form of some filter: looked for only then
    filters = {name: _values(args, name, bracketed) if bracketed or name in named else () for name in FILTERS}
    if filters["kind"]:  # a closed list, read in any case: an unknown kind is a mistake, not an empty filter
        filters["kind"] = tuple(dict.fromkeys(kind.lower() for kind in filters["kind"]))
        if not set(filters["kind"]) <= set(KINDS):
            raise InvalidParameter("kind", f"each 'kind' value must be one of: {', '.join(KINDS)}")
    if not all(map(is_month, filters["month"])):
        raise InvalidParameter("month", "each 'month' value must be a month written YYYY-MM, e.g. 2024-05")
    since, until = (_date(args, name) if name in named else None for name in DATE_BOUNDS)
    per_page = _per_page(args) if "per_page" in named else DEFAULT_PER_PAGE
    page = _page(args) if "page" in named else 1
    if (page - 1) * per_page >= MAX_RESULT_WINDOW:
        last = last_window_page(per_page)
        raise InvalidParameter(
            "page", f"'page' {page} would start past result {MAX_RESULT_WINDOW}, the last any search serves: "
                    f"with 'per_page' {per_page} no search has a page past {last} (the answer's 'pages' says how many this "
                    "one has; one with more results than that needs a word or a filter more to reach the others)"
        )
    sort = _sort(args) if "sort" in named else None
    explain, verbatim = (_boolean(args, name) if name in named else False for name in ("explain", "verbatim"))
    params = SearchParams(
        q=q, page=page, per_page=per_page, sort=sort, explain=explain, verbatim=verbatim, since=since, until=until, **filters
    )
    if sort is not None and (sort == params.with_(sort=None).effective_sort or (sort == "relevance" and not q.strip())):
        # The default asked for by name is the default, as is relevance without a query (newest): one
        # cache entry and one ETag for one answer ("?q=vim" and "?q=vim&sort=relevance" had two).
        params = params.with_(sort=None)
    low, high = (_instant(args, name) if name in named else None for name in DATE_BOUNDS)
    if low is not None and high is not None and high < low:  # never what a reader means: say so
        # Each as read in UTC: "'until' (…T12:00Z) is before 'since' (…T10:00-05:00)" hid why (a QA pass).
        raise InvalidParameter("until", f"'until' ({_as_read_in_utc(args, 'until')}) is before 'since' ({_as_read_in_utc(args, 'since')})")
    opens, closes = params.date_range
    if opens is not None and closes is not None and closes < opens:
        # Documents are dated to the second, so a window within one second holds none: "since=…00.5Z&
        # until=…00.7Z" was a 200 echoing since …01Z (the next whole second) and until …00Z (the fraction
        # dropped), and every link of its page, its feed's redirect too, was then a 400 (a QA pass).
        # No two whole seconds can write it in order: it is refused, naming what would hold a second.
        raise InvalidParameter(
            "until", f"'since' ({_in_utc(args, 'since')}) and 'until' ({_in_utc(args, 'until')}) hold no whole second "
                     f"between them, and documents are dated to the second (a fraction moves 'since' to the next): give "
                     f"'until' {params.since} or later, or 'since' {format_utc(to_datetime(params.since) - timedelta(seconds=1))} or earlier")
    return params


def _raw_date(args: MultiMapping, name: str) -> str:
    """Return date parameter *name* as it was sent (blanks around it aside, a "+" read as a space
    restored, in upper case: "t" and "z" are "T" and "Z")."""
    return _as_date(args.get(name) or "")


def _as_date(value: str) -> str:
    """Return *value*, a date parameter's, as ``_raw_date`` reads it."""
    return _PLUS_AS_SPACE.sub(r"\1+\2", value.strip(_BLANK).upper())


_FRACTION = re.compile(r"[.,][0-9]*[1-9]")  # a fraction of a second that is not zero


def _in_utc(args: MultiMapping, name: str) -> str:
    """Return date parameter *name* (already checked by ``_date``) as read, in UTC: a date as it is,
    a date-time with its fraction of a second as sent (trailing zeros dropped), to say why a bound is refused."""
    return _utc_reading(_raw_date(args, name))


def _as_read_in_utc(args: MultiMapping, name: str) -> str:
    """Return ``_in_utc`` of date parameter *name*, and what was sent when it had an offset to apply."""
    read, sent = _in_utc(args, name), _raw_date(args, name)
    return f"{read}, sent as {sent}" if re.search(r"[T ][0-9:.,]+[+-]", sent) else read


def _utc_reading(raw: str) -> str:
    """Return *raw*, a date parameter as ``_raw_date`` gives it, as ``_in_utc`` says it (ValueError if it is none)."""
    if not re.fullmatch(DATE_PATTERN[1:-1], raw):
        raise ValueError(raw)
    canonical = parse_iso(raw)
    if is_date_only(canonical):
        return canonical
    fraction = re.search(r"[.,]([0-9]+)", raw)
    digits = fraction.group(1).rstrip("0") if fraction else ""
    return canonical[:-1] + (f".{digits}" if digits else "") + "Z"


def _instant(args: MultiMapping, name: str) -> float | None:
    """Return the moment date parameter *name* (already checked by ``_date``) stands for, exactly, in
    seconds since the epoch: a date-only until is the end of its day, a fraction of a second is kept."""
    raw = _raw_date(args, name)
    if not raw:
        return None
    moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    seconds = moment.timestamp()
    # Asked of the canonical date, not of what was sent: "20240207" (ISO 8601's basic form) is a date
    # too, and read by its length it was its midnight, a 400 "before 'since'" where "2024-02-07" was
    # answered (a QA pass).
    return seconds + _DAY_S - 1e-6 if name == "until" and is_date_only(parse_iso(raw)) else seconds


URL_ORDER = ("q", *FILTERS, *DATE_BOUNDS, "sort", "per_page", "page", "verbatim", "explain")  # as a URL writes them


def url_values(params: SearchParams, overrides: dict[str, object]) -> list[tuple[str, object]]:
    """Return each parameter's value in URL order, *overrides* taking the place of *params*' own.

    The overrides are read beside *params*, not through a new SearchParams: a result page builds
    some thirty links (a chip per hit's topic and organisation, the pages, the sorts), and a copy of
    the parameters for each was a tenth of the page's time."""
    if unknown := overrides.keys() - _FIELDS:
        raise TypeError(f"no such search parameter: {sorted(unknown)[0]!r}")
    return [(name, overrides[name] if name in overrides else getattr(params, name)) for name in URL_ORDER]


def url_pairs(name: str, value: object) -> list[tuple[str, str]]:
    """Return the (name, value) pairs parameter *name* at *value* writes in a URL: none at its default."""
    if name in FILTERS:
        return [(name, v) for v in value]  # type: ignore[attr-defined]
    if name == "per_page":
        return [] if value == DEFAULT_PER_PAGE else [(name, str(value))]
    if name == "page":
        return [] if value == 1 else [(name, str(value))]
    if name in ("explain", "verbatim"):
        return [(name, "1")] if value else []
    return [(name, value)] if value else []  # type: ignore[list-item]  # q, since, until, sort


def to_query_string(params: SearchParams, **overrides: object) -> list[tuple[str, str]]:
    """Return the (name, value) pairs that reproduce *params* in a URL, with *overrides* applied."""
    return [pair for name, value in url_values(params, overrides) for pair in url_pairs(name, value)]

