"""Run the Extractor over a gold JSONL file and score it with the shared `score.py`.

usage: python -m paperkg.extract.training.evaluate GOLD.jsonl [--mode rules] [--out PRED.jsonl] [--gold-dir D]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load_scorer(gold: Path = HERE / "gold"):
    """The gold's own `score.py` (the repository's copy by default)."""
    spec = importlib.util.spec_from_file_location("paperkg_gold_score", gold / "score.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def predict(gold_path: Path, mode: str = "default", extractor=None) -> list[dict]:
    from paperkg.extract.pipeline import Extractor

    records = [json.loads(line) for line in gold_path.open(encoding="utf-8") if line.strip()]
    extractor = extractor or Extractor(mode=mode)
    return [ex.to_json() for ex in extractor.extract((r["id"], r["abstract"]) for r in records)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("gold")
    parser.add_argument("--mode", default="default")
    parser.add_argument("--out")
    parser.add_argument("--gold-dir", default=str(HERE / "gold"), help="the folder holding score.py")
    args = parser.parse_args(argv)
    preds = predict(Path(args.gold), args.mode)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            for p in preds:
                handle.write(json.dumps(p, ensure_ascii=False) + "\n")
    scorer = load_scorer(Path(args.gold_dir))
    gold = scorer.load(args.gold)
    result = scorer.score(gold, {p["id"]: p for p in preds})
    for key, val in result.items():
        if isinstance(val, dict):
            print(f"{key:24s} P={val['p']:.3f} R={val['r']:.3f} F1={val['f1']:.3f}  "
                  f"(tp={val['tp']} fp={val['fp']} fn={val['fn']})")
        else:
            print(f"{key:24s} {val}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
