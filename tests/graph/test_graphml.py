"""GraphML export: the spec's rules checked on the XML itself, plus two independent readers.

The official GraphML XSD cannot be fetched here, so these tests check its rules directly (namespace,
declared keys with allowed types, unique NMTOKEN ids, edge ends declared) and read every file back
with networkx and with igraph (a separate C parser that rejects duplicate attribute names).

The golden file `tests/graph/golden/small.graphml` pins the exact bytes. After an intended format
change, regenerate it and review the diff:

    PAPERKG_UPDATE_GOLDEN=1 pytest tests/graph/test_graphml.py -k golden
"""

from __future__ import annotations

import io
import logging
import math
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import igraph
import networkx as nx
import pytest

from paperkg.graph.graphml import LABEL_COLOURS, write_graphml
from paperkg.graph.model import Edge, KnowledgeGraph, Node, collection_id, entity_id

NS = "http://graphml.graphdrawing.org/xmlns"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
Q = f"{{{NS}}}"
ALLOWED_TYPES = {"boolean", "int", "long", "float", "double", "string"}
# XML NMTOKEN restricted to ASCII (our ids are ASCII; a stricter check can only fail more often).
NMTOKEN_RE = re.compile(r"^[A-Za-z0-9._:\-]+$")
XML_ILLEGAL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
GOLDEN = Path(__file__).parent / "golden" / "small.graphml"

NASTY = "a <tag> & \"quoted\" 'apos' — naïve 数据 🚀"
METHOD = entity_id("Method", "Group Relative Policy Optimization")
MODEL = entity_id("Model", "Qwen3-8B")
DATASET = entity_id("Dataset", "GSM8K")
COLLECTION = collection_id("Daily Papers")
PAPER_A = "paper:p1"
PAPER_B = "paper:p2"
LONG_ABSTRACT = "We study reasoning.   " + "Long sentence about models and data. " * 10


def nasty_graph() -> KnowledgeGraph:
    """Every value kind the exporter must survive, and the parallel MENTIONS/INTRODUCES pair."""
    g = KnowledgeGraph()
    g.add_node(Node("Collection", COLLECTION, {"id": COLLECTION, "name": "Daily Papers", "paper_count": 2}))
    g.add_node(
        Node(
            "Paper",
            "p1",
            {
                "id": "p1",
                "abstract": "We propose GRPO.\x00\x07 It\ud800 beats PPO\ufffe on GSM8K.\r\nDone\x1f.",
                "ids": ["p1", "arxiv:2401.00001"],
                "title": NASTY,
                "year": 2024,
                "authors": ["Ada Lovelace", None, "Alan Turing"],
                "extraction": '{"entities": []}',
                "score": 3,  # int here, float on the other paper: one double key
                "flag": True,
                "mixed": 7,  # int here, text on the other paper: one string key
                "nothing": None,
                "empty": [],
            },
        )
    )
    g.add_node(
        Node(
            "Paper",
            "p2",
            {
                "id": "p2",
                "abstract": LONG_ABSTRACT,
                "ids": ["p2"],
                "score": 0.25,
                "flag": False,
                "mixed": "seven",
                "nan": math.nan,
                "inf": math.inf,
                "meta": {"b": 1, "a": [1, 2]},
            },
        )
    )
    g.add_node(
        Node(
            "Method",
            METHOD,
            {
                "id": METHOD,
                "type": "Method",
                "name": "Group Relative Policy Optimization",
                "aliases": ["GRPO", "Group Relative Policy Optimization"],
                "keys": ["grpo", "group relative policy optimization"],
                "paper_count": 2,
                "introduced_count": 1,
                "x": 12.5,  # a Gephi position attribute name: must not be taken as one
                "label": "clash",  # clashes with the computed label
                "score": -math.inf,
            },
        )
    )
    g.add_node(
        Node(
            "Model",
            MODEL,
            {"name": "Qwen3-8B", "aliases": ["Qwen3-8B"], "paper_count": 1, "family": "Qwen3", "score": 1.5},
        )
    )
    g.add_node(Node("Dataset", DATASET, {"name": "GSM8K\x0b", "aliases": ["GSM8K"], "paper_count": 9}))

    g.add_edge(Edge("IN_COLLECTION", PAPER_A, COLLECTION))
    g.add_edge(Edge("IN_COLLECTION", PAPER_B, COLLECTION))
    g.add_edge(
        Edge(
            "MENTIONS",
            PAPER_A,
            METHOD,
            {
                "count": 3,
                "sentences": [0, 0, 1],
                "starts": [11, 20, 3],
                "ends": [15, 24, 7],
                "surfaces": ["GRPO", "GRPO", "G<R>&PO"],
            },
        )
    )
    g.add_edge(Edge("INTRODUCES", PAPER_A, METHOD, {"sentence": "We propose GRPO."}))
    g.add_edge(Edge("MENTIONS", PAPER_B, MODEL, {"count": 1, "weight": math.nan, "sentences": [2]}))
    g.add_edge(
        Edge(
            "EVALUATED_ON",
            METHOD,
            DATASET,
            {"papers": ["p1", "p2"], "support": 2, "evidence": ["It beats PPO on GSM8K.", "Also\x02 here."]},
        )
    )
    g.add_edge(Edge("USES", METHOD, MODEL, {"papers": ["p1"], "support": 1.0, "evidence": ["x"]}))
    # An edge whose target is not a node: must be skipped, never written with an undeclared end.
    g.add_edge(Edge("USES", METHOD, "model:ghost", {"papers": ["p1"], "support": 1}))
    return g


