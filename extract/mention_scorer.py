"""Learned mention scorer: one softmax decides, for every candidate span, whether it is an entity and of
which type, with a probability (over a tanh hidden layer when the model has one: `SparseSoftmax.output`).

Candidates are what the rules proposed (acronyms, model names, gazetteer hits, introduced phrases,
name shapes: `doc.spans["paperkg_cands"]`) together with every prefix and suffix of every
stop-word-delimited chunk. Each candidate's features are its words, head, shape and neighbours
(`span_features`), which rules proposed it and with which label, where it sits in its chunk and how
often the abstract repeats it. Rules alone rank sources by hand; the scorer learns from gold how much
each source and shape is worth, so a threshold on its probability trades recall for precision, and
that probability is the mention's confidence.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
from functools import lru_cache
from pathlib import Path

import numpy
from spacy.tokens import Doc, Span

from paperkg.extract.doc_utils import CANDS, FINAL, TokenView, sentence_index
from paperkg.extract.head_types import is_generic
from paperkg.extract.hygiene import is_not_entity
from paperkg.extract.lexicon.phrases import CHUNK_GLUE, MAX_PHRASE
from paperkg.extract.lexicon.resolver import SOURCE_RANK
from paperkg.extract.phrases import phrase_chunks
from paperkg.extract.resolver import extend_name_suffixes, retype_listed
from paperkg.extract.typer import span_features
from paperkg.extract.weights import LearnedWeights

FILE_NAME = "mentions.json"
# sources whose spans are names from a curated list or a model-name pattern: surer than their context
NAME_SOURCES = frozenset({"gaz_exact", "model"})
LABELS_O = "O"
MAX_TOKENS = 10
_DIGIT = re.compile(r"\d")


class SparseSoftmax:
    """Multinomial logistic regression over sparse binary features (weights: feature -> row), or with
    `output` a softmax over one tanh hidden layer: each feature's row is then its hidden-layer weights,
    summed per candidate as before (so the compiled scorer is unchanged) and passed through `activate`.

    `lexicon` and `clusters` are the mention scorer's outside name kinds and word classes; `heads` is the
    relation scorer's head chooser and `typer` the mention scorer's P(type | entity) (`_typed_rows`),
    nested models saved in the same file (the typer shares its parent's lexicon and clusters)."""

    def __init__(self, labels: list[str], weights: dict[str, list[float]], bias: list[float] | None = None,
                 calibration: dict | None = None, lexicon: dict[str, str] | None = None,
                 clusters: dict[str, str] | None = None, heads: SparseSoftmax | None = None,
                 typer: SparseSoftmax | None = None, output: list[list[float]] | None = None) -> None:
        self.labels = labels
        self.output = numpy.array(output, dtype=numpy.float64) if output is not None else None
        self.heads = heads
        self.typer = typer
        self.lexicon = lexicon
        self.clusters = clusters
        self.weights = weights
        self.calibration = calibration or {}
        self._rows = {f: i for i, f in enumerate(weights)}
        width = len(labels) if self.output is None else self.output.shape[0] - 1
        self._matrix = numpy.array([*weights.values(), [0.0] * width], dtype=numpy.float64)

    @classmethod
    def from_disk(cls, path: str | Path) -> SparseSoftmax:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: dict) -> SparseSoftmax:
        heads = cls.from_dict(data["heads"]) if data.get("heads") else None
        typer = data.get("typer")
        if typer:
            typer = cls(typer["labels"], typer["weights"], lexicon=data.get("lexicon"),
                        clusters=data.get("clusters"))
        weights = data["weights"]
        if weights is None:     # a hidden layer's rows, packed (`to_dict`)
            packed = data["packed"]
            matrix = numpy.frombuffer(base64.b64decode(packed["float16"]), dtype=numpy.float16)
            weights = dict(zip(packed["features"], matrix.reshape(len(packed["features"]), -1).astype(float),
                               strict=True))
        return cls(data["labels"], weights, calibration=data.get("calibration"),
                   lexicon=data.get("lexicon"), clusters=data.get("clusters"), heads=heads, typer=typer,
                   output=data.get("output"))

    def to_dict(self) -> dict:
        """Rows as JSON lists; a hidden layer's rows, 32 numbers a feature where the linear model has 7,
        packed as float16 (a third of the size of the lists at 4 decimals, within their rounding)."""
        weights: dict | None = self.weights
        packed = None
        if self.output is not None:
            rows = numpy.array(list(self.weights.values()), dtype=numpy.float16)
            packed = {"features": list(self.weights),
                      "float16": base64.b64encode(rows.tobytes()).decode("ascii")}
            weights = None
        return {"labels": self.labels, "weights": weights, "packed": packed, "calibration": self.calibration,
                "lexicon": self.lexicon, "clusters": self.clusters,
                "heads": self.heads.to_dict() if self.heads is not None else None,
                "typer": ({"labels": self.typer.labels, "weights": self.typer.weights}
                          if self.typer is not None else None),
                "output": self.output.tolist() if self.output is not None else None}

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
        return self.activate(numpy.add.reduceat(self._matrix[numpy.array(idx)], numpy.array(starts), axis=0))

    def activate(self, sums: numpy.ndarray) -> numpy.ndarray:
        """The label scores of summed feature rows: the rows themselves, or through the hidden layer."""
        if self.output is None:
            return sums
        return numpy.tanh(sums) @ self.output[:-1] + self.output[-1]

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
    """(start, end) -> {"sources": [(source, label)], "pos": chunk position} for every candidate: the
    rule candidates and the prefixes and suffixes of every chunk (`phrase_candidates`)."""
    out: dict[tuple[int, int], dict] = {}
    for span in doc.spans.get(CANDS, []):
        start, end = span.start, span.end
        if end - start > MAX_TOKENS:
            continue
        entry = out.get((start, end))
        if entry is None:
            entry = out[(start, end)] = {"sources": [], "pos": "none"}
        entry["sources"].append((span.kb_id_ or "gaz_exact", span.label_))
    for a, b in phrase_chunks(view):   # in `phrase_candidates` order (training reads them in this order)
        for end in range(a + 1, min(b, a + MAX_PHRASE) + 1):
            _set_pos(out, a, end, "full" if end == b else "prefix")
        for start in range(max(a + 1, b - MAX_PHRASE), b):
            _set_pos(out, start, b, "suffix")
    return out


