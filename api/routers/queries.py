"""The named-query catalog over HTTP: `GET /queries`, one typed `GET /queries/<name>` per catalog
query, and `POST /queries/{name}` with a JSON body.

Each catalog query gets its own GET operation, generated from its `.cypher` header, so the OpenAPI
schema documents every parameter (type, default, range, example) and the typed rows it answers
(`api/models.py` `ROW_MODELS`) inside the paging envelope every list of this API shares
(`{"query", "params", "items", "limit", "offset", "next_offset"}`, `models.QueryResult`). A name
the catalog does not have is a 404 that suggests the closest ones.

Paging: a query that declares `offset` pages in its own Cypher; one that declares only `limit` is
paged here within its first `limit`-maximum rows (the API adds `offset`); one with neither returns
everything (`limit` null). `next_offset` comes from asking one row more than the page.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Path, Query, Request

from paperkg.api.deps import call, get_store
from paperkg.api.models import ROW_MODELS, CatalogQuery, EntityType, QueryParams, QueryResult
from paperkg.api.problems import problem_responses
from paperkg.graph.errors import BadInputError
from paperkg.graph.store import GraphStore
from paperkg.queries.bounded import capped
from paperkg.queries.catalog import CatalogQuery as Query_
from paperkg.queries.catalog import catalog_json, load_catalog
from paperkg.queries.params import Param
from paperkg.queries.runner import get_query, run_named

router = APIRouter(prefix="/queries", tags=["queries"])

QueryName = Annotated[str, Path(description="A catalog query name (see `GET /queries`).", max_length=200,
                                examples=["entity_search"])]
OFFSET_MAX = 10**9


def _int(value: Any, name: str, default: int) -> int:
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    if isinstance(value, bool):
        raise BadInputError(f"parameter {name!r} must be an int, got {value!r}")
    try:
        return int(value)
    except (TypeError, ValueError) as err:
        raise BadInputError(f"parameter {name!r} must be an int, got {str(value)[:80]!r}") from err


def run_page(store: GraphStore, name: str, params: dict[str, Any], request: Request | None = None
             ) -> QueryResult[Any]:
    """Run catalog query `name` and cut the page its `limit`/`offset` ask for (see the module doc)."""
    query = get_query(name)
    declared = {p.name: p for p in query.params}
    run = dict(params)
    limit_param, offset_param = declared.get("limit"), declared.get("offset")
    if limit_param is None:
        rows = run_named(store, name, run)
        return _capped(QueryResult(query=name, params=params, items=rows, limit=None, offset=0,
                                   next_offset=None), request)
    limit = _int(run.get("limit"), "limit", limit_param.default)
    offset = _int(run.pop("offset", None) if offset_param is None else run.get("offset"), "offset",
                  0 if offset_param is None else offset_param.default)
    if offset < 0 or offset > OFFSET_MAX:
        raise BadInputError(f"parameter 'offset' must be an int 0..{OFFSET_MAX}, got {offset}")
    top = limit_param.max if limit_param.max is not None else limit + 1
    if offset_param is not None:
        rows = run_named(store, name, {**run, "limit": min(limit + 1, top) if limit < top else limit})
        more = len(rows) > limit
        if not more and len(rows) == limit == top:     # a full page at the maximum: probe for one more
            more = bool(run_named(store, name, {**run, "offset": offset + limit, "limit": 1}))
        page = rows[:limit]
    else:                                           # paged here, within the query's first `top` rows
        run_named(store, name, {**run, "limit": limit})   # validates the limit as the query would
        rows = run_named(store, name, {**run, "limit": min(offset + limit + 1, top)}) if offset < top else []
        more = len(rows) > offset + limit
        page = rows[offset:offset + limit]
    return _capped(QueryResult(query=name, params=params, items=page, limit=limit, offset=offset,
                               next_offset=offset + limit if more else None), request)


def _capped(result: QueryResult[Any], request: Request | None) -> QueryResult[Any]:
    """Held to the same answer budget as user Cypher (`PAPERKG_MAX_ANSWER_BYTES`): beyond it rows
    are cut and `truncated` is true."""
    if request is None:
        return result
    settings = request.app.state.settings
    answer = capped(result.items, settings.max_answer_rows, settings.max_answer_bytes)
    result.items, result.truncated = answer.rows, answer.truncated
    return result


@router.get("", response_model=list[CatalogQuery])
async def list_queries() -> list[dict[str, Any]]:
    """The catalog, same JSON as `paperkg query --list --json`."""
    return catalog_json()


# --- one typed GET per catalog query ----------------------------------------------------------------


def _annotation(p: Param) -> Any:
    """The Python type FastAPI validates and documents for a parameter."""
    types: dict[str, Any] = {"int": int, "float": float, "entity_type": EntityType, "entities": list[str]}
    base = Literal[p.values] if p.type == "choice" else types.get(p.type, str)
    text = p.describe()
    extra: dict[str, Any] = {}
    if p.type in ("int", "float"):
        extra = {"ge": p.min, "le": p.max}
    elif p.type not in ("entities", "entity_type", "choice"):
        extra = {"min_length": 1, "max_length": 500}
    example = p.example
    query = Query(alias=p.name, description=f"{text}.", examples=[example], **extra)
    return Annotated[base if p.required else base | None, query]


def _typed_endpoint(query: Query_) -> Callable[..., Awaitable[QueryResult[Any]]]:
    declared = list(query.params)
    names = {p.name for p in declared}

    async def endpoint(**kwargs: Any) -> QueryResult[Any]:
        store = kwargs.pop("_store")
        request = kwargs.pop("_request")
        given = set(request.query_params)    # echo what was asked, not the defaults
        params: dict[str, Any] = {}
        for p in declared:
            value = kwargs.get(f"p_{p.name}")
            if value is None or p.name not in given:
                continue
            if p.type == "entities" and isinstance(value, list) and len(value) == 1:
                value = value[0]          # one `?names=a,b` is a comma-separated list
            params[p.name] = value
        if kwargs.get("p_offset") is not None and "offset" not in names and "offset" in given:
            params["offset"] = kwargs["p_offset"]
        return await call(store, run_page, store, query.name, params, request)

    signature = [inspect.Parameter("_store", inspect.Parameter.KEYWORD_ONLY,
                                   annotation=Annotated[GraphStore, Depends(get_store)]),
                 inspect.Parameter("_request", inspect.Parameter.KEYWORD_ONLY, annotation=Request)]
    for p in declared:
        default = inspect.Parameter.empty if p.required else p.default
        signature.append(inspect.Parameter(f"p_{p.name}", inspect.Parameter.KEYWORD_ONLY,
                                           annotation=_annotation(p), default=default))
    if "limit" in names and "offset" not in names:
        signature.append(inspect.Parameter("p_offset", inspect.Parameter.KEYWORD_ONLY, default=0,
                                           annotation=Annotated[int | None, Query(
                                               alias="offset", ge=0, le=OFFSET_MAX, description=(
                                                   "Rows to skip (paged by the API within the query's "
                                                   "first rows; see `limit`'s maximum)."))]))
    endpoint.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    endpoint.__name__ = f"query_{query.name}"
    return endpoint


for _query in load_catalog().values():
    router.add_api_route(
        f"/{_query.name}", _typed_endpoint(_query), methods=["GET"],
        response_model=QueryResult[ROW_MODELS[_query.name]],  # type: ignore[index]
        # an entity name the graph does not hold: 404 with the closest names (`suggestions`)
        responses=problem_responses(*([404] if _query.takes_entities() else []), 422, 503),
        summary=_query.name, description=_query.description,
        operation_id=f"query_{_query.name}",
    )


# --- any name: unknown ones answer 404 with suggestions; POST takes a JSON body ----------------------


@router.get("/{name}", response_model=QueryResult[dict[str, Any]],
            responses=problem_responses(404, 422, 503), include_in_schema=False)
async def run_query_get(name: QueryName, request: Request,
                  store: Annotated[GraphStore, Depends(get_store)]) -> QueryResult[Any]:
    """Every catalog query has its own GET above; this one only answers names the catalog lacks
    (404, with the closest names) and keeps repeated parameters as lists."""
    params: dict[str, Any] = {}
    for key, value in request.query_params.multi_items():
        if key in params:
            previous = params[key]
            params[key] = [*previous, value] if isinstance(previous, list) else [previous, value]
        else:
            params[key] = value
    return await call(store, run_page, store, name, params, request)


@router.post("/{name}", response_model=QueryResult[dict[str, Any]],
             responses=problem_responses(400, 404, 413, 422, 503))
async def run_query_post(
    name: QueryName,
    request: Request,
    store: Annotated[GraphStore, Depends(get_store)],
    params: Annotated[QueryParams | None, Body(examples=[{"name": "GRPO"}])] = None,
) -> QueryResult[Any]:
    """Run a catalog query with a JSON object of parameters as the body (typed values, lists); the
    answer is the same envelope as the GET's, its rows as the GET of that query documents them."""
    return await call(store, run_page, store, name, params or {}, request)
