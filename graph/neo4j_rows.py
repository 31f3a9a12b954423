"""A `GraphDelta` as the Neo4j store sends it: rows per label and per (type, source label, target
label), checked against the closed sets and Lucene's term limit before anything is sent
(`plan_delta`), and grouped into statement parts and transactions of bounded size."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paperkg.graph.errors import (
    BadInputError,
)
from paperkg.graph.model import EDGE_TYPES, ENTITY_LABELS, NODE_LABELS
from paperkg.graph.neo4j_connection import _T
from paperkg.graph.neo4j_cypher import FULLTEXT_LISTS, MAX_TERM_BYTES, _checked, stored_props
from paperkg.graph.store import GraphDelta, empty_stats

# Edge types whose change can change the figures (of the papers' entities and collections).
FIGURE_EDGE_TYPES = frozenset({"MENTIONS", "INTRODUCES", "IN_COLLECTION"})


_LABEL_OF_PREFIX = {label.lower(): label for label in NODE_LABELS if label != "Paper"}


def _utf8_size(value: Any) -> int:
    """What an index holds of a value: its UTF-8 bytes (0 for a value that is no string)."""
    return len(value.encode("utf-8", "surrogatepass")) if isinstance(value, str) else 0


def _check_terms(label: str, node_id: str, values: Any) -> None:
    """Refuse (BadInputError, before anything is sent) a value of a full-text indexed list that
    Lucene cannot hold: see MAX_TERM_BYTES. No real name or id comes near the limit; a runaway
    "name" from a malformed input would otherwise take the user's database down."""
    if not isinstance(values, list | tuple):
        return
    for value in values:
        size = _utf8_size(value)
        if size > MAX_TERM_BYTES:
            what = "name" if label in ENTITY_LABELS else "record id"
            raise BadInputError(
                f"{label} {node_id[:80]!r} has a {what} of {size} bytes, over the {MAX_TERM_BYTES} bytes "
                "a Neo4j full-text index can hold",
                "shorten it in the input, or use the embedded store")


def _check_keys_text(label: str, node_id: str, text: Any) -> None:
    """Refuse an entity whose names together (`keys_text`, one TEXT index value) are over what the
    index holds: Neo4j 5.26 fails that write with "Property value is too large to index"."""
    size = _utf8_size(text)
    if size > MAX_TERM_BYTES:
        raise BadInputError(
            f"{label} {node_id[:80]!r} has names of {size} bytes together, over the {MAX_TERM_BYTES} bytes "
            "a Neo4j text index value can hold",
            "shorten or drop some of its aliases in the input, or use the embedded store")


def _label_of(labels: Sequence[str]) -> str | None:
    """The one paperkg label of a stored node (None for nodes that are not ours)."""
    ours = [label for label in labels if label in NODE_LABELS]
    return ours[0] if len(ours) == 1 else None


@dataclass
class Plan:
    """A delta as parameter rows, checked against the closed sets before anything is sent."""

    nodes: dict[str, list[dict]] = field(default_factory=dict)            # label -> rows
    edges: dict[tuple[str, str, str], list[dict]] = field(default_factory=dict)  # (type, s, t) -> rows
    deleted_nodes: dict[str, list[str]] = field(default_factory=dict)      # label -> ids
    deleted_edges: dict[tuple[str, str, str], list[dict]] = field(default_factory=dict)
    papers: set[str] = field(default_factory=set)     # papers whose figure inputs may have changed
    entities: dict[str, tuple[Any, Any]] = field(default_factory=dict)     # id -> (name, type)
    gone: set[str] = field(default_factory=set)       # deleted entity and collection ids
    wanted_nodes: set[str] = field(default_factory=set)    # full saves: every node key
    wanted_edges: set[str] = field(default_factory=set)    # full saves: every edge id
    wanted_counts: dict[str, dict[str, int]] = field(default_factory=empty_stats)

    @property
    def size(self) -> int:
        return (sum(map(len, self.nodes.values())) + sum(map(len, self.edges.values()))
                + sum(map(len, self.deleted_nodes.values())) + sum(map(len, self.deleted_edges.values())))


def _endpoint(key: str, labels: Mapping[str, str]) -> tuple[str, str]:
    """(label, id) of a node key: from the delta's own nodes, else from the key's form
    (`model.node_key`: `paper:<id>`; entity and collection ids start with their label)."""
    label = labels.get(key)
    if label is not None:
        return label, (key[len("paper:"):] if label == "Paper" else key)
    if key.startswith("paper:"):
        return "Paper", key[len("paper:"):]
    prefix = key.partition(":")[0]
    if prefix in _LABEL_OF_PREFIX:
        return _LABEL_OF_PREFIX[prefix], key
    raise ValueError(f"edge endpoint {key!r} is not the key of a paperkg node")


