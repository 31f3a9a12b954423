"""User corrections of the derived graph that survive every later build.

The extractor errs (`FedAvg` typed Dataset, two spellings of one method, a junk name), and the graph
is a function of the stored extractions: an edit of the graph rows would be undone by the next build
that touches them. So a correction is a rule the derivation applies (`graph/derive.py`), kept in the
build state beside the records (table `corrections`, never emptied by `paperkg repair`):

- `merge NAME INTO`: every mention of NAME's entity belongs to INTO's entity;
- `rename NAME NEW`: the entity's display name is NEW (its id, a stable address, is kept);
- `retype NAME TYPE`: the entity's type is TYPE whatever the extractor's votes (its id follows);
- `drop NAME`: NAME's entity and every mention of it are gone, in later papers too;
- `split NAME`: each mention of the entity joins the entity of the type its own paper gives it
  (`MAE` the Metric and `MAE` the Method), an acronym split by context.

A correction names its entity by the cluster key it had when it was made (`key`): the compact key
the derivation files the entity's mentions under, which a later build maps to the entity those
mentions resolve to then (an acronym whose long form a new paper defines follows it). An entity
touched by one is marked `curated: true`; the names it had stay its aliases.

Applying one re-derives the papers it touches (those of the entities it names), inside one
transaction, and hands a Neo4j target that change alone. A correction whose entity no paper
mentions any more is kept and reported as not applying (`status`), never an error.

Corrections travel as JSON Lines (`FORMAT_VERSION`; `to_json`, `from_json`): one object a line,
`{"version": 1, "op": "merge", "name": "GRPO", "into": "PPO"}`, with optional `key` / `into_key`.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperkg.graph.errors import BadInputError, NotFoundError, UnknownEntityError
from paperkg.graph.model import ENTITY_LABELS
from paperkg.graph.normalize import compact_key

if TYPE_CHECKING:
    from paperkg.graph.state import BuildState
    from paperkg.graph.store import GraphWriter

FORMAT_VERSION = 1
OPS = ("merge", "rename", "retype", "drop", "split")
# What a correction decides about its entity; one of each per entity (a new one replaces the old).
SLOTS = {"merge": "fate", "drop": "fate", "split": "fate", "rename": "name", "retype": "type"}
# The field of a JSON line that holds each op's argument.
VALUE_FIELD = {"merge": "into", "rename": "to", "retype": "type"}
# A split entity's cluster key: the original key, this separator, the type (no name holds it).
SPLIT_SEP = "\x1f"
MAX_NAME = 300
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

SCHEMA = """
CREATE TABLE corrections (
    key TEXT NOT NULL, slot TEXT NOT NULL, op TEXT NOT NULL, name TEXT NOT NULL,
    value TEXT, value_key TEXT, seq INTEGER NOT NULL, PRIMARY KEY (key, slot)) WITHOUT ROWID;
