"""`paperkg export neo4j-import DIR`: the graph as the CSV files Neo4j's own bulk importer reads
(`neo4j-admin database import full`), with the exact command and the schema to create after it.

Why: online loading (`build --neo4j`) goes through transactions; a first load of millions of
relationships is what Neo4j's offline importer is for (it writes the store files directly, at
hundreds of thousands of relationships per second). What the directory holds:

- `nodes-<Label>.csv`, one per node label: `id:ID(<Label>)` (an id space per label: a paper id may
  look like an entity id), `:LABEL` (entities also get `Entity`), then one typed column per
  property (`year:long`, `confidence:double`, `ambiguous:boolean`, `aliases:string[]`, ...);
  Papers get their `caption` (title, else id) and entities their `keys_text` as `build --neo4j`
  writes them;
- `rels-<TYPE>-<Source>-<Target>.csv`, one per relationship type and endpoint labels:
  `:START_ID(<Source>)`, `:END_ID(<Target>)`, `:TYPE`, typed property columns;
- `nodes-PaperkgCo.csv`, `nodes-PaperkgFigures.csv` and `nodes-PaperkgMeta.csv`: the store's
  internal nodes (the figures `cooccurring` and `introduced_in` read, the marker saying which build
  generation the graph is), so the imported database answers every catalog query and a later
  `build --neo4j --store` of the same store only writes what changed;
- `import.args`: the importer's arguments, one a line (file names relative to DIR); `import.sh`
  runs `neo4j-admin database import full` with them; `schema.cypher`: the constraints and indexes
  to create once the database is started (`cypher-shell -f schema.cypher`), the ones
  `build --neo4j` creates.

Format choices: every string is quoted (RFC 4180, quotes doubled), so an empty string stays an
empty string and an absent property stays absent (an unquoted empty field); the array delimiter is
U+001F (unit separator), which no text paperkg stores contains (checked: a value holding it is
refused), because `;` (the importer's default) appears in evidence sentences; fields may span lines
(`--multiline-fields=true`).
"""

from __future__ import annotations

import shlex
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperkg.graph.errors import BadInputError
from paperkg.graph.model import EDGE_TYPES, ENTITY_LABELS, NODE_LABELS, KnowledgeGraph
from paperkg.graph.neo4j_cypher import schema_statements, stored_props
from paperkg.graph.neo4j_figure_writer import FIGURE_LIMIT
from paperkg.graph.neo4j_lease import FIGURES_FORMAT

ARRAY_DELIMITER = "\x1f"
IMPORT_OPTIONS = ("--array-delimiter=U+001F", "--multiline-fields=true", "--id-type=string")
# Figure property names on the internal PaperkgCo and PaperkgFigures nodes (graph/figures_co.cypher
# and figures_intro.cypher write the same).
CO_PROPS = ("of", "other", "co_name", "co_type", "co_papers")
INTRO_PROPS = ("intro_ids", "intro_names", "intro_types", "intro_papers", "intro_paper")


@dataclass
class ImportSummary:
    nodes: int
    relationships: int
    files: list[str]


def _ranked(graph: KnowledgeGraph, counts: Mapping[str, int]) -> list[tuple[int, str, str, str]]:
    """(-count, name, id, key) of every counted node, in `ORDER BY count DESC, name, id` order."""
    nodes = graph.nodes
    return sorted((-n, str(nodes[k].props.get("name", "")), nodes[k].id, k) for k, n in counts.items())


