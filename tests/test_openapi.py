"""The API contract: the OpenAPI document matches what the API really answers, and a fuzzer agrees."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.conftest import REPO
from tests.servers import gunicorn

SPEC_URI = "urn:topichub:openapi"


@pytest.fixture()
def document(client) -> dict:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200 and response.is_json
    return response.get_json()


def validator(document: dict, schema: dict) -> jsonschema.Draft202012Validator:
    registry = Registry().with_resource(SPEC_URI, Resource(contents=document, specification=DRAFT202012))
    if "$ref" in schema:
        schema = {"$ref": SPEC_URI + schema["$ref"]}
    return jsonschema.Draft202012Validator(schema, registry=registry)


def response_schema(document: dict, path: str, status: int) -> dict:
    responses = document["paths"][path]["get"]["responses"]
    if str(status) not in responses:
        return {"$ref": "#/components/schemas/Error"}  # 404/405 on any path have the one error shape
    return next(iter(responses[str(status)]["content"].values()))["schema"]


def test_the_document_is_openapi_3_1_with_valid_schemas(document):
    assert document["openapi"] == "3.1.0" and document["info"]["version"]
    for name, schema in document["components"]["schemas"].items():
        jsonschema.Draft202012Validator.check_schema(schema)
    for item in document["paths"].values():
        for parameter in item["get"].get("parameters", []):
            jsonschema.Draft202012Validator.check_schema(parameter["schema"])


def test_every_api_route_is_documented(app, document):
    served = {rule.rule for rule in app.url_map.iter_rules() if rule.rule.startswith("/api/") or rule.rule == "/healthz"}
    documented = {path.replace("{id}", "<id:doc_id>") for path in document["paths"]}
    assert served == documented


# (path as documented, URL to request) — every operation, its answers and its errors.
LIVE = [
    ("/api/search", "/api/search?q=stargate"),
    ("/api/search", "/api/search?q=compute+chips&explain=1&per_page=50"),
    ("/api/search", "/api/search?q=stargat"),
    ("/api/search", "/api/search?q=what+is+training+infrastructure"),
    ("/api/search", "/api/search?topic=training-infrastructure&kind=guide&sort=listing"),
    ("/api/search", "/api/search?q=%22data+center%22+-michigan&entity=OpenAI"),
    ("/api/search", "/api/search?q=zzzzqqq"),
    ("/api/search", "/api/search?page=100"),
    ("/api/search", "/api/search?per_page=0"),  # out of range
    ("/api/search", "/api/search?q=a%00b"),  # a NUL
    ("/api/suggest", "/api/suggest?q=star"),
    ("/api/suggest", "/api/suggest?q="),
    ("/api/suggest/opensearch", "/api/suggest/opensearch?q=star"),
    ("/api/search", "/api/search?since=2025-01-01&until=2025-06-30T12:00:00Z&month=2025-03&sort=newest"),
    ("/api/search", "/api/search?since=2025-02-30"),  # no such day
    ("/api/documents/{id}", "/api/documents/expanding-stargate-to-michigan"),
    ("/api/documents/{id}", "/api/documents/nope"),
    ("/api/documents/{id}", "/api/documents/%FF"),  # a 400 the document did not list (QA pass U)
    ("/api/topics", "/api/topics"),
    ("/healthz", "/healthz"),
    ("/api/openapi.json", "/api/openapi.json"),
]


# What the URLs above the rule refuses get: a bad parameter a 400, an id no document has a 404; the rest 200.
REFUSED = {"/api/search?per_page=0": 400, "/api/search?q=a%00b": 400, "/api/search?since=2025-02-30": 400,
           "/api/documents/%FF": 400, "/api/documents/nope": 404}


@pytest.mark.parametrize(("path", "url"), LIVE)
def test_live_responses_match_the_document(client, document, path, url):
    response = client.get(url)
    assert response.status_code == REFUSED.get(url, 200)  # an error answer fits its schema as well
    schema = response_schema(document, path, response.status_code)
    validator(document, schema).validate(response.get_json())
    for name, header in document["paths"][path]["get"]["responses"][str(response.status_code)].get("headers", {}).items():
        assert response.headers.get(name) or not header.get("required"), name


def test_explained_hits_and_a_did_you_mean_are_declared(client, document):
    explained = client.get("/api/search?q=stargate&explain=1").get_json()
    assert all("explanation" in hit for hit in explained["hits"])
    hit_schema = document["components"]["schemas"]["Hit"]
    search_schema = document["components"]["schemas"]["SearchResponse"]
    # every field the API returns is declared, not only allowed by additionalProperties
    assert set(explained["hits"][0]) <= set(hit_schema["properties"])
    assert set(explained) <= set(search_schema["properties"])


def test_errors_have_exactly_the_declared_shape(client, document):
    error = validator(document, {"$ref": "#/components/schemas/Error"})
    for response in (client.get("/api/search?page=0"), client.get("/api/nothing"), client.delete("/api/topics")):
        error.validate(response.get_json())
    with pytest.raises(jsonschema.ValidationError):
        error.validate({"error": {"code": "x", "message": "y", "trace": "..."}})


@pytest.mark.slow
def test_schemathesis_finds_no_failures_against_the_live_server(index_dir, tmp_path):
    """Fuzz every operation, valid and invalid requests, with all of schemathesis' checks."""
    env = dict(os.environ, SCHEMATHESIS_HOOKS=str(REPO / "tests" / "schemathesis_hooks.py"))
    with gunicorn(index_dir, tmp_path) as base:
        run = subprocess.run(
            [str(Path(sys.executable).parent / "schemathesis"), "run", f"{base}/api/openapi.json",
             # A fixed seed: the same requests every run, so CI does not pass or fail by chance.
             "--checks", "all", "--max-examples", "40", "--generation-database", "none", "--seed", "7",
             "--request-timeout", "10", "--no-color", "--report", "junit",
             "--report-junit-path", str(tmp_path / "junit.xml")],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240,
        )
    summary = run.stdout[-4000:]
    assert run.returncode == 0, summary + run.stderr[-2000:]
    assert "No issues found" in run.stdout, summary
    report = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    for operation in ("GET /api/search", "GET /api/suggest", "GET /api/documents/{id}", "GET /api/topics"):
        assert operation in report, operation
    print(json.dumps(summary.splitlines()[-3:]))