"""


@dataclass(frozen=True)
class Correction:
    """One correction. `name`/`value` as the user wrote them; `key`/`value_key` the cluster keys of
    the entities they named (filled in by `resolve_names`)."""

    op: str
    name: str
    value: str | None = None
    key: str = ""
    value_key: str = ""

    @property
    def slot(self) -> str:
        return SLOTS[self.op]

    def to_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {"version": FORMAT_VERSION, "op": self.op, "name": self.name}
        if self.op in VALUE_FIELD:
            line[VALUE_FIELD[self.op]] = self.value
        if self.key:
            line["key"] = self.key
        if self.value_key:
            line["into_key"] = self.value_key
        return line

    def describe(self) -> str:
        arg = {"merge": f" into {self.value!r}", "rename": f" to {self.value!r}",
               "retype": f" as {self.value}"}.get(self.op, "")
        return f"{self.op} {self.name!r}{arg}"


def validate(op: str, name: str, value: str | None = None) -> Correction:
    """A correction from user text, checked: the op, a name, the argument its op needs (a type one
    of the entity labels, a new name without control characters)."""
    if op not in OPS:
        raise BadInputError(f"unknown correction {op!r}", f"use one of {', '.join(OPS)}")
    if not isinstance(name, str) or not compact_key(name):
        raise BadInputError(f"a {op} correction needs the name of an entity")
    if op in VALUE_FIELD:
        if not isinstance(value, str) or not value.strip():
            raise BadInputError(f"a {op} correction needs {VALUE_FIELD[op]!r}")
        value = value.strip()
        if op == "retype":
            label = next((t for t in ENTITY_LABELS if t.lower() == value.lower()), None)
            if label is None:
                raise BadInputError(f"{value!r} is not an entity type",
                                    f"use one of {', '.join(ENTITY_LABELS)}")
            value = label
        elif op == "rename" and (_CONTROL.search(value) or len(value) > MAX_NAME or not compact_key(value)):
            raise BadInputError(f"{value!r} cannot be a name",
                                f"give a name of at most {MAX_NAME} characters, without control characters")
    else:
        value = None
    return Correction(op, name.strip(), value)


def from_json(line: dict[str, Any]) -> Correction:
    """A correction from one JSON line (format `FORMAT_VERSION`)."""
    if not isinstance(line, dict):
        raise BadInputError("a correction line must be a JSON object")
    if line.get("version") != FORMAT_VERSION:
        raise BadInputError(f"correction format version {line.get('version')!r} is not {FORMAT_VERSION}",
                            "export the corrections again with this paperkg")
    op = line.get("op")
    correction = validate(str(op), line.get("name"), line.get(VALUE_FIELD.get(str(op), "")))
    key, value_key = line.get("key", ""), line.get("into_key", "")
    if not isinstance(key, str) or not isinstance(value_key, str):
        raise BadInputError("`key` and `into_key` must be strings")
    return Correction(correction.op, correction.name, correction.value, key, value_key)


def read_jsonl(path: Path) -> list[Correction]:
    """The corrections of a JSON Lines file; a bad line is an error naming it."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError as err:
        raise NotFoundError(f"no corrections file {path}") from err
    except (OSError, UnicodeDecodeError) as err:
        raise BadInputError(f"cannot read the corrections file {path}: {err}") from err
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(from_json(json.loads(line)))
        except (json.JSONDecodeError, BadInputError) as err:
            raise BadInputError(f"{path}:{number}: {err}", "fix the line; nothing was imported") from err
    return out


def write_jsonl(corrections: Iterable[Correction], path: Path) -> int:
    lines = [json.dumps(c.to_json(), ensure_ascii=False, sort_keys=True) for c in corrections]
    Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def load(db: sqlite3.Connection) -> list[Correction]:
    """The stored corrections, in the order they were made."""
    rows = db.execute("SELECT op, name, value, key, value_key FROM corrections ORDER BY seq")
    return [Correction(op, name, value, key, value_key or "") for op, name, value, key, value_key in rows]


# ---- how the derivation applies them ---------------------------------------------------------


