"""The build state: one SQLite database in the store directory, the only thing a build reads and writes.

It holds the records (one JSON row per input record), each paper's extraction (JSON) and the
fingerprint of the extractor that made it, and the derived graph (one JSON row per node and edge).
Why SQLite (stdlib `sqlite3`):

- **One transaction per build.** `BuildState.transaction` takes the write lock (`BEGIN IMMEDIATE`)
  before the build reads anything and commits once at the end, so two builds into one store run one
  after the other and neither loses the other's papers; a build killed at any point rolls back to the
  previous state on the next open (SQLite's journal), with no temp files to clean.
- **Readers are never blocked.** In WAL mode a server reading the graph sees the last committed
  build, whole, while the next one writes.
- **Nothing stored runs code.** Rows are JSON of plain values, not pickles, so opening a store (even a
  hostile one) executes nothing, and moving a class never makes a store unreadable. The schema has a
  version (`PRAGMA user_version`); a store of another version says how to rebuild.
- **Work is the change.** Beside the papers the state keeps what resolution needs as
  order-independent aggregates (`graph/derive.py`), so a build re-derives only the entities and
  relations its new and removed papers touch, compares those rows with the stored ones and writes
  only what changed; the same difference is the `GraphDelta` a Neo4j target applies.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import socket
import sqlite3
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from paperkg.graph.corpus import (
    Corpus,
    PaperEntry,
    RecordMeta,
    extraction_from_dict,
    merge_records,
    record_meta,
    text_key,
)
from paperkg.graph.curation import SCHEMA as CORRECTIONS_SCHEMA
from paperkg.graph.derive import LEAN_MENTIONS, Derivation, mentions_owner, read_graph, rows_in
from paperkg.graph.derive import SCHEMA as DERIVE_SCHEMA
from paperkg.graph.errors import (
    BadInputError,
    InputNotFoundError,
    PaperkgError,
    StoreCorruptError,
    StoreFullError,
    StoreIOError,
    StoreNotWritableError,
    StoreUnavailableError,
)
from paperkg.graph.migrate import count_definitions, count_years, rekey_entities
from paperkg.graph.model import EDGE_TYPES, ENTITY_LABELS, NODE_LABELS, KnowledgeGraph, node_key
from paperkg.graph.normalize import compact_key, latex_spacing
from paperkg.graph.records import Extraction, PaperInput
from paperkg.graph.store import GraphDelta, GraphWriter, empty_stats

SCHEMA_VERSION = 14
DB_FILE = "state.sqlite"
# The store format before this one: a pickle, which this version never opens (loading one runs code).
LEGACY_FILE = "graph.pickle"
# The pid of the build holding the write lock, beside the database. SQLite's lock goes with its
# holder, so a killed build never blocks the next one; this file is what lets the next one say so.
OWNER_FILE = "build.owner"
# How often a waiting build retries the write lock (it prints its message once).
_LOCK_POLL_MS = 200
# How long any other statement waits for a lock SQLite holds for a moment: a checkpoint, the
# recovery of a killed build's log, another process's first read of a new store. On a disk
# saturated by another build these took longer than the poll above, and a second build exited
# "database is locked" where it had only to wait.
_BUSY_WAIT_S = 60.0
# Papers a build derives (and checks for extraction) at a time: a batch's extractions and rows are
# what it holds in memory (about 1 GB per 50k synthetic papers), and every batch re-reads the
# aggregates of the entities and relations it touches, so batches are as big as memory allows.
DERIVE_BATCH = 50_000
# Page cache of each connection, KiB (SQLite allocates it as pages are read, not up front).
_CACHE_KIB = 256 * 1024
# A build verifies the database (`PRAGMA quick_check`, which reads every page) before extracting
# when the file is at most this big: about a second. In bigger stores the tables a served view
# loads whole are checked when it loads them (`EmbeddedStore.networkx`, i.e. `paperkg serve` and
# queries; `embedded.VIEW_TABLES`), and a build still names the
# damage SQLite meets on the pages it reads; a full check on every build would make adding 100
# abstracts to a 1M store cost a read of the whole store.
QUICK_CHECK_MAX_BYTES = 256 * 2**20
# What a paper costs on disk before the store has papers to measure (a real arXiv abstract's store
# takes a little less: benchmarks/README.md, "disk room"), and how much room a build asks for beyond
# its estimate (the WAL holds a second copy of what it writes until the checkpoint).
_BYTES_PER_PAPER = 25_000
_ROOM_FACTOR = 2
# How long a build waits, after committing, for readers to let go of the log so that it can empty
# it (`BuildState._checkpoint`), and the size SQLite trims the log to when it starts it over.
CHECKPOINT_WAIT_S = 10.0
_WAL_LIMIT_BYTES = 64 * 2**20
# Temporary files of the pickle stores (killed saves left them): a build removes them.
_LEGACY_TEMP_GLOB = ".graph-*.tmp"

# SQLite's primary result codes (`sqlite_errorcode & 0xff`) that name a store failure.
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED = 3, 5, 6
_SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CORRUPT = 8, 10, 11
_SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 13, 14, 26

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE records (
    id TEXT NOT NULL, collection TEXT NOT NULL, paper TEXT NOT NULL, meta TEXT NOT NULL,
    PRIMARY KEY (id, collection));
CREATE INDEX records_paper ON records (paper);
CREATE INDEX records_collection ON records (collection, paper);
CREATE TABLE papers (
    key TEXT PRIMARY KEY, extractor TEXT NOT NULL DEFAULT '', extraction TEXT);
CREATE INDEX papers_extractor ON papers (extractor);
CREATE TABLE pending_derive (paper TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE nodes (
    key TEXT PRIMARY KEY, label TEXT NOT NULL, owner TEXT NOT NULL, props TEXT NOT NULL,
    text TEXT);
CREATE INDEX nodes_owner ON nodes (owner);
CREATE TABLE edges (
    id TEXT PRIMARY KEY, type TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL,
    owner TEXT NOT NULL, props TEXT NOT NULL, lean TEXT) WITHOUT ROWID;
CREATE INDEX edges_owner ON edges (owner);
""" + CORRECTIONS_SCHEMA + DERIVE_SCHEMA


