"""Run catalog queries and user Cypher on either store; the one entry point the CLI and HTTP API use.

Named queries: parameters are validated and normalised once (`params.Param`), then handed to the
store's query backend (`backend_for`), chosen by the interface the store offers, not by its name:
- a `CypherEngine` (Neo4j) runs the catalog's Cypher text with them (`store.run_catalog`);
- a `GraphView` (embedded) gets the registered Python implementation of the same query run over its
  networkx graph (`embedded_impl`), which returns the same rows (the parity tests hold both to
  that). A catalog query without a Python implementation would go through grand-cypher instead, but
  every query shipped today has one: none of them is within grand-cypher's reach (all take `$params`).

User Cypher (`run_cypher`): a `CypherEngine` through the store's read-only guard
(`store.run_user_cypher`); a `GraphView` through grand-cypher with the checks of `embedded_cypher`,
in `NetworkxBackend.run_cypher`, the one place the embedded store runs user Cypher.
"""

from __future__ import annotations

import difflib
import functools
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from paperkg.graph.errors import BadInputError, ParameterUsageError, UnknownEntityError, UnknownQueryError
from paperkg.graph.neo4j_cypher import statement
from paperkg.graph.normalize import compact_key
from paperkg.graph.store import CypherEngine, GraphView
from paperkg.queries import embedded_impl
from paperkg.queries.bounded import Answer, Bounds, run_in_worker
from paperkg.queries.catalog import CatalogQuery, load_catalog
from paperkg.queries.params import fulltext_term, fuzzy_term
from paperkg.queries.suggest import Named, rank

Row = dict[str, Any]


def get_query(name: str) -> CatalogQuery:
    """The catalog query `name`; UnknownQueryError (404 / exit 2) naming the known ones otherwise."""
    catalog = load_catalog()
    query = catalog.get(name) if isinstance(name, str) else None
    if query is None:
        shown = repr(name)[:80]
        guess = did_you_mean(name, catalog) if isinstance(name, str) else ""
        raise UnknownQueryError(f"no catalog query named {shown}{guess}",
                            f"known: {', '.join(sorted(catalog))} (see `paperkg query --list`)")
    return query


def did_you_mean(given: str, known: Iterable[str]) -> str:
    """` (did you mean 'neighbors'?)` for the closest known names (difflib), or "" when none is close.
    Case and dashes are forgiven: `Papers-Mentioning` finds `papers_mentioning`."""
    options = {k.lower(): k for k in known}
    folded = given[:200].strip().lower().replace("-", "_").replace(" ", "_")
    close = difflib.get_close_matches(folded, list(options), n=3, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(options[c]) for c in close) + "?)"


def validate_params(query: CatalogQuery, params: Mapping[str, Any]) -> dict[str, Any]:
    """Canonical values of every declared parameter (defaults filled in, None for absent optional
    ones). Raises BadInputError naming the parameter and its expected type."""
    if not isinstance(params, Mapping):
        raise BadInputError("query parameters must be a mapping of names to values")
    declared = {p.name for p in query.params}
    unknown = sorted(str(k) for k in params if k not in declared)
    if unknown:
        expected = ", ".join(f"{p.name} ({p.describe()})" for p in query.params) or "none"
        raise ParameterUsageError(f"unknown parameter {unknown[0]!r} for query {query.name!r}"
                            f"{did_you_mean(unknown[0], declared)}", f"its parameters: {expected}")
    values: dict[str, Any] = {}
    for p in query.params:
        raw = params.get(p.name)
        absent = raw is None or (isinstance(raw, str) and not raw.strip())
        if absent:
            if p.required:
                raise ParameterUsageError(f"missing required parameter {p.name!r} ({p.describe()}) "
                                    f"for query {query.name!r}", f"e.g. --param {p.name}={_shown(p.example)}")
            values[p.name] = p.default
        else:
            values[p.name] = p.coerce(raw)
    return values


def _shown(example: Any) -> str:
    return ",".join(example) if isinstance(example, list) else str(example)


def cypher_params(query: CatalogQuery, values: Mapping[str, Any]) -> dict[str, Any]:
    """What the Cypher and the embedded implementation receive (`$name_key`, `$limit`, ...)."""
    out: dict[str, Any] = {}
    for p in query.params:          # an absent optional one is null: `$type IS NULL` in the Cypher
        out.update(p.cypher_params(values.get(p.name)))
    return out


