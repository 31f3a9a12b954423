"""Learned mention scorer: one softmax regression decides, for every candidate span, whether it is an
entity and of which type, with a probability.

Candidates are what the rules proposed (acronyms, model names, gazetteer hits, introduced phrases,
name shapes: `doc.spans["paperkg_cands"]`) together with every prefix and suffix of every
stop-word-delimited chunk. Each candidate's features are its words, head, shape and neighbours
(`span_features`), which rules proposed it and with which label, where it sits in its chunk and how
often the abstract repeats it. Rules alone rank sources by hand; the scorer learns from gold how much
each source and shape is worth, so a threshold on its probability trades recall for precision, and
that probability is the mention's confidence.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy
from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import CANDS, FINAL, TokenView, doc_text, sentence_index
from paperkg.extract.head_types import is_generic
from paperkg.extract.hygiene import is_not_entity
from paperkg.extract.lexicon.phrases import CHUNK_GLUE
from paperkg.extract.lexicon.resolver import SOURCE_RANK
from paperkg.extract.phrases import phrase_candidates, phrase_chunks
from paperkg.extract.resolver import extend_name_suffixes, retype_listed
from paperkg.extract.typer import span_features
from paperkg.extract.weights import LearnedWeights

FILE_NAME = "mentions.json"
# sources whose spans are names from a curated list or a model-name pattern: surer than their context
NAME_SOURCES = frozenset({"gaz_exact", "model"})
LABELS_O = "O"
MAX_TOKENS = 10


class SparseSoftmax:
    """Multinomial logistic regression over sparse binary features (weights: feature -> row).

    `lexicon` and `clusters` are the mention scorer's outside name kinds and word classes; `heads` is the
    relation scorer's head chooser, a nested model saved in the same file."""

    def __init__(self, labels: list[str], weights: dict[str, list[float]], bias: list[float] | None = None,
                 calibration: dict | None = None, lexicon: dict[str, str] | None = None,
                 clusters: dict[str, str] | None = None, heads: SparseSoftmax | None = None) -> None:
        self.labels = labels
        self.heads = heads
        self.lexicon = lexicon
        self.clusters = clusters
        self.weights = weights
        self.calibration = calibration or {}
        self._rows = {f: i for i, f in enumerate(weights)}
        self._matrix = numpy.array([*weights.values(), [0.0] * len(labels)], dtype=numpy.float64)

    @classmethod
    def from_disk(cls, path: str | Path) -> SparseSoftmax:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: dict) -> SparseSoftmax:
        heads = cls.from_dict(data["heads"]) if data.get("heads") else None
        return cls(data["labels"], data["weights"], calibration=data.get("calibration"),
                   lexicon=data.get("lexicon"), clusters=data.get("clusters"), heads=heads)

    def to_dict(self) -> dict:
        return {"labels": self.labels, "weights": self.weights, "calibration": self.calibration,
                "lexicon": self.lexicon, "clusters": self.clusters,
                "heads": self.heads.to_dict() if self.heads is not None else None}

    def to_disk(self, path: str | Path) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(self.to_dict(), handle, separators=(",", ":"))

    def scores(self, feature_lists: list[list[str]]) -> numpy.ndarray:
        rows = self._rows
        idx, starts = [], []
        get = rows.get
        unknown = len(rows)
        for feats in feature_lists:
            starts.append(len(idx))
            found = [r for r in map(get, feats) if r is not None]
            idx.extend(found or (unknown,))
        return numpy.add.reduceat(self._matrix[numpy.array(idx)], numpy.array(starts), axis=0)

    def probabilities(self, feature_lists: list[list[str]]) -> numpy.ndarray:
        if not feature_lists:
            return numpy.zeros((0, len(self.labels)))
        s = self.scores(feature_lists)
        s -= s.max(axis=1, keepdims=True)
        p = numpy.exp(s)
        return p / p.sum(axis=1, keepdims=True)


def calibrate(prob: float, table: list[list[float]] | None) -> float:
    """Map a raw probability through a monotone (isotonic) table of [raw, calibrated] knots."""
    if not table:
        return prob
    xs = [k[0] for k in table]
    ys = [k[1] for k in table]
    return float(numpy.interp(prob, xs, ys))


def candidates(doc: Doc, view: TokenView) -> dict[tuple[int, int], dict]:
    """(start, end) -> {"sources": [(source, label)], "pos": chunk position} for every candidate."""
    out: dict[tuple[int, int], dict] = {}
    for span in doc.spans.get(CANDS, []):
        if span.end - span.start > MAX_TOKENS:
            continue
        entry = out.setdefault((span.start, span.end), {"sources": [], "pos": "none"})
        entry["sources"].append((span.kb_id_ or "gaz_exact", span.label_))
    for chunk in phrase_chunks(view):
        for start, end in phrase_candidates(chunk):
            pos = "full" if (start, end) == chunk else "suffix" if end == chunk[1] else "prefix"
            entry = out.setdefault((start, end), {"sources": [], "pos": "none"})
            entry["pos"] = pos
    return out


