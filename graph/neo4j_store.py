"""The Neo4j store: the same `GraphStore` interface as the embedded store, on a user's Neo4j server,
kept in step with the build state by deltas (`GraphWriter`: `apply`, `synced_generation`).

Design, and why:

- **One statement file per operation** (`graph/*.cypher`). Labels and relationship types cannot be
  Cypher parameters, so the files carry `{label}` / `{type}` / `{source_label}` / `{target_label}`
  placeholders that are filled only from the closed sets in `graph/model.py`, after a check, never
  from user text.
- **Neo4j as its users expect it.** Domain nodes carry the graph model's properties and nothing
  else; every entity also has the shared label `Entity`; Papers have a `caption` (title, else id)
  for Neo4j Browser. What the store needs for itself lives on internal nodes never connected to the
  graph: `PaperkgMeta` (the save marker and the build lease), `PaperkgCo` and `PaperkgFigures`
  (see below).
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
import contextlib
import itertools
import os
import re
import socket
import threading
import time
import uuid
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, TypeVar

import neo4j
from neo4j import GraphDatabase
from neo4j import exceptions as nex
from neo4j.graph import Node as NeoNode
from neo4j.graph import Path as NeoPath
from neo4j.graph import Relationship as NeoRelationship

from paperkg.graph import neo4j_figures as figures
from paperkg.graph.cypher_guard import DEFAULT_TIMEOUT, check_params, check_read_only, map_query_error, scan
from paperkg.graph.errors import (
    BadInputError,
    GraphIncompleteError,
    PaperkgError,
    QueryLimitError,
    QueryTimeoutError,
    StoreUnavailableError,
    UsageError,
)
from paperkg.graph.model import EDGE_TYPES, ENTITY_LABELS, NODE_LABELS, Edge, KnowledgeGraph, Node, node_key
from paperkg.graph.secrets import register_secret, split_credentials
from paperkg.graph.store import GraphDelta, collector_paused, empty_stats

# The layout of the precomputed figures (recorded by every complete save): 2, co-mentions as one
# `PaperkgCo` entry each (1 was one list per entity). A database saved with another layout is not in
# step: the next build rewrites it whole.
FIGURES_FORMAT = 2
# Rows per write transaction: measured in benchmarks/neo4j_load.py (see benchmarks/README.md).
DEFAULT_BATCH_SIZE = 10000
# Concurrent sessions for the relationships of a full save into an empty database.
DEFAULT_WORKERS = 2
# A delta of at most this many rows (nodes, relationships, deletions) is written in one
# transaction, figures and marker included: atomic for readers.
ATOMIC_ROWS = 20000
# Entities (or collections) whose figures one transaction computes.
FIGURE_BATCH = 500
# The largest `limit` cooccurring and introduced_in accept (their catalog headers): the figures keep
# the first FIGURE_LIMIT entries of each type (co-mentions) or overall (introductions).
FIGURE_LIMIT = 1000
# A connection attempt (TCP + Bolt handshake) gives up after this long: a stopped or unreachable
# server is answered in seconds, not after the driver's default 30 s.
CONNECTION_TIMEOUT = 3.0
# Waiting for a free connection of the pool (all busy) gives up after this long.
ACQUISITION_TIMEOUT = 5.0
# How long reads retry transient failures (a leader switch, a connection dropped).
READ_RETRY_TIME = 1.0
# How long writes retry deadlocks, lock timeouts and other transient errors.
WRITE_RETRY_TIME = 30.0
# A read whose server-side timeout passed this long ago without an answer is given up on (the
# server is frozen or the network is gone): the request gets its error, the connections are reset.
DEADLINE_GRACE = 2.0
# What a query that ran out of time tells its user, whichever side (server or client) stopped it.
QUERY_TIMEOUT_HINT = ("retry in a moment (the server may be busy), or narrow the query: a smaller "
                      "limit, a less common name, a type filter")
# `ping`: how long the health check may take.
PING_TIMEOUT = 3.0
# How long a reader takes the stored graph for complete, once the save marker said so, before
# asking again (`require_complete`): once a second at most, not a round trip per query.
STATUS_TTL = 1.0
# The build lease's time to live without a heartbeat (a killed build blocks the next for at most this).
LEASE_TTL = 30.0
LEASE_POLL = 0.5
# Lucene's limit on one indexed term (IndexWriter.MAX_TERM_LENGTH, UTF-8 bytes). The full-text
# indexes of schema.cypher hold every entity key and paper id as one term; committing a longer one
# makes Neo4j 5.26 fail the whole database ("needs to be restarted"), so `save` refuses it first.
MAX_TERM_BYTES = 32766
# The list properties those indexes hold, per label (must match schema.cypher).
FULLTEXT_LISTS = {**{label: "keys" for label in ENTITY_LABELS}, "Paper": "ids"}
# How long `ensure_schema` waits for new indexes to be populated (a full-text index over the ~14k
# entities of 100k abstracts takes a second or two; a million-paper graph, longer).
INDEX_WAIT = 600
# Bolt only: the driver's http(s) Query API support is a preview and needs extra packages.
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
# Edge types whose change can change the figures (of the papers' entities and collections).
FIGURE_EDGE_TYPES = frozenset({"MENTIONS", "INTRODUCES", "IN_COLLECTION"})

_SCALARS = frozenset({str, int, float, bool, type(None)})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LABEL_OF_PREFIX = {label.lower(): label for label in NODE_LABELS if label != "Paper"}
_T = TypeVar("_T")


@cache
def statement(name: str) -> str:
    """A statement file from the package, with its `//` comment lines removed (so a `;` or a
    placeholder in a comment never matters)."""
    text = resources.files("paperkg.graph").joinpath(f"{name}.cypher").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    return "\n".join(lines).strip()


def schema_statements() -> list[str]:
    """`schema.cypher` split on `;` (the file's statements hold no `;` inside a string literal)."""
    return [s.strip() for s in statement("schema").split(";") if s.strip()]


_SCHEMA_NAME = re.compile(r"^CREATE\s+(?:CONSTRAINT|(?:FULLTEXT\s+|RANGE\s+|TEXT\s+)?INDEX)\s+(\w+)\s", re.I)


@cache
def schema_index_names() -> frozenset[str]:
    """The names of the indexes `schema.cypher` creates (a constraint's backing index carries the
    constraint's name): what a database must have online before the catalog queries run."""
    names = {m.group(1) for m in map(_SCHEMA_NAME.match, schema_statements()) if m}
    if len(names) != len(schema_statements()):
        raise ValueError("every schema.cypher statement must be CREATE CONSTRAINT|INDEX <name> ...")
    return frozenset(names)


@cache
def lookup_index_names() -> frozenset[str]:
    """The indexes of `schema.cypher` that back no constraint (full-text, range): what a full save
    into an empty database may drop while it loads and create again after."""
    names = {m.group(1) for m in map(_SCHEMA_NAME.match, schema_statements())
             if m and "CONSTRAINT" not in m.group(0).upper()}
    return frozenset(name for name in names if _NAME.match(name))


def _check_terms(label: str, node_id: str, values: Any) -> None:
    """Refuse (BadInputError, before anything is sent) a value of a full-text indexed list that
    Lucene cannot hold: see MAX_TERM_BYTES. No real name or id comes near the limit; a runaway
    "name" from a malformed input would otherwise take the user's database down."""
    if not isinstance(values, list | tuple):
        return
    for value in values:
        size = len(value.encode("utf-8", "surrogatepass")) if isinstance(value, str) else 0
        if size > MAX_TERM_BYTES:
            what = "name" if label in ENTITY_LABELS else "record id"
            raise BadInputError(
                f"{label} {node_id[:80]!r} has a {what} of {size} bytes, over the {MAX_TERM_BYTES} bytes "
                "a Neo4j full-text index can hold",
                "shorten it in the input, or use the embedded store")


def _timed_out(err: BaseException) -> bool:
    """Whether `err` (a BadInputError from `map_query_error`) is Neo4j's transaction timeout."""
    cause = err.__cause__
    return isinstance(cause, nex.Neo4jError) and "TransactionTimedOut" in (cause.code or "")


@cache
def _checked(name: str, allowed: tuple[str, ...], what: str) -> str:
    if name not in allowed or not _NAME.match(name):
        raise ValueError(f"{what} {name!r} is not one of the paperkg {what}s {list(allowed)}")
    return name


def render(name: str, *, label: str | None = None, type: str | None = None,
           source_label: str | None = None, target_label: str | None = None) -> str:
    """Fill a statement's placeholders, only with names from the closed sets of `graph/model.py`.
    `{entity_label}` (node statements) becomes the shared `:Entity` label for the entity labels."""
    text = statement(name)
    if "{entity_label}" in text:
        text = text.replace("{entity_label}", ":Entity" if label in ENTITY_LABELS else "")
    for placeholder, value, allowed, what in (
        ("{label}", label, NODE_LABELS, "node label"),
        ("{source_label}", source_label, NODE_LABELS, "node label"),
        ("{target_label}", target_label, NODE_LABELS, "node label"),
        ("{type}", type, EDGE_TYPES, "relationship type"),
    ):
        if placeholder in text:
            if value is None:
                raise ValueError(f"statement {name} needs {placeholder}")
            text = text.replace(placeholder, _checked(value, allowed, what))
    return text


def _first_line(err: BaseException) -> str:
    """One line about a driver error: Neo4j's message for server errors; for connection failures the
    socket's reason (`[Errno 111] Connection refused`), which the driver puts on a later line."""
    if isinstance(err, nex.Neo4jError) and err.message:
        text = str(err.message)
    else:
        text = str(err.args[0]) if err.args else str(err)
    reason = re.search(r"\(reason ([^)]*\)?)\)", text)
    if reason:
        return reason.group(1)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines)[:300] if lines else type(err).__name__


