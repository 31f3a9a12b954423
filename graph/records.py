"""The neutral records between the extractor, resolution and the stores (neo4j-graphrag's `types.py`
idea): readers yield `PaperInput`, the extractor produces `Extraction`s, the graph consumes them.

They live with the graph model, not the extractor, so `paperkg.graph` never imports `paperkg.extract`
(data flows one way) and they carry no spaCy objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from paperkg.graph.model import ENTITY_LABELS as ENTITY_TYPES
from paperkg.graph.model import RELATION_TYPES

__all__ = ["ENTITY_TYPES", "RELATION_TYPES", "RESULT_KINDS", "Extraction", "Mention", "PaperInput",
           "RelationMention", "ResultMention", "result_json"]

# `RESULTS_GUIDELINE.md`: a score, a change against something, or a ratio
RESULT_KINDS: tuple[str, ...] = ("absolute", "delta", "ratio")


@dataclass(frozen=True)
class PaperInput:
    """One abstract as a reader yields it, with where it came from (for error messages)."""

    id: str
    abstract: str
    source: str
    line: int
    collection: str | None = None
    title: str | None = None
    year: int | None = None
    authors: tuple[str, ...] = ()
    url: str | None = None
    doi: str | None = None
    categories: tuple[str, ...] = ()


@dataclass(frozen=True)
class Mention:
    """One occurrence of an entity: `text == abstract[start:end]`."""

    text: str
    type: str
    start: int
    end: int
    sentence: int
    introduced: bool = False
    # the model's probability that this span is an entity of this type (1.0 for rules that are
    # certain by construction, e.g. a defined acronym); the graph keeps it so users can trade
    # recall for precision
    confidence: float = 1.0


@dataclass(frozen=True)
class RelationMention:
    """A typed link between two surface strings of one abstract, with the sentence that says it."""

    head: str
    type: str
    tail: str
    sentence: int
    confidence: float = 1.0


@dataclass(frozen=True)
class ResultMention:
    """One number an abstract reports as the outcome of running a method or model.

    `value` is copied from the abstract character for character (`65.8\\%`, `$-37.3$pp`), as the
    results gold writes it, so `abstract[start:end] == value`; `display` is what pages show (`65.8%`,
    `-37.3 pp`). `number` is the parsed, signed magnitude (the low end of a range, whose high end is
    `upper`), None when the value has no digits (`two orders of magnitude`). `unit` is what follows the
    number (`%`, `pp`, `points`, `x`, a metric word, or ""). The four links are surfaces of this
    abstract's mentions (None when the abstract does not name them).
    """

    value: str
    kind: str
    start: int
    end: int
    sentence: int
    display: str
    number: float | None = None
    upper: float | None = None
    unit: str = ""
    subject: str | None = None
    benchmark: str | None = None
    metric: str | None = None
    baseline: str | None = None
    confidence: float = 1.0


@dataclass
class Extraction:
    """Everything the extractor found in one abstract."""

    paper_id: str
    text: str
    sentences: list[tuple[int, int]] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    aliases: list[tuple[str, str]] = field(default_factory=list)
    relations: list[RelationMention] = field(default_factory=list)
    results: list[ResultMention] = field(default_factory=list)
    # `extract.version.extractor_fingerprint` of what produced it ("" when unknown: made before
    # fingerprints existed, or by hand in tests); a build re-extracts when it differs from its own.
    extractor: str = ""

    def sentence_text(self, index: int) -> str:
        start, end = self.sentences[index]
        return self.text[start:end]

    def to_json(self) -> dict:
        """The `paperkg extract` line: one entry per distinct (surface, type), first occurrence."""
        seen: dict[tuple[str, str], dict] = {}
        for m in self.mentions:
            key = (m.text, m.type)
            if key not in seen:
                seen[key] = {"text": m.text, "type": m.type, "introduced": m.introduced,
                             "start": m.start, "end": m.end}
            elif m.introduced:
                seen[key]["introduced"] = True
        relations = list(dict.fromkeys((r.head, r.type, r.tail) for r in self.relations))
        return {
            "id": self.paper_id,
            "entities": list(seen.values()),
            "aliases": [list(pair) for pair in dict.fromkeys(self.aliases)],
            "relations": [list(r) for r in relations],
            "results": [result_json(r) for r in self.results],
        }


def result_json(result: ResultMention) -> dict:
    """A result as the results gold writes it (`subject`, `benchmark`, `metric`, `value` as written,
    `kind`, `baseline`), with what the extractor knows besides (parsed number, unit, display, where)."""
    return {"subject": result.subject, "benchmark": result.benchmark, "metric": result.metric,
            "value": result.value, "kind": result.kind, "baseline": result.baseline,
            "display": result.display, "number": result.number, "upper": result.upper, "unit": result.unit,
            "start": result.start, "end": result.end, "sentence": result.sentence,
            "confidence": result.confidence}
