"""The closest names of the graph to a name it does not hold: what an unknown `entity` parameter
is answered with (`paperkg query ... --param name=GRPPO` -> did you mean 'GRPO'?).

Names are compared as compact keys (`graph.normalize.compact_key`: case, dashes and spacing
folded), the form every alias and spelling variant of an entity is stored under (`keys`), so a
misspelled alias finds its entity as well as a misspelled display name does. Closeness is difflib's
ratio (stdlib; 2 * matches / total length), the measure the CLI already uses for query and
parameter names.

Why an index: a served store holds up to a million entities (several keys each), and comparing a
name with every key costs seconds. `NameIndex` files each key under its first and under its last
character, by length; a name is compared only with the keys that share its first or its last
character and whose length allows a ratio at or above the cutoff (a ratio is at most
2 * min(a, b) / (a + b)). That keeps one lookup at a few thousand comparisons at 250k names. The
index is built on the first miss, never on the way to a found name.
"""

from __future__ import annotations

import difflib
import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paperkg.graph.state import BuildState

CUTOFF = 0.75       # GRPPO/GRPO 0.89, RLHF/RLAIF 0.67 (not offered): a typo, not another name
MAX_SUGGESTIONS = 5
MAX_KEY = 100       # longer keys are sentences, not names: no suggestion is worth the comparisons


@dataclass(frozen=True)
class Named:
    """An entity a key can lead to: its display name, how many papers mention it (ties go to the
    better-known entity) and its id (last tie-break, for a deterministic order)."""

    name: str
    papers: int
    id: str


def length_window(n: int, cutoff: float = CUTOFF) -> range:
    """The lengths a key may have for its ratio with a key of length `n` to reach `cutoff`."""
    return range(max(1, math.ceil(n * cutoff / (2 - cutoff))), math.floor(n * (2 - cutoff) / cutoff) + 1)


def rank(key: str, candidates: Iterable[tuple[str, Named]], limit: int = MAX_SUGGESTIONS,
         cutoff: float = CUTOFF) -> list[str]:
    """Display names of the entities whose keys are closest to `key`, best first, one per name.

    `candidates` are (key, entity) pairs; both stores rank their candidates here, so the embedded
    store and Neo4j suggest by the same measure."""
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(key)
    best: dict[str, tuple[float, int, str]] = {}
    for other, named in candidates:
        matcher.set_seq1(other)
        if matcher.real_quick_ratio() < cutoff or matcher.quick_ratio() < cutoff:
            continue
        score = matcher.ratio()
        if score < cutoff:
            continue
        order = (-score, -named.papers, named.id)
        if named.name not in best or order < best[named.name]:
            best[named.name] = order
    return [name for name, _ in sorted(best.items(), key=lambda item: item[1])[:limit]]


class NameIndex:
    """Every key of a graph filed by (first character, length) and (last character, length)."""

    def __init__(self, keys: Iterable[tuple[str, Named]]) -> None:
        self.keys: list[str] = []
        self.named: list[Named] = []
        self._by_first: dict[tuple[str, int], list[int]] = defaultdict(list)
        self._by_last: dict[tuple[str, int], list[int]] = defaultdict(list)
        for key, named in keys:
            if not key or len(key) > MAX_KEY:
                continue
            i = len(self.keys)
            self.keys.append(key)
            self.named.append(named)
            self._by_first[key[0], len(key)].append(i)
            self._by_last[key[-1], len(key)].append(i)

    def candidates(self, key: str) -> set[int]:
        """Positions of the keys that share `key`'s first or last character, within its length
        window (a typo in the first character is still found by the last, and the reverse)."""
        found: set[int] = set()
        for n in length_window(len(key)):
            found.update(self._by_first.get((key[0], n), ()))
            found.update(self._by_last.get((key[-1], n), ()))
        return found

    def suggest(self, key: str, limit: int = MAX_SUGGESTIONS) -> list[str]:
        """Display names of the entities closest to `key` (a compact key), best first."""
        if not key or len(key) > MAX_KEY:
            return []
        return rank(key, ((self.keys[i], self.named[i]) for i in self.candidates(key)), limit)


def state_suggester(state: BuildState) -> Callable[[str], list[str]]:
    """`rank` over the entities of a build state's last committed graph, read on a connection of its
    own (it is asked inside a curation's write transaction: `graph.curation.find_one`)."""
    def suggest(key: str) -> list[str]:
        with state.reader() as db:
            rows = [json.loads(props) for (props,) in db.execute(
                "SELECT props FROM nodes WHERE owner LIKE 'e\t%'")]
        return rank(key, ((k, Named(r["name"], int(r.get("paper_count") or 0), r["id"]))
                          for r in rows for k in r.get("keys") or ()))
    return suggest