@dataclass
class Rules:
    """The stored corrections bound to the clusters they name now (`bind`), as the derivation asks
    for them: where a mention of a cluster goes (`correct`), a cluster's type, name, and mark."""

    corrections: list[Correction]
    fates: dict[str, tuple[str, str]] = field(default_factory=dict)   # cluster -> (op, target cluster)
    types: dict[str, str] = field(default_factory=dict)               # final cluster -> type
    names: dict[str, str] = field(default_factory=dict)               # final cluster -> display name
    curated: set[str] = field(default_factory=set)                    # final clusters marked curated

    @classmethod
    def load(cls, db: sqlite3.Connection) -> Rules:
        return cls(load(db))

    def bind(self, cluster_of: Callable[[str], str]) -> dict[tuple[str, str], tuple]:
        """Map each correction to the cluster its key names now (`cluster_of`: the derivation's
        rules 2-4 for a bare mention of the key); returns what each became, for comparing the
        binding before and after a build's new definitions."""
        self.fates, self.types, self.names, self.curated = {}, {}, {}, set()
        bound: dict[tuple[str, str], tuple] = {}
        for c in self.corrections:
            if c.slot == "fate":
                subject = cluster_of(c.key)
                target = cluster_of(c.value_key) if c.op == "merge" else ""
                if subject != target:
                    self.fates[subject] = (c.op, target)
                bound[(c.key, c.slot)] = (subject, target)
        for c in sorted(self.corrections, key=lambda c: c.op == "rename"):    # a rename has the last word
            if c.op == "merge":
                final = self.final(cluster_of(c.value_key))
            elif c.slot != "fate":
                final = self.final(cluster_of(c.key))
            else:
                continue
            if final is None:
                continue
            self.curated.add(final)
            if c.op == "retype":
                self.types[final] = c.value or ""
            elif c.op == "rename" or c.value:
                self.names[final] = c.value or ""       # a merge keeps the name of the entity merged into
            bound.setdefault((c.key, c.slot), ())
            bound[(c.key, c.slot)] += (final,)
        return bound

    def final(self, cluster: str) -> str | None:
        """The cluster `cluster`'s mentions end in through merges (None: dropped or split)."""
        seen = set()
        while cluster in self.fates and cluster not in seen:
            seen.add(cluster)
            op, target = self.fates[cluster]
            if op != "merge":
                return None
            cluster = target
        return cluster

    def correct(self, cluster: str, etype: str) -> str | None:
        """The cluster a mention typed `etype` of `cluster` belongs to (None: dropped)."""
        seen = set()
        while cluster in self.fates and cluster not in seen:
            seen.add(cluster)
            op, target = self.fates[cluster]
            if op == "drop":
                return None
            cluster = target if op == "merge" else cluster + SPLIT_SEP + etype
        return cluster

    def is_curated(self, cluster: str) -> bool:
        return cluster in self.curated or SPLIT_SEP in cluster

    def __bool__(self) -> bool:
        return bool(self.corrections)


def changed_bindings(before: dict[tuple[str, str], tuple], after: dict[tuple[str, str], tuple]) -> set[str]:
    """Clusters named by a binding that differs between `before` and `after`."""
    out: set[str] = set()
    for slot in before.keys() | after.keys():
        if before.get(slot) != after.get(slot):
            out.update(c for c in before.get(slot, ()) + after.get(slot, ()) if c)
    return out


def base_key(cluster: str) -> str:
    """The cluster key a split part was split from (the key itself otherwise)."""
    return cluster.partition(SPLIT_SEP)[0]


def papers_of(db: sqlite3.Connection, clusters: Iterable[str]) -> set[str]:
    """Papers that mention `clusters` now, or whose mentions would resolve to them without
    corrections: those are the papers a correction of them re-derives."""
    out: set[str] = set()
    for cluster in set(clusters):
        out.update(p for (p,) in db.execute("SELECT paper FROM cluster_paper WHERE cluster = ?", (cluster,)))
        key = base_key(cluster)
        keys = {key} | {k for (k,) in db.execute("SELECT key FROM long_key WHERE rep = ?", (key,))}
        keys |= {s for (s,) in db.execute("SELECT DISTINCT d.short FROM local_def d "
                                          "JOIN long_key l ON l.key = d.long WHERE l.rep = ?", (key,))}
        for k in keys:
            out.update(p for (p,) in db.execute("SELECT paper FROM terms WHERE kind = 'm' AND term = ?",
                                                (k,)))
    return out


# ---- naming entities -------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """An entity of the graph a name names: its id, type, display name, cluster key, papers."""

    id: str
    label: str
    name: str
    cluster: str
    papers: int


def find(db: sqlite3.Connection, name: str) -> list[Found]:
    """The entities `name` names as the catalog queries take it (any name or alias, case, dash,
    space and plural folded: `compact_key(name)` among the entity's `keys`), or the entity whose id
    it is."""
    rows = db.execute(
        "SELECT n.key, n.label, n.owner, n.props FROM nodes n WHERE n.key = ? AND n.owner LIKE 'e\t%'",
        (name.strip(),)).fetchall()
    key = compact_key(name)
    if not rows and key:
        rows = db.execute(
            "SELECT n.key, n.label, n.owner, n.props FROM nodes n WHERE n.owner LIKE 'e\t%' AND EXISTS "
            "(SELECT 1 FROM json_each(n.props, '$.keys') k WHERE k.value = ?) ORDER BY n.key",
            (key,)).fetchall()
    out = []
    for node_key, label, owner, props in rows:
        data = json.loads(props)
        out.append(Found(node_key, label, data["name"], owner.split("\t", 1)[1], data.get("paper_count", 0)))
    return out