def figures(graph: KnowledgeGraph) -> tuple[list[dict[str, Any]], dict[str, dict[str, list]]]:
    """(the co-mention entries, the introduction lists of every collection that has some by its id):
    what a save into Neo4j computes in Cypher (graph/figures_co.cypher, figures_intro.cypher),
    computed here from the graph so that an imported database needs no pass after the import.

    - entity E: every other entity mentioned by a paper that mentions E, with the number of such
      papers; the first FIGURE_LIMIT of each type in the order papers desc, name, id are kept (they
      hold the first FIGURE_LIMIT overall), one entry each.
    - collection C: every entity a Paper of C introduces, with the number of introducing papers and
      the smallest of their ids, same order, first FIGURE_LIMIT.
    The parity tests hold an imported database's answers to the embedded store's."""
    nodes = graph.nodes
    entity = {k for k, n in nodes.items() if n.label in ENTITY_LABELS}
    mentions: dict[str, list[str]] = defaultdict(list)     # paper key -> entity keys it mentions
    introduces: dict[str, set[str]] = defaultdict(set)     # paper key -> entity keys it introduces
    members: dict[str, list[str]] = defaultdict(list)      # collection key -> paper keys
    for edge in graph.edges.values():
        if edge.type == "MENTIONS" and edge.target in entity:
            mentions[edge.source].append(edge.target)
        elif edge.type == "INTRODUCES" and edge.target in entity:
            introduces[edge.source].add(edge.target)
        elif edge.type == "IN_COLLECTION" and nodes[edge.source].label == "Paper":
            members[edge.target].append(edge.source)
    papers_of: dict[str, list[str]] = defaultdict(list)
    for paper, targets in mentions.items():
        for target in targets:
            papers_of[target].append(paper)
    co: list[dict[str, Any]] = []
    out: dict[str, dict[str, list]] = {}
    for key, papers in papers_of.items():
        counts: Counter[str] = Counter()
        for paper in papers:
            counts.update(mentions[paper])
        counts.pop(key, None)
        per_type: Counter[str] = Counter()
        for neg, name, oid, other in _ranked(graph, counts):
            otype = nodes[other].props.get("type") or ""   # as figures_co.cypher: '' for no type
            per_type[otype] += 1
            if per_type[otype] <= FIGURE_LIMIT:
                co.append(dict(zip(CO_PROPS, (nodes[key].id, oid, name, otype, -neg), strict=True)))
    for key, papers in members.items():
        introducing: dict[str, list[str]] = defaultdict(list)
        for paper in papers:
            for target in introduces.get(paper, ()):
                introducing[target].append(nodes[paper].id)
        ranked = _ranked(graph, {k: len(v) for k, v in introducing.items()})[:FIGURE_LIMIT]
        kept = [(oid, name, nodes[k].props.get("type") or "", -neg, min(introducing[k]))
                for neg, name, oid, k in ranked]
        if kept:
            out[nodes[key].id] = dict(zip(INTRO_PROPS, map(list, zip(*kept, strict=True)), strict=True))
    return co, out


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    raise BadInputError(f"a property value of type {type(value).__name__} cannot be imported into Neo4j",
                        "properties must be scalars or lists of scalars")


def _column_type(name: str, values: Iterable[Any]) -> str:
    """The importer's type for a property column: long/double/boolean/string or an array of one;
    ints and floats together are double (Neo4j compares them numerically)."""
    kinds: set[str] = set()
    for value in values:
        if isinstance(value, list | tuple):
            kinds.add(f"{_common(name, {_kind(v) for v in value}) if value else 'string'}[]")
        else:
            kinds.add(_kind(value))
    arrays = {k for k in kinds if k.endswith("[]")}
    if arrays and arrays != kinds:
        raise BadInputError(f"property {name!r} holds both lists and single values",
                            "the Neo4j importer needs one type per column")
    if arrays:
        return _common(name, {k[:-2] for k in arrays}) + "[]"
    return _common(name, kinds)


def _common(name: str, kinds: set[str]) -> str:
    if len(kinds) <= 1:
        return next(iter(kinds), "string")
    if kinds == {"long", "double"}:
        return "double"
    raise BadInputError(f"property {name!r} holds values of types {sorted(kinds)}",
                        "the Neo4j importer needs one type per column")


def _text(value: str) -> str:
    if ARRAY_DELIMITER in value:
        raise BadInputError(f"a value holds the control character U+001F: {value[:60]!r}",
                            "remove it from the input")
    return value


