"""Query building: syntax readers use works, syntax Whoosh chokes on is searched as words."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from whoosh import query as wq

from index.build import build
from index.schema import make_schema
from search.params import SearchParams
from search.query import PREFIX_LIMIT, _parser, _Parser, _quoted_phrase, _other_spelled, _single_term, asked_text, build_query, caps_lock, expand, keep_informative, meaning_text, without_exclusions
from corpus.errors import CorpusError
from corpus.synonyms import check_synonyms, load_synonyms
from search.service import SearchService
from search.synonyms import parse_synonyms
from tests.conftest import write_jsonl

SCHEMA = make_schema()
_GROUPS, _WITHIN = load_synonyms()
SYNONYMS = parse_synonyms(_GROUPS, SCHEMA["body"].analyzer, _WITHIN)


class FakeVocabulary:
    """A vocabulary of a few words, to expand queries without an index."""

    def __init__(self, words):
        self.words = sorted(words)

    def contains(self, word):
        return word in self.words

    def near(self, typed, word):
        return [(w, 1) for w in self.words if w[:3] == word[:3]]

    def prefixed(self, prefix, limit):
        return [w for w in self.words if w.startswith(prefix)][:limit]

    def begins(self, word, prefix):
        return word.startswith(prefix)

    def completions(self, typed):
        return [] if len(typed) < 5 else self.prefixed(typed.lower(), 4)

    def acronym(self, word):
        return word in {"gpu", "llm", "tpu"}

    def frequency(self, word):
        return 1 if word in self.words else 0

    def common(self, typed):
        return False

    def follows(self, first, second):
        return False

    def apart(self, first, second):
        return False

    def together(self, first, second, limit):
        return 0

    def writes(self, spelled, word):
        return True


def test_all_words_and_any_words():
    parsed = build_query("trainium deal", SCHEMA)
    assert isinstance(parsed.all_words, wq.And) and isinstance(parsed.any_words, wq.Or)
    assert parsed.terms == {"trainium", "deal"}


def test_phrase_exclusion_and_or():
    parsed = build_query('"data center" -texas', SCHEMA)
    assert isinstance(parsed.all_words, wq.AndNot)
    assert parsed.terms == {"data", "center"}  # the excluded word is not highlighted
    assert "OR" in str(build_query("stargate OR michigan", SCHEMA).all_words)


def test_hyphens_inside_words_do_not_exclude():
    assert "ANDNOT" not in str(build_query("V3.2-Exp", SCHEMA).all_words)
    assert "ANDNOT" not in str(build_query("fine-tuning", SCHEMA).all_words)


@pytest.mark.parametrize("text", ["title:foo", "[a TO z]", "foo^3", "f*"])
def test_field_wildcard_range_and_boost_syntax_are_plain_words(text):
    parsed = build_query(text, SCHEMA)
    assert not parsed.is_empty
    for node in parsed.any_words.leaves():
        assert isinstance(node, (wq.Term, wq.Phrase)), (text, node)
        assert node.fieldname in ("title", "body")


@pytest.mark.parametrize(
    "text", ["NOT NOT a", "a ANDNOT ANDNOT b", "(" * 300 + "gpu" + ")" * 300, "a~2/3", '"', "((", "AND OR NOT"]
)
def test_parser_crash_inputs_still_search(text):
    parsed = build_query(text, SCHEMA)
    assert isinstance(parsed.any_words, wq.Query)


def test_syntax_the_parser_chokes_on_is_said_to_exclude_nothing(service):
    # "stargate NOT ANDNOT michigan" said "No page has ANDNOT, so excluding it left nothing out", its
    # words searched without it, michigan among them (a review).
    result = service.search(SearchParams(q="stargate NOT ANDNOT michigan"))
    assert result.plain and result.excluded_in_vain == () and result.total == service.search(SearchParams(q="stargate michigan")).total


def test_parser_crash_falls_back_to_plain_words_without_its_operators():
    # The operators were searched as words: "Missing: ANDNOT" on every hit (a QA pass).
    parsed = build_query("gpu NOT ANDNOT cluster", SCHEMA)
    assert parsed.plain
    assert parsed.terms == {"gpu", "cluster"}


@pytest.mark.parametrize(("typed", "meant"), [("gpu ANDNOT ANDNOT cluster", "gpu ANDNOT cluster"), ("NOT NOT gpu", "gpu"),
                                              ("gpu NOT NOT cluster", "gpu cluster"), ("NOT NOT NOT gpu", "NOT gpu"),
                                              ('"NOT NOT" gpu', '"NOT NOT" gpu')])
def test_an_operator_typed_twice_is_read_once_and_two_negations_as_none(typed, meant):
    # The parser choked on "NOT NOT a" and "a ANDNOT ANDNOT b": they were searched as plain words.
    parsed, expected = build_query(typed, SCHEMA), build_query(meant, SCHEMA)
    assert not parsed.plain and (parsed.any_words, parsed.excluded) == (expected.any_words, expected.excluded)


def test_a_query_of_function_words_still_searches_them():
    assert build_query("it", SCHEMA).terms == {"it"}
    assert build_query("who is", SCHEMA).terms == {"who", "is"}


def test_match_everything_syntax_matches_nothing():
    assert build_query("*:*", SCHEMA).is_empty


@pytest.mark.parametrize(
    ("typed", "variant"),
    [("data centre", "datacent"), ("datacenter", "centr"), ("britain", "kingdom"), ("finetune", "tune"),
     ("mixture of experts", "moe"), ("MoE", "mixtur"), ("custom chips", "silicon"), ("growing", "growth")],
)
def test_synonyms_from_the_data_file_are_searched_too(typed, variant):
    parsed = build_query(typed, SCHEMA, SYNONYMS)
    assert variant in parsed.terms
    assert any(a.via == "synonym" for c in parsed.concepts for a in c.alternatives)


def test_a_variant_ending_in_an_acronym_plural_is_found_typed_in_lower_case_too():
    # The group's "multiple GPUs" is analysed ("multipl", "gpu"); "multiple gpus" typed so was two
    # concepts, "multiple" and "gpus", and missed "multi-GPU" (a QA pass: "how to train on multiple gpus").
    for typed in ("multiple gpus", "multiple GPUs", "Multiple Gpus"):
        parsed = build_query(typed, SCHEMA, SYNONYMS)
        [concept] = parsed.concepts
        assert ("multi", "gpu") in [a.words for a in concept.alternatives if a.via == "synonym"], typed
    # Not an acronym's plural ("chips" is "chip" to the stemmer already): nothing changes.
    assert [c.text for c in build_query("multiple chips", SCHEMA, SYNONYMS).concepts] == ["multiple", "chips"]


def test_a_multi_word_variant_is_one_concept_and_its_words_still_count_alone():
    parsed = build_query("data centre in britain", SCHEMA, SYNONYMS)
    assert [c.text for c in parsed.concepts] == ["data centre", "britain"]
    assert parsed.concepts[0].loose  # a document with only "data" still matches any-words


@pytest.mark.parametrize("groups", ["datacenter", [{"variants": ["Europe"], "includes": "Norway"}]])
def test_bad_synonym_data_is_refused_naming_the_file(groups):
    with pytest.raises(CorpusError, match="synonyms.json"):
        check_synonyms(groups)


def test_a_region_finds_the_places_in_it_and_a_place_not_its_region():
    # "stargate europe" missed Stargate UK (a QA pass): a region's places are its alternatives, with
    # their own groups' variants; "uk" does not find every page on Europe.
    def ways(text):
        return {a.words for a in build_query(text, SCHEMA, SYNONYMS).concepts[0].alternatives}

    assert {("uk",), ("britain",), ("norway",), ("european",)} <= ways("europe")
    assert {("uae",), ("bahrain",)} <= ways("middle east")
    assert ("europ",) not in ways("uk") and ("europ",) not in ways("norway")
    # ... each said as what it is: "european" a synonym, the UK a place in Europe ("by a place in it").
    via = {a.words: a.via for a in build_query("europe", SCHEMA, SYNONYMS).concepts[0].alternatives}
    assert via[("european",)] == "synonym" and via[("uk",)] == via[("britain",)] == "place"


def test_unknown_word_gets_close_spellings_below_the_typed_word():
    parsed = expand(build_query("kuberentes nodes", SCHEMA), FakeVocabulary({"kubernet", "node"}))
    first = parsed.concepts[0]
    assert [a.via for a in first.alternatives] == ["exact", "typo"]
    assert first.alternatives[1].words == ("kubernet",)
    assert [c.typed for c in parsed.corrections] == ["kuberentes"]
    assert [a.via for a in parsed.concepts[1].alternatives] == ["exact"]  # a known word is never replaced


def test_a_word_with_a_known_synonym_is_not_corrected():
    parsed = expand(build_query("datacentre", SCHEMA, SYNONYMS), FakeVocabulary({"datacent", "datacentr2"}))
    assert not parsed.corrections


def test_the_prefixes_of_a_query_are_bounded_together():
    # 32 short prefixes of 64 words each took 9 s at 64k; together they stand for PREFIX_TOTAL words.
    from search.query import PREFIX_TOTAL

    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {f"{a}{b}{c}" for a in letters[:8] for b in letters[:4] for c in letters}
    prefixes = [f"{a}{b}" for a in letters[:8] for b in letters[:4]]
    parsed = expand(build_query(" ".join(f"{p}*" for p in prefixes), SCHEMA), FakeVocabulary(words))
    widened = [a for c in parsed.concepts for a in c.alternatives if a.via == "prefix"]
    assert len(parsed.concepts) == 32 and PREFIX_TOTAL // 2 <= len(widened) <= PREFIX_TOTAL
    alone = expand(build_query("ab*", SCHEMA), FakeVocabulary(words))
    assert len([a for a in alone.concepts[0].alternatives if a.via == "prefix"]) == len(letters)  # all 26


def test_the_phrases_ending_in_a_star_of_a_query_are_bounded_together():
    # 16 phrases of common words ending in a star ('"of the ma*" …') were 4 phrases to match each, and
    # took 2.5 s at 64k (a QA pass); together they stand for PHRASE_PREFIX_TOTAL words.
    from search.query import PHRASE_PREFIX_TOTAL

    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {"data", *(f"{a}{b}{c}" for a in letters[:4] for b in letters[:4] for c in letters)}
    phrases = " ".join(f'"data {a}{b}*"' for a in letters[:4] for b in letters[:4])
    parsed = expand(build_query(phrases, SCHEMA), FakeVocabulary(words))
    widened = [a for c in parsed.concepts for a in c.alternatives if a.via == "prefix"]
    assert len(parsed.concepts) == 16 and len(widened) == PHRASE_PREFIX_TOTAL
    alone = expand(build_query('"data ab*"', SCHEMA), FakeVocabulary(words))
    assert len([a for a in alone.concepts[0].alternatives if a.via == "prefix"]) == PHRASE_PREFIX_TOTAL


def test_prefix_is_bounded_and_needs_two_characters():
    words = {f"gpu{i:03d}" for i in range(200)} | {"gpu"}
    parsed = expand(build_query("gpu*", SCHEMA), FakeVocabulary(words))
    (concept,) = parsed.concepts
    assert concept.prefix == "gpu"
    assert 0 < len([a for a in concept.alternatives if a.via == "prefix"]) <= PREFIX_LIMIT
    assert build_query("g*", SCHEMA).concepts[0].prefix is None


@pytest.mark.parametrize(
    "text",
    ["stargate michigan", '"data center" texas -nvidia', "gpu* cluster", "kuberentes nodes", "datacentre power",
     "(gpu OR tpu) AND NOT google", "how big is the stargate site", "the of", "NOT NOT a", "mixture of experts"],
)
def test_the_terms_to_highlight_are_every_word_the_alternatives_queries_look_for(text):
    from search.query import _leaf_terms

    vocabulary = FakeVocabulary({"kubernet", "node", "gpu", "gpu001", "gpus", "cluster"})
    parsed = expand(build_query(text, SCHEMA, SYNONYMS), vocabulary)
    for concept in parsed.concepts:
        for alternative in concept.alternatives:
            assert frozenset(alternative.words) == _leaf_terms(alternative.query)
    assert parsed.terms == frozenset().union(*(_leaf_terms(a.query) for c in parsed.concepts for a in c.alternatives))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("aAbB éÉçß1234567890,.'’-_*\"()sStThHeEoOwW+# GPUs IT US how big is Trainium2 U.S 7,500 café C++ C#"), max_size=60))
@example("how big is the stargate michigan site")
@example("C++ json parser, C#. F#'s g++ a+b c++17 #tag x.org/a#b")
@example("The U.S GPUs' Trainium2 cluster, 7,500 café's IT")
@example("the of and")
@example("gpu* clus* kuberentes")
def test_typed_words_are_what_the_index_chain_gives_in_query_mode(text):
    import search.query as query

    analyzer = SCHEMA["body"].analyzer  # the chain as a snapshot unpickles it: the per-token cache applies
    assert query._is_text_chain(analyzer)
    cached = query._units(text, analyzer)
    chained = query._units(text, _Unrecognised(analyzer))
    assert cached == chained


class _Unrecognised:
    """The index's chain under another type: ``_units`` runs it token by token, as Whoosh does."""

    def __init__(self, analyzer):
        self.analyzer = analyzer

    def __call__(self, *args, **kwargs):
        return self.analyzer(*args, **kwargs)


