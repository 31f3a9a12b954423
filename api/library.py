"""The Python API behind `import paperkg` (the top-level package re-exports it): a built graph opened
as a `PaperKG` object, and builds as the CLI runs them.

It is a third front door beside the CLI and the HTTP API, through the same functions: stores are
opened by `graph.store.open_store`, catalog queries run by `queries.runner.run_named`, user Cypher by
`run_cypher_bounded` with the CLI's bounds, and builds by `api.build.build`. Nothing here imports
spaCy: reading a graph never loads the extractor (`paperkg.extract` and `paperkg.load_pipeline`
live in the extract layer).

`PaperKG` keeps the store and, for curation (issue 30), the build-state directory it was opened
with (`store_dir`): the corrections (`kg.merge`, `kg.retype`, ..., `kg.review`) are methods calling
`api.curate` on that directory, the functions `paperkg curate` and `paperkg review` call, as `build`
calls `api.build`. After one changes an embedded store the handle opens it again, so what it
answers next is the corrected graph.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperkg.api import curate as _curate
from paperkg.api.build import BuildSummary, Problem, open_target
from paperkg.api.build import build as _build
from paperkg.graph import curation
from paperkg.graph.errors import NotFoundError, UsageError
from paperkg.graph.model import KnowledgeGraph
from paperkg.graph.secrets import register_secret
from paperkg.graph.store import DEFAULT_STORE, GraphStore, open_store
from paperkg.queries.catalog import catalog_json
from paperkg.queries.runner import run_cypher_bounded, run_named

if TYPE_CHECKING:
    import networkx as nx
    import pandas as pd

    from paperkg.graph.review import Item

__all__ = ["BuildSummary", "PaperKG", "Rows", "build", "open"]

log = logging.getLogger("paperkg")

# What `paperkg.open` takes for a Neo4j server rather than a store directory (the Neo4j driver's
# schemes: plain, TLS, TLS with a self-signed certificate)
_NEO4J_URI = re.compile(r"^(bolt|neo4j)(\+s|\+ssc)?://", re.IGNORECASE)

Row = dict[str, Any]


class Rows(list[Row]):
    """The rows of one query: a list of dicts (column -> value, lists and objects as JSON gives
    them), in the query's order, with the query and parameters that made them."""

    def __init__(self, rows: Iterable[Row] = (), *, query: str = "", params: dict[str, Any] | None = None,
                 truncated: bool = False) -> None:
        super().__init__(rows)
        self.query = query
        self.params = dict(params or {})
        self.truncated = truncated    # user Cypher only: cut to the answer limit (`PAPERKG_MAX_ANSWER_ROWS`)

    @property
    def columns(self) -> list[str]:
        """The column names, in the query's order (none when there are no rows)."""
        return list(self[0]) if self else []

    def to_pandas(self) -> pd.DataFrame:
        """The rows as a pandas DataFrame (pandas is optional: `pip install "paperkg[pandas]"`)."""
        try:
            import pandas as pd
        except ImportError as err:
            raise ImportError('Rows.to_pandas() needs pandas: pip install "paperkg[pandas]"') from err
        return pd.DataFrame.from_records(list(self), columns=self.columns or None)

    def __repr__(self) -> str:
        return f"Rows({self.query!r}, {len(self)} rows: {list.__repr__(self)[:200]})"