def _field(value: Any) -> str:
    """One CSV field: strings quoted (quotes doubled), numbers and booleans bare, absent empty."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        if not value:
            return ""
        return '"' + ARRAY_DELIMITER.join(_element(v) for v in value).replace('"', '""') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return '"' + _text(str(value)).replace('"', '""') + '"'


def _element(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return _text(str(value))


def _write_csv(path: Path, header: list[str], rows: Iterable[list[str]]) -> int:
    count = 0
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write(",".join(header) + "\n")
        for row in rows:
            out.write(",".join(row) + "\n")
            count += 1
    return count


def _property_columns(records: list[dict[str, Any]], skip: set[str]) -> list[tuple[str, str]]:
    names = sorted({k for r in records for k, v in r.items() if v is not None and k not in skip})
    return [(n, _column_type(n, (r[n] for r in records if r.get(n) is not None))) for n in names]


def _check_name(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise BadInputError(f"property name {name!r} cannot be a CSV header column",
                            "use letters, digits and underscores")
    return name


def write_import_dir(graph: KnowledgeGraph, out_dir: str | Path, *, generation: str | None = None,
                     database: str = "neo4j") -> ImportSummary:
    """Write `graph` into `out_dir` (created; must be empty or not exist) as described above."""
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BadInputError(f"{out} exists and is not an empty directory",
                            "give a new directory for the import files")
    out.mkdir(parents=True, exist_ok=True)
    files: list[str] = []
    args = list(IMPORT_OPTIONS)
    nodes_total = rels_total = 0

    def node_file(label: str, extra_labels: str, records: list[dict[str, Any]], id_prop: str | None) -> None:
        """One node file; `id_prop` None: nodes no relationship refers to, numbered, the number not
        stored (`:ID(label)` without a property name)."""
        nonlocal nodes_total
        columns = _property_columns(records, {id_prop} if id_prop else set())
        header = [f"{id_prop or ''}:ID({label})", ":LABEL",
                  *(f"{_check_name(n)}:{t}" for n, t in columns)]
        labels = _field(extra_labels.split(";")) if extra_labels else _field(label)
        rows = ([_field(r[id_prop] if id_prop else str(i)), labels, *(_field(r.get(n)) for n, _ in columns)]
                for i, r in enumerate(records))
        name = f"nodes-{label}.csv"
        nodes_total += _write_csv(out / name, header, rows)
        files.append(name)
        args.append(f"--nodes={name}")

    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for node in sorted(graph.nodes.values(), key=lambda n: n.key):
        by_label[node.label].append(stored_props(node.label, node.id, node.props))
    for label in NODE_LABELS:
        if by_label.get(label):
            extra = f"{label};Entity" if label in ENTITY_LABELS else ""
            node_file(label, extra, by_label[label], "id")
    co, intro = figures(graph)
    if co:
        node_file("PaperkgCo", "", co, None)
    figured = [{"of": of, **props} for of, props in sorted(intro.items())]
    if figured:
        node_file("PaperkgFigures", "", figured, "of")
    node_file("PaperkgMeta", "", [{"id": "graph", "status": "complete", "generation": generation,
                                   "figures": FIGURES_FORMAT,
                                   "by": "neo4j-admin database import (paperkg export neo4j-import)"}],
              "id")

    groups: dict[tuple[str, str, str], list[tuple[str, str, dict[str, Any]]]] = defaultdict(list)
    for edge in sorted(graph.edges.values(), key=lambda e: e.id):
        source, target = graph.nodes.get(edge.source), graph.nodes.get(edge.target)
        if source is None or target is None or edge.type not in EDGE_TYPES:
            raise BadInputError(f"edge {edge.id!r} does not join two nodes of the graph",
                                "rebuild the store")
        groups[(edge.type, source.label, target.label)].append((source.id, target.id, edge.props))
    for (etype, slabel, tlabel), rows in sorted(groups.items()):
        columns = _property_columns([p for _, _, p in rows], set())
        header = [f":START_ID({slabel})", f":END_ID({tlabel})", ":TYPE",
                  *(f"{_check_name(n)}:{t}" for n, t in columns)]
        name = f"rels-{etype}-{slabel}-{tlabel}.csv"
        rels_total += _write_csv(out / name, header, (
            [_field(s), _field(t), etype, *(_field(p.get(n)) for n, _ in columns)] for s, t, p in rows))
        files.append(name)
        args.append(f"--relationships={name}")

    (out / "import.args").write_text("\n".join(args) + "\n", encoding="utf-8")
    # The database name goes first: `--nodes`/`--relationships` take several files each, so a
    # name after them would be read as one more file.
    command = " \\\n    ".join(['neo4j-admin database import full "${1:-' + database + '}"',
                                 *map(shlex.quote, args)])
    (out / "import.sh").write_text(
        "#!/bin/sh\n"
        "# Load this directory into a new Neo4j database with Neo4j's own bulk importer.\n"
        f"# Usage: sh import.sh [DATABASE]   (default {database}; stop Neo4j first, or name a database\n"
        "# that does not exist yet; Enterprise: then CREATE DATABASE it). Then start Neo4j and create\n"
        "# paperkg's constraints and indexes:  cypher-shell -d DATABASE -f schema.cypher\n"
        "set -e\n"
        'cd "$(dirname "$0")"\n'
        f"{command}\n", encoding="utf-8")
    (out / "import.sh").chmod(0o755)
    (out / "schema.cypher").write_text(
        "// paperkg's constraints and indexes, to run once after the import "
        "(cypher-shell -f schema.cypher);\n"
        "// the statements `paperkg build --neo4j` runs. The last one waits until every index is online.\n"
        + "".join(f"{s};\n" for s in schema_statements()) + "CALL db.awaitIndexes(600);\n",
        encoding="utf-8")
    files += ["import.args", "import.sh", "schema.cypher"]
    return ImportSummary(nodes_total, rels_total, files)