class QueryBackend(Protocol):
    """How one store answers: catalog queries with validated `$params`, user Cypher, warm-up."""

    def run_catalog(self, query: CatalogQuery, params: dict[str, Any]) -> list[Row]: ...

    def run_cypher(self, text: str, params: dict[str, Any], max_rows: int | None = None) -> list[Row]: ...

    def prepare(self) -> None: ...

    def has_entity(self, key: str) -> bool: ...

    def suggest(self, key: str) -> list[str]: ...


class CypherBackend:
    """A store with its own Cypher engine (Neo4j): the catalog's text, the store's guard."""

    def __init__(self, store: CypherEngine) -> None:
        self.store = store

    def run_catalog(self, query: CatalogQuery, params: dict[str, Any]) -> list[Row]:
        return self.store.run_catalog(query.cypher, params)

    def run_cypher(self, text: str, params: dict[str, Any], max_rows: int | None = None) -> list[Row]:
        return self.store.run_user_cypher(text, params, max_rows=max_rows)

    def prepare(self) -> None:
        self.store.ensure_ready()

    def has_entity(self, key: str) -> bool:
        params = {"query": fulltext_term(key), "key": key}
        return bool(self.store.run_catalog(statement("entity_with_key"), params))

    def suggest(self, key: str) -> list[str]:
        rows = self.store.run_catalog(statement("entities_near_key"), {"query": fuzzy_term(key)})
        return rank(key, ((k, Named(str(r["name"]), int(r["papers"] or 0), str(r["id"])))
                          for r in rows for k in r["keys"] or ()))


class NetworkxBackend:
    """A store whose graph is networkx in this process (embedded): Python implementations of the
    catalog, grand-cypher for user Cypher."""

    def __init__(self, store: GraphView) -> None:
        self.store = store

    def run_catalog(self, query: CatalogQuery, params: dict[str, Any]) -> list[Row]:
        rows = embedded_impl.run_on(query.name, self.store, params)
        if rows is None:                       # no Python implementation: grand-cypher, params inlined
            from paperkg.queries.embedded_cypher import run_grand_cypher

            rows = run_grand_cypher(self.store.networkx(), query.cypher, params)
        return rows

    def run_cypher(self, text: str, params: dict[str, Any], max_rows: int | None = None) -> list[Row]:
        """grand-cypher computes the whole answer whatever `max_rows` (the worker's budgets and
        deadline bound it)."""
        from paperkg.queries.embedded_cypher import run_grand_cypher

        return run_grand_cypher(self.store.networkx(), text, params)

    def prepare(self) -> None:
        embedded_impl.index_of(self.store)

    def has_entity(self, key: str) -> bool:
        return bool(embedded_impl.index_of(self.store).by_key.get(key))

    def suggest(self, key: str) -> list[str]:
        return embedded_impl.index_of(self.store).suggest(key)


def backend_for(store: Any) -> QueryBackend:
    """The backend for `store`, by the interface it offers (`graph.store.CypherEngine` or `GraphView`)."""
    backend = _backend_class(type(store))
    if backend is None:
        raise BadInputError(f"{type(store).__name__} cannot answer queries",
                            "open the store with paperkg.graph.store.open_store")
    return backend(store)


@functools.lru_cache(maxsize=64)
def _backend_class(kind: type) -> type[CypherBackend] | type[NetworkxBackend] | None:
    """Which backend serves stores of class `kind`: a protocol check walks the class's members, which
    was a quarter of a small catalog query's time when asked per query."""
    if issubclass(kind, CypherEngine):
        return CypherBackend
    if issubclass(kind, GraphView):
        return NetworkxBackend
    return None


def run_named(store: Any, name: str, params: dict[str, Any]) -> list[Row]:
    """Rows of catalog query `name` with `params` (strings from the CLI/GET, or JSON values).

    Unknown query -> UnknownQueryError; missing or unknown parameter -> ParameterUsageError, malformed
    value -> BadInputError; no
    rows because an entity name names no entity -> UnknownEntityError with the closest names.
    """
    query = get_query(name)
    values = validate_params(query, params or {})
    backend = backend_for(store)
    rows = backend.run_catalog(query, cypher_params(query, values))
    if not rows:
        check_names(backend, query, values)
    return [to_json_row(row) for row in rows]