def _set_pos(out: dict[tuple[int, int], dict], start: int, end: int, pos: str) -> None:
    entry = out.get((start, end))
    if entry is None:
        out[(start, end)] = {"sources": [], "pos": pos}
    else:
        entry["pos"] = pos


_SENT_CUES = frozenset({"dataset", "datasets", "benchmark", "benchmarks", "metric", "metrics", "accuracy",
                        "task", "tasks", "evaluate", "evaluated", "outperforms", "propose", "trained",
                        "model", "models"})


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


# What one word adds to a candidate's score, by where it sits (`FeatureRows.word_vectors`)
(_AS_FIRST, _AS_PREV, _AS_PREV2, _AS_LEFT, _AS_HEAD, _AS_NEXT, _AS_NEXT2, _AS_RIGHT, _AS_WORD,
 _AS_INNER) = range(10)
_PAD = 4   # rows of nothing but `<s>` neighbours on each side of a doc's words
_CACHE_LIMIT = 1 << 17


class FeatureRows:
    """`candidate_features` compiled against one model, so that a doc's candidates are scored by a few
    numpy operations instead of ~70 strings looked up per candidate (~170 candidates an abstract).

    Most features depend on one word and where it sits (`first=`, `head=`, `suf3=`, `w=`, the `lw=` /
    `rw=` windows, `p1=` ... `n2=`, the word classes): each distinct word's summed weight rows for
    each place are computed once (`word_vectors`, cached across docs), a doc gathers them once, and
    every candidate's sum is read off shifted sums and prefix sums. `head2=` is looked up per word
    pair, the surface's own features (`surf=`, `ext=`, shape, ...) once per distinct surface, and only
    `shapes=`, `pos=` and the sources per candidate. `candidate_features` remains the definition that
    training reads; `candidate_scores` equals `SparseSoftmax.scores` over it up to float rounding (the
    tests check it on real abstracts)."""

    def __init__(self, model: SparseSoftmax) -> None:
        self.rows = model._rows
        self.zero = len(model._rows)   # the matrix's last row: all zeros
        self.matrix = model._matrix
        self.lexicon = model.lexicon
        self.clusters = model.clusters or {}
        self._index: dict[str, int] = {}   # word -> row of `table`
        self._surfaces: dict[str, tuple[int, ...]] = {}
        width = self.matrix.shape[1]
        self.table = numpy.zeros((1024, 10, width))
        # row 0: a place outside the doc, whose only features are `<s>` neighbours
        for place, feature in ((_AS_PREV, "p1=<s>"), (_AS_PREV2, "p2=<s>"), (_AS_NEXT, "n1=<s>"),
                               (_AS_NEXT2, "n2=<s>")):
            self.table[0, place] = self.matrix[self.row(feature)]
        self._size = 1
        row = self.row
        self.bias = row("bias")
        self.lengths = numpy.array([self.zero] + [row(f"len={min(k, 5)}") for k in range(1, 6)])
        self.edge, self.parens = row("edge=glue"), row("ctx=parens")
        self.before_paren = row("ctx=before_paren")
        self.positions = {pos: row("pos=" + pos) for pos in ("full", "prefix", "suffix", "none")}
        self.no_source = row("src=none")
        self.repeats = [row(f"rep={k}") for k in range(4)]
        self.pairs: dict[tuple[str, str], int] = {}
        for feature, r in self.rows.items():
            if feature.startswith("head2="):
                pair = feature[6:]
                # words may hold `_`: every split names this row, as `f"{a}_{b}"` would
                for k, c in enumerate(pair):
                    if c == "_":
                        self.pairs[(pair[:k], pair[k + 1:])] = r

    def row(self, feature: str) -> int:
        return self.rows.get(feature, self.zero)

    def doc_rows(self, lowers: list[str]) -> list[int]:
        """The table rows of a doc's words, `_PAD` rows of no word (row 0) on each side."""
        if self._size + len(lowers) > _CACHE_LIMIT:  # start afresh between docs, never within one
            self._index.clear()
            self._size = 1
        known, index = self._index.get, self._word_index
        return [0] * _PAD + [known(w) or index(w) for w in lowers] + [0] * _PAD

    def _word_index(self, low: str) -> int:
        """The table row of the lower-cased word `low`: its summed weight rows at each place."""
        k = self._index.get(low)
        if k is not None:
            return k
        if self._size == len(self.table):
            self.table = numpy.concatenate([self.table, numpy.zeros_like(self.table)])
        places = self.word_vectors(low)
        flat = [r for rows in places for r in rows]
        offsets = numpy.cumsum([0] + [len(rows) for rows in places[:-1]])
        self.table[self._size] = numpy.add.reduceat(self.matrix[flat], offsets, axis=0)
        self._index[low] = k = self._size
        self._size += 1
        return k

    def word_vectors(self, low: str) -> list[list[int]]:
        """The rows of every feature the word `low` gives at each place (`_AS_FIRST` ...): as a
        candidate's first word, just before it, two before, in its 4-word left window, as its head,
        just after, two after, in its right window, any word of it, an inner word of it."""
        row, zero = self.row, self.zero
        head = [row("head=" + low), row("suf3=" + low[-3:])]
        first = [row("first=" + low)]
        prev, nxt, inner = [row("p1=" + low)], [row("n1=" + low)], [zero]
        cluster = self.clusters.get(low)
        if cluster:
            coarse, fine = cluster.split("|")
            head += [row("hc=" + coarse), row("hcf=" + fine)]
            first += [row("fc=" + coarse), row("fcf=" + fine)]
            prev += [row("pc=" + coarse), row("pcf=" + fine)]
            nxt += [row("nc=" + coarse), row("ncf=" + fine)]
            inner = [row("wc=" + coarse)]
        elif self.clusters:
            head.append(row("hc=unk"))
            first.append(row("fc=unk"))
        word = [row("w=" + low) if low.isalnum() else zero]
        return [first, prev, [row("p2=" + low)], [row("lw=" + low)], head, nxt, [row("n2=" + low)],
                [row("rw=" + low)], word, inner]

    def surface(self, surface: str, low: str) -> tuple[int, ...]:
        """The rows of the features of a surface alone (`surf=`, `ext=`, shape, title case, generic)."""
        ids = self._surfaces.get(surface)
        if ids is not None:
            return ids
        row = self.row
        out = [row("surf=" + low)]
        if self.lexicon is not None:
            hit = self.lexicon.get(low)
            if hit:
                out.extend(row("ext=" + t) for t in hit.split("|"))
        rest = surface[1:]
        out.append(row("shape=upper" if surface.isupper() else "shape=innercap" if rest != rest.lower()
                       else "shape=title" if surface[:1].isupper() else "shape=lower"))
        if _DIGIT.search(surface):
            out.append(row("shape=digit"))
        words = surface.split()
        if len(words) > 1 and all(w[:1].isupper() for w in words):
            out.append(row("shape=titlecase"))
        if is_generic(surface):
            out.append(row("generic"))
        ids = tuple(out)
        if len(self._surfaces) >= _CACHE_LIMIT:
            self._surfaces.clear()
        self._surfaces[surface] = ids
        return ids


