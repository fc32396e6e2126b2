"""Enrichment: give records the related topics and the organisations their text names.

Both come from data beside the loaders, not from code.  The taxonomy (``data/taxonomy.json``) names
a home topic and its related topics, each with rules: words and phrases matched as whole words, in
any case, because topic vocabulary shows up in Title Case headlines and at the start of sentences
("Data Center", "Gigawatts"); a short ``exact`` list keeps acronyms that are also words ("ZeRO",
"TRL") to the case written.  The gazetteer (``data/organisations.json``) lists organisations with
their aliases ("AWS" is Amazon), matched as whole words in the case written, because there case
is what tells the company "Meta" from the word "meta" and "SK" from "sk".  Rules are compiled, once
per load, to at most two regular expressions per topic and one for the whole gazetteer, and only run
over records of the topics they are written for, so a 64k-package Debian corpus pays almost nothing:
the home topic's for the taxonomy; for the gazetteer, every hub topic (one a topic page in the build
defines: the hub follows subjects in AI, and "NVIDIA" is NVIDIA on each of its pages) and those of its
``applies_to``, never a topic only JSONL lines give (a Debian package's "Meta" or "Mistral").
Enrichment adds and never removes: a record's own topics and organisations stay, and an
organisation a JSONL line names by its gazetteer name or alias is spelled by its slug.  A topic or
organisation written several ways across records ("Acme Corp", "ACME CORP") is written one way in
all of them (``unify_spellings``), so it is one facet value, not several; a topic written by a known
topic's label ("Training Infrastructure", any case) is that topic, by its slug, before the rules run
(``name_topics``), so it is enriched as the topic's other records are.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus.errors import CorpusError
from corpus.records import EVENT, Organisation, Record, Topic

log = logging.getLogger(__name__)

DATA_DIR = Path(__file__).resolve().parent / "data"
TAXONOMY_FILE = DATA_DIR / "taxonomy.json"
ORGANISATIONS_FILE = DATA_DIR / "organisations.json"

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_SEPARATOR = r"[\s\-]+"
_SPLIT = re.compile(_SEPARATOR)
_RULE = re.compile(r"\*?\w(?:.*\w)?\*?", re.DOTALL)  # begins and ends with a word character


def _rule_body(rule: str) -> str:
    """Return the regular expression for one rule, without its word boundaries."""
    head, tail = rule.startswith("*"), rule.endswith("*")
    words = [w for w in _SPLIT.split(rule.strip("*")) if w]
    body = _SEPARATOR.join(re.escape(w) for w in words)
    return ("\\w*" if head else "") + body + ("\\w*" if tail else "")


def _compile(rules: Iterable[str]) -> re.Pattern[str] | None:
    """Return one pattern matching any of *rules* as whole words, or None for no rules."""
    rules = list(rules)
    if not rules:
        return None
    # One boundary around the whole alternation, not one per rule, and a look at the first letter:
    # Python's re then tries the alternatives only at word starts that could begin one of them,
    # several times faster on text that matches nothing (most text).
    first = "" if any(rule.startswith("*") for rule in rules) else "".join(sorted({r[0] for r in rules}))
    guard = f"(?=[{re.escape(first)}])" if first else ""
    return re.compile(r"\b" + guard + "(?:" + "|".join(_rule_body(rule) for rule in rules) + r")\b")


def _normal(name: str) -> str:
    return " ".join(w for w in _SPLIT.split(name) if w)


@dataclass(frozen=True, slots=True)
class TopicRule:
    """A related topic and its compiled rules."""

    topic: Topic
    any_case: re.Pattern[str] | None  # written in lowercase, run over lowercased text
    exact: re.Pattern[str] | None

    def matches(self, text: str, lowered: str) -> bool:
        """Return whether *text* (and *lowered*, the same text in lowercase) matches a rule."""
        return bool(
            (self.any_case is not None and self.any_case.search(lowered))
            or (self.exact is not None and self.exact.search(text))
        )


@dataclass(frozen=True, slots=True)
class Taxonomy:
    """A home topic and the related topics its records are given by rule."""

    home: Topic
    related: tuple[TopicRule, ...]
    path: Path = TAXONOMY_FILE  # where it was read: a source contradicting it is told of with it
    # The former slugs of topics the sources declare (topic pages), by their slug now (the taxonomy's
    # "renamed"): a topic page has no place to say them, and a page's slug cannot be a taxonomy topic's.
    renamed: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)

    def former(self, slug: str) -> Topic | None:
        """Return the topic that had *slug* before it was renamed (one of the taxonomy's, or one its
        "renamed" lists, by its slug only), or None."""
        found = next((topic for topic in (self.home, *(r.topic for r in self.related)) if slug in topic.formerly), None)
        if found is None:
            found = next((_renamed_topic(now, old) for now, old in self.renamed.items() if slug in old), None)
        return found

    def declared(self, topic: Topic) -> Topic:
        """Return *topic*, one a topic page declares, with the former slugs "renamed" gives it."""
        formerly = self.renamed.get(topic.slug)
        if formerly is None or topic.formerly == formerly:
            return topic
        return dataclasses.replace(topic, formerly=formerly)

    def topics_for(self, text: str) -> tuple[str, ...]:
        """Return the slugs of the related topics whose rules match *text*, in taxonomy order."""
        # Lowercasing once beats re.IGNORECASE, which is several times slower on long alternations.
        lowered = text.lower()
        return tuple(rule.topic.slug for rule in self.related if rule.matches(text, lowered))


@dataclass(frozen=True, slots=True)
class Gazetteer:
    """Organisations by slug, the topics whose records are scanned for them besides the hub topics a
    build's topic pages define (``applies_to``: an update, which reads no topic page, scans these), and
    the compiled names."""

    organisations: Mapping[str, Organisation]
    scope: frozenset[str]
    names: Mapping[str, str]  # a name or alias, spaces normalised → slug
    pattern: re.Pattern[str] | None

    def find(self, text: str) -> tuple[str, ...]:
        """Return the slugs of the organisations *text* names, in order of first mention."""
        if self.pattern is None:
            return ()
        found = (self.names[_normal(m.group())] for m in self.pattern.finditer(text))
        return tuple(dict.fromkeys(found))

    def canonical(self, entity: str) -> str:
        """Return the slug of *entity* when it is a known name or alias, else *entity* unchanged."""
        return self.names.get(_normal(entity), entity)


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CorpusError(path, None, f"cannot be read: {exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CorpusError(path, None, f"is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise CorpusError(path, None, "expected a JSON object")
    return data


def _text(entry: Mapping[str, Any], key: str, path: Path, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CorpusError(path, None, f"{where}: {key!r} must be a non-empty string")
    return value.strip()


def _texts(entry: Mapping[str, Any], key: str, path: Path, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and _RULE.fullmatch(v.strip()) for v in value):
        raise CorpusError(
            path, None, f"{where}: {key!r} must be a list of words or phrases that begin and end with a letter or digit"
        )
    return tuple(v.strip() for v in value)


def _slug(entry: Mapping[str, Any], path: Path, where: str) -> str:
    slug = _text(entry, "slug", path, where)
    if not _SLUG.fullmatch(slug):
        raise CorpusError(path, None, f"{where}: slug {slug!r} must be lowercase words joined by hyphens")
    return slug


_TOPIC_KEYS = ("slug", "label", "description", "formerly")
_RULE_KEYS = ("words", "exact")


def _topic(entry: Any, path: Path, where: str, keys: Sequence[str] = _TOPIC_KEYS) -> Topic:
    if not isinstance(entry, dict):
        raise CorpusError(path, None, f"{where} must be a JSON object")
    for key in entry.keys() - set(keys):  # "formely" did nothing, and said nothing
        log.warning("%s: %s: key %r is not one the taxonomy reads (%s), and is ignored", path, where, key, ", ".join(keys))
    formerly = entry.get("formerly", [])
    if not isinstance(formerly, list) or not all(isinstance(old, str) and _SLUG.fullmatch(old) for old in formerly):
        raise CorpusError(path, None, f"{where}: 'formerly' must be a list of slugs (lowercase words joined by hyphens)")
    return Topic(
        slug=_slug(entry, path, where),
        name=_text(entry, "label", path, where),
        description=_text(entry, "description", path, where),
        event_count=0,
        formerly=tuple(dict.fromkeys(formerly)),
    )


def _check_former_slugs(topics: Iterable[Topic], path: Path) -> None:
    """Refuse a former slug (``formerly``) that is a topic's slug now, or that two topics claim: its old
    addresses could lead to one topic only."""
    topics = list(topics)
    current = {topic.slug for topic in topics}
    claimed: dict[str, str] = {}
    for topic in topics:
        for old in topic.formerly:
            if old in current:
                raise CorpusError(path, None, f"topic {topic.slug!r}: former slug {old!r} is a topic's slug now")
            if claimed.setdefault(old, topic.slug) != topic.slug:
                raise CorpusError(path, None, f"former slug {old!r} is claimed by {claimed[old]!r} and {topic.slug!r}")


def _renamed_topic(slug: str, formerly: tuple[str, ...]) -> Topic:
    """Return a stand-in for a topic a topic page declares, for the checks of former slugs: its name
    and description are the page's, not the taxonomy's."""
    return Topic(slug=slug, name=slug, description="", event_count=0, formerly=formerly)


_RENAMED_KEYS = ("slug", "formerly")
_TAXONOMY_KEYS = ("about", "home", "related", "renamed")


def _renamed(entries: Any, path: Path, taxonomy: Sequence[Topic]) -> dict[str, tuple[str, ...]]:
    """Return the former slugs of each topic the taxonomy's "renamed" lists (a topic a topic page
    declares), by its slug now; refuse one naming a topic of the taxonomy, whose own "formerly" says them."""
    if entries is None:
        return {}
    if not isinstance(entries, list):
        raise CorpusError(path, None, "'renamed' must be a list of {\"slug\": ..., \"formerly\": [...]} objects, one a "
                                      "topic page's topic renamed")
    own = {topic.slug: "a related topic" for topic in taxonomy[1:]} | {taxonomy[0].slug: "the home topic"}
    renamed: dict[str, tuple[str, ...]] = {}
    for number, entry in enumerate(entries, start=1):
        slug = entry.get("slug") if isinstance(entry, dict) else None
        where = f"renamed topic {number}" + (f" ({slug!r})" if isinstance(slug, str) and slug else "")
        if not isinstance(entry, dict):
            raise CorpusError(path, None, f"{where} must be a JSON object")
        for key in entry.keys() - set(_RENAMED_KEYS):
            log.warning("%s: %s: key %r is not one the taxonomy reads (%s), and is ignored", path, where, key,
                        ", ".join(_RENAMED_KEYS))
        slug = _slug(entry, path, where)
        if slug in own:
            raise CorpusError(path, None, f"{where}: {slug!r} is {own[slug]} of the taxonomy, not a topic page's: list "
                                          f"its former slugs in its own 'formerly', not in 'renamed'")
        if slug in renamed:
            raise CorpusError(path, None, f"{where}: slug {slug!r} is listed twice")
        formerly = entry.get("formerly")
        if not isinstance(formerly, list) or not formerly or not all(isinstance(old, str) and _SLUG.fullmatch(old)
                                                                     for old in formerly):
            raise CorpusError(path, None, f"{where}: 'formerly' must be a non-empty list of slugs (lowercase words "
                                          "joined by hyphens)")
        renamed[slug] = tuple(dict.fromkeys(formerly))
    return renamed


def load_taxonomy(path: str | Path = TAXONOMY_FILE) -> Taxonomy:
    """Return the taxonomy in *path*, its rules compiled."""
    path = Path(path)
    data = _read(path)
    for key in sorted(data.keys() - set(_TAXONOMY_KEYS)):  # "renamd" did nothing, and said nothing
        log.warning("%s: key %r is not one the taxonomy reads (%s), and is ignored", path, key, ", ".join(_TAXONOMY_KEYS))
    home = _topic(data.get("home"), path, "'home'")
    entries = data.get("related")
    if not isinstance(entries, list) or not entries:
        raise CorpusError(path, None, "'related' must be a non-empty list of topics")
    related: list[TopicRule] = []
    seen = {home.slug}
    for number, entry in enumerate(entries, start=1):
        slug = entry.get("slug") if isinstance(entry, dict) else None
        # Named by its slug when it has one: "related topic 6" left the reader counting (a QA pass).
        where = f"related topic {number}" + (f" ({slug!r})" if isinstance(slug, str) and slug else "")
        topic = _topic(entry, path, where, (*_TOPIC_KEYS, *_RULE_KEYS))
        if topic.slug in seen:
            raise CorpusError(path, None, f"{where}: slug {topic.slug!r} is used twice")
        seen.add(topic.slug)
        words, exact = _texts(entry, "words", path, where), _texts(entry, "exact", path, where)
        if not words and not exact:
            raise CorpusError(path, None, f"{where}: {topic.slug!r} has no rules")
        related.append(TopicRule(topic, _compile(w.lower() for w in words), _compile(exact)))
    own = [home, *(rule.topic for rule in related)]
    renamed = _renamed(data.get("renamed"), path, own)
    _check_former_slugs([*own, *(_renamed_topic(slug, formerly) for slug, formerly in renamed.items())], path)
    return Taxonomy(home=home, related=tuple(related), path=path, renamed=renamed)


def load_gazetteer(path: str | Path = ORGANISATIONS_FILE) -> Gazetteer:
    """Return the gazetteer in *path*, its names compiled longest first."""
    path = Path(path)
    data = _read(path)
    scope = _texts(data, "applies_to", path, "the gazetteer")
    entries = data.get("organisations")
    if not isinstance(entries, list):
        raise CorpusError(path, None, "'organisations' must be a list")
    organisations: dict[str, Organisation] = {}
    names: dict[str, str] = {}
    for number, entry in enumerate(entries, start=1):
        where = f"organisation {number}"
        if not isinstance(entry, dict):
            raise CorpusError(path, None, f"{where} must be a JSON object")
        slug = _slug(entry, path, where)
        if slug in organisations:
            raise CorpusError(path, None, f"{where}: slug {slug!r} is used twice")
        org = Organisation(slug, _text(entry, "name", path, where), _texts(entry, "aliases", path, where))
        organisations[slug] = org
        for name in (org.name, *org.aliases):
            if "*" in name or not _RULE.fullmatch(name):
                raise CorpusError(
                    path, None, f"{where}: {name!r} must begin and end with a letter or digit and have no '*'"
                )
            other = names.setdefault(_normal(name), slug)
            if other != slug:
                raise CorpusError(path, None, f"{where}: {name!r} already names {other!r}")
    # Longest first, so that at any place "SK hynix" wins over "SK" and "Google Cloud" over "Google".
    ordered = sorted(names, key=lambda name: (-len(name), name))
    return Gazetteer(organisations, frozenset(scope), names, _compile(ordered))


@dataclass(frozen=True, slots=True)
class Enriched:
    """Records with their related topics and organisations, and the topics and organisations used."""

    records: list[Record]
    topics: dict[str, Topic]
    organisations: dict[str, Organisation]


def enrich(
    records: Iterable[Record],
    topics: Mapping[str, Topic],
    taxonomy: Taxonomy,
    gazetteer: Gazetteer,
    hub: Iterable[str] = (),
) -> Enriched:
    """Return *records* with related topics and organisations added, and the topics they now use.

    *topics* are the topics the sources declared (their topic pages); the taxonomy's topics are added
    to them (a declared topic keeps its own entry) when some record belongs to the home topic, each
    related topic with the number of events it was given.  The records of a declared topic, as those
    of the gazetteer's ``applies_to``, get the organisations their text names; so do those of the *hub*
    topics (an update's: the topics of the index it changes, whose topic pages it does not read).
    """
    home = taxonomy.home.slug
    # A declared topic the taxonomy's "renamed" lists: its former slugs, as the home topic's, reach the
    # build's topics (its meta), and a source still writing one is the topic.
    topics = {slug: taxonomy.declared(topic) for slug, topic in topics.items()}
    # A topic written by a known topic's label ("Training Infrastructure") is that topic, before the
    # rules look for the home topic's records: the home topic's and the declared ones' always, the
    # related topics' when the home topic is there (elsewhere "Funding & investment" may be another's).
    records = name_topics(records, topic_names([*topics.values(), taxonomy.home]))
    if any(record.topic == home for record in records):
        records = name_topics(records, topic_names([*topics.values(), taxonomy.home, *(r.topic for r in taxonomy.related)]))
    out: list[Record] = []
    counts = {rule.topic.slug: 0 for rule in taxonomy.related}
    has_home = False
    # Every topic a topic page defines is the hub's, and gets its organisations as the home topic does:
    # a second topic's NVIDIA events were not NVIDIA's, and its editor could not change it (a QA pass).
    scope = gazetteer.scope | topics.keys() | frozenset(hub)
    for record in records:
        if not record.entities and record.topic != home and record.topic not in scope:
            out.append(record)  # the common case in a large foreign corpus: nothing to do
            continue
        changes: dict[str, tuple[str, ...]] = {}
        text: str | None = None
        if record.topic == home:
            has_home = True
            text = f"{record.title}\n{record.body}"
            added = taxonomy.topics_for(text)
            if record.kind == EVENT:
                for slug in added:
                    counts[slug] += 1
            topics_now = tuple(dict.fromkeys((*record.topics, *added)))
            if topics_now != record.topics:
                changes["topics"] = topics_now
        # A name or alias the gazetteer knows is its organisation in the topics it is for; elsewhere an
        # entity is what the corpus says it is ("SK", Slovakia in a farming corpus, was "SK Group"; a QA pass).
        entities = record.entities
        if record.topic in scope:
            entities = tuple(gazetteer.canonical(e) for e in record.entities)
            if text is None:
                text = f"{record.title}\n{record.body}"
            entities = (*entities, *gazetteer.find(text))
        entities = tuple(dict.fromkeys(entities))
        if entities != record.entities:
            changes["entities"] = entities
        out.append(dataclasses.replace(record, **changes) if changes else record)

    all_topics = dict(topics)
    if has_home:
        # The home topic's topic page says who it is; the taxonomy, which slugs it had before.
        all_topics[home] = dataclasses.replace(all_topics.get(home, taxonomy.home), formerly=taxonomy.home.formerly)
        for rule in taxonomy.related:
            all_topics.setdefault(rule.topic.slug, dataclasses.replace(rule.topic, event_count=counts[rule.topic.slug]))
    # A known organisation by its slug, whichever way its name is written ("google deepmind", which
    # the gazetteer matches in its own case only, was a facet value beside "google-deepmind").
    known = {spelling_key(org.name): slug for slug, org in gazetteer.organisations.items()}
    settled = {"topics": {spelling_key(slug): slug for slug in all_topics},
               "entities": {**known, **{spelling_key(slug): slug for slug in gazetteer.organisations}}}
    out = unify_spellings(out, settled)
    used = dict.fromkeys(entity for record in out for entity in record.entities)  # as unified
    organisations = {slug: gazetteer.organisations[slug] for slug in used if slug in gazetteer.organisations}
    return Enriched(out, all_topics, organisations)


UNIFIED_FIELDS = ("topics", "entities")


def topic_names(topics: Iterable[Topic]) -> dict[str, str]:
    """Return the slug of each of *topics* by the spelling key (``spelling_key``) of its slug, of its
    label and of the slugs it had before (``formerly``): "Training Infrastructure" and "training
    infrastructure" name ``training-infrastructure``, and so does a renamed topic's old slug, so a
    source still writing it is that topic.  A slug names its own topic before a label names another,
    a label before a former slug; a label two topics share names neither."""
    topics = list(topics)
    slugs = {spelling_key(topic.slug): topic.slug for topic in topics}
    former = {spelling_key(old): topic.slug for topic in topics for old in topic.formerly}
    labels: dict[str, str] = {}
    shared: set[str] = set()
    for topic in topics:
        key = spelling_key(topic.name)
        if key not in slugs and labels.setdefault(key, topic.slug) != topic.slug:
            shared.add(key)
    return {**former, **{key: slug for key, slug in labels.items() if key not in shared}, **slugs}


def name_topics(records: Iterable[Record], names: Mapping[str, str]) -> list[Record]:
    """Return *records* with each topic that *names* knows (by ``topic_names``: a known topic's label,
    or its slug in another case) written by its slug, the home topic (``topic``) included; a record
    naming one topic two ways keeps it once."""
    records = list(records)
    held: set[str] = set()
    for record in records:
        held.add(record.topic)
        held.update(record.topics)
    renamed = {value: slug for value in held if (slug := names.get(spelling_key(value), value)) != value}
    if not renamed:
        return records
    out = []
    for record in records:
        if record.topic in renamed or any(value in renamed for value in record.topics):
            record = dataclasses.replace(
                record,
                topic=renamed.get(record.topic, record.topic),
                topics=tuple(dict.fromkeys(renamed.get(value, value) for value in record.topics)),
            )
        out.append(record)
    return out


def spelling_key(value: str) -> str:
    """Return what the spellings of one topic or organisation share: the value case-folded, its spaces collapsed."""
    return " ".join(value.casefold().split())


def unify_spellings(records: Sequence[Record], settled: Mapping[str, Mapping[str, str]] | None = None) -> list[Record]:
    """Return *records* with each topic and organisation written one way in all of them.

    The way is *settled*'s when it has one (field → spelling key → spelling: a declared topic's slug,
    a known organisation's, or what an index already holds); else the way most of *records* write it,
    the first of those on a tie.  A record whose topics or organisations then repeat keeps one of each.
    """
    settled = settled or {}
    renamed: dict[str, dict[str, str]] = {}
    for field in UNIFIED_FIELDS:
        fixed = settled.get(field, {})
        held: set[str] = set()  # the values first, in C: most corpora write each one way, and counting is then not needed
        for record in records:
            held.update(getattr(record, field))
        by_key: dict[str, list[str]] = {}
        for value in held:
            by_key.setdefault(spelling_key(value), []).append(value)
        doubtful = {key for key, values in by_key.items() if len(values) > 1 or (key in fixed and values != [fixed[key]])}
        counts: Counter[str] = Counter()
        if doubtful:
            for record in records:
                counts.update(v for v in getattr(record, field) if spelling_key(v) in doubtful)
        best: dict[str, str] = {}  # Counter keeps first-seen order: the first written wins a tie
        for value, count in counts.items():
            key = spelling_key(value)
            if key not in best or count > counts[best[key]]:
                best[key] = value
        renamed[field] = {
            value: way for key in doubtful for way in (fixed.get(key) or best[key],) for value in by_key[key] if value != way
        }
    if not any(renamed.values()):
        return list(records)
    out = []
    for record in records:
        changes: dict[str, object] = {}
        for field in UNIFIED_FIELDS:
            names = renamed[field]
            values = getattr(record, field)
            if any(value in names for value in values):
                changes[field] = tuple(dict.fromkeys(names.get(value, value) for value in values))
        if "topics" in changes:
            changes["topic"] = renamed["topics"].get(record.topic, record.topic)
        out.append(dataclasses.replace(record, **changes) if changes else record)
    return out


def enrich_records(records: Iterable[Record], hub: Iterable[str] = ()) -> Enriched:
    """Return *records* enriched with the taxonomy and gazetteer in corpus/data (for index updates),
    with the organisations they name; the records of the *hub* topics (those of the index updated) are
    read for organisations as a build reads its topic pages' records."""
    return enrich(records, {}, load_taxonomy(), load_gazetteer(), hub)
