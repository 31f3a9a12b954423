"""The one small interface both stores implement, and how a store is chosen."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from paperkg.graph.corpus import Corpus
from paperkg.graph.model import EDGE_TYPES, NODE_LABELS, KnowledgeGraph

DEFAULT_STORE = "./paperkg-store"


@runtime_checkable
class GraphStore(Protocol):
    kind: str

    def load_corpus(self) -> Corpus:
        """Every paper the store holds, with its extraction (what a new build adds to)."""

    def save(self, corpus: Corpus, graph: KnowledgeGraph) -> None:
        """Replace the stored graph by `graph` (derived from `corpus`); idempotent."""

    def stats(self) -> dict[str, dict[str, int]]:
        """`{"nodes": {label: count}, "edges": {type: count}}` over the closed sets."""

    def export(self) -> KnowledgeGraph:
        """The whole graph as plain data (for GraphML)."""

    def version(self) -> object | None:
        """A token that changes when another process replaces the stored graph, for stores that read
        it once (embedded); None for stores every query reads live (Neo4j)."""

    def close(self) -> None: ...


def empty_stats() -> dict[str, dict[str, int]]:
    return {"nodes": dict.fromkeys(NODE_LABELS, 0), "edges": dict.fromkeys(EDGE_TYPES, 0)}


def graph_stats(graph: KnowledgeGraph) -> dict[str, dict[str, int]]:
    stats = empty_stats()
    for node in graph.nodes.values():
        stats["nodes"][node.label] += 1
    for edge in graph.edges.values():
        stats["edges"][edge.type] += 1
    return stats


def open_store(
    store: str | Path | None = None,
    neo4j_uri: str | None = None,
    neo4j_user: str | None = None,
    neo4j_password: str | None = None,
    neo4j_database: str | None = None,
    *,
    create: bool = False,
) -> GraphStore:
    """Neo4j when a URI is given, else the embedded store directory (created only for builds)."""
    if neo4j_uri:
        from paperkg.graph.neo4j_store import Neo4jStore

        return Neo4jStore(neo4j_uri, neo4j_user, neo4j_password, neo4j_database)
    from paperkg.graph.embedded import EmbeddedStore

    return EmbeddedStore(Path(store or DEFAULT_STORE), create=create)
