"""The review queue: the facts of the graph a correction would most improve, worst first.

A user with ten minutes should spend them where the graph is most likely wrong and most read:

- `low_confidence`: an entity the extractor was unsure of (best mention confidence below
  `LOW_CONFIDENCE`) that several papers mention; weighed by papers x (1 - confidence). Suggested:
  retype it when a strong minority of its mentions (a third or more) carries another type, else drop.
- `acronym_types`: one acronym that is the name or alias of entities of different types (`GRPO` a
  Method here, a Model there); weighed by their papers. Suggested: merge the smaller into the larger.
- `plural_case`: entities whose names differ only in case or a final plural (`Transformer`,
  `transformers`); weighed by their papers. Suggested: merge the smaller into the larger.

Each item carries its suggestion as a `Correction` with the entities' keys, so accepting it
(`graph.curation.apply`, not strict) records exactly what was shown. Curated entities are left out:
a user has looked at them.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paperkg.graph.curation import Correction
from paperkg.graph.normalize import compact_key
from paperkg.graph.resolve import TYPE_ORDER, is_acronym

if TYPE_CHECKING:
    from paperkg.graph.state import BuildState

LOW_CONFIDENCE = 0.5
MIN_PAPERS = 2
_PLURAL = re.compile(r"(?:es|s)$")


@dataclass(frozen=True)
class Entity:
    id: str
    name: str
    type: str
    papers: int
    confidence: float
    cluster: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "type": self.type, "papers": self.papers,
                "confidence": self.confidence}


@dataclass(frozen=True)
class Item:
    """One fact to review: what kind, why, the entities, the suggested correction, its weight."""

    kind: str
    reason: str
    entities: tuple[Entity, ...]
    suggestion: Correction
    weight: float
    subject: str                    # the id of the entity the suggestion corrects
    target: str | None = None       # a merge's: the id of the entity it merges into

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "reason": self.reason, "weight": round(self.weight, 4),
                "entities": [e.to_json() for e in self.entities], "suggestion": self.suggestion.to_json(),
                "subject": self.subject, "target": self.target}


def _entities(db: sqlite3.Connection) -> list[Entity]:
    out = []
    for owner, props in db.execute("SELECT owner, props FROM nodes WHERE owner LIKE 'e\t%' ORDER BY key"):
        data = json.loads(props)
        if data.get("curated"):
            continue
        out.append(Entity(data["id"], data["name"], data["type"], int(data.get("paper_count") or 0),
                          float(data.get("confidence") or 0.0), owner.split("\t", 1)[1]))
    return out


def _merge(kind: str, reason: str, group: list[Entity]) -> Item:
    """Merge the entity with fewer papers into the one with most (ties: the first id)."""
    keep = min(group, key=lambda e: (-e.papers, e.id))
    other = min((e for e in group if e is not keep), key=lambda e: (-e.papers, e.id))
    merge = Correction("merge", other.name, keep.name, other.cluster, keep.cluster)
    return Item(kind, reason, tuple(group), merge, sum(e.papers for e in group), other.id, keep.id)


def queue(db: sqlite3.Connection, limit: int = 20) -> list[Item]:
    """The `limit` items that weigh most, heaviest first (ties by the first entity's id)."""
    entities = _entities(db)
    items: list[Item] = []
    for e in entities:
        if e.confidence >= LOW_CONFIDENCE or e.papers < MIN_PAPERS:
            continue
        votes = dict(db.execute("SELECT type, n FROM votes WHERE cluster = ?", (e.cluster,)))
        total = sum(votes.values()) or 1
        other = max((t for t in TYPE_ORDER if t != e.type and votes.get(t)), default=None,
                    key=lambda t: votes[t])
        if other is not None and votes[other] * 3 >= total:
            suggestion = Correction("retype", e.name, other, e.cluster)
            why = f"{votes[other]} of its {total} mentions say {other}"
        else:
            suggestion = Correction("drop", e.name, None, e.cluster)
            why = "no other type is likely"
        items.append(Item("low_confidence", f"{e.papers} papers, best confidence {e.confidence:.2f}; {why}",
                          (e,), suggestion, e.papers * (1 - e.confidence), e.id))
    by_acronym: dict[str, set[Entity]] = defaultdict(set)
    by_plain: dict[str, list[Entity]] = defaultdict(list)
    for e in entities:
        by_plain[_PLURAL.sub("", e.name.casefold())].append(e)
        if is_acronym(e.name):
            by_acronym[compact_key(e.name)].add(e)
    for _, found in sorted(by_acronym.items()):
        group = sorted(found, key=lambda e: e.id)
        if len({e.type for e in group}) > 1:
            types = ", ".join(f"{e.type} ({e.papers} papers)" for e in group)
            items.append(_merge("acronym_types", f"{group[0].name} is typed {types}", group))
    for _, group in sorted(by_plain.items()):
        if len(group) > 1 and len({e.id for e in group}) > 1:
            names = " / ".join(e.name for e in group)
            items.append(_merge("plural_case", f"{names} differ only in case or plural", group))
    items.sort(key=lambda item: (-item.weight, item.entities[0].id, item.kind))
    return items[:limit]


def review(state: BuildState, limit: int = 20) -> list[Item]:
    """`queue` of the last committed build of `state`."""
    with state.snapshot() as db:
        return queue(db, limit)
