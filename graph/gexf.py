"""Dynamic GEXF 1.3 export: the graph with a timeline, so Gephi replays how the field grew.

GraphML has no notion of time; GEXF does. Every node and edge carries `start`, the year it first
appears, as an open interval (no `end`: an entity once named stays in the field), on a graph declared
`mode="dynamic" timeformat="integer"`, so Gephi's timeline shows each year's graph:

- a Paper starts in its `year`;
- an entity in its `first_year` (graph/model.py), else in the earliest year of the papers that
  mention or introduce it or state one of its relations; a Collection in its `first_year`, else its
  earliest paper's year;
- MENTIONS, INTRODUCES and IN_COLLECTION in their `year` (the paper's), else the paper's year;
- a Result in its `year` (its paper's); REPORTS and a result's links to entities in the year of the
  paper or result they leave;
- a relation in its `first_year`, else the earliest year of its supporting `papers`.
An element whose year is unknown (a paper without one) has no `start`: Gephi shows it at every time.

Everything else follows the GraphML export (graph/graphml.py), from the same functions, so the two
never disagree: node `label`, `viz:color` per node label, `viz:size` from `paper_count`, edge `weight`,
entity and edge `confidence`, every other property one scalar attribute of one declared type (lists
joined with " | ", characters XML forbids removed). Node ids are paperkg node keys (`paper:<id>`,
`method:grpo`) and edge ids paperkg edge ids (`TYPE|source|target`): both unique, and readable in
Gephi's data table. Each edge's `kind` is its type: Gephi's default import merges parallel edges
unless their kinds differ. Streaming and atomic like the GraphML writer; byte-identical output for
one graph.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO
from xml.sax.saxutils import escape

from paperkg.graph.graphml import (
    DEFAULT_COLOUR,
    EDGE_RESERVED,
    LABEL_COLOURS,
    NODE_RESERVED,
    SKIPPED_EDGE_PROPS,
    SKIPPED_NODE_PROPS,
    _exported_props,
    _kind,
    _merge_kinds,
    _render,
    clean_text,
    edge_confidence,
    edge_weight,
    node_confidence,
    node_label,
    node_size,
    write_document,
)
from paperkg.graph.model import ENTITY_LABELS, RELATION_TYPES, KnowledgeGraph, node_key

log = logging.getLogger(__name__)

GEXF_NS = "http://gexf.net/1.3"
VIZ_NS = "http://gexf.net/1.3/viz"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA_LOCATION = f"{GEXF_NS} http://gexf.net/1.3/gexf.xsd"
MEDIA_TYPE = "application/gexf+xml"

# Computed attributes (GEXF `attvalue`s; label, colour, size, weight and time are XML attributes or
# viz elements instead). Properties with these names, or with GEXF's own attribute names, are
# exported as `prop_<name>`, as in GraphML.
NODE_COMPUTED: tuple[tuple[str, str], ...] = (("type", "string"), ("kg_id", "string"),
                                              ("confidence", "double"))
EDGE_COMPUTED: tuple[tuple[str, str], ...] = (("type", "string"), ("kg_id", "string"),
                                              ("confidence", "double"))
GEXF_NODE_RESERVED = NODE_RESERVED | {"start", "end", "pid"}
GEXF_EDGE_RESERVED = EDGE_RESERVED | {"start", "end", "kind"}
YEAR_MIN, YEAR_MAX = 1, 9999
_ATTR_ENTITIES = {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
# What XML 1.0 cannot carry (as `graphml.clean_text` drops it), to be escaped in ids instead.
_ILLEGAL_ID_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _year(value: Any) -> int | None:
    """A year as an int, or None for anything that is not one (bools, text, out of range)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and YEAR_MIN <= value <= YEAR_MAX:
        return value
    return None


def _earliest(*years: int | None) -> int | None:
    known = [y for y in years if y is not None]
    return min(known) if known else None