def test_pages_is_documented_as_the_pages_that_can_be_asked_for(document):
    from search.params import MAX_RESULT_WINDOW

    said = document["components"]["schemas"]["SearchResponse"]["properties"]["pages"]["description"]
    assert f"only the first {MAX_RESULT_WINDOW} results are served" in said and "pages 1 to pages are answered" in said


def test_a_facet_count_is_described_as_what_it_counts(document):
    said = document["components"]["schemas"]["FacetValue"]["properties"]["count"]["description"]
    assert "if this value were selected" not in said
    assert "Results with this value" in said and "other facets' filters" in said and "combine with OR" in said


def test_the_search_operation_says_hits_are_in_score_order(document):
    # The ranking has no tiers any more (docs/relevance.md): the contract does not promise all-words matches first.
    said = document["paths"]["/api/search"]["get"]["description"]
    assert "all-words matches first" not in said
    assert "score order" in said and "sort" in said


@pytest.mark.parametrize("name", ["since", "until"])
def test_a_date_bound_is_accepted_exactly_when_the_documented_pattern_says(client, document, name):
    """The spec's pattern is the server's rule: schemathesis sends what it forbids and expects a 400
    (``until=``, a blank date field, was answered 200 while the pattern forbade it)."""
    import re

    parameter = next(p for p in document["paths"]["/api/search"]["get"]["parameters"] if p["name"] == name)
    pattern = parameter["schema"]["pattern"]
    for value in ["", " ", "\t", "2024-05-01", " 2024-05-01 ", "2024-05-01T09:30:00Z", "2024-02-30", "x",
                  "2024-05-01\u00a0", "\u20032024-05-01", "2024-05-01x", "2024-05-01T09:30 02:00", "2024-05-01T09:30 -02:00",
                  "2024-05-01 02:00", "2024-05-01T09:30  02:00", "2024-05-01T09:30Z 02:00",
                  # The forms a record's published takes too (index/dates.py), and some it refuses (a QA pass).
                  "20240501", "20240501T093000Z", "2024-05-01T09+02", "2024-05-01T09:30 02", "2024-05-01T09:30:00,5Z",
                  "2024-05-01T09:30:00+00:00:30", "2024-05-01T093000", "20240501T09:30", "2024-0501"]:
        status = client.get("/api/search", query_string={name: value}).status_code
        assert status == (200 if re.search(pattern, value) else 400), (value, status)
    assert re.search(pattern, "") and not re.search(pattern, "2024-13-01")


