"""Entities: search, one entity, its neighbours, its papers — through the catalog's `entity_search`,
`entity`, `neighbors`, `papers_mentioning` and `paper` queries, so both stores answer with the same
rows (the catalog's parity tests cover them) and no Cypher is written here.

Paging: the catalog queries take a `limit` (at most 1000) but no offset, so a page is cut from the
first `offset + limit + 1` rows (one extra to know whether another page exists): only the best 1000
matches can be paged through. When the catalog query takes an `offset` parameter it is used instead.
"""

# No `from __future__ import annotations`: FastAPI must resolve the `Limit`/`Offset` aliases, which
# are local to `build_router`, from real objects rather than strings.
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query

from paperkg.api.deps import call, get_store
from paperkg.api.models import (
    Entity,
    EntityPage,
    EntityPaper,
    EntityPaperPage,
    EntitySummary,
    EntityType,
    Evidence,
    Neighbor,
    NeighborPage,
)
from paperkg.api.problems import problem_responses
from paperkg.api.settings import LIMIT_MAX, Settings
from paperkg.graph.errors import NotFoundError, UnknownEntityError
from paperkg.graph.model import ENTITY_LABELS
from paperkg.graph.normalize import compact_key
from paperkg.graph.store import GraphStore
from paperkg.queries.catalog import load_catalog
from paperkg.queries.runner import run_named

# The window the catalog's `limit` allows; pages beyond it are empty.
WINDOW = LIMIT_MAX
# `papers_mentioning` pages through every paper (its declared `offset` maximum).
PAPERS_OFFSET_MAX = 10_000_000
_ID_PREFIXES = {label.lower(): label for label in ENTITY_LABELS}

EntityRef = Annotated[str, Path(
    description="An entity id (`method:grpo`) or any of its names or aliases, case- and dash-insensitive.",
    max_length=500, examples=["GRPO", "method:grpo"],
)]


