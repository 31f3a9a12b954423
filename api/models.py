"""Request and response models of the HTTP API: what `/openapi.json` promises and responses obey.

Rows of named and raw Cypher queries are open (`dict[str, Any]`): their columns are the catalog's
business and vary per query. Everything the API itself shapes (entities, papers, pages, stats,
errors) has a closed model, so a client can generate code from the schema and schemathesis can check
every response against it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Generic, Literal, TypeVar

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
    suggestions: list[str] | None = Field(None, description=(
        "For an entity name the graph does not hold: the closest names it does hold, best first "
        "(each usable as an entity name)."))


class ValidationIssue(BaseModel):
    loc: list[str | int]
    msg: str
    type: str


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    store: str = Field(description="The store kind answering queries: `embedded` or `neo4j`.")
    version: str
    cypher: Literal["ready", "loading"] = Field(
        "ready", description="`loading` while the embedded store builds the graph user Cypher reads "
        "(after the catalog is ready; a `/cypher` request meanwhile waits for it).")


class Stats(BaseModel):
    """Same JSON as `paperkg stats --json`."""

    nodes: dict[str, int] = Field(description=f"Count per node label ({', '.join(NODE_LABELS)}).")
    edges: dict[str, int] = Field(description=f"Count per edge type ({', '.join(EDGE_TYPES)}).")


class CatalogParam(BaseModel):
    name: str
    type: str
    required: bool
    default: Any = Field(None, description="The value used when the parameter is absent (null: none).")
    min: int | float | None = Field(None, description="Smallest allowed value (numbers only).")
    max: int | float | None = Field(None, description="Largest allowed value (numbers only).")
    example: Any = None
    schema_: dict[str, Any] = Field(alias="schema", serialization_alias="schema",
                                    description="JSON Schema of the value, range and default included.")


class CatalogQuery(BaseModel):
    """One catalog entry, same JSON as `paperkg query --list --json`."""

    name: str
    description: str
    params: list[CatalogParam]


RowT = TypeVar("RowT")


class Page(BaseModel, Generic[RowT]):
    """The one envelope of every list this API returns: the page's `items`, the `limit` and
    `offset` that cut it (`limit` null: the answer is not paged, every item is here) and the
    `offset` of the next page (`next_offset`, null on the last page)."""

    items: list[RowT]
    limit: int | None = Field(description="Page size asked for; null when the answer is not paged.")
    offset: int = Field(0, description="Items skipped before this page.")
    next_offset: int | None = Field(None, description="`offset` of the next page; null on the last page.")


class QueryResult(Page[RowT], Generic[RowT]):
    """A catalog query's or Cypher's answer: the envelope plus what ran."""

    query: str = Field(description="The catalog query's name, or the Cypher text that ran.")
    params: dict[str, Any] = Field(description="The parameters as received.")
    truncated: bool = Field(False, description=(
        "True when rows were left out: the answer passed the server's row or byte limit "
        "(`PAPERKG_MAX_ANSWER_ROWS`, `PAPERKG_MAX_ANSWER_BYTES`). Add a LIMIT or page with SKIP."))


# --- catalog rows: one model per catalog query, the columns its Cypher RETURNs ----------------------
# Extra columns are allowed (and passed through) so a store or a newer catalog adding a column does
# not break clients; tests/api/test_query_models.py checks every RETURN column has a field here.


class _Row(BaseModel):
    model_config = ConfigDict(extra="allow")


class EntitySearchRow(_Row):
    id: str
    name: str | None = None
    type: EntityType | None = None
    aliases: list[str] | None = None
    papers: int | None = Field(None, description="Papers mentioning it.")


class EntityRow(EntitySearchRow):
    introduced: int | None = Field(None, description="Papers introducing it.")
    family: str | None = None
    ambiguous: bool = False
    first_year: int | None = Field(None, description="Year of the earliest paper mentioning it.")
    last_year: int | None = Field(None, description="Year of the latest paper mentioning it.")
    confidence: float | None = Field(None, description="The extractor's highest confidence in a mention.")


class NeighborsRow(_Row):
    entity: str = Field(description="Id of the named entity this row is about.")
    relation: str = Field(description="Relation type, e.g. `EVALUATED_ON`.")
    direction: Literal["out", "in"]
    id: str
    name: str | None = None
    type: EntityType | None = None
    support: int | None = Field(None, description="Papers stating the relation.")
    confidence: float | None = Field(None, description="Combined confidence (1.0 when none is stored).")


class PapersMentioningRow(_Row):
    id: str
    title: str | None = None
    year: int | None = None
    mentions: int = Field(description="Mentions of the named entities in this paper.")
    entities: list[str] = Field(description="Ids of the named entities this paper mentions.")


class PapersWithAllRow(_Row):
    id: str
    title: str | None = None
    year: int | None = None


class EvaluatedOnRow(_Row):
    dataset: str = Field(description="Id of the named dataset or benchmark.")
    id: str
    name: str | None = None
    type: EntityType | None = None
    support: int | None = None
    confidence: float | None = None


class BenchmarksOfRow(_Row):
    entity: str = Field(description="Id of the named method or model.")
    id: str
    name: str | None = None
    type: EntityType | None = None
    support: int | None = None
    confidence: float | None = None


class ComparedWithRow(BenchmarksOfRow):
    direction: Literal["out", "in"]


class TopEntitiesRow(_Row):
    id: str
    name: str | None = None
    type: EntityType | None = None
    papers: int | None = None
    introduced: int | None = None


class FamilyRow(_Row):
    id: str
    name: str | None = None
    family: str | None = Field(None, description="The model's family (`Qwen` for `Qwen2.5-7B`).")
    papers: int | None = Field(None, description="Papers mentioning the model.")
    first_year: int | None = Field(None, description="Year of the earliest paper mentioning it.")
    last_year: int | None = Field(None, description="Year of the latest paper mentioning it.")


class CooccurringRow(_Row):
    entity: str
    id: str
    name: str | None = None
    type: EntityType | None = None
    papers: int = Field(description="Papers mentioning both.")


class IntroducedInRow(_Row):
    id: str
    name: str | None = None
    type: EntityType | None = None
    papers: int = Field(description="Papers of the collection introducing it.")
    paper: str = Field(description="The smallest id of those papers.")


class ShortestPathRow(_Row):
    step: int
    via: str | None = Field(None, description="`-TYPE->` or `<-TYPE-`: the edge from the previous step.")
    id: str
    type: str = Field(description="The node's label (`Paper` or an entity type).")
    name: str | None = None


class PaperRow(_Row):
    id: str
    ids: list[str] = Field(default_factory=list)
    title: str | None = None
    year: int | None = None
    authors: list[str] = Field(default_factory=list)
    url: str | None = None
    doi: str | None = None
    categories: list[str] = Field(default_factory=list, description="arXiv categories, when known.")
    abstract: str | None = None
    sentence_starts: list[int] = Field(default_factory=list, description=(
        "Where each sentence of the abstract starts; a mention's `sentence` indexes it."))
    collections: list[str] = Field(default_factory=list)
    entities: list[dict[str, Any]] = Field(default_factory=list, description=(
        "Each entity the paper mentions: id, type, name, count, introduced, mentions (sentence, start, "
        "end, surface)."))


class TimelineRow(_Row):
    year: int
    papers: int = Field(description="Papers of that year mentioning the entity.")


class TrendingRow(_Row):
    id: str
    name: str | None = None
    type: EntityType | None = None
    recent: int = Field(description="Papers from `since` to `until` mentioning it.")
    before: int = Field(description="Papers of the as many years just before `since` mentioning it.")
    growth: int = Field(description="recent - before.")
    since: int
    until: int


class _ResultRow(_Row):
    value: str | None = Field(None, description="The value as pages show it (`45.2%`).")
    number: float | None = Field(None, description="The value parsed (the low end of a range).")
    unit: str | None = Field(None, description="`%`, `pp`, `points`, `x`, a metric word, or empty.")
    metric: str | None = Field(None, description="The metric's entity name, else as the abstract writes it.")
    direction: Literal["higher", "lower"] | None = Field(None, description="Which way the metric is better.")
    year: int | None = None
    paper: str = Field(description="Id of the paper reporting it.")
    title: str | None = None
    evidence: str | None = Field(None, description="The sentence that reports it.")
    result: str = Field(description="Id of the `Result` node.")


class LeaderboardRow(_ResultRow):
    benchmark: str = Field(description="Id of the named benchmark or dataset.")
    subject: str | None = Field(None, description="The method or model that reached it (null: not named).")
    subject_id: str | None = None
    subject_type: EntityType | None = None
    metric_id: str | None = None
    confidence: float | None = None


class ResultsOfRow(_ResultRow):
    subject: str = Field(description="Id of the named method or model.")
    kind: Literal["absolute", "delta", "ratio"] | None = None
    benchmark: str | None = Field(None, description="The benchmark's entity name, else as written.")
    benchmark_id: str | None = None
    metric_id: str | None = None
    baseline: str | None = Field(None, description="What a change or ratio is against, when said.")
    baseline_id: str | None = None
    confidence: float | None = None
    start: int | None = Field(None, description="Where the value stands in the abstract.")


class SotaOverTimeRow(_ResultRow):
    year: int
    subject: str | None = None
    subject_id: str | None = None
    record: bool = Field(description="Whether it beats every earlier year's best.")


ROW_MODELS: dict[str, type[_Row]] = {
    "entity_search": EntitySearchRow, "entity": EntityRow, "neighbors": NeighborsRow,
    "papers_mentioning": PapersMentioningRow, "papers_with_all": PapersWithAllRow,
    "evaluated_on": EvaluatedOnRow, "benchmarks_of": BenchmarksOfRow, "compared_with": ComparedWithRow,
    "top_entities": TopEntitiesRow, "family": FamilyRow, "cooccurring": CooccurringRow,
    "introduced_in": IntroducedInRow,
    "shortest_path": ShortestPathRow, "paper": PaperRow, "timeline": TimelineRow, "trending": TrendingRow,
    "leaderboard": LeaderboardRow, "results_of": ResultsOfRow, "sota_over_time": SotaOverTimeRow,
}


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
