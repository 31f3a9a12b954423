"""The learned phrase finder: candidates the rules do not propose.

The abstract is cut into stop-word-delimited chunks; every prefix and suffix of a chunk (up to
`MAX_PHRASE` tokens) is scored by a softmax regression with the labels `O` + the six types, and
non-overlapping phrases with P(entity) >= `min_prob` become candidates of source `phrase`, below all
rule sources. Each phrase's probability of its type goes to `doc._.paperkg_scores`; the weights are
saved with the pipeline (`phrases.json`).
"""

from __future__ import annotations

import numpy
from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import TokenView, add_candidates
from paperkg.extract.lexicon.phrases import CHUNK_BREAK, CHUNK_GLUE, MAX_PHRASE
from paperkg.extract.typer import SpanTyper, span_features
from paperkg.extract.weights import LearnedWeights

FILE_NAME = "phrases.json"


def phrase_chunks(view: TokenView) -> list[tuple[int, int]]:
    """Maximal token runs without stop words or punctuation (hyphens, `$`, `/` glue words together)."""
    out = []
    start = None
    for i, low in enumerate(view.lowers):
        if low in CHUNK_BREAK or (view.breaks[i] and low not in CHUNK_GLUE):
            if start is not None:
                out.append((start, i))
            start = None
        elif start is None:
            start = i
    if start is not None:
        out.append((start, len(view.lowers)))
    return out


def phrase_candidates(chunk: tuple[int, int]) -> list[tuple[int, int]]:
    """The prefixes and suffixes (at most MAX_PHRASE tokens) of a chunk, the whole chunk included."""
    a, b = chunk
    cands = {(k, b) for k in range(a, b) if b - k <= MAX_PHRASE}
    cands |= {(a, k) for k in range(a + 1, b + 1) if k - a <= MAX_PHRASE}
    return sorted(cands)


def phrase_features(doc: Doc, start: int, end: int, chunk: tuple[int, int], view: TokenView) -> list[str]:
    """The typer's span features plus where the phrase sits in its chunk and how often it recurs."""
    feats = span_features(doc, start, end, view)
    feats.append("pos=" + ("full" if (start, end) == chunk else "suffix" if end == chunk[1] else "prefix"))
    surface = view.surface(start, end)
    feats.append(f"rep={min(view.text.count(surface), 3)}")
    if view.lowers[start] in CHUNK_GLUE or view.lowers[end - 1] in CHUNK_GLUE:
        feats.append("edge=glue")
    return feats


def find_learned_phrases(doc: Doc, model: SpanTyper, min_prob: float) -> list[tuple[Span, float]]:
    """Non-overlapping phrases that are an entity with probability >= `min_prob` (1 - P(O)), typed by the
    most probable entity label, with that label's probability; overlaps go to the more probable phrase."""
    view = TokenView.of(doc)
    chunks = phrase_chunks(view)
    cands = [(chunk, start, end) for chunk in chunks for start, end in phrase_candidates(chunk)]
    if not cands:
        return []
    probs = model.batch_probabilities([phrase_features(doc, s, e, c, view) for c, s, e in cands])
    none = model.labels.index("O")
    entity = 1.0 - probs[:, none]
    probs[:, none] = -1.0
    best = probs.argmax(axis=1)
    by_chunk: dict[tuple[int, int], list] = {}
    for k in numpy.flatnonzero(entity >= min_prob).tolist():
        chunk, start, end = cands[k]
        by_chunk.setdefault(chunk, []).append((entity[k], start, end, model.labels[best[k]],
                                               float(probs[k, best[k]])))
    spans = []
    for scored in by_chunk.values():
        taken: set[int] = set()
        for _prob, start, end, label, label_prob in sorted(scored, reverse=True):
            if not taken.intersection(range(start, end)):
                taken.update(range(start, end))
                spans.append((Span(doc, start, end, label=label, kb_id="phrase"), label_prob))
    return spans


class PhraseFinder(LearnedWeights):
    """Pipeline component `paperkg_phrases`; `path` names saved weights (None: none until `from_disk`)."""

    weights_class = SpanTyper
    weights_file = FILE_NAME

    def __init__(self, name: str, *, path: str | None = None, min_prob: float = 0.3) -> None:
        self.name = name
        self.min_prob = min_prob
        self.model = SpanTyper.from_disk(path) if path else None

    def __call__(self, doc: Doc) -> Doc:
        found = find_learned_phrases(doc, self.model, self.min_prob) if self.model else []
        add_candidates(doc, (span for span, _ in found))
        doc._.paperkg_scores = {(span.start, span.end): prob for span, prob in found}
        return doc

