"""Results in Neo4j (issue 27): the `Result` nodes of real abstracts with their gold results, written
by full saves and by deltas (UNWIND batches), removed with their papers, and answered by plain
Cypher. Against the real engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest

from paperkg.graph.corpus import PaperEntry
from paperkg.graph.neo4j_store import Neo4jStore
from paperkg.graph.state import BuildState
from tests.graph.results_gold import gold_corpus, gold_records
from tests.graph.test_neo4j_store import assert_domain_only, assert_stored, clean, driver, duplicates  # noqa: F401
from tests.stores import add_entry

pytestmark = pytest.mark.neo4j
TRACKLET = "2508.02143"


@pytest.fixture
def store(neo4j_uri: str, clean: None) -> Iterator[Neo4jStore]:  # noqa: F811
    with Neo4jStore(neo4j_uri, batch_size=50) as st:
        yield st


def _build(state: BuildState, target: Neo4jStore, *, add: list[PaperEntry] = (), remove: list[str] = ()
           ) -> int:
    """One build into the state and Neo4j, as `paperkg build --neo4j` makes it (`api.build._write`);
    the number of rows the delta handed Neo4j."""
    with state.transaction() as tx:
        for entry in add:
            add_entry(tx, entry)
        if remove:
            assert tx.remove(list(remove)) == []
        in_step = tx.base is not None and target.synced_generation() == tx.base
        delta = tx.derive(full_delta=not in_step, for_target=True)
        if delta or not in_step:
            target.apply(delta)
    return len(delta.nodes) + len(delta.edges) + len(delta.deleted_nodes) + len(delta.deleted_edges)


def test_results_are_saved_changed_and_removed_with_their_papers(
        tmp_path: Path, store: Neo4jStore, driver: neo4j.Driver) -> None:  # noqa: F811
    entries = list(gold_corpus(list(gold_records()[:40])))
    first, rest = entries[:30], entries[30:]
    state = BuildState(tmp_path, create=True)
    try:
        _build(state, store, add=first)                       # a full save into an empty database
        assert_stored(store, state.graph())
        written = _build(state, store, add=rest)              # a delta
        graph = state.graph()
        assert_stored(store, graph)
        assert written < len(graph.nodes) + len(graph.edges) // 2
        assert store.stats()["nodes"]["Result"] == sum(len(e.extraction.results) for e in entries) > 0

        rows, _, _ = driver.execute_query(
            "MATCH (p:Paper {id: $pid})-[:REPORTS]->(r:Result)-[:ON_BENCHMARK]->(b) "
            "OPTIONAL MATCH (r)-[:ACHIEVED_BY]->(s) OPTIONAL MATCH (r)-[:IN_METRIC]->(m) "
            "RETURN b.name AS benchmark, s.name AS subject, m.name AS metric, r.display AS value, "
            "r.number AS number, r.year AS year ORDER BY r.number", pid=TRACKLET)
        assert [dict(r) for r in rows] == [
            {"benchmark": "Gait3D", "subject": "TrackletGait", "metric": "rank-1 accuracy", "value": "77.8",
             "number": 77.8, "year": 2025},
            {"benchmark": "GREW", "subject": "TrackletGait", "metric": "rank-1 accuracy", "value": "80.4",
             "number": 80.4, "year": 2025}]

        _build(state, store, remove=[TRACKLET])               # a removal, as a delta
        assert_stored(store, state.graph())
        gone, _, _ = driver.execute_query(
            "MATCH (r:Result) WHERE r.paper = $pid OR r.id STARTS WITH $prefix RETURN count(r) AS n",
            pid=TRACKLET, prefix=f"result:{TRACKLET}:")
        assert gone[0]["n"] == 0
        assert duplicates(driver) == 0
        assert_domain_only(driver)
    finally:
        state.close()
