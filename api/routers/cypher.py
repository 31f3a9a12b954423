"""`POST /cypher`: read-only Cypher text, guarded by the runner on both stores."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from paperkg.api.deps import get_store
from paperkg.api.models import CypherRequest, QueryResult
from paperkg.api.problems import problem_responses
from paperkg.graph.store import GraphStore
from paperkg.queries.runner import run_cypher

router = APIRouter(tags=["queries"])


@router.post("/cypher", response_model=QueryResult,
             responses=problem_responses(400, 403, 413, 422, 503))
def cypher(body: CypherRequest, store: Annotated[GraphStore, Depends(get_store)]) -> QueryResult:
    """Run read-only Cypher. Writing, file-reading (`LOAD CSV`) and procedure calls are refused
    (403); Cypher the embedded store cannot answer exactly is refused (422) rather than answered
    wrongly."""
    rows = run_cypher(store, body.query, dict(body.params))
    return QueryResult(query=body.query, params=body.params, rows=rows)
