"""The named-query catalog over HTTP: `GET /queries`, `GET|POST /queries/{name}`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Request

from paperkg.api.deps import get_store
from paperkg.api.models import CatalogQuery, QueryParams, QueryResult
from paperkg.api.problems import problem_responses
from paperkg.graph.store import GraphStore
from paperkg.queries.bounded import capped
from paperkg.queries.catalog import catalog_json
from paperkg.queries.runner import run_named

router = APIRouter(prefix="/queries", tags=["queries"])

QueryName = Annotated[str, Path(description="A catalog query name (see `GET /queries`).", max_length=200,
                                examples=["entity_search"])]


def _run(request: Request, store: GraphStore, name: str, params: dict[str, Any]) -> QueryResult:
    """The runner looks `name` up in the loaded catalog (a dict, never a file path), so an unknown
    or hostile name is a 404 before anything runs; parameters are validated there too (422). The
    answer is held to the same byte budget as user Cypher (`PAPERKG_MAX_ANSWER_BYTES`; rows are
    already bounded by the catalog's `limit`): beyond it rows are cut, `truncated: true`."""
    settings = request.app.state.settings
    answer = capped(run_named(store, name, params), settings.max_answer_rows, settings.max_answer_bytes)
    return QueryResult(query=name, params=params, rows=answer.rows, truncated=answer.truncated)


@router.get("", response_model=list[CatalogQuery])
def list_queries() -> list[dict[str, Any]]:
    """The catalog, same JSON as `paperkg query --list --json`."""
    return catalog_json()


@router.get("/{name}", response_model=QueryResult, responses=problem_responses(404, 422, 503))
def run_query_get(name: QueryName, request: Request,
                  store: Annotated[GraphStore, Depends(get_store)]) -> QueryResult:
    """Run a catalog query with its parameters in the query string (`?name=GRPO&limit=5`).

    Values arrive as text and the runner converts them to the declared types; a repeated parameter
    (`?names=a&names=b`) is a list.
    """
    params: dict[str, Any] = {}
    for key, value in request.query_params.multi_items():
        if key in params:
            previous = params[key]
            params[key] = [*previous, value] if isinstance(previous, list) else [previous, value]
        else:
            params[key] = value
    return _run(request, store, name, params)


@router.post("/{name}", response_model=QueryResult, responses=problem_responses(400, 404, 413, 422, 503))
def run_query_post(
    name: QueryName,
    request: Request,
    store: Annotated[GraphStore, Depends(get_store)],
    params: Annotated[QueryParams | None, Body(examples=[{"name": "GRPO"}])] = None,
) -> QueryResult:
    """Run a catalog query with a JSON object of parameters as the body (typed values, lists)."""
    return _run(request, store, name, params or {})
