"""GraphML export for Gephi (and any other GraphML reader), written by hand rather than by networkx.

Why not `networkx.write_graphml`: it repeats edge ids in multigraphs (Gephi then drops the edge), raises
on lists and None, writes NaN/inf as text Java cannot parse, lets control characters break the XML, and
declares two keys with one name when a property mixes ints and floats (igraph refuses such files). This
writer owns every rule instead:

- GraphML namespace and schemaLocation; one `<graph edgedefault="directed">`.
- Node ids `n0..` in node-key order, edge ids `e0..` in edge-id order: unique NMTOKENs, and the same
  graph always gives a byte-identical file. The paperkg node key (`paper:<id>` for papers, the entity or
  collection id otherwise: unique across labels, and what edges point at) and the paperkg edge id
  (`TYPE|source|target`) stay available as `kg_id`.
- Every node has `label` (display name) and `type` (node label); every edge has `type`, `label` (also
  the type, so Gephi's edge labels say what an edge is) and `weight` (MENTIONS `count`, relation
  `support`, else 1). Entities, MENTIONS and relation edges have `confidence` (the extractor's
  probability; 1.0 when the graph carries none, as `graph/model.py` reads a missing one).
- Each `<edge>` element also has the XML attribute `label="TYPE"`: Gephi's GraphML importer reads
  that attribute (not the `label` data key) as the edge's kind, and its default import merges
  parallel edges between two nodes unless their kinds differ. Without it a paper's MENTIONS and
  INTRODUCES of one entity became one edge (the seed export lost 215 of 2,785 edges); with it Gephi
  keeps every edge (tests/graph/test_gephi.py imports with Gephi's own importer). The attribute is
  outside the GraphML schema's edge attributes; networkx and igraph ignore it.
- Gephi's visual attributes on nodes: integer `r`, `g`, `b` (a fixed colour per label; Gephi rejects
  `255.0`) and a double `size` from `paper_count`.
- A `Result` node (a number a paper reports) is labelled with its value as pages show it and its
  metric (`45.2% accuracy`), small like a paper, with its `confidence`.
- Every other property is exported as a scalar: lists joined with " | ", dicts as JSON, None/NaN/inf
  never written. One key per (domain, attribute name), declared `for="node"` or `for="edge"` (Gephi
  ignores `for="all"`), with one type for all values: ints `long`, floats `double`, int+float `double`,
  anything mixed with text (or bools with numbers) `string`.
- Characters XML 1.0 forbids (control characters other than tab/newline/CR, lone surrogates,
  U+FFFE/U+FFFF) are removed from every string.
- Streaming: one pass to infer the key types, one pass that writes each element as it goes; no DOM.
  Writing to a path goes through a temporary file and a rename, so a failed export leaves no half file.
"""

from __future__ import annotations

import json
import logging
import math
import numbers
import os
import re
import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO
from xml.sax.saxutils import escape

from paperkg.graph.model import ENTITY_LABELS, RELATION_TYPES, Edge, KnowledgeGraph, Node

log = logging.getLogger(__name__)

GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA_LOCATION = f"{GRAPHML_NS} http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd"

LIST_SEPARATOR = " | "
LABEL_MAX_CHARS = 80
PAPER_SIZE = 3.0
COLLECTION_SIZE = 30.0

# One colour per node label (Tableau 10), so a type reads the same in every export.
LABEL_COLOURS: dict[str, tuple[int, int, int]] = {
    "Paper": (186, 176, 172),
    "Collection": (89, 79, 79),
    "Method": (78, 121, 167),
    "Model": (242, 142, 43),
    "Dataset": (89, 161, 79),
    "Benchmark": (225, 87, 89),
    "Metric": (176, 122, 161),
    "Task": (118, 183, 178),
    "Result": (237, 201, 72),
}
DEFAULT_COLOUR: tuple[int, int, int] = (160, 160, 160)

# Properties never exported: internal lookup keys, the Paper's extraction JSON (large, re-derivable),
# and those that repeat what a computed attribute already says (`id` is in `kg_id`; an entity's `type`
# is the node label).
SKIPPED_NODE_PROPS = frozenset({"keys", "extraction", "id", "type", "confidence"})
SKIPPED_EDGE_PROPS = frozenset({"id", "type", "confidence"})

