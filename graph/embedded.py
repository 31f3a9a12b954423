"""The embedded store: the graph of a store directory's build state (`graph/state.py`), served from
networkx, no server.

The build state is an SQLite database in WAL mode: this store reads the last committed build as one
snapshot while another process may be building the next, and `version()` (the state's generation)
tells a running server when to load the new one.
"""

from __future__ import annotations

import os
from pathlib import Path

import networkx as nx

from paperkg.graph.model import KnowledgeGraph
from paperkg.graph.state import DB_FILE, BuildState
from paperkg.graph.store import graph_stats


def to_networkx(graph: KnowledgeGraph) -> nx.MultiDiGraph:
    """The query view: grand-cypher reads labels and types from a `__labels__` set."""
    g = nx.MultiDiGraph()
    for key, node in graph.nodes.items():
        g.add_node(key, **node.props, __labels__={node.label})
    for eid, edge in graph.edges.items():
        g.add_edge(edge.source, edge.target, key=eid, **edge.props, __labels__={edge.type})
    return g


class EmbeddedStore:
    kind = "embedded"

    def __init__(self, path: Path, *, create: bool = False) -> None:
        self.path = Path(path)
        self.state = BuildState(self.path, create=create)
        self._graph: KnowledgeGraph | None = None
        self._nx: nx.MultiDiGraph | None = None

    def version(self) -> tuple[int, str | None] | None:
        """Identity of the committed build now (the database file, and the state's generation, which
        changes with every build that changed something): how a running server notices a rebuild,
        in place or into a directory made anew (`api.deps`)."""
        try:
            inode = os.stat(self.path / DB_FILE).st_ino
        except FileNotFoundError:
            return None
        return (inode, self.state.generation())

    def graph(self) -> KnowledgeGraph:
        if self._graph is None:
            self._graph = self.state.graph()
        return self._graph

    def networkx(self) -> nx.MultiDiGraph:
        if self._nx is None:
            self._nx = to_networkx(self.graph())
        return self._nx

    def stats(self) -> dict[str, dict[str, int]]:
        """Counts of the graph this object serves (the one loaded, if any), else of the state now."""
        return graph_stats(self._graph) if self._graph is not None else self.state.stats()

    def export(self) -> KnowledgeGraph:
        return self.graph()

    def close(self) -> None:
        self._graph, self._nx = None, None
        self.state.close()
