"""Schemathesis hooks: the two request rules of /api/search that OpenAPI cannot state.

The spec states every single-parameter limit; it cannot state a rule between parameters, nor that
the API normalises values before checking them.  So, for the fuzzer:

- a generated *valid* request is dropped when its page starts past the result window, or when
  its ``until`` falls before its ``since`` (the API answers both with 400, as the operation's and
  the parameter's descriptions say);
- a generated *invalid* request is dropped when it becomes valid once normalised the documented
  way (an empty value counts as absent, blank filter values are ignored, values are stripped,
  whitespace in q is collapsed): the API then
  rightly accepts it.  The normalised request is checked against the spec's own schemas, so an
  API that accepted something the spec forbids is still caught.

Loaded by ``SCHEMATHESIS_HOOKS=tests/schemathesis_hooks.py`` (tests/test_openapi.py).
"""

from __future__ import annotations

from typing import Any

import jsonschema
import schemathesis

from werkzeug.datastructures import MultiDict

from search.params import DEFAULT_PER_PAGE, FILTERS, MAX_RESULT_WINDOW, InvalidParameter, parse_params
from web.openapi import spec

_NORMALISED = {"/api/search", "/api/suggest", "/api/suggest/opensearch"}


def _parameter_schemas(path: str) -> dict[str, dict[str, Any]]:
    document = spec()
    return {p["name"]: p["schema"] for p in document["paths"][path]["get"]["parameters"] if p["in"] == "query"}


def _number(value: object, default: int) -> int | None:
    if value is None:
        return default
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():  # the coverage phase sends strings
        return int(value)
    return None


def _window_exceeded(query: dict[str, Any]) -> bool:
    page, per_page = _number(query.get("page"), 1), _number(query.get("per_page"), DEFAULT_PER_PAGE)
    return page is not None and per_page is not None and (page - 1) * per_page >= MAX_RESULT_WINDOW


def _dates_reversed(query: dict[str, Any]) -> bool:
    """Return whether the API refuses *query* for its ``until`` before its ``since``, by its own rule."""
    if not query.get("since") or not query.get("until"):
        return False
    pairs = [(k, v) for k, values in query.items() for v in (values if isinstance(values, list) else [values])]
    try:
        parse_params(MultiDict([(k, str(v)) for k, v in pairs]))
    except InvalidParameter as exc:
        return exc.param == "until" and "before" in str(exc)
    return False


def _valid(path: str, query: dict[str, Any], normalise: bool) -> bool:
    """Return whether every query parameter fits its schema (after the API's normalisation if asked)."""
    schemas = _parameter_schemas(path)
    for name, value in query.items():
        if name not in schemas:
            return False
        if normalise and value == "":
            continue  # an empty value is the same as leaving the parameter out
        if normalise and name in FILTERS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                return False
            value = [v.strip() for v in value if v.strip()]
        elif normalise and name == "q":
            if not isinstance(value, str):
                return False
            value = " ".join(value.split())
        if not jsonschema.Draft202012Validator(schemas[name]).is_valid(value):
            return False
    return True


@schemathesis.hook
def filter_case(context, case) -> bool:  # noqa: ANN001 - schemathesis' hook signature
    """Keep the cases whose expected answer the spec alone decides."""
    path = case.operation.path
    meta = case.meta
    if path not in _NORMALISED or meta is None or not isinstance(case.query, dict):
        return True
    if meta.generation.mode.is_positive:
        return not (path == "/api/search" and (_window_exceeded(case.query) or _dates_reversed(case.query)))
    # An object value is sent as its own key=value pairs (form style, exploded), or as nothing when
    # empty: the parameter never reaches the API, which then rightly answers without it.
    if any(isinstance(value, dict) for value in case.query.values()):
        return False
    # Invalid only before normalisation: the API's answer is "accepted", which the spec cannot say.
    return _valid(path, case.query, normalise=False) or not _valid(path, case.query, normalise=True)
