"""`GET /export/graphml`: the whole graph as a GraphML download Gephi opens."""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import FileResponse
from starlette.background import BackgroundTask

from paperkg.api.deps import get_store
from paperkg.api.problems import problem_responses
from paperkg.graph.graphml import write_graphml
from paperkg.graph.store import GraphStore

router = APIRouter(prefix="/export", tags=["export"])

GRAPHML_MEDIA_TYPE = "application/graphml+xml"


def _unlink(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


@router.get(
    "/graphml",
    response_class=FileResponse,
    responses={
        200: {"description": "The graph as GraphML (attachment `paperkg.graphml`).",
              "content": {GRAPHML_MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}}},
        **problem_responses(503),
    },
)
def export_graphml(store: Annotated[GraphStore, Depends(get_store)]) -> FileResponse:
    """Written to a temporary file and streamed from there, so a large graph is not held in memory
    twice; the file is removed once sent."""
    fd, path = tempfile.mkstemp(prefix="paperkg-", suffix=".graphml")
    os.close(fd)
    try:
        write_graphml(store.export(), path)
    except BaseException:
        _unlink(path)
        raise
    return FileResponse(path, media_type=GRAPHML_MEDIA_TYPE, filename="paperkg.graphml",
                        background=BackgroundTask(_unlink, path))