def check_names(backend: QueryBackend, query: CatalogQuery, values: Mapping[str, Any]) -> None:
    """Raise UnknownEntityError for the first entity name in `values` that no entity has, with the
    graph's closest names. Asked only of an empty answer: a found name costs no lookup, and the
    suggestions are computed on a miss alone."""
    for p in query.params:
        if p.type not in ("entity", "entities") or values.get(p.name) is None:
            continue
        for name in values[p.name] if p.type == "entities" else [values[p.name]]:
            key = compact_key(name)
            if backend.has_entity(key):
                continue
            suggestions = backend.suggest(key)
            guess = " or ".join(repr(s) for s in suggestions)
            raise UnknownEntityError(f"no entity named {name.strip()!r}"
                                     f"{f' (did you mean {guess}?)' if guess else ''}",
                                     "find names with the entity_search query or GET /entities?q=...",
                                     suggestions)


def run_cypher(store: Any, text: str, params: dict[str, Any]) -> list[Row]:
    """Read-only user Cypher. Neo4j: the store's guard (writes, LOAD CSV, procedures refused);
    embedded: grand-cypher, refusing with UnsupportedQueryError what it cannot answer correctly."""
    if not isinstance(text, str) or not text.strip():
        raise BadInputError("the Cypher query is empty")
    rows = backend_for(store).run_cypher(text, dict(params or {}))
    return [to_json_row(row) for row in rows]


def run_cypher_bounded(store: Any, text: str, params: dict[str, Any], bounds: Bounds | None = None,
                       cancelled: Callable[[], bool] | None = None) -> Answer:
    """`run_cypher` as the CLI and the HTTP API run it: in a forked worker with a deadline, a memory
    budget and an answer budget (`queries.bounded`), `truncated` telling whether rows were cut.
    Refusals that need no store (empty text, the guard's keyword and size checks) happen here,
    before anything forks."""
    if not isinstance(text, str) or not text.strip():
        raise BadInputError("the Cypher query is empty")
    from paperkg.graph.cypher_guard import scan

    scan(text)
    bounds = bounds or Bounds()
    backend = backend_for(store)
    params = dict(params or {})
    if isinstance(backend, NetworkxBackend):
        # Loaded and imported here, once, so children share them (and never import under a lock a
        # thread of the parent held when it forked).
        import grandcypher  # noqa: F401
        import lark  # noqa: F401

        import paperkg.queries.embedded_cypher  # noqa: F401

        store.networkx()

    def work() -> list[Row]:
        forget = getattr(store, "forget_connections", None)
        if forget is not None:
            forget()
        # One row beyond the budget is enough to tell that the answer was cut (Neo4j then stops
        # computing the rest instead of streaming millions of rows into the worker).
        return [to_json_row(row) for row in backend.run_cypher(text, params, max_rows=bounds.max_rows + 1)]

    return run_in_worker(work, bounds, cancelled)


def prepare(store: Any) -> None:
    """Make `store` ready for catalog queries now (the API calls it at startup) rather than on the
    first request: the embedded store loads its graph and builds its query index (~30 s at 100k
    abstracts); Neo4j checks once that the indexes the catalog calls exist and are online, creating
    them on a database saved by an older paperkg (`Neo4jStore.ensure_ready`)."""
    backend_for(store).prepare()


def to_json_row(row: Mapping[str, Any]) -> Row:
    # plain values kept inline (no call per value): answers run to thousands of rows
    return {k if type(k) is str else str(k): v if type(v) in _PLAIN else _json_value(v)
            for k, v in row.items()}


_PLAIN = frozenset({str, int, bool, type(None)})


def _json_value(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:       # the common case first: rows of thousands of scalars
        return value
    if kind is list or kind is tuple:      # exact types before the ABC checks below (~0.5 us each)
        return [v if type(v) in _PLAIN else _json_value(v) for v in value]
    if kind is dict:
        return {k if type(k) is str else str(k): v if type(v) in _PLAIN else _json_value(v)
                for k, v in value.items()}
    if kind is float:
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((_json_value(v) for v in value), key=repr)
    iso = getattr(value, "iso_format", None)
    return iso() if callable(iso) else str(value)