# Schema N -> N + 1. 3 -> 4: the served view's props of a MENTIONS row (`edges.lean`, see
# `derive.LEAN_MENTIONS`), which the view read through `json_remove` on every load before: 10 of the
# 25 s a 1M-abstract store's edge rows took. About 80 s for that store's 5.4M MENTIONS rows, once.
# 4 -> 5: resolution rule 3 by type (`MAE` as a Metric joins mean absolute error, as a Method masked
# autoencoder): each definition's type (`local_def.type`, from the stored extraction as
# `resolve.definition_types` takes it), the types of each short form's long forms (`short_key`), and
# the papers that mention a short form defined several ways, which the next build derives again
# (`pending_derive`) so their mentions join the long form of their type. Nothing is re-extracted.
# 5 -> 6: name keys fold a final plural and a `score` after a metric's name (`normalize.compact_key`:
# `attention mechanisms` and `attention mechanism`, `F1-score` and `F1` meet), so every stored key may
# be stale: the next build derives every paper again (each paper's old contribution is taken back by
# the keys it was stored with, then added by the new ones). Nothing is re-extracted.
# 6 -> 7: an extraction holds the results its abstract reports (`records.ResultMention`), from which
# the graph derives `Result` nodes; a stored extraction gets the list it now has, empty (the
# extractor that made it found none; a build re-extracts it when the extractor's fingerprint is not
# its own, as after every upgrade of the extractor), so every stored row has the shape a build writes.
# No graph row changes: nothing to derive again.
# 7 -> 8: the user's corrections (`graph/curation.py`), a table of their own; an older store has
# none, so its graph is already what the corrections (none) make.
# 8 -> 9: entity ids from the cluster key's folds (`normalize.id_name`): two keys whose spellings
# differ in case alone (`Androids`, `ANDROIDS`) shared an id, and their rows took each other's place
# until edges pointed at a node nobody wrote (3 in a store of 209k real abstracts). The papers of
# every entity whose id changes or was shared are derived again by the next build
# (`migrate.rekey_entities`, a statement that is a function of the connection).
# 9 -> 10: entity nodes hold their papers by year (`migrate.count_years`), which `trending` reads on
# Neo4j instead of every mention of its window; a new generation, so a Neo4j graph gets them too.
# 10 -> 11: each short form's long forms are kept with how many papers define them with each type
# (`migrate.count_definitions`): an acronym a paper does not define joins the long form nine in ten
# of its definitions give (`resolve.DOMINANT_SHARE`); the papers whose mentions now resolve
# elsewhere are derived again by the next build. Nothing is re-extracted.
# 11 -> 12: an entity's id is made from its key's spelling written most often, not the first by
# name key (one `ac-curacy` named the `accuracy` of 21,839 papers): the papers of every entity whose
# id changes are derived again by the next build (`migrate.rekey_entities`, as for 8 -> 9).
# 12 -> 13: name keys read through LaTeX styling (`normalize.latex_plain`): every paper again.
# 13 -> 14: a short acronym found by the corpus lookup that starts another name is no mention
# (`resolve.modifier_acronym`: `MS COCO` no longer mentions the one paper's `MS`, mechanical search):
# the papers that could nest a run of three letters or fewer (`terms` of kind `i`) are derived again
# by the next build. And an entity written in the singular is shown so (`resolve.shown_name`: `ViT`,
# not `ViTs`): the papers of every entity with a plural beside its singular are derived again too.
# Nothing is re-extracted.
_DEFINITION_TYPE = """
UPDATE local_def SET type = (
    SELECT type FROM (
        SELECT type, i, k = local_def.long AS is_long FROM (
            SELECT json_extract(m.value, '$.type') AS type, m.key AS i,
                   paperkg_compact_key(json_extract(m.value, '$.text')) AS k
            FROM papers p, json_each(p.extraction, '$.mentions') m WHERE p.key = local_def.paper)
        WHERE k IN (local_def.long, local_def.short))
    ORDER BY is_long DESC, i LIMIT 1)"""
_TYPED_TARGETS = """
UPDATE short_key SET targets = (
    SELECT json_group_object(rep, json(types)) FROM (
        SELECT l.rep AS rep, (
            SELECT json_group_array(t) FROM (
                SELECT DISTINCT d2.type AS t FROM local_def d2 JOIN long_key l2 ON l2.key = d2.long
                WHERE d2.short = short_key.key AND l2.rep = l.rep AND d2.type IS NOT NULL
                ORDER BY t)) AS types
        FROM local_def d JOIN long_key l ON l.key = d.long
        WHERE d.short = short_key.key GROUP BY l.rep ORDER BY l.rep))"""
# Name keys changed (schemas 5 -> 6, 12 -> 13): every extracted paper is derived again by the next
# build, from its stored extraction (nothing is re-extracted).
_EVERY_PAPER_AGAIN = ("INSERT OR IGNORE INTO pending_derive (paper) SELECT key FROM papers "
                      "WHERE extraction IS NOT NULL")
