"""Request and response models of the HTTP API: what `/openapi.json` promises and responses obey.

Rows of named and raw Cypher queries are open (`dict[str, Any]`): their columns are the catalog's
business and vary per query. Everything the API itself shapes (entities, papers, pages, stats,
errors) has a closed model, so a client can generate code from the schema and schemathesis can check
every response against it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue

from paperkg.graph.model import EDGE_TYPES, ENTITY_LABELS, NODE_LABELS

EntityType = Literal["Method", "Model", "Dataset", "Benchmark", "Metric", "Task"]
assert set(EntityType.__args__) == set(ENTITY_LABELS), "EntityType must follow graph.model"  # type: ignore[attr-defined]

_SURROGATE = re.compile("[\ud800-\udfff]")


def reject_surrogates(value: Any) -> Any:
    """Refuse lone surrogates (JSON `"\\ud800"`) anywhere in a request value.

    They are valid JSON but not Unicode text: the Neo4j driver cannot send them and the response
    (which echoes the query) cannot be encoded as UTF-8, so they would end as a 500.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise ValueError("text contains a lone surrogate (invalid Unicode)")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return value


NoSurrogates = AfterValidator(reject_surrogates)

# A query parameter value: scalars or lists of scalars, which is what both stores accept as a
# parameter and what the catalog's types (string, int, list of strings...) are made of.
Scalar = str | int | float | bool | None
ParamValue = Scalar | list[Scalar]
QueryParams = Annotated[dict[str, ParamValue], NoSurrogates]


class Problem(BaseModel):
    """An RFC 9457 problem: every 4xx/5xx body of this API."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="A URI naming the kind of problem (`about:blank` for plain HTTP errors).")
    title: str = Field(description="Short summary of the kind of problem.")
    status: int = Field(description="The HTTP status code.")
    detail: str = Field(description="What went wrong with this request.")
    instance: str | None = Field(None, description="The request path that failed.")
    hint: str | None = Field(None, description="What to do about it, when known.")
    errors: list[ValidationIssue] | None = Field(None, description="Each invalid value (validation only).")


class ValidationIssue(BaseModel):
    loc: list[str | int]
    msg: str
    type: str


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    store: str = Field(description="The store kind answering queries: `embedded` or `neo4j`.")
    version: str


class Stats(BaseModel):
    """Same JSON as `paperkg stats --json`."""

    nodes: dict[str, int] = Field(description=f"Count per node label ({', '.join(NODE_LABELS)}).")
    edges: dict[str, int] = Field(description=f"Count per edge type ({', '.join(EDGE_TYPES)}).")


class CatalogParam(BaseModel):
    name: str
    type: str
    required: bool
    example: Any = None


class CatalogQuery(BaseModel):
    """One catalog entry, same JSON as `paperkg query --list --json`."""

    name: str
    description: str
    params: list[CatalogParam]


class QueryResult(BaseModel):
    query: str = Field(description="The catalog query's name, or the Cypher text that ran.")
    params: dict[str, Any] = Field(description="The parameters as received.")
    rows: list[dict[str, Any]]
    truncated: bool = Field(False, description=(
        "True when rows were left out: the answer passed the server's row or byte limit "
        "(`PAPERKG_MAX_ANSWER_ROWS`, `PAPERKG_MAX_ANSWER_BYTES`). Add a LIMIT or page with SKIP."))


class CypherRequest(BaseModel):
    """Read-only Cypher: writes, file access (`LOAD CSV`) and procedure calls are refused."""

    model_config = ConfigDict(extra="forbid")

    query: Annotated[str, NoSurrogates] = Field(min_length=1, max_length=20_000,
                                                examples=["MATCH (m:Model) RETURN m.name AS name"])
    params: Annotated[dict[str, JsonValue], NoSurrogates] = Field(default_factory=dict)


class EntitySummary(BaseModel):
    id: str = Field(description="Stable entity id, e.g. `method:group-relative-policy-optimization`.")
    type: EntityType
    name: str
    aliases: list[str] = Field(default_factory=list)
    paper_count: int = 0


class EntityPage(BaseModel):
    items: list[EntitySummary]
    limit: int
    offset: int
    next_offset: int | None = Field(description="`offset` of the next page; null on the last page.")


class Entity(EntitySummary):
    introduced_count: int = Field(0, description="Papers that introduce it.")
    family: str | None = Field(None, description="Model family (`Qwen` for `Qwen3-8B`), models only.")
    ambiguous: bool = Field(False, description="The name given also names other entities.")
    same_name: list[str] = Field(default_factory=list,
                                 description="Ids of the other entities the name given also names.")
    first_year: int | None = Field(None, description="Year of the earliest paper mentioning it, when known.")
    last_year: int | None = Field(None, description="Year of the latest paper mentioning it, when known.")
    confidence: float | None = Field(None, description="The extractor's highest confidence in a mention.")


class Neighbor(BaseModel):
    id: str
    type: EntityType
    name: str
    edge_type: str = Field(description="Relation type, e.g. `EVALUATED_ON`.")
    direction: Literal["out", "in"] = Field(description="`out`: this entity is the edge's source.")
    support: int = Field(description="Number of papers supporting the relation.")
    confidence: float | None = Field(None, description="The relation's combined confidence, when known.")


class NeighborPage(BaseModel):
    entity: EntitySummary
    items: list[Neighbor]
    limit: int
    offset: int
    next_offset: int | None = Field(description="`offset` of the next page; null on the last page.")


class MentionEvidence(BaseModel):
    """One mention in the abstract: `abstract[start:end] == surface`, in sentence `sentence`."""

    sentence: int
    start: int
    end: int
    surface: str


class PaperEntity(BaseModel):
    id: str
    type: EntityType
    name: str
    count: int = Field(description="Mentions in this paper.")
    introduced: bool = Field(description="Whether this paper introduces the entity.")
    mentions: list[MentionEvidence]


class Paper(BaseModel):
    id: str
    ids: list[str] = Field(default_factory=list, description="Every record id merged into this paper.")
    title: str | None = None
    year: int | None = None
    authors: list[str] = Field(default_factory=list)
    url: str | None = None
    doi: str | None = None
    categories: list[str] = Field(default_factory=list, description="arXiv categories, when known.")
    abstract: str
    sentence_starts: list[int] = Field(default_factory=list, description=(
        "Where each sentence of the abstract starts; a mention's `sentence` indexes it (empty when the "
        "store was built without them)."))
    collections: list[str]
    entities: list[PaperEntity]


class Evidence(BaseModel):
    """The sentence a mention was read in: `sentence[start:end]` is the mention."""

    sentence: str = Field(description="The sentence (the whole abstract when the store has no sentence "
                                      "boundaries).")
    start: int
    end: int
    surface: str


class EntityPaper(BaseModel):
    id: str
    title: str | None = None
    year: int | None = None
    mentions: int = Field(description="Mentions of the entity in this paper.")
    introduced: bool = Field(description="Whether this paper introduces the entity.")
    evidence: Evidence | None = Field(None, description="The entity's first mention in the paper, in its "
                                                        "sentence.")


class EntityPaperPage(BaseModel):
    entity: EntitySummary
    items: list[EntityPaper]
    limit: int
    offset: int
    next_offset: int | None = Field(description="`offset` of the next page; null on the last page.")


Problem.model_rebuild()