def small_graph() -> KnowledgeGraph:
    """The golden graph: one of each kind of thing, nothing nasty, so the file stays reviewable."""
    g = KnowledgeGraph()
    g.add_node(Node("Collection", COLLECTION, {"name": "Daily Papers", "paper_count": 1}))
    g.add_node(
        Node(
            "Paper",
            "p1",
            {
                "abstract": "We propose GRPO & evaluate it on GSM8K.",
                "ids": ["p1"],
                "year": 2025,
                "authors": ["A. Author", "B. Author"],
            },
        )
    )
    g.add_node(
        Node(
            "Method",
            METHOD,
            {
                "type": "Method",
                "name": "GRPO",
                "aliases": ["GRPO"],
                "keys": ["grpo"],
                "paper_count": 1,
                "introduced_count": 1,
                "confidence": 0.9,
                "first_year": 2025,
            },
        )
    )
    g.add_node(
        Node(
            "Dataset",
            DATASET,
            {"name": "GSM8K", "aliases": ["GSM8K"], "paper_count": 4, "introduced_count": 0},
        )
    )
    g.add_edge(Edge("IN_COLLECTION", PAPER_A, COLLECTION))
    g.add_edge(
        Edge(
            "MENTIONS",
            PAPER_A,
            METHOD,
            {
                "count": 2,
                "sentences": [0, 0],
                "starts": [11, 30],
                "ends": [15, 34],
                "surfaces": ["GRPO", "GRPO"],
                "confidences": [0.9, 0.5],
                "confidence": 0.9,
            },
        )
    )
    g.add_edge(Edge("INTRODUCES", PAPER_A, METHOD, {"sentence": "We propose GRPO & evaluate it on GSM8K."}))
    g.add_edge(
        Edge(
            "EVALUATED_ON",
            METHOD,
            DATASET,
            {"papers": ["p1"], "support": 1, "evidence": ["We propose GRPO & evaluate it on GSM8K."],
             "confidences": [0.75], "confidence": 0.75},
        )
    )
    return g


# --- helpers ------------------------------------------------------------------------------------------


def export(graph: KnowledgeGraph, tmp_path: Path, name: str = "g.graphml") -> tuple[Path, tuple[int, int]]:
    path = tmp_path / name
    counts = write_graphml(graph, path)
    return path, counts


def element_data(element: ET.Element, keys: dict[str, dict[str, str]]) -> dict[str, str]:
    """attr.name -> text of an element's `data` children (asserting each key appears once)."""
    out: dict[str, str] = {}
    for data in element.findall(f"{Q}data"):
        name = keys[data.get("key", "")]["attr.name"]
        assert name not in out, f"key {name} written twice on one element"
        out[name] = data.text or ""
    return out


