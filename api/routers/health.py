"""`GET /health`: is the server up and its store reachable (a readiness check)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from paperkg.api.deps import call, get_store
from paperkg.api.models import Health
from paperkg.api.problems import problem_responses
from paperkg.graph.store import GraphStore

router = APIRouter(tags=["service"])


@router.get("/health", response_model=Health, responses=problem_responses(503))
async def health(request: Request, store: Annotated[GraphStore, Depends(get_store)]) -> Health:
    """Open the store if needed and check that it answers now (Neo4j: one round trip, at most a
    second): 503 with `Retry-After` when it cannot, as when Neo4j is down or refuses the credentials.
    A balancer should not route to a server whose every query would fail."""
    return await call(store, _health, request, store)


def _health(request: Request, store: GraphStore) -> Health:
    request.app.state.store_holder.ping(store)
    loaded = getattr(store, "networkx_loaded", None)
    cypher = "loading" if loaded is not None and loaded() is None else "ready"
    return Health(store=getattr(store, "kind", "unknown"), version=request.app.version, cypher=cypher)