class PaperKG:
    """One built graph, opened with `paperkg.open`: an embedded store directory or a Neo4j database.
    Close it (or use `with`) to release the store."""

    def __init__(self, store: GraphStore, *, store_dir: Path | None = None) -> None:
        self.store = store
        # the build-state directory: the embedded store's own, or the `--store` a Neo4j graph's
        # builds use (None when not given): what builds and curation write
        self.store_dir = store_dir

    @property
    def kind(self) -> str:
        """`"embedded"` or `"neo4j"`."""
        return self.store.kind

    def stats(self) -> dict[str, dict[str, int]]:
        """`{"nodes": {label: count}, "edges": {type: count}}`, as `paperkg stats --json`."""
        return self.store.stats()

    def catalog(self) -> list[dict[str, Any]]:
        """The named queries with their parameters, as `paperkg query --list --json`."""
        return catalog_json()

    def query(self, name: str, /, **params: Any) -> Rows:
        """Run the catalog query `name` (`kg.query("evaluated_on", name="MATH500")`). Parameters are
        Python values or strings, checked as the CLI checks them: an unknown query or parameter name
        raises `UsageError` with the closest names, an entity the graph does not hold
        `UnknownEntityError` with suggestions (`paperkg.graph.errors`)."""
        return Rows(run_named(self.store, name, params), query=name, params=params)

    def cypher(self, text: str, /, **params: Any) -> Rows:
        """Read-only Cypher on either store, bounded as `paperkg query --cypher` is (timeout, memory,
        answer size from the `PAPERKG_` settings); `rows.truncated` says whether rows were cut."""
        from paperkg.api.routers.cypher import bounds_of
        from paperkg.api.settings import Settings

        answer = run_cypher_bounded(self.store, text, params, bounds_of(Settings()))
        return Rows(answer.rows, query=text, params=params, truncated=answer.truncated)

    def entity(self, name: str) -> Row:
        """The entity with this name or alias (id, name, type, aliases, papers, ...); the most
        mentioned one when the name is ambiguous (`query("entity", name=...)` lists them all)."""
        return self.query("entity", name=name)[0]

    def entities(self, q: str, *, type: str | None = None, limit: int = 20, offset: int = 0) -> Rows:
        """Entities whose name or an alias contains `q` (case-, dash- and space-insensitive), of
        `type` when given, most-mentioned first."""
        return self.query("entity_search", q=q, type=type, limit=limit, offset=offset)

    def paper(self, id: str) -> Row:
        """One paper by any of its ids: abstract, metadata, collections, entities with mentions."""
        rows = self.query("paper", id=id)
        if not rows:
            raise NotFoundError(f"no paper has the id {id!r}",
                                "kg.papers(name) lists the papers that mention an entity")
        return rows[0]

    def papers(self, name: str, *, limit: int = 100, offset: int = 0) -> Rows:
        """The papers that mention the entity `name` (any alias), with their mention counts."""
        return self.query("papers_mentioning", name=name, limit=limit, offset=offset)

    def export(self) -> KnowledgeGraph:
        """The whole graph as plain data (`paperkg.graph.model`), as the exports write it."""
        return self.store.export()

    def networkx(self) -> nx.MultiDiGraph:
        """The whole graph as a new `networkx.MultiDiGraph`, one node and one edge per node and edge
        of `paperkg stats`, with the properties the exports write (graph/model.py lists them):

        - nodes keyed by their key (an entity's id such as `method:grpo`, `paper:<id>`, a
          collection's id, a result's `result:<paper>:<offset>`), with `label` (`Paper`,
          `Collection`, `Method`, `Model`, `Dataset`, `Benchmark`, `Metric`, `Task`, `Result`) and
          the node's properties (entities: `id`, `name`, `type`, `aliases`, `paper_count`,
          `confidence`, ...; papers: `id`, `title`, `year`, `abstract`, ...; results: `display`,
          `number`, `unit`, `kind`, `evidence`, ...);
        - edges keyed by their type, with `type` (`MENTIONS`, `EVALUATED_ON`, ..., and a result's
          `REPORTS` from its paper, `ACHIEVED_BY`, `ON_BENCHMARK`, `IN_METRIC`, `AGAINST` to its
          entities) and the edge's properties (relations: `papers`, `support`, `confidence`,
          `evidence`; `MENTIONS`: `count` and the mentions' offsets).

        The graph is the caller's to change. It holds every abstract and evidence sentence: for a
        store of millions of abstracts, ask the catalog instead, or copy a subgraph."""
        import networkx as nx

        graph = self.store.export()
        g = nx.MultiDiGraph()
        for key, node in graph.nodes.items():
            g.add_node(key, label=node.label, **node.props)
        for edge in graph.edges.values():
            g.add_edge(edge.source, edge.target, key=edge.type, type=edge.type, **edge.props)
        return g

    # ---- corrections (README "Corrections"): what `paperkg curate` and `paperkg review` run ----

    def merge(self, name: str, into: str) -> curation.Applied:
        """Merge the entity `name` into the entity `into` (which keeps its name and id), as
        `paperkg curate merge NAME INTO`. Names are any name or alias, as the catalog queries take
        them, or an entity's id; an unknown one raises `UnknownEntityError` with the closest names,
        a name of several entities `BadInputError` listing their ids."""
        return self._correct(curation.validate("merge", name, into))

    def rename(self, name: str, new: str) -> curation.Applied:
        """Show the entity `name` as `new` (its id and old names stay), as `curate rename`."""
        return self._correct(curation.validate("rename", name, new))

    def retype(self, name: str, type: str) -> curation.Applied:
        """Make the entity `name` of `type` (Method, Model, Dataset, Benchmark, Metric, Task), as
        `curate retype`."""
        return self._correct(curation.validate("retype", name, type))

    def drop(self, name: str) -> curation.Applied:
        """Drop the entity `name` and every mention of it, now and in later builds (`curate drop`)."""
        return self._correct(curation.validate("drop", name))

    def split(self, name: str) -> curation.Applied:
        """Split the entity `name` by context: each paper's mentions join the entity of the type
        that paper gives them (`curate split`)."""
        return self._correct(curation.validate("split", name))

    def undo(self, name: str) -> list[curation.Correction]:
        """Take back the corrections of `name` (the name they were made with), as `curate undo`;
        returns them (`NotFoundError` when there are none)."""
        with self._writing() as (store_dir, target):
            return _curate.undo(store_dir, name, target=target)

    def corrections(self) -> list[curation.Status]:
        """The corrections in the order they were made, each with `.applies` (and `.reason` when
        not): `curate list`; `status.to_json()` is a line of `curate list --json`."""
        return _curate.listing(self._state_dir(), neo4j=self._neo4j_uri())

    def export_corrections(self, path: str | os.PathLike[str]) -> int:
        """Write the corrections to `path` as JSON Lines (`curate export`); returns how many."""
        return _curate.export(self._state_dir(), Path(path), neo4j=self._neo4j_uri())

    def import_corrections(self, path: str | os.PathLike[str]) -> curation.Applied:
        """Record the corrections of a JSON Lines file (`curate import`); one naming an entity this
        graph lacks is kept and listed in `applied.not_applying`."""
        with self._writing() as (store_dir, target):
            return _curate.import_file(store_dir, Path(path), target=target)

    def review(self, limit: int = 20) -> list[Item]:
        """What a correction would most improve, heaviest first (`paperkg review`): items with
        `kind`, `reason`, `entities` and a `suggestion`, which `kg.accept(item)` records."""
        if not 1 <= limit <= 1000:
            raise UsageError(f"limit must be between 1 and 1000, not {limit}")
        return _curate.review(self._state_dir(), limit, neo4j=self._neo4j_uri())

    def accept(self, item: Item) -> curation.Applied:
        """Record a review item's suggested correction, as `paperkg review --accept N`."""
        with self._writing() as (store_dir, target):
            return _curate.correct(store_dir, [item.suggestion], target=target, strict=False)

    def _correct(self, correction: curation.Correction) -> curation.Applied:
        with self._writing() as (store_dir, target):
            return _curate.correct(store_dir, [correction], target=target)

    def _state_dir(self) -> Path:
        """Where the corrections are kept: the store directory; for a Neo4j graph the `store` it
        was opened with, else `./paperkg-store`, as `paperkg curate --neo4j URI` defaults `--store`."""
        return self.store_dir if self.store_dir is not None else Path(DEFAULT_STORE)

    def _neo4j_uri(self) -> str | None:
        return getattr(self.store, "uri", "Neo4j") if self.kind == "neo4j" else None

    @contextlib.contextmanager
    def _writing(self) -> Iterator[tuple[Path, GraphStore | None]]:
        """(state directory, Neo4j target) for a correction; Neo4j receives it through this
        handle's own store. An embedded store is opened again after a correction (it holds the
        graph it loaded): what this handle answers next is the corrected graph. A refused one
        (an unknown name, say) changed nothing and keeps what is loaded."""
        yield self._state_dir(), self.store if self.kind == "neo4j" else None
        if self.kind == "embedded":
            self.store.close()
            self.store = open_store(self._state_dir())

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> PaperKG:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        where = self.store_dir if self.kind == "embedded" else getattr(self.store, "uri", "neo4j")
        return f"<PaperKG {self.kind} {where}>"