def feature_rows(model: SparseSoftmax) -> FeatureRows:
    """The model's compiled features, built on first use."""
    compiled = getattr(model, "_compiled", None)
    if compiled is None:
        compiled = model._compiled = FeatureRows(model)
    return compiled


def candidate_scores(doc: Doc, model: SparseSoftmax, cands: dict[tuple[int, int], dict],
                     view: TokenView) -> numpy.ndarray:
    """The model's raw scores of every candidate (in `cands` order): `SparseSoftmax.scores` over
    `candidate_features`, computed from per-word vectors (see `FeatureRows`)."""
    fr = feature_rows(model)
    matrix, zero = fr.matrix, fr.zero
    lowers, n = view.lowers, len(view.lowers)
    # the doc's words, _PAD places of nothing on each side: word i is row i + _PAD
    rows = fr.doc_rows(lowers)   # (may grow the table: read it after)
    vec = fr.table[rows]
    p = _PAD
    # by start s (0..n-1): first word, the words before it, the left window
    at_start = (vec[p:p + n, _AS_FIRST] + vec[p - 1:p - 1 + n, _AS_PREV] + vec[p - 2:p - 2 + n, _AS_PREV2]
                + vec[p - 1:p - 1 + n, _AS_LEFT] + vec[p - 2:p - 2 + n, _AS_LEFT]
                + vec[p - 3:p - 3 + n, _AS_LEFT] + vec[p - 4:p - 4 + n, _AS_LEFT])
    # by end e (0..n; 0 unused): head word e - 1, the words after it, the right window
    at_end = (vec[p - 1:p + n, _AS_HEAD] + vec[p:p + n + 1, _AS_NEXT] + vec[p + 1:p + n + 2, _AS_NEXT2]
              + vec[p:p + n + 1, _AS_RIGHT] + vec[p + 1:p + n + 2, _AS_RIGHT]
              + vec[p + 2:p + n + 3, _AS_RIGHT] + vec[p + 3:p + n + 4, _AS_RIGHT])
    width = matrix.shape[1]
    words = numpy.zeros((n + 1, width))
    numpy.cumsum(vec[p:p + n, _AS_WORD], axis=0, out=words[1:])
    inner = numpy.zeros((n + 1, width))
    numpy.cumsum(vec[p:p + n, _AS_INNER], axis=0, out=inner[1:])
    bounds = numpy.array(list(cands), dtype=numpy.intp).reshape(-1, 2)
    starts, ends = bounds[:, 0], bounds[:, 1]
    size = ends - starts
    scores = (at_start[starts] + at_end[ends] + words[ends] - words[starts]
              + inner[numpy.maximum(ends - 1, starts + 1)] - inner[numpy.minimum(starts + 1, n)])
    # one-row features: bias, length, head2= of the last two words, glue at an edge, parentheses
    pairs = fr.pairs
    pair_rows = numpy.array([zero] + [pairs.get(k, zero) for k in itertools.pairwise(lowers)],
                            dtype=numpy.intp)
    glue = numpy.array([w in CHUNK_GLUE for w in lowers] + [False])
    opens = numpy.array([w == "(" for w in lowers] + [False])
    closes = numpy.array([w == ")" for w in lowers] + [False])
    before = opens[starts - 1] & (starts > 0)
    one = numpy.stack([numpy.full(len(starts), fr.bias), fr.lengths[numpy.minimum(size, 5)],
                       numpy.where(size > 1, pair_rows[ends - 1], zero),
                       numpy.where(glue[starts] | glue[ends - 1], fr.edge, zero),
                       numpy.where(before & closes[ends], fr.parens, zero),
                       numpy.where(opens[ends], fr.before_paren, zero)], axis=1)
    scores += matrix[one].sum(axis=1)
    # the cue words of each candidate's sentence
    scores += _sentence_vectors(doc, view, fr)[starts]
    # what depends on the whole surface and the candidate's sources
    text, tstarts = view.text, view.starts
    tends = [a + k for a, k in zip(tstarts, view.lengths, strict=True)]
    shapes = [_shape(text[a:b]) for a, b in zip(tstarts, tends, strict=True)]
    seen: dict[str, tuple[int, ...]] = {}
    shape_rows: dict[tuple[int, int], int] = {}
    idx: list[int] = []
    offsets = []
    row, positions, repeats, no_source = fr.row, fr.positions, fr.repeats, fr.no_source
    for (start, end), info in cands.items():
        offsets.append(len(idx))
        surface = text[tstarts[start]:tends[end - 1]]
        ids = seen.get(surface)
        if ids is None:
            rep = repeats[min(text.count(surface), 3)]
            ids = seen[surface] = (*fr.surface(surface, surface.lower()), rep)
        idx += ids
        head = (start, min(end, start + 4))
        shape = shape_rows.get(head)
        if shape is None:
            shape = shape_rows[head] = row("shapes=" + "_".join(shapes[head[0]:head[1]]))
        sources = info["sources"]
        if not sources:
            idx += (shape, positions[info["pos"]], no_source)
            continue
        idx += (shape, positions[info["pos"]])
        for source, label in sources:
            idx.append(row("src=" + source))
            idx.append(row(f"srcl={source}:{label}"))
        if len({s for s, _ in sources}) > 1:
            idx.append(row("src=multi"))
    scores += numpy.add.reduceat(matrix[idx], offsets, axis=0)
    return model.activate(scores)