def _label_of(labels: Sequence[str]) -> str | None:
    """The one paperkg label of a stored node (None for nodes that are not ours)."""
    ours = [label for label in labels if label in NODE_LABELS]
    return ours[0] if len(ours) == 1 else None


def to_plain(value: Any) -> Any:
    """A driver value as plain JSON-ready Python: nodes and relationships become dicts of their
    properties, paths a dict of node and relationship lists, temporal and
    spatial values their ISO/str form."""
    kind = type(value)
    if kind in _SCALARS:            # most values: skip the isinstance chain (ABC checks are slow)
        return value
    if kind is list:                # a catalog answer is one list of row lists: scalars inline
        return [v if type(v) in _SCALARS else to_plain(v) for v in value]
    if isinstance(value, NeoNode):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, NeoRelationship):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, NeoPath):
        return {"nodes": [to_plain(n) for n in value.nodes],
                "relationships": [to_plain(r) for r in value.relationships]}
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    iso = getattr(value, "iso_format", None)
    return iso() if callable(iso) else str(value)


@dataclass
class Meta:
    """What the `PaperkgMeta` nodes say: the generation last applied completely, whether a save is
    under way, and who holds the build lease (times in the server's milliseconds)."""

    generation: str | None = None
    status: str | None = None
    target: str | None = None
    since: int | None = None
    by: str | None = None
    figures: int | None = None
    source: str | None = None
    source_name: str | None = None
    lease_owner: str | None = None
    lease_holder: str | None = None
    lease_expires: int | None = None
    now: int = 0

    @property
    def synced(self) -> str | None:
        """The generation last applied completely in this version's figures layout, else None."""
        return self.generation if self.status == "complete" and self.figures == FIGURES_FORMAT else None

    @property
    def lease_live(self) -> bool:
        return self.lease_owner is not None and (self.lease_expires or 0) >= self.now


@dataclass
class Plan:
    """A delta as parameter rows, checked against the closed sets before anything is sent."""

    nodes: dict[str, list[dict]] = field(default_factory=dict)            # label -> rows
    edges: dict[tuple[str, str, str], list[dict]] = field(default_factory=dict)  # (type, s, t) -> rows
    deleted_nodes: dict[str, list[str]] = field(default_factory=dict)      # label -> ids
    deleted_edges: dict[tuple[str, str, str], list[dict]] = field(default_factory=dict)
    papers: set[str] = field(default_factory=set)     # papers whose figure inputs may have changed
    entities: dict[str, tuple[Any, Any]] = field(default_factory=dict)     # id -> (name, type)
    gone: set[str] = field(default_factory=set)       # deleted entity and collection ids
    wanted_nodes: set[str] = field(default_factory=set)    # full saves: every node key
    wanted_edges: set[str] = field(default_factory=set)    # full saves: every edge id
    wanted_counts: dict[str, dict[str, int]] = field(default_factory=empty_stats)

    @property
    def size(self) -> int:
        return (sum(map(len, self.nodes.values())) + sum(map(len, self.edges.values()))
                + sum(map(len, self.deleted_nodes.values())) + sum(map(len, self.deleted_edges.values())))


def _endpoint(key: str, labels: Mapping[str, str]) -> tuple[str, str]:
    """(label, id) of a node key: from the delta's own nodes, else from the key's form
    (`model.node_key`: `paper:<id>`; entity and collection ids start with their label)."""
    label = labels.get(key)
    if label is not None:
        return label, (key[len("paper:"):] if label == "Paper" else key)
    if key.startswith("paper:"):
        return "Paper", key[len("paper:"):]
    prefix = key.partition(":")[0]
    if prefix in _LABEL_OF_PREFIX:
        return _LABEL_OF_PREFIX[prefix], key
    raise ValueError(f"edge endpoint {key!r} is not the key of a paperkg node")


def plan_delta(delta: GraphDelta) -> Plan:
    """The delta's rows per label and per (type, source label, target label). Raises ValueError for
    anything outside the closed sets, a node under the wrong key, or (full saves) an edge whose
    endpoints are not nodes of the graph; BadInputError for a term the full-text index cannot hold."""
    plan = Plan()
    labels: dict[str, str] = {}
    for node in sorted(delta.nodes, key=lambda n: n.key):
        _checked(node.label, NODE_LABELS, "node label")
        props = {**node.props, "id": node.id}
        if node.label == "Paper":
            props["caption"] = str(props.get("title") or node.id)
        _check_terms(node.label, node.id, props.get(FULLTEXT_LISTS.get(node.label, "")))
        plan.nodes.setdefault(node.label, []).append({"id": node.id, "props": props})
        labels[node.key] = node.label
        if node.label in ENTITY_LABELS:
            plan.entities[node.id] = (props.get("name"), props.get("type"))
    if delta.full:
        plan.wanted_nodes = set(labels)
        for node in delta.nodes:
            plan.wanted_counts["nodes"][node.label] += 1
    for edge in sorted(delta.edges, key=lambda e: e.id):
        _checked(edge.type, EDGE_TYPES, "relationship type")
        if delta.full and (edge.source not in labels or edge.target not in labels):
            raise ValueError(f"edge {edge.id!r} does not join two nodes of the graph")
        (slabel, source), (tlabel, target) = _endpoint(edge.source, labels), _endpoint(edge.target, labels)
        plan.edges.setdefault((edge.type, slabel, tlabel), []).append(
            {"source": source, "target": target, "props": dict(edge.props)})
        if edge.type in FIGURE_EDGE_TYPES and slabel == "Paper":
            plan.papers.add(source)
        if delta.full:
            plan.wanted_edges.add(edge.id)
            plan.wanted_counts["edges"][edge.type] += 1
    for edge in sorted(delta.deleted_edges, key=lambda e: e.id):
        _checked(edge.type, EDGE_TYPES, "relationship type")
        (slabel, source), (tlabel, target) = _endpoint(edge.source, labels), _endpoint(edge.target, labels)
        plan.deleted_edges.setdefault((edge.type, slabel, tlabel), []).append(
            {"source": source, "target": target})
        if edge.type in FIGURE_EDGE_TYPES and slabel == "Paper":
            plan.papers.add(source)
    for node in sorted(delta.deleted_nodes, key=lambda n: n.key):
        _checked(node.label, NODE_LABELS, "node label")
        plan.deleted_nodes.setdefault(node.label, []).append(node.id)
        if node.label == "Paper":
            plan.papers.add(node.id)
        else:
            plan.gone.add(node.id)
    return plan


