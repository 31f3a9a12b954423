"""The learned span typer: which of the six types a rule-found span is.

Rules find spans well but type acronym long forms, name shapes and introduced phrases by guesswork; a
multinomial logistic regression over sparse span features (words, head word, shape, neighbouring words),
trained by `training/train_typer.py`, re-types those when it is at least `min_prob` sure. The component
writes its confident predictions to `doc._.paperkg_typed` ({(start, end): (type, probability)}) and the
resolver applies them; its weights are saved with the pipeline (`typer.json`).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy
from spacy.tokens import Doc

from paperkg.extract.doc_utils import CANDS, TokenView
from paperkg.extract.lexicon.resolver import TYPED_BY_TYPER
from paperkg.extract.weights import LearnedWeights

FILE_NAME = "typer.json"
_DIGIT = re.compile(r"\d")


def span_features(doc: Doc, start: int, end: int, view: TokenView | None = None) -> list[str]:
    """Sparse features of the span doc[start:end] for the typer: its words, head, shape, neighbours."""
    view = view or TokenView(doc)
    lowers = view.lowers
    words = lowers[start:end]
    surface = view.surface(start, end)
    head = words[-1]
    feats = ["bias", f"head={head}", f"first={words[0]}", f"suf3={head[-3:]}", f"len={min(len(words), 5)}"]
    feats += [f"w={w}" for w in words if w.isalnum()]
    if len(words) > 1:
        feats.append(f"head2={words[-2]}_{head}")
    rest = surface[1:]
    if surface.isupper():
        feats.append("shape=upper")
    elif rest != rest.lower():
        feats.append("shape=innercap")
    elif surface[:1].isupper():
        feats.append("shape=title")
    else:
        feats.append("shape=lower")
    if _DIGIT.search(surface):
        feats.append("shape=digit")
    n = len(lowers)
    for k, i in (("p1", start - 1), ("p2", start - 2), ("n1", end), ("n2", end + 1)):
        feats.append(f"{k}={lowers[i] if 0 <= i < n else '<s>'}")
    return feats


class SpanTyper:
    """Multinomial logistic regression over sparse features (the typer's and the phrase finder's model)."""

    def __init__(self, labels: list[str], weights: dict[str, list[float]]) -> None:
        self.labels = labels
        self.weights = weights
        self._matrix: numpy.ndarray | None = None
        self._rows: dict[str, int] = {}

    @classmethod
    def from_disk(cls, path: str | Path) -> SpanTyper:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        return cls(data["labels"], data["weights"])

    def to_disk(self, path: str | Path) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"labels": self.labels, "weights": self.weights}, handle, separators=(",", ":"))

    def probabilities(self, feats: list[str]) -> list[float]:
        scores = [0.0] * len(self.labels)
        for f in feats:
            row = self.weights.get(f)
            if row is not None:
                for k, w in enumerate(row):
                    scores[k] += w
        top = max(scores)
        exps = [math.exp(x - top) for x in scores]
        total = sum(exps)
        return [e / total for e in exps]

    def batch_probabilities(self, feature_lists: list[list[str]]) -> numpy.ndarray:
        """Probabilities for many instances at once: (n instances, n labels)."""
        if self._matrix is None:
            self._rows = {f: i for i, f in enumerate(self.weights)}
            rows_ = [*self.weights.values(), [0.0] * len(self.labels)]  # last row: unknown features
            self._matrix = numpy.array(rows_)
        rows = self._rows
        idx, starts = [], []
        get = rows.get
        for feats in feature_lists:
            starts.append(len(idx))
            found = [r for r in map(get, feats) if r is not None]
            idx.extend(found or (-1,))  # no known feature: the zero row at the end
        scores = numpy.add.reduceat(self._matrix[numpy.array(idx)], numpy.array(starts), axis=0)
        scores -= scores.max(axis=1, keepdims=True)
        probs = numpy.exp(scores)
        return probs / probs.sum(axis=1, keepdims=True)

    def predict(self, doc: Doc, start: int, end: int, view: TokenView | None = None) -> tuple[str, float]:
        probs = self.probabilities(span_features(doc, start, end, view))
        best = max(range(len(probs)), key=probs.__getitem__)
        return self.labels[best], probs[best]


def confident_types(doc: Doc, model: SpanTyper, min_prob: float) -> dict[tuple[int, int], tuple[str, float]]:
    """The typer's label of every candidate whose type rules guessed, where it is >= `min_prob` sure."""
    out: dict[tuple[int, int], tuple[str, float]] = {}
    if CANDS not in doc.spans:
        return out
    view = None
    seen: set[tuple[int, int]] = set()
    for span in doc.spans[CANDS]:
        key = (span.start, span.end)
        if span.kb_id_ not in TYPED_BY_TYPER or span.label_ == "SHORT" or key in seen:
            continue
        seen.add(key)
        view = view or TokenView.of(doc)
        label, prob = model.predict(doc, span.start, span.end, view)
        if prob >= min_prob:
            out[key] = (label, prob)
    return out


class SpanTyperComponent(LearnedWeights):
    """Pipeline component `paperkg_typer`; `path` names saved weights (None: none until `from_disk`)."""

    weights_class = SpanTyper
    weights_file = FILE_NAME

    def __init__(self, name: str, *, path: str | None = None, min_prob: float = 0.8) -> None:
        self.name = name
        self.min_prob = min_prob
        self.model = SpanTyper.from_disk(path) if path else None

    def __call__(self, doc: Doc) -> Doc:
        doc._.paperkg_typed = confident_types(doc, self.model, self.min_prob) if self.model else {}
        return doc

