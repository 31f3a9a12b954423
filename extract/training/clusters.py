"""Word clusters from unlabelled ML abstracts: a distributional feature for the mention scorer.

    python -m paperkg.extract.training.clusters --corpus CORPUS.jsonl.gz      # prints cluster samples

Most words of a candidate span are rare in the gold; a word's cluster (learned from 40,000 abstracts drawn
from the 209k-abstract arXiv corpus by `representations.py`, shipped in `derived/clusters.tsv`)
lets the scorer generalise from `segmentation` to `detection`, from `Qwen` to `Llama`. No pretrained vectors
can be downloaded here, so the vectors are built with numpy only: positive PMI of words with their
neighbours (window 2), a randomised truncated SVD, then k-means at two granularities. Deterministic
(fixed seeds); the result is a word -> "coarse|fine" map saved inside `mentions.json`.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from paperkg.extract.training import data

CORPUS_ABSTRACTS = 40_000
MIN_COUNT = 4
CONTEXTS = 4000
DIMS = 64
COARSE, FINE = 64, 512


def tokens_of(texts: list[str]) -> list[list[str]]:
    """Lower-cased tokens (paperkg's tokenizer, LaTeX spacing read as spaces) of every text."""
    import spacy

    from paperkg.extract.tokenizer import customize_tokenizer
    from paperkg.graph.normalize import latex_spacing

    nlp = spacy.blank("en")
    customize_tokenizer(nlp)
    return [[t.lower_ for t in doc if not t.is_space]
            for doc in nlp.tokenizer.pipe(latex_spacing(t) for t in texts)]


def _kmeans(x: np.ndarray, k: int, seed: int, iters: int = 15) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = x[rng.choice(len(x), size=k, replace=False)].copy()
    assign = np.zeros(len(x), dtype=np.int64)
    for _ in range(iters):
        assign = (x @ centres.T).argmax(axis=1)  # rows are unit vectors: cosine
        for j in range(k):
            members = x[assign == j]
            if len(members):
                c = members.sum(axis=0)
                centres[j] = c / (np.linalg.norm(c) or 1.0)
    return assign


def word_clusters(docs: list[list[str]], seed: int = 13, sizes: tuple[int, int] = (COARSE, FINE),
                  min_count: int = MIN_COUNT, dims: int = DIMS) -> dict[str, str]:
    """word -> "coarse|fine" cluster ids, for words seen at least `min_count` times."""
    counts = Counter(w for doc in docs for w in doc)
    vocab = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    if not vocab:
        return {}
    index = {w: i for i, w in enumerate(vocab)}
    ctx = {w: i for i, w in enumerate(vocab[:CONTEXTS])}
    rows, cols = [], []
    for doc in docs:
        ids = [index.get(w, -1) for w in doc]
        cids = [ctx.get(w, -1) for w in doc]
        n = len(doc)
        for i, wi in enumerate(ids):
            if wi < 0:
                continue
            for j in range(max(0, i - 2), min(n, i + 3)):
                if j != i and cids[j] >= 0:
                    rows.append(wi)
                    cols.append(cids[j])
    m = np.zeros((len(vocab), len(ctx)), dtype=np.float64)
    np.add.at(m, (np.array(rows), np.array(cols)), 1.0)
    total = m.sum()
    pw = m.sum(axis=1, keepdims=True) / total
    pc = (m.sum(axis=0, keepdims=True) / total) ** 0.75
    pc /= pc.sum()
    with np.errstate(divide="ignore"):
        pmi = np.log(m / total / (pw * pc))
    ppmi = np.where(np.isfinite(pmi) & (pmi > 0), pmi, 0.0)
    # randomised SVD (Halko et al.): range finder with two power iterations
    rng = np.random.default_rng(seed)
    dims = min(dims, len(ctx) - 1, len(vocab) - 1) or 1
    q = ppmi @ rng.standard_normal((ppmi.shape[1], min(dims + 16, len(ctx))))
    for _ in range(2):
        q, _r = np.linalg.qr(ppmi @ (ppmi.T @ q))
    u, s, _vt = np.linalg.svd(q.T @ ppmi, full_matrices=False)
    vecs = (q @ u)[:, :dims] * np.sqrt(s[:dims])
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True) + 1e-9
    coarse = _kmeans(vecs, min(sizes[0], len(vocab)), seed)
    fine = _kmeans(vecs, min(sizes[1], len(vocab)), seed + 1)
    return {w: f"{coarse[i]}|{fine[i]}" for w, i in index.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="JSON Lines (.gz or not) with an `abstract` field")
    parser.add_argument("--abstracts", type=int, default=CORPUS_ABSTRACTS)
    args = parser.parse_args(argv)
    clusters = word_clusters(tokens_of(data.sample_abstracts(Path(args.corpus), args.abstracts)))
    by: dict[str, list[str]] = {}
    for w, c in clusters.items():
        by.setdefault(c.split("|")[1], []).append(w)
    print(f"{len(clusters)} words", file=sys.stderr)
    for probe in ("segmentation", "qwen", "accuracy", "imagenet", "transformer", "reinforcement", "gsm8k"):
        if probe in clusters:
            print(probe, "->", by[clusters[probe].split("|")[1]][:25])


if __name__ == "__main__":
    main()
