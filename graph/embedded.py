"""The embedded store: the graph of a store directory's build state (`graph/state.py`), served from
networkx, no server.

The build state is an SQLite database in WAL mode: this store reads the last committed build as one
snapshot while another process may be building the next, and `version()` (the state's generation)
tells a running server when to load the new one.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import networkx as nx

from paperkg.graph.derive import (
    BULKY_EDGE_PROPS,
    BULKY_NODE_PROPS,
    PER_PAPER_EDGES,
    lean_rows,
)
from paperkg.graph.errors import StoreUnavailableError
from paperkg.graph.model import KnowledgeGraph, node_key
from paperkg.graph.state import DB_FILE, QUICK_CHECK_MAX_BYTES, BuildState, read_generation
from paperkg.graph.store import collector_paused, empty_stats, graph_stats


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
    rows = ViewRows(db)
    return view_networkx(sorted(rows.nodes()), rows.edges(), state), rows.stats


class ViewRows:
    """The served view's rows of one snapshot (`derive.lean_rows`), in the shape both consumers
    keep: the catalog's index (`queries.embedded_impl.Index.from_rows`) and the networkx view.

    Memory decides the shape (the served graph must fit at 1M abstracts). `nodes()` yields each
    node's small props with its `__labels__` set (one set per label, shared), and keeps them in
    `props` so a networkx view built later holds the same dicts, not copies. `edges()` names the
    endpoints with the node keys' own string objects (an edge row's strings would be two more
    objects per edge, ~140 bytes), and the per-paper edges (MENTIONS, INTRODUCES, IN_COLLECTION)
    mostly carry one of a few thousand distinct property maps (`{count: 1, confidence: 1.0}`),
    which come as one shared, read-only dict each."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._rows = lean_rows(db)
        self.labels: dict[str, set[str]] = {}
        self.props: dict[str, dict] = {}
        self.stats = empty_stats()
        self.generation: str | None = None      # of the snapshot read (`EmbeddedStore.view_rows`)

    def nodes(self) -> Iterator[tuple[str, str, dict]]:
        """(key, label, props) of every node, in the table's order (`lean_rows`); read once."""
        labels, props_of, counts = self.labels, self.props, self.stats["nodes"]
        for key, label, props in self._rows[0]:
            props["__labels__"] = labels.get(label) or labels.setdefault(label, {label})
            props_of[key] = props
            counts[label] += 1
            yield key, label, props

    def edges(self) -> Iterator[tuple[str, str, str, dict]]:
        """(type, source, target, props) of every edge, in id order, after `nodes()`; read once."""
        return _named_edges(self._rows[1], self.props, self.labels, self.stats["edges"])


def _named_edges(rows: Iterable[tuple[str, str, str, dict]], props_of: dict[str, dict],
                 labels: dict[str, set[str]], counts: Counter) -> Iterator[tuple[str, str, str, dict]]:
    """`rows` (edges of `lean_rows`) with their ends named by the keys of `props_of` (the nodes' own
    key objects), each props map given its type's `__labels__` set, and counted in `counts`."""
    canonical = {key: key for key in props_of}
    for etype, source, target, props in rows:
        counts[etype] += 1
        # the same set for a shared map, made once per type
        props["__labels__"] = labels.get(etype) or labels.setdefault(etype, {etype})
        yield etype, canonical.get(source, source), canonical.get(target, target), props


def view_networkx(nodes: Iterable[tuple[str, str, dict]], edges: Iterable[tuple[str, str, str, dict]],
                  state: BuildState) -> nx.MultiDiGraph:
    """The networkx view of `ViewRows` (nodes given in key order, which is the view's node order): node
    and per-paper edge props go into networkx's dicts as they are (`add_node`/`add_edge` copy the
    map they are given), so the view shares them with whatever else holds those rows."""
    g = nx.MultiDiGraph(abstract_of=state.abstract, paper_details=state.paper_details)
    node, succ, pred = g._node, g._succ, g._pred
    for key, _label, props in nodes:
        node[key] = props
        succ[key] = {}
        pred[key] = {}
    for etype, u, v, props in edges:
        if etype not in PER_PAPER_EDGES or u not in succ or v not in succ:
            g.add_edge(u, v, key=etype, **props)
            continue
        keydict = succ[u].get(v)
        if keydict is None:
            keydict = succ[u][v] = pred[v][u] = {}
        keydict[etype] = props
    nx._clear_cache(g)
    return g


# The tables the served view and its lookups read (`lean_rows`, `BuildState.paper_details`,
# `abstract`, `stats`, `generation`): a store too big to check whole on open has these checked
# when `networkx` loads them; the papers' extractions and the aggregates are for builds.
VIEW_TABLES = ("nodes", "edges", "meta", "counts")


