"""Corrections over HTTP (`graph/curation.py`, `graph/review.py`): what the explorer's edit menu calls.

They write the store, so they exist only on a server that asks for a token (`PAPERKG_API_TOKEN`):
without one the routes are not there at all (404), and with one the token middleware answers 401 to
a request without it (`api/security.py`). Corrections are kept in the embedded store's build state;
a server on Neo4j refuses them (400) and says to run `paperkg curate ... --store DIR --neo4j URI`,
since that build state is a directory the server does not hold. The served graph picks the change
up as it picks up a build.
"""

# No `from __future__ import annotations`: FastAPI resolves the request model from a real class.
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from paperkg.api import curate as corrections_of
from paperkg.api.problems import problem_responses
from paperkg.api.settings import Settings
from paperkg.graph import curation
from paperkg.graph.errors import UsageError

router = APIRouter(tags=["corrections"])


class CorrectionIn(BaseModel):
    """A correction as a user makes it: `value` is the entity to merge into, the new name, or the type."""

    op: Literal["merge", "rename", "retype", "drop", "split"]
    name: str = Field(max_length=500, examples=["DPO"])
    value: str | None = Field(None, max_length=500, examples=["RLHF"])


class CorrectionOut(BaseModel):
    op: str
    name: str
    value: str | None = None
    applies: bool = True
    reason: str = ""


class Applied(BaseModel):
    corrections: list[CorrectionOut]
    papers: int = Field(description="Papers derived again.")
    changed: bool
    not_applying: list[CorrectionOut]


class ReviewEntity(BaseModel):
    id: str
    name: str
    type: str
    papers: int
    confidence: float


class ReviewItem(BaseModel):
    kind: str
    reason: str
    weight: float
    entities: list[ReviewEntity]
    suggestion: CorrectionOut
    subject: str = Field(description="The id of the entity the suggestion corrects.")
    target: str | None = Field(None, description="A merge's: the id of the entity it merges into.")


def _store_dir(request: Request) -> Path:
    settings: Settings = request.app.state.settings
    if settings.neo4j_uri:
        raise UsageError("this server reads Neo4j, whose build state it does not hold",
                         "run `paperkg curate ... --store DIR --neo4j URI` where the build state is")
    return Path(settings.store)


def _out(c: curation.Correction, status: curation.Status | None = None) -> CorrectionOut:
    return CorrectionOut(op=c.op, name=c.name, value=c.value, applies=status.applies if status else True,
                         reason=status.reason if status else "")


@router.get("/corrections", response_model=list[CorrectionOut], responses=problem_responses(400, 503))
def list_corrections(request: Request) -> list[CorrectionOut]:
    """The corrections, in the order they were made, each with whether it applies now."""
    return [_out(s.correction, s) for s in corrections_of.listing(_store_dir(request))]


def _applied(result: curation.Applied) -> Applied:
    return Applied(corrections=[_out(c) for c in result.corrections], papers=result.papers,
                   changed=result.changed, not_applying=[_out(s.correction, s) for s in result.not_applying])


@router.post("/corrections", response_model=Applied, responses=problem_responses(400, 404, 422, 503))
def add_correction(body: CorrectionIn, request: Request) -> Applied:
    """Record a correction (NAME as the catalog queries take it, or an entity id) and derive again
    what it touches; an unknown name is a 404 with the closest names in `suggestions`."""
    correction = curation.validate(body.op, body.name, body.value)
    return _applied(corrections_of.correct(_store_dir(request), [correction]))


@router.delete("/corrections", response_model=list[CorrectionOut], responses=problem_responses(400, 404, 503))
def undo_correction(request: Request, name: Annotated[str, Query(max_length=500)]) -> list[CorrectionOut]:
    """Take back the corrections of `name` and derive again what they touched."""
    return [_out(c) for c in corrections_of.undo(_store_dir(request), name)]


@router.get("/review", response_model=list[ReviewItem], responses=problem_responses(400, 503))
def review(request: Request, limit: Annotated[int, Query(ge=1, le=1000)] = 20) -> list[ReviewItem]:
    """What a correction would most improve, heaviest first, each with a suggested correction."""
    items = corrections_of.review(_store_dir(request), limit)
    return [ReviewItem(kind=i.kind, reason=i.reason, weight=round(i.weight, 4),
                       entities=[ReviewEntity(**e.to_json()) for e in i.entities],
                       suggestion=_out(i.suggestion), subject=i.subject, target=i.target) for i in items]