@pytest.mark.parametrize("keep_stops", [False, True])
def test_a_kept_parser_parses_every_text_as_a_new_one_does(keep_stops):
    texts = ['"data center" -nvidia', "(gpu OR tpu) AND -google", "the OR a", '"mixture of experts"', "a ANDNOT b", "x (y z)"]
    for _ in range(2):  # the second time round, from the parser kept the first
        for text in texts:
            assert _parser(SCHEMA, keep_stops).parse(text) == _Parser(SCHEMA, keep_stops).parse(text)
    assert _parser(SCHEMA, keep_stops) is _parser(SCHEMA, keep_stops)


def _shape(node: wq.Query) -> tuple[object, ...]:
    """Return what tells two query trees apart, their phrases' characters included (Whoosh's == leaves them out)."""
    parts = [type(node).__name__, node.boost, getattr(node, "startchar", None), getattr(node, "endchar", None)]
    if isinstance(node, (wq.Phrase, wq.Term)):
        words = node.words if isinstance(node, wq.Phrase) else [node.text]
        parts += [node.fieldname, tuple(words), getattr(node, "slop", None), tuple(getattr(node, "char_ranges", None) or ())]
    return (*parts, tuple(_shape(child) for child in node.children()))


def _quoted_texts() -> list[str]:
    from bench.queries import distinct_queries, make_queries
    from corpus.sources import load_corpus

    records = list(load_corpus().records)
    drawn = [q for q in make_queries(records, 4000, 11) + distinct_queries(records, 4000, 6) if q.startswith('"')]
    return drawn + ['"Trainium2 chips"', '"U.S. grid power"', '"state-of-the-art model"', "\"AWS's deal\"",
                    '"7,500 GPUs"', '"data  center"', '"Mixture of Experts"', '"the of"', '"samsung and sk"']


