"""The Neo4j store: the same `GraphStore` interface as the embedded store, on a user's Neo4j server,
kept in step with the build state by deltas (`GraphWriter`: `apply`, `synced_generation`).

One module per job, composed here (as the embedded side splits state, derive and store):
`neo4j_connection` (driver, error mapping, deadlines, write retries), `neo4j_cypher` (statement files
and their placeholders), `neo4j_schema` (constraints and indexes), `neo4j_lease` (save marker, build
lease, health), `neo4j_rows` (a delta as checked statement rows), `neo4j_delta` (delta saves),
`neo4j_full` (full saves), `neo4j_figure_writer` (the precomputed figures; their arithmetic is
`neo4j_figures`), `neo4j_reader` (counts, names, export) and `neo4j_queries` (catalog and user Cypher).

Design, and why:

- **One statement file per operation** (`graph/*.cypher`). Labels and relationship types cannot be
  Cypher parameters, so the files carry `{label}` / `{type}` / `{source_label}` / `{target_label}`
  placeholders that are filled only from the closed sets in `graph/model.py`, after a check, never
  from user text.
- **Neo4j as its users expect it.** Domain nodes carry the graph model's properties and nothing
  else; every entity also has the shared label `Entity`; Papers have a `caption` (title, else id)
  for Neo4j Browser, and entities `keys_text` (their keys joined, what the trigram TEXT index that
  answers entity_search holds); user Cypher returns nodes without those two. What the store needs
  for itself lives on internal nodes never connected to the graph: `PaperkgMeta` (the save marker
  and the build lease), `PaperkgCo` and `PaperkgFigures` (see below).
- **Saves write the change.** A build hands `apply` a `GraphDelta`: the nodes and relationships that
  are new or changed (whole: `SET x = row.props`), and what went stale. Upserts go first (nodes, then
  relationships), deletions last, so a reader never misses something both graphs hold. A delta of
  up to `ATOMIC_ROWS` rows (adding a few hundred abstracts) is one transaction: readers see the old
  graph or the new one. Adding 100 abstracts to a database of 100k therefore writes about what adding
  them to an empty one writes.
- **A full save** (`delta.full`: first build into a database, or one not in step) writes every node
  and relationship. Into a database holding no paperkg node it CREATEs instead of MERGEs, in batches
  of `batch_size` rows on `workers` concurrent sessions: the nodes first, each batch returning its
  nodes' element ids, then the relationships, whose endpoints are found by element id (a direct
  record read, not an index seek); relationship batches are partitioned by source node (no two
  concurrent batches share one) with each batch's targets sorted, so batches wait for each other's
  locks in one order and never deadlock. Into a database holding another
  graph it MERGEs and then deletes whatever the graph does not have (found by reading stored keys
  only for labels/types whose count differs: after the upserts equal counts prove nothing is stale).
- **Serialised builds, no half graph taken for whole.** `apply` holds a lease in the database (a
  `PaperkgMeta` node with a uniqueness-constrained id, taken with MERGE, renewed by a heartbeat,
  expiring `lease_ttl` s after its holder dies), so builds from any machine and any `--store`
  directory write one at a time; the others wait, saying so. A save that is not one transaction first
  marks the database "writing" (`build_status`), and records the delta's generation last, in the
  transaction of its last writes; a killed save leaves the marker at "writing"/"interrupted", the old
  generation recorded, and the next build (seeing the database not in step) repairs it with a full
  save.
- **Precomputed figures.** `cooccurring` and `introduced_in` would otherwise walk every co-mention of
  a popular entity (90k relationships at 100k abstracts) or every introduction of a large collection
  on each call. A full save computes them in Neo4j (`figures_co.cypher`, `figures_intro.cypher`):
  one `PaperkgCo` node per kept co-mention (an entity's list as one property would be rewritten
  whole by every change that touches it), one `PaperkgFigures` node per collection. A delta changes
  them by the difference it makes (`graph/neo4j_figures.py`: what the changed papers mentioned,
  introduced and belonged to before and after the write), in the same transaction as the delta when
  it is one, so its cost follows the change, not the popularity of the entities it touches; only a
  shrinking entry or a rename near a list's cut recomputes that one entity's or collection's figures
  from the graph.
- **Bounded.** Connection attempts give up after `connection_timeout` (3 s) and reads retry for at
  most `READ_RETRY_TIME`, so a stopped server is answered in seconds; every read runs with a server
  timeout and a client deadline (timeout + `DEADLINE_GRACE`), so a frozen server costs a request its
  timeout; `ping` answers whether the database can be read at all. Writes retry deadlocks and other
  transient errors for `WRITE_RETRY_TIME`.
- **Ids.** Neo4j nodes carry the model's unprefixed `id`; relationships are matched by endpoint label
  and id. The embedded store's node keys (`paper:<id>` for papers, see `model.node_key`) are rebuilt
  on export, so `export()` returns the very `KnowledgeGraph` that was saved and GraphML is the same
  from both stores.
- **Failures are one line.** An unreachable server, wrong credentials or a missing database become
  `StoreUnavailableError` (exit 69, HTTP 503) with the URI and what to do; Cypher errors in user
  queries become `BadInputError` with Neo4j's message; a query over the server's memory limit per
  transaction says so.
"""

from __future__ import annotations

import concurrent.futures
import threading
import uuid
from collections.abc import Callable

import neo4j

