"""Reported results: the numbers an abstract states as the outcome of running a method or model
(`RESULTS_GUIDELINE.md`), each with its kind and linked to the abstract's own mentions.

Three steps, each a pure function over plain values so that training and cross-validation run them on
gold mentions as well as on the pipeline's:
- `extract/numbers.py` reads every number with its sign, range and unit (`$-37.3$pp`, `95$--$99\\%`);
- `classify` decides whether a number is a result and of which kind (absolute, delta, ratio): the
  refusals of the guideline first (numbers inside a mention's span are names: `GPT-4`, `AIME 2024`;
  sizes `7B`, `10k images`; settings `k = 8`; years; bare counts), then a small logistic model over the
  number's shape and the words around it (`model/results.json`, trained by
  `python -m paperkg.extract.training.train_results`), or, without one (`rules` mode), unit and cue rules;
- `link` names the result's subject, benchmark, metric and baseline among the mentions: a
  `respectively` list pairs numbers and names in order, a name right after the number (`77.8 rank-1
  accuracy`, `(MATH500)`, `on GSM8K`) beats one before it (`pass@1 of 71.3`), a baseline follows
  `over`/`than`/`compared to`, and the subject is the nearest method before the number unless the
  paper's own method is named in the sentence (then it), and the paper's own method when none is.

Writes `doc._.paperkg_results`: one `ResultMention` per result, in text order.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from spacy.tokens import Doc

from paperkg.extract.doc_utils import FINAL, doc_text, sentence_index
from paperkg.extract.lexicon.results import (
    BASELINE_BEFORE_RE,
    COST_RE,
    DELTA_AFTER_RE,
    DELTA_BEFORE_RE,
    DELTA_UNITS,
    RATIO_UNITS,
    RESPECTIVELY_RE,
    SETTING_BEFORE_RE,
    SIZE_AFTER_RE,
    YEAR_RE,
)
from paperkg.extract.numbers import Number, approximate_before, find_numbers
from paperkg.graph.records import RESULT_KINDS, ResultMention

if not Doc.has_extension("paperkg_results"):
    Doc.set_extension("paperkg_results", default=None)

FILE_NAME = "results.json"
LABELS = ("none", *RESULT_KINDS)
SUBJECT_TYPES = ("Method", "Model")
BENCHMARK_TYPES = ("Dataset", "Benchmark")
_WORD_RE = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]")


@dataclass(frozen=True)
class Ent:
    """A mention as the results step sees it: `text[start:end] == surface`."""

    start: int
    end: int
    type: str
    surface: str


class ResultFinder:
    """Pipeline component `paperkg_results` (last: it reads the mentions, aliases and relations)."""

    def __init__(self, name: str, *, path: str | None = None, threshold: float = 0.5) -> None:
        self.name = name
        self.threshold = threshold
        self.weights: dict[str, list[float]] | None = None
        if path:
            self.load(path)

    def load(self, path: str | Path) -> ResultFinder:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        self.weights = data["weights"]
        self.threshold = float(data.get("threshold", self.threshold))
        return self

    def __call__(self, doc: Doc) -> Doc:
        text = doc_text(doc)
        sents, _ = sentence_index(doc)
        sentences = [(s.start_char, s.end_char) for s in sents]
        mentions = [Ent(s.start_char, s.end_char, s.label_, s.text) for s in doc.spans.get(FINAL, [])]
        main = main_method(doc._.paperkg_relations or [], mentions,
                           {tuple(x) for x in doc._.paperkg_introduced or []}, doc._.paperkg_aliases or [])
        doc._.paperkg_results = find_results(text, sentences, mentions, doc._.paperkg_aliases or [], main,
                                             self.weights, self.threshold)
        return doc


def main_method(relations: list[list], mentions: list[Ent], introduced: set[tuple[int, int]],
                aliases: list) -> str | None:
    """The paper's own method: the head of its relations, else its first introduced method or model
    (named by its long form)."""
    canon = {short: long for long, short in aliases}
    if relations:
        return canon.get(relations[0][0], relations[0][0])
    for m in mentions:
        if m.type in SUBJECT_TYPES and (m.start, m.end) in introduced:
            return canon.get(m.surface, m.surface)
    return None


def find_results(text: str, sentences: list[tuple[int, int]], mentions: list[Ent], aliases: Iterable,
                 main: str | None, weights: dict[str, list[float]] | None = None,
                 threshold: float = 0.5) -> list[ResultMention]:
    """The results of one abstract (see the module doc); `weights` is the learned classifier, None for
    the rules."""
    mentions = sorted(mentions, key=lambda m: (m.start, -m.end))
    canon = {short: long for long, short in aliases}
    found: list[tuple[Number, int, str, float]] = []
    for number in find_numbers(text):
        sent = _sentence_of(sentences, number.start)
        if refused(text, number, mentions):
            continue
        feats = features(text, number, sentences[sent] if sentences else (0, len(text)), mentions)
        kind, prob = classify(feats, number, weights, threshold)
        if kind != "none":
            found.append((number, sent, kind, prob))
    out = []
    for number, sent, kind, prob in found:
        bounds = sentences[sent] if sentences else (0, len(text))
        same = [n for n, s, _, _ in found if s == sent]
        links = link(text, number, kind, bounds, mentions, same, main, canon)
        out.append(ResultMention(value=number.value, kind=kind, start=number.start, end=number.end,
                                 sentence=sent, display=number.display, number=number.number,
                                 upper=number.upper, unit=number.unit, confidence=round(prob, 4), **links))
    return out


def _sentence_of(sentences: list[tuple[int, int]], pos: int) -> int:
    for i, (a, b) in enumerate(sentences):
        if a <= pos < b:
            return i
    return max(0, len(sentences) - 1)


def refused(text: str, number: Number, mentions: list[Ent]) -> bool:
    """The guideline's never-results: a number inside a mention (a name: `AIME 2024`, `Llama 3 8B`), a
    size or count right after it (`7 B`, `10k images`, `16 frames`), a setting or bound before it
    (`k = 8`, `top-5`, `O(n`), a year."""
    if any(m.start < number.end and number.start < m.end for m in mentions):
        return True
    after = text[number.end:number.end + 24]
    if not number.unit and SIZE_AFTER_RE.match(after):
        return True
    before = text[max(0, number.start - 30):number.start]
    if SETTING_BEFORE_RE.search(before) and not number.unit:
        return True
    return bool(YEAR_RE.match(number.value)) and not number.unit


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD_RE.findall(text)]


def features(text: str, number: Number, bounds: tuple[int, int], mentions: list[Ent]) -> list[str]:
    """What the classifier sees of one number: its shape and the words and mentions around it."""
    a, b = bounds
    before, after = text[a:number.start], text[number.end:b]
    digits = number.value.replace(",", "")
    value = abs(number.number) if number.number is not None else None
    feats = [f"unit={number.unit or '-'}", f"signed={number.signed}", f"range={number.upper is not None}",
             f"decimal={'.' in digits}", f"approx={approximate_before(text, number.start)}",
             "mag=" + ("word" if value is None else "<1" if value < 1 else "<=100" if value <= 100 else
                       ">100" if value < 1000 else ">=1000"),
             f"unit+decimal={number.unit or '-'}|{'.' in digits}"]
    prev, nxt = _words(before)[-3:], _words(after)[:3]
    for i, w in enumerate(reversed(prev)):
        feats.append(f"p{i}={w}")
    for i, w in enumerate(nxt):
        feats.append(f"n{i}={w}")
    feats += [f"p-bag={w}" for w in _words(before)[-8:]] + [f"n-bag={w}" for w in _words(after)[:8]]
    feats.append(f"delta-before={bool(DELTA_BEFORE_RE.search(before[-60:]))}")
    feats.append(f"delta-after={bool(DELTA_AFTER_RE.match(after))}")
    feats.append(f"cost={bool(COST_RE.search(before[-60:] + ' ' + after[:40]))}")
    feats.append(f"size-after={bool(SIZE_AFTER_RE.match(after[:24]))}")
    feats.append(f"setting-before={bool(SETTING_BEFORE_RE.search(before[-30:]))}")
    feats.append(f"respectively={bool(RESPECTIVELY_RE.search(text[a:b]))}")
    near = [m for m in mentions if a <= m.start < b]
    for m in near:
        if 0 <= number.start - m.end <= 25:
            feats.append(f"ment-before={m.type}")
        if 0 <= m.start - number.end <= 25:
            feats.append(f"ment-after={m.type}")
    feats.append(f"sent-mentions={min(len(near), 3)}")
    return feats


def classify(feats: list[str], number: Number, weights: dict[str, list[float]] | None,
             threshold: float) -> tuple[str, float]:
    """(kind or `none`, probability): the learned model's pick when it has weights, else the rules."""
    if weights is None:
        return rule_kind(feats, number), 1.0
    scores = [0.0] * len(LABELS)
    for f in feats:
        row = weights.get(f)
        if row:
            scores = [s + w for s, w in zip(scores, row, strict=True)]
    top = max(scores)
    exp = [math.exp(s - top) for s in scores]
    probs = [e / sum(exp) for e in exp]
    p_result = 1.0 - probs[0]
    if p_result < threshold:
        return "none", p_result
    best = max(range(1, len(LABELS)), key=lambda i: probs[i])
    return LABELS[best], p_result