def test_each_filter_says_what_another_case_does_for_its_own_values(document):
    """kind and month repeated entity's "read in the index's case (OpenAI: openai)": neither has such values."""
    described = {p["name"]: p.get("description", "") for p in document["paths"]["/api/search"]["get"]["parameters"]}
    assert "OpenAI: openai" in described["entity"] and "training-infrastructure" in described["topic"]
    assert "OpenAI" not in described["kind"] and "OpenAI" not in described["month"]
    assert "in any case" in described["kind"]


def test_the_page_parameter_says_which_pages_are_refused(client, document):
    # The spec allowed page 999 with per_page 10, which the server refuses (schemathesis, a QA pass):
    # what it cannot put in the schema, it says.
    from search.params import MAX_RESULT_WINDOW

    page = next(p for p in document["paths"]["/api/search"]["get"]["parameters"] if p["name"] == "page")
    assert f"past result {MAX_RESULT_WINDOW}" in page["description"] and "400" in page["description"]
    last = MAX_RESULT_WINDOW // 10
    assert client.get(f"/api/search?q=stargate&per_page=10&page={last}").status_code == 200
    refused = client.get(f"/api/search?q=stargate&per_page=10&page={last + 1}")
    assert refused.status_code == 400 and refused.get_json()["error"]["param"] == "page"


def test_a_field_a_hit_and_a_document_share_is_declared_alike(client, document):
    """The Document schema said published was absent when unknown, the Hit schema null: a client
    generated from the spec had two types for one field (QA pass X)."""
    schemas = document["components"]["schemas"]
    hit, doc = schemas["Hit"], schemas["Document"]
    for name in ("published", "first_seen"):
        assert hit["properties"][name] == doc["properties"][name], name
        assert name in hit["required"] and name in doc["required"], name
        assert "null" in doc["properties"][name]["type"]
    assert "source_url" in doc["required"] and "null" in doc["properties"]["source_url"]["type"]
    answer = client.get("/api/documents/expanding-stargate-to-michigan").get_json()
    assert answer["document"]["published"] is None and answer["document"]["source_url"] is None
    validator(document, {"$ref": "#/components/schemas/DocumentResponse"}).validate(answer)


@pytest.mark.parametrize("url", ["/api/search?q=stargate", "/api/suggest?q=star", "/api/suggest/opensearch?q=star",
                                 "/api/documents/expanding-stargate-to-michigan", "/api/topics", "/api/openapi.json"])
def test_the_400_for_a_parameter_that_is_not_utf8_is_declared_by_every_operation(client, document, url):
    """Every API route answers a parameter whose percent-encoding is not UTF-8 (a tag like x=%FF) with
    a 400 naming it, but /api/topics and /api/openapi.json declared no 400 at all and the document's
    400 spoke only of its id: a client generated from the spec had no branch for it (QA pass X)."""
    response = client.get(url + ("&" if "?" in url else "?") + "x=%FF")
    assert response.status_code == 400 and response.get_json()["error"]["param"] == "x"
    path = "/api/documents/{id}" if url.startswith("/api/documents/") else url.partition("?")[0]
    declared = document["paths"][path]["get"]["responses"]["400"]
    assert "UTF-8" in declared["description"]
    validator(document, next(iter(declared["content"].values()))["schema"]).validate(response.get_json())


