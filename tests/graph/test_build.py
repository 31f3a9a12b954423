"""Building the example corpus: counts, idempotence, order independence, atomic builds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paperkg.api.build import build
from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.model import (
    EDGE_TYPES,
    ENTITY_LABELS,
    NODE_LABELS,
    RELATION_TYPES,
    RESULT_LINK_LABELS,
    RESULT_LINKS,
    node_key,
)
from paperkg.graph.normalize import compact_key
from paperkg.graph.state import StateWriter
from tests.conftest import EXAMPLES


def _fatal(problem: object) -> None:
    raise AssertionError(str(problem))


def _build(path: Path, *inputs: Path) -> EmbeddedStore:
    for item in inputs:
        build([str(item)], path, _fatal)
    return EmbeddedStore(path)


def _snapshot(store: EmbeddedStore) -> tuple[dict, dict]:
    graph = store.graph()
    return ({k: (n.label, n.props) for k, n in graph.nodes.items()},
            {k: (e.type, e.source, e.target, e.props) for k, e in graph.edges.items()})


def test_seed_counts(seed_store: EmbeddedStore) -> None:
    stats = seed_store.stats()
    assert list(stats["nodes"]) == list(NODE_LABELS)
    assert list(stats["edges"]) == list(EDGE_TYPES)
    assert stats["nodes"]["Paper"] == 250
    assert stats["nodes"]["Collection"] == 2
    assert stats["edges"]["IN_COLLECTION"] == 250
    for label in ("Method", "Model", "Benchmark"):
        assert stats["nodes"][label] >= 10, label
    assert stats["edges"]["MENTIONS"] >= 600
    graph = seed_store.graph()
    sizes = {n.props["name"]: n.props["paper_count"] for n in graph.nodes.values() if n.label == "Collection"}
    assert sizes == {"NeurIPS 2026 Papers": 38, "Daily Papers": 212}


def test_every_edge_joins_existing_nodes_of_the_right_kind(seed_store: EmbeddedStore) -> None:
    graph = seed_store.graph()
    for edge in graph.edges.values():
        source, target = graph.nodes[edge.source], graph.nodes[edge.target]
        if edge.type == "IN_COLLECTION":
            assert (source.label, target.label) == ("Paper", "Collection")
        elif edge.type in ("MENTIONS", "INTRODUCES"):
            assert source.label == "Paper" and target.label in ENTITY_LABELS
        elif edge.type == "REPORTS":
            assert (source.label, target.label) == ("Paper", "Result")
        elif edge.type in RESULT_LINKS.values():
            field = next(f for f, t in RESULT_LINKS.items() if t == edge.type)
            assert source.label == "Result" and target.label in RESULT_LINK_LABELS[field]
        else:
            assert edge.type in RELATION_TYPES
            assert source.label in ENTITY_LABELS and target.label in ENTITY_LABELS
            assert edge.props["support"] == len(edge.props["papers"]) == len(edge.props["evidence"])
    for key, node in graph.nodes.items():
        assert key == node_key(node.label, node.props["id"])


def test_mention_evidence_points_at_the_text(seed_store: EmbeddedStore) -> None:
    graph = seed_store.graph()
    for edge in graph.edges.values():
        if edge.type != "MENTIONS":
            continue
        abstract = graph.nodes[edge.source].props["abstract"]
        p = edge.props
        assert p["count"] == len(p["starts"]) == len(p["ends"]) == len(p["surfaces"]) == len(p["sentences"])
        for start, end, surface in zip(p["starts"], p["ends"], p["surfaces"], strict=True):
            assert abstract[start:end] == surface


def test_rebuilding_the_same_files_changes_nothing(tmp_path: Path, seed_store: EmbeddedStore) -> None:
    store = _build(tmp_path, EXAMPLES, EXAMPLES)
    assert _snapshot(store) == _snapshot(seed_store)


def test_file_by_file_equals_all_at_once(tmp_path: Path, seed_store: EmbeddedStore) -> None:
    files = sorted(EXAMPLES.glob("*.txt"), reverse=True)
    store = _build(tmp_path, *files)
    assert _snapshot(store) == _snapshot(seed_store)


def test_a_failed_build_leaves_the_previous_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = sorted(EXAMPLES.glob("*.txt"))[0]
    before = _snapshot(_build(tmp_path, first))
    derive = StateWriter.derive

    def derive_then_die(self: StateWriter, **kwargs: object) -> object:
        derive(self, **kwargs)      # every row written, not committed
        raise KeyboardInterrupt

    monkeypatch.setattr(StateWriter, "derive", derive_then_die)
    with pytest.raises(KeyboardInterrupt):
        build([str(EXAMPLES)], tmp_path, _fatal)
    monkeypatch.undo()
    assert _snapshot(EmbeddedStore(tmp_path)) == before


@pytest.mark.parametrize("name", ["GRPO", "PPO", "DQN", "D4RL", "ImageNet", "CIFAR-100", "Qwen3-8B",
                                  "LLaMA3.1-8B", "MATH500", "GPT-4o"])
def test_papers_mentioning_a_name_are_the_papers_whose_text_names_it(
        seed_store: EmbeddedStore, name: str) -> None:
    """Including the ones that only write it inside a longer name (`Tiny-ImageNet`, `ImageNet 64x64`);
    names match regardless of case and dashes (`CIFAR100` names CIFAR-100), as lookups do."""
    graph = seed_store.graph()
    body = r"[-\s]?".join(re.escape(part) for part in name.split("-"))
    pattern = re.compile(r"(?<![A-Za-z0-9])" + body + r"(?![A-Za-z0-9])", re.IGNORECASE)
    named = {n.id for n in graph.nodes.values() if n.label == "Paper" and pattern.search(n.props["abstract"])}
    key = compact_key(name)
    entities = {k for k, n in graph.nodes.items() if key in n.props.get("keys", ())}
    mentioning = {graph.nodes[e.source].id for e in graph.edges.values()
                  if e.type == "MENTIONS" and e.target in entities}
    assert named and mentioning == named


def test_query_view_keeps_bulky_text_with_the_store_and_shares_label_sets() -> None:
    """The served networkx view: no abstracts or evidence in it (fetched when a query returns them),
    one `__labels__` set per label, edges keyed by their type."""
    from paperkg.graph.embedded import to_networkx
    from paperkg.graph.model import Edge, KnowledgeGraph, Node

    kg = KnowledgeGraph()
    kg.add_node(Node("Paper", "p1", {"id": "p1", "abstract": "We use GRPO."}))
    kg.add_node(Node("Paper", "p2", {"id": "p2", "abstract": "GRPO again."}))
    kg.add_node(Node("Method", "method:grpo", {"id": "method:grpo", "name": "GRPO"}))
    kg.add_node(Node("Method", "method:ppo", {"id": "method:ppo", "name": "PPO"}))
    kg.add_edge(Edge("MENTIONS", "paper:p1", "method:grpo", {"count": 1}))
    kg.add_edge(Edge("MENTIONS", "paper:p2", "method:grpo", {"count": 1}))
    kg.add_edge(Edge("COMPARED_WITH", "method:grpo", "method:ppo", {"support": 1, "evidence": ["long"]}))
    asked: list[str] = []
    g = to_networkx(kg, abstract_of=lambda pid: asked.append(pid) or f"abstract of {pid}")
    assert "abstract" not in g.nodes["paper:p1"]
    assert "evidence" not in g.edges["method:grpo", "method:ppo", "COMPARED_WITH"]
    assert g.graph["abstract_of"]("p2") == "abstract of p2" and asked == ["p2"]
    assert g.nodes["paper:p1"]["__labels__"] is g.nodes["paper:p2"]["__labels__"] == {"Paper"}
    assert (g.edges["paper:p1", "method:grpo", "MENTIONS"]["__labels__"]
            is g.edges["paper:p2", "method:grpo", "MENTIONS"]["__labels__"])
    assert to_networkx(kg).graph["abstract_of"]("p1") == "We use GRPO."   # default: from the graph


def test_view_read_from_a_store_leaves_mention_lists_there_and_shares_equal_edge_maps(tmp_path: Path) -> None:
    """`EmbeddedStore.networkx`: the same topology and small properties as `to_networkx` of the
    whole graph, MENTIONS without their per-mention lists and papers without sentence offsets
    (`paper_details` reads them back), per-paper edges with equal properties one shared map, and
    edge endpoints the node keys' own string objects."""
    from paperkg.graph.derive import STORED_MENTION_PROPS, STORED_PAPER_PROPS
    from paperkg.graph.embedded import to_networkx
    from paperkg.queries.embedded_impl import Index, paper
    from tests.api.conftest import make_corpus
    from tests.stores import write_corpus

    store = write_corpus(tmp_path, make_corpus())
    try:
        lean, full = store.networkx(), to_networkx(store.graph())

        def small(attrs: dict, drop: frozenset[str]) -> dict:
            return {k: v for k, v in attrs.items() if k not in drop}

        assert list(lean.nodes) == list(full.nodes)
        assert {n: small(a, STORED_PAPER_PROPS) for n, a in lean.nodes(data=True)} == {
            n: small(a, STORED_PAPER_PROPS) for n, a in full.nodes(data=True)}
        relation_lists = frozenset({"papers", "confidences"})
        lean_edges = {(u, v, k): a for u, v, k, a in lean.edges(keys=True, data=True)}
        for u, v, k, attrs in full.edges(keys=True, data=True):
            drop = STORED_MENTION_PROPS if k == "MENTIONS" else relation_lists if k not in (
                "INTRODUCES", "IN_COLLECTION") else frozenset()
            assert lean_edges[u, v, k] == small(attrs, drop), (u, v, k)
        assert len(lean_edges) == full.number_of_edges()
        mentions = [a for (_, _, k), a in lean_edges.items() if k == "MENTIONS"]
        assert not STORED_MENTION_PROPS & mentions[0].keys()
        assert len({id(a) for a in mentions}) < len(mentions)          # equal maps are one object
        keys = {n: n for n in lean.nodes}
        assert all(keys[u] is u and keys[v] is v for u, v in lean.edges())
        lean_index, full_index = Index.build(lean), Index.build(full)
        for node, attrs in full.nodes(data=True):
            if attrs["__labels__"] == {"Paper"}:
                assert paper(lean_index, {"id": attrs["id"]}) == paper(full_index, {"id": attrs["id"]})
                stored = lean.graph["paper_details"](node)[0]
                assert stored.get("sentence_starts") == attrs.get("sentence_starts")
    finally:
        store.close()