def _grouped_by_source(rows: list[dict], size: int) -> Iterator[list[dict]]:
    """Relationship rows as batches of `{source, rels: [{target, props}]}` groups, about `size`
    relationships each, a source never split over two batches (so concurrent batches lock disjoint
    source nodes), each group's targets in id order (so every batch takes target locks in the same
    order: waits, never a deadlock)."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row["source"]].append({"target": row["target"], "props": row["props"]})
    batch: list[dict] = []
    count = 0
    for source in sorted(groups):
        rels = sorted(groups[source], key=lambda r: r["target"])
        batch.append({"source": source, "rels": rels})
        count += len(rels)
        if count >= size:
            yield batch
            batch, count = [], 0
    if batch:
        yield batch


class Neo4jStore:
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

    # ---- connection -------------------------------------------------------------------------

    def _auth(self) -> tuple[str, str] | None:
        if self.user is None and self._password is None:
            return None  # a server with auth disabled (the test engine) or a default-auth setup
        return (self.user or "neo4j", self._password or "")

    @contextlib.contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        """Map driver failures to paperkg errors: one line saying where, what and what to do."""
        try:
            yield
        except PaperkgError:
            raise
        except nex.AuthError as err:
            who = (f"the credentials of user {self.user or 'neo4j'!r}" if self._auth() is not None
                   else "the connection: it requires credentials and none were given")
            raise StoreUnavailableError(
                f"Neo4j at {self.uri} rejected {who} while {action}: {_first_line(err)}",
                "check --neo4j-user and the password (PAPERKG_NEO4J_PASSWORD, --neo4j-password-file)"
            ) from err
        except (nex.ServiceUnavailable, nex.SessionExpired, nex.ConnectionAcquisitionTimeoutError,
                nex.IncompleteCommit, OSError) as err:
            raise StoreUnavailableError(
                f"cannot reach Neo4j at {self.uri} while {action}: {_first_line(err)}",
                "start the server, or fix --neo4j / PAPERKG_NEO4J_URI") from err
        except nex.Neo4jError as err:
            code = err.code or ""
            if code.endswith("DatabaseNotFound"):
                raise StoreUnavailableError(
                    f"Neo4j at {self.uri} has no database {self.database!r}: {_first_line(err)}",
                    "create it or fix --neo4j-database / PAPERKG_NEO4J_DATABASE") from err
            if code.endswith("AuthenticationRateLimit"):
                # Neo4j locks a user for `dbms.security.auth_lock_time` (5 s by default) after
                # repeated wrong passwords, and then refuses even the right one.
                locked = StoreUnavailableError(
                    f"Neo4j at {self.uri} refused user {self.user or 'neo4j'!r} for now: too many "
                    f"wrong passwords in a row ({_first_line(err)})",
                    "check --neo4j-user and the password (PAPERKG_NEO4J_PASSWORD, "
                    "--neo4j-password-file); Neo4j unlocks the user after dbms.security.auth_lock_time")
                locked.retry_after = 5  # type: ignore[attr-defined]
                raise locked from err
            if ".Security." in code:
                raise StoreUnavailableError(
                    f"Neo4j at {self.uri} refused {action}: {_first_line(err)}",
                    "use a user allowed to read and write the database") from err
            if _over_memory(err):
                raise BadInputError(
                    f"Neo4j at {self.uri} stopped {action}: it needed more memory than the server "
                    f"allows one transaction (db.memory.transaction.max): {_first_line(err)}",
                    "narrow the query (a LIMIT, a more selective MATCH); for saves, lower the "
                    "batch size or raise the server's limit") from err
            if isinstance(err, nex.TransientError | nex.DatabaseError):
                raise StoreUnavailableError(
                    f"Neo4j at {self.uri} failed while {action}: {_first_line(err)}",
                    "retry; if it persists, check the server's logs") from err
            raise BadInputError(f"Neo4j refused {action}: {_first_line(err)}",
                                "the data or query cannot be stored or run as is") from err
        except UnicodeError as err:
            raise BadInputError(f"cannot send text to Neo4j while {action}: {err}",
                                "remove lone surrogates and other invalid characters") from err
        except nex.DriverError as err:
            raise StoreUnavailableError(
                f"Neo4j driver error for {self.uri} while {action}: {_first_line(err)}",
                "check the URI, credentials and server") from err

    def _get_driver(self) -> neo4j.Driver:
        if self._driver is None:
            scheme = self.uri.partition("://")[0].lower() if "://" in self.uri else ""
            if scheme not in BOLT_SCHEMES:
                raise UsageError(f"bad Neo4j URI {self.uri!r}: the scheme must be one of "
                                 f"{', '.join(BOLT_SCHEMES)}", "for example bolt://localhost:7687")
            try:
                self._driver = GraphDatabase.driver(
                    self.uri, auth=self._auth(), connection_timeout=self.connection_timeout,
                    connection_acquisition_timeout=ACQUISITION_TIMEOUT,
                    max_transaction_retry_time=READ_RETRY_TIME, user_agent="paperkg",
                    # Warnings such as "relationship type does not exist yet" on an empty database
                    # are expected here and would only flood the log.
                    notifications_min_severity="OFF")
            except (nex.ConfigurationError, ValueError, ImportError) as err:
                raise UsageError(f"bad Neo4j URI {self.uri!r}: {_first_line(err)}",
                                 "use bolt://host:7687, neo4j://host:7687 or neo4j+s://... for Aura") from err
        return self._driver

    def _connect(self) -> neo4j.Driver:
        """The driver, after checking once that the server answers and which database to use."""
        if self._ready and self._driver is not None:
            return self._driver
        with self._lock:
            driver = self._get_driver()
            if not self._ready:
                with self._errors("connecting"):
                    driver.verify_connectivity()
                    # Resolve the home database once, so every later call passes `database_` and
                    # skips the per-call resolution round trip (and a missing database fails here).
                    summary = driver.execute_query("RETURN 1", database_=self.database,
                                                   routing_=neo4j.RoutingControl.READ).summary
                    self.database = summary.database or self.database
                self._ready = True
        return driver

    def _session(self, access_mode: str = neo4j.WRITE_ACCESS) -> neo4j.Session:
        return self._connect().session(database=self.database, default_access_mode=access_mode)

    def _read(self, work: Callable[[neo4j.ManagedTransaction], _T], action: str) -> _T:
        with self._errors(action), self._session(neo4j.READ_ACCESS) as session:
            return session.execute_read(work)

    def forget_connections(self) -> None:
        """Drop the driver without closing it: for a forked child (`queries.bounded`), whose
        inherited sockets belong to the parent; the child's next query opens its own."""
        self._driver, self._ready, self._pool = None, False, None

    def _bounded(self, call: Callable[[], _T], limit: float, action: str,
                 query_limit: float | None = None) -> _T:
        """`call()` with a client-side deadline of `limit` s. Why: a server that stopped answering
        (frozen, a dead network path) never enforces its own timeout, and the driver would wait
        for the socket (minutes). On expiry the request gets a 503 at once and the connections are
        reset (closed in the background), so the next request starts on fresh ones."""
        with self._lock:
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=32, thread_name_prefix="paperkg-neo4j")
            pool = self._pool
        future = pool.submit(call)
        try:
            return future.result(timeout=limit)
        except concurrent.futures.TimeoutError:
            self._reset()
            if query_limit is None:
                raise QueryTimeoutError(
                    f"Neo4j at {self.uri} did not answer within {limit:g} s while {action}",
                    "the server may be overloaded or frozen; retry in a moment") from None
            raise QueryTimeoutError(
                f"Neo4j at {self.uri} did not answer within the query's time limit of "
                f"{query_limit:g} s (waited {limit:g} s) while {action}",
                QUERY_TIMEOUT_HINT) from None

    def _reset(self) -> None:
        """Forget the driver (a later call connects anew); close the old one in the background,
        since closing waits for its sockets."""
        with self._lock:
            driver, self._driver, self._ready = self._driver, None, False
        if driver is not None:
            threading.Thread(target=driver.close, name="paperkg-neo4j-close", daemon=True).start()

    def version(self) -> None:
        """Every query reads the database live: there is nothing to reload after a rebuild."""
        return None

    def close(self) -> None:
        if self._driver is not None:
            self._driver.close()
        self._driver, self._ready, self._schema_ok = None, False, False
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    def __enter__(self) -> Neo4jStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- health and build status ---------------------------------------------------------------

    def _meta(self) -> Meta:
        def work(tx: neo4j.ManagedTransaction) -> Meta:
            record = tx.run(statement("meta_read")).single(strict=True)
            return Meta(**dict(record))

        return self._read(work, "reading the save marker")

    def build_status(self) -> dict[str, Any]:
        """What a reader should know about the stored graph: `state` is "complete" (the last save
        finished), "writing" (a save is under way: the graph may be incomplete), "interrupted" (a
        save died half-way: incomplete until the next build repairs it) or "none" (no paperkg save
        recorded: empty, or written by an older paperkg); `generation` of the last complete save."""
        meta = self._meta()
        if meta.status is None:
            state = "none"
        elif meta.status == "complete":
            state = "complete"
        else:
            state = "writing" if meta.lease_live else "interrupted"
        return {"state": state, "generation": meta.generation, "by": meta.by if state != "complete" else None}

    def ping(self, timeout: float = PING_TIMEOUT) -> dict[str, Any]:
        """Health check for `/health`: raises StoreUnavailableError within about `timeout` s when
        the database cannot be read (server down, frozen, wrong credentials, no such database), and
        GraphIncompleteError when a save is under way or was interrupted; else returns
        `build_status()`."""
        status = self._bounded(self.build_status, timeout, "answering a health check")
        self._refuse_incomplete(status)
        return status

    def require_complete(self) -> None:
        """Raise GraphIncompleteError unless the stored graph is one a build finished (or no paperkg
        save is recorded): a reader must not take a half-saved graph for a whole one. A complete
        graph is asked about again after STATUS_TTL s, so queries cost no extra round trip each."""
        if time.monotonic() < self._complete_until:
            return
        status = self.build_status()
        self._refuse_incomplete(status)
        self._complete_until = time.monotonic() + STATUS_TTL

    def _refuse_incomplete(self, status: Mapping[str, Any]) -> None:
        by = f" by {status['by']}" if status.get("by") else ""
        if status["state"] == "writing":
            raise GraphIncompleteError(
                f"a build{by} is saving the graph into Neo4j at {self.uri}: it is incomplete until "
                "the save finishes", "retry when the build has finished; if it was stopped, run it "
                "again", retry_after=10)
        if status["state"] == "interrupted":
            raise GraphIncompleteError(
                f"the last save into Neo4j at {self.uri}{by} was interrupted half-way: the graph "
                "there is incomplete", "run that build again (`paperkg build ... --store DIR --neo4j "
                "URI` with the same --store): it repairs the graph, and reads answer again", retry_after=60)

    def synced_generation(self) -> str | None:
        """The `GraphDelta.generation` last applied completely (None: never, or a save since then
        did not finish)."""
        return self._meta().synced

    # ---- build lease ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def lease(self) -> Iterator[None]:
        """Hold the database's build lease for the block: other builds (any machine, any --store)
        wait until it ends. Re-entrant within this store object. A heartbeat renews it every third
        of `lease_ttl`; a build that dies stops renewing and its lease expires."""
        if self._lease_depth:
            self._lease_depth += 1
            try:
                yield
            finally:
                self._lease_depth -= 1
            return
        owner = uuid.uuid4().hex
        holder = f"{socket.gethostname()} pid {os.getpid()}"
        params = {"owner": owner, "holder": holder, "ttl_ms": int(self.lease_ttl * 1000)}
        waited = False
        with self._errors("taking the build lease"), self._session() as session:
            while True:
                record = self._write(session, lambda tx: tx.run(statement("lease_take"), params).single())
                if record and record["free"]:
                    break
                if not waited:
                    left = max(0, int(record["left_ms"] or 0)) / 1000 if record else 0
                    who = record["holder"] if record else "another process"
                    message = (f"another build is writing Neo4j at {self.uri} ({who}); waiting for "
                               f"it to finish (its lease lasts {left:.0f} s more unless renewed)")
                    (self.on_wait or _warn)(message)
                    waited = True
                time.sleep(LEASE_POLL)
        self._lease_owner, self._lease_depth, self._lease_lost = owner, 1, False
        stop = threading.Event()
        beat = threading.Thread(target=self._heartbeat, args=(params, stop), daemon=True,
                                name="paperkg-neo4j-lease")
        beat.start()
        try:
            yield
        finally:
            stop.set()
            beat.join()
            self._lease_depth = 0
            with contextlib.suppress(PaperkgError, nex.Neo4jError, nex.DriverError, OSError), \
                    self._errors("releasing the build lease"), self._session() as session:
                session.run(statement("lease_release"), {"owner": owner}).consume()
            self._lease_owner = None

    def _heartbeat(self, params: dict[str, Any], stop: threading.Event) -> None:
        while not stop.wait(self.lease_ttl / 3):
            try:
                with self._session() as session:
                    held = session.run(statement("lease_renew"), params).single()
                if not held or not held["held"]:
                    self._lease_lost = True
                    return
            except (nex.Neo4jError, nex.DriverError, OSError, PaperkgError):
                continue   # the next beat retries; the save itself reports a lost server

    # ---- save ---------------------------------------------------------------------------------

    def ensure_schema(self) -> None:
        """Create the constraints and indexes of `schema.cypher` (each in a transaction of its own, as
        schema changes need) and wait until all of them are online.

        Why wait: an index is created empty and populated in the background; until it is online a
        full-text query fails ("index is not online") and the catalog's entity lookups go through
        one. Waiting here, before the save writes anything, costs nothing on a new database and a
        population of the existing entities on one saved by an older paperkg."""
        with self._errors("creating the schema"), self._session() as session:
            for text in schema_statements():
                session.execute_write(lambda tx, text=text: tx.run(text).consume())
            try:
                session.execute_write(lambda tx: tx.run(statement("await_indexes"),
                                                        timeout=INDEX_WAIT).consume())
            except nex.ClientError as err:   # timed out, or an index FAILED to populate
                raise StoreUnavailableError(
                    f"Neo4j at {self.uri}: the paperkg indexes did not come online: {_first_line(err)}",
                    "check `SHOW INDEXES` and the server's logs; drop a FAILED index (DROP INDEX "
                    "<name>) and save again, or rebuild into an empty database"
                ) from err
        self._schema_ok = True

    def ensure_ready(self) -> None:
        """Make sure every index of `schema.cypher` exists and is online before catalog queries run:
        one `SHOW INDEXES` per store object, and `ensure_schema` only when something is missing.

        Why on reads too: saves set the schema up, but a database saved by an older paperkg lacks the
        full-text index the catalog queries now call, and would fail every entity lookup with "no
        such fulltext schema index" until the next build. A user who may not create indexes gets
        one line saying what to do instead."""
        if self._schema_ok:
            return
        with self._schema_lock:
            if self._schema_ok:
                return
            try:
                states = self._read(
                    lambda tx: {r["name"]: r["state"] for r in tx.run(statement("index_states"))},
                    "checking the schema")
            except StoreUnavailableError as err:
                cause = err.__cause__
                if isinstance(cause, nex.Neo4jError) and ".Security." in (cause.code or ""):
                    # A user without the SHOW INDEX privilege: trust the database (a missing index
                    # then fails the query itself, naming the index).
                    self._schema_ok = True
                    return
                raise
            if all(states.get(name) == "ONLINE" for name in schema_index_names()):
                self._schema_ok = True
                return
            try:
                self.ensure_schema()
            except StoreUnavailableError as err:
                missing = sorted(n for n in schema_index_names() if states.get(n) != "ONLINE")
                raise StoreUnavailableError(
                    f"Neo4j at {self.uri} lacks the index(es) {', '.join(missing)} that paperkg's "
                    f"queries need (a database saved by an older paperkg?), and creating them failed: "
                    f"{err.message}",
                    "save the graph again (`paperkg build`) as a user allowed to create indexes"
                ) from err

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

    def _write(self, session: neo4j.Session, work: Callable[[neo4j.Transaction], _T]) -> _T:
        """`work` in one explicit write transaction, retried on deadlocks and other transient
        errors (not on a transaction over the server's memory limit) for WRITE_RETRY_TIME."""
        deadline = time.monotonic() + WRITE_RETRY_TIME
        delay = 0.05
        while True:
            try:
                with session.begin_transaction() as tx:
                    result = work(tx)
                    tx.commit()
                return result
            except nex.TransientError as err:
                if _over_memory(err) or time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 1.0)

    def _run_parts(self, tx: neo4j.Transaction, parts: Iterable[Part],
                   found: dict[tuple[str, str], str] | None = None) -> None:
        """Run each part, checking its written count; `found` collects the (label, id) -> element id
        pairs of statements that return them (create_nodes)."""
        for part in parts:
            record = tx.run(part.text, rows=part.rows).single()
            written = int(record["written"]) if record else 0
            if found is not None and record is not None and record.get("ids") is not None:
                found.update(((part.label, nid), eid) for nid, eid in record["ids"])
            if part.expect is not None and written != part.expect:
                raise StoreUnavailableError(
                    f"Neo4j at {self.uri} wrote {written} of {part.expect} {part.what}: endpoints "
                    "vanished during the save (another process writing the same database?)",
                    "run the build again")

    def _parts(self, plan: Plan, *, create: bool) -> tuple[list[Part], list[Part]]:
        """Statement parts of the upserts: nodes, then relationships (CREATE-grouped by source for
        a save into an empty database, MERGE otherwise)."""
        size = self.batch_size
        nodes = [Part(render("create_nodes" if create else "merge_nodes", label=label), batch,
                      f"{label} nodes", len(batch), label)
                 for label in NODE_LABELS for batch in _batches(plan.nodes.get(label, []), size)]
        edges: list[Part] = []
        if not create:
            for (etype, slabel, tlabel), rows in sorted(plan.edges.items()):
                text = render("merge_edges", type=etype, source_label=slabel, target_label=tlabel)
                edges += [Part(text, batch, f"{etype} relationships", len(batch))
                          for batch in _batches(rows, size)]
        return nodes, edges

    def _created_edges(self, plan: Plan, element_ids: Mapping[tuple[str, str], str]) -> list[Part]:
        """Relationship parts of a save into an empty database: endpoints as the element ids the
        node batches returned, grouped by source (see `_grouped_by_source`)."""
        edges: list[Part] = []
        for (etype, slabel, tlabel), rows in sorted(plan.edges.items()):
            text = render("create_edges", type=etype, source_label=slabel, target_label=tlabel)
            try:
                located = [{"source": element_ids[(slabel, row["source"])],
                            "target": element_ids[(tlabel, row["target"])], "props": row["props"]}
                           for row in rows]
            except KeyError as err:
                raise StoreUnavailableError(
                    f"Neo4j at {self.uri} did not report creating node {err.args[0]!r} of this save",
                    "run the build again") from None
            edges += [Part(text, batch, f"{etype} relationships", sum(len(g["rels"]) for g in batch))
                      for batch in _grouped_by_source(located, self.batch_size)]
        return edges

    def _deletions(self, plan: Plan) -> list[Part]:
        parts = [Part(render("delete_edges", type=etype, source_label=slabel, target_label=tlabel),
                      batch, f"stale {etype} relationships", None)
                 for (etype, slabel, tlabel), rows in sorted(plan.deleted_edges.items())
                 for batch in _batches(rows, self.batch_size)]
        parts += [Part(render("delete_nodes", label=label), [{"id": i} for i in batch],
                       f"stale {label} nodes", None)
                  for label in NODE_LABELS for batch in _batches(plan.deleted_nodes.get(label, []),
                                                                 self.batch_size)]
        return parts

    def _marker(self, tx: neo4j.Transaction, name: str, generation: str) -> None:
        params = {"generation": generation, "owner": self._lease_owner,
                  "holder": f"{socket.gethostname()} pid {os.getpid()}",
                  "source": self._source[0], "source_name": self._source[1], "figures": FIGURES_FORMAT}
        record = tx.run(statement(name), params).single()
        if name == "meta_complete" and (self._lease_lost or not record or not record["done"]):
            raise StoreUnavailableError(
                f"this build lost its lease on Neo4j at {self.uri} (it stalled longer than "
                f"{self.lease_ttl:g} s) and another build may have written since",
                "run the build again")

    def _apply_change(self, session: neo4j.Session, plan: Plan, generation: str) -> None:
        """A delta on the generation it was made from: one transaction when small (readers see the
        old graph or the new), else marked batches. The figures change by what the delta changed
        (`_figure_update`), not computed again."""
        papers = sorted(plan.papers)
        renamed = self._renamed(session, plan.entities)
        dependents = self._dependents(session, renamed)
        nodes, edges = self._parts(plan, create=False)
        parts = [*nodes, *edges, *self._deletions(plan)]

        if plan.size <= ATOMIC_ROWS:
            def work(tx: neo4j.Transaction) -> None:
                before = self._links(tx, papers)
                self._run_parts(tx, parts)
                update = self._figure_update(tx, before, self._links(tx, papers), renamed, dependents,
                                             plan.gone)
                self._write_figures(tx, update)
                self._marker(tx, "meta_complete", generation)

            self._write(session, work)
            return
        before = self._links(session, papers)
        self._write(session, lambda tx: self._marker(tx, "meta_writing", generation))
        for batch in _pack(parts, self.batch_size):
            self._write(session, lambda tx, b=batch: self._run_parts(tx, b))
        update = session.execute_read(lambda tx: self._figure_update(
            tx, before, self._links(tx, papers), renamed, dependents, plan.gone))
        chunks = list(_split_update(update, FIGURE_BATCH)) or [figures.Update()]
        for i, chunk in enumerate(chunks):
            def finish(tx: neo4j.Transaction, chunk: figures.Update = chunk, last: bool = i == len(chunks) - 1
                       ) -> None:
                self._write_figures(tx, chunk)
                if last:
                    self._marker(tx, "meta_complete", generation)

            self._write(session, finish)

    def _links(self, runner: Any, papers: list[str]) -> dict[str, figures.Links]:
        """What these papers mention, introduce and belong to (through a session or in a transaction);
        papers not in the database are left out."""
        links: dict[str, figures.Links] = {}
        for batch in _batches(papers, self.batch_size):
            for pid, mentions, introduces, collections in runner.run(
                    statement("paper_links"), ids=batch).single(strict=True)["rows"]:
                links[pid] = figures.Links(frozenset(mentions), frozenset(introduces), frozenset(collections))
        return links

    def _entity_rows(self, runner: Any, ids: Iterable[str]) -> dict[str, tuple[Any, Any, Any]]:
        """Stored (name, type, papers mentioning it) of these entities (the ones that exist)."""
        found: dict[str, tuple[Any, Any, Any]] = {}
        for batch in _batches(sorted(ids), self.batch_size):
            for eid, name, etype, papers in runner.run(statement("entity_names"), ids=batch).single(
                    strict=True)["rows"]:
                found[eid] = (name, etype, papers)
        return found

    def _renamed(self, session: neo4j.Session, entities: Mapping[str, tuple[Any, Any]]
                 ) -> dict[str, tuple[str, str]]:
        """Entities of the delta whose stored name or type differs from the new one, with the stored
        (name, type) as the figures hold them ('' for a missing one)."""
        stored = self._entity_rows(session, entities)
        return {eid: (name or "", etype or "") for eid, (name, etype, _) in stored.items()
                if entities[eid] != (name, etype)}

    def _dependents(self, session: neo4j.Session, renamed: Mapping[str, tuple[str, str]]
                    ) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """Whose figures show the renamed entities, read before the change: entity -> the renamed
        entities co-mentioned with it, collection -> the renamed entities its papers introduce."""
        entities: dict[str, set[str]] = defaultdict(set)
        collections: dict[str, set[str]] = defaultdict(set)
        for batch in _batches(sorted(renamed), FIGURE_BATCH):
            for rid, others, colls in session.run(statement("renamed_dependents"), ids=batch).single(
                    strict=True)["rows"]:
                for other in others:
                    entities[other].add(rid)
                for coll in colls:
                    collections[coll].add(rid)
        return entities, collections

    def _figure_update(self, tx: Any, before: Mapping[str, figures.Links], after: Mapping[str, figures.Links],
                       renamed: Mapping[str, tuple[str, str]],
                       dependents: tuple[dict[str, set[str]], dict[str, set[str]]],
                       gone: set[str]) -> figures.Update:
        """The figure changes the delta makes (see graph/neo4j_figures.py), read inside `tx` after
        the delta's writes: the stored entries of the co-mention pairs it changed, how many entries
        the types concerned keep, the stored lists of the collections whose inputs changed, the
        current names of the entries that change, and exact counts where a cut needs them."""
        limit = FIGURE_LIMIT
        co = figures.co_changes(before, after)
        pairs = figures.intro_pairs(before, after)
        dep_entities, dep_collections = dependents
        entity_ids = sorted((set(co) | set(dep_entities)) - gone)
        collection_ids = ({c for c, _ in pairs} | set(dep_collections)) - gone
        wanted = {o for changes in co.values() for o in changes} | set(renamed) | {e for _, e in pairs}
        wanted |= set(entity_ids)
        rows = self._entity_rows(tx, wanted)
        names = {eid: (name or "", etype or "") for eid, (name, etype, _) in rows.items()}
        moved = {eid: {r: renamed[r] for r in dep_entities.get(eid, ())} for eid in entity_ids}

        stored: dict[str, dict[str, figures.CoRow]] = defaultdict(dict)
        asked = [[eid, o] for eid in entity_ids for o in sorted({*co.get(eid, ()), *moved[eid]})]
        for batch in _batches(asked, self.batch_size):
            for of, other, name, etype, papers in tx.run(statement("co_read"), pairs=batch).single(
                    strict=True)["rows"]:
                stored[of][other] = (other, name, etype, int(papers))
        sizes: dict[str, dict[str, int]] = defaultdict(dict)
        least: dict[tuple[str, str], int] = {}      # (entity, type) -> smallest kept count
        keys = [[eid, t] for eid in entity_ids
                for t in sorted(figures.co_types(stored[eid], co.get(eid, {}), names, moved[eid]))]
        for batch in _batches(keys, self.batch_size):
            for of, etype, n, smallest in tx.run(statement("co_sizes"), keys=batch).single(
                    strict=True)["rows"]:
                sizes[of][etype] = int(n)
                least[(of, etype)] = int(smallest or 0)

        update = figures.Update(gone=set(gone))
        changes: dict[str, figures.CoChange] = {}
        for eid in entity_ids:
            change = figures.change_co(stored[eid], sizes[eid], co.get(eid, {}), names, moved[eid], limit)
            if change is None:
                update.redo_entities.add(eid)
                continue
            changes[eid] = change
            update.co_put += [(eid, *row) for row in change.put]
            update.co_drop += [(eid, other) for other in change.drop]
        counts: dict[tuple[str, str], int] = {}

        def papers(eid: str) -> int:
            return int(rows[eid][2] or 0) if eid in rows else 0

        # An outsider enters a cut type only if it counts at least the type's smallest kept count
        # (on a tie its name decides: co_trim); it counts at most its own papers, so most are never
        # counted.
        entering = {eid: [o for o in change.exact if papers(o) >= least[(eid, names[o][1])]]
                    for eid, change in changes.items()}
        ask = [[eid, o] if papers(eid) <= papers(o) else [o, eid] for eid, others in entering.items()
               for o in others]
        for batch in _batches(ask, self.batch_size):
            for a, b, n in tx.run(statement("co_counts"), pairs=batch).single(strict=True)["rows"]:
                counts[(a, b)] = counts[(b, a)] = int(n)
        for eid, change in changes.items():
            for other in entering[eid]:
                if counts[(eid, other)] >= max(1, least[(eid, names[other][1])]):
                    name, etype = names[other]
                    update.co_put.append((eid, other, name, etype, counts[(eid, other)]))
                    change.sizes[etype] += 1
            update.co_trim += [(eid, etype, n - limit) for etype, n in sorted(change.sizes.items())
                               if n > limit]

        stored_intro: dict[str, list[figures.IntroRow]] = {}
        for batch in _batches(sorted(collection_ids), self.batch_size):
            for fid, *lists in tx.run(statement("figures_read"), ids=batch).single(strict=True)["rows"]:
                stored_intro[fid] = list(zip(*lists, strict=True))
        counted: dict[str, dict[str, tuple[int, str | None]]] = defaultdict(dict)
        for batch in _batches(sorted(map(list, pairs)), self.batch_size):
            result = tx.run(statement("intro_counts"), pairs=batch).single(strict=True)["rows"]
            for cid, eid, n, first in result:
                counted[cid][eid] = (int(n), first)
        for cid in sorted(collection_ids):
            moved_intro = {r: renamed[r] for r in dep_collections.get(cid, ())}
            merged_intro = figures.merge_intro(stored_intro.get(cid, []), counted.get(cid, {}), names,
                                               moved_intro, limit)
            if merged_intro is None:
                update.redo_collections.add(cid)
            elif merged_intro != stored_intro.get(cid, []):
                update.intro[cid] = merged_intro
        return update

    def _write_figures(self, tx: neo4j.Transaction, update: figures.Update) -> None:
        """Write an update: the figures of what is gone deleted, co-mention entries deleted, written
        and cut back, introduction lists replaced (an empty one deletes the figures node); then
        recompute whole what it could not change in place."""
        gone = sorted(update.gone | {fid for fid, rows in update.intro.items() if not rows})
        for batch in _batches(gone, self.batch_size):
            tx.run(statement("figures_delete"), ids=batch).consume()
        for batch in _batches([list(pair) for pair in update.co_drop], self.batch_size):
            tx.run(statement("co_drop"), pairs=batch).consume()
        for batch in _batches([list(row) for row in update.co_put], self.batch_size):
            tx.run(statement("co_put"), rows=batch).consume()
        excess: dict[int, list[list[str]]] = defaultdict(list)
        for eid, etype, n in update.co_trim:
            excess[n].append([eid, etype])
        for n, keys in sorted(excess.items()):
            for batch in _batches(keys, FIGURE_BATCH):
                tx.run(statement("co_trim"), keys=batch, excess=n).consume()
        intro = [{"of": fid, "ids": [r[0] for r in rows], "names": [r[1] for r in rows],
                  "types": [r[2] for r in rows], "papers": [r[3] for r in rows],
                  "firsts": [r[4] for r in rows]}
                 for fid, rows in sorted(update.intro.items()) if rows]
        for batch in _batches(intro, FIGURE_BATCH):
            tx.run(statement("figures_put_intro"), rows=batch).consume()
        if update.redo_entities or update.redo_collections:
            self._figures(tx, sorted(update.redo_entities), sorted(update.redo_collections))

    def _figures(self, tx: neo4j.Transaction, entities: Sequence[str], collections: Sequence[str]) -> None:
        """Recompute (inside `tx`) the figures of these entities and collections."""
        for batch in _batches([*entities, *collections], self.batch_size):
            tx.run(statement("figures_delete"), ids=batch).consume()
        self._new_figures(tx, entities, collections)

    @staticmethod
    def _new_figures(tx: neo4j.Transaction, entities: Sequence[str], collections: Sequence[str]) -> None:
        """Compute (inside `tx`) the figures of entities and collections that have none stored."""
        for batch in _batches(list(entities), FIGURE_BATCH):
            tx.run(statement("figures_co"), ids=batch, limit=FIGURE_LIMIT).consume()
        for batch in _batches(list(collections), FIGURE_BATCH):
            tx.run(statement("figures_intro"), ids=batch, limit=FIGURE_LIMIT).consume()

    def _figures_batched(self, entities: Sequence[str], collections: Sequence[str]) -> None:
        """The figures of a full save (none stored: cleared first), a transaction per FIGURE_BATCH,
        on `workers` sessions at once: each batch reads the graph and writes nodes of its own."""
        works = [lambda tx, e=ents: self._new_figures(tx, e, [])
                 for ents in _batches(list(entities), FIGURE_BATCH)]
        works += [lambda tx, c=colls: self._new_figures(tx, [], c)
                  for colls in _batches(list(collections), FIGURE_BATCH)]
        self._in_parallel(works)

    def _apply_full(self, session: neo4j.Session, plan: Plan, generation: str) -> None:
        """Every node and relationship of the graph, then nothing else: CREATE into a database with
        no paperkg node, else MERGE and delete the stale; then every figure, then the marker.

        Indexes no write looks anything up through are dropped first and built once at the end (a
        population is cheaper than updating them per batch): into an empty database every one that
        backs no constraint, into another graph the co-mention indexes (every entry is deleted and
        written again)."""
        counts = session.execute_read(self._count_all)
        empty = not any(counts["nodes"].values()) and not any(counts["edges"].values())
        self._write(session, lambda tx: self._marker(tx, "meta_writing", generation))
        nodes, edges = self._parts(plan, create=empty)
        dropped = lookup_index_names() if empty else {
            name for name in lookup_index_names() if name.startswith("paperkg_co_")}
        for name in sorted(dropped):
            session.run(f"DROP INDEX {name} IF EXISTS").consume()
        self._schema_ok = False
        if empty:
            # The uniqueness constraints stay: the relationship batches look their endpoints up
            # through them.
            element_ids: dict[tuple[str, str], str] = {}
            self._concurrently(nodes, element_ids)
            self._concurrently(self._created_edges(plan, element_ids))
            del element_ids
        else:
            for batch in _pack(nodes, self.batch_size):
                self._write(session, lambda tx, b=batch: self._run_parts(tx, b))
            for batch in _pack(edges, self.batch_size):
                self._write(session, lambda tx, b=batch: self._run_parts(tx, b))
            self._delete_stale(session, plan, counts_after=session.execute_read(self._count_all))
        while self._write(session, lambda tx: tx.run(statement("figures_clear"), limit=self.batch_size)
                          .single(strict=True)["deleted"]):
            pass
        ids = [r["id"] for r in session.execute_read(lambda tx: list(tx.run(statement("figured_ids"))))]
        entities = [i for i in ids if not i.startswith("collection:")]
        collections = [i for i in ids if i.startswith("collection:")]
        self._figures_batched(entities, collections)
        self.ensure_schema()
        self._write(session, lambda tx: self._marker(tx, "meta_complete", generation))

    def _concurrently(self, parts: list[Part], found: dict[tuple[str, str], str] | None = None) -> None:
        """Parts of a save into an empty database on `workers` sessions at once, a transaction
        each: node batches (new nodes, nothing shared), then relationship batches, which never
        share a source node (`_grouped_by_source`) and so only wait for each other on targets.
        `found` collects the created nodes' element ids (see `_run_parts`)."""
        self._in_parallel([lambda tx, p=part: self._run_parts(tx, [p], found) for part in parts])

    def _in_parallel(self, works: list[Callable[[neo4j.Transaction], None]]) -> None:
        """Each work in a write transaction of its own, on `workers` sessions at once, in order."""
        if self.workers == 1 or len(works) < 2:
            with self._session() as session:
                for work in works:
                    self._write(session, work)
            return
        todo = iter(works)
        lock = threading.Lock()

        def worker() -> None:
            with self._session() as session:
                while True:
                    with lock:
                        work = next(todo, None)
                    if work is None:
                        return
                    self._write(session, work)

        with concurrent.futures.ThreadPoolExecutor(self.workers, thread_name_prefix="paperkg-save") as pool:
            for future in [pool.submit(worker) for _ in range(self.workers)]:
                future.result()

    def _delete_stale(self, session: neo4j.Session, plan: Plan, counts_after: dict[str, dict[str, int]]
                      ) -> None:
        """Delete what the new graph does not have: relationships first (by type, with duplicates),
        then nodes (by label), found by reading the stored keys and comparing in Python.

        Fast path, exact: after the upserts every wanted node and relationship exists at least once,
        so a type (or label) whose stored count equals the graph's count holds nothing else, and its
        keys need not be read. Only types and labels that shrank (or hold strays) are scanned."""
        wanted = plan.wanted_counts
        for etype in EDGE_TYPES:
            if counts_after["edges"][etype] == wanted["edges"][etype]:
                continue
            text = render("edge_keys", type=etype)
            stale: list[str] = []
            seen: set[str] = set()
            for record in session.execute_read(lambda tx, text=text: list(tx.run(text))):
                slabel = _label_of(record["source_labels"])
                tlabel = _label_of(record["target_labels"])
                key = None
                if slabel and tlabel and record["source"] is not None and record["target"] is not None:
                    key = Edge(etype, node_key(slabel, record["source"]),
                               node_key(tlabel, record["target"])).id
                if key is None or key not in plan.wanted_edges or key in seen:
                    stale.append(record["element_id"])
                else:
                    seen.add(key)
            self._delete_elements(session, stale)
        for label in NODE_LABELS:
            if counts_after["nodes"][label] == wanted["nodes"][label]:
                continue
            text = render("node_ids", label=label)
            stale_ids = [
                record["element_id"]
                for record in session.execute_read(lambda tx, text=text: list(tx.run(text)))
                if record["id"] is None or node_key(label, record["id"]) not in plan.wanted_nodes
            ]
            for batch in _batches(stale_ids, self.batch_size):
                self._write(session, lambda tx, b=batch: tx.run(statement("delete_node_elements"),
                                                                element_ids=b).consume())

    def _delete_elements(self, session: neo4j.Session, element_ids: list[str]) -> None:
        for batch in _batches(element_ids, self.batch_size):
            self._write(session, lambda tx, b=batch: tx.run(statement("delete_elements"),
                                                            element_ids=b).consume())

    # ---- read ---------------------------------------------------------------------------------

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
        """The stored graph as the `KnowledgeGraph` that was saved (Papers' `caption` dropped), nodes
        in key order and edges in id order like a fresh build."""
        self.require_complete()

        def work(tx: neo4j.ManagedTransaction) -> KnowledgeGraph:
            nodes: list[Node] = []
            for label in NODE_LABELS:
                for record in tx.run(render("export_nodes", label=label)):
                    props = dict(record["props"])
                    if label == "Paper":
                        props.pop("caption", None)
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

    def run_read(self, cypher: str, params: Mapping[str, Any] | None = None, *,
                 timeout: float | None = None) -> list[dict[str, Any]]:
        """Run trusted read-only Cypher (the named query catalog) in a READ transaction with a
        timeout; rows as plain dicts (see `to_plain`). The first call checks that the indexes the
        catalog relies on are online (`ensure_ready`)."""
        limit = self.query_timeout if timeout is None else timeout
        params = check_params(params)

        def call() -> list[dict[str, Any]]:
            self.ensure_ready()
            with self._errors("running a query"), self._session(neo4j.READ_ACCESS) as session, \
                    map_query_error(limit):
                return session.execute_read(_rows_of(cypher, params, limit))

        return self._bounded(call, limit + DEADLINE_GRACE, "running a query", limit)

    def run_catalog(self, cypher: str, params: Mapping[str, Any] | None = None, *,
                    timeout: float | None = None) -> list[dict[str, Any]]:
        """`run_read` for the named query catalog, with the same rows in the same order, fetched as
        one record: the catalog's Cypher runs inside `CALL { ... }` and its rows come back as one
        `collect` of value lists, rebuilt into dicts here with the query's own column names.

        Why: the Python driver costs ~25 µs per record in socket reads and message handling, which
        outweighs the server's work for large answers (a popular entity's 15k papers: ~370 ms for
        15k records against ~85 ms for one, the server itself taking ~60 ms). `collect` keeps the
        order in which the subquery's final ORDER BY hands the rows over (the parity tests compare
        rows in order). The column names come from `EXPLAIN` (nothing runs), once per query text."""
        try:
            return self._run_catalog(cypher, params, timeout)
        except BadInputError as err:
            if _timed_out(err):
                limit = self.query_timeout if timeout is None else timeout
                raise QueryTimeoutError(
                    f"Neo4j at {self.uri} stopped the query after its time limit of {limit:g} s",
                    QUERY_TIMEOUT_HINT) from err
            if not _missing_index(err):
                raise
            # An index vanished since this store checked (the database was dropped and recreated,
            # or an admin dropped it): check again, recreating what is missing, and retry once.
            self._schema_ok = False
            return self._run_catalog(cypher, params, timeout)

    def _run_catalog(self, cypher: str, params: Mapping[str, Any] | None, timeout: float | None
                     ) -> list[dict[str, Any]]:
        limit = self.query_timeout if timeout is None else timeout
        params = check_params(params)

        def call() -> list[dict[str, Any]]:
            self.ensure_ready()
            self.require_complete()
            with self._errors("running a query"), self._session(neo4j.READ_ACCESS) as session, \
                    map_query_error(limit):
                columns = self._columns.get(cypher)
                if columns is None:
                    columns = session.execute_read(_columns_of(cypher, params, limit))
                    self._columns[cypher] = columns
                wrapped = (f"CALL {{\n{cypher.strip()}\n}}\n"
                           f"RETURN collect([{', '.join(_quoted(c) for c in columns)}]) AS rows")
                collected = session.execute_read(_rows_of(wrapped, params, limit))
            return [dict(zip(columns, values, strict=True)) for values in collected[0]["rows"]]

        return self._bounded(call, limit + DEADLINE_GRACE, "running a query", limit)

    def run_user_cypher(self, text: str, params: Mapping[str, Any] | None = None, *,
                        timeout: float | None = None, max_rows: int | None = None) -> list[dict[str, Any]]:
        """Run user-supplied Cypher only if the read-only guard accepts it (see `cypher_guard`):
        keyword scan, then `EXPLAIN` must say query type "r", then a READ transaction with a timeout.
        With `max_rows`, the first rows only: the rest are discarded, which stops the server."""
        limit = self.query_timeout if timeout is None else timeout
        params = check_params(params)
        scan(text)  # before connecting: a refusal needs no server

        def call() -> list[dict[str, Any]]:
            self.require_complete()
            with self._errors("running a query"), self._session(neo4j.READ_ACCESS) as session:
                check_read_only(session, text, params)
                # An explicit transaction, not `execute_read`: the driver retries transient errors,
                # and Neo4j running out of heap is one, so the query that exhausted the heap would
                # run again at once. User Cypher is not retried (its client may).
                with map_query_error(limit), _heap_exhaustion(), \
                        session.begin_transaction(timeout=limit) as tx:
                    records = itertools.islice(tx.run(text, params), max_rows)
                    return [{k: to_plain(v) for k, v in record.items()} for record in records]

        return self._bounded(call, limit + DEADLINE_GRACE, "running a query", limit)


