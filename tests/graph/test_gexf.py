"""GEXF export: a dynamic GEXF 1.3 whose elements start in the year they first appear.

Read back with networkx (`nx.read_gexf`); Gephi's own importer reads it in tests/graph/test_gephi.py.
The golden file `tests/graph/golden/small.gexf` pins the exact bytes; after an intended change:

    PAPERKG_UPDATE_GOLDEN=1 pytest tests/graph/test_gexf.py -k golden
"""

from __future__ import annotations

import io
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import pytest

from paperkg.graph.gexf import first_years, write_gexf
from paperkg.graph.graphml import LABEL_COLOURS
from paperkg.graph.model import Edge, KnowledgeGraph, Node, collection_id, entity_id, node_key
from tests.graph.test_graphml import nasty_graph, small_graph

GOLDEN = Path(__file__).parent / "golden" / "small.gexf"
NS = "{http://gexf.net/1.3}"
GRPO = entity_id("Method", "GRPO")
PPO = entity_id("Method", "PPO")
GSM8K = entity_id("Dataset", "GSM8K")
MATH = entity_id("Benchmark", "MATH")
DAILY = collection_id("Daily Papers")


def timed_graph() -> KnowledgeGraph:
    """Three papers over three years (one without a year); years stored on some elements only."""
    g = KnowledgeGraph()
    for pid, year in (("p22", 2022), ("p24", 2024), ("pnone", None)):
        props: dict[str, object] = {"id": pid, "ids": [pid], "abstract": f"abstract {pid}"}
        if year is not None:
            props["year"] = year
        g.add_node(Node("Paper", pid, props))
    g.add_node(Node("Collection", DAILY, {"id": DAILY, "name": "Daily Papers", "paper_count": 2}))
    g.add_node(Node("Method", GRPO, {"id": GRPO, "type": "Method", "name": "GRPO", "paper_count": 1}))
    g.add_node(Node("Method", PPO, {"id": PPO, "type": "Method", "name": "PPO", "paper_count": 2,
                                    "first_year": 2020}))     # stored: wins over derivation
    g.add_node(Node("Dataset", GSM8K, {"id": GSM8K, "type": "Dataset", "name": "GSM8K", "paper_count": 2}))
    g.add_node(Node("Benchmark", MATH, {"id": MATH, "type": "Benchmark", "name": "MATH", "paper_count": 0}))
    p22, p24, pnone = (node_key("Paper", p) for p in ("p22", "p24", "pnone"))
    g.add_edge(Edge("IN_COLLECTION", p24, DAILY))
    g.add_edge(Edge("IN_COLLECTION", pnone, DAILY))
    g.add_edge(Edge("MENTIONS", p24, GRPO, {"count": 1}))
    g.add_edge(Edge("INTRODUCES", p24, GRPO, {"sentence": "We propose GRPO."}))
    g.add_edge(Edge("MENTIONS", p22, PPO, {"count": 1, "year": 2022}))
    g.add_edge(Edge("MENTIONS", p24, PPO, {"count": 2}))
    g.add_edge(Edge("MENTIONS", p22, GSM8K, {"count": 1}))
    g.add_edge(Edge("MENTIONS", p24, GSM8K, {"count": 1}))
    g.add_edge(Edge("MENTIONS", pnone, GSM8K, {"count": 1}))
    g.add_edge(Edge("COMPARED_WITH", GRPO, PPO, {"papers": ["p24"], "support": 1, "confidence": 0.6}))
    g.add_edge(Edge("EVALUATED_ON", PPO, GSM8K, {"papers": ["p22", "p24"], "support": 2}))
    g.add_edge(Edge("EVALUATED_ON", GRPO, MATH, {"papers": ["pnone"], "support": 1}))
    return g


def export(graph: KnowledgeGraph, tmp_path: Path) -> Path:
    path = tmp_path / "g.gexf"
    write_gexf(graph, path)
    return path