@pytest.mark.parametrize("url", ["/api/search?q=stargate", "/api/suggest?q=star", "/api/suggest/opensearch?q=star",
                                 "/api/documents/expanding-stargate-to-michigan", "/api/topics", "/api/openapi.json",
                                 "/healthz"])
def test_the_412_of_a_failed_if_match_is_declared_by_every_operation(client, document, url):
    # Every route judges If-Match (web/preconditions.py), but only three declared the 412 (a QA pass).
    response = client.get(url, headers={"If-Match": '"x"'})
    assert response.status_code == 412
    path = "/api/documents/{id}" if url.startswith("/api/documents/") else url.partition("?")[0]
    declared = document["paths"][path]["get"]["responses"]["412"]
    validator(document, next(iter(declared["content"].values()))["schema"]).validate(response.get_json())



@pytest.mark.parametrize("url", ["/api/search?q=stargate", "/api/suggest?q=star", "/api/suggest/opensearch?q=star",
                                 "/api/documents/expanding-stargate-to-michigan", "/api/topics", "/api/openapi.json",
                                 "/healthz"])
def test_the_304_to_if_none_match_star_is_declared_by_every_operation(client, document, url):
    # Every route answers "If-None-Match: *" with a 304 when it has an answer (RFC 9110), but four
    # declared no 304 (schemathesis, a QA pass on the API).
    assert client.get(url, headers={"If-None-Match": "*"}).status_code == 304
    path = "/api/documents/{id}" if url.startswith("/api/documents/") else url.partition("?")[0]
    assert "304" in document["paths"][path]["get"]["responses"]

@pytest.mark.parametrize(("name", "values"), [
    # Blanks around sort, kind and explain are stripped as the server reads them (str.strip: any Unicode
    # space, \x1c-\x1f and \x85 among them; not \x01 nor a zero-width space), and a kind, as any filter
    # value, also drops control characters and what a reader does not see around it and between its
    # letters: the patterns forbade " newest", which the server answered (a QA pass).
    ("sort", ["", "newest", "NEWEST", "Listing", "relevance", "random", "newest1", "new", " newest", "newest\t",
              "\u00a0Listing\u3000", "\x1cnewest\x85", " ", "\x01newest", "\u200bnewest", "new est"]),
    ("kind", ["", "event", "GUIDE", "Event", "news", "events", " event", "guide\n", "\u00a0Event\x01", "\u200bguide\u2060",
              "ev\u200bent", "gu\u200did\u00ade", "e\u200b\u200dvent", "\u200devent", "ev ent", "ev\x01ent", " \t"]),
    # Blanks around a month, and what a reader does not see, are dropped as from a topic: "month=%202025-03"
    # was answered though the pattern forbade it (a QA pass).
    ("month", ["", "2025-03", "2025-13", "2025-3", "march", " 2025-03", "2025-03 ", "\u00a02025-03\t", " ", "20\u200b25-03",
               "20\u200d25-03", "2025\u200d-03", "\u200d2025-03", "2025 -03", "0000-01", "00\u200b00-01"]),
    ("explain", ["", "1", "0", "TRUE", "off", "maybe", "2", " 1", "true\r\n", "\u2003On", "\x1fno\x1d", "\x011", "1\u200b"]),
])
def test_a_closed_parameter_is_accepted_exactly_when_its_documented_schema_says(client, document, name, values):
    """sort was an enum of three lower-case words while the server reads it in any case (sort=NEWEST,
    as kind) and an empty one as absent (sort=, kind=, month=, a form's blank field): the schema
    refused what the server answers, and a client or fuzzer trusting it was wrong (QA pass X)."""
    parameter = next(p for p in document["paths"]["/api/search"]["get"]["parameters"] if p["name"] == name)
    schema = jsonschema.Draft202012Validator(parameter["schema"])
    for value in values:
        status = client.get("/api/search", query_string={name: value}).status_code
        documented = schema.is_valid([value] if parameter["schema"].get("type") == "array" else value)
        assert status == (200 if documented else 400), (value, status)


