"""Parity of the result queries (`leaderboard`, `results_of`, `sota_over_time`) on real abstracts
with their gold results and variants of one of them over several years (`tests/graph/results_gold.py`):
the embedded implementations and the catalog's Cypher on the real engine give the same rows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from paperkg.graph.build import build_graph
from paperkg.graph.model import KnowledgeGraph
from paperkg.queries.runner import run_named
from tests.graph.results_gold import RESULT_QUERIES, leaderboard_corpus
from tests.queries.parity import GraphOnly, cases, compare

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def graph() -> KnowledgeGraph:
    return build_graph(leaderboard_corpus())


@pytest.fixture(scope="module")
def stores(neo4j_uri: str, graph: KnowledgeGraph) -> Iterator[tuple[Any, Any]]:
    from paperkg.graph.neo4j_store import Neo4jStore

    store = Neo4jStore(neo4j_uri)
    store.save_graph(graph)
    yield GraphOnly(graph), store
    store.close()


@pytest.mark.parametrize(("name", "params"), [
    ("leaderboard", {"benchmark": "Gait3D"}),
    ("leaderboard", {"benchmark": "Gait3D", "metric": "rank-1 accuracy"}),
    ("leaderboard", {"benchmark": "GREW", "metric": "rank-1 error"}),
    ("leaderboard", {"benchmark": "GREW", "direction": "lower", "limit": 3, "offset": 1}),
    ("leaderboard", {"benchmark": "SUN RGB-D"}),
    ("results_of", {"name": "GaitSet"}),
    ("results_of", {"name": "TrackletGait", "limit": 1, "offset": 1}),
    ("sota_over_time", {"benchmark": "GREW", "metric": "rank-1 accuracy"}),
    ("sota_over_time", {"benchmark": "Gait3D", "metric": "rank-1 error"}),
    ("sota_over_time", {"benchmark": "Gait3D", "metric": "rank-1 accuracy", "direction": "lower"}),
])
def test_same_rows_on_both_stores(stores: tuple[Any, Any], name: str, params: dict[str, Any]) -> None:
    embedded, neo4j = stores
    rows = run_named(embedded, name, params)
    assert rows
    assert run_named(neo4j, name, params) == rows


def test_every_benchmark_subject_and_metric_same_rows(stores: tuple[Any, Any], graph: KnowledgeGraph) -> None:
    embedded, neo4j = stores
    todo = [c for c in cases(graph, seed=11, per_query=60) if c[0] in RESULT_QUERIES]
    linked = {e.target for e in graph.edges.values() if e.type == "ON_BENCHMARK"}
    todo += [("leaderboard", {"benchmark": graph.nodes[b].props["name"], "kind": kind})
             for b in sorted(linked) for kind in ("absolute", "delta", "ratio")]
    problems = compare(embedded, neo4j, todo)
    assert not problems, "\n".join(problems[:10])
