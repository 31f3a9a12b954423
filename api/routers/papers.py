"""`GET /papers/{id}`: one paper with its abstract, collections and the entities it mentions, each
with the evidence (sentence index and character offsets of every mention): the catalog query
`paper`, so both stores answer it alike (the catalog's parity tests).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path

from paperkg.api.deps import call, get_store
from paperkg.api.models import Paper
from paperkg.api.problems import problem_responses
from paperkg.graph.errors import NotFoundError
from paperkg.graph.store import GraphStore
from paperkg.queries.runner import run_named

router = APIRouter(prefix="/papers", tags=["papers"])

PaperId = Annotated[str, Path(description="The paper's id (any record id merged into it works).",
                              max_length=500)]


def _not_found(pid: str) -> NotFoundError:
    return NotFoundError(f"no paper with id {pid!r}", "ids come from the input records or from queries "
                         "such as papers_mentioning")


# `:path` so old-style arXiv ids (`hep-th/9901001`) route here whether the slash is sent as is or
# as %2F (the server decodes both to the same path).
@router.get("/{id:path}", response_model=Paper, responses=problem_responses(404, 422, 503))
async def get_paper(id: PaperId, store: Annotated[GraphStore, Depends(get_store)]) -> Paper:
    """A paper by id: abstract, metadata, collections, entities with mention offsets."""
    rows = await call(store, run_named, store, "paper", {"id": id})
    if not rows:
        raise _not_found(id)
    return Paper.model_validate(rows[0])
