"""`run_cypher` on the embedded store: grand-cypher answers what it gets right, refuses the rest with
a clear error (never a wrong answer). Parity of the accepted queries with Neo4j is checked in
test_parity_synthetic.py; here: refusals, exact rows, parameter substitution, engine quirks."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from paperkg.graph import errors
from paperkg.graph.model import KnowledgeGraph, Node
from paperkg.queries.embedded_cypher import literal, tokenize
from paperkg.queries.runner import run_cypher
from tests.queries.graphs import tiny_graph
from tests.queries.parity import GraphOnly
from tests.queries.user_queries import ACCEPTED, PARAMS, REFUSED

STORE = GraphOnly(tiny_graph())


@pytest.mark.parametrize(("text", "error", "words"), REFUSED, ids=[r[0][:50] for r in REFUSED])
def test_refused_with_a_clear_error(text: str, error: str, words: str) -> None:
    params = {} if "$n" in text else PARAMS
    with pytest.raises(errors.BadInputError) as caught:
        run_cypher(STORE, text, params)
    assert type(caught.value).__name__ == error
    assert words in str(caught.value)
    if error == "UnsupportedQueryError":
        assert "--neo4j" in str(caught.value) and "catalog" in str(caught.value)


@pytest.mark.parametrize("text", [a[0] for a in ACCEPTED])
def test_accepted_queries_run(text: str) -> None:
    rows = run_cypher(STORE, text, PARAMS)
    assert isinstance(rows, list)
    for row in rows:
        assert all(isinstance(k, str) for k in row)


EXACT: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = [
    ('MATCH (p:Paper)-[:MENTIONS]->(e:Method) RETURN e.name, count(p) AS n ORDER BY n DESC, e.name', {},
     [{"e.name": "GRPO", "n": 3}, {"e.name": "PPO", "n": 2}, {"e.name": "differential privacy", "n": 1},
      {"e.name": "dynamic programming", "n": 1}]),
    # columns in RETURN order, named as written (grand-cypher returns them in another order)
    ('MATCH (a:Method)-[r:COMPARED_WITH]->(b:Method) WHERE a.name = "GRPO" RETURN a.name, type(r), '
     'r.support, b.name', {},
     [{"a.name": "GRPO", "type(r)": "COMPARED_WITH", "r.support": 2, "b.name": "PPO"}]),
    # an aggregate over nothing is one row, as in Neo4j (grand-cypher alone returns none)
    ('MATCH (e:Task) WHERE e.name = "none" RETURN count(e), collect(e.name) AS names, sum(e.paper_count)',
     {}, [{"count(e)": 0, "names": [], "sum(e.paper_count)": 0}]),
    # parameters, lists and numbers
    ('MATCH (e:Method) WHERE e.id IN $ids AND e.paper_count > $k RETURN e.name ORDER BY e.name',
     {"ids": ["method:ppo", "method:grpo", "x"], "k": 2}, [{"e.name": "GRPO"}]),
    # nodes come back as their properties, like the Neo4j store's rows
    ('MATCH (e:Benchmark) RETURN e', {},
     [{"e": {"id": "benchmark:math", "type": "Benchmark", "name": "MATH", "aliases": ["MATH"],
             "keys": ["math"], "paper_count": 1, "introduced_count": 0, "ambiguous": True}}]),
    ('MATCH (e:Method) WHERE e.name STARTS WITH "d" RETURN e.id ORDER BY e.id', {},
     [{"e.id": "method:differential-privacy"}, {"e.id": "method:dynamic-programming"}]),
]


@pytest.mark.parametrize(("text", "params", "expected"), EXACT)
def test_exact_rows(text: str, params: dict[str, Any], expected: list[dict[str, Any]]) -> None:
    assert run_cypher(STORE, text, params) == expected


def test_a_new_engine_per_query() -> None:
    """Reusing one GrandCypher object returns the first query's result again."""
    first = run_cypher(STORE, 'MATCH (e:Method) WHERE e.name = "GRPO" RETURN e.id', {})
    second = run_cypher(STORE, 'MATCH (e:Method) WHERE e.name = "PPO" RETURN e.id', {})
    assert first == [{"e.id": "method:grpo"}] and second == [{"e.id": "method:ppo"}]


NASTY = ['a"b', "back\\slash", 'end\\"', "new\nline", "tab\t", "\u2028sep", "naïve 数据 🚀", "'single'",
         '" OR 1=1 //', "\\u0041", "{x}", "$other", "\x00nul"]


@pytest.mark.parametrize("value", NASTY)
def test_string_parameters_come_back_unchanged(value: str) -> None:
    """A substituted string is one literal equal to the value: no early end, no escapes decoded twice."""
    graph = KnowledgeGraph()
    graph.add_node(Node("Method", "method:target", {"id": "method:target", "name": value}))
    graph.add_node(Node("Method", "method:other", {"id": "method:other", "name": "other"}))
    text = "MATCH (e:Method) WHERE e.name = $v RETURN e.id, e.name"
    rows = run_cypher(GraphOnly(graph), text, {"v": value})
    assert rows == [{"e.id": "method:target", "e.name": value}]