_SENT_CUES = ("dataset", "datasets", "benchmark", "benchmarks", "metric", "metrics", "accuracy", "task",
              "tasks", "evaluate", "evaluated", "outperforms", "propose", "trained", "model", "models")


@lru_cache(maxsize=1 << 16)
def _shape(word: str) -> str:
    out = []
    for c in word:
        k = "X" if c.isupper() else "x" if c.isalpha() else "d" if c.isdigit() else c
        if not out or out[-1] != k:
            out.append(k)
    return "".join(out)[:8]


def candidate_features(doc: Doc, start: int, end: int, info: dict, view: TokenView,
                       lexicon: dict[str, str] | None = None,
                       sent_words: set[str] | None = None,
                       clusters: dict[str, str] | None = None) -> list[str]:
    feats = span_features(doc, start, end, view)
    surface_low = view.text[view.starts[start]:view.starts[end - 1] + view.lengths[end - 1]].lower()
    feats.append("surf=" + surface_low)
    feats.append("shapes=" + "_".join(_shape(view.text[view.starts[i]:view.starts[i] + view.lengths[i]])
                                      for i in range(start, min(end, start + 4))))
    lowers_ = view.lowers
    for i in range(max(0, start - 4), start):
        feats.append("lw=" + lowers_[i])
    for i in range(end, min(len(lowers_), end + 4)):
        feats.append("rw=" + lowers_[i])
    if lexicon is not None:
        hit = lexicon.get(surface_low)
        if hit:
            feats.extend("ext=" + t for t in hit.split("|"))
    if sent_words:
        feats.extend("sent=" + w for w in sent_words)
    if clusters:
        feats.extend(cluster_features(view.lowers, start, end, clusters))
    feats.append("pos=" + info["pos"])
    surface = view.surface(start, end)
    feats.append(f"rep={min(view.text.count(surface), 3)}")
    lowers = view.lowers
    if lowers[start] in CHUNK_GLUE or lowers[end - 1] in CHUNK_GLUE:
        feats.append("edge=glue")
    sources = info["sources"]
    if not sources:
        feats.append("src=none")
    for source, label in sources:
        feats.append("src=" + source)
        feats.append(f"srcl={source}:{label}")
    if len({s for s, _ in sources}) > 1:
        feats.append("src=multi")
    prev = lowers[start - 1] if start > 0 else "<s>"
    nxt = lowers[end] if end < len(lowers) else "<s>"
    if prev == "(" and nxt == ")":
        feats.append("ctx=parens")
    if nxt == "(":
        feats.append("ctx=before_paren")
    words = surface.split()
    if len(words) > 1 and all(w[:1].isupper() for w in words):
        feats.append("shape=titlecase")
    if is_generic(surface):
        feats.append("generic")
    return feats


def cluster_features(lowers: list[str], start: int, end: int, clusters: dict[str, str]) -> list[str]:
    """The distributional classes (`training/clusters.py`) of the span's head, first word, other words and
    neighbours: words never seen in the gold still share a class with ones that were."""
    out = []
    n = len(lowers)
    for tag, i in (("hc", end - 1), ("fc", start), ("pc", start - 1), ("nc", end)):
        c = clusters.get(lowers[i]) if 0 <= i < n else None
        if c:
            coarse, fine = c.split("|")
            out.append(f"{tag}={coarse}")
            out.append(f"{tag}f={fine}")
        elif 0 <= i < n and tag in ("hc", "fc"):
            out.append(f"{tag}=unk")
    for i in range(start + 1, end - 1):
        c = clusters.get(lowers[i])
        if c:
            out.append("wc=" + c.split("|")[0])
    return out


def sentence_cues(doc: Doc, view: TokenView) -> list[set[str]]:
    """Per token: the cue words (`dataset`, `benchmark`, `evaluate`, ...) of its sentence."""
    out: list[set[str]] = []
    cur: set[str] = set()
    start = 0
    starts = doc.to_array("SENT_START").tolist() if len(doc) else []
    for i, low in enumerate(view.lowers):
        if i > 0 and starts[i] == 1:
            out.extend([cur] * (i - start))
            cur, start = set(), i
        if low in _SENT_CUES:
            cur.add(low)
    out.extend([cur] * (len(doc) - start))
    return out


def features_of(doc: Doc, model: SparseSoftmax) -> tuple[dict[tuple[int, int], dict], list[list[str]]]:
    """The candidates and their features, in the candidates' order."""
    view = TokenView.of(doc)
    cands = candidates(doc, view)
    cues = sentence_cues(doc, view)
    lexicon, clusters = model.lexicon, model.clusters
    return cands, [candidate_features(doc, s, e, info, view, lexicon, cues[s], clusters)
                   for (s, e), info in cands.items()]


def score_candidates(doc: Doc, model: SparseSoftmax) -> list[tuple[float, int, int, str, numpy.ndarray, str]]:
    """(P(entity), start, end, best type, type probabilities, source) for every candidate."""
    cands, feats = features_of(doc, model)
    if not cands:
        return []
    keys = list(cands)
    probs = model.probabilities(feats)
    none = model.labels.index(LABELS_O)
    out = []
    for (start, end), row in zip(keys, probs, strict=True):
        typed = row.copy()
        typed[none] = -1.0
        best = int(typed.argmax())
        sources = cands[(start, end)]["sources"]
        source = min((s for s, _ in sources), key=lambda s: SOURCE_RANK.get(s, 9)) if sources else "phrase"
        out.append((1.0 - float(row[none]), start, end, model.labels[best], row, source))
    return out