def test_a_quoted_phrase_is_built_as_whooshs_parser_builds_it():
    texts = _quoted_texts()
    built = [(text, _quoted_phrase(text, SCHEMA)) for text in texts]
    assert sum(query is not None for _, query in built) > 200  # the drawn ones are two or three words
    for text, query in built:
        if query is not None:
            parsed = _Parser(SCHEMA).parse(text)
            assert query == parsed and _shape(query) == _shape(parsed), text


@pytest.mark.parametrize("text", ['"GPUs"', '"the"', '""', '"a b" c', 'x "a b"', '"a b"~3', '"a b" "c d"'])
def test_other_quoted_texts_are_left_to_the_parser(text):
    assert _quoted_phrase(text, SCHEMA) is None  # a term, no query, a slop or more than the phrase: the parser's


@pytest.mark.parametrize(
    ("typed", "asked"),
    [
        ('"large language models"', "large language models"),
        ("gpu cluster -nvidia", "gpu cluster"),
        ('(gpu AND tpu) -"data center"', "gpu tpu"),
        ("x NOT (a b) y", "x y"),
        ("a ANDNOT b", "a"),
        ("kubernetes OR slurm", "kubernetes slurm"),
        ("fine-tune +lora", "fine-tune lora"),
        ("-nvidia", ""),
        ("state-of-the-art V3.2-Exp", "state-of-the-art V3.2-Exp"),  # no syntax: as typed
        ("how much did microsoft invest in openai", "how much did microsoft invest in openai"),
        ('-entity:"Mistral AI" stargate', "stargate"),  # a filter typed excluded, its quoted value with it
        ('stargate NOT topic:"compute-deals"', "stargate"),
        ('entity:"Mistral AI" stargate', "entity: Mistral AI stargate"),  # not excluded: as before
    ],
)
def test_the_words_a_query_asks_for_leave_out_its_syntax_and_what_it_excludes(typed, asked):
    assert asked_text(typed) == asked


