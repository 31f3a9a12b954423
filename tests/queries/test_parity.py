"""Cross-store parity: every catalog query gives the same rows on the embedded store (Python
implementations) and on the real Neo4j engine (the catalog's Cypher).

- the seed graph (examples/abstracts, built by conftest): every query with its catalog example, and a
  few hundred generated parameter sets;
- the hand-built tiny graph and seeded random graphs, which have what the seed graph may lack
  (relations both ways, one acronym naming several entities, ties in every ORDER BY).

Saving into Neo4j replaces its graph, so each test saves what it queries (the seed fixture is
module-scoped: the synthetic graphs are saved from their own module, test_parity_synthetic.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from paperkg.queries.catalog import load_catalog
from paperkg.queries.runner import run_named
from tests.graph.results_gold import RESULT_QUERIES
from tests.queries.parity import cases, compare

pytestmark = pytest.mark.neo4j


# the result queries' examples name results the seed lacks: tests/queries/test_parity_results.py
@pytest.mark.parametrize("name", sorted(set(load_catalog()) - RESULT_QUERIES))
def test_example_same_rows_on_both_stores(name: str, seed_store: Any, neo4j_seed_store: Any) -> None:
    params = load_catalog()[name].example_params()
    embedded = run_named(seed_store, name, params)
    neo4j = run_named(neo4j_seed_store, name, params)
    assert embedded == neo4j


def test_generated_params_same_rows_on_seed(seed_store: Any, neo4j_seed_store: Any) -> None:
    problems = compare(seed_store, neo4j_seed_store, cases(seed_store.graph(), seed=7, per_query=15))
    assert not problems, "\n".join(problems[:10])