def _sentence_vectors(doc: Doc, view: TokenView, fr: FeatureRows) -> numpy.ndarray:
    """Per token: the summed `sent=` rows of the cue words of its sentence (as `sentence_cues`)."""
    n = len(view.lowers)
    first = doc.to_array("SENT_START") == 1
    first[0] = False
    sent_of = numpy.cumsum(first)
    cues: dict[int, set[str]] = {}
    for i, low in enumerate(view.lowers):
        if low in _SENT_CUES:
            cues.setdefault(int(sent_of[i]), set()).add(low)
    out = numpy.zeros((int(sent_of[-1]) + 1 if n else 1, fr.matrix.shape[1]))
    for k, words in cues.items():
        out[k] = fr.matrix[[fr.row("sent=" + w) for w in words]].sum(axis=0)
    return out[sent_of]


def score_candidates(doc: Doc, model: SparseSoftmax, min_entity: float = 0.0
                     ) -> list[tuple[float, int, int, str, numpy.ndarray, str]]:
    """(P(entity), start, end, best type, type probabilities, source) for every candidate with
    P(entity) >= `min_entity` (decoding never looks at the ~95% below its lowest threshold)."""
    view = TokenView.of(doc)
    cands = candidates(doc, view)
    if not cands:
        return []
    scores = candidate_scores(doc, model, cands, view)
    scores -= scores.max(axis=1, keepdims=True)
    probs = numpy.exp(scores)
    probs /= probs.sum(axis=1, keepdims=True)
    none = model.labels.index(LABELS_O)
    entity = 1.0 - probs[:, none]
    keep = numpy.flatnonzero(entity >= min_entity)
    keys = list(cands)
    if model.typer is not None and len(keep):
        probs[keep] = _typed_rows(doc, model, probs[keep], {keys[k]: cands[keys[k]] for k in keep.tolist()},
                                  view)
    typed = probs[keep]
    typed[:, none] = -1.0
    best = typed.argmax(axis=1).tolist()
    labels = model.labels
    out = []
    for k, b in zip(keep.tolist(), best, strict=True):
        start, end = keys[k]
        sources = cands[(start, end)]["sources"]
        source = min((s for s, _ in sources), key=lambda s: SOURCE_RANK.get(s, 9)) if sources else "phrase"
        out.append((float(entity[k]), start, end, labels[b], probs[k], source))
    return out