def find_one(db: sqlite3.Connection, name: str, suggest: Callable[[str], list[str]] | None = None) -> Found:
    """The one entity `name` names; an unknown name is UnknownEntityError with the closest names
    (`suggest`), a name of several entities asks for one of their ids."""
    found = find(db, name)
    if len(found) == 1:
        return found[0]
    if not found:
        suggestions = suggest(compact_key(name)) if suggest else []
        guess = " or ".join(repr(s) for s in suggestions)
        guess = f" (did you mean {guess}?)" if guess else ""
        raise UnknownEntityError(f"no entity named {name.strip()!r}{guess}",
                                 "find names with `paperkg query entity_search --param q=...`", suggestions)
    shown = ", ".join(f"{f.id} ({f.name}, {f.papers} papers)" for f in found[:8])
    raise BadInputError(f"{name.strip()!r} names {len(found)} entities: {shown}",
                        "name one of them by its id")


def resolve_names(db: sqlite3.Connection, correction: Correction,
                  suggest: Callable[[str], list[str]] | None = None, *, strict: bool = True) -> Correction:
    """`correction` with the cluster keys of the entities it names. Strict (a user's new
    correction): every name must name one entity now, a merge two different ones, a rename no
    other entity's name. Not strict (an import): a line's own keys are kept; a name the graph does
    not hold gets its compact key, and the correction waits for an entity of that name."""
    def key_of(name: str, given: str) -> str:
        if given and not strict:
            return given
        try:
            return find_one(db, name, suggest).cluster
        except (UnknownEntityError, BadInputError):
            if strict:
                raise
            return compact_key(name)

    key = key_of(correction.name, correction.key)
    value, value_key = correction.value, ""
    if correction.op == "merge":
        value_key = key_of(value or "", correction.value_key)
        if strict:                      # the display name of the entity merged into, which it keeps
            value = find_one(db, value or "").name
    if strict and correction.op == "merge" and key == value_key:
        raise BadInputError(f"{correction.name!r} and {correction.value!r} are one entity already")
    if strict and correction.op == "rename":
        others = [f for f in find(db, correction.value or "") if f.cluster != key]
        if others:
            raise BadInputError(f"{correction.value!r} is the name of another entity ({others[0].id})",
                                "merge them instead: paperkg curate merge NAME INTO")
    if strict and correction.op == "split":
        types = db.execute("SELECT count(*) FROM votes WHERE cluster = ?", (key,)).fetchone()[0]
        if types < 2:
            raise BadInputError(f"every mention of {correction.name!r} has one type: nothing to split",
                                "retype it instead: paperkg curate retype NAME TYPE")
    return Correction(correction.op, correction.name, value, key, value_key)


# ---- applying, listing ------------------------------------------------------------------------


@dataclass
class Status:
    """A stored correction and whether it applies to the graph now (`reason` when not)."""

    correction: Correction
    applies: bool
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**self.correction.to_json(), "applies": self.applies, "reason": self.reason}


def statuses(db: sqlite3.Connection) -> list[Status]:
    """Every stored correction, with whether the entities it names still exist."""
    from paperkg.graph.derive import Derivation

    derivation = Derivation(db)
    out = []
    for c in derivation.rules.corrections:
        missing = [name for name, key in ((c.name, c.key), (c.value, c.value_key))
                   if key and not papers_of(db, [derivation.cluster_of_key(key)])]
        reason = " nor ".join(repr(m) for m in missing)
        out.append(Status(c, not missing, f"no paper mentions {reason} any more" if missing else ""))
    return out


