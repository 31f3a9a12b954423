"""Train the span typer (softmax regression over `span_features`) and save it to
`extract/model/typer.json`.

One command, reproducible (fixed seed, deterministic order):

    python -m paperkg.extract.training.train_typer             # train on gold train.jsonl, save
    python -m paperkg.extract.training.train_typer --cv 4      # 4-fold CV on train.jsonl (whole pipeline)

Instances are every occurrence of every gold entity surface in `shared/gold/train.jsonl` (never dev),
labelled with its gold type. The resolver uses the typer's label when it is at least 0.8 sure (CV on train:
typed F1 0.481 rules only -> 0.496 with the typer).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import spacy

from paperkg.extract.doc_utils import TokenView
from paperkg.extract.phrases import phrase_candidates, phrase_chunks, phrase_features
from paperkg.extract.tokenizer import customize_tokenizer
from paperkg.extract.training import data
from paperkg.extract.typer import SpanTyper, span_features
from paperkg.graph.records import ENTITY_TYPES

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "model" / "typer.json"


def instances(nlp, records: list[dict]) -> list[tuple[list[str], int]]:
    out = []
    for rec in records:
        doc = nlp.make_doc(rec["abstract"])
        view = TokenView(doc)
        for start, end, etype in data.gold_char_spans(rec["abstract"], rec.get("entities", [])):
            span = doc.char_span(start, end)
            if span is not None and etype in ENTITY_TYPES:
                feats = span_features(doc, span.start, span.end, view)
                out.append((feats, ENTITY_TYPES.index(etype)))
    return out


def train(examples: list[tuple[list[str], int]], epochs: int, l2: float, lr: float, min_count: int,
          seed: int) -> SpanTyper:
    """Adagrad on the softmax cross-entropy with L2, over sparse binary features."""
    counts = Counter(f for feats, _ in examples for f in set(feats))
    index = {f: i for i, f in enumerate(sorted(f for f, c in counts.items() if c >= min_count))}
    n_labels = len(ENTITY_TYPES)
    weights = [[0.0] * n_labels for _ in index]
    grad_sq = [[1e-8] * n_labels for _ in index]
    rows = [([index[f] for f in feats if f in index], y) for feats, y in examples]
    rng = random.Random(seed)
    for _epoch in range(epochs):
        rng.shuffle(rows)
        for feats, y in rows:
            scores = [sum(weights[i][k] for i in feats) for k in range(n_labels)]
            top = max(scores)
            exps = [math.exp(s - top) for s in scores]
            total = sum(exps)
            for i in feats:
                w, g2 = weights[i], grad_sq[i]
                for k in range(n_labels):
                    grad = exps[k] / total - (k == y) + l2 * w[k]
                    g2[k] += grad * grad
                    w[k] -= lr * grad / math.sqrt(g2[k])
    features = sorted(index, key=index.get)
    kept = {f: [round(w, 4) for w in weights[index[f]]] for f in features
            if any(abs(w) >= 1e-3 for w in weights[index[f]])}
    return SpanTyper(list(ENTITY_TYPES), kept)


PHRASE_LABELS = ["O", *ENTITY_TYPES]


def phrase_instances(nlp, records: list[dict]) -> list[tuple[list[str], int]]:
    """Every chunk prefix/suffix of every training abstract, labelled with the gold type of the
    occurrence it matches exactly, or `O`."""
    out = []
    for rec in records:
        doc = nlp.make_doc(rec["abstract"])
        gold = {}
        for start, end, etype in data.gold_char_spans(rec["abstract"], rec.get("entities", [])):
            span = doc.char_span(start, end)
            if span is not None and etype in ENTITY_TYPES:
                gold[(span.start, span.end)] = etype
        view = TokenView(doc)
        for chunk in phrase_chunks(view):
            for start, end in phrase_candidates(chunk):
                label = gold.get((start, end), "O")
                feats = phrase_features(doc, start, end, chunk, view)
                out.append((feats, PHRASE_LABELS.index(label)))
    return out


def train_dense(examples: list[tuple[list[str], int]], labels: list[str], epochs: int, l2: float,
                lr: float, min_count: int) -> SpanTyper:
    """Full-batch Adam on the softmax cross-entropy with L2, vectorised with numpy (many instances)."""
    import numpy as np

    counts = Counter(f for feats, _ in examples for f in set(feats))
    names = sorted(f for f, c in counts.items() if c >= min_count)
    index = {f: i for i, f in enumerate(names)}
    rows = [[index[f] for f in feats if f in index] for feats, _ in examples]
    lengths = np.array([len(r) for r in rows])
    keep = lengths > 0
    rows = [r for r, k in zip(rows, keep, strict=True) if k]
    y = np.array([lab for (_, lab), k in zip(examples, keep, strict=True) if k])
    indices = np.array([i for r in rows for i in r])
    owner = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
    n, n_labels = len(rows), len(labels)
    onehot = np.eye(n_labels)[y]
    weights = np.zeros((len(names), n_labels))
    m = np.zeros_like(weights)
    v = np.zeros_like(weights)
    for step in range(1, epochs + 1):
        scores = np.zeros((n, n_labels))
        np.add.at(scores, owner, weights[indices])
        scores -= scores.max(axis=1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=1, keepdims=True)
        resid = (probs - onehot) / n
        grad = np.zeros_like(weights)
        np.add.at(grad, indices, resid[owner])
        grad += l2 * weights
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        weights -= lr * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    kept = {f: [round(float(w), 4) for w in weights[i]] for f, i in index.items()
            if np.abs(weights[i]).max() >= 1e-3}
    return SpanTyper(labels, kept)


def train_phrases(nlp, records, args) -> SpanTyper:
    return train_dense(phrase_instances(nlp, records), PHRASE_LABELS, args.phrase_epochs, args.phrase_l2,
                       args.phrase_lr, args.min_count)


def cross_validate(records, args, shared: Path) -> dict:
    from paperkg.extract.pipeline import Extractor
    from paperkg.extract.training.evaluate import load_scorer

    scorer = load_scorer(shared)
    nlp = blank()
    order = list(range(len(records)))
    random.Random(args.seed).shuffle(order)
    folds = [order[k::args.cv] for k in range(args.cv)]
    preds: dict[str, dict] = {}
    for k, held in enumerate(folds):
        held_set = set(held)
        typer = train(instances(nlp, [records[i] for i in order if i not in held_set]), args.epochs, args.l2,
                      args.lr, args.min_count, args.seed)
        ner = f"{args.cv_ner}/fold{k}" if args.cv_ner else "none"
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "typer.json"
            typer.to_disk(path)
            phrases_path = "none"
            if args.phrase_prob < 1:
                phrases_path = Path(tmp) / "phrases.json"
                rest = [records[i] for i in order if i not in held_set]
                train_phrases(nlp, rest, args).to_disk(phrases_path)
            extractor = Extractor(ner_path=ner, typer_path=path, phrases_path=phrases_path)
            extractor.nlp.get_pipe("paperkg_typer").min_prob = args.min_prob
            if args.phrase_prob < 1:
                extractor.nlp.get_pipe("paperkg_phrases").min_prob = args.phrase_prob
            for ex in extractor.extract((records[i]["id"], records[i]["abstract"]) for i in held):
                preds[ex.paper_id] = ex.to_json()
    if args.cv_out:
        with open(args.cv_out, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(preds[r["id"]]) + "\n" for r in records if r["id"] in preds)
    return scorer.score({r["id"]: r for r in records}, preds)


def blank() -> spacy.Language:
    nlp = spacy.blank("en")
    customize_tokenizer(nlp)
    return nlp


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=os.environ.get("PAPERKG_SHARED", str(HERE.parents[2] / "shared")))
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--min-count", type=int, default=1)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--cv", type=int, default=0, help="k-fold CV on train, no save")
    parser.add_argument("--cv-out", default="",
                        help="CV only: write the out-of-fold predictions here (JSONL), for error analysis")
    parser.add_argument("--cv-ner", default="", help="fold NER models (DIR/fold<k>) to use in CV")
    parser.add_argument("--min-prob", type=float, default=0.8, help="CV only: typer confidence to use")
    parser.add_argument("--phrase-prob", type=float, default=0.3,
                        help="CV only: phrase-finder confidence to use (1 = no phrase finder)")
    parser.add_argument("--phrase-epochs", type=int, default=150)
    parser.add_argument("--phrase-l2", type=float, default=1e-4)
    parser.add_argument("--phrase-lr", type=float, default=0.05)
    parser.add_argument("--phrases-out", default=str(OUT.with_name("phrases.json")))
    args = parser.parse_args(argv)
    shared = Path(args.shared)
    records = data.read_jsonl(shared / "gold" / "train.jsonl")
    started = time.time()
    if args.cv:
        result = cross_validate(records, args, shared)
        for key in ["entities.typed", "entities.core", "entities.untyped", "relations.typed"] + [
                f"type.{t}" for t in ENTITY_TYPES]:
            v = result[key]
            print(f"{key:18s} P={v['p']:.3f} R={v['r']:.3f} F1={v['f1']:.3f}")
        print(f"introduced {result['introduced.accuracy']}  cv time {time.time() - started:.0f}s")
        return
    examples = instances(blank(), records)
    typer = train(examples, args.epochs, args.l2, args.lr, args.min_count, args.seed)
    typer.to_disk(args.out)
    phrases = train_phrases(blank(), records, args)
    phrases.to_disk(args.phrases_out)
    meta = {"trained_on": "gold/train.jsonl", "typer_instances": len(examples),
            "typer_features": len(typer.weights), "phrase_features": len(phrases.weights),
            "seconds": round(time.time() - started, 1),
            "args": {k: v for k, v in vars(args).items() if k not in ("shared", "out")}}
    Path(args.out).with_suffix(".meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"saved typer to {args.out} ({Path(args.out).stat().st_size / 1e3:.0f} kB) and phrase finder to "
          f"{args.phrases_out} ({Path(args.phrases_out).stat().st_size / 1e3:.0f} kB) in {meta['seconds']}s",
          file=sys.stderr)


if __name__ == "__main__":
    main()
