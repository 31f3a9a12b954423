"""Parity of the catalog on graphs built to contain the hard cases (see test_parity.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from paperkg.graph.model import KnowledgeGraph
from paperkg.queries.runner import run_named
from tests.queries.graphs import (
    NEAR_MISSES,
    SPECIAL_NAMES,
    random_graph,
    special_names_graph,
    tiny_graph,
    trending_graph,
)
from tests.queries.parity import GraphOnly, cases, compare

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def neo4j_store(neo4j_uri: str) -> Iterator[Any]:
    from paperkg.graph.neo4j_store import Neo4jStore

    store = Neo4jStore(neo4j_uri)
    yield store
    store.close()


def _multiset(rows: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


def _both(neo4j_store: Any, graph: KnowledgeGraph) -> tuple[GraphOnly, Any]:
    neo4j_store.save_graph(graph)
    return GraphOnly(graph), neo4j_store


def test_tiny_graph(neo4j_store: Any) -> None:
    embedded, neo4j = _both(neo4j_store, tiny_graph())
    problems = compare(embedded, neo4j, cases(tiny_graph(), seed=1, per_query=25))
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize(("seed", "per_paper", "relations"),
                         [(11, 6, 90), (12, 6, 90), (21, 2, 10), (22, 2, 5)])
def test_random_graph(neo4j_store: Any, seed: int, per_paper: int, relations: int) -> None:
    graph = random_graph(seed, per_paper=per_paper, relations=relations)
    embedded, neo4j = _both(neo4j_store, graph)
    problems = compare(embedded, neo4j, cases(graph, seed=seed, per_query=15))
    assert not problems, "\n".join(problems[:10])


def test_trending_past_the_entities_read_first(neo4j_store: Any) -> None:
    """Both ways `trending` finds its answer on Neo4j give the embedded store's rows: the growths
    of the 1,000 entities with most papers bound it (the rising ones, in 2026 alone: only entities
    with as many papers are read), and they do not (2026 against 2025: the steady ones did not grow,
    fewer rows than the limit, so every entity is read and the new ones, outside the 1,000, enter);
    and a type, a minimum, a limit."""
    embedded, neo4j = _both(neo4j_store, trending_graph())
    asked = [{"type": None, "since": None, "min_papers": 2, "limit": 3},
             {"type": "Method", "since": 2026, "min_papers": 1, "limit": 10},
             {"type": None, "since": 2025, "min_papers": 1, "limit": 5},
             {"type": "Method", "since": 2025, "min_papers": 2, "limit": 1000},
             {"type": "Task", "since": None, "min_papers": 1, "limit": 10}]
    answers = []
    for params in asked:
        mine, theirs = run_named(embedded, "trending", params), run_named(neo4j, "trending", params)
        assert mine == theirs, params
        answers.append(mine)
    assert [r["id"] for r in answers[0]] == ["method:rising-0003", "method:rising-0002", "method:rising-0001"]
    assert len(answers[1]) == 10 and answers[1][4]["growth"] == 1 and answers[1][4]["id"] == "method:new-0000"
    assert [r["growth"] for r in answers[2]] == [5, 4, 3, 2, 2]
    assert [r["id"] for r in answers[2][3:]] == ["method:rising-0000", "method:steady-0000"]
    assert len(answers[3]) == 1000 and answers[4] == []


@pytest.mark.parametrize("seed", [0, 31])
def test_user_cypher_accepted_on_embedded_means_same_answer(neo4j_store: Any, seed: int) -> None:
    """Every query grand-cypher is allowed to answer gives Neo4j's rows (in order when the ORDER BY
    is total, as a multiset otherwise); every refused one is refused, not answered wrongly."""
    from paperkg.graph.errors import BadInputError
    from paperkg.queries.runner import run_cypher
    from tests.queries.user_queries import ACCEPTED, PARAMS, REFUSED

    graph = tiny_graph() if seed == 0 else random_graph(seed)
    embedded, neo4j = _both(neo4j_store, graph)
    for text, ordered in ACCEPTED:
        mine, theirs = run_cypher(embedded, text, PARAMS), run_cypher(neo4j, text, PARAMS)
        if not ordered:
            mine, theirs = _multiset(mine), _multiset(theirs)
        assert mine == theirs, text
    for text, _, _ in REFUSED:
        with pytest.raises(BadInputError):
            run_cypher(embedded, text, {} if "$n" in text else PARAMS)


@pytest.mark.parametrize(("seed", "per_paper", "relations"), [(41, 2, 15), (44, 4, 60)])
def test_shortest_paths_of_every_length(neo4j_store: Any, seed: int, per_paper: int, relations: int) -> None:
    """Sparse graphs, so chains of 2 to 6 steps (and none) all occur, ties broken the same way."""
    import random

    graph = random_graph(seed, papers=120, entities=90, per_paper=per_paper, relations=relations)
    embedded, neo4j = _both(neo4j_store, graph)
    rng = random.Random(seed)
    aliases = sorted({a for n in graph.nodes.values() for a in n.props.get("aliases", [])})
    todo = [("shortest_path", {"from": rng.choice(aliases), "to": rng.choice(aliases)}) for _ in range(50)]
    problems = compare(embedded, neo4j, todo)
    assert not problems, "\n".join(problems[:10])


def test_names_with_lucene_syntax(neo4j_store: Any) -> None:
    """On Neo4j entity names go through a full-text (Lucene) index: names made of Lucene's special
    characters, and near misses of them, must give exactly the embedded store's rows in every
    catalog query that takes a name (the index narrows, `$key IN e.keys` decides)."""
    from paperkg.queries.catalog import load_catalog

    embedded, neo4j = _both(neo4j_store, special_names_graph())
    names = [a for _, aliases in SPECIAL_NAMES for a in aliases] + list(NEAR_MISSES)
    todo: list[tuple[str, dict[str, Any]]] = []
    for qname, query in sorted(load_catalog().items()):
        declared = {p.name: p.type for p in query.params}
        if declared.get("name") == "entity":
            todo += [(qname, {"name": n}) for n in names]
    pairs = list(zip(names, names[1:] + names[:1], strict=True))
    todo += [("papers_with_all", {"names": [a, b]}) for a, b in pairs]
    todo += [("shortest_path", {"from": a, "to": b}) for a, b in pairs]
    todo += [("entity_search", {"q": q}) for q in ("c+", "4.5", "(x", "q*", "k\\", '"e', "x.y", "&&b", "n?",
                                                    "^2", "[cls]", "and", "or", "//x", "$r")]
    problems = compare(embedded, neo4j, todo)
    assert not problems, "\n".join(problems[:10])
    # the names really are found (not two empty answers agreeing)
    for _, aliases in SPECIAL_NAMES:
        for alias in aliases:
            assert run_named(neo4j, "entity", {"name": alias}), alias
