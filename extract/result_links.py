"""Which of an abstract's mentions a reported result belongs to: its subject, benchmark and metric
(the learned linker of `extract/results.py`), beside the rules it starts from.

Every distinct name of the right types in the abstract is a candidate for each role (a short form is
named by its long form, as the results gold names it). A small logistic model scores each
(result, candidate) pair from where the candidate's nearest occurrence sits (same sentence, before or
after, how far, how many other results between, the words between), how the abstract uses it (the
paper's own method, how often it occurs, a `respectively` list whose order matches) and whether the
rules (`extract/results.py::link`) pick it; the best candidate over the threshold wins, else the role
stays empty (most results name no benchmark). Pure functions over plain values, no spaCy.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from paperkg.extract.lexicon.results import BASELINE_BEFORE_RE, RESPECTIVELY_RE, RESULT_VERB_AFTER_RE

FILE_NAME = "results.json"


@dataclass
class Linker:
    """The learned linker as `model/results.json` holds it: feature -> [weight for no, for yes], the
    threshold of each role, and how it was trained."""

    weights: dict[str, list[float]]
    thresholds: dict[str, float]
    meta: dict = field(default_factory=dict)

    @classmethod
    def from_disk(cls, path: str | Path) -> Linker:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(data["links"], data["link_threshold"], data.get("meta", {}))

    def to_disk(self, path: str | Path) -> None:
        """Compact JSON, weights rounded to 5 digits (the same bytes for the same weights)."""
        out = {"meta": self.meta, "link_threshold": self.thresholds,
               "links": {f: [round(w, 5) for w in row] for f, row in sorted(self.weights.items())}}
        Path(path).write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")


ROLES = {"subject": ("Method", "Model"), "benchmark": ("Dataset", "Benchmark"), "metric": ("Metric",)}
_WORD_RE = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]")


def _bin(value: int, cuts: Sequence[int]) -> str:
    for cut in cuts:
        if value <= cut:
            return f"<={cut}"
    return f">{cuts[-1]}"


def candidates(mentions: Sequence, role: str, canon: dict[str, str]) -> dict[str, list]:
    """Candidate name (a short form's long form) -> its occurrences (mentions of the role's types)."""
    out: dict[str, list] = {}
    for m in mentions:
        if m.type in ROLES[role]:
            name = canon.get(m.surface, m.surface)
            out.setdefault(name, []).append(m)
    return out


def _sentence_of(sentences: Sequence[tuple[int, int]], pos: int) -> int:
    for i, (a, b) in enumerate(sentences):
        if a <= pos < b:
            return i
    return max(0, len(sentences) - 1)


def pair_features(text: str, sentences: Sequence[tuple[int, int]], number, kind: str, role: str, name: str,
                  occurrences: list, n_candidates: int, others: Sequence[int], main: str | None,
                  rule_pick: str | None, nearer: int = 0) -> list[str]:
    """Features of one (result, candidate) pair; `others` are the starts of the abstract's other
    results, `nearer` how many other candidates of the role sit nearer the number on the same side in
    its sentence."""
    sent = _sentence_of(sentences, number.start)
    sent_of = [_sentence_of(sentences, o.start) for o in occurrences]
    same = [o for o, s in zip(occurrences, sent_of, strict=True) if s == sent]
    if same:
        occ = min(same, key=lambda o: abs(o.start - number.start))
        sdist = "0"
    else:
        occ = min(occurrences, key=lambda o: abs(o.start - number.start))
        sdist = str(max(-3, min(3, _sentence_of(sentences, occ.start) - sent)))
    after = occ.start >= number.end
    lo, hi = (number.end, occ.start) if after else (occ.end, number.start)
    between = sum(1 for s in others if lo <= s < hi)
    gap_words = [w.lower() for w in _WORD_RE.findall(text[lo:hi])] if hi > lo else []
    a = sentences[sent][0] if sentences else 0
    before_occ = [w.lower() for w in _WORD_RE.findall(text[max(a, occ.start - 30):occ.start])][-2:]
    feats = [f"sdist={sdist}", f"dir={'after' if after else 'before'}|{sdist}",
             f"chars={_bin(hi - lo, (3, 12, 30, 80, 200))}|{sdist}", f"between={min(between, 2)}|{sdist}",
             f"n_cands={min(n_candidates, 3)}", f"occurs={min(len(occurrences), 3)}", f"kind={kind}",
             f"rule={name == rule_pick}", f"rule={name == rule_pick}|n_cands={min(n_candidates, 3)}",
             f"main={name == main}", f"same_sentence_occurs={min(len(same), 2)}",
             f"nearer={min(nearer, 2)}|{'after' if after else 'before'}|{sdist}"]
    if sdist == "0":
        feats.append("gap=" + (" ".join(gap_words) if len(gap_words) <= 3 else "long") + f"|{feats[1]}")
        feats += [f"gapw={w}" for w in gap_words[:6]]
        feats += [f"pre{i}={w}" for i, w in enumerate(reversed(before_occ))]
        if not after:
            verb = RESULT_VERB_AFTER_RE.match(text[occ.end:occ.end + 60])
            feats.append(f"verb_after={bool(verb)}|between={min(between, 1)}")
        cue = BASELINE_BEFORE_RE.search(text[max(a, occ.start - 40):occ.start])
        feats.append(f"baseline_cue={bool(cue)}")
        feats.append(f"respectively={bool(RESPECTIVELY_RE.search(text[a:sentences[sent][1]]))}")
    return [f"{role}:{f}" for f in feats]


def nearness(sentences: Sequence[tuple[int, int]], number, cands: dict[str, list]) -> dict[str, int]:
    """Candidate -> how many other candidates' occurrences sit between it and the number on the same
    side in the number's sentence (0: the nearest before, or the nearest after)."""
    sent = sentences[_sentence_of(sentences, number.start)] if sentences else (0, number.end + 10**9)
    before, after = [], []
    for name, occs in cands.items():
        for o in occs:
            if sent[0] <= o.start < sent[1]:
                if o.end <= number.start:
                    before.append((number.start - o.end, name))
                elif o.start >= number.end:
                    after.append((o.start - number.end, name))
    ranks: dict[str, int] = {}
    for side in (before, after):
        for rank, (_d, name) in enumerate(sorted(side)):
            ranks[name] = min(ranks.get(name, rank), rank)
    return ranks