def first_years(graph: KnowledgeGraph) -> tuple[dict[str, int], dict[str, int]]:
    """(node key -> first year, edge id -> first year), from the graph alone (see the module doc):
    the stored `year`/`first_year` properties when present, derived from the papers' years when not."""
    paper_year = {key: y for key, n in graph.nodes.items()
                  if n.label == "Paper" and (y := _year(n.props.get("year"))) is not None}
    result_year = {key: y for key, n in graph.nodes.items()
                   if n.label == "Result" and (y := _year(n.props.get("year"))) is not None}
    edge_years: dict[str, int] = {}
    derived: dict[str, int] = {}         # entity / collection -> earliest year of its papers
    for edge in graph.edges.values():
        if edge.type in RELATION_TYPES:
            year = _year(edge.props.get("first_year"))
            if year is None:
                year = _earliest(*(paper_year.get(node_key("Paper", str(p)))
                                   for p in edge.props.get("papers") or ()))
        else:
            year = _year(edge.props.get("year"))
            if year is None:
                year = paper_year.get(edge.source, result_year.get(edge.source))
        if year is not None:
            edge_years[edge.id] = year
            # an edge never starts before its ends: its year counts for each end it may date
            for end in (edge.source, edge.target) if edge.type in RELATION_TYPES else (edge.target,):
                before = derived.get(end)
                derived[end] = year if before is None else min(before, year)
    node_years: dict[str, int] = {}
    for key, node in graph.nodes.items():
        if node.label == "Paper":
            year = paper_year.get(key)
        elif node.label == "Result":
            year = result_year.get(key)
        elif node.label in ENTITY_LABELS or node.label == "Collection":
            year = _year(node.props.get("first_year"))
            if year is None:
                year = derived.get(key)
        else:
            year = None
        if year is not None:
            node_years[key] = year
    return node_years, edge_years


# --- attributes ---------------------------------------------------------------------------------------


def _declare(graph: KnowledgeGraph) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
    """First pass: attribute name -> (GEXF attribute id, type), one type per attribute."""
    def collect(items: Iterator[dict[str, Any]], skipped: frozenset[str], reserved: frozenset[str],
                computed: tuple[tuple[str, str], ...]) -> dict[str, tuple[str, str]]:
        kinds: dict[str, set[str]] = {}
        for props in items:
            for attr, value in _exported_props(props, skipped, reserved):
                kind = _kind(value)
                if kind is not None:
                    kinds.setdefault(attr, set()).add(kind)
        entries = [*computed, *((name, _merge_kinds(kinds[name])) for name in sorted(kinds))]
        return {name: (str(i), attr_type) for i, (name, attr_type) in enumerate(entries)}

    nodes = collect((n.props for n in graph.nodes.values()), SKIPPED_NODE_PROPS, GEXF_NODE_RESERVED,
                    NODE_COMPUTED)
    edges = collect((e.props for e in graph.edges.values()), SKIPPED_EDGE_PROPS, GEXF_EDGE_RESERVED,
                    EDGE_COMPUTED)
    return nodes, edges


def _attr(value: str) -> str:
    return '"' + escape(clean_text(value), _ATTR_ENTITIES) + '"'


def _id_attr(value: str) -> str:
    """An id as an attribute: characters XML cannot carry written as `\\x1b` rather than dropped,
    since dropping them would make `p1\\x1b` and `p1` one node in Gephi (a store built before
    readers refused such ids may hold both)."""
    return _attr(_ILLEGAL_ID_RE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), value))


def _attvalues(values: list[tuple[str, Any]], declared: dict[str, tuple[str, str]]) -> str:
    lines = []
    for name, value in values:
        if _kind(value) is None:
            continue
        attr_id, attr_type = declared[name]
        lines.append(f"          <attvalue for={_attr(attr_id)} value={_attr(_render(value, attr_type))}/>\n")
    return f"        <attvalues>\n{''.join(lines)}        </attvalues>\n" if lines else ""