@pytest.mark.parametrize(("element", "start"), [
    ("paper:p22", 2022),                    # a paper: its year
    ("paper:pnone", None),                  # no year: no start (shown at every time)
    (GRPO, 2024),                           # derived: its earliest mentioning paper
    (PPO, 2020),                            # stored first_year kept
    (GSM8K, 2022),                          # the earliest of 2022, 2024 and an unknown year
    (MATH, None),                           # only in a relation stated by a paper without a year
    (DAILY, 2024),                          # a collection: its earliest paper
])
def test_node_start_years(tmp_path: Path, element: str, start: int | None) -> None:
    g = nx.read_gexf(export(timed_graph(), tmp_path))
    assert g.graph["mode"] == "dynamic"
    assert g.nodes[element].get("start") == start


@pytest.mark.parametrize(("edge", "start"), [
    (f"MENTIONS|paper:p22|{PPO}", 2022),
    (f"INTRODUCES|paper:p24|{GRPO}", 2024),
    (f"MENTIONS|paper:pnone|{GSM8K}", None),
    (f"IN_COLLECTION|paper:p24|{DAILY}", 2024),
    (f"EVALUATED_ON|{PPO}|{GSM8K}", 2022),   # the earliest supporting paper
    (f"COMPARED_WITH|{GRPO}|{PPO}", 2024),
    (f"EVALUATED_ON|{GRPO}|{MATH}", None),
])
def test_edge_start_years(tmp_path: Path, edge: str, start: int | None) -> None:
    g = nx.read_gexf(export(timed_graph(), tmp_path))
    found = {key: data for _, _, key, data in g.edges(keys=True, data=True)}
    assert found[edge].get("start") == start
    assert found[edge]["label"] == edge.split("|")[0]


def test_no_edge_starts_before_its_ends() -> None:
    graph = timed_graph()
    nodes, edges = first_years(graph)
    for edge in graph.edges.values():
        if edge.id in edges:
            for end in (edge.source, edge.target):
                assert nodes.get(end, edges[edge.id]) <= edges[edge.id], (edge.id, end)


def test_visual_attributes_and_confidence(tmp_path: Path) -> None:
    g = nx.read_gexf(export(timed_graph(), tmp_path))
    grpo = g.nodes[GRPO]
    assert grpo["label"] == "GRPO" and grpo["type"] == "Method"
    assert tuple(grpo["viz"]["color"][c] for c in "rgb") == LABEL_COLOURS["Method"]
    assert grpo["viz"]["size"] == 8.0 and grpo["confidence"] == 1.0
    assert "confidence" not in g.nodes["paper:p22"]
    edges = {key: data for _, _, key, data in g.edges(keys=True, data=True)}
    assert edges[f"COMPARED_WITH|{GRPO}|{PPO}"]["confidence"] == 0.6
    assert edges[f"EVALUATED_ON|{PPO}|{GSM8K}"]["weight"] == 2.0


@pytest.mark.parametrize("make", [small_graph, nasty_graph, timed_graph],
                         ids=["small", "nasty", "timed"])
def test_reads_back_every_element(make: object, tmp_path: Path) -> None:
    graph = make()  # type: ignore[operator]
    path = export(graph, tmp_path)
    g = nx.read_gexf(path)
    kept = [e for e in graph.edges.values() if e.source in graph.nodes and e.target in graph.nodes]
    assert set(g.nodes) == set(graph.nodes)
    assert {k for _, _, k in g.edges(keys=True)} == {e.id for e in kept}
    root = ET.parse(path).getroot()
    assert root.tag == f"{NS}gexf" and root.get("version") == "1.3"
    kinds = {e.get("id"): e.get("kind") for e in root.iter(f"{NS}edge")}
    assert kinds == {e.id: e.type for e in kept}


def test_same_graph_same_bytes() -> None:
    a, b = io.BytesIO(), io.BytesIO()
    write_gexf(timed_graph(), a)
    write_gexf(timed_graph(), b)
    assert a.getvalue() == b.getvalue()


def test_golden_file(tmp_path: Path) -> None:
    path = export(timed_graph(), tmp_path)
    if os.environ.get("PAPERKG_UPDATE_GOLDEN"):
        GOLDEN.write_bytes(path.read_bytes())
    assert path.read_bytes() == GOLDEN.read_bytes(), (
        "GEXF output changed; if intended, regenerate (see the module docstring) and review the diff")