def score(feats: list[str], weights: dict[str, list[float]]) -> float:
    """P(the candidate fills the role) under the 2-label model."""
    s0 = s1 = 0.0
    for f in feats:
        row = weights.get(f)
        if row:
            s0 += row[0]
            s1 += row[1]
    return 1.0 / (1.0 + math.exp(s0 - s1))


def learned_links(text: str, sentences: Sequence[tuple[int, int]], number, kind: str, mentions: Sequence,
                  canon: dict[str, str], main: str | None, others: Sequence[int], rule: dict,
                  linker: Linker) -> tuple[dict[str, str | None], float]:
    """subject / benchmark / metric by the learned linker, the best-scoring candidate over its role's
    threshold
    (else none), and the probability that all three choices are right (the product over the roles of
    the chosen candidate's probability, or, for an empty role, of no candidate's)."""
    out: dict[str, str | None] = {}
    confidence = 1.0
    for role in ROLES:
        cands = candidates(mentions, role, canon)
        best, best_p, top = None, linker.thresholds[role], 0.0
        ranks = nearness(sentences, number, cands)
        for name, occs in cands.items():
            p = score(pair_features(text, sentences, number, kind, role, name, occs, len(cands), others, main,
                                    rule.get(role), ranks.get(name, 0)), linker.weights)
            top = max(top, p)
            if p >= best_p:
                best, best_p = name, p
        out[role] = best
        confidence *= best_p if best is not None else 1.0 - top
    return out, confidence
