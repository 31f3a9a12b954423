"""The one graph model every store speaks: labels, edge types, nodes, edges and their ids.

Properties (Neo4j-compatible: scalars and lists of scalars only; absent rather than None):

- `Paper`: id, ids (every record id merged into it), title?, year?, authors?, url?, doi?, categories?,
  sentence_starts? (where each sentence of the abstract starts: what MENTIONS' `sentences` index, so
  a mention's evidence sentence can be cut from the abstract without storing sentences twice)
  (the abstract and evidence sentences are bulky text: stores may keep them beside the graph and
  return them when a query asks)
- `Collection`: id, name, paper_count
- entities (`Method` ... `Task`; Neo4j also gives each the shared label `Entity`): id, type, name
  (display), aliases (every surface form seen, name included), keys (`name_key` of each alias: what
  lookups match), paper_count, introduced_count, confidence (max over its mentions), first_year?,
  last_year? (over the papers that mention it), years? and papers_per_year? (its papers by year,
  parallel lists; `trending` reads them on Neo4j), family? (Model only: `Qwen` for `Qwen3-8B`, from
  `graph.resolve.model_family`), family_key? (Model only: `compact_key` of family, what the `family`
  query matches)
- `Result`: one number a paper reports as the outcome of running a method or model (issue 27):
  id (`result_id`: `result:<paper id>:<offset of the value>`), paper (its paper's id), value (as
  written), display (as pages show it), kind (`absolute`, `delta`, `ratio`), unit ("" when none),
  number? (parsed and signed; the low end of a range), upper? (a range's high end), confidence,
  sentence (index), start, end (offsets of the value in the abstract), evidence (the sentence),
  year? (the paper's), direction (`higher` or `lower`: which way its metric is better, from the
  metric as written, `graph/metric_direction.py`), subject?, benchmark?, metric?, baseline? (the
  surfaces as the abstract writes them, kept when no entity answers to them)
- `IN_COLLECTION` Paper->Collection: (none)
- `MENTIONS` Paper->entity: count, sentences, starts, ends, surfaces, confidences (parallel lists, one
  per mention; a name written inside a longer one counts: `Tiny-ImageNet` also mentions `ImageNet`),
  confidence (max of confidences), year? (the paper's)
- `INTRODUCES` Paper->entity: sentence, year?
- relations entity->entity: papers (supporting paper ids, sorted), support (= len(papers)),
  confidences (per supporting paper, parallel to papers), confidence (combined: 1 - prod(1 - p)),
  evidence (one sentence per supporting paper, parallel to papers), first_year?

- `REPORTS` Paper->Result, and from a Result to the entity each of its surfaces resolves to (through
  the same resolution as mentions; a surface that resolves to no entity leaves its link out):
  `ACHIEVED_BY` (subject: Method/Model), `ON_BENCHMARK` (Dataset/Benchmark), `IN_METRIC` (Metric),
  `AGAINST` (baseline): (none)

Confidence is the extractor's probability (`graph.records.Mention.confidence`); 1.0 where a rule is
certain by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from paperkg.graph.normalize import slug

ENTITY_LABELS: tuple[str, ...] = ("Method", "Model", "Dataset", "Benchmark", "Metric", "Task")
NODE_LABELS: tuple[str, ...] = ("Paper", "Collection", *ENTITY_LABELS, "Result")
RELATION_TYPES: tuple[str, ...] = ("EVALUATED_ON", "COMPARED_WITH", "USES", "ADDRESSES", "MEASURED_BY")
# A result's link per field of `records.ResultMention` that names an entity.
RESULT_LINKS: dict[str, str] = {"subject": "ACHIEVED_BY", "benchmark": "ON_BENCHMARK", "metric": "IN_METRIC",
                                "baseline": "AGAINST"}
# the entity types each link may end at: a surface that resolves to an entity of another type (`MAE`
# the metric, written like `MAE` the masked autoencoder of the same paper) gets no link
RESULT_LINK_LABELS: dict[str, tuple[str, ...]] = {
    "subject": ("Method", "Model"), "benchmark": ("Dataset", "Benchmark"), "metric": ("Metric",),
    "baseline": ("Method", "Model")}
RESULT_EDGE_TYPES: tuple[str, ...] = ("REPORTS", *RESULT_LINKS.values())
EDGE_TYPES: tuple[str, ...] = ("IN_COLLECTION", "MENTIONS", "INTRODUCES", *RELATION_TYPES, *RESULT_EDGE_TYPES)


def entity_id(label: str, canonical_name: str) -> str:
    """Deterministic entity id: `method:group-relative-policy-optimization`."""
    return f"{label.lower()}:{slug(canonical_name)}"


def result_id(paper_id: str, start: int) -> str:
    """Deterministic result id: a paper reports one number at one offset of its abstract."""
    return f"result:{paper_id}:{start}"


def collection_id(name: str) -> str:
    return f"collection:{slug(name)}"


def node_key(label: str, node_id: str) -> str:
    """The key of a node in the embedded (networkx) graph, unique across labels.

    Entity and collection ids already carry their type; paper ids are the user's, so they get one.
    """
    return f"paper:{node_id}" if label == "Paper" else node_id


def edge_id(edge_type: str, source: str, target: str) -> str:
    """At most one edge of a type between two nodes, so the triple is the id."""
    return f"{edge_type}|{source}|{target}"


@dataclass
class Node:
    label: str
    id: str
    props: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return node_key(self.label, self.id)


@dataclass
class Edge:
    """`source`/`target` are node keys (see `node_key`)."""

    type: str
    source: str
    target: str
    props: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return edge_id(self.type, self.source, self.target)


@dataclass
class KnowledgeGraph:
    """A whole graph as plain data; stores persist it, exporters and queries read it."""

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: dict[str, Edge] = field(default_factory=dict)

    def add_node(self, node: Node) -> None:
        self.nodes[node.key] = node

    def add_edge(self, edge: Edge) -> None:
        self.edges[edge.id] = edge