# (path, parameter, the limit it is documented with) for each text parameter whose length the server counts
# once its blanks are collapsed and what a reader does not see is dropped (``params.as_sent``,
# ``suggest.check_prefix``).
COUNTED = [("/api/search", "q", "MAX_QUERY_CHARS"), ("/api/search", "topic", "MAX_FILTER_CHARS"),
           ("/api/search", "entity", "MAX_FILTER_CHARS"), ("/api/suggest", "q", "MAX_PREFIX_CHARS"),
           ("/api/suggest/opensearch", "q", "MAX_PREFIX_CHARS")]


@pytest.mark.parametrize(("path", "name", "limit"), COUNTED)
def test_a_text_parameter_s_length_is_documented_as_the_server_counts_it(client, document, path, name, limit):
    """The spec's maxLength counted the characters sent, while the server counts the text once blanks
    are collapsed and invisible characters dropped: "a", 70 spaces and "b" as a topic was answered, and
    the spec forbade it (a QA pass).  The schema's pattern counts as the server does."""
    import search.params
    import search.suggest

    most = getattr(search.params, limit, None) or getattr(search.suggest, limit)
    parameter = next(p for p in document["paths"][path]["get"]["parameters"] if p["name"] == name)
    listed = parameter["schema"]["type"] == "array"
    schema = jsonschema.Draft202012Validator(parameter["schema"]["items"] if listed else parameter["schema"])
    word = "a" * (most - 1)
    values = [word + "b", word + "bc", "a" + " " * (most + 5) + "b", " " * (most + 1), "\u200b" * (most + 1) + "x",
              word + "\u200b\u00ad" * 5 + "b", word + "\t\n ", "\u3000" * 9 + word + "b" + "\u00a0" * 9,
              word[:-1] + " \t b", word[:-1] + " \t bc", word[:-1] + "\x01\x02b", word[:-1] + "\x01b",
              word + "\u200db", word + "\u200d", "\u200d" + word, word[:-2] + "\u200d\u200b\u200dbc",
              word[:-1] + "\u200c\u200d\u200cbc", word[:-1] + "\u05d0\u200d", "\u200b" * most, "a\x00b"]
    answered = {value: client.get(path, query_string={name: value}).status_code for value in values}
    for value, status in answered.items():
        assert status == (200 if schema.is_valid(value) else 400), (value[:20], len(value), status)
    assert answered["a" + " " * (most + 5) + "b"] == 200 and answered[word + "bc"] == 400


