"""`GET /stats`: node and edge counts, the same JSON as `paperkg stats --json`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from paperkg.api.deps import call, get_store
from paperkg.api.models import Stats
from paperkg.api.problems import problem_responses
from paperkg.graph.store import GraphStore

router = APIRouter(tags=["graph"])


@router.get("/stats", response_model=Stats, responses=problem_responses(503))
async def stats(store: Annotated[GraphStore, Depends(get_store)]) -> Stats:
    """Counts per node label and edge type, every label and type present even when zero."""
    return Stats.model_validate(await call(store, store.stats))
