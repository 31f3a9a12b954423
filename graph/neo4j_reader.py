"""The Neo4j store's reads of the graph itself: counts per label and type, an entity's name, and the
whole graph exported as the `KnowledgeGraph` that was saved."""

from __future__ import annotations

import neo4j

from paperkg.graph.model import EDGE_TYPES, NODE_LABELS, Edge, KnowledgeGraph, Node, node_key
from paperkg.graph.neo4j_cypher import STORE_ONLY_PROPS, render, statement
from paperkg.graph.neo4j_lease import Neo4jLease
from paperkg.graph.neo4j_rows import _label_of
from paperkg.graph.store import empty_stats


class Neo4jReader(Neo4jLease):
    """Graph reads of `Neo4jStore`."""

    @staticmethod
    def _count_all(tx: neo4j.ManagedTransaction) -> dict[str, dict[str, int]]:
        """Per-label and per-type counts (from Neo4j's count store: constant time)."""
        stats = empty_stats()
        for label in NODE_LABELS:
            stats["nodes"][label] = int(tx.run(render("count_nodes", label=label)).single(strict=True)[0])
        for etype in EDGE_TYPES:
            stats["edges"][etype] = int(tx.run(render("count_edges", type=etype)).single(strict=True)[0])
        return stats

    def stats(self) -> dict[str, dict[str, int]]:
        self.require_complete()
        return self._read(self._count_all, "counting the graph")

    def entity_name(self, entity_id: str) -> str | None:
        def work(tx: neo4j.ManagedTransaction) -> str | None:
            record = tx.run(statement("entity_name"), id=entity_id).single()
            return None if record is None else record["name"]

        return self._read(work, "looking up an entity")

    def export(self) -> KnowledgeGraph:
        """The stored graph as the `KnowledgeGraph` that was saved (the STORE_ONLY_PROPS dropped), nodes
        in key order and edges in id order like a fresh build."""
        self.require_complete()

        def work(tx: neo4j.ManagedTransaction) -> KnowledgeGraph:
            nodes: list[Node] = []
            for label in NODE_LABELS:
                for record in tx.run(render("export_nodes", label=label)):
                    props = dict(record["props"])
                    for name in STORE_ONLY_PROPS.get(label, ()):
                        props.pop(name, None)
                    nodes.append(Node(label, record["id"], props))
            edges: list[Edge] = []
            for etype in EDGE_TYPES:
                for record in tx.run(render("export_edges", type=etype)):
                    slabel = _label_of(record["source_labels"])
                    tlabel = _label_of(record["target_labels"])
                    if slabel is None or tlabel is None:
                        continue  # not between paperkg nodes: not part of the graph
                    edges.append(Edge(etype, node_key(slabel, record["source"]),
                                      node_key(tlabel, record["target"]), dict(record["props"])))
            graph = KnowledgeGraph()
            for node in sorted(nodes, key=lambda n: n.key):
                graph.add_node(node)
            for edge in sorted(edges, key=lambda e: e.id):
                graph.add_edge(edge)
            return graph

        return self._read(work, "exporting the graph")
