"""The Neo4j store's connection: the driver made once and checked, driver failures mapped to one-line
paperkg errors, reads with a client-side deadline, writes retried on transient errors, and work run on
several sessions at once. The other `neo4j_*` modules add their jobs to this base class."""

from __future__ import annotations

import concurrent.futures
import contextlib
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import neo4j
from neo4j import GraphDatabase
from neo4j import exceptions as nex

from paperkg.graph.errors import (
    BadInputError,
    PaperkgError,
    QueryTimeoutError,
    StoreUnavailableError,
    UsageError,
)

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


# Bolt only: the driver's http(s) Query API support is a preview and needs extra packages.
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


_T = TypeVar("_T")


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


def _over_memory(err: BaseException) -> bool:
    """Whether `err` is Neo4j refusing a transaction over `db.memory.transaction.max` (a transient
    error code, but retrying the same work cannot succeed)."""
    return isinstance(err, nex.Neo4jError) and "MemoryPoolOutOfMemoryError" in (err.code or "")


class Neo4jConnection:
    """The connection half of `Neo4jStore` (its settings are set by `Neo4jStore.__init__`)."""

    uri: str
    user: str | None
    _password: str | None
    database: str | None
    batch_size: int
    connection_timeout: float
    query_timeout: float
    workers: int
    _driver: neo4j.Driver | None
    _ready: bool
    _lock: threading.Lock
    _schema_ok: bool
    _pool: concurrent.futures.ThreadPoolExecutor | None

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
