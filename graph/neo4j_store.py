"""The Neo4j store: the same `GraphStore` interface as the embedded store, on a user's Neo4j server.

Design, and why:

- **One statement file per operation** (`graph/*.cypher`). Labels and relationship types cannot be
  Cypher parameters, so the files carry `{label}` / `{type}` / `{source_label}` / `{target_label}`
  placeholders that are filled only from the closed sets in `graph/model.py`, after a check, never
  from user text.
- **Batched, idempotent writes.** Nodes are upserted per label and relationships per (type, source
  label, target label) with `UNWIND $rows AS row MERGE ... SET x = row.props`, `batch_size` rows per
  managed write transaction (`execute_write`), so the driver retries transient errors. Small groups
  share a transaction (a graph has up to ~200 groups; a commit each tripled the save time). MERGE on
  the deterministic `id` (backed by a uniqueness constraint per label from `schema.cypher`) makes a
  re-run a no-op and lets an interrupted save be completed by saving again.
- **The stored graph equals the given graph exactly.** The graph is re-derived from the whole corpus on
  every build, so properties are replaced (`SET n = row.props`), and after the upserts every node of a
  paperkg label whose id is not in the graph, and every relationship of a paperkg type whose
  (type, source, target) is not in the graph, is deleted (duplicates too). Deleting last means a
  reader never sees a graph missing something both the old and the new build have. Finding stale
  things reads stored keys only for labels/types whose count differs from the graph's (after the
  upserts, equal counts prove there is nothing stale), so growing builds skip it.
- **Not locked.** Unlike the embedded store, two builds into one database at once are not prevented
  and can interleave (one may fail with "endpoints vanished"); run builds one at a time. Any single
  later save repairs the database to exactly its graph.
- **Ids.** Neo4j nodes carry the model's unprefixed `id`; relationships are matched by endpoint label
  and id. The embedded store's node keys (`paper:<id>` for papers, see `model.node_key`) are rebuilt on
  export, so `export()` returns the very `KnowledgeGraph` that was saved and GraphML is the same from
  both stores.
- **The corpus lives on the Paper nodes** as `source_json` (JSON of `corpus.entry_to_dict`), so
  `load_corpus()` can rebuild it for the next incremental build; `export()` and `run_read()` drop it.
- **Precomputed figures** (`FIGURE_PROPS`, hidden like `source_json`). `cooccurring` and
  `introduced_in` otherwise walk every co-mention of a popular entity (90k relationships at 100k
  abstracts) or every introduction of a large collection on each call. `save` derives them from the
  very graph it writes (`figures`) and sends them in the same `SET n = row.props` as the node's own
  properties, so after any save (a re-save, a save that removes papers) they describe exactly the
  stored graph, a re-save writes the same values, and no reader ever sees a node without them. They
  are not part of the `KnowledgeGraph`: `export()` (so GraphML), `stats()` and `to_plain` drop them.
  A database saved by an older paperkg has none (those two queries return no rows) until saved again.
- **Failures are one line.** An unreachable server, wrong credentials or a missing database become
  `StoreUnavailableError` (exit 69) on the first operation, with the URI and what to do; Cypher errors
  in user queries become `BadInputError` with Neo4j's message.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, TypeVar

import neo4j
from neo4j import GraphDatabase
from neo4j import exceptions as nex
from neo4j.graph import Node as NeoNode
from neo4j.graph import Path as NeoPath
from neo4j.graph import Relationship as NeoRelationship

from paperkg.graph.corpus import Corpus, PaperEntry, entry_from_dict
from paperkg.graph.cypher_guard import DEFAULT_TIMEOUT, check_params, check_read_only, map_query_error, scan
from paperkg.graph.errors import (
    BadInputError,
    PaperkgError,
    QueryTimeoutError,
    StoreUnavailableError,
    UsageError,
)
from paperkg.graph.model import EDGE_TYPES, ENTITY_LABELS, NODE_LABELS, Edge, KnowledgeGraph, Node, node_key
from paperkg.graph.secrets import register_secret, split_credentials
from paperkg.graph.store import empty_stats, graph_stats

DEFAULT_BATCH_SIZE = 5000
SOURCE_JSON = "source_json"
# Figures the catalog reads instead of walking tens of thousands of relationships per call, derived
# from the saved graph by `figures` and written with it (see "Precomputed figures" above). Entities:
# the entities co-mentioned with them (`queries/cooccurring.cypher`); collections: the entities their
# papers introduce (`queries/introduced_in.cypher`). Parallel lists in the queries' ORDER BY order.
CO_PROPS = ("_co_ids", "_co_names", "_co_types", "_co_papers")
INTRO_PROPS = ("_intro_ids", "_intro_names", "_intro_types", "_intro_papers", "_intro_paper")
FIGURE_PROPS = frozenset((*CO_PROPS, *INTRO_PROPS))
# The largest `limit` cooccurring and introduced_in accept (their catalog headers): the lists keep the
# first FIGURE_LIMIT entries overall and, for co-mentions, the first FIGURE_LIMIT of each entity type.
FIGURE_LIMIT = 1000
# Internal properties no reader of the graph should see (the corpus kept on Paper nodes, the figures).
HIDDEN_NODE_PROPS = frozenset({SOURCE_JSON, *FIGURE_PROPS})
CONNECTION_TIMEOUT = 10.0
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
# How long managed transactions keep retrying transient errors (deadlocks, leader switches).
RETRY_TIME = 30.0

_SCALARS = frozenset({str, int, float, bool, type(None)})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
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


def _ranked(graph: KnowledgeGraph, counts: Mapping[str, int]) -> list[tuple[int, str, str, str]]:
    """(-count, name, id, key) of every counted node, in `ORDER BY count DESC, name, id` order."""
    nodes = graph.nodes
    return sorted((-n, str(nodes[k].props.get("name", "")), nodes[k].id, k) for k, n in counts.items())


def figures(graph: KnowledgeGraph) -> dict[str, dict[str, list]]:
    """The hidden figure properties (`FIGURE_PROPS`) of every node that has some, by node key.

    - entity E: every other entity mentioned by a paper that mentions E, with the number of such
      papers (`_co_papers`), ordered by papers desc, name, id: the rows of `cooccurring` for E. Kept:
      the first FIGURE_LIMIT overall plus the first FIGURE_LIMIT of each type, so the first `limit`
      rows with or without a type filter are exact (an entry in the overall top is in its type's top).
    - collection C: every entity a Paper of C introduces, with the number of introducing papers and
      the smallest of their ids, ordered by papers desc, name, id: `introduced_in` for C (first
      FIGURE_LIMIT).
    Same semantics as the embedded implementations (`queries/embedded_impl.py`), which compute the
    same rows from the networkx graph; the parity tests hold the two stores to that."""
    nodes = graph.nodes
    entity = {k for k, n in nodes.items() if n.label in ENTITY_LABELS}
    mentions: dict[str, list[str]] = defaultdict(list)     # paper key -> entity keys it mentions
    introduces: dict[str, set[str]] = defaultdict(set)     # paper key -> entity keys it introduces
    members: dict[str, list[str]] = defaultdict(list)      # collection key -> paper keys
    for edge in graph.edges.values():
        if edge.type == "MENTIONS" and edge.target in entity:
            mentions[edge.source].append(edge.target)
        elif edge.type == "INTRODUCES":
            introduces[edge.source].add(edge.target)
        elif edge.type == "IN_COLLECTION" and nodes[edge.source].label == "Paper":
            members[edge.target].append(edge.source)
    papers_of: dict[str, list[str]] = defaultdict(list)
    for paper, targets in mentions.items():
        for target in targets:
            papers_of[target].append(paper)
    out: dict[str, dict[str, list]] = {}
    for key, papers in papers_of.items():
        counts: Counter[str] = Counter()
        for paper in papers:
            counts.update(mentions[paper])
        counts.pop(key, None)
        if not counts:
            continue
        per_type: Counter[str] = Counter()
        kept = []
        for rank, (neg, name, oid, other) in enumerate(_ranked(graph, counts)):
            otype = str(nodes[other].props.get("type"))
            per_type[otype] += 1
            if rank < FIGURE_LIMIT or per_type[otype] <= FIGURE_LIMIT:
                kept.append((oid, name, otype, -neg))
        out[key] = dict(zip(CO_PROPS, map(list, zip(*kept, strict=True)), strict=True))
    for key, papers in members.items():
        introducing: dict[str, list[str]] = defaultdict(list)
        for paper in papers:
            for target in introduces.get(paper, ()):
                introducing[target].append(nodes[paper].id)
        if not introducing:
            continue
        ranked = _ranked(graph, {k: len(v) for k, v in introducing.items()})[:FIGURE_LIMIT]
        kept = [(oid, name, str(nodes[k].props.get("type")), -neg, min(introducing[k]))
                for neg, name, oid, k in ranked]
        out[key] = dict(zip(INTRO_PROPS, map(list, zip(*kept, strict=True)), strict=True))
    return out


def _timed_out(err: BaseException) -> bool:
    """Whether `err` (a BadInputError from `map_query_error`) is Neo4j's transaction timeout."""
    cause = err.__cause__
    return isinstance(cause, nex.Neo4jError) and "TransactionTimedOut" in (cause.code or "")


def _plain_dataclass(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return vars(obj) if hasattr(obj, "__dict__") else dataclasses.asdict(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")


def source_json(entry: PaperEntry) -> str:
    """The JSON of `corpus.entry_to_dict(entry)` (same text: a test holds them equal), built without
    `dataclasses.asdict`, whose deep copies made it 3x slower (2 s per 10,000 papers)."""
    data = {"key": entry.key, "records": [r for _, r in sorted(entry.records.items())],
            "extraction": entry.extraction}
    return json.dumps(data, default=_plain_dataclass, ensure_ascii=False, sort_keys=True)


@cache
def _checked(name: str, allowed: tuple[str, ...], what: str) -> str:
    if name not in allowed or not _NAME.match(name):
        raise ValueError(f"{what} {name!r} is not one of the paperkg {what}s {list(allowed)}")
    return name


def render(name: str, *, label: str | None = None, type: str | None = None,
           source_label: str | None = None, target_label: str | None = None) -> str:
    """Fill a statement's placeholders, only with names from the closed sets of `graph/model.py`."""
    text = statement(name)
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
    properties (without `source_json`), paths a dict of node and relationship lists, temporal and
    spatial values their ISO/str form."""
    kind = type(value)
    if kind in _SCALARS:            # most values: skip the isinstance chain (ABC checks are slow)
        return value
    if kind is list:                # a catalog answer is one list of row lists: scalars inline
        return [v if type(v) in _SCALARS else to_plain(v) for v in value]
    if isinstance(value, NeoNode):
        return {k: to_plain(v) for k, v in value.items() if k not in HIDDEN_NODE_PROPS}
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


class Neo4jStore:
    """`GraphStore` on a Neo4j server (5.x, Community or Enterprise, no plugins needed)."""

    kind = "neo4j"

    def __init__(self, uri: str, user: str | None = None, password: str | None = None,
                 database: str | None = None, batch_size: int = DEFAULT_BATCH_SIZE, *,
                 connection_timeout: float = CONNECTION_TIMEOUT, query_timeout: float = DEFAULT_TIMEOUT
                 ) -> None:
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
        self._driver: neo4j.Driver | None = None
        self._ready = False
        self._lock = threading.Lock()
        self._schema_ok = False            # every index of schema.cypher seen online (see ensure_ready)
        self._columns: dict[str, tuple[str, ...]] = {}   # catalog Cypher -> its columns (run_catalog)
        self._schema_lock = threading.Lock()

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
            if ".Security." in code:
                raise StoreUnavailableError(
                    f"Neo4j at {self.uri} refused {action}: {_first_line(err)}",
                    "use a user allowed to read and write the database") from err
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
                    max_transaction_retry_time=RETRY_TIME, user_agent="paperkg",
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
        self._driver, self._ready = None, False

    def ping(self) -> None:
        """One `RETURN 1` round trip, without the driver's transaction retries (an auto-commit
        query): raises StoreUnavailableError when the server is down, refuses the credentials or lacks
        the database. The API's /health calls it (with its own deadline, for a frozen server)."""
        with self._errors("checking the server"), self._connect().session(
                database=self.database, default_access_mode=neo4j.READ_ACCESS) as session:
            session.run("RETURN 1").consume()

    def version(self) -> None:
        """Every query reads the database live: there is nothing to reload after a rebuild."""
        return None

    def close(self) -> None:
        if self._driver is not None:
            self._driver.close()
        self._driver, self._ready, self._schema_ok = None, False, False

    def __enter__(self) -> Neo4jStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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

    def save(self, corpus: Corpus, graph: KnowledgeGraph) -> None:
        """Make the database hold exactly `graph` (and `corpus` on its Paper nodes): schema, node
        upserts, relationship upserts, then stale deletes. The graph is checked against the closed
        sets before anything is sent. Safe to re-run after any interruption."""
        node_rows, edge_rows = self._rows(corpus, graph)
        parts: list[Part] = []  # in write order: every node before any relationship
        for label in NODE_LABELS:
            text = render("merge_nodes", label=label)
            parts += [Part(text, batch, f"{label} nodes")
                      for batch in _batches(node_rows.get(label, []), self.batch_size)]
        for (etype, slabel, tlabel), rows in sorted(edge_rows.items()):
            text = render("merge_edges", type=etype, source_label=slabel, target_label=tlabel)
            parts += [Part(text, batch, f"{etype} relationships")
                      for batch in _batches(rows, self.batch_size)]
        self._connect()
        self.ensure_schema()
        with self._errors("saving the graph"), self._session() as session:
            for batch in _pack(parts, self.batch_size):
                self._write_batch(session, batch)
            self._delete_stale(session, graph)

    def _rows(self, corpus: Corpus, graph: KnowledgeGraph
              ) -> tuple[dict[str, list[dict]], dict[tuple[str, str, str], list[dict]]]:
        """Parameter rows per node label and per (type, source label, target label), checked against
        the closed sets; Paper rows carry the corpus entry as `source_json`."""
        entries = {entry.id: entry for entry in corpus}
        figured = figures(graph)
        node_rows: dict[str, list[dict]] = defaultdict(list)
        for key, node in sorted(graph.nodes.items()):
            _checked(node.label, NODE_LABELS, "node label")
            if key != node.key:
                raise ValueError(f"node {node.label} {node.id!r} is under key {key!r}, not {node.key!r}")
            hidden = sorted(FIGURE_PROPS.intersection(node.props))
            if hidden:
                raise ValueError(f"node {key!r} has property {hidden[0]!r}, reserved for the Neo4j store")
            props = {**node.props, **figured.get(key, {}), "id": node.id}
            _check_terms(node.label, node.id, props.get(FULLTEXT_LISTS.get(node.label, "")))
            if node.label == "Paper":
                entry = entries.pop(node.id, None)
                if entry is not None:
                    props[SOURCE_JSON] = source_json(entry)
            node_rows[node.label].append({"id": node.id, "props": props})
        if entries:
            missing = ", ".join(sorted(entries)[:5])
            raise ValueError(f"{len(entries)} corpus paper(s) have no Paper node in the graph: {missing}")
        edge_rows: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
        for eid, edge in sorted(graph.edges.items()):
            _checked(edge.type, EDGE_TYPES, "relationship type")
            source, target = graph.nodes.get(edge.source), graph.nodes.get(edge.target)
            if source is None or target is None or eid != edge.id:
                raise ValueError(f"edge {eid!r} does not join two nodes of the graph")
            edge_rows[(edge.type, source.label, target.label)].append(
                {"source": source.id, "target": target.id, "props": dict(edge.props)})
        return node_rows, edge_rows

    def _write_batch(self, session: neo4j.Session, parts: list[Part]) -> None:
        """One managed write transaction (retried by the driver on transient errors) running one or more
        statement parts, `batch_size` rows in all."""

        def work(tx: neo4j.ManagedTransaction) -> list[int]:
            written = []
            for part in parts:
                record = tx.run(part.text, rows=part.rows).single()
                written.append(int(record["written"]) if record else 0)
            return written

        for part, written in zip(parts, session.execute_write(work), strict=True):
            if written != len(part.rows):
                raise StoreUnavailableError(
                    f"Neo4j at {self.uri} wrote {written} of {len(part.rows)} {part.what}: endpoints "
                    "vanished during the save (another process writing the same database?)",
                    "run the build again")

    def _delete_stale(self, session: neo4j.Session, graph: KnowledgeGraph) -> None:
        """Delete what the new graph no longer has: relationships first (by type, with duplicates),
        then nodes (by label), found by reading the stored keys and comparing in Python.

        Fast path, exact: after the upserts every wanted node and relationship exists at least once,
        so a type (or label) whose stored count equals the graph's count holds nothing else, and its
        keys need not be read. Only types and labels that shrank (or hold strays) are scanned."""
        stored = session.execute_read(self._count_all)
        wanted = graph_stats(graph)
        wanted_edges = set(graph.edges)
        for etype in EDGE_TYPES:
            if stored["edges"][etype] == wanted["edges"][etype]:
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
                if key is None or key not in wanted_edges or key in seen:
                    stale.append(record["element_id"])
                else:
                    seen.add(key)
            self._delete(session, "delete_edges", stale)
        wanted_nodes = set(graph.nodes)
        for label in NODE_LABELS:
            if stored["nodes"][label] == wanted["nodes"][label]:
                continue
            text = render("node_ids", label=label)
            stale = [
                record["element_id"]
                for record in session.execute_read(lambda tx, text=text: list(tx.run(text)))
                if record["id"] is None or node_key(label, record["id"]) not in wanted_nodes
            ]
            self._delete(session, "delete_nodes", stale)

    def _delete(self, session: neo4j.Session, name: str, element_ids: list[str]) -> None:
        text = statement(name)
        for batch in _batches(element_ids, self.batch_size):
            session.execute_write(lambda tx, batch=batch: tx.run(text, element_ids=batch).consume())

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
        return self._read(self._count_all, "counting the graph")

    def export(self) -> KnowledgeGraph:
        """The stored graph as the `KnowledgeGraph` that was saved (internal `source_json` dropped),
        nodes in key order and edges in id order like a fresh build."""

        def work(tx: neo4j.ManagedTransaction) -> KnowledgeGraph:
            nodes: list[Node] = []
            for label in NODE_LABELS:
                for record in tx.run(render("export_nodes", label=label)):
                    props = {k: v for k, v in record["props"].items()
                             if k not in HIDDEN_NODE_PROPS and v is not None}
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

    def load_corpus(self) -> Corpus:
        def work(tx: neo4j.ManagedTransaction) -> list[str]:
            return [record["source_json"] for record in tx.run(statement("load_corpus"))]

        texts = self._read(work, "loading the corpus")
        entries = []
        for text in texts:
            try:
                entries.append(entry_from_dict(json.loads(text)))
            except (ValueError, KeyError, TypeError) as err:
                raise StoreUnavailableError(
                    f"a Paper node in Neo4j at {self.uri} holds an unreadable corpus entry: {err}",
                    "rebuild the graph into an empty database") from err
        corpus = Corpus()
        for entry in sorted(entries, key=lambda e: e.key):
            corpus.papers[entry.key] = entry
            for rid in entry.ids:
                corpus.by_id[rid] = entry.key
        return corpus

    def run_read(self, cypher: str, params: Mapping[str, Any] | None = None, *,
                 timeout: float | None = None) -> list[dict[str, Any]]:
        """Run trusted read-only Cypher (the named query catalog) in a READ transaction with a
        timeout; rows as plain dicts (see `to_plain`). The first call checks that the indexes the
        catalog relies on are online (`ensure_ready`)."""
        limit = self.query_timeout if timeout is None else timeout
        params = check_params(params)
        self.ensure_ready()
        with self._errors("running a query"), self._session(neo4j.READ_ACCESS) as session, \
                map_query_error(limit):
            return session.execute_read(_rows_of(cypher, params, limit))

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
                    "retry in a moment (the server may be busy), or narrow the query: a smaller "
                    "limit, a less common name, a type filter") from err
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
        self.ensure_ready()
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

    def run_user_cypher(self, text: str, params: Mapping[str, Any] | None = None, *,
                        timeout: float | None = None) -> list[dict[str, Any]]:
        """Run user-supplied Cypher only if the read-only guard accepts it (see `cypher_guard`):
        keyword scan, then `EXPLAIN` must say query type "r", then a READ transaction with a timeout."""
        limit = self.query_timeout if timeout is None else timeout
        params = check_params(params)
        scan(text)  # before connecting: a refusal needs no server
        with self._errors("running a query"), self._session(neo4j.READ_ACCESS) as session:
            check_read_only(session, text, params)
            with map_query_error(limit):
                return session.execute_read(_rows_of(text, params, limit))


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
    """One statement with its rows (at most `batch_size`); `what` names them for error messages."""

    text: str
    rows: list[dict]
    what: str


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