from paperkg.graph.cypher_guard import DEFAULT_TIMEOUT
from paperkg.graph.errors import (
    StoreUnavailableError,
    UsageError,
)
from paperkg.graph.model import KnowledgeGraph
from paperkg.graph.neo4j_connection import CONNECTION_TIMEOUT
from paperkg.graph.neo4j_full import Neo4jFullWriter
from paperkg.graph.neo4j_lease import LEASE_TTL, Meta, _other_source
from paperkg.graph.neo4j_queries import Neo4jQueries
from paperkg.graph.neo4j_rows import plan_delta
from paperkg.graph.secrets import register_secret, split_credentials
from paperkg.graph.store import GraphDelta, collector_paused

# Rows per write transaction: measured in benchmarks/neo4j_load.py (see benchmarks/README.md).
DEFAULT_BATCH_SIZE = 10000
# Concurrent sessions for the relationships of a full save into an empty database.
DEFAULT_WORKERS = 2


class Neo4jStore(Neo4jQueries, Neo4jFullWriter):
    """`GraphStore` and `GraphWriter` on a Neo4j server (5.x, Community or Enterprise, no plugins)."""

    kind = "neo4j"

    def __init__(self, uri: str, user: str | None = None, password: str | None = None,
                 database: str | None = None, batch_size: int = DEFAULT_BATCH_SIZE, *,
                 connection_timeout: float = CONNECTION_TIMEOUT, query_timeout: float = DEFAULT_TIMEOUT,
                 workers: int = DEFAULT_WORKERS, lease_ttl: float = LEASE_TTL,
                 on_wait: Callable[[str], None] | None = None, replace_other: bool = False) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        # Credentials written into the URI are taken out of it (the driver gets them as auth), so
        # `self.uri`, which every message shows, never carries a password (see `graph.secrets`).
        uri, uri_user, uri_password = split_credentials(uri)
        register_secret(password)
        self.uri = uri
        self.user = user if user is not None else uri_user
        self._password = password if password is not None else uri_password
        self.database = database or None
        self.batch_size = batch_size
        self.connection_timeout = connection_timeout
        self.query_timeout = query_timeout
        self.workers = max(1, workers)
        self.lease_ttl = lease_ttl
        self.on_wait = on_wait
        # Whether a full save may replace a graph that another build state (--store) wrote.
        self.replace_other = replace_other
        self._source: tuple[str | None, str | None] = (None, None)   # the applying delta's source
        self._driver: neo4j.Driver | None = None
        self._ready = False
        self._lock = threading.Lock()
        self._schema_ok = False            # every index of schema.cypher seen online (see ensure_ready)
        self._complete_until = 0.0         # until when the graph is known complete (`require_complete`)
        self._columns: dict[str, tuple[str, ...]] = {}   # catalog Cypher -> its columns (run_catalog)
        self._schema_lock = threading.Lock()
        self._lease_owner: str | None = None
        self._lease_depth = 0
        self._lease_lost = False
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None

    def __enter__(self) -> Neo4jStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def apply(self, delta: GraphDelta) -> None:
        """Make the stored graph the old one changed by `delta` (exactly the delta's graph when
        `delta.full`) and record `delta.generation`, last, once all of it is written. A delta that
        is not full applies only to the generation it was made from (`delta.base`); otherwise this
        raises StoreUnavailableError and the next build sends a full one. Idempotent: a killed
        apply is repaired by the next build. The delta is checked before anything is sent."""
        with collector_paused():
            self._apply(delta)

    def _apply(self, delta: GraphDelta) -> None:
        plan = plan_delta(delta)
        self._connect()
        with self.lease():
            meta = self._meta()
            if not delta.full and not self._in_step(meta, delta.base):
                raise StoreUnavailableError(
                    f"Neo4j at {self.uri} does not hold the graph this build's change applies to "
                    f"(it holds {meta.generation or 'no recorded save'}"
                    f"{', with a save interrupted' if meta.status == 'writing' else ''}; the change "
                    f"is from {delta.base or 'an empty graph'})",
                    "run the build again: it then rewrites the whole graph")
            if delta.full and not self.replace_other and _other_source(meta, delta):
                raise UsageError(
                    f"Neo4j at {self.uri}{f' (database {self.database})' if self.database else ''} holds "
                    f"the graph of another build state ({meta.source_name or meta.source}), not of this "
                    f"one ({delta.source_name or delta.source}); this build would replace that graph "
                    "with its own, and the papers only the other state holds would go",
                    "build with the --store directory that graph came from, or into another database "
                    "(--neo4j-database); pass --replace-neo4j-graph to replace it on purpose")
            self._source = (delta.source, delta.source_name)
            self.ensure_schema()
            with self._errors("saving the graph"), self._session() as session:
                if delta.full:
                    self._apply_full(session, plan, delta.generation)
                else:
                    self._apply_change(session, plan, delta.generation)

    def _in_step(self, meta: Meta, base: str | None) -> bool:
        if meta.status is not None:
            return meta.synced is not None and meta.synced == base
        # No save recorded: only an empty database is the empty graph a first delta starts from.
        counts = self._read(self._count_all, "counting the graph")
        return base is None and not any(counts["nodes"].values())

    def save_graph(self, graph: KnowledgeGraph, generation: str | None = None) -> None:
        """A full save of `graph` (every node and relationship; whatever else paperkg stored goes)."""
        self.apply(GraphDelta(nodes=list(graph.nodes.values()), edges=list(graph.edges.values()),
                              generation=generation or uuid.uuid4().hex, full=True))