class EmbeddedStore:
    kind = "embedded"

    def __init__(self, path: Path, *, create: bool = False) -> None:
        self.path = Path(path)
        # a store opened to read is opened read-only (it then answers on a read-only mount)
        self.state = BuildState(self.path, create=create, read_only=not create)
        # Integrity is checked on open where that is cheap, else the view's tables when the graph
        # is loaded (which reads them whole anyway): `BuildState.verify`, `QUICK_CHECK_MAX_BYTES`.
        self._verified = False
        if self.state.size() <= QUICK_CHECK_MAX_BYTES:
            self._verify()
        self._graph: KnowledgeGraph | None = None
        self._nx: nx.MultiDiGraph | None = None
        self._nx_lock = threading.Lock()
        # the node props of the index loaded first (`view_rows`, `share_props`), which a networkx view
        # built later shares, and the build they are of
        self._props: dict[str, dict] | None = None
        self._labels: dict[str, set[str]] = {}
        self._props_generation: str | None = None
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

    def entity_name(self, entity_id: str) -> str | None:
        return self.state.entity_name(entity_id)

    def graph(self) -> KnowledgeGraph:
        """The whole graph, abstracts and relation evidence included (exports, tests)."""
        if self._graph is None:
            self._graph = self.state.graph()
        return self._graph

    def networkx(self) -> nx.MultiDiGraph:
        """The served view, read lean from the state: topology and small properties in memory,
        abstracts fetched from SQLite when a query returns one (`g.graph["abstract_of"]`), relation
        evidence only in exports. A 1M-abstract store must be served in a few GB.

        After `view_rows` (the catalog's index: `paperkg serve` is ready once that is built, and
        builds this, which only user Cypher reads, afterwards) the view holds the node props those
        rows yielded and must be of the same build: when the store was rebuilt in between, this
        raises StoreUnavailableError rather than answer from a mix of two builds (a server reloads the
        new build meanwhile)."""
        with self._nx_lock:
            if self._nx is None:
                with self._checking(VIEW_TABLES), self.state.reader() as db, \
                        collector_paused(keep=True):
                    props = self._props
                    if props is None:
                        self._nx, self._stats = lean_networkx(db, self.state)
                    else:
                        if read_generation(db) != self._props_generation:
                            raise StoreUnavailableError(
                                f"the store {self.path} was rebuilt after its graph was loaded",
                                "retry: a server loads the new build by itself; a program opens "
                                "the store again")
                        nodes = ((key, "", props[key]) for key in sorted(props))
                        edges = _named_edges(lean_rows(db)[1], props, self._labels, Counter())
                        self._nx = view_networkx(nodes, edges, self.state)
            return self._nx

    def networkx_loaded(self) -> nx.MultiDiGraph | None:
        """The networkx view if it has been built, without building it."""
        return self._nx

    @contextlib.contextmanager
    def view_rows(self) -> Iterator[ViewRows]:
        """The served view's rows, streamed from one snapshot (nodes, then edges), for a consumer
        that keeps its own shape of them: the catalog's index needs no networkx graph, and building
        one was half of a big store's start. Integrity of the tables read is checked meanwhile."""
        with self._checking(VIEW_TABLES), self.state.reader() as db, collector_paused(keep=True):
            rows = ViewRows(db)
            rows.generation = read_generation(db)
            yield rows
        self._props, self._labels, self._props_generation = rows.props, rows.labels, rows.generation
        self._stats = rows.stats

    def share_props(self, props: dict[str, dict], generation: str) -> None:
        """The node props (each with its `__labels__` set) of a catalog index of build `generation`
        that was not read from `view_rows` (`queries.index_snapshot`, saved by the build): the
        networkx view built afterwards holds these dicts, and refuses another build's rows."""
        self._props, self._labels, self._props_generation = props, {}, generation
        stats = self.state.stats()
        if self.state.generation() == generation:       # else a rebuild came between: counted live
            self._stats = stats

    def lookups(self) -> dict[str, Callable]:
        """What the served view leaves in SQLite, read per request: `abstract_of(paper id)` and
        `paper_details(paper key)` (the networkx view carries them as `g.graph[...]`)."""
        return {"abstract_of": self.state.abstract, "paper_details": self.state.paper_details}

    def _verify(self, tables: tuple[str, ...] = ()) -> None:
        if not self._verified:
            self.state.verify(tables)
            self._verified = True

    @contextlib.contextmanager
    def _checking(self, tables: tuple[str, ...]) -> Iterator[None]:
        """`tables` checked (`_verify`) on a thread of their own while the caller reads them, and
        StoreCorruptError raised at the end when they are damaged, also when reading them failed
        first (then with that failure as the cause). SQLite checks without Python's lock, so on a
        second core the check takes no time off the load: it was 12 s of a 1M store's start."""
        if self._verified:
            yield
            return
        failed: list[BaseException] = []

        def check() -> None:
            try:
                self._verify(tables)
            except BaseException as err:     # re-raised in the loading thread below
                failed.append(err)

        thread = threading.Thread(target=check, name="paperkg-check", daemon=True)
        thread.start()
        try:
            yield
        except BaseException as err:
            thread.join()
            if failed:
                raise failed[0] from err
            raise
        thread.join()
        if failed:
            raise failed[0]

    def stats(self) -> dict[str, dict[str, int]]:
        """Counts of the graph this object serves (the one loaded, if any), else of the state now."""
        if self._graph is not None:
            return graph_stats(self._graph)
        return self._stats if self._stats is not None else self.state.stats()

    def export(self) -> KnowledgeGraph:
        return self.graph()

    def close(self) -> None:
        self._graph, self._nx, self._stats, self._props = None, None, None, None
        self.state.close()