@contextlib.contextmanager
def _heap_exhaustion() -> Iterator[None]:
    """Neo4j's heap running out under one user query as QueryLimitError (422) naming the cause. Why
    not the transaction cap: `db.memory.transaction.max` tracks rows and collections, not values
    built inside an expression (a string doubled in `reduce()` reached the 1 GB heap in ~3 s)."""
    try:
        yield
    except nex.Neo4jError as err:
        if not (err.code or "").endswith("General.OutOfMemoryError"):
            raise
        raise QueryLimitError(
            "Neo4j ran out of heap memory answering the query (values built inside an expression, "
            "such as a string grown in reduce(), are not held to db.memory.transaction.max)",
            "return smaller values; the query was not retried") from err


def _other_source(meta: Meta, delta: GraphDelta) -> bool:
    """Whether the database holds a graph another build state wrote (both sides named: a graph
    saved without a state, by an older paperkg, or imported, may be replaced as before)."""
    return meta.source is not None and delta.source is not None and meta.source != delta.source


def _over_memory(err: BaseException) -> bool:
    """Whether `err` is Neo4j refusing a transaction over `db.memory.transaction.max` (a transient
    error code, but retrying the same work cannot succeed)."""
    return isinstance(err, nex.Neo4jError) and "MemoryPoolOutOfMemoryError" in (err.code or "")


