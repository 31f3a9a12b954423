"""Every catalog example returns rows on the example corpus (what `--list` promises a user)."""

from __future__ import annotations

from typing import Any

import pytest

from paperkg.queries.catalog import load_catalog
from paperkg.queries.runner import run_named
from tests.graph.results_gold import RESULT_QUERIES

# Questions about time need papers with years: the seed abstracts have none, the arXiv example has.
TIMED = frozenset({"timeline", "trending"})


@pytest.mark.parametrize("name", sorted(set(load_catalog()) - TIMED - RESULT_QUERIES))
def test_example_returns_rows_on_the_seed(name: str, seed_store: Any) -> None:
    rows = run_named(seed_store, name, load_catalog()[name].example_params())
    assert rows, f"{name}'s example returns no rows on examples/abstracts: pick another example"


@pytest.mark.parametrize("name", sorted(RESULT_QUERIES))
def test_result_example_returns_rows_on_gold_results(name: str, results_store: Any) -> None:
    rows = run_named(results_store, name, load_catalog()[name].example_params())
    assert rows, f"{name}'s example returns no rows on the gold results: pick another example"


@pytest.mark.parametrize("name", sorted(TIMED))
def test_timed_example_returns_rows_on_the_arxiv_example(name: str, arxiv_example_store: Any) -> None:
    rows = run_named(arxiv_example_store, name, load_catalog()[name].example_params())
    assert rows, f"{name}'s example returns no rows on examples/arxiv: pick another example"


def test_papers_mentioning_default_page_is_every_paper_on_the_seed(seed_store: Any) -> None:
    """`papers_mentioning(name)` is checked for exact paper sets on the example corpus: its default
    page (limit 100) must hold every paper of every seed entity, and paging must cut that same list."""
    default = load_catalog()["papers_mentioning"].param("limit").default
    graph = seed_store.graph()
    entities = [n for n in graph.nodes.values() if n.props.get("paper_count") is not None
                and n.label != "Collection"]
    assert max(n.props["paper_count"] for n in entities) <= default
    busiest = max(entities, key=lambda n: (n.props["paper_count"], n.id))
    rows = run_named(seed_store, "papers_mentioning", {"name": busiest.props["name"]})
    mentioning = {e.source for e in graph.edges.values() if e.type == "MENTIONS" and e.target == busiest.key}
    assert len(rows) >= len(mentioning) == busiest.props["paper_count"]
    pages = [run_named(seed_store, "papers_mentioning", {"name": busiest.props["name"], "limit": 3,
                                                          "offset": offset})
             for offset in range(0, len(rows) + 3, 3)]
    assert [r for page in pages for r in page] == rows and pages[-1] == []
