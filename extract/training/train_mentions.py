"""Train the mention scorer (`extract/mention_scorer.py`) from gold, and a fast CV loop for choosing
its features and threshold.

    python -m paperkg.extract.training.train_mentions --cv 5      # 5-fold CV, rules run once

Instances: every candidate span (rule candidates and chunk prefixes/suffixes) of every training
abstract, labelled with the gold type when the span is exactly an occurrence of a gold surface, else
`O`. The rule components run once per abstract; each fold only retrains the scorer and decodes.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from dataclasses import dataclass
from itertools import product
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from paperkg.extract import mention_scorer as M
from paperkg.extract import relation_scorer as R
from paperkg.extract.described_methods import DEFAULT_CONFIDENCE, add_described_method
from paperkg.extract.doc_utils import FINAL, TokenView, doc_text, make_doc, sentence_index
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


def rule_docs(nlp: Language, texts: list[str]) -> list[Doc]:
    """`texts` through the rules, each Doc made as the pipeline makes it (`doc_utils.make_doc`)."""
    return list(nlp.pipe(make_doc(nlp, text) for text in texts))


def gold_spans(doc: Doc, record: dict) -> dict[tuple[int, int], str]:
    out = {}
    for start, end, etype in data.gold_char_spans(record["abstract"], record.get("entities", [])):
        span = doc.char_span(start, end)
        if span is not None and etype in ENTITY_TYPES:
            out[(span.start, span.end)] = etype
    return out


def instances(docs: list[Doc], records: list[dict], lexicon,
              clusters: dict[str, str] | None = None) -> list[tuple[list[str], int]]:
    out = []
    probe = M.SparseSoftmax(LABELS, {}, lexicon=lexicon, clusters=clusters)
    for doc, rec in zip(docs, records, strict=True):
        gold = gold_spans(doc, rec)
        cands, feats = M.features_of(doc, probe)
        for key, f in zip(cands, feats, strict=True):
            out.append((f, LABELS.index(gold.get(key, M.LABELS_O))))
    return out


def external_lexicon() -> dict[str, str]:
    """Distant supervision: lower-cased names of the outside lists (PwC tasks, data sets, metrics, model
    names; CSO topics) -> their kinds, a feature of the scorer (not a candidate source); shipped in
    `derived/lexicon.tsv` (`representations.py`)."""
    from paperkg.extract.training import representations

    return representations.load_lexicon()


def word_clusters_of(path: Path | None = None) -> dict[str, str]:
    """The word classes of the large unlabelled corpus (`derived/clusters.tsv`, `representations.py`), or
    another word -> "coarse|fine" map to compare with them (`vectors.py`)."""
    from paperkg.extract.training import representations

    return representations.read_map(path) if path else representations.load_clusters()


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
          seed: int = 13, min_count: int = 1, lexicon: dict[str, str] | None = None,
          clusters: dict[str, str] | None = None, unlabelled: list[list[list[str]]] | None = None,
          self_train: SelfTrain | None = None, typer: bool = True, hidden: int = 0) -> M.SparseSoftmax:
    """The mention scorer; with `unlabelled` (the candidates' features of unlabelled docs,
    `unlabelled_rows`) and `self_train`, retrained `rounds` times on the gold rows plus the previous
    model's confident predictions on the unlabelled docs (self-training). With `typer`, its nested
    typer (`mention_scorer._typed_rows`) is trained on the gold mentions' rows alone: which type, given
    an entity, is a cleaner question than the joint model's, where `O` rows are ~95% of the data."""
    gold_rows = instances(docs, records, lexicon, clusters)

    def fit(rows: list[tuple[list[str], int]], labels: list[str],
            ex_weights: list[float] | None = None, width: int = 0) -> M.SparseSoftmax:
        if width:
            weights, output = sparse.train_mlp(rows, len(labels), hidden=width, epochs=epochs, l2=l2, lr=lr,
                                               seed=seed, min_count=min_count, weights=ex_weights)
            return M.SparseSoftmax(labels, weights, lexicon=lexicon, clusters=clusters, output=output)
        weights = sparse.train_softmax(rows, len(labels), epochs=epochs, l2=l2, lr=lr, seed=seed,
                                       min_count=min_count, weights=ex_weights)
        return M.SparseSoftmax(labels, weights, lexicon=lexicon, clusters=clusters)

    model = fit(gold_rows, LABELS, width=hidden)
    if unlabelled and self_train is not None:
        for _round in range(self_train.rounds):
            pseudo = pseudo_instances(unlabelled, model, self_train, seed)
            model = fit(gold_rows + pseudo, LABELS,
                        [1.0] * len(gold_rows) + [self_train.weight] * len(pseudo), width=hidden)
    if typer:
        none = LABELS.index(M.LABELS_O)
        model.typer = fit([(f, ENTITY_TYPES.index(LABELS[y])) for f, y in gold_rows if y != none],
                          list(ENTITY_TYPES))
    return model


