"""`POST /cypher`: read-only Cypher text, guarded by the runner on both stores, run in a worker
process within the server's bounds (`queries.bounded`): a deadline (503 with `Retry-After`), a
memory budget and an answer budget (422 naming the limit, or rows cut with `truncated: true`). The
worker is killed when the client goes away."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from paperkg.api.deps import get_store
from paperkg.api.models import CypherRequest, QueryResult
from paperkg.api.problems import problem_responses
from paperkg.api.settings import Settings
from paperkg.graph.store import GraphStore
from paperkg.queries.bounded import MIB, Bounds, ClientGone
from paperkg.queries.runner import run_cypher_bounded

router = APIRouter(tags=["queries"])
_WATCH = 0.25    # seconds between checks that the client is still there


def bounds_of(settings: Settings) -> Bounds:
    return Bounds(timeout=settings.cypher_timeout, memory_bytes=settings.cypher_memory_mb * MIB,
                  max_rows=settings.max_answer_rows, max_bytes=settings.max_answer_bytes,
                  workers=settings.cypher_workers)


@router.post("/cypher", response_model=QueryResult[dict[str, Any]],
             responses=problem_responses(400, 403, 413, 422, 503))
async def cypher(body: CypherRequest, request: Request,
                 store: Annotated[GraphStore, Depends(get_store)]) -> QueryResult[Any]:
    """Run read-only Cypher. Writing, file-reading (`LOAD CSV`) and procedure calls are refused
    (403); Cypher the embedded store cannot answer exactly is refused (422) rather than answered
    wrongly; text or answers beyond the server's limits are refused (422 naming the limit) or cut
    (`truncated: true`); a query that runs past the time limit is stopped (503, `Retry-After`). The
    answer is not paged (`limit` null): bound it with the Cypher's own LIMIT."""
    gone = threading.Event()

    async def watch() -> None:
        while not gone.is_set():
            if await request.is_disconnected():
                gone.set()
                return
            await asyncio.sleep(_WATCH)

    watcher = asyncio.create_task(watch())
    try:
        answer = await asyncio.to_thread(run_cypher_bounded, store, body.query, dict(body.params),
                                         bounds_of(request.app.state.settings), gone.is_set)
    except ClientGone:
        # Nobody is listening; the worker is dead. 499 is nginx's "client closed request".
        from starlette.responses import Response

        return Response(status_code=499)  # type: ignore[return-value]
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    return QueryResult(query=body.query, params=body.params, items=answer.rows, limit=None,
                       truncated=answer.truncated)
