"""What Gephi itself keeps of our exports: each file is imported with Gephi's own importer
(gephi-toolkit 0.10.1, default import options, `tests/graph/gephi/`) and its counts compared with
what was written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paperkg.graph.gexf import first_years, write_gexf
from paperkg.graph.graphml import write_graphml
from paperkg.graph.model import ENTITY_LABELS, KnowledgeGraph
from tests.graph.gephi.importer import GephiImporter
from tests.graph.test_gexf import timed_graph
from tests.graph.test_graphml import nasty_graph, small_graph


def _kinds(graph: KnowledgeGraph, nodes: set[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for edge in graph.edges.values():
        if edge.source in nodes and edge.target in nodes:
            counts[edge.type] = counts.get(edge.type, 0) + 1
    return counts


@pytest.mark.parametrize("make", [small_graph, nasty_graph], ids=["small", "nasty"])
def test_graphml_keeps_every_edge(make: Any, tmp_path: Path, gephi: GephiImporter) -> None:
    graph = make()
    path = tmp_path / "g.graphml"
    nodes, edges = write_graphml(graph, path)
    seen = gephi.import_file(path)
    assert (seen["nodes"], seen["edges"]) == (nodes, edges)
    assert seen["edge_kinds"] == _kinds(graph, set(graph.nodes))


def test_seed_graphml_keeps_every_edge(seed_store: Any, tmp_path: Path, gephi: GephiImporter) -> None:
    """The seed export once lost 215 of 2,785 edges: MENTIONS and INTRODUCES of one pair merged."""
    graph = seed_store.export()
    path = tmp_path / "seed.graphml"
    nodes, edges = write_graphml(graph, path)
    seen = gephi.import_file(path)
    assert edges > 2000 and _kinds(graph, set(graph.nodes)).get("INTRODUCES", 0) > 100
    assert (seen["nodes"], seen["edges"]) == (nodes, edges)
    assert seen["edge_kinds"] == _kinds(graph, set(graph.nodes))
    assert not [i for i in seen["issues"] if i.startswith(("SEVERE", "CRITICAL"))]


def test_gexf_imports_as_dynamic_graph(tmp_path: Path, gephi: GephiImporter) -> None:
    graph = timed_graph()
    path = tmp_path / "g.gexf"
    nodes, edges = write_gexf(graph, path)
    seen = gephi.import_file(path)
    assert seen["dynamic"] is True
    assert (seen["nodes"], seen["edges"]) == (nodes, edges)
    assert seen["edge_kinds"] == _kinds(graph, set(graph.nodes))
    years, _ = first_years(graph)
    assert seen["first"] == {key: float(years[key]) if key in years else None for key in graph.nodes}


def test_arxiv_example_gexf_replays_its_years(arxiv_example_store: Any, tmp_path: Path,
                                              gephi: GephiImporter) -> None:
    """The shipped example: every paper starts in its year, every entity in its first paper's."""
    graph = arxiv_example_store.export()
    path = tmp_path / "arxiv.gexf"
    nodes, edges = write_gexf(graph, path)
    seen = gephi.import_file(path)
    assert seen["dynamic"] is True and (seen["nodes"], seen["edges"]) == (nodes, edges)
    papers = {k: n.props["year"] for k, n in graph.nodes.items() if n.label == "Paper"}
    assert len(papers) == 300 and set(papers.values()) == {2024, 2025, 2026}
    assert all(seen["first"][k] == float(year) for k, year in papers.items())
    years, _ = first_years(graph)
    entities = [k for k, n in graph.nodes.items() if n.label in ENTITY_LABELS]
    assert all(seen["first"][k] == float(years[k]) for k in entities)
    assert {seen["first"][k] for k in entities} == {2024.0, 2025.0, 2026.0}


def test_results_import_with_their_links_and_years(results_store: Any, tmp_path: Path,
                                                   gephi: GephiImporter) -> None:
    """Real abstracts with their gold results: every Result node, REPORTS and link edge survives
    Gephi's import of both exports, and each result starts in its paper's year on the timeline."""
    graph = results_store.export()
    results = [k for k, n in graph.nodes.items() if n.label == "Result"]
    assert len(results) > 300
    for write, name in ((write_graphml, "r.graphml"), (write_gexf, "r.gexf")):
        nodes, edges = write(graph, tmp_path / name)
        seen = gephi.import_file(tmp_path / name)
        assert (seen["nodes"], seen["edges"]) == (nodes, edges)
        assert seen["edge_kinds"] == _kinds(graph, set(graph.nodes))
        assert {"REPORTS", "ACHIEVED_BY", "ON_BENCHMARK", "IN_METRIC", "AGAINST"} <= set(seen["edge_kinds"])
    years, _ = first_years(graph)
    assert all(seen["first"][k] == (float(years[k]) if k in years else None) for k in results)
    assert any(k in years for k in results) and any(k not in years for k in results)
