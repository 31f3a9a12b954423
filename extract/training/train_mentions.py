"""Train the mention scorer (`extract/mention_scorer.py`) from gold, and a fast CV loop for choosing
its features and threshold.

    python -m paperkg.extract.training.train_mentions --cv 5      # 5-fold CV, rules run once

Instances: every candidate span (rule candidates and chunk prefixes/suffixes) of every training
abstract, labelled with the gold type when the span is exactly an occurrence of a gold surface, else
`O`. The rule components run once per abstract; each fold only retrains the scorer and decodes.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from paperkg.extract import mention_scorer as M
from paperkg.extract import relation_scorer as R
from paperkg.extract.doc_utils import FINAL, TokenView, doc_text, sentence_index
from paperkg.extract.introduced import detect_introduced
from paperkg.extract.relations import extract_relations
from paperkg.extract.training import data, sparse
from paperkg.graph.records import ENTITY_TYPES

LABELS = [M.LABELS_O, *ENTITY_TYPES]


def rule_nlp() -> Language:
    """The pipeline up to (not including) the resolver: sentencizer and the rule candidate sources."""
    from paperkg.extract.pipeline import build_nlp

    nlp = build_nlp("rules")
    for name in ("paperkg_resolver", "paperkg_introduced", "paperkg_relations"):
        nlp.remove_pipe(name)
    return nlp


def gold_spans(doc: Doc, record: dict) -> dict[tuple[int, int], str]:
    out = {}
    for start, end, etype in data.gold_char_spans(record["abstract"], record.get("entities", [])):
        span = doc.char_span(start, end)
        if span is not None and etype in ENTITY_TYPES:
            out[(span.start, span.end)] = etype
    return out


def instances(docs: list[Doc], records: list[dict], lexicon) -> list[tuple[list[str], int]]:
    out = []
    probe = M.SparseSoftmax(LABELS, {}, lexicon=lexicon)
    for doc, rec in zip(docs, records, strict=True):
        gold = gold_spans(doc, rec)
        cands, feats = M.features_of(doc, probe)
        for key, f in zip(cands, feats, strict=True):
            out.append((f, LABELS.index(gold.get(key, M.LABELS_O))))
    return out


EXT_TYPES = {"Benchmark(dataset[+split])": "Data", "Dataset": "Data", "Metric": "Metric", "Model": "Model",
             "Model(citation stripped)": "Model", "Task": "Task", "CSO_topic": "CSO"}


def external_lexicon(shared: Path) -> dict[str, str]:
    """Distant supervision: lower-cased names of the outside lists (PwC tasks, data sets, metrics, model
    names; CSO topics) -> their kinds, a feature of the scorer (not a candidate source)."""
    import csv

    out: dict[str, set[str]] = {}
    path = shared / "data" / "external" / "gazetteer_combined" / "gazetteer_combined_derived.tsv"
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            kind = EXT_TYPES.get(row["type"])
            name = row["name"].strip().lower()
            if kind and 2 < len(name) <= 60:
                out.setdefault(name, set()).add(kind)
    return {k: "|".join(sorted(v)) for k, v in sorted(out.items())}


def coverage(docs: list[Doc], records: list[dict]) -> float:
    """Share of gold occurrences that are among the candidates (the scorer's recall ceiling)."""
    hit = total = 0
    for doc, rec in zip(docs, records, strict=True):
        gold = gold_spans(doc, rec)
        cands = M.candidates(doc, TokenView(doc))
        total += len(gold)
        hit += sum(k in cands for k in gold)
    return hit / max(total, 1)


def train(docs: list[Doc], records: list[dict], *, epochs: int = 8, l2: float = 1e-5, lr: float = 0.2,
          seed: int = 13, min_count: int = 1, lexicon: dict[str, str] | None = None) -> M.SparseSoftmax:
    weights = sparse.train_softmax(instances(docs, records, lexicon), len(LABELS), epochs=epochs, l2=l2,
                                   lr=lr, seed=seed, min_count=min_count)
    return M.SparseSoftmax(LABELS, weights, lexicon=lexicon)


def _norm(text: str) -> str:
    return re.sub(r"[\u2010\u2011\u2012\u2013\u2014\u2212\-\s]+", " ", text.casefold()).strip(" .,;:")


def mark(docs: list[Doc], model: M.SparseSoftmax, threshold: float, name_threshold: float = 1.0) -> None:
    """Run the mention scorer and the introduction marker over docs that went through the rules."""
    scorer = M.MentionScorer("paperkg_mentions", threshold=threshold)
    scorer.model = M.SparseSoftmax(model.labels, model.weights, lexicon=model.lexicon,
                                   calibration={"name_threshold": name_threshold})
    for doc in docs:
        scorer(doc)
        sents, sent_of = sentence_index(doc)
        doc._.paperkg_introduced = detect_introduced(doc, list(doc.spans[FINAL]), sents, sent_of)


def relation_instances(docs: list[Doc], records: list[dict]) -> list[tuple[list[str], int]]:
    out = []
    for doc, rec in zip(docs, records, strict=True):
        gold = {(_norm(h), _norm(t)): r for h, r, t in rec.get("relations", [])}
        head, pairs = R.relation_pairs(doc)
        for key, feats, _sent in pairs:
            label = gold.get((_norm(head), _norm(key)), R.NONE)
            out.append((feats, R.RELATION_LABELS.index(label)))
    return out


def train_relations(docs: list[Doc], records: list[dict], *, epochs: int = 10, l2: float = 1e-4,
                    lr: float = 0.1, seed: int = 13) -> M.SparseSoftmax:
    weights = sparse.train_softmax(relation_instances(docs, records), len(R.RELATION_LABELS), epochs=epochs,
                                   l2=l2, lr=lr, seed=seed)
    return M.SparseSoftmax(R.RELATION_LABELS, weights)


def predict(docs: list[Doc], records: list[dict]) -> dict[str, dict]:
    """`paperkg extract` lines of docs already marked by `mark`, with the rules' relations."""
    from paperkg.extract.pipeline import doc_to_extraction

    out = {}
    for doc, rec in zip(docs, records, strict=True):
        sents, sent_of = sentence_index(doc)
        text = doc_text(doc)
        intro = {text[a:b] for a, b in doc._.paperkg_introduced}
        doc._.paperkg_relations = extract_relations(doc, list(doc.spans[FINAL]), intro,
                                                    doc._.paperkg_aliases, sents, sent_of)
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
    parser.add_argument("--threshold", type=float, default=0.35, help="mention threshold")
    parser.add_argument("--thresholds", default="0.3,0.4,0.5", help="name-source thresholds to compare")
    parser.add_argument("--no-lexicon", action="store_true")
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
    lexicon = None if args.no_lexicon else external_lexicon(shared)
    thresholds = [float(t) for t in args.thresholds.split(",")]
    preds: dict = {t: {} for t in thresholds}
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
                      lr=args.lr, seed=args.seed, min_count=args.min_count, lexicon=lexicon)
        held_docs, held_recs = [docs[i] for i in held], [records[i] for i in held]
        for t in thresholds:
            mark(held_docs, model, args.threshold, t)
            preds[t].update(predict(held_docs, held_recs))
        print(f"fold {k}: {time.time() - t0:.0f}s, {len(model.weights)} features", file=sys.stderr,
              flush=True)
    for t in thresholds:
        print(f"mention threshold {args.threshold}, name threshold: {t}")
        print(CV.format_table(CV.score_groups(scorer, records_scored, preds[t])))


if __name__ == "__main__":
    main()
