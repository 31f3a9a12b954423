"""Parameter validation in `run_named`: strings (CLI, GET) and JSON values (POST) give the same
canonical values; every bad value is a BadInputError naming the parameter and the expected type."""

from __future__ import annotations

from typing import Any

import pytest

from paperkg.graph import errors
from paperkg.queries.catalog import load_catalog
from paperkg.queries.runner import (
    CypherBackend,
    NetworkxBackend,
    backend_for,
    cypher_params,
    run_cypher,
    run_named,
    validate_params,
)
from tests.queries.graphs import tiny_graph
from tests.queries.parity import GraphOnly, rows_or_unknown

STORE = GraphOnly(tiny_graph())


def values(name: str, params: dict[str, Any]) -> dict[str, Any]:
    query = load_catalog()[name]
    return cypher_params(query, validate_params(query, params))


def test_unknown_query_is_not_found() -> None:
    with pytest.raises(errors.NotFoundError, match="no catalog query named 'nope'") as caught:
        run_named(STORE, "nope", {})
    assert "papers_mentioning" in str(caught.value)      # the hint lists the known ones


@pytest.mark.parametrize(("name", "params", "words"), [
    ("entity", {}, ["'name'", "missing", "entity"]),
    ("entity", {"name": ""}, ["'name'", "missing"]),
    ("entity", {"name": "   "}, ["'name'", "missing"]),
    ("entity", {"name": "--"}, ["'name'", "no letters or digits"]),
    ("entity", {"name": 5}, ["'name'", "entity"]),
    ("entity", {"name": ["GRPO"]}, ["'name'", "entity"]),
    ("entity", {"name": "x" * 501}, ["'name'", "longer than 500"]),
    ("entity", {"name": "\ud800"}, ["'name'", "surrogate"]),
    ("entity", {"name": "GRPO", "limit": "3"}, ["unknown parameter 'limit'", "name (entity"]),
    ("neighbors", {"name": "GRPO", "limit": "0"}, ["'limit'", "int 1..1000", "out of range"]),
    ("neighbors", {"name": "GRPO", "limit": "1001"}, ["'limit'", "int 1..1000"]),
    ("neighbors", {"name": "GRPO", "limit": -5}, ["'limit'", "int 1..1000"]),
    ("neighbors", {"name": "GRPO", "limit": "ten"}, ["'limit'", "int 1..1000"]),
    ("neighbors", {"name": "GRPO", "limit": "1e3"}, ["'limit'", "int 1..1000"]),
    ("neighbors", {"name": "GRPO", "limit": 2.5}, ["'limit'", "int 1..1000"]),
    ("neighbors", {"name": "GRPO", "limit": True}, ["'limit'", "int 1..1000"]),
    ("neighbors", {"name": "GRPO", "limit": "99999999999999999999"}, ["'limit'"]),
    ("top_entities", {"type": "Paper"}, ["'type'", "entity_type (one of Method, Model"]),
    ("top_entities", {"type": "Method) DETACH DELETE (n"}, ["'type'", "entity_type"]),
    ("top_entities", {}, ["'type'", "missing"]),
    ("papers_with_all", {"names": []}, ["'names'", "entities"]),
    ("papers_with_all", {"names": ","}, ["'names'", "entities"]),
    ("papers_with_all", {"names": "[1, 2]"}, ["'names'"]),
    ("papers_with_all", {"names": "[not json"}, ["'names'", "not a JSON list"]),
    ("papers_with_all", {"names": ["a"] * 21}, ["'names'", "more than 20"]),
    ("papers_with_all", {"names": {"a": 1}}, ["'names'"]),
    ("introduced_in", {"collection": " "}, ["'collection'", "missing"]),
    ("shortest_path", {"from": "GRPO"}, ["'to'", "missing"]),
    ("neighbors", {"name": "GRPO", "min_confidence": "1.5"},
     ["'min_confidence'", "float 0..1", "out of range"]),
    ("neighbors", {"name": "GRPO", "min_confidence": -0.1}, ["'min_confidence'", "out of range"]),
    ("neighbors", {"name": "GRPO", "min_confidence": "nan"}, ["'min_confidence'", "float 0..1"]),
    ("neighbors", {"name": "GRPO", "min_confidence": float("inf")}, ["'min_confidence'", "not a finite"]),
    ("neighbors", {"name": "GRPO", "min_confidence": "high"}, ["'min_confidence'", "float 0..1"]),
    ("neighbors", {"name": "GRPO", "min_confidence": True}, ["'min_confidence'"]),
    ("trending", {"since": "last year"}, ["'since'", "int 1..9999"]),
    ("trending", {"min_papers": 0}, ["'min_papers'", "out of range"]),
    ("timeline", {}, ["'name'", "missing"]),
])
def test_bad_params(name: str, params: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(errors.BadInputError) as caught:
        run_named(STORE, name, params)
    # a parameter missing or not declared is a usage error (CLI exit 2), a bad value bad data (65)
    usage = "missing" in words or any(w.startswith("unknown parameter") for w in words)
    assert type(caught.value) is (errors.ParameterUsageError if usage else errors.BadInputError)
    for word in words:
        assert word in str(caught.value)


def test_params_must_be_a_mapping() -> None:
    with pytest.raises(errors.BadInputError):
        run_named(STORE, "entity", ["GRPO"])  # type: ignore[arg-type]


def test_strings_and_json_values_mean_the_same() -> None:
    assert values("neighbors", {"name": "GRPO", "limit": "7"}) == values("neighbors", {"name": "GRPO",
                                                                                       "limit": 7})
    assert values("neighbors", {"name": "GRPO", "limit": 7.0})["limit"] == 7
    assert values("papers_with_all", {"names": "GRPO, PPO"}) == values("papers_with_all",
                                                                       {"names": ["GRPO", "PPO"]})
    assert values("papers_with_all", {"names": '["GRPO", "PPO"]'})["names_keys"] == ["grpo", "ppo"]
    for given in ("0.5", " .5 ", 0.5, "5e-1"):
        assert values("neighbors", {"name": "GRPO", "min_confidence": given})["min_confidence"] == 0.5
    assert values("neighbors", {"name": "GRPO", "min_confidence": 1})["min_confidence"] == 1.0
    default = values("neighbors", {"name": "GRPO"})["min_confidence"]
    assert default == 0.0 and type(default) is float


def test_normalisation() -> None:
    assert values("entity", {"name": "Qwen3 8B"}) == {"name_key": "qwen38b", "name_query": '"qwen38b"'}
    assert values("entity", {"name": "QWEN3\u20118b"})["name_key"] == "qwen38b"   # non-breaking hyphen
    assert values("papers_with_all", {"names": "C++, a\\b"}) == {"names_keys": ["c++", "a\\b"],
                                                                  "names_queries": ['"c++"', '"a\\\\b"'],
                                                                  "limit": 100, "offset": 0}
    assert values("entity_search", {"q": "Policy Opt"}) == {"q_key": "policyopt", "type": None, "limit": 20,
                                                            "offset": 0}
    assert values("entity_search", {"q": "c++ (x)"})["q_key"] == "c++(x)"
    # a family is a whole name looked up exactly (a term query), not a fragment (a wildcard)
    assert values("family", {"name": "Qwen 2.5"}) == {"name_key": "qwen2.5", "name_query": '"qwen2.5"',
                                                      "limit": 100, "offset": 0}
    assert values("top_entities", {"type": "dataset"}) == {"type": "Dataset", "limit": 20}
    assert values("cooccurring", {"name": "x", "type": ""})["type"] is None    # empty GET value = absent
    assert values("cooccurring", {"name": "x", "type": None})["type"] is None  # JSON null = absent
    for collection in ("Daily Papers", "daily_papers", "collection:daily-papers"):
        cid = values("introduced_in", {"collection": collection})["collection_id"]
        assert cid == "collection:daily-papers"


def test_injection_shaped_names_are_just_names() -> None:
    for name in ('GRPO"}) MATCH (n) DETACH DELETE n //', "' OR 1=1 --", "$name_key", "`x`"):
        for query in ("entity", "papers_mentioning"):
            with pytest.raises(errors.UnknownEntityError, match="no entity named"):
                run_named(STORE, query, {"name": name})


def test_every_row_is_json_ready() -> None:
    import json

    for name, query in load_catalog().items():
        json.dumps(rows_or_unknown(STORE, name, query.example_params()), allow_nan=False)


def test_runner_dispatches_by_the_interface_the_store_offers() -> None:
    """A store with its own Cypher engine gets the catalog's text; no `kind` string is consulted
    (this one claims to be embedded)."""

    class FakeCypherEngine:
        kind = "embedded"

        def run_user_cypher(self, text: str, params: dict[str, Any], *, max_rows: int | None = None
                            ) -> list[dict[str, Any]]:
            return [{"text": text, "params": params}]

        def run_catalog(self, text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
            return [{"cypher": text, "params": params}]

        def ensure_ready(self) -> None:
            pass

    assert isinstance(backend_for(FakeCypherEngine()), CypherBackend)
    assert isinstance(backend_for(STORE), NetworkxBackend)
    assert run_cypher(FakeCypherEngine(), "RETURN 1", {"a": 1}) == [{"text": "RETURN 1", "params": {"a": 1}}]
    row = run_named(FakeCypherEngine(), "entity", {"name": "Group Relative"})[0]
    assert row["params"] == {"name_key": "grouprelative", "name_query": '"grouprelative"'}
    assert row["cypher"] == load_catalog()["entity"].cypher


def test_a_store_that_cannot_answer_queries_is_refused_by_name() -> None:
    class StatsOnly:
        kind = "neo4j"

    with pytest.raises(errors.BadInputError, match="StatsOnly cannot answer queries"):
        run_named(StatsOnly(), "entity", {"name": "GRPO"})


@pytest.mark.parametrize(("key", "term"), [
    ("grpo", '"grpo"'),
    ("c++", '"c++"'),                       # no escaping needed inside a phrase
    ("a:b/c(d)*?~^[]{}!&&||", '"a:b/c(d)*?~^[]{}!&&||"'),
    ('say"hi"', '"say\\"hi\\""'),
    ("back\\slash", '"back\\\\slash"'),
    ("trail\\", '"trail\\\\"'),           # an escaped backslash cannot escape the closing quote
])
def test_fulltext_term_quotes_and_escapes_only_what_a_phrase_needs(key: str, term: str) -> None:
    from paperkg.queries.params import fulltext_term

    assert fulltext_term(key) == term