# A migration's step: SQL, or a function of the connection (one that computes in Python).
Statement = str | Callable[[sqlite3.Connection], None]
_MIGRATIONS: dict[int, tuple[Statement, ...]] = {
    3: ("ALTER TABLE edges ADD COLUMN lean TEXT",
        f"UPDATE edges SET lean = {LEAN_MENTIONS} WHERE type = 'MENTIONS'"),
    4: ("ALTER TABLE local_def ADD COLUMN type TEXT",
        _DEFINITION_TYPE,
        _TYPED_TARGETS,
        "CREATE TABLE pending_derive (paper TEXT PRIMARY KEY) WITHOUT ROWID",
        "INSERT OR IGNORE INTO pending_derive (paper) SELECT DISTINCT t.paper FROM terms t "
        "JOIN short_key s ON s.key = t.term WHERE t.kind = 'm' AND "
        "(SELECT count(*) FROM json_each(s.targets)) > 1"),
    5: (_EVERY_PAPER_AGAIN,),
    6: ("UPDATE papers SET extraction = json_set(extraction, '$.results', json('[]')) "
        "WHERE extraction IS NOT NULL AND json_type(extraction, '$.results') IS NULL",),
    7: tuple(statement for statement in CORRECTIONS_SCHEMA.split(";") if statement.strip()),
    8: (rekey_entities,),
    9: (count_years,),
    10: (count_definitions,),
    11: (rekey_entities,),
    # name keys read through LaTeX styling (`normalize.latex_plain`): every paper derived again
    12: (_EVERY_PAPER_AGAIN,),
    13: ("INSERT OR IGNORE INTO pending_derive (paper) SELECT DISTINCT paper FROM terms WHERE kind = 'i' "
         "AND length(term) <= 3 AND term NOT GLOB '*[^A-Za-z]*'",
         "INSERT OR IGNORE INTO pending_derive (paper) SELECT DISTINCT c.paper FROM surfaces a "
         "JOIN surfaces b ON b.cluster = a.cluster AND b.surface IN (a.surface || 's', a.surface || 'es') "
         "JOIN cluster_paper c ON c.cluster = a.cluster"),
}


def store_error(err: BaseException, path: Path) -> PaperkgError:
    """The named failure behind an SQLite, file system or decoding error on the store at `path`:
    one line saying what is wrong and what to do, the original as its cause."""
    if isinstance(err, PaperkgError):
        return err
    code = (getattr(err, "sqlite_errorcode", None) or 0) & 0xFF
    os_code = getattr(err, "errno", None)
    if code == _SQLITE_FULL or os_code in (errno.ENOSPC, errno.EDQUOT):
        return StoreFullError(f"no space left for the store {path}",
                              "free disk space or build into a --store on another disk; the store "
                              "is as it was before this build")
    if code in (_SQLITE_READONLY, _SQLITE_PERM, _SQLITE_CANTOPEN) or os_code in (
            errno.EACCES, errno.EPERM, errno.EROFS):
        return StoreNotWritableError(f"cannot write the store {path}: {_reason(err)}",
                                     "check the directory's permissions, or give --store a writable "
                                     "directory")
    if code == _SQLITE_IOERR or (isinstance(err, OSError) and os_code == errno.EIO):
        return StoreIOError(f"reading or writing the store {path} failed: {_reason(err)}",
                            "check the disk; the store is as it was before this build")
    if code in (_SQLITE_CORRUPT, _SQLITE_NOTADB) or isinstance(err, (ValueError, KeyError, TypeError)) or (
            isinstance(err, sqlite3.DatabaseError) and not isinstance(err, sqlite3.OperationalError)) or (
            str(err) == "malformed JSON"):         # a JSON column SQLite itself parsed (`lean_rows`)
        return StoreCorruptError(f"the store {path} is damaged: {_reason(err)}", rebuild_hint(path))
    if _busy(err):
        return StoreUnavailableError(
            f"the store {path} is in use: another process held its lock longer than this "
            f"command waits ({_reason(err)})",
            "try again when the other process is done (a build of this store names its process in "
            f"{OWNER_FILE} there); the store is as it was before this command")
    return StoreUnavailableError(f"cannot use the store {path}: {_reason(err)}",
                                 "check the directory's permissions and free space")


def _reason(err: BaseException) -> str:
    return (getattr(err, "strerror", None) or str(err) or type(err).__name__).rstrip(".")


# What reading damaged rows raises besides SQLite's own errors: JSON that does not parse, fields
# that are missing or of the wrong type. A build's transaction names SQLite's errors and unparsable
# JSON only (the rest of what runs inside it is the build's own code).
_DAMAGE = (sqlite3.Error, ValueError, KeyError, TypeError)
_WRITE_DAMAGE = (sqlite3.Error, json.JSONDecodeError)


# The JSON columns, as (table, key column, column). The derived ones `paperkg repair` makes again
# from the stored records and extractions; damage to the source ones only a rebuild from the input
# can mend.
DERIVED_JSON: tuple[tuple[str, str, str], ...] = (
    ("nodes", "key", "props"), ("edges", "id", "props"), ("edges", "id", "lean"),
    ("contrib", "paper", "data"), ("short_key", "key", "targets"), ("clusters", "cluster", "spellings"))
SOURCE_JSON: tuple[tuple[str, str, str], ...] = (("records", "id", "meta"), ("papers", "key", "extraction"))
# Every table `paperkg repair` empties and derives again (all but the records, extractions, meta).
DERIVED_TABLES: tuple[str, ...] = ("nodes", "edges", "pending_derive",
                                   *re.findall(r"CREATE TABLE (\w+)", DERIVE_SCHEMA))
# Damaged rows named in one message (a count would not say which to look at).
MAX_NAMED_ROWS = 10


def damaged_rows(db: sqlite3.Connection, tables: Sequence[str] = (), limit: int = MAX_NAMED_ROWS
                 ) -> tuple[list[str], list[str]]:
    """(derived, source): the rows of `tables` (default all) whose JSON does not parse, as
    `nodes.props of 'method:grpo'`, at most `limit` of each kind. SQLite parses them (`json_valid`),
    at about the speed it reads the pages."""
    found: tuple[list[str], list[str]] = ([], [])
    for kind, columns in enumerate((DERIVED_JSON, SOURCE_JSON)):
        for table, key, column in columns:
            if tables and table not in tables:
                continue
            for (name,) in db.execute(f"SELECT {key} FROM {table} WHERE {column} IS NOT NULL "
                                      f"AND NOT json_valid({column}) LIMIT ?", (limit,)):
                found[kind].append(f"{table}.{column} of {name!r}")
    return found


