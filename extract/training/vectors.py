"""Subword vectors of the large corpus (floret) and the word classes they give, measured against the
PMI word classes the mention scorer ships with (`clusters.py`).

    pip install floret                                   # training-time only, like the corpus itself
    python -m paperkg.extract.training.vectors --corpus ../shared/data/arxiv_large/abstracts.jsonl.gz \
        --out vectors/
    python -m paperkg.extract.training.train_mentions --clusters \
        --clusters-file vectors/floret_classes.tsv ...         # the fast loop's other flags as usual

Why: the PMI classes come from 40,000 abstracts and cover the 32k words seen four times there; one
entity head in ten of the gold is none of them. floret's vectors (fastText's subword model with
hashed n-grams, the format `spacy init vectors --mode floret` reads) learn from every abstract of the
corpus and give any word a vector, so every word can have a class. Two ways to use them, written as
word -> "coarse|fine" maps in the shape of `derived/clusters.tsv`, so the fast loop compares them with
the shipped classes on the same folds (`--clusters-file`):
- `floret_classes.tsv`: k-means over the vectors of every word (64 and 512 classes, as `clusters.py`);
- `floret_extended.tsv`: the PMI classes kept, and each word they miss given the fine class whose
  centroid in floret space is nearest (its coarse class the one most of that fine class's words have).
The words are the corpus's own (seen twice) and those of the training, dev and unlabelled abstracts.
Measured in `extract/README.md` (session 21): neither pays beyond the folds' noise, so neither ships.

Deterministic with `--threads 1` (floret's default seed; about 12 minutes for the 209k abstracts on one
core), the settings in `FLORET`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from paperkg.extract.training import clusters, data, representations

FLORET = {"model": "cbow", "dim": 64, "epoch": 3, "minCount": 2, "minn": 3, "maxn": 5, "mode": "floret",
          "hashCount": 1, "bucket": 50000}
CLASSES_FILE, EXTENDED_FILE, MODEL_FILE = "floret_classes.tsv", "floret_extended.tsv", "floret.bin"


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    return vectors / (np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9)


def extend_classes(words: list[str], vectors: np.ndarray, known: dict[str, str]) -> dict[str, str]:
    """`known` ("coarse|fine" per word) plus, for every other word of `words`, the fine class whose
    centroid (the mean of its known words' unit vectors, `vectors` row i is `words[i]`'s) is nearest
    by cosine, with the coarse class most of that fine class's words have."""
    index = {w: i for i, w in enumerate(words)}
    unit = unit_rows(vectors)
    members: dict[str, list[int]] = defaultdict(list)
    coarse_of: dict[str, Counter] = defaultdict(Counter)
    for word, cls in known.items():
        if word in index:
            coarse, fine = cls.split("|")
            members[fine].append(index[word])
            coarse_of[fine][coarse] += 1
    fines = sorted(members)
    centroids = unit_rows(np.stack([unit[members[f]].sum(axis=0) for f in fines]))
    out = dict(known)
    missing = [w for w in words if w not in known]
    for start in range(0, len(missing), 20_000):
        chunk = missing[start:start + 20_000]
        nearest = (unit[[index[w] for w in chunk]] @ centroids.T).argmax(axis=1)
        for word, j in zip(chunk, nearest, strict=True):
            fine = fines[j]
            out[word] = f"{coarse_of[fine].most_common(1)[0][0]}|{fine}"
    return out


def vector_classes(words: list[str], vectors: np.ndarray, seed: int = 13,
                   sizes: tuple[int, int] = (clusters.COARSE, clusters.FINE)) -> dict[str, str]:
    """k-means over the words' unit vectors at `clusters.py`'s two granularities."""
    unit = unit_rows(vectors)
    coarse = clusters._kmeans(unit, min(sizes[0], len(words)), seed)
    fine = clusters._kmeans(unit, min(sizes[1], len(words)), seed + 1)
    return {w: f"{coarse[i]}|{fine[i]}" for i, w in enumerate(words)}


def train_floret(corpus: Path, work: Path, threads: int) -> object:
    """floret over the corpus's abstracts, tokenized and lower-cased as the scorer sees words."""
    import floret

    texts = data.sample_abstracts(corpus, 10**9)
    lines = work / "corpus.txt"
    with lines.open("w", encoding="utf-8") as fh:
        for start in range(0, len(texts), 5000):
            fh.writelines(" ".join(doc) + "\n" for doc in clusters.tokens_of(texts[start:start + 5000]))
    return floret.train_unsupervised(str(lines), thread=threads, verbose=0, **FLORET)


def training_texts() -> list[str]:
    """The abstracts the scorer trains and is chosen on: the gold's and the unlabelled ones."""
    gold = representations.DERIVED.parent / "gold"
    texts = [r["abstract"] for f in sorted(gold.glob("*.jsonl")) for r in data.read_jsonl(f)
             if r.get("abstract")]
    return texts + representations.load_unlabelled(5000)


def build(corpus: Path, out: Path, threads: int = 1, texts: list[str] | None = None,
          known: dict[str, str] | None = None) -> dict[str, int]:
    """floret over `corpus`, then both class maps over its words and those of `texts` (default
    `training_texts()`), extending `known` (default the shipped PMI classes)."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        model = train_floret(corpus, Path(work), threads)
    model.save_model(str(out / MODEL_FILE))
    texts = training_texts() if texts is None else texts
    known = representations.load_clusters() if known is None else known
    words = sorted(({w for doc in clusters.tokens_of(texts) for w in doc} | set(model.words) | set(known))
                   - {"</s>", ""})
    vectors = np.array([model.get_word_vector(w) for w in words], dtype=np.float32)
    representations.write_map(out / CLASSES_FILE, vector_classes(words, vectors))
    representations.write_map(out / EXTENDED_FILE, extend_classes(words, vectors, known))
    return {"words": len(words), "corpus_words": len(model.words), "pmi_words": len(known)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="JSON Lines (.gz or not) with an `abstract` field")
    parser.add_argument("--out", required=True, help="folder for floret.bin and the two class maps")
    parser.add_argument("--threads", type=int, default=1, help="1 (the default) is deterministic")
    args = parser.parse_args(argv)
    started = time.time()
    counts = build(Path(args.corpus), Path(args.out), args.threads)
    print(f"built {args.out} in {time.time() - started:.0f}s: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
