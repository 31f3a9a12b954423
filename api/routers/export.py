"""`GET /export/graphml` and `GET /export/gexf`: the whole graph as a download Gephi opens (GEXF with
a timeline: each element starts in the year it first appears)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import FileResponse
from starlette.background import BackgroundTask

from paperkg.api.deps import get_store
from paperkg.api.problems import problem_responses
from paperkg.graph import gexf
from paperkg.graph.graphml import write_graphml
from paperkg.graph.model import KnowledgeGraph
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
    return _download(store, write_graphml, GRAPHML_MEDIA_TYPE, "paperkg.graphml")


@router.get(
    "/gexf",
    response_class=FileResponse,
    responses={
        200: {"description": "The graph as dynamic GEXF 1.3 (attachment `paperkg.gexf`): nodes and edges "
                             "start in the year they first appear.",
              "content": {gexf.MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}}},
        **problem_responses(503),
    },
)
def export_gexf(store: Annotated[GraphStore, Depends(get_store)]) -> FileResponse:
    """Dynamic GEXF for Gephi's timeline; written and streamed like the GraphML download."""
    return _download(store, gexf.write_gexf, gexf.MEDIA_TYPE, "paperkg.gexf")


def _download(store: GraphStore, writer: Callable[[KnowledgeGraph, str], tuple[int, int]],
              media_type: str, filename: str) -> FileResponse:
    fd, path = tempfile.mkstemp(prefix="paperkg-", suffix=os.path.splitext(filename)[1])
    os.close(fd)
    try:
        writer(store.export(), path)
    except BaseException:
        _unlink(path)
        raise
    return FileResponse(path, media_type=media_type, filename=filename,
                        background=BackgroundTask(_unlink, path))
