"""`GET /papers/{id}`: one paper with its abstract, collections and the entities it mentions, each
with the evidence (sentence index and character offsets of every mention).

The catalog has no `paper` query yet, and Cypher lives only in the catalog, so: when a `paper`
query exists it answers on both stores (same rows, the catalog's parity tests); until then the
embedded store answers from its networkx view and Neo4j says 501 rather than guess.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from starlette.exceptions import HTTPException

from paperkg.api.deps import get_store
from paperkg.api.models import Paper
from paperkg.api.problems import problem_responses
from paperkg.graph.errors import NotFoundError
from paperkg.graph.model import ENTITY_LABELS, node_key
from paperkg.graph.store import GraphStore
from paperkg.queries.catalog import load_catalog
from paperkg.queries.runner import run_named

router = APIRouter(prefix="/papers", tags=["papers"])

PAPER_FIELDS = ("id", "ids", "title", "year", "authors", "url", "abstract")

PaperId = Annotated[str, Path(description="The paper's id (any record id merged into it works).",
                              max_length=500)]


def _not_found(pid: str) -> NotFoundError:
    return NotFoundError(f"no paper with id {pid!r}", "ids come from the input records or from queries "
                         "such as papers_mentioning")


def _from_networkx(store: Any, pid: str) -> dict[str, Any]:
    """The paper from the embedded store's networkx view: found by node key (a record id merged into
    another paper costs one scan of the nodes), its collections and mentions from its out-edges."""
    g = store.networkx()
    key = node_key("Paper", pid)
    if key not in g:
        key = next((k for k, d in g.nodes(data=True)
                    if "Paper" in d.get("__labels__", ()) and pid in d.get("ids", ())), None)
        if key is None:
            raise _not_found(pid)
    props = g.nodes[key]
    collections: list[str] = []
    entities: dict[str, dict[str, Any]] = {}
    introduced: set[str] = set()
    for _, target, data in g.out_edges(key, data=True):
        etype = next(iter(data.get("__labels__", ())), "")
        node = g.nodes[target]
        if etype == "IN_COLLECTION":
            collections.append(node.get("name", target))
        elif etype == "INTRODUCES":
            introduced.add(target)
        elif etype == "MENTIONS" and node.get("type") in ENTITY_LABELS:
            entities[target] = {
                "id": node["id"], "type": node["type"], "name": node["name"], "count": data.get("count", 0),
                "mentions": [
                    {"sentence": s, "start": a, "end": b, "surface": t}
                    for s, a, b, t in zip(data.get("sentences", []), data.get("starts", []),
                                          data.get("ends", []), data.get("surfaces", []), strict=False)
                ],
            }
    for target, entity in entities.items():
        entity["introduced"] = target in introduced
    return {
        **{k: v for k, v in props.items() if k in PAPER_FIELDS},
        "collections": sorted(collections),
        "entities": sorted(entities.values(), key=lambda e: (e["mentions"][0]["start"] if e["mentions"]
                                                             else 0, e["id"])),
    }


@router.get("/{id}", response_model=Paper, responses=problem_responses(404, 422, 501, 503))
def get_paper(id: PaperId, store: Annotated[GraphStore, Depends(get_store)]) -> Paper:
    """A paper by id: abstract, metadata, collections, entities with mention offsets."""
    if "paper" in load_catalog():
        rows = run_named(store, "paper", {"id": id})
        if not rows:
            raise _not_found(id)
        return Paper.model_validate(rows[0])
    if getattr(store, "kind", None) == "embedded":
        return Paper.model_validate(_from_networkx(store, id))
    raise HTTPException(501, "paper lookup on this store needs the catalog query `paper`")