@pytest.mark.parametrize("typed", [
    '-entity:"Mistral AI" stargate', 'NOT entity:"Mistral AI" stargate', '-topic:"compute-deals" stargate',
    "-entity:“Mistral AI” stargate", "–entity:«Mistral AI» stargate",
    "NOT entity:「Mistral AI」 stargate", "－entity:＂Mistral AI＂ stargate",
    "-topic:compute-deals stargate", 'stargate -"Mistral AI"',  # as these always were
])
def test_the_meaning_of_a_query_leaves_out_a_filter_typed_excluded_with_a_quoted_value(typed):
    # '-entity:"Mistral AI" stargate' was embedded as "Mistral AI stargate" (curly, "AI” stargate"):
    # the excluded organisation's page ranked first by meaning, from second (a QA pass).
    assert meaning_text(typed, lambda word: True) == "stargate"


def test_the_meaning_of_a_filter_typed_with_a_quoted_value_not_excluded_is_its_words():
    # As it was (its quote marks no words); curly, as the parser reads them: its "AI”" was a word.
    assert meaning_text('entity:"Mistral AI" stargate', lambda word: False) == "entity: Mistral AI stargate"
    assert meaning_text("entity:“Mistral AI” stargate", lambda word: False) == "entity: Mistral AI stargate"


@pytest.mark.parametrize("typed", ['stargate NOT entity:"OpenAI"', 'stargate ANDNOT entity:"OpenAI"', 'stargate -entity:"OpenAI"'])
def test_a_filter_typed_after_andnot_with_a_quoted_value_is_excluded_whole(typed):
    # As after NOT: 'stargate ANDNOT entity:"OpenAI"' excluded "entity" alone and required "OpenAI".
    parsed = build_query(typed, SCHEMA)
    assert parsed.terms == {"stargat"} and [c.text for c in parsed.concepts] == ["stargate"]
    assert str(parsed.excluded) == str(build_query('stargate -"entity OpenAI"', SCHEMA).excluded)


@pytest.mark.parametrize(("typed", "kept"), [
    ('-entity:"Mistral AI" stargate', "stargate"),  # it offered '"Mistral AI" stargate'
    ('stargate NOT topic:"compute-deals"', "stargate"),
    ('stargate ANDNOT entity:"Mistral AI"', "stargate"),
    ("stargate NOT entity:“Mistral AI”", "stargate"),  # curly, as typed: it offered 'stargate AI”'
    ("“openai broadcom” -nvidia", "“openai broadcom”"),  # what is kept, as typed
    ('(gpu -entity:"Mistral AI") OR tpu', "(gpu) OR tpu"),
    ('stargate -"Mistral AI"', "stargate"), ("stargate -entity:mistral-ai", "stargate"),  # as these always were
    ('-entity:"Mistral AI"', None),  # nothing else asked for
])
def test_the_search_without_the_exclusions_drops_a_filter_typed_excluded_whole(typed, kept):
    assert without_exclusions(typed) == kept


def test_an_exclusion_inside_a_group_is_moved_out_with_its_quoted_filter_value():
    # "(gpu -entity:"Mistral AI") OR tpu" left '"Mistral AI"' in the group, a phrase every page had to hold.
    parsed = build_query('(gpu -entity:"Mistral AI") OR tpu', SCHEMA)
    assert parsed.terms == {"gpu", "tpu"} and str(parsed.excluded) == str(build_query('gpu -"entity Mistral AI"', SCHEMA).excluded)


@pytest.mark.parametrize(("typed", "plain"), [
    ("gpu cluster -nvidia", "gpu cluster"), ('"large language"', "large language"),
    ('-entity:"OpenAI" stargate', "stargate"), ("NOT topic:“compute-deals” stargate", "stargate"),
])
def test_a_query_means_what_its_words_ask_for(service, typed, plain):
    """The meaning a hit is explained with (its cosine to the query) is that of the words asked for:
    quote marks are no words, and ``-nvidia`` does not pull the query towards NVIDIA."""
    def cosines(q: str) -> dict[str, float]:
        page = service.search(SearchParams(q=q, per_page=50, explain=True))
        return {h.id: h.explanation["meaning"]["cosine"] for h in page.hits if (h.explanation or {}).get("meaning")}

    with_syntax, without = cosines(typed), cosines(plain)
    shared = with_syntax.keys() & without.keys()
    assert shared and all(with_syntax[doc] == without[doc] for doc in shared)


@pytest.mark.parametrize("typed", ["trainium AND", "AND trainium", "trainium OR", "trainium NOT", "OR AND trainium"])
def test_an_operator_that_joins_nothing_is_not_searched_as_a_word(service, typed):
    # Half-typed syntax: "AND" is not an acronym to find in every document that says "and".
    assert build_query(typed, SCHEMA).terms == {"trainium"}
    alone = service.search(SearchParams(q="trainium", per_page=50))
    dangling = service.search(SearchParams(q=typed, per_page=50))
    assert dangling.total == alone.total > 0
    assert [hit.id for hit in dangling.hits] == [hit.id for hit in alone.hits]


@pytest.mark.parametrize(("excluding", "written_out"), [("-trainium", "NOT trainium"), ("-trainium -openai", "NOT trainium NOT openai")])
def test_a_query_that_only_excludes_finds_everything_else(service, excluding, written_out):
    everything = service.search(SearchParams(per_page=1)).total
    result = service.search(SearchParams(q=excluding, per_page=50))
    with_trainium = {hit.id for hit in service.search(SearchParams(q="trainium", per_page=50)).hits}
    assert 0 < result.total < everything
    assert not with_trainium & {hit.id for hit in result.hits}
    assert result.total == service.search(SearchParams(q=written_out, per_page=1)).total


