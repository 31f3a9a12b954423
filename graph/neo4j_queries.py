"""The Neo4j store's query runners: trusted catalog Cypher (`run_read`, and `run_catalog`, which
fetches the rows as one record) and user Cypher through the read-only guard, each in a READ
transaction with a server timeout and a client deadline; driver values made plain JSON-ready Python."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import neo4j
from neo4j import exceptions as nex
from neo4j.graph import Node as NeoNode
from neo4j.graph import Path as NeoPath
from neo4j.graph import Relationship as NeoRelationship

from paperkg.graph.cypher_guard import check_params, check_read_only, map_query_error, scan
from paperkg.graph.errors import (
    BadInputError,
    QueryLimitError,
    QueryTimeoutError,
)
from paperkg.graph.neo4j_connection import DEADLINE_GRACE, QUERY_TIMEOUT_HINT
from paperkg.graph.neo4j_cypher import STORE_ONLY_PROPS
from paperkg.graph.neo4j_lease import Neo4jLease
from paperkg.graph.neo4j_schema import Neo4jSchema

_SCALARS = frozenset({str, int, float, bool, type(None)})


def to_plain(value: Any) -> Any:
    """A driver value as plain JSON-ready Python: nodes and relationships become dicts of their
    properties (a paperkg node's graph properties), paths a dict of node and relationship lists, temporal and
    spatial values their ISO/str form."""
    kind = type(value)
    if kind in _SCALARS:            # most values: skip the isinstance chain (ABC checks are slow)
        return value
    if kind is list:                # a catalog answer is one list of row lists: scalars inline
        return [v if type(v) in _SCALARS else to_plain(v) for v in value]
    if isinstance(value, NeoNode):
        # the graph's properties, as the embedded store answers: not those only the Neo4j store
        # adds for its browser and indexes (a Paper's caption, an entity's keys_text)
        hidden = {p for label in value.labels for p in STORE_ONLY_PROPS.get(label, ())}
        return {k: to_plain(v) for k, v in value.items() if k not in hidden}
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


def _timed_out(err: BaseException) -> bool:
    """Whether `err` (a BadInputError from `map_query_error`) is Neo4j's transaction timeout."""
    cause = err.__cause__
    return isinstance(cause, nex.Neo4jError) and "TransactionTimedOut" in (cause.code or "")


class Neo4jQueries(Neo4jLease, Neo4jSchema):
    """Query runners of `Neo4jStore`."""

    _columns: dict[str, tuple[str, ...]]

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
