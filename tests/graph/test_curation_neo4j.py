"""Corrections reach Neo4j as deltas: a real engine holds, after `curation.apply` and `remove`, the
graph the build state derived, and what it was sent is the change alone (not a full save)."""

from __future__ import annotations

import shutil
from pathlib import Path

from paperkg.graph import curation
from paperkg.graph.neo4j_store import Neo4jStore
from paperkg.graph.state import BuildState
from paperkg.graph.store import GraphDelta, graph_stats


class Recording:
    """A Neo4j target that keeps every delta it is handed."""

    def __init__(self, store: Neo4jStore) -> None:
        self.store = store
        self.deltas: list[GraphDelta] = []

    def synced_generation(self) -> str | None:
        return self.store.synced_generation()

    def apply(self, delta: GraphDelta) -> None:
        self.deltas.append(delta)
        self.store.apply(delta)


def _assert_mirrors(neo4j: Neo4jStore, state: BuildState) -> None:
    graph = state.graph()
    assert neo4j.stats() == graph_stats(graph)
    exported = neo4j.export()
    assert exported.nodes == graph.nodes and exported.edges == graph.edges


def test_corrections_reach_neo4j_as_deltas(neo4j_uri: str, seed_store_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "store"
    shutil.copytree(seed_store_path, path)
    neo4j = Neo4jStore(neo4j_uri)
    neo4j.replace_other = True             # whatever earlier modules left in the test database
    target = Recording(neo4j)
    state = BuildState(path)
    try:
        with state.transaction() as tx:                       # bring the database in step: a full save
            tx.write(target)
        assert target.deltas[-1].full
        applied = curation.apply(state, [curation.validate("merge", "DPO", "RLHF"),
                                         curation.validate("retype", "Shapley value", "Metric"),
                                         curation.validate("drop", "pruning")], target=target)
        delta = target.deltas[-1]
        assert applied.changed and not delta.full and len(target.deltas) == 2
        assert {"method:direct-preference-optimization", "method:shapley-value", "method:pruning"} <= {
            n.key for n in delta.deleted_nodes}
        assert {"metric:shapley-value", "method:reinforcement-learning-from-human-feedback"} <= {
            n.key for n in delta.nodes}
        assert len(delta.nodes) + len(delta.edges) < 200         # the change, not the ~3,700-row graph
        _assert_mirrors(neo4j, state)
        assert curation.remove(state, "pruning", target=target)
        assert not target.deltas[-1].full and "method:pruning" in {n.key for n in target.deltas[-1].nodes}
        _assert_mirrors(neo4j, state)
    finally:
        state.close()
        neo4j.close()


def test_corrected_results_reach_neo4j_and_the_leaderboard_answers_alike(
        neo4j_uri: str, results_store_path: Path, tmp_path: Path) -> None:
    """Merging a result's subject and retyping its benchmark moves the Result's links in Neo4j by
    the delta alone, and `leaderboard` / `results_of` answer there as on the build state."""
    from paperkg.graph.embedded import EmbeddedStore
    from paperkg.queries.runner import run_named

    path = tmp_path / "results"
    shutil.copytree(results_store_path, path)
    neo4j = Neo4jStore(neo4j_uri)
    neo4j.replace_other = True
    target = Recording(neo4j)
    state = BuildState(path)
    try:
        with state.transaction() as tx:
            tx.write(target)
        curation.apply(state, [curation.validate("merge", "GaitSet", "GaitBase"),
                               curation.validate("retype", "Gait3D", "Benchmark")], target=target)
        delta = target.deltas[-1]
        assert not delta.full and {"method:gaitset", "dataset:gait3d"} <= {n.key for n in delta.deleted_nodes}
        assert {e.type for e in delta.edges} >= {"ACHIEVED_BY", "ON_BENCHMARK"}
        _assert_mirrors(neo4j, state)
        local = EmbeddedStore(path)
        try:
            for name, params in (("leaderboard", {"benchmark": "Gait3D", "metric": "rank-1 accuracy"}),
                                 ("results_of", {"name": "GaitSet"})):
                rows = run_named(local, name, params)
                assert rows and run_named(neo4j, name, params) == rows, name
            assert {r["benchmark"] for r in run_named(local, "leaderboard", {"benchmark": "Gait3D"})} == {
                "benchmark:gait3d"}
        finally:
            local.close()
    finally:
        state.close()
        neo4j.close()