@pytest.mark.parametrize(("typed", "phrase"), [('"data center"', "data center"), ('x "Large Language models" -nvidia', "Large Language models")])
def test_a_quoted_phrase_is_explained_as_it_was_typed(typed, phrase):
    # explain's "matched" and "missing" name the phrase as typed, not its stems in alphabetical order.
    assert phrase in [concept.text for concept in build_query(typed, SCHEMA).concepts]


def test_two_typed_words_the_index_has_as_one_become_one_concept():
    # "fluid stack": the index has no "fluid", but it has Fluidstack. The pair is asked for as one name
    # (and offered as the correction); two words the index has stay two concepts.
    parsed = expand(build_query("fluid stack", SCHEMA), FakeVocabulary(["fluidstack", "stack"]))
    [concept] = parsed.concepts
    assert concept.text == "fluid stack" and ("joined", ("fluidstack",)) in [(a.via, a.words) for a in concept.alternatives]
    assert [(c.typed, c.word) for c in parsed.corrections] == [("fluid stack", "fluidstack")]
    both_known = expand(build_query("deep speed", SCHEMA), FakeVocabulary(["deep", "speed", "deepspeed"]))
    assert [c.text for c in both_known.concepts] == ["deep", "speed"]


@pytest.mark.parametrize(("typed", "spelled"), [("parallelisation", "parallel"), ("optimisation", "optim"), ("analyze", "analys"), ("colour", "color"),
                                                 ("parallelisable", "paralleliz"), ("parallelizability", "parallelis")])
def test_a_word_the_index_lacks_is_searched_in_its_other_spelling(typed, spelled):
    parsed = expand(build_query(typed, SCHEMA), FakeVocabulary([spelled, spelled + "x"]))
    [concept] = parsed.concepts
    assert [(a.via, a.words) for a in concept.alternatives][1:] == [("spelling", (spelled,))]
    assert not parsed.corrections  # the same word, spelled the other way: not a typo to correct


@pytest.mark.parametrize(("typed", "other"), [
    ("catalog", "catalogue"), ("cataloging", "cataloguing"), ("catalogued", "cataloged"),  # both ways (a QA pass)
    ("paediatric", "pediatric"), ("pediatric", "paediatric"), ("anemia", "anaemia"), ("haemoglobin", "hemoglobin"),
    ("esophagus", "oesophagus"), ("diarrhoea", "diarrhea"), ("fetus", "foetus"),
    ("blog", None), ("pedal", None), ("hemp", None), ("fetch", None),
])
def test_british_and_american_spellings_are_read_both_ways(typed, other):
    # "catalog" found 112 of CISI's abstracts where "catalogue" found 143 (the union), "pediatric" and
    # "paediatric" one page each in a medical corpus (a QA pass).
    assert _other_spelled(typed) == other
    if other:
        parsed = expand(build_query(typed, SCHEMA), FakeVocabulary([_single_term(typed), _single_term(other)]))
        assert ("spelling", (_single_term(other),)) in [(a.via, a.words) for a in parsed.concepts[0].alternatives]


def test_a_word_the_index_has_is_also_searched_in_its_other_spelling_when_pages_write_that(service):
    # "programme" is the stem of "Programmable" too: "stargate programme" put that paper first, matched
    # only Stargate on the Stargate pages (each says "program") and said no result has all the words.
    parsed = expand(build_query("programme", SCHEMA), FakeVocabulary(["programm", "program"]))
    assert ("spelling", ("program",)) in [(a.via, a.words) for a in parsed.concepts[0].alternatives]
    # One way only: "program" is not "programme" (whose stem would bring "programmable").
    program = expand(build_query("program", SCHEMA), FakeVocabulary(["programm", "program"]))
    assert [a.via for a in program.concepts[0].alternatives] == ["exact"]
    result = service.search(SearchParams(q="stargate programme"))
    assert result.match == "all" and result.hits[0].id.startswith(("introducing-stargate", "samsung-and-sk-join"))
    assert all("stargate" in h.id for h in result.hits[:3])


def test_a_known_word_is_not_searched_as_an_other_spelling_no_page_writes(tmp_path):
    # "libre" (39 Debian packages) was also searched as "liber", the stem of "Liberation" and
    # "liberator" (no page's word): Liberation fonts and a Clojure liberator library came first.
    from index.build import build
    from tests.conftest import write_jsonl
    from web import create_app

    docs = [
        {"id": "fonts", "title": "Liberation fonts", "summary": "Fonts metric-compatible with Arial.", "topics": ["t"]},
        {"id": "rest", "title": "Liberator", "summary": "A library for building REST applications.", "topics": ["t"]},
        {"id": "libre", "title": "A libre typeface", "summary": "A libre experimental didone face.", "topics": ["t"]},
        {"id": "centre", "title": "Notification centre", "summary": "Shows the desktop's notices.", "topics": ["t"]},
        {"id": "center", "title": "Control center", "summary": "Settings of the desktop, in one center.", "topics": ["t"]},
    ]
    build([write_jsonl(tmp_path / "docs.jsonl", docs)], root=tmp_path / "ix")
    client = create_app({"INDEX_DIR": str(tmp_path / "ix"), "TESTING": True}).test_client()
    assert [h["id"] for h in client.get("/api/search?q=libre").get_json()["hits"]] == ["libre"]
    # A page writing the other spelling still has it searched: "centre" finds the control center.
    assert {h["id"] for h in client.get("/api/search?q=centre").get_json()["hits"]} == {"centre", "center"}


