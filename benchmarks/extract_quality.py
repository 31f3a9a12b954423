"""Extraction quality and speed: score.py tables on gold dev and on SciERC test, plus throughput.

usage: python benchmarks/extract_quality.py [--shared ../shared] [--modes default,rules]
                                            [--repeat 40] [--n-process 2] [--skip-speed] [--skip-quality]

Needs the shared folder (gold annotations, SciERC, seed abstracts): `--shared`, or env PAPERKG_SHARED,
default `../shared` relative to the repository root.

- dev: `shared/gold/dev.jsonl`, scored by `shared/gold/score.py`.
- SciERC test (`shared/data/external/scierc/json/test.json`) mapped to our types: Method->Method,
  Task->Task, Metric->Metric, Material->Dataset; Generic and OtherScientificTerm ignored. The abstract
  text is the tokens joined by spaces. SciERC relations have other types, so only entity rows and
  `Dataset` (= Material) are meaningful there; relations are left out of the gold.
- throughput: the seed abstracts (`shared/data/seeds/*.txt`) repeated `--repeat` times, extracted by
  `Extractor(mode, n_process)`, against a bare `spacy.blank("en")` tokenizer pass over the same texts in
  the same run; prints abstracts/s of both and their ratio.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCIERC_MAP = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Dataset"}


def load_scorer(shared: Path):
    spec = importlib.util.spec_from_file_location("paperkg_gold_score", shared / "gold" / "score.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def scierc_gold(path: Path) -> list[dict]:
    """SciERC JSON records as gold records of our format (abstract = tokens joined by spaces)."""
    out = []
    for rec in read_jsonl(path):
        words = [w for sent in rec["sentences"] for w in sent]
        text = " ".join(words)
        ents = {}
        for sent_ner in rec["ner"]:
            for start, end, label in sent_ner:
                etype = SCIERC_MAP.get(label)
                if etype:
                    surface = " ".join(words[start:end + 1])
                    ents[(surface, etype)] = {"text": surface, "type": etype, "introduced": False}
        rid = hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]
        out.append({"id": rid, "abstract": text, "entities": list(ents.values()), "aliases": [],
                    "relations": []})
    return out


def seed_abstracts(seeds_dir: Path) -> list[str]:
    texts = []
    for path in sorted(seeds_dir.glob("*.txt")):
        lines = [ln.strip() for ln in path.read_text(encoding="utf-8-sig").splitlines() if ln.strip()]
        texts.extend(lines[1:])
    return texts


def print_table(title: str, result: dict, keys: list[str] | None = None) -> None:
    print(f"\n## {title}")
    for key, val in result.items():
        if keys is not None and key not in keys:
            continue
        if isinstance(val, dict):
            print(f"{key:24s} P={val['p']:.3f} R={val['r']:.3f} F1={val['f1']:.3f}  "
                  f"(tp={val['tp']} fp={val['fp']} fn={val['fn']})")
        else:
            print(f"{key:24s} {val}")


def quality(mode: str, shared: Path, scorer) -> None:
    from paperkg.extract.pipeline import Extractor

    extractor = Extractor(mode=mode)
    dev = read_jsonl(shared / "gold" / "dev.jsonl")
    preds = {ex.paper_id: ex.to_json() for ex in extractor.extract((r["id"], r["abstract"]) for r in dev)}
    result = scorer.score({r["id"]: r for r in dev}, preds)
    print_table(f"dev.jsonl, mode={mode} ({len(dev)} abstracts)", result)
    sci = scierc_gold(shared / "data" / "external" / "scierc" / "json" / "test.json")
    preds = {ex.paper_id: ex.to_json() for ex in extractor.extract((r["id"], r["abstract"]) for r in sci)}
    # Model and Benchmark predictions have no SciERC counterpart: fold them into Method and Dataset
    for pred in preds.values():
        for ent in pred["entities"]:
            ent["type"] = {"Model": "Method", "Benchmark": "Dataset"}.get(ent["type"], ent["type"])
    keys = ["entities.typed", "entities.untyped", "type.Method", "type.Task", "type.Metric", "type.Dataset",
            "abstracts"]
    print_table(f"SciERC test mapped (Model->Method, Benchmark->Dataset in predictions), mode={mode}",
                scorer.score({r["id"]: r for r in sci}, preds), keys)


def throughput(modes: list[str], shared: Path, repeat: int, n_process: int) -> None:
    import spacy

    from paperkg.extract.pipeline import Extractor

    texts = seed_abstracts(shared / "data" / "seeds") * repeat
    n = len(texts)
    blank = spacy.blank("en")
    started = time.perf_counter()
    for _doc in blank.pipe(texts, batch_size=256):
        pass
    bare = n / (time.perf_counter() - started)
    print(f"\n## throughput on seeds x{repeat} ({n} abstracts), n_process={n_process}")
    print(f"bare spacy.blank('en') tokenizer: {bare:,.0f} abstracts/s")
    for mode in modes:
        extractor = Extractor(mode=mode, n_process=n_process, batch_size=64)
        started = time.perf_counter()
        count = sum(1 for _ in extractor.extract((str(i), t) for i, t in enumerate(texts)))
        rate = count / (time.perf_counter() - started)
        print(f"Extractor mode={mode:8s}: {rate:,.0f} abstracts/s  ratio {rate / bare:.4f} "
              f"(target >= 0.012)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=os.environ.get("PAPERKG_SHARED", str(REPO.parent / "shared")))
    parser.add_argument("--modes", default="default,rules")
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--n-process", type=int, default=2)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-quality", action="store_true")
    args = parser.parse_args(argv)
    shared = Path(args.shared)
    if not (shared / "gold" / "score.py").exists():
        sys.exit(f"shared folder not found at {shared} (pass --shared or set PAPERKG_SHARED)")
    modes = [m for m in args.modes.split(",") if m]
    if not args.skip_quality:
        scorer = load_scorer(shared)
        for mode in modes:
            quality(mode, shared, scorer)
    if not args.skip_speed:
        throughput(modes, shared, args.repeat, args.n_process)


if __name__ == "__main__":
    main()