def repair_hint(path: Path) -> str:
    return (f"repair it with `paperkg repair --store {path}`, which derives the graph again from the "
            "stored extractions")


def read_only_uri(db_file: Path) -> str:
    """The URI that opens `db_file` for reading only. SQLite reads a WAL database through its
    `-shm` index, which it must be able to create; in a directory nobody can write (a read-only
    mount, another user's store) with no `-wal` left, no process can be writing the database, so
    it is opened `immutable` (no locks, no index). Where a `-wal` exists, a writer may be at work
    and `mode=ro` reads through its index."""
    if not os.access(db_file.parent, os.W_OK) and not _wal_bytes(db_file):
        return _immutable_uri(db_file)
    return f"{db_file.resolve().as_uri()}?mode=ro"


def _immutable_uri(db_file: Path) -> str:
    return f"{db_file.resolve().as_uri()}?immutable=1"


def _wal_bytes(db_file: Path) -> int:
    """Bytes in the database's write-ahead log (0 when there is none)."""
    try:
        return db_file.with_name(db_file.name + "-wal").stat().st_size
    except FileNotFoundError:
        return 0


def read_generation(db: sqlite3.Connection) -> str | None:
    """The generation a connection's current view of the state holds (`BuildState.generation`)."""
    row = db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    return row[0] if row else None


def _busy(err: BaseException) -> bool:
    """Whether `err` means another connection holds the lock (retry), not a real failure."""
    return ((getattr(err, "sqlite_errorcode", None) or 0) & 0xFF) in (_SQLITE_BUSY, _SQLITE_LOCKED)


@contextlib.contextmanager
def _polling(db: sqlite3.Connection) -> Iterator[None]:
    """Statements inside give up on a held lock after `_LOCK_POLL_MS` (the caller retries, or
    reports that it waits) instead of waiting `_BUSY_WAIT_S`."""
    db.execute(f"PRAGMA busy_timeout = {_LOCK_POLL_MS}")
    try:
        yield
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(_BUSY_WAIT_S * 1000)}")


def _until_free(statement: Callable[[], object]) -> None:
    """Run `statement`, retrying while another connection holds the database's lock."""
    while True:
        try:
            statement()
            return
        except sqlite3.OperationalError as err:
            if not _busy(err):
                raise


def props_json(props: dict[str, Any]) -> str:
    """The one text form of a property map: equal maps give equal text, so comparing rows is
    comparing strings."""
    return json.dumps(props, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      allow_nan=False)


def extraction_json(extraction: Extraction) -> str:
    """The `papers.extraction` column of an extraction (its extractor goes in its own column)."""
    # what `asdict` gives, without its deep copies (a quarter of a 5k build's derivation time)
    data = {"paper_id": extraction.paper_id, "text": extraction.text,
            "sentences": extraction.sentences, "aliases": extraction.aliases,
            "mentions": [vars(m) for m in extraction.mentions],
            "relations": [vars(r) for r in extraction.relations],
            "results": [vars(r) for r in extraction.results]}
    return props_json(data)


def rebuild_hint(path: Path) -> str:
    return f"rebuild it: paperkg build INPUT... --store {path}-new (or remove {path} first)"


