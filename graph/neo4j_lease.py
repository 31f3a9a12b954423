"""The Neo4j store's save marker and build lease (`PaperkgMeta` nodes): whether the stored graph is one
a build finished (`build_status`, `ping`, `require_complete`), which generation it holds, and the
lease that makes builds from any machine write one at a time."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import neo4j
from neo4j import exceptions as nex

from paperkg.graph.errors import (
    GraphIncompleteError,
    PaperkgError,
    StoreUnavailableError,
)
from paperkg.graph.neo4j_connection import Neo4jConnection
from paperkg.graph.neo4j_cypher import statement
from paperkg.graph.store import GraphDelta

# The layout of the precomputed figures (recorded by every complete save): 2, co-mentions as one
# `PaperkgCo` entry each (1 was one list per entity). A database saved with another layout is not in
# step: the next build rewrites it whole.
FIGURES_FORMAT = 2


# `ping`: how long the health check may take.
PING_TIMEOUT = 3.0
# How long a reader takes the stored graph for complete, once the save marker said so, before
# asking again (`require_complete`): once a second at most, not a round trip per query.
STATUS_TTL = 1.0
# The build lease's time to live without a heartbeat (a killed build blocks the next for at most this).
LEASE_TTL = 30.0
LEASE_POLL = 0.5


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


def _other_source(meta: Meta, delta: GraphDelta) -> bool:
    """Whether the database holds a graph another build state wrote (both sides named: a graph
    saved without a state, by an older paperkg, or imported, may be replaced as before)."""
    return meta.source is not None and delta.source is not None and meta.source != delta.source


def _warn(message: str) -> None:
    warnings.warn(message, stacklevel=3)


class Neo4jLease(Neo4jConnection):
    """Health, save marker and lease of `Neo4jStore`."""

    lease_ttl: float
    on_wait: Callable[[str], None] | None
    _complete_until: float
    _lease_owner: str | None
    _lease_depth: int
    _lease_lost: bool
    _source: tuple[str | None, str | None]

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