def _warn(message: str) -> None:
    warnings.warn(message, stacklevel=3)


def _missing_index(err: BaseException) -> bool:
    """Whether a query failed because a full-text index it calls does not exist (any more)."""
    cause = err.__cause__
    return (isinstance(cause, nex.Neo4jError) and (cause.code or "").endswith("ProcedureCallFailed")
            and "no such fulltext schema index" in str(cause.message or ""))


def _quoted(name: str) -> str:
    """A column name as a Cypher variable (backticks, doubled inside)."""
    return "`" + name.replace("`", "``") + "`"


def _columns_of(cypher: str, params: dict[str, Any], timeout: float
                ) -> Callable[[neo4j.ManagedTransaction], tuple[str, ...]]:
    """A transaction function returning the result columns of `cypher` (planned, not run)."""

    @neo4j.unit_of_work(timeout=timeout)
    def work(tx: neo4j.ManagedTransaction) -> tuple[str, ...]:
        result = tx.run("EXPLAIN " + cypher, params)
        columns = tuple(result.keys())
        result.consume()
        return columns

    return work


def _rows_of(cypher: str, params: dict[str, Any], timeout: float
             ) -> Callable[[neo4j.ManagedTransaction], list[dict[str, Any]]]:
    """A transaction function returning the rows as plain dicts, with the server-side timeout."""

    @neo4j.unit_of_work(timeout=timeout)
    def work(tx: neo4j.ManagedTransaction) -> list[dict[str, Any]]:
        return [{k: to_plain(v) for k, v in record.items()} for record in tx.run(cypher, params)]

    return work


