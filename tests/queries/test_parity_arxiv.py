"""Parity on the shipped arXiv example (examples/arxiv): the seed abstracts have no years, this one
has three, so `timeline` and `trending` have something to count on both stores. Its own module,
because saving into Neo4j replaces the graph other parity modules query."""

from __future__ import annotations

from typing import Any

import pytest

from paperkg.queries.runner import run_named
from tests.queries.parity import cases, compare

pytestmark = pytest.mark.neo4j


def test_timed_queries_same_rows_on_the_arxiv_example(arxiv_example_store: Any, neo4j_uri: str) -> None:
    """The seed abstracts have no years; the arXiv example has three, so timeline and trending have
    something to count on both stores."""
    from paperkg.graph.neo4j_store import Neo4jStore

    neo4j = Neo4jStore(neo4j_uri)
    try:
        neo4j.save_graph(arxiv_example_store.graph())
        todo = [(q, p) for q, p in cases(arxiv_example_store.graph(), seed=3, per_query=20)
                if q in ("timeline", "trending", "neighbors", "compared_with")]
        todo += [("trending", {"since": since, "type": t, "limit": 1000})
                 for since in (2024, 2025, 2026) for t in (None, "Method", "Task")]
        problems = compare(arxiv_example_store, neo4j, todo)
        assert not problems, "\n".join(problems[:10])
        assert run_named(neo4j, "trending", {"since": 2025}), "the example should show growth"
    finally:
        neo4j.close()