def plan_delta(delta: GraphDelta) -> Plan:
    """The delta's rows per label and per (type, source label, target label). Raises ValueError for
    anything outside the closed sets, a node under the wrong key, or (full saves) an edge whose
    endpoints are not nodes of the graph; BadInputError for a term the full-text index cannot hold."""
    plan = Plan()
    labels: dict[str, str] = {}
    for node in sorted(delta.nodes, key=lambda n: n.key):
        _checked(node.label, NODE_LABELS, "node label")
        props = stored_props(node.label, node.id, node.props)
        _check_terms(node.label, node.id, props.get(FULLTEXT_LISTS.get(node.label, "")))
        _check_keys_text(node.label, node.id, props.get("keys_text"))
        plan.nodes.setdefault(node.label, []).append({"id": node.id, "props": props})
        labels[node.key] = node.label
        if node.label in ENTITY_LABELS:
            plan.entities[node.id] = (props.get("name"), props.get("type"))
    if delta.full:
        plan.wanted_nodes = set(labels)
        for node in delta.nodes:
            plan.wanted_counts["nodes"][node.label] += 1
    for edge in sorted(delta.edges, key=lambda e: e.id):
        _checked(edge.type, EDGE_TYPES, "relationship type")
        if delta.full and (edge.source not in labels or edge.target not in labels):
            raise ValueError(f"edge {edge.id!r} does not join two nodes of the graph")
        (slabel, source), (tlabel, target) = _endpoint(edge.source, labels), _endpoint(edge.target, labels)
        plan.edges.setdefault((edge.type, slabel, tlabel), []).append(
            {"source": source, "target": target, "props": dict(edge.props)})
        if edge.type in FIGURE_EDGE_TYPES and slabel == "Paper":
            plan.papers.add(source)
        if delta.full:
            plan.wanted_edges.add(edge.id)
            plan.wanted_counts["edges"][edge.type] += 1
    for edge in sorted(delta.deleted_edges, key=lambda e: e.id):
        _checked(edge.type, EDGE_TYPES, "relationship type")
        (slabel, source), (tlabel, target) = _endpoint(edge.source, labels), _endpoint(edge.target, labels)
        plan.deleted_edges.setdefault((edge.type, slabel, tlabel), []).append(
            {"source": source, "target": target})
        if edge.type in FIGURE_EDGE_TYPES and slabel == "Paper":
            plan.papers.add(source)
    for node in sorted(delta.deleted_nodes, key=lambda n: n.key):
        _checked(node.label, NODE_LABELS, "node label")
        plan.deleted_nodes.setdefault(node.label, []).append(node.id)
        if node.label == "Paper":
            plan.papers.add(node.id)
        else:
            plan.gone.add(node.id)
    return plan


def _grouped_by_source(rows: list[dict], size: int) -> Iterator[list[dict]]:
    """Relationship rows as batches of `{source, rels: [{target, props}]}` groups, about `size`
    relationships each, a source never split over two batches (so concurrent batches lock disjoint
    source nodes), each group's targets in id order (so every batch takes target locks in the same
    order: waits, never a deadlock)."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row["source"]].append({"target": row["target"], "props": row["props"]})
    batch: list[dict] = []
    count = 0
    for source in sorted(groups):
        rels = sorted(groups[source], key=lambda r: r["target"])
        batch.append({"source": source, "rels": rels})
        count += len(rels)
        if count >= size:
            yield batch
            batch, count = [], 0
    if batch:
        yield batch


@dataclass
class Part:
    """One statement with its rows (at most about `batch_size`); `what` names them for error
    messages; `expect`: how many the statement must report written (None: no check, deletions)."""

    text: str
    rows: list[dict]
    what: str
    expect: int | None = None
    label: str = ""     # node parts: their label (for the element ids create_nodes returns)


def _pack(parts: list[Part], size: int) -> Iterator[list[Part]]:
    """Consecutive parts grouped into transactions of at most `size` rows. A graph has up to ~200
    (type, source label, target label) groups, most of them small; one commit each would cost more
    than writing their rows."""
    batch: list[Part] = []
    rows = 0
    for part in parts:
        if batch and rows + len(part.rows) > size:
            yield batch
            batch, rows = [], 0
        batch.append(part)
        rows += len(part.rows)
    if batch:
        yield batch


def _batches(rows: Sequence[_T], size: int) -> Iterator[list[_T]]:
    for start in range(0, len(rows), size):
        yield list(rows[start:start + size])