def is_neo4j_uri(location: str | os.PathLike[str]) -> bool:
    return isinstance(location, str) and bool(_NEO4J_URI.match(location))


def neo4j_auth(user: str | None = None, password: str | None = None,
               database: str | None = None) -> tuple[str | None, str | None, str | None]:
    """(user, password, database): the arguments, else the environment the CLI reads
    (`PAPERKG_NEO4J_USER`, `PAPERKG_NEO4J_PASSWORD` or the first line of `PAPERKG_NEO4J_PASSWORD_FILE`,
    `PAPERKG_NEO4J_DATABASE`). The password is registered as a secret, so no message shows it."""
    user = user or os.environ.get("PAPERKG_NEO4J_USER") or None
    database = database or os.environ.get("PAPERKG_NEO4J_DATABASE") or None
    if password is None:
        path = os.environ.get("PAPERKG_NEO4J_PASSWORD_FILE")
        if path:
            try:
                with Path(path).open(encoding="utf-8") as fh:     # `open` is this module's own
                    password = fh.readline().rstrip("\r\n")
            except OSError as err:
                raise UsageError(f"cannot read the password file {path} (PAPERKG_NEO4J_PASSWORD_FILE): "
                                 f"{err.strerror}") from err
        else:
            password = os.environ.get("PAPERKG_NEO4J_PASSWORD") or None
    register_secret(password)
    return user, password, database