def test_a_lower_case_plural_the_index_also_holds_is_still_the_acronym_when_documents_write_it_so():
    # In 64k pages a few write "gpus": the word is known, but the acronym (GPU) is what is meant.
    parsed = expand(build_query("gpus", SCHEMA, SYNONYMS), FakeVocabulary(["gpus", "gpu"]), SYNONYMS)
    assert ("singular", ("gpu",)) in [(a.via, a.words) for a in parsed.concepts[0].alternatives]
    # "news" is not "new": the singular is no acronym, so nothing is added.
    news = expand(build_query("news", SCHEMA), FakeVocabulary(["news", "new"]))
    assert [a.via for a in news.concepts[0].alternatives] == ["exact"]


def test_an_acronym_plural_typed_in_lower_case_is_the_acronym_with_its_synonyms():
    # "LLMs" is read as LLM; "llms" reaches the stemmer whole, which keeps its s: it was taken for a
    # typo of "llm" ("Including results for llm"), without the synonym "large language model".
    parsed = expand(build_query("llms", SCHEMA, SYNONYMS), FakeVocabulary(["llm", "larg", "languag", "model"]), SYNONYMS)
    [concept] = parsed.concepts
    ways = [(a.via, a.words) for a in concept.alternatives]
    assert ways[1] == ("singular", ("llm",)) and ("synonym", ("larg", "languag", "model")) in ways
    assert not parsed.corrections
    # A word ending in "ss" is no plural: it is left to the speller.
    assert expand(build_query("bosss", SCHEMA), FakeVocabulary(["boss"])).corrections
    # Nor is a word the pages do not write as an acronym: "news" found the pages of "new" (a QA pass).
    [news] = expand(build_query("news", SCHEMA, SYNONYMS), FakeVocabulary(["new"]), SYNONYMS).concepts
    assert "singular" not in [a.via for a in news.alternatives]


@pytest.mark.parametrize(("typed", "first"), [
    ("fluid stack", "anthropic-commits-50-billion-to-u-s-ai-computing-infrastructure-with-fluidstack"),
    ("parallelisation strategy", "piper-programmable-distributed-training-system-decoupling-parallelism-strategy"),
    # "-isable" had no other spelling: one page found by meaning alone, "partial" (a QA pass).
    ("parallelisable", "how-ai-training-scales-gradient-noise-scale-predicts-batch-parallelizability"),
])
def test_a_split_name_and_a_british_spelling_find_what_the_reader_means(service, typed, first):
    assert service.search(SearchParams(q=typed)).hits[0].id == first


def test_two_words_typed_as_one_find_the_pages_writing_them_apart(service):
    # "multigpu" found nothing, with no suggestion and no way out: the pages write "multi-GPU".
    found = service.search(SearchParams(q="multigpu", explain=True))
    side_by_side = {h.id for h in service.search(SearchParams(q='"multi gpu"')).hits}
    assert {h.id for h in found.hits[:len(side_by_side)]} == side_by_side  # first; then its words apart,
    assert found.total == service.search(SearchParams(q="multi-gpu")).total > len(side_by_side)  # as "multi-gpu" has
    assert found.hits[0].id == "accelerate-nd-parallel-a-guide-to-efficient-multi-gpu-training"
    assert found.hits[0].explanation["matched"][0]["via"] == "split"
    assert "multi" in found.hits[0].title_html.lower() and "<mark>" in found.hits[0].title_html
    # ... asked in a question too: question words are not counted against the split's limit of words.
    asked = service.search(SearchParams(q="how do i set up multigpu training on a big cluster of nodes"))
    assert asked.hits[0].id == found.hits[0].id
    # A typo that also splits into two index words is still corrected ("trainum": "train" "um").
    corrected = service.search(SearchParams(q="trainum"))
    assert corrected.suggestion is not None and "trainium" in corrected.suggestion.text.lower()
    assert "<mark>Trainium" in corrected.hits[0].snippet_html


@pytest.mark.parametrize(("typed", "first"), [
    # "stargatemichigan" found only the guide section writing "Stargate Michigan": both events on the
    # Michigan site ("Stargate to Michigan", "Stargate Data Center in Michigan") were missing (a QA
    # pass).  Its words apart count, as a hyphenated word's do, where some page writes them so, or
    # where both are names the pages write ("openaibroadcom" found nothing: "OpenAI and Broadcom").
    ("stargatemichigan", {"expanding-stargate-to-michigan", "openai-breaks-ground-on-1gw-stargate-data-center-in-michigan"}),
    ("openaibroadcom", {"openai-and-broadcom-announce-strategic-collaboration-to-deploy-10-gw-of-openai"}),
    ("softbankoracle", {"openai-oracle-and-softbank-expand-stargate-with-five-new-ai-datacenter-sites"}),
    # ... an acronym's plural as its second word, read as typed alone ("gpus": GPU): it found nothing.
    ("amdgpus", {"amd-and-openai-announce-strategic-partnership-to-deploy-6-gigawatts-of-amd-gpus"}),
])
def test_two_names_typed_as_one_find_the_pages_holding_both(service, typed, first):
    found = service.search(SearchParams(q=typed))
    assert {h.id for h in found.hits[:len(first)]} == first


@pytest.mark.parametrize("typed", ["database", "website", "solar panel recycling"])
def test_a_word_no_page_writes_is_no_two_words_no_page_writes_together(service, typed):
    # Read as "data" "base" apart, "database" listed 24 pages holding either, where it found nothing;
    # "solar panel recycling", a query the hub cannot answer, the pages of "re" and "cycl" (the
    # regression QA pass).
    found = service.search(SearchParams(q=typed))
    assert found.total == 0 and found.match == "none"


def _searched(tmp_path, docs: list[dict], q: str):
    """Return the search for *q* over *docs*, built without vectors."""
    from index.build import build
    from tests.conftest import write_jsonl

    build([write_jsonl(tmp_path / "d.jsonl", docs)], root=tmp_path / "ix", semantic=False)
    return SearchService(tmp_path / "ix").search(SearchParams(q=q))