def _never_entity(doc: Doc, start: int, end: int) -> bool:
    """Generic kinds (`LLMs`, `diffusion models`) and what is never an entity alone (`7B`, `GPU`, a span
    with a line break): dropped whatever the model says, as the rank-based resolver drops them."""
    text = doc[start:end].text
    return is_generic(text) or is_not_entity(text)


def decode(doc: Doc, model: SparseSoftmax, threshold: float,
           name_threshold: float = 1.0) -> tuple[list[Span], list[float]]:
    """Non-overlapping candidates with P(entity) >= threshold (>= `name_threshold` for names a
    curated list or the model-name rules found: `NAME_SOURCES`), most probable first; one type per surface
    (summed type probabilities over its chosen occurrences); every further occurrence of a chosen surface
    is a mention too. Returns the spans (kb_id = source) and each span's calibrated confidence."""
    scored = score_candidates(doc, model)
    none = model.labels.index(LABELS_O)
    taken = bytearray(len(doc))
    chosen = []
    for prob, start, end, _label, row, source in sorted(scored, key=lambda c: (-c[0], c[1], c[2])):
        if prob < min(threshold, name_threshold):
            break
        if prob < threshold and source not in NAME_SOURCES:
            continue
        if any(taken[start:end]) or _never_entity(doc, start, end):
            continue
        taken[start:end] = b"\x01" * (end - start)
        chosen.append((start, end, row, prob, source))
    text = doc_text(doc)
    view_words = [t.text for t in doc]
    by_surface: dict[str, numpy.ndarray] = {}
    best_prob: dict[str, float] = {}
    for start, end, row, prob, _source in chosen:
        surface = doc[start:end].text
        by_surface[surface] = by_surface.get(surface, 0) + row
        best_prob[surface] = max(best_prob.get(surface, 0.0), prob)
    # an acronym's short form names what its long form names
    for long_text, short_text in doc._.paperkg_aliases or []:
        if long_text in by_surface and short_text in by_surface:
            by_surface[short_text] = by_surface[long_text]
    types = {}
    for surface, row in by_surface.items():
        r = row.copy()
        r[none] = -1.0
        types[surface] = model.labels[int(r.argmax())]
    kept = [(start, end, doc[start:end].text, source) for start, end, _row, _prob, source in chosen]
    # further occurrences of a chosen surface
    first: dict[str, list[tuple[int, str]]] = {}
    for start, end, surface, _source in kept:
        entry = (end - start, surface)
        if entry not in first.setdefault(view_words[start], []):
            first[view_words[start]].append(entry)
    n = len(view_words)
    for i, word in enumerate(view_words):
        for length, surface in sorted(first.get(word, ()), reverse=True):
            end = i + length
            if end > n or any(taken[i:end]) or doc[i:end].text != surface:
                continue
            a, b = doc[i].idx, doc[end - 1].idx + len(doc[end - 1].text)
            if (a > 0 and (text[a - 1].isalnum() or text[a - 1] in "-_")) or (
                    b < len(text) and (text[b].isalnum() or text[b] in "-_")):
                continue
            taken[i:end] = b"\x01" * length
            kept.append((i, end, surface, "copy"))
            break
    kept.sort()
    spans = [Span(doc, start, end, label=types[surface], kb_id=source)
             for start, end, surface, source in kept]
    table = model.calibration.get("entity")
    return spans, [round(calibrate(best_prob[s.text], table), 4) for s in spans]


class MentionScorer(LearnedWeights):
    """Pipeline component `paperkg_mentions` (default mode, in place of the rank-based resolver):
    decodes the scored candidates, then applies the resolver's name-suffix and list-cue rules; writes
    `doc.spans["paperkg"]` and `doc._.paperkg_confidence`. Weights are saved with the pipeline."""

    weights_class = SparseSoftmax
    weights_file = FILE_NAME

    def __init__(self, name: str, *, path: str | None = None, threshold: float | None = None) -> None:
        self.name = name
        self.threshold = threshold
        self.model = SparseSoftmax.from_disk(path) if path else None

    def __call__(self, doc: Doc) -> Doc:
        if doc._.paperkg_aliases is None:
            doc._.paperkg_aliases = []
        if self.model is None:
            doc.spans[FINAL] = []
            doc._.paperkg_confidence = []
            return doc
        threshold = self.threshold if self.threshold is not None else self.model.calibration.get(
            "threshold", 0.35)
        spans, confidence = decode(doc, self.model, threshold,
                                   self.model.calibration.get("name_threshold", 1.0))
        sents, sent_of = sentence_index(doc)
        doc.spans[FINAL] = retype_listed(doc, extend_name_suffixes(doc, spans), sents, sent_of)
        doc._.paperkg_confidence = confidence
        return doc