SINGLE = ["GRPO", "it's", 'say "hi"', "back\\slash", "new\nline", "é", "' OR 1=1 //", '" RETURN 1 //',
          "WITH", "$v"]


@pytest.mark.parametrize("value", SINGLE)
def test_single_quoted_strings_mean_what_they_say(value: str) -> None:
    """`'...'` is read as Cypher reads it (escapes decoded), and finds exactly the node whose name is
    that value, as the same value given as a parameter does; nothing inside can end it early."""
    graph = KnowledgeGraph()
    graph.add_node(Node("Method", "method:target", {"id": "method:target", "name": value}))
    graph.add_node(Node("Method", "method:other", {"id": "method:other", "name": "other"}))
    escaped = value.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
    text = f"MATCH (e:Method) WHERE e.name = '{escaped}' RETURN e.id"
    assert run_cypher(GraphOnly(graph), text, {}) == [{"e.id": "method:target"}]


def test_single_and_double_quotes_answer_alike() -> None:
    single = run_cypher(STORE, "MATCH (e:Method) WHERE e.name CONTAINS 'P' RETURN e.name ORDER BY e.name", {})
    double = run_cypher(STORE, 'MATCH (e:Method) WHERE e.name CONTAINS "P" RETURN e.name ORDER BY e.name', {})
    assert single == double == [{"e.name": "GRPO"}, {"e.name": "PPO"}]
    with pytest.raises(errors.BadInputError, match="unknown escape"):
        run_cypher(STORE, r"MATCH (e:Method) WHERE e.name = 'a\qb' RETURN e.id", {})


def test_literals() -> None:
    assert literal(None, "p") == "null"
    assert literal(True, "p") == "true"
    assert literal(-3, "p") == "-3"
    assert literal(1.5e-7, "p") == "1.5e-07"
    assert literal(["a", 1], "p") == '["a", 1]'
    for bad in (float("nan"), float("inf")):
        with pytest.raises(errors.BadInputError):
            literal(bad, "p")
    with pytest.raises(errors.UnsupportedQueryError):
        literal({"a": 1}, "p")
    with pytest.raises(errors.UnsupportedQueryError):
        literal([[1]], "p")
    with pytest.raises(errors.BadInputError):
        literal("\ud800", "p")


def test_words_inside_strings_and_comments_are_not_keywords() -> None:
    rows = run_cypher(STORE, 'MATCH (e:Method) // WITH OPTIONAL <> count(*)\n'
                             'WHERE e.name = "CREATE WITH OR AND <>" RETURN e.id', {})
    assert rows == []
    assert [t.kind for t in tokenize('RETURN "a\\"b" // x')] == ["word", "string"]


def test_parameter_text_cannot_inject_syntax() -> None:
    """The value becomes one string literal, so Cypher-looking text matches nothing and runs nothing."""
    rows = run_cypher(STORE, "MATCH (e:Method) WHERE e.name = $v RETURN e.id",
                      {"v": '" OR e.name = "GRPO'})
    assert rows == []


def test_empty_query() -> None:
    with pytest.raises(errors.BadInputError):
        run_cypher(STORE, "   ", {})


@pytest.mark.parametrize("text", ["MATCH (a)-", "MATCH (a)-[r", "MATCH (a)<-[:X]-", "MATCH", "MATCH (a",
                                  "MATCH (e) RETURN count(", "MATCH (e) RETURN", 'MATCH (e) WHERE e.x = "',
                                  "MATCH (e) RETURN e.match", "/* open", "MATCH (e) RETURN e.`x"])
def test_truncated_queries_are_bad_input_not_crashes(text: str) -> None:
    try:
        run_cypher(STORE, text, {})
    except errors.BadInputError:
        return


def test_fuzzed_queries_fail_only_with_project_errors() -> None:
    """Random Cypher-ish token soup: an answer or a BadInputError subclass, never another exception
    (which the CLI would print as a traceback and the API answer with a 500)."""
    import random

    vocab = ["MATCH", "(", ")", "e", "p", ":Method", ":Paper", "-", "->", "<-", "[", "]", ":MENTIONS",
             "*1..2", "WHERE", "e.name", "=", '"GRPO"', "AND", "OR", "NOT", "RETURN", "count(e)", ",",
             "ORDER BY", "DESC", "LIMIT", "3", "{", "}", "name:", "IS NULL", "$n", "'x'", "WITH", "e.id",
             "AS", "x", "DISTINCT", "COLLECT(p.id)", "IN", '["a"]', "<>", "/", "CALL", "`q`", "..", "|"]
    rng = random.Random(4)
    for _ in range(400):
        text = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 14)))
        if rng.random() < 0.5:
            text = "MATCH (e:Method)-[:MENTIONS]->(p) " + text
        with contextlib.suppress(errors.BadInputError):
            run_cypher(STORE, text, {"n": "GRPO"})