def _values(computed: dict[str, Any], props: dict[str, Any], skipped: frozenset[str],
            reserved: frozenset[str]) -> list[tuple[str, Any]]:
    return [*computed.items(), *sorted(_exported_props(props, skipped, reserved), key=lambda kv: kv[0])]


def _start(year: int | None) -> str:
    return "" if year is None else f' start="{year}"'


def _chunks(graph: KnowledgeGraph, counts: list[int]) -> Iterator[str]:
    node_attrs, edge_attrs = _declare(graph)
    node_years, edge_years = first_years(graph)
    yield '<?xml version="1.0" encoding="UTF-8"?>\n'
    yield (f"<gexf xmlns={_attr(GEXF_NS)} xmlns:viz={_attr(VIZ_NS)} xmlns:xsi={_attr(XSI_NS)}"
           f' xsi:schemaLocation={_attr(SCHEMA_LOCATION)} version="1.3">\n')
    yield ("  <meta>\n    <creator>paperkg</creator>\n    <description>Knowledge graph of ML research: "
           "papers, the entities they name, and relations; each element starts in the year it first "
           "appears.</description>\n  </meta>\n")
    yield ('  <graph mode="dynamic" defaultedgetype="directed" timeformat="integer"'
           ' timerepresentation="interval">\n')
    for cls, declared in (("node", node_attrs), ("edge", edge_attrs)):
        yield f'    <attributes class="{cls}" mode="static">\n'
        for name, (attr_id, attr_type) in declared.items():
            yield f"      <attribute id={_attr(attr_id)} title={_attr(name)} type={_attr(attr_type)}/>\n"
        yield "    </attributes>\n"

    yield "    <nodes>\n"
    for key, node in sorted(graph.nodes.items(), key=lambda item: item[0]):
        r, g, b = LABEL_COLOURS.get(node.label, DEFAULT_COLOUR)
        computed = {"type": node.label, "kg_id": key, "confidence": node_confidence(node)}
        values = _values(computed, node.props, SKIPPED_NODE_PROPS, GEXF_NODE_RESERVED)
        yield (f"      <node id={_id_attr(key)} label={_attr(node_label(node))}"
               f"{_start(node_years.get(key))}>\n"
               f"{_attvalues(values, node_attrs)}"
               f'        <viz:color r="{r}" g="{g}" b="{b}"/>\n'
               f'        <viz:size value="{node_size(node)!r}"/>\n'
               "      </node>\n")
    yield "    </nodes>\n"
    counts[0] = len(graph.nodes)

    yield "    <edges>\n"
    written = dangling = 0
    for edge in sorted(graph.edges.values(), key=lambda e: e.id):
        if edge.source not in graph.nodes or edge.target not in graph.nodes:
            dangling += 1
            continue
        computed = {"type": edge.type, "kg_id": edge.id, "confidence": edge_confidence(edge)}
        values = _values(computed, edge.props, SKIPPED_EDGE_PROPS, GEXF_EDGE_RESERVED)
        yield (f"      <edge id={_id_attr(edge.id)} source={_id_attr(edge.source)} "
               f"target={_id_attr(edge.target)}"
               f" label={_attr(edge.type)} kind={_attr(edge.type)} weight=\"{edge_weight(edge)!r}\""
               f"{_start(edge_years.get(edge.id))}>\n"
               f"{_attvalues(values, edge_attrs)}"
               "      </edge>\n")
        written += 1
    counts[1] = written
    if dangling:
        log.warning("GEXF export skipped %d edge(s) whose source or target node is not in the graph",
                    dangling)
    yield "    </edges>\n  </graph>\n</gexf>\n"


def write_gexf(graph: KnowledgeGraph, out: BinaryIO | str | Path) -> tuple[int, int]:
    """Write `graph` as dynamic GEXF 1.3 to a binary stream or a path (atomically: temporary file,
    then rename); return (nodes, edges) written. Edges with an end outside the graph are skipped
    with a warning."""
    return write_document(_chunks, graph, out)
