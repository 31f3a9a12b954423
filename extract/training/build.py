"""Rebuild every shipped model of the default pipeline from the repository's data, deterministically.

    python -m paperkg.extract.training [--gold DIR] [--out extract/model]

Trains, on all training gold (the 5,460 abstracts of `training/gold/*train*.jsonl`, never the dev sets):
- the mention scorer (`mentions.json`, `extract/mention_scorer.py`), with the outside name lists of
  `data/external/gazetteer_combined` as a lexicon feature (distant supervision);
- the relation scorer (`relations.json`, `extract/relation_scorer.py`) over the mentions the scorer finds;
- their calibration: isotonic maps from raw to observed probability, fitted on 5-fold out-of-fold
  predictions over the same gold, so a mention's or relation's confidence reads as P(correct);
- then the results linker (`results.json`, `extract/results.py`) on `results_train.jsonl` over the
  mentions the new models find (`training/train_results.py`, also runnable alone).
`train_all` is also what every fold of `training.cv` runs (without the calibration, which changes no
decision), so cross-validation measures what ships.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from paperkg.extract import mention_scorer as M
from paperkg.extract import relation_scorer as R
from paperkg.extract.described_methods import SOURCE as DESCRIBED
from paperkg.extract.training import sparse
from paperkg.extract.training import train_mentions as T

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "model"


@dataclass
class Settings:
    """Training and decoding settings (the defaults are what ships; chosen by 5-fold CV)."""

    seed: int = 13
    epochs: int = 8
    l2: float = 1e-5
    lr: float = 0.2
    min_count: int = 2
    hidden: int = 0
    threshold: float = 0.4
    name_threshold: float = 0.1
    rel_epochs: int = 10
    rel_min_probability: float = 0.4
    rel_main_probability: float = 0.6
    rel_decide: str = "union"
    rel_heads: int = 2
    rel_head_floor: float = 0.5
    self_train: int = 1000
    st_rounds: int = 1
    st_weight: float = 0.5
    typer: bool = True
    lexicon: bool = True
    clusters: bool = True
    heads: bool = True
    described: bool = True
    cross_fit: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Settings:
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for f in fields(Settings):
        if isinstance(f.default, bool) and f.default:
            parser.add_argument("--no-" + f.name.replace("_", "-"), dest=f.name, action="store_false")
        elif isinstance(f.default, bool):
            parser.add_argument("--" + f.name.replace("_", "-"), dest=f.name, action="store_true")
        else:
            parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)


def unlabelled_features(settings: Settings, lexicon: dict[str, str] | None, nlp=None) -> dict:
    """What the unlabelled abstracts give the mention scorer: word clusters (`training/clusters.py`) and,
    for self-training (`settings.st_rounds` rounds, pseudo-labels at loss weight `settings.st_weight`),
    the candidates' features of the first `settings.self_train` of them."""
    out = {"clusters": T.word_clusters_of() if settings.clusters else None}
    if settings.self_train:
        docs = T.unlabelled_docs(settings.self_train, nlp)
        out["unlabelled"] = T.unlabelled_rows(docs, lexicon, out["clusters"])
        out["self_train"] = T.SelfTrain(weight=settings.st_weight, rounds=settings.st_rounds)
    return out


CROSS_FIT_FOLDS = 5


def _mention_kwargs(settings: Settings, lexicon: dict[str, str] | None, unlabelled: dict | None) -> dict:
    return {"epochs": settings.epochs, "l2": settings.l2, "lr": settings.lr, "min_count": settings.min_count,
            "lexicon": lexicon, "typer": settings.typer, "hidden": settings.hidden, **(unlabelled or {})}


def train_relations(marked_docs, records: list[dict], settings: Settings):
    """The relation model (with its head chooser) over docs the mention scorer has marked."""
    relations = T.train_relations(marked_docs, records, epochs=settings.rel_epochs, seed=settings.seed,
                                  heads=settings.heads, decide=settings.rel_decide,
                                  heads_k=settings.rel_heads, head_floor=settings.rel_head_floor)
    relations.calibration["min_probability"] = settings.rel_min_probability
    relations.calibration["main_min_probability"] = settings.rel_main_probability
    return relations


def train_models(docs, records: list[dict], settings: Settings, lexicon: dict[str, str] | None,
                 unlabelled: dict | None = None, marked_docs=None):
    """(mention model, relation model) trained on docs that went through the rule components. The
    relation model learns from `marked_docs` when given (the same abstracts, each marked by a mention
    model that did not see it), else, under `settings.cross_fit`, from marks of `CROSS_FIT_FOLDS` such
    models made here (five more mention models: what `training.cv` runs per fold), else from the new
    mention model's own, in-sample marks."""
    mentions = T.train(docs, records, seed=settings.seed, **_mention_kwargs(settings, lexicon, unlabelled))
    if marked_docs is None:
        if settings.cross_fit:
            T.cross_fit_mark(docs, records, CROSS_FIT_FOLDS, settings.seed, settings.threshold,
                             settings.name_threshold, settings.described,
                             **_mention_kwargs(settings, lexicon, unlabelled))
        else:
            T.mark(docs, mentions, settings.threshold, settings.name_threshold, settings.described)
        marked_docs = docs
    return mentions, train_relations(marked_docs, records, settings)


def _norm_sets(rec: dict) -> tuple[set, set]:
    ents = {(T._norm(e["text"]), e["type"]) for e in rec.get("entities", [])}
    rels = {(T._norm(h), r, T._norm(t)) for h, r, t in rec.get("relations", [])}
    return ents, rels