def parse(
    path: Path,
) -> tuple[ET.Element, dict[str, dict[str, str]], dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """The root, all keys by id, and node/edge data by XML id (attr.name -> text)."""
    root = ET.parse(path).getroot()
    keys = {k.get("id", ""): dict(k.attrib) for k in root.findall(f"{Q}key")}
    graph = root.find(f"{Q}graph")
    assert graph is not None
    nodes = {n.get("id", ""): element_data(n, keys) for n in graph.findall(f"{Q}node")}
    edges = {e.get("id", ""): element_data(e, keys) for e in graph.findall(f"{Q}edge")}
    return root, keys, nodes, edges


def by_kg_id(items: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    return {data["kg_id"]: data for data in items.values()}


# --- the spec's structural rules ----------------------------------------------------------------------


def check_structure(path: Path) -> None:
    """Every rule of the GraphML spec (and Gephi's importer) that a schema check would cover."""
    root = ET.parse(path).getroot()
    assert root.tag == f"{Q}graphml"
    location = root.get(f"{{{XSI}}}schemaLocation", "").split()
    assert location[0] == NS and location[1].endswith("graphml.xsd")
    graphs = root.findall(f"{Q}graph")
    assert len(graphs) == 1 and graphs[0].get("edgedefault") == "directed"

    keys = root.findall(f"{Q}key")
    key_ids = [k.get("id") for k in keys]
    assert len(key_ids) == len(set(key_ids)), "key ids repeat"
    by_id: dict[str, ET.Element] = {}
    names: set[tuple[str, str]] = set()
    for key in keys:
        key_id, domain, name, attr_type = (key.get(a) for a in ("id", "for", "attr.name", "attr.type"))
        assert key_id and NMTOKEN_RE.match(key_id)
        assert domain in {"node", "edge"}, f"key {key_id} for={domain}"
        assert attr_type in ALLOWED_TYPES, f"key {key_id} attr.type={attr_type}"
        assert name, f"key {key_id} has no attr.name"
        assert (domain, name) not in names, f"two {domain} keys named {name}"
        names.add((domain, name))
        by_id[key_id] = key

    graph = graphs[0]
    node_ids = [n.get("id") for n in graph.findall(f"{Q}node")]
    edge_ids = [e.get("id") for e in graph.findall(f"{Q}edge")]
    assert len(node_ids) == len(set(node_ids)), "node ids repeat"
    assert len(edge_ids) == len(set(edge_ids)), "edge ids repeat"
    assert all(i and NMTOKEN_RE.match(i) for i in node_ids + edge_ids)
    declared = set(node_ids)

    for domain in ("node", "edge"):
        for element in graph.findall(f"{Q}{domain}"):
            seen: set[str] = set()
            for data in element.findall(f"{Q}data"):
                key = by_id.get(data.get("key", ""))
                assert key is not None, f"data key {data.get('key')} not declared"
                assert key.get("for") == domain, f"{domain} data uses a {key.get('for')} key"
                assert data.get("key") not in seen
                seen.add(data.get("key", ""))
                text = data.text or ""
                attr_type = key.get("attr.type")
                if attr_type in {"int", "long"}:
                    int(text)
                elif attr_type in {"float", "double"}:
                    assert math.isfinite(float(text)), f"{key.get('attr.name')}={text}"
                elif attr_type == "boolean":
                    assert text in {"true", "false"}
            names_here = {by_id[k].get("attr.name") for k in seen}
            required = {"label", "type"} if domain == "node" else {"type", "weight"}
            assert required <= names_here, f"{domain} {element.get('id')} lacks {required - names_here}"
            if domain == "node":
                assert {"r", "g", "b", "size"} <= names_here
            else:
                assert element.get("source") in declared and element.get("target") in declared
    for key in keys:
        if key.get("for") == "node" and key.get("attr.name") in {"r", "g", "b"}:
            assert key.get("attr.type") == "int"


def test_nasty_graph_follows_the_spec_rules(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="paperkg.graph.graphml"):
        path, counts = export(nasty_graph(), tmp_path)
    check_structure(path)
    _, _, nodes, edges = parse(path)
    assert counts == (len(nodes), len(edges)) == (6, 7)  # 8 edges, the one to a missing node skipped
    assert "skipped 1 edge" in caplog.text


def test_small_graph_follows_the_spec_rules(tmp_path: Path) -> None:
    path, counts = export(small_graph(), tmp_path)
    check_structure(path)
    assert counts == (4, 4)


def test_check_structure_catches_a_broken_file(tmp_path: Path) -> None:
    """The checker itself must be able to fail: a repeated edge id (what networkx writes) is caught."""
    path, _ = export(small_graph(), tmp_path)
    broken = tmp_path / "broken.graphml"
    broken.write_text(
        path.read_text(encoding="utf-8").replace('edge id="e1"', 'edge id="e0"'), encoding="utf-8"
    )
    with pytest.raises(AssertionError, match="edge ids repeat"):
        check_structure(broken)


# --- readers ------------------------------------------------------------------------------------------


def test_networkx_reads_it_back_with_parallel_edges(tmp_path: Path) -> None:
    graph = nasty_graph()
    path, (n_nodes, n_edges) = export(graph, tmp_path)
    read = nx.read_graphml(path)
    assert read.is_directed() and read.is_multigraph()
    assert read.number_of_nodes() == n_nodes == len(graph.nodes)
    assert read.number_of_edges() == n_edges == len(graph.edges) - 1
    paper = next(n for n, d in read.nodes(data=True) if d["kg_id"] == PAPER_A)
    method = next(n for n, d in read.nodes(data=True) if d["kg_id"] == METHOD)
    parallel = read.get_edge_data(paper, method)
    assert sorted(d["type"] for d in parallel.values()) == ["INTRODUCES", "MENTIONS"]
    assert len(set(parallel)) == 2  # distinct edge ids (networkx uses them as keys)
    assert all(isinstance(d["r"], int) for _, d in read.nodes(data=True))


def test_igraph_reads_it_back(tmp_path: Path) -> None:
    graph = nasty_graph()
    path, (n_nodes, n_edges) = export(graph, tmp_path)
    read = igraph.Graph.Read_GraphML(str(path))
    assert read.is_directed()
    assert (read.vcount(), read.ecount()) == (n_nodes, n_edges) == (6, 7)
    assert all(label for label in read.vs["label"])
    assert sorted(set(read.vs["type"])) == ["Collection", "Dataset", "Method", "Model", "Paper"]
    assert all(t for t in read.es["type"]) and all(w >= 1 for w in read.es["weight"])
    assert read.count_multiple().count(2) == 2  # MENTIONS and INTRODUCES between p1 and GRPO


def test_many_elements_stream_and_read_back(tmp_path: Path) -> None:
    """Enough elements to cross the writer's flush boundary several times."""
    g = KnowledgeGraph()
    for i in range(3000):
        g.add_node(Node("Method", f"method:m{i}", {"name": f"M{i}", "paper_count": i % 7}))
    for i in range(2999):
        g.add_edge(Edge("USES", f"method:m{i}", f"method:m{i + 1}", {"support": 1 + i % 3, "papers": ["p"]}))
        g.add_edge(Edge("COMPARED_WITH", f"method:m{i}", f"method:m{i + 1}", {"support": 1}))
    stream = io.BytesIO()
    assert write_graphml(g, stream) == (3000, 5998)
    path = tmp_path / "many.graphml"
    path.write_bytes(stream.getvalue())
    read = igraph.Graph.Read_GraphML(str(path))
    assert (read.vcount(), read.ecount()) == (3000, 5998)
    assert nx.read_graphml(path).number_of_edges() == 5998


# --- value rules --------------------------------------------------------------------------------------


def test_values_are_scalars_without_none_nan_or_illegal_characters(tmp_path: Path) -> None:
    path, _ = export(nasty_graph(), tmp_path)
    raw = path.read_bytes()
    text = raw.decode("utf-8")  # strict: no lone surrogate made it out
    assert not XML_ILLEGAL_RE.search(text)
    _, keys, nodes, edges = parse(path)
    node_keys = {k["attr.name"]: k for k in keys.values() if k["for"] == "node"}
    edge_keys = {k["attr.name"]: k for k in keys.values() if k["for"] == "edge"}
    nodes, edges = by_kg_id(nodes), by_kg_id(edges)

    p1, p2, method = nodes[PAPER_A], nodes[PAPER_B], nodes[METHOD]
    assert p1["label"] == NASTY  # `<&>"`, quotes and unicode survive the round trip exactly
    assert p1["abstract"] == "We propose GRPO. It beats PPO on GSM8K.\r\nDone."  # CR kept, junk gone
    assert p1["ids"] == "p1 | arxiv:2401.00001"
    assert p1["authors"] == "Ada Lovelace |  | Alan Turing"  # None keeps its slot in a list
    assert p1["year"] == "2024" and node_keys["year"]["attr.type"] == "long"
    assert p1["flag"] == "true" and p2["flag"] == "false" and node_keys["flag"]["attr.type"] == "boolean"
    assert node_keys["score"]["attr.type"] == "double"  # int 3 and float 0.25
    assert (p1["score"], p2["score"]) == ("3.0", "0.25")
    assert node_keys["mixed"]["attr.type"] == "string" and (p1["mixed"], p2["mixed"]) == ("7", "seven")
    assert "score" not in method  # -inf dropped
    assert p2["meta"] == '{"a": [1, 2], "b": 1}'
    for absent in ("nothing", "empty", "nan", "inf", "extraction", "keys", "id"):
        assert absent not in node_keys, absent
    assert "weight" not in edge_keys or edge_keys["weight"]["attr.type"] == "double"
    for data in (*nodes.values(), *edges.values()):
        for value in data.values():
            assert value.lower() not in {"nan", "inf", "-inf", "none", "null"}

    # Names Gephi or the computed keys own are kept, but under another name.
    assert method["prop_x"] == "12.5" and "x" not in node_keys
    assert method["prop_label"] == "clash" and method["label"] == "Group Relative Policy Optimization"
    assert method["aliases"] == "GRPO | Group Relative Policy Optimization"
    assert nodes[DATASET]["label"] == "GSM8K"

    mentions = edges[f"MENTIONS|{PAPER_A}|{METHOD}"]
    assert mentions["surfaces"] == "GRPO | GRPO | G<R>&PO"
    assert mentions["starts"] == "11 | 20 | 3"
    assert edges[f"EVALUATED_ON|{METHOD}|{DATASET}"]["evidence"] == "It beats PPO on GSM8K. | Also here."


def test_labels_types_weights_colours_and_sizes(tmp_path: Path) -> None:
    path, _ = export(nasty_graph(), tmp_path)
    _, _, nodes, edges = parse(path)
    nodes, edges = by_kg_id(nodes), by_kg_id(edges)

    assert nodes[COLLECTION]["label"] == "Daily Papers"
    long_label = nodes[PAPER_B]["label"]  # no title: the start of the abstract, spaces collapsed
    assert long_label.startswith("We study reasoning. Long sentence") and long_label.endswith("…")
    assert len(long_label) <= 81
    assert {n["type"] for n in nodes.values()} == {"Paper", "Collection", "Method", "Model", "Dataset"}

    for data in nodes.values():
        assert (int(data["r"]), int(data["g"]), int(data["b"])) == LABEL_COLOURS[data["type"]]
    assert len(set(LABEL_COLOURS.values())) == len(LABEL_COLOURS)
    assert float(nodes[METHOD]["size"]) == pytest.approx(5 + 3 * math.sqrt(2), abs=1e-3)
    assert float(nodes[DATASET]["size"]) == pytest.approx(14.0)
    assert float(nodes[PAPER_A]["size"]) < float(nodes[METHOD]["size"]) < float(nodes[COLLECTION]["size"])

    assert float(edges[f"MENTIONS|{PAPER_A}|{METHOD}"]["weight"]) == 3.0
    assert float(edges[f"MENTIONS|{PAPER_B}|{MODEL}"]["weight"]) == 1.0
    assert edges[f"MENTIONS|{PAPER_B}|{MODEL}"]["type"] == "MENTIONS"
    assert "prop_weight" not in edges[f"MENTIONS|{PAPER_B}|{MODEL}"]  # NaN property: dropped
    assert float(edges[f"EVALUATED_ON|{METHOD}|{DATASET}"]["weight"]) == 2.0
    assert float(edges[f"INTRODUCES|{PAPER_A}|{METHOD}"]["weight"]) == 1.0
    assert float(edges[f"IN_COLLECTION|{PAPER_A}|{COLLECTION}"]["weight"]) == 1.0
    assert all(e["label"] == e["type"] for e in edges.values())


# --- determinism, golden file, output handling ---------------------------------------------------------


def test_same_graph_gives_identical_bytes_whatever_the_insertion_order(tmp_path: Path) -> None:
    forward = nasty_graph()
    backward = KnowledgeGraph()
    for node in reversed(list(forward.nodes.values())):
        backward.add_node(Node(node.label, node.id, dict(reversed(list(node.props.items())))))
    for edge in reversed(list(forward.edges.values())):
        backward.add_edge(edge)
    a, _ = export(forward, tmp_path, "a.graphml")
    b, _ = export(backward, tmp_path, "b.graphml")
    assert a.read_bytes() == b.read_bytes()
    stream = io.BytesIO()
    write_graphml(forward, stream)
    assert stream.getvalue() == a.read_bytes()


def test_golden_file(tmp_path: Path) -> None:
    path, _ = export(small_graph(), tmp_path)
    if os.environ.get("PAPERKG_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_bytes(path.read_bytes())
    assert path.read_bytes() == GOLDEN.read_bytes(), (
        "GraphML output changed; if intended, regenerate (see the module docstring) and review the diff"
    )
    check_structure(GOLDEN)


@pytest.mark.parametrize(("element", "expected"), [
    (METHOD, 0.9),                          # the entity's own confidence
    (DATASET, 1.0),                         # an entity without one: 1.0, as graph/model.py reads it
    (PAPER_A, None),                        # papers are read, not extracted: no confidence
    (f"MENTIONS|{PAPER_A}|{METHOD}", 0.9),
    (f"EVALUATED_ON|{METHOD}|{DATASET}", 0.75),
    (f"INTRODUCES|{PAPER_A}|{METHOD}", None),
    (f"IN_COLLECTION|{PAPER_A}|{COLLECTION}", None),
])
def test_confidence_exported(tmp_path: Path, element: str, expected: float | None) -> None:
    path, _ = export(small_graph(), tmp_path)
    g = nx.read_graphml(path)
    found = {d["kg_id"]: d.get("confidence") for _, d in g.nodes(data=True)}
    found.update({d["kg_id"]: d.get("confidence") for _, _, d in g.edges(data=True)})
    assert found[element] == expected


def test_every_edge_element_names_its_kind(tmp_path: Path) -> None:
    """Gephi tells parallel edges apart by the `label` XML attribute of `<edge>` (its edge kind)."""
    path, _ = export(nasty_graph(), tmp_path)
    edges = ET.parse(path).getroot().iter(f"{Q}edge")
    kinds = {}
    for edge in edges:
        data = {d.get("key"): d.text for d in edge.iter(f"{Q}data")}
        kinds[edge.get("label")] = kinds.get(edge.get("label"), 0) + 1
        assert edge.get("label") in data.values()    # the same text as the `type` data key
    assert kinds == {"IN_COLLECTION": 2, "MENTIONS": 2, "INTRODUCES": 1, "EVALUATED_ON": 1, "USES": 1}


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("boom")


def test_failed_export_leaves_the_previous_file_and_no_temporary(tmp_path: Path) -> None:
    path, _ = export(small_graph(), tmp_path)
    before = path.read_bytes()
    bad = small_graph()
    bad.nodes[PAPER_A].props["weird"] = _Unprintable()
    with pytest.raises(RuntimeError, match="boom"):
        write_graphml(bad, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.graphml"]


def test_empty_graph(tmp_path: Path) -> None:
    path, counts = export(KnowledgeGraph(), tmp_path)
    assert counts == (0, 0)
    check_structure(path)
    assert igraph.Graph.Read_GraphML(str(path)).vcount() == 0
    assert nx.read_graphml(path).number_of_nodes() == 0