def test_two_words_typed_as_one_and_found_apart_are_no_typo_of_another_word(tmp_path):
    # At 64k "multigpu" found the Vulkan loader's "multi-gpu", and also said "Including results for
    # multicpu" and listed a CPU monitor (a QA pass).
    docs = [{"id": f"gpu{i}", "title": f"Loader {i}", "summary": "It fully supports multi-GPU operation.", "topics": ["t"]} for i in range(3)]
    docs += [{"id": "cpu", "title": "Monitor", "summary": "Metrics for multicpu machines.", "topics": ["t"]},
             {"id": "other", "title": "Multicpu tools", "summary": "More multicpu metrics.", "topics": ["t"]}]
    found = _searched(tmp_path, docs, "multigpu")
    assert found.suggestion is None
    assert sorted(h.id for h in found.hits) == ["gpu0", "gpu1", "gpu2"]


def test_a_typo_that_splits_into_two_words_no_page_writes_together_is_still_corrected(tmp_path):
    # After 00179ef "firfox" split into "fir" and "fox" (both words of the 64k corpus, never side by
    # side) and lost its correction: 0 results where there were 179 (the regression QA pass).
    docs = [{"id": f"ff{i}", "title": f"Firefox {i}", "summary": "The Firefox web browser.", "topics": ["t"]} for i in range(3)]
    docs += [{"id": "tree", "title": "Fir trees", "summary": "A fir grows tall.", "topics": ["t"]},
             {"id": "fox", "title": "Fox news", "summary": "A fox runs.", "topics": ["t"]}]
    found = _searched(tmp_path, docs, "firfox")
    assert found.suggestion is not None and found.suggestion.text.lower() == "firefox"
    assert {h.id for h in found.hits} >= {"ff0", "ff1", "ff2"}



def test_a_typo_whose_correction_more_pages_hold_than_its_split_keeps_its_correction(tmp_path):
    # "webacm" split into "web acm", which 5 pages of the 64k corpus hold together, lost "webcam" (59
    # pages) and the webcam package (the second regression QA pass).
    docs = [{"id": f"cam{i}", "title": f"Webcam tool {i}", "summary": "Reads a webcam.", "topics": ["t"]} for i in range(3)]
    docs += [{"id": "acm", "title": "Web ACM", "summary": "A web acm paper.", "topics": ["t"]}]
    found = _searched(tmp_path, docs, "webacm")
    assert found.suggestion is not None and found.suggestion.text.lower() == "webcam"
    assert found.hits[0].id.startswith("cam")


@pytest.mark.parametrize(("typed", "apart"), [("gpt3", "gpt 3"), ("llama3", "llama 3"), ("LLaMA3", "llama 3")])
def test_a_model_name_and_number_typed_as_one_find_the_pages_writing_them_apart(service, typed, apart):
    # "gpt3" and "llama3" found nothing and offered nothing: the pages write "GPT-3" and "LLaMA 3".
    found = service.search(SearchParams(q=typed, explain=True))
    assert found.total > 0 and found.match == "all"
    assert {h.id for h in found.hits} <= {h.id for h in service.search(SearchParams(q=f'"{apart}"', per_page=50)).hits}
    assert found.hits[0].explanation["matched"][0]["via"] == "split"


SPLIT_DOCS = [
    {"id": "mysql", "title": "ruby-mysql2", "summary": "A MySQL client library for Ruby.", "topics": ["t"]},
    {"id": "mmap", "title": "ruby-mmap2", "summary": "Memory-mapped files for Ruby.", "topics": ["t"]},
    {"id": "gtk", "title": "gtk 2 themes", "summary": "Themes for the GTK 2 toolkit.", "topics": ["t"]},
]


def test_a_number_read_apart_is_a_word_of_its_own_not_the_part_of_another(tmp_path):
    # At 64k "ruby2" found "ruby-mysql2" first: the index holds "mysql2" and its parts "mysql" and
    # "2" at one position, so "ruby" and "2" stand side by side there.
    build([write_jsonl(tmp_path / "docs.jsonl", SPLIT_DOCS)], root=tmp_path / "ix")
    service = SearchService(tmp_path / "ix")
    assert [h.id for h in service.search(SearchParams(q="gtk2")).hits] == ["gtk"]
    assert not [h for h in service.search(SearchParams(q="ruby2", explain=True)).hits if h.matched_by == "words"]


@pytest.mark.parametrize(("typed", "meant"), [
    ("how to train a model that doesn't fit on one gpu", "how to train a model that fit on one gpu"),
    ("they’re building what in texas", "they building what in texas"),  # a typographic apostrophe
    ('"fine tuning" that doesn\'t fit', '"fine tuning" that fit'),  # through the parser of syntax
    ("model -zero won't fit", "model -zero fit"),
])
def test_a_contraction_is_function_words_not_words_a_page_must_hold(service, typed, meant):
    # "doesn't" was searched as the words "doesn" and "t", listed as missing from every hit.
    found = service.search(SearchParams(q=typed, explain=True, per_page=20))
    assert [h.id for h in found.hits] == [h.id for h in service.search(SearchParams(q=meant, per_page=20)).hits]
    assert found.hits and not {"doesn", "t", "won", "re"} & set(found.hits[0].explanation["missing"])
    assert found.match == service.search(SearchParams(q=meant)).match


def test_a_when_question_asks_for_the_date_of_what_it_names(service):
    # "when did stargate start" put the one page holding "starting" above every Stargate page: "start"
    # is in 1 page of 57, so it outweighed the name.  Ending a "when" question, it asks for a date.
    for typed in ("when did stargate start", "When did Stargate start?"):
        found = service.search(SearchParams(q=typed, per_page=5))
        assert found.match == "all" and all("stargate" in h.title.lower() for h in found.hits), typed
    # Anywhere else the word is searched: "start" alone, or not at the end of a "when" question.
    assert service.search(SearchParams(q="start")).total > 0
    assert service.search(SearchParams(q="stargate start")).match != "all"