class BuildState:
    """The SQLite database of one store directory. Readers and the one writer each open their own."""

    def __init__(self, path: Path, *, create: bool = False, read_only: bool = False) -> None:
        """Open (with `create`, make) the store at `path`. `read_only` is for processes that only
        read (queries, exports, a server): they open the database read-only, so a store on a
        read-only mount, another user's store or one on a full disk still answers. A store whose
        schema needs migrating is opened for writing all the same, once, to migrate it."""
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise BadInputError(f"store path {self.path} is a file, not a directory",
                                "give --store a directory")
        db = self.path / DB_FILE
        try:
            if not db.exists():
                if (self.path / LEGACY_FILE).exists():
                    raise StoreUnavailableError(
                        f"{self.path} is a store of an older paperkg (a pickle, which this version does "
                        "not load: loading one runs code)", rebuild_hint(self.path))
                if not create:
                    raise InputNotFoundError(f"no paperkg store at {self.path}",
                                             "build one first with `paperkg build INPUT --store PATH`")
                self.path.mkdir(parents=True, exist_ok=True)
            if create:
                for leftover in self.path.glob(_LEGACY_TEMP_GLOB):
                    leftover.unlink()
            self._lock = threading.Lock()
            self.read_only = read_only and not create
            self._read_uri = read_only_uri(db)
            if self.read_only:
                try:
                    self._db = self._connect(self._read_uri, uri=True)
                    version = self._db.execute("PRAGMA user_version").fetchone()[0]
                except sqlite3.OperationalError as err:
                    # A full disk: SQLite cannot size the `-shm` index it needs for `mode=ro`. With
                    # no log to read, nobody is writing (nobody can), and the file alone is the store.
                    # A held lock is not that: someone is writing.
                    if _busy(err) or _wal_bytes(db) or "immutable" in self._read_uri:
                        raise
                    self._read_uri = _immutable_uri(db)
                    self._db = self._connect(self._read_uri, uri=True)
                    version = self._db.execute("PRAGMA user_version").fetchone()[0]
                if version == SCHEMA_VERSION:
                    # a server answers on its event loop through this connection (`generation` on
                    # every request): there a lock held past the poll fails the request (503)
                    # rather than stalling every request for `_BUSY_WAIT_S`
                    self._db.execute(f"PRAGMA busy_timeout = {_LOCK_POLL_MS}")
                    return
                self._db.close()            # a migration writes
                self.read_only = False
            if not (os.access(self.path, os.W_OK) and (not db.exists() or os.access(db, os.W_OK))):
                # SQLite would open it all the same and fail at the first write, after the input
                # was read: say it now
                raise StoreNotWritableError(
                    f"cannot write the store {self.path}: it is read-only (permissions, or a "
                    "read-only file system)",
                    "check the directory's permissions, or give --store a writable directory")
            self._db = self._connect(db)
            _until_free(lambda: self._db.execute("PRAGMA journal_mode = WAL"))
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.execute(f"PRAGMA journal_size_limit = {_WAL_LIMIT_BYTES}")
            self._check_schema()
        except (sqlite3.Error, OSError) as err:
            raise store_error(err, self.path) from err

    @staticmethod
    def _connect(target: str | Path, uri: bool = False) -> sqlite3.Connection:
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE ... COMMIT), never
        # opened behind our back by the module.
        db = sqlite3.connect(target, uri=uri, isolation_level=None, check_same_thread=False,
                             timeout=_BUSY_WAIT_S)
        # SQLite's default page cache is 2 MB; a build's lookups over a store of 100k papers
        # (GBs) would go to the OS for nearly every page.
        db.execute(f"PRAGMA cache_size = -{_CACHE_KIB}")
        db.create_function("paperkg_compact_key", 1, compact_key, deterministic=True)
        return db

    def _check_schema(self) -> None:
        """Create the schema in a new database, or migrate an older one. Two first builds of one
        store may race here: the loser waits until the winner's schema is committed (then finds
        it), never fails."""
        while True:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION:
                return
            if version in _MIGRATIONS:
                self._migrate(version)
                continue
            if version != 0:
                raise StoreUnavailableError(
                    f"{self.path} holds build state of schema {version}; this paperkg reads schema "
                    f"{SCHEMA_VERSION}", rebuild_hint(self.path))
            create: list[tuple[str, tuple]] = [(statement, ()) for statement in _SCHEMA.split(";")
                                               if statement.strip()]
            # named with the schema, committed before any build writes elsewhere: a first build
            # killed after writing Neo4j must find the same name when it runs again
            create.append(("INSERT INTO meta (key, value) VALUES ('state_id', ?)", (uuid.uuid4().hex,)))
            self._schema_step(0, create, SCHEMA_VERSION)

    def _migrate(self, version: int) -> None:
        """Bring a store of schema `version` to the next (a killed migration leaves the old schema,
        which the next open migrates again)."""
        self._schema_step(version, [(statement, ()) for statement in _MIGRATIONS[version]], version + 1)

    def _schema_step(self, version: int, statements: list[tuple[Statement, tuple]], new_version: int) -> None:
        """Run `statements` and set schema `new_version` in one transaction if the database is still
        at `version`: of several processes opening a store at once, the first does it and the others
        find it done. Returns without doing it when another connection holds the write lock, for the
        caller to look again. A statement may be a function of the connection (a migration that
        computes in Python)."""
        try:
            with _polling(self._db):
                self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            if not _busy(err):
                raise
            return
        try:
            if self._db.execute("PRAGMA user_version").fetchone()[0] == version:
                for statement, args in statements:
                    if callable(statement):
                        statement(self._db)
                    else:
                        self._db.execute(statement, args)
                self._db.execute(f"PRAGMA user_version = {new_version}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def verify(self, tables: Sequence[str] = ()) -> None:
        """`PRAGMA quick_check`: every page and index entry of the database, or of `tables` and
        their indexes, is readable and consistent, and every JSON row of them parses (SQLite's
        `json_valid`: one truncated `nodes.props` row made every query fail while builds
        committed on top of it). What loads a big store whole checks the tables it loads:
        the extractions and aggregates (most of a store's pages) only a build reads. The check reads
        on a connection of its own, so it holds up no other thread's reads (a load checks its tables
        while it reads them: `graph.embedded.EmbeddedStore`)."""
        derived: list[str] = []
        source: list[str] = []
        with self.reader() as db:
            problems = [row[0] for table in tables or (None,) for row in db.execute(
                "PRAGMA quick_check(3)" if table is None else f"PRAGMA quick_check({table})")
                if row[0] != "ok"]
            if not problems:
                derived, source = damaged_rows(db, tables)
        if problems:
            raise StoreCorruptError(f"the store {self.path} is damaged: {'; '.join(problems)}",
                                    rebuild_hint(self.path))
        if derived or source:
            raise StoreCorruptError(
                f"the store {self.path} has damaged rows (JSON that does not parse): "
                f"{', '.join((source + derived)[:MAX_NAMED_ROWS])}",
                rebuild_hint(self.path) if source else repair_hint(self.path))

    def size(self) -> int:
        """Bytes of the database file and its write-ahead log."""
        return sum(f.stat().st_size for f in self.path.glob(DB_FILE + "*") if f.is_file())

    def committed_size(self) -> int:
        """Bytes the last committed build's pages take, seen from a connection of its own: a build's
        open transaction (its records, already in the WAL) is not in it, nor are free pages."""
        with self.reader() as db:
            page_size = db.execute("PRAGMA page_size").fetchone()[0]
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            free = db.execute("PRAGMA freelist_count").fetchone()[0]
        return (pages - free) * page_size

    def check_room(self, papers: int, have: int) -> None:
        """Fail now, before extracting, when `papers` more papers would not fit on the disk (an
        estimate from what the `have` committed papers take on average).

        Committed data only: called inside the build's transaction, the database and WAL already
        hold this build's records, and dividing them by the committed papers made a 300-paper store
        ask 392 GB for 209k new abstracts. Those records are on the disk already (they are not in
        the free space any more); what is left to write is extractions and graph rows, which the
        committed average (records included) over-counts, not under-counts."""
        per_paper = self.committed_size() / have if have >= 100 else _BYTES_PER_PAPER
        need = int(papers * per_paper * _ROOM_FACTOR)
        free = shutil.disk_usage(self.path).free
        if need > free:
            raise StoreFullError(
                f"not enough space for the store {self.path}: {papers:,} new papers need about "
                f"{need / 1e6:,.0f} MB, {free / 1e6:,.0f} MB are free",
                "free disk space or build into a --store on another disk; nothing was extracted")

    # ---- reading (any process, any time) ---------------------------------------------------------

    def generation(self) -> str | None:
        """Identity of the last committed build (a new random token per build that changed anything),
        which is how a running server notices a rebuild; None for a store never built."""
        with self._lock:
            return read_generation(self._db)

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: everything read inside sees one committed build, whatever a
        concurrent build writes meanwhile (WAL). Damage met while reading is named."""
        with self._lock:
            try:
                self._db.execute("BEGIN")
                try:
                    yield self._db
                finally:
                    self._db.execute("COMMIT")
            except _DAMAGE as err:
                raise store_error(err, self.path) from err

    @contextlib.contextmanager
    def reader(self) -> Iterator[sqlite3.Connection]:
        """A read transaction on a connection of its own: for a long read (loading the served view,
        a minute at 1M abstracts) that must not hold up the short reads other threads make through
        `snapshot` meanwhile (every request asks `generation`). Damage met while reading is named."""
        try:
            db = sqlite3.connect(self._read_uri, uri=True, isolation_level=None,
                                 check_same_thread=False, timeout=_BUSY_WAIT_S)
            try:
                db.execute("BEGIN")
                yield db
                db.execute("COMMIT")
            finally:
                db.close()
        except _DAMAGE as err:
            raise store_error(err, self.path) from err

    def graph(self, *, bulky: bool = True) -> KnowledgeGraph:
        """The derived graph of the last committed build, nodes in key order, edges in id order;
        without `bulky`, no abstracts and no per-paper lists of relations (`derive.read_graph`).
        Read on a connection of its own (`reader`): an export of a big store reads for seconds, and
        a server answers the embedded store's queries on its event loop, whose short reads
        (`generation`, `paper_details`) must not wait that long for the shared connection."""
        with self.reader() as db:
            return read_graph(db, bulky=bulky)

    def abstract(self, paper_id: str) -> str | None:
        """A paper's abstract in the last committed build (what a served graph leaves out)."""
        with self._lock:
            row = self._db.execute("SELECT text FROM nodes WHERE key = ?",
                                   (node_key("Paper", paper_id),)).fetchone()
        return row[0] if row else None

    def entity_name(self, entity_id: str) -> str | None:
        """The name of the entity with id `entity_id` in the last committed build (None: none)."""
        with self.snapshot() as db:
            row = db.execute("SELECT label, json_extract(props, '$.name') FROM nodes WHERE key = ?",
                             (entity_id,)).fetchone()
        return row[1] if row is not None and row[0] in ENTITY_LABELS else None

    def paper_details(self, paper_key: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """A paper node's props (its abstract aside) and its MENTIONS edges' props by entity key, in
        the last committed build: what the served view leaves out of memory (`EmbeddedStore`)."""
        with self.snapshot() as db:
            row = db.execute("SELECT owner, props FROM nodes WHERE key = ?", (paper_key,)).fetchone()
            if row is None:
                return {}, {}
            mentions = {target: json.loads(props) for target, props in db.execute(
                "SELECT target, props FROM edges WHERE owner = ? AND type = 'MENTIONS'",
                (mentions_owner(row[0]),))}
            return json.loads(row[1]), mentions

    def stats(self) -> dict[str, dict[str, int]]:
        """Node and edge counts, kept by every build beside the rows (counting 10 million edge rows
        would cost a build a second or more)."""
        stats = empty_stats()
        with self.snapshot() as db:
            for name, count in db.execute("SELECT name, n FROM counts"):
                kind, _, which = name.partition(":")
                if kind == "node" and which in NODE_LABELS:
                    stats["nodes"][which] = count
                elif kind == "edge" and which in EDGE_TYPES:
                    stats["edges"][which] = count
        return stats

    def corpus(self) -> Corpus:
        """Every paper with its records and extraction (tests and the whole-graph derivation)."""
        with self.snapshot() as db:
            return _load_corpus(db, None)

    # ---- writing (one build at a time) -----------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self, on_wait: Callable[[], None] | None = None) -> Iterator[StateWriter]:
        """The one write transaction of a build: waits (calling `on_wait` once) while another build
        of this store runs, commits when the block ends, rolls back if it raises."""
        with self._lock:
            waited = False
            while True:
                try:
                    with _polling(self._db):
                        self._db.execute("BEGIN IMMEDIATE")
                    break
                except sqlite3.OperationalError as err:
                    if not _busy(err):
                        raise store_error(err, self.path) from err
                    if not waited and on_wait is not None:
                        on_wait()
                    waited = True
            owner = self.path / OWNER_FILE
            self._take_over(owner)
            try:
                writer = StateWriter(self._db, self.path)
                yield writer
                writer.finish()
                self._db.execute("COMMIT")
            except BaseException as err:
                with contextlib.suppress(sqlite3.Error):      # SQLite may have rolled back itself
                    self._db.execute("ROLLBACK")
                if isinstance(err, _WRITE_DAMAGE):
                    raise store_error(err, self.path) from err
                raise
            finally:
                with contextlib.suppress(OSError):
                    owner.unlink()
            # The log would keep the size of the biggest build's writes; a killed build's frames
            # are dropped by SQLite on the next open and their space given back here.
            self._checkpoint()

    def _checkpoint(self) -> None:
        """Copy the committed build into the database file and empty the log. A reader in the
        middle of a read (a server answering, or loading the new build) keeps the log in use, and
        SQLite then gives up on the first try: the log stayed as large as the build's writes until
        the next build. So it is tried again until the readers let go, for up to CHECKPOINT_WAIT_S;
        after that the next build's checkpoint does it (and `journal_size_limit` trims the log
        when SQLite starts it over)."""
        deadline = time.monotonic() + CHECKPOINT_WAIT_S
        while True:
            try:
                with _polling(self._db):
                    busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            except sqlite3.Error:
                return
            if not busy or time.monotonic() > deadline:
                return
            time.sleep(0.1)

    def _take_over(self, owner: Path) -> None:
        """Record this process as the lock's holder, saying so when a previous holder died with it
        (its file is still there although its lock is gone): its changes were rolled back."""
        with contextlib.suppress(OSError, ValueError):
            previous = owner.read_text().strip()
            if previous and int(previous) != os.getpid():
                warnings.warn(f"the build of {self.path} by process {previous} stopped before it "
                              "finished (killed?); its changes were dropped and this build takes over "
                              "the store", stacklevel=2)
        with contextlib.suppress(OSError):
            owner.write_text(f"{os.getpid()}\n")


class StateWriter:
    """What a build does inside its transaction: add records, store extractions, remove papers,
    derive the graph and write what changed."""

    def __init__(self, db: sqlite3.Connection, path: Path | None = None) -> None:
        self._db = db
        self.source_name = f"{socket.gethostname()}:{path.resolve()}" if path is not None else None
        # papers whose records or extraction changed, and those a schema step left to derive again
        self.dirty: set[str] = {p for (p,) in db.execute("SELECT paper FROM pending_derive")}
        self.removed: set[str] = set()        # papers removed by this build
        self.base = self._meta("generation")
        self.changed = False
        self.source = self._meta("state_id")
        if self.source is None:      # a store an older paperkg made (new ones are named with the schema)
            self.source = uuid.uuid4().hex
            self._db.execute("INSERT INTO meta (key, value) VALUES ('state_id', ?)", (self.source,))

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    @property
    def db(self) -> sqlite3.Connection:
        """The transaction's connection, for the graph layer's other writers (`graph/curation.py`)."""
        return self._db

    def corpus(self) -> Corpus:
        return _load_corpus(self._db, None)

    def graph(self) -> KnowledgeGraph:
        return read_graph(self._db)

    @property
    def paper_count(self) -> int:
        return self._db.execute("SELECT count(*) FROM papers").fetchone()[0]

    def add_record(self, record: PaperInput) -> bool:
        """Merge one input record into its paper (papers are abstracts: the same text under two ids
        is one paper); returns whether anything changed. Raises `ValueError` when the record's id
        already names a different abstract."""
        key = text_key(record.abstract)
        row = self._db.execute("SELECT paper FROM records WHERE id = ? LIMIT 1", (record.id,)).fetchone()
        if row is not None and row[0] != key:
            raise ValueError(f"id {record.id!r} is already used by a different abstract")
        meta = record_meta(record)
        collection = record.collection or ""
        row = self._db.execute("SELECT meta FROM records WHERE id = ? AND collection = ?",
                               (record.id, collection)).fetchone()
        old = None if row is None else _meta_from_json(row[0])
        merged = meta if old is None else merge_records(old, meta)
        if merged == old:
            return False
        self._db.execute("INSERT OR REPLACE INTO records (id, collection, paper, meta) VALUES (?, ?, ?, ?)",
                         (record.id, collection, key, props_json(asdict(merged))))
        self._db.execute("INSERT OR IGNORE INTO papers (key) VALUES (?)", (key,))
        self.dirty.add(key)
        return True

    def to_extract(self, extractor: str) -> list[str]:
        """Keys (sorted) of the papers with no extraction, one made by another extractor, or one of
        another text (a record with an earlier id brought a differently spaced abstract). Only the
        papers this build changed can be of another text, and for those the stored extraction's
        text is read by SQLite (`json_extract`), not parsed into an Extraction: at 1M papers the
        derivation parses each extraction once, and this check must not parse them all again."""
        todo = {k for (k,) in self._db.execute(
            "SELECT key FROM papers WHERE extractor != ?", (extractor,))}     # '' until extracted
        changed = sorted(self.dirty - todo)
        texts = dict(rows_in(self._db, "SELECT key, json_extract(extraction, '$.text') FROM papers "
                                       "WHERE key IN ({})", changed))
        records = _load_records(self._db, changed)
        todo.update(k for k in changed if k not in records
                    or texts.get(k) not in _extracted_texts(records[k].abstract))
        return sorted(todo)

    def entries(self, keys: list[str]) -> Iterator[PaperEntry]:
        """The papers `keys` name with their records and extraction, in that order, read
        `DERIVE_BATCH` at a time."""
        for chunk in _chunks(keys, DERIVE_BATCH):
            loaded = _load_entries(self._db, set(chunk))
            yield from (loaded[k] for k in chunk if k in loaded)

    def set_extraction(self, key: str, extraction: Extraction) -> None:
        self._db.execute("UPDATE papers SET extractor = ?, extraction = ? WHERE key = ?",
                         (extraction.extractor, extraction_json(extraction), key))
        self.dirty.add(key)

    def remove(self, ids: Iterable[str]) -> list[str]:
        """Remove the papers these record ids name (each with all of its records); returns the ids
        no paper has (nothing is removed then)."""
        keys: set[str] = set()
        unknown: list[str] = []
        for rid in ids:
            row = self._db.execute("SELECT paper FROM records WHERE id = ? LIMIT 1", (rid,)).fetchone()
            if row is None:
                unknown.append(rid)
            else:
                keys.add(row[0])
        if unknown:
            return unknown
        for key in sorted(keys):
            self._db.execute("DELETE FROM records WHERE paper = ?", (key,))
            self._db.execute("DELETE FROM papers WHERE key = ?", (key,))
        self.removed |= keys
        self.dirty -= keys
        return []

    def derive(self, *, full_delta: bool = False, for_target: bool = False,
               batch: int = DERIVE_BATCH) -> GraphDelta:
        """Re-derive what the papers added, changed or removed in this transaction touch, write the
        graph rows that changed, and return that change (every node and edge when `full_delta`,
        for a target that must be brought in step). `for_target`: the change goes to a store that
        keeps whole edges (Neo4j), so changed relations carry all their per-paper lists; without
        it their lists are not put together. See `graph/derive.py`.

        Without a target, more than `batch` changed papers are derived `batch` at a time, each batch
        an incremental derivation on the rows the previous ones wrote (what building file by file
        does, inside this one transaction): memory is one batch's extractions and rows, not every
        paper's, and the change handed back is empty (only the state's own rows are written)."""
        dirty = sorted(self.dirty)
        rows_changed = False
        if full_delta or for_target or len(dirty) <= batch:
            delta = Derivation(self._db).run(_load_entries(self._db, self.dirty), set(self.removed),
                                             full_delta, for_target)
        else:
            delta = GraphDelta()
            removed = set(self.removed)
            for chunk in _chunks(dirty, batch):
                rows_changed |= bool(Derivation(self._db).run(_load_entries(self._db, set(chunk)), removed,
                                                              False))
                removed = set()
        self._db.execute("DELETE FROM pending_derive")
        delta.base = self.base
        delta.source, delta.source_name = self.source, self.source_name
        self.changed |= rows_changed or bool(delta) or bool(self.dirty) or bool(self.removed)
        delta.generation = self._new_generation() if self.changed else (self.base or "")
        self.dirty, self.removed = set(), set()
        return delta

    def write(self, target: GraphWriter | None) -> None:
        """Derive the graph and bring `target` (a Neo4j store, if any) to it, inside the
        transaction: the change alone when the target holds the state's last generation, else the
        whole graph."""
        if target is None:
            self.derive()
            return
        in_step = self.base is not None and target.synced_generation() == self.base
        delta = self.derive(full_delta=not in_step, for_target=True)
        if delta or not in_step:
            target.apply(delta)

    def rederive_all(self) -> None:
        """Empty every derived table and derive the graph again from the stored records and
        extractions (`paperkg repair`): what a build of the same papers from nothing makes, with no
        extraction. Papers never extracted stay for the next build to extract."""
        for table in DERIVED_TABLES:
            self._db.execute(f"DELETE FROM {table}")
        self.dirty = {key for (key,) in self._db.execute(
            "SELECT key FROM papers WHERE extraction IS NOT NULL")}
        self.removed = set()
        self.derive()
        self.changed = True

    def _new_generation(self) -> str:
        if not hasattr(self, "_generation"):
            self._generation = uuid.uuid4().hex
        return self._generation

    def finish(self) -> None:
        if self.changed:
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('generation', ?)",
                             (self._new_generation(),))


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _meta_from_json(text: str) -> RecordMeta:
    data = json.loads(text)
    data["authors"] = tuple(data.get("authors") or ())
    data["categories"] = tuple(data.get("categories") or ())
    return RecordMeta(**data)


def _extracted_texts(abstract: str) -> tuple[str, str]:
    """The texts an extraction of `abstract` may hold: the extractor reads LaTeX spacing as spaces
    (`normalize.latex_spacing`, `fine-tuning~(SFT)`), a long abstract's chunks each on their own.
    Compared with the abstract as written, 0.7% of real arXiv abstracts looked changed, and every
    build that touched them (a migration's re-derivation) extracted them again."""
    return abstract, latex_spacing(abstract)


def _extraction_from_json(extractor: str, text: str) -> Extraction:
    data = json.loads(text)
    data["extractor"] = extractor
    return extraction_from_dict(data)


def _add_records(entries: dict[str, PaperEntry], rows: Iterable[tuple[str, str]]) -> dict[str, PaperEntry]:
    for paper, meta in rows:
        entry = entries.setdefault(paper, PaperEntry(key=paper))
        record = _meta_from_json(meta)
        entry.records[(record.id, record.collection or "")] = record
    return entries


def _load_records(db: sqlite3.Connection, keys: list[str]) -> dict[str, PaperEntry]:
    """The papers `keys` names with their records only (no extraction), by text key."""
    return _add_records({}, rows_in(db, "SELECT paper, meta FROM records WHERE paper IN ({})", sorted(keys)))


def _load_entries(db: sqlite3.Connection, keys: set[str] | None) -> dict[str, PaperEntry]:
    """Papers (all when `keys` is None) with their records and extraction, by text key."""
    if keys is None:
        entries = _add_records({}, db.execute("SELECT paper, meta FROM records ORDER BY paper"))
        papers: Iterable[tuple] = db.execute("SELECT key, extractor, extraction FROM papers")
    else:
        wanted = sorted(keys)
        entries = _load_records(db, wanted)
        papers = rows_in(db, "SELECT key, extractor, extraction FROM papers WHERE key IN ({})", wanted)
    for key, extractor, extraction in papers:
        entry = entries.get(key)
        if entry is not None and extraction is not None:
            entry.extraction = _extraction_from_json(extractor, extraction)
    return entries


def _load_corpus(db: sqlite3.Connection, keys: set[str] | None) -> Corpus:
    corpus = Corpus()
    for key, entry in sorted(_load_entries(db, keys).items()):
        corpus.papers[key] = entry
        for rid in entry.ids:
            corpus.by_id[rid] = key
    return corpus