def open(location: str | os.PathLike[str] = DEFAULT_STORE, *, store: str | os.PathLike[str] | None = None,
         user: str | None = None, password: str | None = None, database: str | None = None) -> PaperKG:
    """The graph at `location`: a store directory written by `paperkg build` (default
    `./paperkg-store`), or a Neo4j URI (`bolt://host:7687`, `neo4j+s://...`) with `user`,
    `password` and `database` (else from the environment, as the CLI: `PAPERKG_NEO4J_USER`, ...).
    For a Neo4j graph, `store` names the build-state directory its builds use (what curation
    writes). A directory that holds no store raises `InputNotFoundError`; an unreachable server
    `StoreUnavailableError` (`paperkg.graph.errors`)."""
    if is_neo4j_uri(location):
        user, password, database = neo4j_auth(user, password, database)
        opened = open_store(None, str(location), user, password, database)
        return PaperKG(opened, store_dir=Path(store) if store is not None else None)
    return PaperKG(open_store(Path(location)), store_dir=Path(location))


def _log_problem(problem: Problem) -> None:
    log.warning("%s: %s", problem.severity, problem)


def build(paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
          store: str | os.PathLike[str] = DEFAULT_STORE, *, neo4j: str | None = None,
          user: str | None = None, password: str | None = None, database: str | None = None,
          replace_neo4j_graph: bool = False, mode: str = "default", jobs: int = 1, dask: str | None = None,
          on_problem: Callable[[Problem], None] | None = None) -> BuildSummary:
    """`paperkg build`: read `paths` (files, directories), extract the new papers, resolve, and add
    them to the store directory `store` (and to the Neo4j graph at `neo4j`, with credentials as
    `open` takes them). Input problems go to `on_problem` (default: the `paperkg` logger) and are
    counted in the summary (`errors`, `warnings`); the good records are still added, as the CLI
    adds them. Returns what the CLI's `build --json` prints (`summary.to_json()`)."""
    names = [os.fspath(paths)] if isinstance(paths, (str, os.PathLike)) else [os.fspath(p) for p in paths]
    target = None
    if neo4j:
        target = open_target(neo4j, *neo4j_auth(user, password, database), replace=replace_neo4j_graph)
    try:
        return _build(names, Path(store), on_problem or _log_problem, target=target, mode=mode,
                      n_process=jobs, dask=dask)
    finally:
        if target is not None:
            target.close()
