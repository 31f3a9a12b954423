"""The one small interface both stores implement, and how a store is chosen."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from paperkg.graph.model import EDGE_TYPES, NODE_LABELS, Edge, KnowledgeGraph, Node

if TYPE_CHECKING:
    import networkx as nx

DEFAULT_STORE = "./paperkg-store"


@runtime_checkable
class CypherEngine(Protocol):
    """A store that answers Cypher itself (Neo4j): the query runner hands it the catalog's text."""

    def run_catalog(self, cypher: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Rows of one catalog query (trusted Cypher, `$params` only), in the query's order."""

    def run_user_cypher(self, text: str, params: Mapping[str, Any], *, max_rows: int | None = None
                        ) -> list[dict[str, Any]]:
        """Rows of a user's read-only Cypher, through the store's guard; at most `max_rows`."""

    def ensure_ready(self) -> None:
        """Check (and create) what the catalog relies on, e.g. indexes, before the first query."""


@runtime_checkable
class GraphView(Protocol):
    """A store that holds its graph in this process (embedded): the query runner answers with
    Python over the networkx view (`queries.embedded_impl`), since `graph/` cannot import the
    query layer."""

    def networkx(self) -> nx.MultiDiGraph:
        """The graph as networkx: nodes and edges with their properties and `__labels__`."""


@runtime_checkable
class GraphStore(Protocol):
    """What every store offers. To answer queries a store is also a `CypherEngine` or a `GraphView`;
    the query runner picks its backend by which one (`queries.runner.backend_for`)."""

    kind: str       # shown to users (`/health`): "embedded", "neo4j"

    def stats(self) -> dict[str, dict[str, int]]:
        """`{"nodes": {label: count}, "edges": {type: count}}` over the closed sets."""

    def export(self) -> KnowledgeGraph:
        """The whole graph as plain data (for GraphML)."""

    def entity_name(self, entity_id: str) -> str | None:
        """The name of the entity with id `entity_id`, None when there is none. Catalog queries find
        entities by name; an id's name part is lossy (`pass@1` is `metric:pass-1-6bd3e648`)."""

    def version(self) -> object | None:
        """A token that changes when another process replaces the stored graph, for stores that read
        it once (embedded); None for stores every query reads live (Neo4j)."""

    def close(self) -> None: ...


@dataclass
class GraphDelta:
    """What one build changed in the derived graph, for a store that holds a copy of it (Neo4j).

    The build state (`graph/state.py`, SQLite in the store directory) derives the graph and knows
    what it held before; a build hands the target only the difference, so adding 100 papers to a
    database of 100k writes about what adding them to an empty one writes.

    - `nodes` / `edges`: every node and edge that is new or whose properties changed, whole (all
      properties: `SET n = props` is right).
    - `deleted_nodes` / `deleted_edges`: what the graph no longer has (props empty; label + id and
      type + endpoint keys identify them). Apply upserts first (nodes, then edges), deletions last,
      so a reader never misses something both the old and the new graph hold.
    - `generation`: the state generation the target holds after applying; `base`: the one it must
      hold before. When the target's recorded generation is not `base` (first build into this
      database, a save killed half-way, a database written from another state), the build sends a
      `full` delta instead: every node and edge, and the target deletes whatever else it holds.
    - `source`: the identity of the build state the delta comes from (a random id the store
      directory keeps), and `source_name` where that is (host and directory), for a target to tell
      a build of another state from its own out of step (it refuses to replace that graph unless told).
    """

    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    deleted_nodes: list[Node] = field(default_factory=list)
    deleted_edges: list[Edge] = field(default_factory=list)
    generation: str = ""
    base: str | None = None
    full: bool = False
    source: str | None = None
    source_name: str | None = None

    def __bool__(self) -> bool:
        return bool(self.full or self.nodes or self.edges or self.deleted_nodes or self.deleted_edges)


@runtime_checkable
class GraphWriter(Protocol):
    """A store that keeps its own copy of the graph (Neo4j) and is kept in step by deltas."""

    def synced_generation(self) -> str | None:
        """The `GraphDelta.generation` last applied completely (None: never, or unknown)."""

    def apply(self, delta: GraphDelta) -> None:
        """Make the stored graph the old one changed by `delta` (exactly the delta's nodes and
        edges when `delta.full`), recording `delta.generation` last, only once all of it is written;
        idempotent, so a killed apply is repaired by applying again."""


_pauses = 0                      # loads in progress with the cyclic collector paused
_pauses_lock = threading.Lock()
_was_enabled = True
_keep = False                    # some load in progress made what the process keeps


@contextlib.contextmanager
def collector_paused(*, keep: bool = False) -> Iterator[None]:
    """The cyclic garbage collector off for a bulk load or save (a served view, a Neo4j save). Why:
    such work makes millions of small dicts, lists and tuples while all of them stay alive, and every
    automatic collection walks them all (the 100k index took 15.5 s with it on, 9.2 s off; a full
    Neo4j save's rows 12 s against 5 s); they hold no cycles, so nothing waits for the collector.
    Such work may overlap in threads (a reload while the view for Cypher is built), so the collector
    comes back when the last one ends, and only if it was on before the first.

    `keep`: what the work made lives on (a served graph, its index). It is frozen (`gc.freeze`)
    before the collector comes back, because the first collection after a pause walks every object
    made during it: 10 s after a 1M-abstract index was built. Reference counting still frees frozen
    objects; only a reference cycle among them would stay for good, which such data has none of."""
    global _pauses, _was_enabled, _keep
    with _pauses_lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
        _keep = _keep or keep
    try:
        yield
    finally:
        with _pauses_lock:
            _pauses -= 1
            if _pauses == 0:
                if _keep:
                    gc.freeze()
                    _keep = False
                if _was_enabled:
                    gc.enable()


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
