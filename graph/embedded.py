"""The embedded store: the graph of a store directory's build state (`graph/state.py`), served from
networkx, no server.

The build state is an SQLite database in WAL mode: this store reads the last committed build as one
snapshot while another process may be building the next, and `version()` (the state's generation)
tells a running server when to load the new one.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import networkx as nx

from paperkg.graph.derive import (
    BULKY_EDGE_PROPS,
    BULKY_NODE_PROPS,
    PER_PAPER_EDGES,
    lean_rows,
)
from paperkg.graph.model import KnowledgeGraph, node_key
from paperkg.graph.state import DB_FILE, QUICK_CHECK_MAX_BYTES, BuildState
from paperkg.graph.store import empty_stats, graph_stats


def to_networkx(graph: KnowledgeGraph,
                abstract_of: Callable[[str], str | None] | None = None) -> nx.MultiDiGraph:
    """The query view: topology and small properties; grand-cypher reads labels and types from a
    `__labels__` set.

    Memory decides the shape (the served graph must fit at 1M abstracts): one `__labels__` set per
    label, shared by every node or edge that carries it (a set each was a third of an edge's
    size), edge keys are the edge type (unique: at most one edge of a type between two nodes) rather
    than the long `edge_id` string, and the bulky text stays with the store: `abstract_of(paper id)`
    (kept as `g.graph["abstract_of"]`) fetches an abstract when a query returns one; by default it
    reads `graph`, for callers that hold the whole graph anyway."""
    if abstract_of is None:
        def abstract_of(pid: str) -> str | None:
            node = graph.nodes.get(node_key("Paper", pid))
            return node.props.get("abstract") if node else None

    g = nx.MultiDiGraph(abstract_of=abstract_of)
    labels: dict[str, set[str]] = {}
    for key, node in graph.nodes.items():
        props = {k: v for k, v in node.props.items() if k not in BULKY_NODE_PROPS}
        g.add_node(key, **props, __labels__=labels.setdefault(node.label, {node.label}))
    for edge in graph.edges.values():
        props = {k: v for k, v in edge.props.items() if k not in BULKY_EDGE_PROPS}
        g.add_edge(edge.source, edge.target, key=edge.type, **props,
                   __labels__=labels.setdefault(edge.type, {edge.type}))
    return g


def lean_networkx(db: sqlite3.Connection, state: BuildState
                  ) -> tuple[nx.MultiDiGraph, dict[str, dict[str, int]]]:
    """The served view of the state's rows (`derive.lean_rows`), streamed from `db` with no
    `KnowledgeGraph` in between (which held a second copy of every node and edge at the peak), and
    the stats of what was read: `to_networkx`'s shape without `derive.STORED_PAPER_PROPS` and
    `STORED_MENTION_PROPS`, which `g.graph["paper_details"]` (`BuildState.paper_details`) reads."""
    g = nx.MultiDiGraph(abstract_of=state.abstract, paper_details=state.paper_details)
    labels: dict[str, set[str]] = {}
    stats = empty_stats()
    nodes, edges = lean_rows(db)
    canonical: dict[str, str] = {}
    for key, label, props in nodes:
        props["__labels__"] = labels.setdefault(label, {label})
        g.add_node(key, **props)
        canonical[key] = key
        stats["nodes"][label] += 1
    # Memory, again: an edge row names its endpoints with strings of its own (two per edge, ~140
    # bytes), so the view's adjacency uses the node keys' own objects; and the per-paper edges
    # (MENTIONS, INTRODUCES, IN_COLLECTION) mostly carry one of a few thousand distinct property
    # maps (`{count: 1, confidence: 1.0}`), which `lean_rows` hands over as one shared, read-only
    # dict each. That is why they are put into networkx's adjacency directly: `add_edge` copies the
    # map it is given.
    succ, pred = g._succ, g._pred
    for etype, source, target, props in edges:
        stats["edges"][etype] += 1
        u, v = canonical.get(source, source), canonical.get(target, target)
        props["__labels__"] = labels.setdefault(etype, {etype})   # the same set for a shared map
        if etype not in PER_PAPER_EDGES or u not in succ or v not in succ:
            g.add_edge(u, v, key=etype, **props)
            continue
        keydict = succ[u].get(v)
        if keydict is None:
            keydict = succ[u][v] = pred[v][u] = {}
        keydict[etype] = props
    nx._clear_cache(g)
    return g, stats


# The tables the served view and its lookups read (`lean_rows`, `BuildState.paper_details`,
# `abstract`, `stats`, `generation`): a store too big to check whole on open has these checked
# when `networkx` loads them; the papers' extractions and the aggregates are for builds.
VIEW_TABLES = ("nodes", "edges", "meta", "counts")


class EmbeddedStore:
    kind = "embedded"

    def __init__(self, path: Path, *, create: bool = False) -> None:
        self.path = Path(path)
        self.state = BuildState(self.path, create=create)
        # Integrity is checked on open where that is cheap, else the view's tables when the graph
        # is loaded (which reads them whole anyway): `BuildState.verify`, `QUICK_CHECK_MAX_BYTES`.
        self._verified = False
        if self.state.size() <= QUICK_CHECK_MAX_BYTES:
            self._verify()
        self._graph: KnowledgeGraph | None = None
        self._nx: nx.MultiDiGraph | None = None
        self._stats: dict[str, dict[str, int]] | None = None

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
        """The whole graph, abstracts and relation evidence included (exports, tests)."""
        if self._graph is None:
            self._graph = self.state.graph()
        return self._graph

    def networkx(self) -> nx.MultiDiGraph:
        """The served view, read lean from the state: topology and small properties in memory,
        abstracts fetched from SQLite when a query returns one (`g.graph["abstract_of"]`), relation
        evidence only in exports. A 1M-abstract store must be served in a few GB."""
        if self._nx is None:
            self._verify(VIEW_TABLES)
            with self.state.snapshot() as db:
                self._nx, self._stats = lean_networkx(db, self.state)
        return self._nx

    def _verify(self, tables: tuple[str, ...] = ()) -> None:
        if not self._verified:
            self.state.verify(tables)
            self._verified = True

    def stats(self) -> dict[str, dict[str, int]]:
        """Counts of the graph this object serves (the one loaded, if any), else of the state now."""
        if self._graph is not None:
            return graph_stats(self._graph)
        return self._stats if self._stats is not None else self.state.stats()

    def export(self) -> KnowledgeGraph:
        return self.graph()

    def close(self) -> None:
        self._graph, self._nx, self._stats = None, None, None
        self.state.close()
