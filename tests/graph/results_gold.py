"""Corpora of real abstracts carrying their gold results (`extract/training/gold/results_train.jsonl`)
as `ResultMention`s, for the store tests of results: what an extractor that found exactly the gold
would hand the graph. The entities are the gold's too; the value is located in the abstract (the
n-th occurrence for the n-th result writing the same value) and parsed here plainly, since the
parsing is the extractor's job, not the stores'."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from paperkg.graph.corpus import Corpus
from paperkg.graph.records import PaperInput, ResultMention
from tests.api.conftest import _extraction

GOLD = Path(__file__).resolve().parents[2] / "extract" / "training" / "gold" / "results_train.jsonl"
_NUMBER = re.compile(r"[-+−]?\d+(?:\.\d+)?")


@cache
def gold_records() -> tuple[dict, ...]:
    """The gold records that report at least one result, in file order."""
    with GOLD.open(encoding="utf-8") as lines:
        return tuple(r for r in map(json.loads, lines) if r.get("results"))


def display(value: str) -> str:
    """The value without its LaTeX markup (`77.8\\%` -> `77.8%`, `$-37.3$pp` -> `-37.3pp`)."""
    return re.sub(r"\s+", " ", value.replace("\\%", "%").replace("$", "").replace("\\sim", "~")
                  .replace("--", "-").replace("\\", "")).strip()


def parsed(value: str) -> tuple[float | None, float | None, str]:
    """(number, upper, unit) of a value as written."""
    shown = display(value)
    numbers = [float(n.replace("−", "-")) for n in _NUMBER.findall(shown)]
    if not numbers:
        return None, None, ""
    unit = "%" if "%" in shown or "percent" in shown else next(
        (u for u in ("pp", "points", "x") if u in shown), "")
    upper = abs(numbers[1]) if len(numbers) > 1 and re.search(r"\d\s*(?:-|to)\s*\d", shown) else None
    return numbers[0], upper, unit


def results_of(record: dict, sentences: list[tuple[int, int]]) -> list[ResultMention]:
    text = record["abstract"]
    out: list[ResultMention] = []
    used: dict[str, int] = {}
    for gold in record["results"]:
        value = gold["value"]
        start = -1
        for _ in range(used.get(value, 0) + 1):
            start = text.find(value, start + 1)
            if start < 0:
                break
        if start < 0:
            continue
        used[value] = used.get(value, 0) + 1
        sentence = next(i for i, (s, e) in enumerate(sentences) if s <= start < e)
        number, upper, unit = parsed(value)
        out.append(ResultMention(value, gold["kind"], start, start + len(value), sentence, display(value),
                                 number, upper, unit, gold.get("subject"), gold.get("benchmark"),
                                 gold.get("metric"), gold.get("baseline"), 0.9))
    return out


def gold_corpus(records: tuple[dict, ...] | list[dict] | None = None) -> Corpus:
    """A corpus of gold records (all that report results when None), each with its extraction."""
    corpus = Corpus()
    for record in gold_records() if records is None else records:
        text = record["abstract"]
        entry, _ = corpus.add(PaperInput(record["id"], text, "test", 1, title=record.get("title"),
                                         year=record.get("year")))
        entities = [(e["text"], e["type"], bool(e.get("introduced"))) for e in record["entities"]]
        extraction = _extraction(record["id"], text, entities, [tuple(r) for r in record["relations"]],
                                 [tuple(a) for a in record.get("aliases") or ()])
        extraction.results = results_of(record, extraction.sentences)
        entry.extraction = extraction
    return corpus


def variant(record: dict, pid: str, year: int | None, replace: dict[str, str]) -> dict:
    """`record` as another paper: id `pid`, `year`, and every string of `replace` (values, names)
    replaced in its abstract, entities, relations and results."""
    def swap(text: str | None) -> str | None:
        if text is None:
            return None
        for old, new in replace.items():
            text = text.replace(old, new)
        return text

    return {**record, "id": pid, "year": year, "abstract": swap(record["abstract"]),
            "entities": [{**e, "text": swap(e["text"])} for e in record["entities"]],
            "relations": [[swap(x) for x in r] for r in record["relations"]],
            "results": [{k: swap(v) if isinstance(v, str) else v for k, v in r.items()}
                        for r in record["results"]]}


def leaderboard_corpus() -> Corpus:
    """The gold papers, and the TrackletGait paper (Gait3D and GREW, rank-1 accuracy) again as papers
    of other years, methods and values, so that one benchmark and metric has a leaderboard over
    several papers and years: ties of value across papers and within a year, a paper without a
    year, a lower-better metric (`rank-1 error`) beside it, a method named with markup."""
    base = next(r for r in gold_records() if r["id"] == "2508.02143")
    variants = [
        variant(base, "v1", 2023, {"TrackletGait": "GaitSet", "77.8": "61.2", "80.4": "70.9"}),
        variant(base, "v2", 2024, {"TrackletGait": "GaitBase", "77.8": "64.6", "80.4": "80.4"}),
        variant(base, "v3", 2024, {"TrackletGait": "DeepGaitV2", "77.8": "74.4", "80.4": "77.4"}),
        variant(base, "v4", 2026, {"TrackletGait": "GaitMoE", "77.8": "74.4", "80.4": "79.9"}),
        variant(base, "v5", None, {"TrackletGait": "GaitPart", "77.8": "90.1", "80.4": "50.0"}),
        variant(base, "v6", 2025, {"77.8": "22.2", "80.4": "19.6", "rank-1 accuracy": "rank-1 error"}),
        variant(base, "v7", 2026, {"TrackletGait": "GaitSet", "77.8": "81.0", "80.4": "12.5",
                                   "rank-1 accuracy": "rank-1 error"}),
        # a name written as markup: pages must show it as text
        variant(base, "v8", 2022, {"TrackletGait": "<i>GaitGL</i>", "77.8": "55.5", "80.4": "44.4"}),
    ]
    return gold_corpus([*gold_records(), *variants])

# The catalog's queries over results: their examples answer on `leaderboard_corpus` (the example
# corpora hold results only once an extractor finds them).
RESULT_QUERIES = frozenset({"leaderboard", "results_of", "sota_over_time"})