@dataclass
class SelfTrain:
    """Self-training settings: rows with P(entity) >= `high` (labelled with the best type) or <= `low`
    (labelled `O`, a `negatives` share of them kept) join the gold rows with loss weight `weight`."""

    high: float = 0.8
    low: float = 0.05
    negatives: float = 0.2
    weight: float = 0.5
    rounds: int = 1


def pseudo_instances(unlabelled: list[list[list[str]]], model: M.SparseSoftmax, settings: SelfTrain,
                     seed: int) -> list[tuple[list[str], int]]:
    """The model's confident predictions over unlabelled docs' candidates as training rows."""
    rng = random.Random(seed)
    none = LABELS.index(M.LABELS_O)
    out = []
    for feats in unlabelled:
        if not feats:
            continue
        for f, row in zip(feats, model.probabilities(feats), strict=True):
            p_entity = 1.0 - float(row[none])
            if p_entity >= settings.high:
                typed = row.copy()
                typed[none] = -1.0
                out.append((f, int(typed.argmax())))
            elif p_entity <= settings.low and rng.random() < settings.negatives:
                out.append((f, none))
    return out


def unlabelled_rows(docs: list[Doc], lexicon: dict[str, str] | None,
                    clusters: dict[str, str] | None) -> list[list[list[str]]]:
    """Per unlabelled doc, its candidates' features (computed once, interned: every fold and round
    reuses them, and thousands of abstracts' features fit in a few hundred MB)."""
    probe = M.SparseSoftmax(LABELS, {}, lexicon=lexicon, clusters=clusters)
    return [[[sys.intern(f) for f in feats] for feats in M.features_of(doc, probe)[1]] for doc in docs]


def unlabelled_docs(n: int, nlp: Language | None = None) -> list[Doc]:
    """`n` unlabelled abstracts (drawn from the large corpus, `derived/unlabelled.jsonl.gz`) through the
    rules."""
    from paperkg.extract.training import representations

    if n <= 0:
        return []
    return rule_docs(nlp or rule_nlp(), representations.load_unlabelled(n))


def _norm(text: str) -> str:
    return re.sub(r"[\u2010\u2011\u2012\u2013\u2014\u2212\-\s]+", " ", text.casefold()).strip(" .,;:")


def mark(docs: list[Doc], model: M.SparseSoftmax, threshold: float, name_threshold: float = 1.0,
         described: bool = True) -> None:
    """Run the mention scorer, the described-method finder (`described`) and the introduction marker
    over docs that went through the rules."""
    scorer = M.MentionScorer("paperkg_mentions", threshold=threshold)
    scorer.model = M.SparseSoftmax(model.labels, model.weights, lexicon=model.lexicon,
                                   calibration={**model.calibration, "name_threshold": name_threshold},
                                   clusters=model.clusters, typer=model.typer, output=model.output)
    for doc in docs:
        scorer(doc)
        if described:
            add_described_method(doc, DEFAULT_CONFIDENCE)
        sents, sent_of = sentence_index(doc)
        doc._.paperkg_introduced = detect_introduced(doc, list(doc.spans[FINAL]), sents, sent_of)


def cross_fit_mark(docs: list[Doc], records: list[dict], k: int, seed: int, threshold: float,
                   name_threshold: float = 1.0, described: bool = True, **train_kwargs) -> None:
    """Mark each doc with a mention model trained without it (`k` folds of `docs`): the mentions the
    head chooser and the relation model then learn from are as noisy as the ones they meet out of
    sample, not the in-sample ones a model fits close to gold."""
    from paperkg.extract.training import cv as CV

    for held in CV.folds(records, k, seed):
        held_set = set(held)
        rest = [i for i in range(len(records)) if i not in held_set]
        model = train([docs[i] for i in rest], [records[i] for i in rest], seed=seed, **train_kwargs)
        mark([docs[i] for i in held], model, threshold, name_threshold, described)


def gold_head(record: dict) -> str | None:
    """The paper's own method in gold: the head most of its relations hang off (normalised)."""
    heads: dict[str, int] = {}
    for h, _r, _t in record.get("relations", []):
        heads[_norm(h)] = heads.get(_norm(h), 0) + 1
    return max(heads, key=lambda h: (heads[h], h)) if heads else None