def _entity_instances(doc, record: dict, ent_x: list, ent_y: list) -> None:
    gold_ents, _rels = _norm_sets(record)
    best: dict[tuple[str, str], float] = {}
    for span, conf in zip(doc.spans["paperkg"], doc._.paperkg_confidence, strict=False):
        if span.kb_id_ == DESCRIBED:    # a rule's fixed confidence, not the scorer's to calibrate
            continue
        key = (T._norm(span.text), span.label_)
        best[key] = max(best.get(key, 0.0), conf)
    for key, conf in best.items():
        ent_x.append(conf)
        ent_y.append(int(key in gold_ents))


def _relation_instances(doc, record: dict, relations, rel_x: list, rel_y: list) -> None:
    _ents, gold_rels = _norm_sets(record)
    for h, r, t, _s, p in R.score_relations(doc, relations):
        rel_x.append(p)
        rel_y.append(int((T._norm(h), r, T._norm(t)) in gold_rels))


def out_of_fold(docs, records: list[dict], settings: Settings, lexicon, unlabelled: dict, k: int = 5):
    """Raw probabilities of every predicted mention and relation, each with whether gold has it. Under
    `settings.cross_fit`, every doc is left marked by the mention model of the fold that held it out,
    and each fold's relation model learns from the other folds' docs so marked (the final relation
    model then learns from all of them: `train_all`). Those marks came from mention models that saw
    the scored fold's gold, so the relation calibration is a little less strictly out of fold than
    without `cross_fit` (strict would need K x (K - 1) mention models)."""
    from paperkg.extract.training import cv

    ent_x, ent_y, rel_x, rel_y = [], [], [], []
    held_out = cv.folds(records, k, settings.seed)
    rest_of = [sorted(set(range(len(records))) - set(held)) for held in held_out]
    if settings.cross_fit:
        T.cross_fit_mark(docs, records, k, settings.seed, settings.threshold, settings.name_threshold,
                         settings.described, **_mention_kwargs(settings, lexicon, unlabelled))
        for held, rest in zip(held_out, rest_of, strict=True):
            relations = train_relations([docs[i] for i in rest], [records[i] for i in rest], settings)
            for i in held:
                _entity_instances(docs[i], records[i], ent_x, ent_y)
                _relation_instances(docs[i], records[i], relations, rel_x, rel_y)
        return ent_x, ent_y, rel_x, rel_y
    for held, rest in zip(held_out, rest_of, strict=True):
        mentions, relations = train_models([docs[i] for i in rest], [records[i] for i in rest], settings,
                                           lexicon, unlabelled)
        held_docs = [docs[i] for i in held]
        T.mark(held_docs, mentions, settings.threshold, settings.name_threshold, settings.described)
        for doc, i in zip(held_docs, held, strict=True):
            _entity_instances(doc, records[i], ent_x, ent_y)
            _relation_instances(doc, records[i], relations, rel_x, rel_y)
    return ent_x, ent_y, rel_x, rel_y


def train_all(records: list[dict], out_dir: Path, settings: Settings, calibrate: bool = False) -> dict:
    """Train every learned part on `records` and write it into `out_dir`."""
    from paperkg.extract.training import cv

    started = time.time()
    out_dir.mkdir(parents=True, exist_ok=True)
    lexicon = T.external_lexicon() if settings.lexicon else None
    nlp = T.rule_nlp()
    unlabelled = unlabelled_features(settings, lexicon, nlp)
    docs = T.rule_docs(nlp, [r["abstract"] for r in records])
    meta: dict = {}
    if calibrate:
        ent_x, ent_y, rel_x, rel_y = out_of_fold(docs, records, settings, lexicon, unlabelled)
        calibration = {"entity": sparse.isotonic(ent_x, ent_y), "relation": sparse.isotonic(rel_x, rel_y)}
        meta["calibration_instances"] = {"entity": len(ent_x), "relation": len(rel_x)}
        marked_docs = docs if settings.cross_fit else None
        docs = T.rule_docs(nlp, [r["abstract"] for r in records])
    else:
        calibration, marked_docs = {}, None
    mentions, relations = train_models(docs, records, settings, lexicon, unlabelled, marked_docs)
    mentions.calibration = {"threshold": settings.threshold, "name_threshold": settings.name_threshold}
    if calibration:
        mentions.calibration["entity"] = calibration["entity"]
        relations.calibration["relation"] = calibration["relation"]
    mentions.to_disk(out_dir / M.FILE_NAME)
    relations.to_disk(out_dir / R.FILE_NAME)
    meta.update({"trained_on": [name for name, _ in cv.TRAINING_FILES], "abstracts": len(records),
                 "mention_features": len(mentions.weights), "relation_features": len(relations.weights),
                 "lexicon_names": len(lexicon or {}), "cluster_words": len(unlabelled["clusters"] or {}),
                 "self_train_abstracts": settings.self_train,
                 "settings": asdict(settings),
                 "seconds": round(time.time() - started, 1)})
    return meta


def extractor(model_dir: Path):
    """An Extractor with the models of `model_dir` (no NER)."""
    from paperkg.extract.pipeline import Extractor

    return Extractor(ner_path="none", model_dir=model_dir)


def main(argv: list[str] | None = None) -> None:
    from paperkg.extract.training import cv

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", default=str(cv.GOLD), help="the gold folder (default: the copy here)")
    parser.add_argument("--out", default=str(OUT))
    add_arguments(parser)
    args = parser.parse_args(argv)
    out = Path(args.out)
    meta = train_all(cv.training_records(Path(args.gold)), out, Settings.from_args(args), calibrate=True)
    (out / "models.meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    from paperkg.extract.training import train_results

    train_results.train_and_write(Path(args.gold), out / train_results.OUT.name)
    sizes = {p.name: round(p.stat().st_size / 1e6, 2) for p in sorted(out.glob("*.json"))}
    print(f"trained in {meta['seconds']}s into {out}: {sizes} (MB)", file=sys.stderr)