@pytest.mark.parametrize("name", ["topic", "entity"])
def test_a_filter_value_listing_several_with_commas_is_documented_as_the_server_counts_it(client, document, name):
    """A list with commas is held to the limit of one value for each of its values, and to that of the
    longest list as a whole: the spec's pattern says so as the server counts it (a QA pass found four
    short topics listed with commas refused for their 64 characters)."""
    from search.params import MAX_FILTER_CHARS, MAX_FILTER_LIST_CHARS, MAX_FILTER_VALUES

    parameter = next(p for p in document["paths"]["/api/search"]["get"]["parameters"] if p["name"] == name)
    schema = jsonschema.Draft202012Validator(parameter["schema"]["items"])
    most, longest = "a" * MAX_FILTER_CHARS, " , ".join(["x" * MAX_FILTER_CHARS] * MAX_FILTER_VALUES)
    values = ["data-centers-power,chips-accelerators,distributed-training,funding", f"{most},{most}", f"{most}b,c",
              f"{most} \u200b, {most}", f"{most}\u200d,b", f"{most[:-1]}\u200d,b", f"{most[:-1]}\u200db,c", f"{most}\x01,b",
              f"{most} x,b", "a" + " " * 70 + "b,c", ",", " , ", "a,,,,,,,,,,,,,,b", longest, longest + "y",
              longest.replace(" , ", ",") + "," + most, ",".join(["x"] * (MAX_FILTER_LIST_CHARS // 2 + 2))]
    answered = {value: client.get("/api/search", query_string={name: value}).status_code for value in values}
    for value, status in answered.items():
        assert status == (200 if schema.is_valid(value) else 400), (value[:20], len(value), status)
    assert answered[values[0]] == answered[longest] == 200 and answered[longest + "y"] == answered[values[2]] == answered[values[-1]] == 400


def test_blank_filter_values_do_not_count_against_the_documented_limit(client, document):
    """Blank values are ignored, so they do not count among the ten a filter may have: eleven values of which
    one is blank were answered while the spec's maxItems forbade them."""
    from search.params import MAX_FILTER_VALUES

    parameter = next(p for p in document["paths"]["/api/search"]["get"]["parameters"] if p["name"] == "topic")
    schema = jsonschema.Draft202012Validator(parameter["schema"])
    for values in (["t"] * MAX_FILTER_VALUES + ["", " ", "\u200b"], [f"t{i}" for i in range(MAX_FILTER_VALUES + 1)],
                   [f"t{i}" for i in range(MAX_FILTER_VALUES)] + [" x"], [""] * (MAX_FILTER_VALUES + 5)):
        status = client.get("/api/search", query_string=[("topic", value) for value in values]).status_code
        assert status == (200 if schema.is_valid(values) else 400), (values, status)


def test_a_client_revalidates_the_document_instead_of_reading_it_again(client):
    first = client.get("/api/openapi.json")
    etag = first.headers.get("ETag")
    assert first.status_code == 200 and etag.startswith("W/"), "the document carries a weak ETag, as every answer here"
    again = client.get("/api/openapi.json", headers={"If-None-Match": etag})
    assert again.status_code == 304 and not again.data
    assert again.headers["ETag"] == etag and again.headers["Cache-Control"] == "public, max-age=300"
    other = client.get("/api/openapi.json", headers={"If-None-Match": '"an-older-one"'})
    assert other.status_code == 200 and other.get_json() == first.get_json()


@pytest.mark.parametrize(("name", "values"), [
    ("kind", ["event,guide", "Event , GUIDE", "event,", ",", " , ", "event,,guide", "event,tweet", "event guide",
              "ev\u200bent,guide", "event;guide", "event, guide\t", "event,\x00"]),
    ("month", ["2024-05,2024-06", " 2024-05 , 2024-06 ", "2024-05,", "2024-05,2024-13", "2024-05 2024-06",
               "2024-05,,2024-06", "2024-05;2024-06", "2024-05,0000-01", "2024-05,\u200b"]),
])
def test_a_kind_or_a_month_listed_with_commas_is_accepted_exactly_when_the_spec_says(client, document, name, values):
    """kind and month take lists with commas, as topic and entity do; the spec's pattern says which (it
    allowed no comma, and the server refused every list: an API pass)."""
    import re

    parameter = next(p for p in document["paths"]["/api/search"]["get"]["parameters"] if p["name"] == name)
    pattern = parameter["schema"]["items"]["pattern"]
    answered = {value: client.get("/api/search", query_string={name: value}).status_code for value in values}
    for value, status in answered.items():
        assert status == (200 if re.search(pattern, value) else 400), (value, status)
    assert answered[values[0]] == 200 and "listed with commas" in parameter["description"]


def test_the_health_check_says_it_reads_no_parameter_and_answers_so(client, document):
    """/healthz answers 200 whatever its query string carries (a load balancer's probe may add one), where
    the other operations refuse a parameter not UTF-8 with a 400: the spec said neither (an API pass)."""
    said = document["paths"]["/healthz"]["get"]["description"]
    assert "Reads no parameter" in said and "x=%FF" in said and "400" in said
    for query in ("x=%FF", "lb-check=1", "%FF=%FF&x"):
        assert client.get(f"/healthz?{query}").status_code == 200, query
    assert client.get("/api/topics?x=%FF").status_code == 400 and client.get("/api/topics?lb-check=1").status_code == 200