def train_heads(docs: list[Doc], records: list[dict], *, epochs: int = 10, l2: float = 1e-4,
                lr: float = 0.1, seed: int = 13) -> M.SparseSoftmax:
    """The head chooser: is this Method/Model of the abstract the one gold hangs its relations off?"""
    examples = []
    for doc, rec in zip(docs, records, strict=True):
        head = gold_head(rec)
        if head is None:
            continue
        for key, feats in R.head_candidates(doc):
            examples.append((feats, int(_norm(key) == head)))
    weights = sparse.train_softmax(examples, len(R.HEAD_LABELS), epochs=epochs, l2=l2, lr=lr, seed=seed)
    return M.SparseSoftmax(R.HEAD_LABELS, weights)


def relation_instances(docs: list[Doc], records: list[dict], heads: M.SparseSoftmax | None = None,
                       k: int = 1, rich: bool = False) -> list[tuple[list[str], int]]:
    out = []
    for doc, rec in zip(docs, records, strict=True):
        gold = {(_norm(h), _norm(t)): r for h, r, t in rec.get("relations", [])}
        for head, key, feats, _rule in R.relation_pairs(doc, heads, k, rich):
            label = gold.get((_norm(head), _norm(key)), R.NONE)
            out.append((feats, R.RELATION_LABELS.index(label)))
    return out


def train_relations(docs: list[Doc], records: list[dict], *, epochs: int = 10, l2: float = 1e-4,
                    lr: float = 0.1, seed: int = 13, heads: bool = True, decide: str = "",
                    heads_k: int = 1, head_floor: float = 0.0) -> M.SparseSoftmax:
    """The relation scorer, with the head chooser (`heads`) nested in it; `decide`: the model decides
    the relations over the pairs of the `heads_k` likeliest heads instead of scoring the rules'; under
    `union` the rules' relations stay unscored only off a head of P(head) >= `head_floor`."""
    chooser = train_heads(docs, records, seed=seed) if heads else None
    rows = relation_instances(docs, records, chooser, heads_k if decide else 1, bool(decide))
    weights = sparse.train_softmax(rows, len(R.RELATION_LABELS), epochs=epochs, l2=l2, lr=lr, seed=seed)
    model = M.SparseSoftmax(R.RELATION_LABELS, weights, heads=chooser)
    if decide:
        model.calibration = {"decide": decide, "heads_k": heads_k}
        if decide == "union":
            model.calibration["head_floor"] = head_floor
    return model


def predict(docs: list[Doc], records: list[dict], heads: M.SparseSoftmax | None = None,
            relations: M.SparseSoftmax | None = None, min_probability: float = 0.0) -> dict[str, dict]:
    """`paperkg extract` lines of docs already marked by `mark`, with the rules' relations off the head
    the rules or (`heads`) the learned chooser pick; with a relation scorer, those it gives at least
    `min_probability`."""
    from paperkg.extract.pipeline import doc_to_extraction

    out = {}
    for doc, rec in zip(docs, records, strict=True):
        sents, sent_of = sentence_index(doc)
        text = doc_text(doc)
        intro = {text[a:b] for a, b in doc._.paperkg_introduced}
        if relations is not None:
            doc._.paperkg_relations = R.score_relations(doc, relations, min_probability)
        else:
            doc._.paperkg_relations = extract_relations(doc, list(doc.spans[FINAL]), intro,
                                                        doc._.paperkg_aliases, sents, sent_of,
                                                        R.choose_head(doc, heads))
        out[rec["id"]] = doc_to_extraction(doc, rec["id"]).to_json()
    return out


def relation_pairs_out(docs: list[Doc], records: list[dict], relations: M.SparseSoftmax) -> list[dict]:
    """Per record: every pair the relation model scores, with its raw probability and whether the union
    keeps it whatever the model says (a rules' relation off a sure head: what a cut-off above 1 keeps)."""
    out = []
    for doc, rec in zip(docs, records, strict=True):
        ruled = {tuple(r[:3]) for r in R.score_relations(doc, relations, 1.01)}
        pairs = [[*r[:3], r[4], tuple(r[:3]) in ruled] for r in R.score_relations(doc, relations, 0.0)]
        out.append({"id": rec["id"], "pairs": pairs})
    return out


