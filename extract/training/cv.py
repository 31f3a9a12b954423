"""k-fold cross-validation of the whole default pipeline over ALL training gold (seed + arXiv).

    python -m paperkg.extract.training.cv                 # 5-fold CV, seed / arXiv / pooled tables
    python -m paperkg.extract.training.cv --dev           # also train on all 560 and score dev + arxiv_dev

Hidden gold lands near cross-validation, not near dev (dev-fitted rules did not carry over), so choices
are made here: every learned part is retrained on the other folds (`training.build.train_all`), the
held-out fold is extracted with the real `Extractor`, and the out-of-fold predictions are scored with
the gold's `score.py`, separately for the seed abstracts, the arXiv abstracts and both together. Folds
are drawn per collection with a fixed seed, so every fold holds both kinds and runs are reproducible.
Dev sets are only ever scored, never trained on.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from paperkg.extract.training import build, data
from paperkg.extract.training.evaluate import load_scorer
from paperkg.graph.records import ENTITY_TYPES

HERE = Path(__file__).resolve().parent
GOLD = HERE / "gold"
KEYS = ["entities.typed", "entities.core", "entities.untyped", "relations.typed",
        *[f"type.{t}" for t in ENTITY_TYPES]]


TRAINING_FILES = (("train.jsonl", "seed"), ("arxiv_train.jsonl", "arxiv"), ("arxiv_train3.jsonl", "arxiv3"),
                  ("arxiv_train4.jsonl", "arxiv4"))


def training_records(gold: Path = GOLD, files: tuple[tuple[str, str], ...] = TRAINING_FILES) -> list[dict]:
    """The training gold files in order, each record tagged with its `collection`: the 160 seed
    abstracts, the first 400 arXiv ones, then the 2,500 + 2,400 arXiv ones of the second round."""
    out = []
    for name, collection in files:
        for rec in data.read_jsonl(gold / name):
            out.append({**rec, "collection": collection})
    return out


def dev_records(gold: Path = GOLD) -> dict[str, list[dict]]:
    return {name: data.read_jsonl(gold / f"{name}.jsonl") for name in ("dev", "arxiv_dev")}


def folds(records: list[dict], k: int, seed: int) -> list[list[int]]:
    """k folds of record indices, drawn separately within each collection (fixed seed)."""
    out: list[list[int]] = [[] for _ in range(k)]
    for collection in dict.fromkeys(r.get("collection") for r in records):
        idx = [i for i, r in enumerate(records) if r.get("collection") == collection]
        random.Random(seed).shuffle(idx)
        for j, i in enumerate(idx):
            out[j % k].append(i)
    return [sorted(f) for f in out]


def extract(records: list[dict], model_dir: Path) -> dict[str, dict]:
    """`paperkg extract` lines for the records, with the models in `model_dir`."""
    extractor = build.extractor(model_dir)
    return {ex.paper_id: ex.to_json() for ex in extractor.extract((r["id"], r["abstract"]) for r in records)}


def cross_validate(records: list[dict], settings: build.Settings, k: int = 5, seed: int = 13,
                   log=None) -> dict[str, dict]:
    """Out-of-fold predictions for every record: models trained on the other k-1 folds."""
    preds: dict[str, dict] = {}
    for n, held in enumerate(folds(records, k, seed)):
        held_set = set(held)
        rest = [r for i, r in enumerate(records) if i not in held_set]
        started = time.time()
        with tempfile.TemporaryDirectory() as tmp:
            build.train_all(rest, Path(tmp), settings)
            preds.update(extract([records[i] for i in held], Path(tmp)))
        if log:
            log(f"fold {n}: trained on {len(rest)}, extracted {len(held)} in {time.time() - started:.0f}s")
    return preds


def score_groups(scorer, records: list[dict], preds: dict[str, dict]) -> dict[str, dict]:
    """Scores of the seed records, the arXiv records (every round) and all of them."""
    groups = {"seed": [r for r in records if r.get("collection") == "seed"],
              "arxiv": [r for r in records if str(r.get("collection")).startswith("arxiv")],
              "pooled": records}
    return {name: scorer.score({r["id"]: r for r in recs}, preds) for name, recs in groups.items() if recs}


def format_table(results: dict[str, dict]) -> str:
    names = list(results)
    lines = [f"{'':18s}" + "".join(f"{n:>22s}" for n in names)]
    for key in KEYS:
        row = f"{key:18s}"
        for n in names:
            v = results[n][key]
            row += f"   {v['p']:.3f}/{v['r']:.3f}/{v['f1']:.3f}"
        lines.append(row)
    lines.append(f"{'introduced acc':18s}" + "".join(f"{results[n]['introduced.accuracy']:>22.3f}"
                                                    for n in names))
    lines.append("(cells: P/R/F1)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", default=str(GOLD), help="the gold folder (default: the repository's copy)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--dev", action="store_true",
                        help="also train on all training gold, score the dev sets")
    parser.add_argument("--no-cv", action="store_true", help="skip cross-validation (with --dev)")
    parser.add_argument("--out", default="", help="write the out-of-fold predictions here (JSONL)")
    parser.add_argument("--json", default="", help="write all scores here (JSON)")
    build.add_arguments(parser)
    args = parser.parse_args(argv)
    gold = Path(args.gold)
    settings = build.Settings.from_args(args)
    scorer = load_scorer(gold)
    records = training_records(gold)
    report: dict[str, dict] = {"settings": asdict(settings)}
    started = time.time()
    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)
    if not args.no_cv:
        preds = cross_validate(records, settings, args.folds, settings.seed, log)
        results = score_groups(scorer, records, preds)
        report["cv"] = results
        print(f"{args.folds}-fold CV over {len(records)} training abstracts ({time.time() - started:.0f}s)")
        print(format_table(results))
        if args.out:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(preds[r["id"]], ensure_ascii=False) + "\n" for r in records)
    if args.dev:
        with tempfile.TemporaryDirectory() as tmp:
            build.train_all(records, Path(tmp), settings)
            results = {}
            for name, recs in dev_records(gold).items():
                results[name] = scorer.score({r["id"]: r for r in recs}, extract(recs, Path(tmp)))
        report["dev"] = results
        print("trained on all training gold; dev sets:")
        print(format_table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