def test_a_phrase_still_being_typed_is_searched_as_the_phrase(service):
    # '"data center' (a suggestion chosen before the quote was closed) asks for the phrase, and must not
    # search the word '"data' with its quote mark.
    closed = service.search(SearchParams(q='"data center"', per_page=50))
    assert closed.total > 0
    typing = service.search(SearchParams(q='"data center', per_page=50))
    assert typing.total == closed.total and [h.id for h in typing.hits] == [h.id for h in closed.hits]


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        ('"stargate michigan" stargate', [1, 2]),  # the phrase once, Stargate typed twice
        ('"stargate michigan" openai', [1, 1]),
        ('"trainium deal" -openai trainium trainium', [1, 3]),
        ('"stargate michigan" "stargate michigan"', [2]),  # one concept, typed twice
    ],
)
def test_a_word_typed_again_beside_syntax_weighs_as_often_as_it_was_typed(text, counts):
    analyzer = SCHEMA["body"].analyzer
    parsed, dropped = keep_informative(build_query(text, SCHEMA, SYNONYMS), analyzer, lambda word: 1, 32)
    assert [concept.count for concept in parsed.concepts] == counts and dropped == ()


def test_caps_lock_lowers_the_words_documents_do_not_write_in_capitals():
    in_capitals = {"us", "gpu", "tpu"}.__contains__  # as the index's documents write "US"
    assert caps_lock("HOW MUCH IN THE US", in_capitals) == "how much in the US"
    # In capitals throughout, AND, OR and NOT are words as well.
    assert caps_lock("GPU AND TPU OR NOT IT 4", in_capitals) == "GPU and TPU or not it 4"
    # One word alone, or any lower-case letter, and the text is taken as typed.
    assert caps_lock("IT", in_capitals) == "IT" and caps_lock("How IT works", in_capitals) == "How IT works"


def test_a_quoted_phrase_is_one_concept_as_the_parser_would_make_it():
    # The quick path for a query that is one phrase makes its concept without the parser; in
    # parentheses the same phrase goes through it.
    synonyms = SYNONYMS
    texts = [t for t in _quoted_texts() if _quoted_phrase(t, SCHEMA) is not None] + ['"data centre"', '"samsung and sk"']
    for text in texts:
        quick, parsed = (build_query(t, SCHEMA, synonyms) for t in (text, f"({text})"))
        assert quick.concepts == parsed.concepts and quick.terms == parsed.terms, text
        assert (quick.together, quick.only_together) == (parsed.together, parsed.only_together), text


def test_a_prefix_after_a_hyphen_is_a_prefix():
    # "python3-dj*" was read as the phrase "python3 dj", the * dropped: only "python3" matched (a QA pass).
    parsed = build_query("python3-dj*", SCHEMA)
    assert [(c.word, c.prefix) for c in parsed.concepts] == [("python3", None), ("dj", "dj")]


def test_a_model_number_whose_plural_is_analysed_as_itself_gets_no_plural_alternative():
    # "python3s" is analysed "python3": the same query again, searched twice and explained as "plural".
    parsed = expand(build_query("python3", SCHEMA), FakeVocabulary(["python3"]))
    assert [a.via for a in parsed.concepts[0].alternatives] == ["exact"]
    h100 = expand(build_query("h100", SCHEMA), FakeVocabulary(["h100", "h100s"]))
    assert [a.via for a in h100.concepts[0].alternatives] == ["exact", "plural"]  # a plural of its own stays


def test_a_letter_alone_weighs_once_however_often_it_was_typed():
    # The "E" of each line of a pasted apt error weighed 2.8 times a word and put an e-book reader third.
    text = "E: Unable to locate package libssl1.1\nE: Couldn't find any package by glob 'libssl1.1'"
    parsed, _ = keep_informative(build_query(text, SCHEMA, SYNONYMS), SCHEMA["body"].analyzer, lambda word: 1, 32)
    counts = {concept.text: concept.count for concept in parsed.concepts}
    assert counts["E"] == 1 and counts["package"] == 2  # a word typed twice still weighs as such


def test_email_and_mail_are_one_thing():
    # "email client" found no client whose text says "mail" (thunderbird, mutt, evolution; a QA pass at 64k).
    parsed = build_query("email client", SCHEMA, SYNONYMS)
    assert ("synonym", ("mail",)) in [(a.via, a.words) for a in parsed.concepts[0].alternatives]


def test_two_numbers_typed_apart_are_not_one_number(service):
    # "stargate 20 21" said "Including results for stargate 2021" (a QA pass): numbers are not a word
    # typed in two, as "fluid stack" is.
    assert service.search(SearchParams(q="stargate 20 21")).suggestion is None
    assert service.search(SearchParams(q="fluid stack")).hits[0].id.endswith("fluidstack")


def test_a_chinese_run_no_page_writes_is_split_into_the_fewest_pieces_pages_write():
    from search.query import segmented

    written = {"华为", "芯片", "数据中心", "北京"}.__contains__
    assert segmented("华为芯片 nvidia", written) == "华为 芯片 nvidia"
    assert segmented("北京数据中心", written) == "北京 数据中心"
    assert segmented("华为新芯片", written) == "华为 新 芯片"  # a character no page writes with its neighbours stands alone
    assert segmented('"华为芯片" 北京', written) == '"华为芯片" 北京'  # quoted: as typed
    assert segmented("数据中心", written) == "数据中心" and segmented("stargate michigan", written) == "stargate michigan"