def rule_kind(feats: list[str], number: Number) -> str:
    """The kind by the unit and the cues around the number; `none` for bare integers with no cue."""
    flags = set(feats)
    digits = number.value.replace(",", "")
    delta = "delta-before=True" in flags or "delta-after=True" in flags or number.signed
    if number.unit in RATIO_UNITS:
        return "ratio"
    if number.unit in DELTA_UNITS or number.unit == "points" and delta:
        return "delta"
    if not number.unit and "." not in digits and not number.signed and number.number is not None:
        return "none"   # a bare integer is nearly always a count
    if delta and number.unit == "%":
        return "ratio" if "cost=True" in flags else "delta"
    return "delta" if number.signed else "absolute"


def link(text: str, number: Number, kind: str, bounds: tuple[int, int], mentions: list[Ent],
         same_sentence: list[Number], main: str | None, canon: dict[str, str]) -> dict[str, str | None]:
    """subject / benchmark / metric / baseline of one result, as surfaces of this abstract's mentions."""
    a, b = bounds
    near = [m for m in mentions if a <= m.start and m.end <= b]
    order = [n.start for n in same_sentence]
    respectively = RESPECTIVELY_RE.search(text[number.end:b]) is not None
    benchmark = _pick(text, number, [m for m in near if m.type in BENCHMARK_TYPES], order, respectively,
                      after_only=True)
    metric = _pick(text, number, [m for m in near if m.type == "Metric"], order, respectively)
    baseline = None
    methods = [m for m in near if m.type in SUBJECT_TYPES]
    if kind != "absolute":
        for m in methods:
            if BASELINE_BEFORE_RE.search(text[max(a, m.start - 40):m.start]):
                baseline = canon.get(m.surface, m.surface)
                break
    subject = None
    named = {canon.get(m.surface, m.surface) for m in methods if m.start < number.start}
    if main is not None and main in named:
        subject = main
    else:
        for m in reversed(methods):
            if m.start < number.start and not BASELINE_BEFORE_RE.search(text[max(a, m.start - 40):m.start]):
                subject = canon.get(m.surface, m.surface)
                break
    if subject is None:
        subject = main
    if subject is not None and subject == baseline:
        baseline = None
    return {"subject": subject, "benchmark": benchmark, "metric": metric, "baseline": baseline}


def _pick(text: str, number: Number, cands: list[Ent], order: list[int], respectively: bool,
          after_only: bool = False) -> str | None:
    """The mention of `cands` that goes with `number`: by position in a `respectively` list; else the
    one right after it (a few words, no other number between); else, for metrics, the nearest before it
    in its clause."""
    if not cands:
        return None
    if respectively and len(order) > 1:
        after = [m for m in cands if m.start > order[0]] or cands
        names = list(dict.fromkeys(m.surface for m in after))
        if len(names) == len(order):
            return names[order.index(number.start)]
    nxt = [n for n in order if n > number.start]
    limit = min(nxt) if nxt else len(text)
    for m in cands:
        gap = text[number.end:m.start]
        if m.start >= number.end and m.start < limit and len(gap) <= 30 and ";" not in gap:
            return m.surface
    if after_only:
        return None
    prev = [n for n in order if n < number.start]
    floor = max(prev) if prev else 0
    for m in reversed(cands):
        gap = text[m.end:number.start]
        if m.end <= number.start and m.start > floor and len(gap) <= 60 and ";" not in gap:
            return m.surface
    return None