def _papers_touched(db: sqlite3.Connection, corrections: Iterable[Correction]) -> set[str]:
    """The papers the entities `corrections` name are (or would be without them) mentioned in:
    each key's cluster now, where merges take it, and its split parts."""
    from paperkg.graph.derive import Derivation

    derivation = Derivation(db)
    clusters: set[str] = set()
    for c in corrections:
        for key in (c.key, c.value_key):
            if key:
                cluster = derivation.cluster_of_key(key)
                clusters |= {key, cluster, derivation.rules.final(cluster) or cluster}
    clusters |= {c for (c,) in db.execute("SELECT DISTINCT cluster FROM cluster_paper WHERE cluster LIKE ?",
                                          ("%" + SPLIT_SEP + "%",)) if base_key(c) in clusters}
    return papers_of(db, clusters)


def _stored(db: sqlite3.Connection, corrections: Iterable[Correction]) -> list[Correction]:
    """The stored corrections of the same entity and slot as `corrections` (which they replace)."""
    wanted = {(c.key, c.slot) for c in corrections}
    return [c for c in load(db) if (c.key, c.slot) in wanted]


@dataclass
class Applied:
    """What `apply` did: the corrections recorded, the papers derived again, whether the graph
    changed, and the stored corrections that do not apply."""

    corrections: list[Correction]
    papers: int
    changed: bool
    not_applying: list[Status]


def apply(state: BuildState, corrections: Sequence[Correction], *, target: GraphWriter | None = None,
          suggest: Callable[[str], list[str]] | None = None, strict: bool = True,
          on_wait: Callable[[], None] | None = None) -> Applied:
    """Record `corrections` in the build state (each replacing the one of its entity and slot) and
    re-derive the papers they touch, before and after, in one transaction (and bring `target`, a
    Neo4j store, to the new graph by the change alone). `strict`: each names entities of the graph
    now (`resolve_names`); an import is not strict."""
    with state.transaction(on_wait) as tx:
        db = tx.db
        resolved = [resolve_names(db, c, suggest, strict=strict) for c in corrections]
        papers = _papers_touched(db, resolved + _stored(db, resolved))
        for c in resolved:
            seq = db.execute("SELECT coalesce(max(seq), 0) + 1 FROM corrections").fetchone()[0]
            db.execute("INSERT OR REPLACE INTO corrections (key, slot, op, name, value, value_key, seq) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (c.key, c.slot, c.op, c.name, c.value, c.value_key or None, seq))
        papers |= _papers_touched(db, resolved)
        tx.dirty |= papers
        tx.write(target)
        not_applying = [s for s in statuses(db) if not s.applies]
        return Applied(resolved, len(papers), tx.changed, not_applying)


def remove(state: BuildState, name: str, *, target: GraphWriter | None = None,
           on_wait: Callable[[], None] | None = None) -> list[Correction]:
    """Take back the corrections of `name` (the name they were made with, or an entity it names
    now) and derive again what they touched; returns them."""
    with state.transaction(on_wait) as tx:
        db = tx.db
        keys = {compact_key(name)} | {f.cluster for f in find(db, name)}
        rows = [c for c in load(db) if c.key in keys or c.name == name.strip()]
        if not rows:
            raise NotFoundError(f"no correction of {name.strip()!r}", "list them with `paperkg curate list`")
        papers = _papers_touched(db, rows)
        db.executemany("DELETE FROM corrections WHERE key = ? AND slot = ?", [(c.key, c.slot) for c in rows])
        papers |= _papers_touched(db, rows)
        tx.dirty |= papers
        tx.write(target)
        return rows


def listing(state: BuildState) -> list[Status]:
    """The stored corrections in the order they were made, each with whether it applies."""
    with state.snapshot() as db:
        return statuses(db)


def export(state: BuildState, path: Path) -> int:
    """Write the stored corrections to `path` as JSON Lines (`write_jsonl`); returns how many."""
    with state.snapshot() as db:
        return write_jsonl(load(db), path)


def import_file(state: BuildState, path: Path, *, target: GraphWriter | None = None,
                on_wait: Callable[[], None] | None = None) -> Applied:
    """Record the corrections of a JSON Lines file (`read_jsonl`), not strictly: a line naming an
    entity this graph lacks is kept and reported in `Applied.not_applying`."""
    return apply(state, read_jsonl(path), target=target, strict=False, on_wait=on_wait)