def main(argv: list[str] | None = None) -> None:
    from paperkg.extract.training import cv as CV
    from paperkg.extract.training.evaluate import load_scorer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", default=str(CV.GOLD), help="the gold folder (default: the copy here)")
    parser.add_argument("--cv", type=int, default=5)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--l2", type=float, default=1e-5)
    parser.add_argument("--lr", type=float, default=0.2)
    parser.add_argument("--min-count", type=int, default=2)
    parser.add_argument("--threshold", default="0.45", help="mention thresholds to compare (comma list)")
    parser.add_argument("--thresholds", default="0.3,0.4,0.5", help="name-source thresholds to compare")
    parser.add_argument("--no-lexicon", action="store_true")
    parser.add_argument("--clusters", action="store_true", help="word-cluster features (clusters.py)")
    parser.add_argument("--clusters-file", default="",
                        help="with --clusters: another word -> coarse|fine map (vectors.py) instead of "
                             "the shipped one")
    parser.add_argument("--heads", action="store_true", help="learned head chooser (relation_scorer.py)")
    parser.add_argument("--rel-thresholds", default="",
                        help="train the relation scorer too; compare these raw-probability cut-offs")
    parser.add_argument("--rel-decide", default="", choices=["", "model", "union"],
                        help="the relation model decides over head x entity pairs (with --rel-thresholds)")
    parser.add_argument("--rel-l2", default="1e-4",
                        help="with --rel-thresholds: the relation model's L2 penalties to compare")
    parser.add_argument("--rel-epochs", type=int, default=10)
    parser.add_argument("--rel-heads", type=int, default=1,
                        help="with --rel-decide: pairs of the k likeliest heads")
    parser.add_argument("--rel-head-floor", type=float, default=0.5,
                        help="with --rel-decide union: rules' relations kept only off a head of P >= this")
    parser.add_argument("--out", default="", help="write the first setting's out-of-fold lines here (JSONL)")
    parser.add_argument("--rel-out", default="",
                        help="write every out-of-fold (head, relation, tail) pair of the first relation "
                             "model here (JSONL: its probability, raw as no fold model is calibrated, and "
                             "whether the union keeps it unscored), to study cut-offs")
    parser.add_argument("--scores", default="",
                        help="write every table's scores here (JSON) with their tp/fp/fn counts, so the "
                             "P/R/F1 of CVs run in parts pool exactly")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--only", type=int, default=0, help="quick look: run only the first N folds")
    which.add_argument("--folds", default="",
                       help="run only these folds, counted from 0 (comma list, e.g. 2,3,4: a CV finished "
                            "in parts; the tables then cover these folds' abstracts)")
    parser.add_argument("--self-train", type=int, default=0,
                        help="self-training on the first N unlabelled arXiv abstracts")
    parser.add_argument("--st-high", type=float, default=0.8)
    parser.add_argument("--st-low", type=float, default=0.05)
    parser.add_argument("--st-negatives", type=float, default=0.2)
    parser.add_argument("--st-weight", type=float, default=0.5)
    parser.add_argument("--st-rounds", type=int, default=1)
    parser.add_argument("--no-described", action="store_true",
                        help="leave out the unnamed methods papers introduce (described_methods.py)")
    parser.add_argument("--no-typer", action="store_true", help="types from the joint model alone")
    parser.add_argument("--hidden", type=int, default=0,
                        help="the mention model's tanh hidden layer, this wide (0: a linear softmax)")
    parser.add_argument("--cross-fit", type=int, default=0,
                        help="train the head chooser and relation model on mentions of K inner fold models "
                             "(each training doc marked by a model that never saw it), not the fold model's")
    parser.add_argument("--train-fraction", type=float, default=1.0,
                        help="train each fold on this share of the other folds (a learning curve)")
    args = parser.parse_args(argv)
    try:
        chosen = {int(k) for k in args.folds.split(",") if k.strip()} if args.folds else set(range(args.only))
    except ValueError:
        parser.error(f"--folds {args.folds}: give fold numbers separated by commas, e.g. 2,3,4")
    if args.cross_fit == 1 or args.cross_fit < 0:
        parser.error(f"--cross-fit {args.cross_fit}: give 0 (off) or a number of inner folds of 2 or more")
    if not chosen <= set(range(args.cv)):
        parser.error(f"folds {sorted(chosen)}: with --cv {args.cv} they are counted from 0 to {args.cv - 1}")
    gold = Path(args.gold)
    scorer = load_scorer(gold)
    records = CV.training_records(gold)
    nlp = rule_nlp()
    started = time.time()
    docs = rule_docs(nlp, [r["abstract"] for r in records])
    print(f"rules over {len(docs)} abstracts: {time.time() - started:.0f}s; candidate coverage of gold "
          f"occurrences {coverage(docs, records):.3f}", file=sys.stderr, flush=True)
    lexicon = None if args.no_lexicon else external_lexicon()
    other = Path(args.clusters_file) if args.clusters_file else None
    clusters = word_clusters_of(other) if args.clusters else None
    unlabelled = unlabelled_rows(unlabelled_docs(args.self_train, nlp), lexicon, clusters)
    self_train = SelfTrain(args.st_high, args.st_low, args.st_negatives, args.st_weight, args.st_rounds)
    thresholds = [(float(m), float(t)) for m in args.threshold.split(",") for t in args.thresholds.split(",")]
    preds: dict = {t: {} for t in thresholds}
    rel_cuts = [float(c) for c in args.rel_thresholds.split(",") if c]
    rel_l2s = [float(c) for c in args.rel_l2.split(",") if c] or [1e-4]
    pairs_out: list[dict] = []
    rel_preds: dict = {}
    all_folds = list(enumerate(CV.folds(records, args.cv, args.seed)))
    if chosen:
        all_folds = [(k, held) for k, held in all_folds if k in chosen]
        records_scored = [records[i] for _k, f in all_folds for i in f]
    else:
        records_scored = records
    for k, held in all_folds:
        held_set = set(held)
        rest = [i for i in range(len(records)) if i not in held_set]
        if args.train_fraction < 1.0:       # a point of the learning curve: the held-out fold stays whole
            rest = sorted(random.Random(args.seed + k).sample(rest, round(len(rest) * args.train_fraction)))
        t0 = time.time()
        train_kwargs = {"epochs": args.epochs, "l2": args.l2, "lr": args.lr, "min_count": args.min_count,
                        "lexicon": lexicon, "clusters": clusters, "unlabelled": unlabelled,
                        "self_train": self_train, "typer": not args.no_typer, "hidden": args.hidden}
        model = train([docs[i] for i in rest], [records[i] for i in rest], seed=args.seed, **train_kwargs)
        held_docs, held_recs = [docs[i] for i in held], [records[i] for i in held]
        heads = None
        relation_models = {}
        if args.heads or rel_cuts:
            rest_docs = [docs[i] for i in rest]
            if args.cross_fit:
                cross_fit_mark(rest_docs, [records[i] for i in rest], args.cross_fit, args.seed,
                               *thresholds[0], described=not args.no_described, **train_kwargs)
            else:
                mark(rest_docs, model, *thresholds[0], described=not args.no_described)
            if rel_cuts:
                relation_models = {l2: train_relations(rest_docs, [records[i] for i in rest], seed=args.seed,
                                                       epochs=args.rel_epochs, l2=l2, heads=args.heads,
                                                       decide=args.rel_decide, heads_k=args.rel_heads,
                                                       head_floor=args.rel_head_floor)
                                   for l2 in rel_l2s}
                first_relations = next(iter(relation_models.values()))
                heads = first_relations.heads
            else:
                heads = train_heads(rest_docs, [records[i] for i in rest], seed=args.seed)
        for m, t in thresholds:
            mark(held_docs, model, m, t, described=not args.no_described)
            preds[m, t].update(predict(held_docs, held_recs, heads))
            if args.rel_out and relation_models and (m, t) == thresholds[0]:
                pairs_out.extend(relation_pairs_out(held_docs, held_recs, first_relations))
            for (l2, relations), cut in product(relation_models.items(), rel_cuts):
                rel_preds.setdefault((m, t, cut, l2), {}).update(
                    predict(held_docs, held_recs, heads, relations, cut))
        print(f"fold {k}: {time.time() - t0:.0f}s, {len(model.weights)} features", file=sys.stderr,
              flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(preds[thresholds[0]][r["id"]]) + "\n" for r in records_scored)
    if args.rel_out:
        with open(args.rel_out, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(row) + "\n" for row in pairs_out)
    scores: dict[str, dict] = {}
    for m, t in thresholds:
        print(f"mention threshold {m}, name threshold: {t}")
        table = scores[f"mentions {m} names {t}"] = CV.score_groups(scorer, records_scored, preds[m, t])
        print(CV.format_table(table))
    for (m, t, cut, l2), found in rel_preds.items():
        rel = scores[f"mentions {m} names {t} relations {cut} l2 {l2:g}"] = CV.score_groups(
            scorer, records_scored, found)
        print(f"mention threshold {m}, name threshold {t}, relation L2 {l2:g}, cut-off {cut}: relations "
              + " ".join(f"{g} {v['relations.typed']['p']:.3f}/{v['relations.typed']['r']:.3f}/"
                         f"{v['relations.typed']['f1']:.3f}" for g, v in rel.items()))
    if args.scores:
        Path(args.scores).write_text(json.dumps(scores, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
