"""Train the mention scorer (`extract/mention_scorer.py`) from gold, and a fast CV loop for choosing
its features and threshold.

    python -m paperkg.extract.training.train_mentions --cv 5      # 5-fold CV, rules run once

Instances: every candidate span (rule candidates and chunk prefixes/suffixes) of every training
abstract, labelled with the gold type when the span is exactly an occurrence of a gold surface, else
`O`. The rule components run once per abstract; each fold only retrains the scorer and decodes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from paperkg.extract import factories as F
from paperkg.extract import mention_scorer as M
from paperkg.extract.training import data, sparse
from paperkg.graph.records import ENTITY_TYPES

LABELS = [M.LABELS_O, *ENTITY_TYPES]


def rule_nlp() -> Language:
    """The pipeline up to (not including) the resolver: sentencizer and the rule candidate sources."""
    from paperkg.extract.pipeline import build_nlp

    nlp = build_nlp("rules")
    nlp.remove_pipe("paperkg_resolver")
    return nlp


def gold_spans(doc: Doc, record: dict) -> dict[tuple[int, int], str]:
    out = {}
    for start, end, etype in data.gold_char_spans(record["abstract"], record.get("entities", [])):
        span = doc.char_span(start, end)
        if span is not None and etype in ENTITY_TYPES:
            out[(span.start, span.end)] = etype
    return out


def instances(docs: list[Doc], records: list[dict]) -> list[tuple[list[str], int]]:
    out = []
    for doc, rec in zip(docs, records, strict=True):
        gold = gold_spans(doc, rec)
        view = F.TokenView(doc)
        for (start, end), info in M.candidates(doc, view).items():
            label = gold.get((start, end), M.LABELS_O)
            out.append((M.candidate_features(doc, start, end, info, view), LABELS.index(label)))
    return out


def coverage(docs: list[Doc], records: list[dict]) -> float:
    """Share of gold occurrences that are among the candidates (the scorer's recall ceiling)."""
    hit = total = 0
    for doc, rec in zip(docs, records, strict=True):
        gold = gold_spans(doc, rec)
        cands = M.candidates(doc, F.TokenView(doc))
        total += len(gold)
        hit += sum(k in cands for k in gold)
    return hit / max(total, 1)


def train(docs: list[Doc], records: list[dict], *, epochs: int = 8, l2: float = 1e-5, lr: float = 0.2,
          seed: int = 13, min_count: int = 1) -> M.SparseSoftmax:
    weights = sparse.train_softmax(instances(docs, records), len(LABELS), epochs=epochs, l2=l2, lr=lr,
                                   seed=seed, min_count=min_count)
    return M.SparseSoftmax(LABELS, weights)


def finish(doc: Doc, spans, resolver_steps: bool = True) -> Doc:
    """What the resolver does after choosing mentions: suffixes, list cues, introductions, relations."""
    sents, sent_of = F.sentence_index(doc)
    final = F.retype_listed(doc, F.extend_name_suffixes(doc, spans), sents, sent_of) if resolver_steps else spans
    doc.spans[F.FINAL] = final
    doc._.paperkg_introduced = F.detect_introduced(doc, final, sents, sent_of)
    if doc._.paperkg_aliases is None:
        doc._.paperkg_aliases = []
    text = F.doc_text(doc)
    introduced = {text[a:b] for a, b in doc._.paperkg_introduced}
    doc._.paperkg_relations = F.extract_relations(doc, final, introduced, doc._.paperkg_aliases, sents, sent_of)
    return doc


def predict(docs: list[Doc], records: list[dict], model: M.SparseSoftmax, threshold: float) -> dict[str, dict]:
    from paperkg.extract.pipeline import doc_to_extraction

    out = {}
    for doc, rec in zip(docs, records, strict=True):
        spans, _conf = M.decode(doc, model, threshold)
        finish(doc, spans)
        out[rec["id"]] = doc_to_extraction(doc, rec["id"]).to_json()
    return out


def main(argv: list[str] | None = None) -> None:
    from paperkg.extract.training import cv as CV
    from paperkg.extract.training.evaluate import load_scorer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=CV.SHARED)
    parser.add_argument("--cv", type=int, default=5)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--l2", type=float, default=1e-5)
    parser.add_argument("--lr", type=float, default=0.2)
    parser.add_argument("--min-count", type=int, default=1)
    parser.add_argument("--thresholds", default="0.3,0.4,0.5,0.6")
    parser.add_argument("--only", type=int, default=0, help="quick look: run only the first N folds")
    args = parser.parse_args(argv)
    shared = Path(args.shared)
    scorer = load_scorer(shared)
    records = CV.training_records(shared)
    nlp = rule_nlp()
    started = time.time()
    docs = list(nlp.pipe(r["abstract"] for r in records))
    print(f"rules over {len(docs)} abstracts: {time.time() - started:.0f}s; candidate coverage of gold "
          f"occurrences {coverage(docs, records):.3f}", file=sys.stderr, flush=True)
    thresholds = [float(t) for t in args.thresholds.split(",")]
    preds: dict[float, dict] = {t: {} for t in thresholds}
    all_folds = CV.folds(records, args.cv, args.seed)
    if args.only:
        all_folds = all_folds[:args.only]
        records_scored = [records[i] for f in all_folds for i in f]
    else:
        records_scored = records
    for k, held in enumerate(all_folds):
        held_set = set(held)
        rest = [i for i in range(len(records)) if i not in held_set]
        t0 = time.time()
        model = train([docs[i] for i in rest], [records[i] for i in rest], epochs=args.epochs, l2=args.l2,
                      lr=args.lr, seed=args.seed, min_count=args.min_count)
        for t in thresholds:
            preds[t].update(predict([docs[i] for i in held], [records[i] for i in held], model, t))
        print(f"fold {k}: {time.time() - t0:.0f}s, {len(model.weights)} features", file=sys.stderr, flush=True)
    for t in thresholds:
        print(f"threshold {t}")
        print(CV.format_table(CV.score_groups(scorer, records_scored, preds[t])))


if __name__ == "__main__":
    main()
