"""Train paperkg's NER (a narrow spaCy CNN) and save it to `extract/model/ner`.

One command, reproducible (fixed seed, deterministic data order):

    python -m paperkg.extract.training.train_ner            # train on gold train.jsonl (+ extras), save
    python -m paperkg.extract.training.train_ner --cv 4     # k-fold CV on train.jsonl with the full pipeline

Data: `shared/gold/train.jsonl` (never dev.jsonl) and optionally SciERC train (`--extra scierc`) and
TDMSci train (`--extra tdmsci`) mapped to our types. `--shared` (or env PAPERKG_SHARED) points at the
shared folder, default `../shared` next to the repo.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import spacy
from spacy.training import Example
from spacy.util import fix_random_seed, minibatch

from paperkg.extract.tokenizer import customize_tokenizer
from paperkg.extract.training import data

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "model" / "ner"


def tok2vec_config(width: int, depth: int, embed: int) -> dict:
    """The one small CNN encoder both candidate architectures share, so they compare fairly."""
    return {
        "@architectures": "spacy.HashEmbedCNN.v2",
        "pretrained_vectors": None,
        "width": width,
        "depth": depth,
        "embed_size": embed,
        "window_size": 1,
        "maxout_pieces": 3,
        "subword_features": True,
    }


def ner_config(width: int, depth: int, embed: int, hidden: int, maxout: int = 2) -> dict:
    return {"model": {
        "@architectures": "spacy.TransitionBasedParser.v2",
        "state_type": "ner",
        "extra_state_tokens": False,
        "hidden_width": hidden,
        "maxout_pieces": maxout,
        "use_upper": True,
        "nO": None,
        "tok2vec": tok2vec_config(width, depth, embed),
    }}


TAGGER_NAME = "entity_tagger"
LABELS = ("Method", "Model", "Dataset", "Benchmark", "Metric", "Task")


def tagger_config(width: int, depth: int, embed: int) -> dict:
    return {"model": {
        "@architectures": "spacy.Tagger.v2",
        "nO": None,
        "normalize": False,
        "tok2vec": tok2vec_config(width, depth, embed),
    }}


def with_biluo_tags(doc):
    """A copy of `doc` whose token tags are the BILUO entity tags (`B-Method`, ..., `O`)."""
    from spacy.training import offsets_to_biluo_tags

    tags = offsets_to_biluo_tags(doc, [(e.start_char, e.end_char, e.label_) for e in doc.ents])
    out = doc.copy()
    for token, tag in zip(out, tags, strict=True):
        token.tag_ = tag
    return out


def blank_nlp() -> spacy.Language:
    nlp = spacy.blank("en")
    customize_tokenizer(nlp)
    return nlp


def examples_from(nlp, docs) -> list[Example]:
    return [Example(nlp.make_doc(d.text), d) for d in docs]


def train(train_docs, extra_docs, args, log=print) -> spacy.Language:
    fix_random_seed(args.seed)
    nlp = blank_nlp()
    if args.arch == "tagger":
        # a BILUO tagger: one softmax per token, several times faster than the transition-based NER
        comp = nlp.add_pipe("tagger", name=TAGGER_NAME, config=tagger_config(args.width, args.depth,
                                                                             args.embed))
        for label in ["O"] + [f"{p}-{lab}" for p in "BILU" for lab in LABELS]:
            comp.add_label(label)
        train_docs = [with_biluo_tags(d) for d in train_docs]
        extra_docs = [with_biluo_tags(d) for d in extra_docs]
    else:
        comp = nlp.add_pipe("ner", config=ner_config(args.width, args.depth, args.embed, args.hidden,
                                                     args.maxout))
        for label in LABELS:
            comp.add_label(label)
    loss_key = comp.name
    gold = examples_from(nlp, train_docs)
    extra = examples_from(nlp, extra_docs)
    optimizer = nlp.initialize(lambda: gold + extra)
    optimizer.learn_rate = args.lr
    rng = random.Random(args.seed)
    for epoch in range(args.pretrain_epochs):
        rng.shuffle(extra)
        losses: dict = {}
        for batch in minibatch(extra, size=args.batch):
            nlp.update(batch, drop=args.dropout, sgd=optimizer, losses=losses)
        log(f"  pretrain epoch {epoch}: loss {losses.get(loss_key, 0):.1f}")
    for epoch in range(args.epochs):
        # gold seeds each epoch, plus a sample of the extra data
        pool = list(gold)
        if extra and args.extra_ratio > 0:
            pool += rng.sample(extra, min(len(extra), int(len(gold) * args.extra_ratio)))
        rng.shuffle(pool)
        losses = {}
        for batch in minibatch(pool, size=args.batch):
            nlp.update(batch, drop=args.dropout, sgd=optimizer, losses=losses)
        if epoch % 5 == 0 or epoch == args.epochs - 1:
            log(f"  epoch {epoch}: loss {losses.get(loss_key, 0):.1f}")
    return nlp


def load_extra(nlp, names: list[str], shared: Path) -> list:
    docs = []
    ext = shared / "data" / "external"
    for name in names:
        if name == "scierc":
            docs += data.scierc_docs(nlp, ext / "scierc" / "json" / "train.json")
        elif name == "tdmsci":
            docs += data.tdmsci_docs(nlp, ext / "tdmsci" / "conll" / "train_1500_v2.conll")
        elif name:
            sys.exit(f"unknown extra data set {name!r}")
    return docs


def cross_validate(records, extra_docs, args, shared: Path) -> dict:
    from paperkg.extract.pipeline import Extractor
    from paperkg.extract.training.evaluate import load_scorer

    scorer = load_scorer(shared)
    order = list(range(len(records)))
    random.Random(args.seed).shuffle(order)
    folds = [order[k::args.cv] for k in range(args.cv)]
    nlp = blank_nlp()
    preds: dict[str, dict] = {}
    for k, held in enumerate(folds):
        held_set = set(held)
        train_docs = [data.gold_doc(nlp, records[i])[0] for i in order if i not in held_set]
        fold_dir = Path(args.cv_dir) / f"fold{k}" if args.cv_dir else None
        if fold_dir is not None and fold_dir.exists() and args.reuse:
            model_dir = str(fold_dir)
        else:
            model = train(train_docs, extra_docs, args, log=lambda *_: None)
            model_dir = str(fold_dir) if fold_dir else tempfile.mkdtemp()
            Path(model_dir).parent.mkdir(parents=True, exist_ok=True)
            model.to_disk(model_dir)
        extractor = Extractor(ner_path=model_dir)
        for ex in extractor.extract((records[i]["id"], records[i]["abstract"]) for i in held):
            preds[ex.paper_id] = ex.to_json()
        if fold_dir is None:
            shutil.rmtree(model_dir)
        print(f"  fold {k} done", file=sys.stderr)
    gold = {r["id"]: r for r in records}
    if args.cv_out:
        with open(args.cv_out, "w", encoding="utf-8") as handle:
            for pred in preds.values():
                handle.write(json.dumps(pred, ensure_ascii=False) + "\n")
    return scorer.score(gold, preds)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=os.environ.get("PAPERKG_SHARED", str(HERE.parents[2] / "shared")))
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--extra", default="", help="comma list: scierc,tdmsci")
    parser.add_argument("--extra-ratio", type=float, default=0.0, help="extra docs per gold doc per epoch")
    parser.add_argument("--pretrain-epochs", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--arch", choices=("ner", "tagger"), default="ner")
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--embed", type=int, default=2000)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--maxout", type=int, default=2, help="maxout pieces of the NER's hidden layer")
    parser.add_argument("--dropout", type=float, default=0.2)
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--cv", type=int, default=0, help="k-fold CV on train, no save")
    parser.add_argument("--cv-dir", default="", help="keep the fold models here")
    parser.add_argument("--reuse", action="store_true", help="reuse fold models found in --cv-dir")
    parser.add_argument("--cv-out", default="", help="write the CV predictions (JSONL) here")
    args = parser.parse_args(argv)
    shared = Path(args.shared)
    records = data.read_jsonl(shared / "gold" / "train.jsonl")
    nlp = blank_nlp()
    extra_docs = load_extra(nlp, [x for x in args.extra.split(",") if x], shared)
    started = time.time()
    if args.cv:
        result = cross_validate(records, extra_docs, args, shared)
        keys = ["entities.typed", "entities.core", "entities.untyped", "relations.typed"] + [
            f"type.{t}" for t in ("Method", "Model", "Dataset", "Benchmark", "Metric", "Task")]
        for key in keys:
            v = result[key]
            print(f"{key:18s} P={v['p']:.3f} R={v['r']:.3f} F1={v['f1']:.3f}")
        print(f"introduced {result['introduced.accuracy']}  aliases {result['aliases.recall']}")
        print(f"cv time {time.time() - started:.0f}s  args {vars(args)}")
        return
    docs = [data.gold_doc(nlp, r)[0] for r in records]
    model = train(docs, extra_docs, args)
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    model.to_disk(out)
    meta = {"trained_on": ["gold/train.jsonl", *[x for x in args.extra.split(",") if x]],
            "seconds": round(time.time() - started, 1), "args": {k: v for k, v in vars(args).items()
                                                                 if k not in ("shared", "out")}}
    (out / "paperkg_training.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"saved NER to {out} ({size / 1e6:.2f} MB) in {meta['seconds']}s")


if __name__ == "__main__":
    main()