@dataclass
class Part:
    """One statement with its rows (at most about `batch_size`); `what` names them for error
    messages; `expect`: how many the statement must report written (None: no check, deletions)."""

    text: str
    rows: list[dict]
    what: str
    expect: int | None = None
    label: str = ""     # node parts: their label (for the element ids create_nodes returns)


def _pack(parts: list[Part], size: int) -> Iterator[list[Part]]:
    """Consecutive parts grouped into transactions of at most `size` rows. A graph has up to ~200
    (type, source label, target label) groups, most of them small; one commit each would cost more
    than writing their rows."""
    batch: list[Part] = []
    rows = 0
    for part in parts:
        if batch and rows + len(part.rows) > size:
            yield batch
            batch, rows = [], 0
        batch.append(part)
        rows += len(part.rows)
    if batch:
        yield batch


def _batches(rows: Sequence[_T], size: int) -> Iterator[list[_T]]:
    for start in range(0, len(rows), size):
        yield list(rows[start:start + size])


def _split_update(update: figures.Update, size: int) -> Iterator[figures.Update]:
    """An update as pieces of about `size` items each (a transaction each, for big deltas), applied
    in order: what is gone, dropped and written before any cut back, the recomputations last."""
    items: list[tuple[str, Any]] = [("gone", k) for k in sorted(update.gone)]
    items += [("co_drop", k) for k in update.co_drop] + [("co_put", k) for k in update.co_put]
    items += [("co_trim", k) for k in update.co_trim]
    items += [("intro", k) for k in sorted(update.intro.items())]
    items += [("redo_e", k) for k in sorted(update.redo_entities)]
    items += [("redo_c", k) for k in sorted(update.redo_collections)]
    for start in range(0, len(items), size):
        piece = figures.Update()
        for kind, item in items[start:start + size]:
            if kind == "gone":
                piece.gone.add(item)
            elif kind == "intro":
                piece.intro[item[0]] = item[1]
            elif kind == "redo_e":
                piece.redo_entities.add(item)
            elif kind == "redo_c":
                piece.redo_collections.add(item)
            else:
                getattr(piece, kind).append(item)
        yield piece
