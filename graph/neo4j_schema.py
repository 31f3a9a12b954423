"""The Neo4j store's schema: the constraints and indexes of `schema.cypher`, created and waited for
before a save writes and before the first catalog query reads."""

from __future__ import annotations

import threading

import neo4j
from neo4j import exceptions as nex

from paperkg.graph.errors import (
    StoreUnavailableError,
)
from paperkg.graph.neo4j_connection import Neo4jConnection, _first_line
from paperkg.graph.neo4j_cypher import schema_index_names, schema_statements, statement

# The TEXT index over `keys_text`, which entities saved before it lack (`ensure_schema` fills them in).
KEYS_TEXT_INDEX = "paperkg_entity_keys_text"
# How long `ensure_schema` waits for new indexes to be populated (a full-text index over the ~14k
# entities of 100k abstracts takes a second or two; a million-paper graph, longer).
INDEX_WAIT = 600


class Neo4jSchema(Neo4jConnection):
    """Schema setup of `Neo4jStore`."""

    _schema_lock: threading.Lock

    def ensure_schema(self) -> None:
        """Create the constraints and indexes of `schema.cypher` (each in a transaction of its own, as
        schema changes need) and wait until all of them are online.

        Why wait: an index is created empty and populated in the background; until it is online a
        full-text query fails ("index is not online") and the catalog's entity lookups go through
        one. Waiting here, before the save writes anything, costs nothing on a new database and a
        population of the existing entities on one saved by an older paperkg, whose entities also
        get the `keys_text` the TEXT index holds (`backfill_keys_text.cypher`: 7 s for 550k)."""
        with self._errors("creating the schema"), self._session() as session:
            existing = self._index_names(session)
            for text in schema_statements():
                session.execute_write(lambda tx, text=text: tx.run(text).consume())
            if KEYS_TEXT_INDEX not in existing:
                # a store saved before the index: give its entities the string it indexes
                session.run(statement("backfill_keys_text")).consume()
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

    @staticmethod
    def _index_names(session: neo4j.Session) -> set[str] | frozenset[str]:
        """The indexes the database has; for a user who may not list them, none (so the keys_text
        backfill, idempotent, runs rather than being skipped)."""
        try:
            return session.execute_read(lambda tx: {r["name"] for r in tx.run(statement("index_states"))})
        except nex.ClientError as err:
            if ".Security." in (err.code or ""):
                return frozenset()
            raise

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