# Computed attributes, in declaration order, and the names Gephi or igraph treat specially. A property
# with one of these names is exported as `prop_<name>` so it neither clashes with a computed key
# (one key per name) nor is taken for a position, colour or id by a reader.
NODE_COMPUTED: tuple[tuple[str, str], ...] = (
    ("label", "string"),
    ("type", "string"),
    ("kg_id", "string"),
    ("r", "int"),
    ("g", "int"),
    ("b", "int"),
    ("size", "double"),
    ("confidence", "double"),
)
EDGE_COMPUTED: tuple[tuple[str, str], ...] = (
    ("label", "string"),
    ("type", "string"),
    ("kg_id", "string"),
    ("weight", "double"),
    ("confidence", "double"),
)
NODE_RESERVED = frozenset({name for name, _ in NODE_COMPUTED} | {"id", "x", "y", "z", "color"})
EDGE_RESERVED = frozenset(
    {name for name, _ in EDGE_COMPUTED} | {"id", "r", "g", "b", "color", "source", "target"}
)

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_ILLEGAL_XML_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_SPACE_RE = re.compile(r"\s+")
_TEXT_SPECIAL_RE = re.compile(r"[&<>\r]")
_ATTR_ENTITIES = {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
_FLUSH_EVERY = 2000


def clean_text(text: str) -> str:
    """Remove the characters XML 1.0 cannot carry at all (not even as character references)."""
    return _ILLEGAL_XML_RE.sub("", text) if _ILLEGAL_XML_RE.search(text) else text


def _escape_text(text: str) -> str:
    """Element text: `&`, `<`, `>` escaped, CR kept as a reference (a raw CR would be read as LF)."""
    if _TEXT_SPECIAL_RE.search(text) is None:
        return text
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")


# --- values -------------------------------------------------------------------------------------------

# Value kinds, before a key's type is decided.
_BOOL, _LONG, _DOUBLE, _STRING = "boolean", "long", "double", "string"


def _kind(value: Any) -> str | None:
    """The GraphML kind of one property value, or None when the value is not written at all."""
    kind = type(value)  # exact-type fast path: ABC isinstance checks dominate large exports
    if kind is str:
        return _STRING
    if kind is int:
        return _LONG if _LONG_MIN <= value <= _LONG_MAX else _STRING
    if kind is float:
        return _DOUBLE if math.isfinite(value) else None
    if kind is list or kind is tuple:
        return _STRING if value else None
    if value is None:
        return None
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, numbers.Integral):
        return _LONG if _LONG_MIN <= int(value) <= _LONG_MAX else _STRING
    if isinstance(value, numbers.Real):
        return _DOUBLE if math.isfinite(float(value)) else None
    if isinstance(value, list | tuple | set | frozenset):
        return _STRING if value else None
    return _STRING


def _merge_kinds(kinds: set[str]) -> str:
    """One type for a key whose values have these kinds (ints and floats meet at double)."""
    if kinds == {_BOOL}:
        return "boolean"
    if kinds == {_LONG}:
        return "long"
    if kinds <= {_LONG, _DOUBLE}:
        return "double"
    return "string"