def _summary(row: dict[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "type": row["type"], "name": row["name"],
            "aliases": list(row.get("aliases") or []), "paper_count": int(row.get("papers") or 0)}


def _page(store: GraphStore, query: str, params: dict[str, Any], limit: int, offset: int
          ) -> tuple[list[dict[str, Any]], int | None]:
    """Rows `offset .. offset+limit` of a catalog query and the next page's offset (None: last)."""
    if "offset" in {p.name for p in load_catalog()[query].params}:
        rows = run_named(store, query, {**params, "offset": offset, "limit": min(limit + 1, WINDOW)})
        more = len(rows) > limit
        return rows[:limit], (offset + limit if more else None)
    if offset >= WINDOW:
        return [], None
    rows = run_named(store, query, {**params, "limit": min(offset + limit + 1, WINDOW)})
    more = len(rows) > offset + limit
    return rows[offset:offset + limit], (offset + limit if more else None)


def find_entity(store: GraphStore, ref: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The entity `ref` names (an id, or a name/alias) and any others the same name also names.

    An id is looked up through its name part (`method:grpo` -> `grpo`) and checked against the
    rows' ids, since the catalog's `entity` matches names, not ids. The name part is lossy for
    names with other characters than letters, digits and dots (`pass@1` is
    `metric:pass-1-6bd3e648`, `AIST++` `dataset:aist-...`): then the store names the entity of that
    id, and the catalog is asked by that name. A name several entities share (an ambiguous
    acronym) resolves to the most-mentioned one.
    """
    prefix, sep, rest = ref.partition(":")
    if sep and prefix in _ID_PREFIXES:
        found = _with_id(store, rest, ref)
        if found is None:
            found = _with_id(store, store.entity_name(ref), ref)
        if found is not None:
            return found
    rows = run_named(store, "entity", {"name": ref}) if compact_key(ref) else []
    if not rows:
        raise NotFoundError(f"no entity named {ref!r}", "search with GET /entities?q=...")
    return rows[0], rows[1:]


def _with_id(store: GraphStore, name: str | None, ref: str
             ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The `entity` row of id `ref` among those `name` names, with the others it names; None when
    `name` (if any) names no entity of that id."""
    if not name or not compact_key(name):
        return None
    try:
        rows = run_named(store, "entity", {"name": name})
    except UnknownEntityError:      # a lossy id's name part (`pass-1-6bd3e648`) names nothing
        return None
    for row in rows:
        if row["id"] == ref:
            return row, [r for r in rows if r is not row]
    return None


def build_router(settings: Settings) -> APIRouter:
    """Built per app so `limit`'s default and maximum in the OpenAPI schema are the settings'."""
    router = APIRouter(prefix="/entities", tags=["entities"])
    Limit = Annotated[int, Query(ge=1, le=settings.max_limit, description="Page size.")]
    Offset = Annotated[int, Query(ge=0, le=10**9, description=(
        f"Items to skip; only the first {WINDOW} matches can be paged through."))]
    # The search pages with the catalog's own `offset`: the schema promises exactly its range.
    search_max = next(int(p.max) for p in load_catalog()["entity_search"].params
                      if p.name == "offset" and p.max is not None)
    SearchOffset = Annotated[int, Query(ge=0, le=search_max, description="Matches to skip.")]
    default_limit = settings.default_limit

    @router.get("", response_model=EntityPage, responses=problem_responses(422, 503))
    async def search_entities(
        store: Annotated[GraphStore, Depends(get_store)],
        q: Annotated[str, Query(min_length=1, max_length=500, examples=["policy optimization"],
                                description="Part of a name or alias (case-, dash- and space-insensitive).")],
        type: Annotated[EntityType | None, Query(description="Only entities of this type.")] = None,
        limit: Limit = default_limit,
        offset: SearchOffset = 0,
    ) -> EntityPage:
        """Entities whose name or an alias contains `q`, most-mentioned first (catalog
        `entity_search`)."""
        params: dict[str, Any] = {"q": q}
        if type is not None:
            params["type"] = type
        return await call(store, _search, store, params, limit, offset)

    @router.get("/{id}", response_model=Entity, responses=problem_responses(404, 422, 503))
    async def get_entity(id: EntityRef, store: Annotated[GraphStore, Depends(get_store)]) -> Entity:
        """One entity: type, name, aliases, paper count, introductions and (models) family."""
        return await call(store, _entity, store, id)

    @router.get("/{id}/neighbors", response_model=NeighborPage, responses=problem_responses(404, 422, 503))
    async def get_neighbors(
        id: EntityRef,
        store: Annotated[GraphStore, Depends(get_store)],
        limit: Limit = default_limit,
        offset: Offset = 0,
    ) -> NeighborPage:
        """Entities linked to this one by a relation, with the relation's type, direction and
        support (catalog `neighbors`), strongest first."""
        return await call(store, _neighbors, store, id, limit, offset)

    @router.get("/{id}/papers", response_model=EntityPaperPage, responses=problem_responses(404, 422, 503))
    async def get_entity_papers(
        id: EntityRef,
        store: Annotated[GraphStore, Depends(get_store)],
        limit: Limit = default_limit,
        offset: Annotated[int, Query(ge=0, le=PAPERS_OFFSET_MAX, description="Papers to skip.")] = 0,
    ) -> EntityPaperPage:
        """The papers mentioning this entity, by paper id (catalog `papers_mentioning`), each with the
        sentence of its first mention (catalog `paper`): what the explorer shows as evidence.

        One `paper` lookup per paper of the page, so a page costs its size, never the entity's paper
        count. When the name given is shared with other entities, their papers are left out, so such
        a page may hold fewer than `limit` papers; `next_offset` still says whether more follow.
        """
        return await call(store, _entity_papers, store, id, limit, offset)

    return router


# The routes' work, run where `deps.call` says (on the loop for the embedded store, in a thread for
# Neo4j).


def _search(store: GraphStore, params: dict[str, Any], limit: int, offset: int) -> EntityPage:
    rows, next_offset = _page(store, "entity_search", params, limit, offset)
    return EntityPage(items=[EntitySummary.model_validate(_summary(r)) for r in rows],
                      limit=limit, offset=offset, next_offset=next_offset)


def _entity(store: GraphStore, id: str) -> Entity:
    row, others = find_entity(store, id)
    return Entity.model_validate({
        **_summary(row), "introduced_count": int(row.get("introduced") or 0),
        "family": row.get("family"), "ambiguous": bool(row.get("ambiguous")) or bool(others),
        "same_name": [r["id"] for r in others],
        "first_year": row.get("first_year"), "last_year": row.get("last_year"),
        "confidence": row.get("confidence"),
    })


def _neighbors(store: GraphStore, id: str, limit: int, offset: int) -> NeighborPage:
    entity, _ = find_entity(store, id)
    # `neighbors` matches by name, which other entities may share: keep this entity's rows.
    rows = [r for r in run_named(store, "neighbors", {"name": entity["name"], "limit": WINDOW})
            if r.get("entity", entity["id"]) == entity["id"]]
    page = rows[offset:offset + limit]
    return NeighborPage(
        entity=EntitySummary.model_validate(_summary(entity)),
        items=[Neighbor(id=r["id"], type=r["type"], name=r["name"], edge_type=r["relation"],
                        direction=r["direction"], support=int(r.get("support") or 0),
                        confidence=r.get("confidence")) for r in page],
        limit=limit, offset=offset,
        next_offset=offset + limit if len(rows) > offset + limit else None,
    )


def _entity_papers(store: GraphStore, id: str, limit: int, offset: int) -> EntityPaperPage:
    entity, others = find_entity(store, id)
    rows = run_named(store, "papers_mentioning", {"name": entity["name"], "offset": offset,
                                                  "limit": min(limit + 1, WINDOW)})
    more = len(rows) > limit
    items = [_entity_paper(store, entity["id"], row) for row in rows[:limit]
             if not others or entity["id"] in (row.get("entities") or ())]
    return EntityPaperPage(entity=EntitySummary.model_validate(_summary(entity)), items=items,
                           limit=limit, offset=offset, next_offset=offset + limit if more else None)


def _entity_paper(store: GraphStore, entity_id: str, row: dict[str, Any]) -> EntityPaper:
    found = run_named(store, "paper", {"id": row["id"]})
    paper = found[0] if found else {}
    mine = next((e for e in paper.get("entities") or () if e["id"] == entity_id), None)
    evidence = None
    if mine and mine["mentions"]:
        evidence = Evidence.model_validate(
            evidence_of(paper["abstract"], paper.get("sentence_starts") or [], mine["mentions"][0]))
    return EntityPaper(id=row["id"], title=row.get("title"), year=row.get("year"),
                       mentions=int(row.get("mentions") or 0), introduced=bool(mine and mine["introduced"]),
                       evidence=evidence)


def evidence_of(abstract: str, sentence_starts: list[int], mention: dict[str, Any]) -> dict[str, Any]:
    """The sentence `mention` sits in, trimmed, with the mention's offsets moved into it.

    Sentence i runs from `sentence_starts[i]` to the next start; without boundaries (a store built
    before they were kept), or when they do not hold the mention, the whole abstract is the sentence.
    """
    start, end, i = mention["start"], mention["end"], mention["sentence"]
    lo, hi = 0, len(abstract)
    if 0 <= i < len(sentence_starts):
        s_lo = sentence_starts[i]
        s_hi = sentence_starts[i + 1] if i + 1 < len(sentence_starts) else len(abstract)
        if s_lo <= start and end <= s_hi:
            lo, hi = s_lo, s_hi
    text = abstract[lo:hi]
    lead = len(text) - len(text.lstrip())
    return {"sentence": text.strip(), "start": start - lo - lead, "end": end - lo - lead,
            "surface": mention["surface"]}