def _typed_rows(doc: Doc, model: SparseSoftmax, rows: numpy.ndarray, cands: dict[tuple[int, int], dict],
                view: TokenView) -> numpy.ndarray:
    """The joint rows with P(entity) kept and its split over the types taken from the typer
    (P(type | entity), trained on gold mentions alone): decoding sums these rows per surface."""
    typer = model.typer
    s = candidate_scores(doc, typer, cands, view)
    s -= s.max(axis=1, keepdims=True)
    t = numpy.exp(s)
    t /= t.sum(axis=1, keepdims=True)
    none = model.labels.index(LABELS_O)
    out = rows.copy()
    out[:, [model.labels.index(label) for label in typer.labels]] = t * (1.0 - rows[:, [none]])
    return out


def _never_entity(text: str) -> bool:
    """Generic kinds (`LLMs`, `diffusion models`) and what is never an entity alone (`7B`, `GPU`, a span
    with a line break): dropped whatever the model says, as the rank-based resolver drops them."""
    return is_generic(text) or is_not_entity(text)


def decode(doc: Doc, model: SparseSoftmax, threshold: float,
           name_threshold: float = 1.0) -> tuple[list[Span], list[float]]:
    """Non-overlapping candidates with P(entity) >= threshold (>= `name_threshold` for names a
    curated list or the model-name rules found: `NAME_SOURCES`), most probable first; one type per surface
    (summed type probabilities over its chosen occurrences); every further occurrence of a chosen surface
    is a mention too. Returns the spans (kb_id = source) and each span's calibrated confidence."""
    scored = score_candidates(doc, model, min(threshold, name_threshold))
    none = model.labels.index(LABELS_O)
    taken = bytearray(len(doc))
    view = TokenView.of(doc)
    surface_of = view.surface
    chosen = []
    for prob, start, end, _label, row, source in sorted(scored, key=lambda c: (-c[0], c[1], c[2])):
        if prob < threshold and source not in NAME_SOURCES:
            continue
        if any(taken[start:end]) or _never_entity(surface_of(start, end)):
            continue
        taken[start:end] = b"\x01" * (end - start)
        chosen.append((start, end, row, prob, source))
    text = view.text
    view_words = [text[a:a + k] for a, k in zip(view.starts, view.lengths, strict=True)]
    by_surface: dict[str, numpy.ndarray] = {}
    best_prob: dict[str, float] = {}
    for start, end, row, prob, _source in chosen:
        surface = surface_of(start, end)
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
    kept = [(start, end, surface_of(start, end), source) for start, end, _row, _prob, source in chosen]
    # further occurrences of a chosen surface
    first: dict[str, list[tuple[int, str]]] = {}
    for start, end, surface, _source in kept:
        entry = (end - start, surface)
        if entry not in first.setdefault(view_words[start], []):
            first[view_words[start]].append(entry)
    n = len(view_words)
    for i, word in enumerate(view_words):
        if word not in first:
            continue
        for length, surface in sorted(first[word], reverse=True):
            end = i + length
            if end > n or any(taken[i:end]) or surface_of(i, end) != surface:
                continue
            a, b = view.starts[i], view.starts[end - 1] + view.lengths[end - 1]
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
    return spans, [round(calibrate(best_prob[surface], table), 4) for _start, _end, surface, _source in kept]


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