def _scalar_text(value: Any) -> str:
    """A scalar as text inside a string (used for list items and for string-typed keys)."""
    kind = type(value)  # exact-type fast path, as in `_kind`
    if kind is str:
        return clean_text(value)
    if kind is int:
        return str(value)
    if kind is list or kind is tuple:
        return _join(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        return repr(number) if math.isfinite(number) else ""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return clean_text(json.dumps(value, sort_keys=True, ensure_ascii=False, default=str))
    if isinstance(value, list | tuple | set | frozenset):
        return _join(value)
    return clean_text(str(value))


def _join(items: Iterable[Any]) -> str:
    """Gephi reads scalars only, so lists become one string. Items that are None/NaN become empty
    strings rather than vanishing, so parallel lists (MENTIONS sentences/starts/ends) stay aligned."""
    if isinstance(items, set | frozenset):
        items = sorted(items, key=repr)
    return LIST_SEPARATOR.join(_scalar_text(item) for item in items)


def _render(value: Any, attr_type: str) -> str:
    """A value as the text of a `data` element whose key has `attr_type`."""
    if attr_type == "boolean":
        return "true" if value else "false"
    if attr_type in ("long", "int"):
        return str(int(value))
    if attr_type == "double":
        return repr(float(value))
    return _scalar_text(value)


# --- computed attributes ------------------------------------------------------------------------------


def _finite_number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def node_label(node: Node) -> str:
    """What Gephi shows on a node: an entity's or collection's name, a paper's title or the start of
    its abstract (papers often have no title), else the id."""
    props = node.props
    if node.label == "Paper":
        title = props.get("title")
        if isinstance(title, str) and _SPACE_RE.sub(" ", clean_text(title)).strip():
            return _SPACE_RE.sub(" ", clean_text(title)).strip()
        abstract = props.get("abstract")
        if isinstance(abstract, str):
            text = _SPACE_RE.sub(" ", clean_text(abstract)).strip()
            if len(text) > LABEL_MAX_CHARS:
                text = text[:LABEL_MAX_CHARS].rstrip() + "…"
            if text:
                return text
    else:
        # a result shows its value as pages do (`45.2%`), with the metric it is in when known
        name = props.get("name") if node.label != "Result" else " ".join(
            str(props[k]) for k in ("display", "metric") if isinstance(props.get(k), str))
        if isinstance(name, str) and clean_text(name).strip():
            return clean_text(name).strip()
    return clean_text(node.id)


def node_size(node: Node) -> float:
    """Entities grow with the papers mentioning them (sqrt, so hubs stay readable); papers are small
    and collections large whatever their counts."""
    if node.label in ("Paper", "Result"):
        return PAPER_SIZE
    if node.label == "Collection":
        return COLLECTION_SIZE
    count = _finite_number(node.props.get("paper_count")) or 0.0
    return round(5.0 + 3.0 * math.sqrt(max(count, 0.0)), 3)


def edge_weight(edge: Edge) -> float:
    """How strongly the edge holds: mentions counted, relations by supporting papers, else 1."""
    if edge.type == "MENTIONS":
        weight = _finite_number(edge.props.get("count"))
    elif edge.type in RELATION_TYPES:
        weight = _finite_number(edge.props.get("support"))
    else:
        weight = None
    return 1.0 if weight is None else weight


def node_confidence(node: Node) -> float | None:
    """An entity's confidence (max over its mentions) or a result's; 1.0 when the graph has none;
    None (not written) for papers and collections, which are read, not extracted."""
    if node.label not in ENTITY_LABELS and node.label != "Result":
        return None
    value = _finite_number(node.props.get("confidence"))
    return 1.0 if value is None else value


def edge_confidence(edge: Edge) -> float | None:
    """A MENTIONS' or relation's confidence (1.0 when absent); None for the other edge types."""
    if edge.type != "MENTIONS" and edge.type not in RELATION_TYPES:
        return None
    value = _finite_number(edge.props.get("confidence"))
    return 1.0 if value is None else value


def _node_computed(key: str, node: Node) -> dict[str, Any]:
    r, g, b = LABEL_COLOURS.get(node.label, DEFAULT_COLOUR)
    return {
        "label": node_label(node),
        "type": clean_text(node.label),
        "kg_id": clean_text(key),
        "r": r,
        "g": g,
        "b": b,
        "size": node_size(node),
        "confidence": node_confidence(node),
    }


def _edge_computed(edge: Edge) -> dict[str, Any]:
    return {
        "label": clean_text(edge.type),
        "type": clean_text(edge.type),
        "kg_id": clean_text(edge.id),
        "weight": edge_weight(edge),
        "confidence": edge_confidence(edge),
    }


def _exported_props(
    props: dict[str, Any], skipped: frozenset[str], reserved: frozenset[str]
) -> Iterator[tuple[str, Any]]:
    """(attribute name, value) for each property that is exported, reserved names prefixed."""
    for name, value in props.items():
        if name in skipped:
            continue
        attr = clean_text(str(name))
        if attr in reserved or attr.startswith("prop_"):
            attr = f"prop_{attr}"
        yield attr, value


# --- keys ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Key:
    id: str
    domain: str
    name: str
    type: str


def _declare_keys(graph: KnowledgeGraph) -> tuple[dict[str, _Key], dict[str, _Key]]:
    """First pass: one key per (domain, name) with a single type that fits all its values."""
    node_kinds: dict[str, set[str]] = {}
    edge_kinds: dict[str, set[str]] = {}
    for node in graph.nodes.values():
        for attr, value in _exported_props(node.props, SKIPPED_NODE_PROPS, NODE_RESERVED):
            kind = _kind(value)
            if kind is not None:
                node_kinds.setdefault(attr, set()).add(kind)
    for edge in graph.edges.values():
        for attr, value in _exported_props(edge.props, SKIPPED_EDGE_PROPS, EDGE_RESERVED):
            kind = _kind(value)
            if kind is not None:
                edge_kinds.setdefault(attr, set()).add(kind)

    counter = 0

    def make(
        domain: str, computed: tuple[tuple[str, str], ...], kinds: dict[str, set[str]]
    ) -> dict[str, _Key]:
        nonlocal counter
        keys: dict[str, _Key] = {}
        entries = [*computed, *((name, _merge_kinds(kinds[name])) for name in sorted(kinds))]
        for name, attr_type in entries:
            keys[name] = _Key(f"d{counter}", domain, name, attr_type)
            counter += 1
        return keys

    node_keys = make("node", NODE_COMPUTED, node_kinds)
    edge_keys = make("edge", EDGE_COMPUTED, edge_kinds)
    return node_keys, edge_keys


# --- writing ------------------------------------------------------------------------------------------


def _attr(value: str) -> str:
    return '"' + escape(value, _ATTR_ENTITIES) + '"'


def _data_lines(values: Iterable[tuple[str, Any]], keys: dict[str, _Key]) -> Iterator[str]:
    for name, value in values:
        if _kind(value) is None:
            continue
        key = keys[name]
        yield f'      <data key="{key.id}">{_escape_text(_render(value, key.type))}</data>\n'


def _element_values(
    computed: dict[str, Any], props: dict[str, Any], skipped: frozenset[str], reserved: frozenset[str]
) -> list[tuple[str, Any]]:
    return [*computed.items(), *sorted(_exported_props(props, skipped, reserved), key=lambda kv: kv[0])]


def _chunks(graph: KnowledgeGraph, counts: list[int]) -> Iterator[str]:
    """The document as text pieces, in order; `counts` receives (nodes, edges) written."""
    node_keys, edge_keys = _declare_keys(graph)
    yield '<?xml version="1.0" encoding="UTF-8"?>\n'
    yield (
        f"<graphml xmlns={_attr(GRAPHML_NS)} xmlns:xsi={_attr(XSI_NS)}"
        f" xsi:schemaLocation={_attr(SCHEMA_LOCATION)}>\n"
    )
    for key in (*node_keys.values(), *edge_keys.values()):
        yield (
            f"  <key id={_attr(key.id)} for={_attr(key.domain)} attr.name={_attr(key.name)}"
            f" attr.type={_attr(key.type)}/>\n"
        )
    yield '  <graph id="G" edgedefault="directed">\n'

    xml_ids: dict[str, str] = {}
    for index, (key, node) in enumerate(sorted(graph.nodes.items(), key=lambda item: item[0])):
        xml_id = f"n{index}"
        xml_ids[key] = xml_id
        values = _element_values(_node_computed(key, node), node.props, SKIPPED_NODE_PROPS, NODE_RESERVED)
        yield f'    <node id="{xml_id}">\n{"".join(_data_lines(values, node_keys))}    </node>\n'
    counts[0] = len(xml_ids)

    written = dangling = 0
    for edge in sorted(graph.edges.values(), key=lambda e: e.id):
        source, target = xml_ids.get(edge.source), xml_ids.get(edge.target)
        if source is None or target is None:
            dangling += 1
            continue
        values = _element_values(_edge_computed(edge), edge.props, SKIPPED_EDGE_PROPS, EDGE_RESERVED)
        edge_kind = clean_text(edge.type)
        yield (
            f'    <edge id="e{written}" source="{source}" target="{target}" label={_attr(edge_kind)}>\n'
            f"{''.join(_data_lines(values, edge_keys))}    </edge>\n"
        )
        written += 1
    counts[1] = written
    if dangling:
        log.warning(
            "GraphML export skipped %d edge(s) whose source or target node is not in the graph", dangling
        )
    yield "  </graph>\n</graphml>\n"


Chunks = Callable[[KnowledgeGraph, list[int]], Iterator[str]]


def _write_stream(chunks: Chunks, graph: KnowledgeGraph, stream: BinaryIO) -> tuple[int, int]:
    counts = [0, 0]
    buffer: list[str] = []
    for chunk in chunks(graph, counts):
        buffer.append(chunk)
        if len(buffer) >= _FLUSH_EVERY:
            stream.write("".join(buffer).encode("utf-8"))
            buffer.clear()
    stream.write("".join(buffer).encode("utf-8"))
    return counts[0], counts[1]


def write_document(chunks: Chunks, graph: KnowledgeGraph, out: BinaryIO | str | Path) -> tuple[int, int]:
    """Write the text `chunks(graph, counts)` yields (filling counts with nodes and edges written) to
    a binary stream or a path; shared by the GraphML and GEXF writers so both stream in bounded
    memory and replace a file atomically: a path is written to a temporary file in the same
    directory, then renamed, so a reader never sees half a file."""
    if not isinstance(out, str | Path):
        return _write_stream(chunks, graph, out)
    path = Path(out)
    # Not mkstemp: its 0600 mode would survive the rename; "x" mode respects the umask.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "xb", buffering=1 << 20) as stream:
            counts = _write_stream(chunks, graph, stream)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return counts


def write_graphml(graph: KnowledgeGraph, out: BinaryIO | str | Path) -> tuple[int, int]:
    """Write `graph` as GraphML to a binary stream or a file path; return (nodes, edges) written.

    A path is written atomically (temporary file in the same directory, then rename). Edges whose
    ends are not nodes of the graph are skipped with a warning, so the file never names an undeclared
    node.
    """
    return write_document(_chunks, graph, out)
