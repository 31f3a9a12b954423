"""Build `extract/data/gazetteer.tsv` from the hand-curated list and outside name lists.

usage: python -m paperkg.extract.training.build_gazetteer [--shared ../shared]

Inputs (see extract/data/README.md for sources and licences):
- extract/data/curated.tsv (hand-written for paperkg);
- shared/data/external/gazetteer_combined/gazetteer_combined_derived.tsv, restricted to rows that come
  from PwC (CC BY-SA 4.0), NLP-TDMS KB (Apache-2.0) and HF Transformers titles (Apache-2.0).
  CSO rows are not used. Nothing from SciER, SciERC, SciREX or TDMSci annotations.
Output rows: name<TAB>type<TAB>source.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data"

TYPE_MAP = {
    "Benchmark(dataset[+split])": "Dataset",
    "Dataset": "Dataset",
    "Model": "Model",
    "Model(citation stripped)": None,
    "Model(raw leaderboard entry)": None,
    "Metric": "Metric",
    "Task": "Task",
}

# names that appear in the outside lists but are ordinary words or too ambiguous in abstracts
STOP = {
    "test", "overall", "average", "all", "val", "dev", "train", "base", "large", "small", "other", "none",
    "time", "speed", "memory", "params", "parameters", "size", "error", "loss", "score", "rate", "cost",
    "reward", "return", "success", "quality", "performance", "efficiency", "robustness", "diversity",
    "bert", "gpt-4", "clip", "human", "humans", "random", "mean", "median", "std", "total", "top",
    "energy", "power", "latency", "fps", "flops", "gflops", "macs", "runtime", "inference time",
    "learning", "prediction", "classification", "detection", "generation", "reasoning", "inference",
    "optimization", "planning", "control", "retrieval", "segmentation", "estimation", "regression",
    "clustering", "ranking", "recommendation", "translation", "summarization", "tracking", "alignment",
    "representation learning", "machine learning", "deep learning", "reinforcement learning",
    "text", "image", "images", "video", "audio", "speech", "language", "graph", "graphs", "code",
    "math", "data", "dataset", "benchmark", "model", "models", "method", "methods", "task", "tasks",
    "agent", "agents", "policy", "robot", "robots", "game", "games", "search", "sampling", "privacy",
    "fairness", "safety", "security", "attention", "explanation", "uncertainty", "causality",
    "it", "is", "on", "in", "a", "an", "the", "of", "and", "or", "to", "for", "we", "our", "this",
}


def _keep_named(name: str) -> bool:
    """Dataset/benchmark/model names must look like names: a digit, or two capitals, or CamelCase."""
    if len(name) < 3 or len(name) > 40 or len(name.split()) > 4 or "," in name or ";" in name:
        return False
    if name.lower() in STOP:
        return False
    caps = sum(c.isupper() for c in name)
    return caps >= 2 or (any(c.isdigit() for c in name) and caps >= 1)


def _keep_phrase(name: str) -> bool:
    """Task/metric phrases: 2-5 words (or one word shaped like a name), mostly letters, not a stop word."""
    if len(name) < 3 or len(name) > 60 or len(name.split()) > 5 or name.lower() in STOP:
        return False
    if len(re.split(r"[\s\-]+", name)) < 2 and not _keep_named(name):
        return False
    if re.search(r"[(),;:\[\]{}<>|=]", name):
        return False
    return sum(c.isalpha() for c in name) >= 0.7 * len(name)


def _case_fold_title(name: str) -> str:
    """`Semantic Segmentation` -> `semantic segmentation`; words with inner capitals or digits (`3D`,
    `RGB-D`, `ImageNet`) keep their case, so such phrases still match only as written."""
    words = name.split(" ")
    return " ".join(w.lower() if w[:1].isupper() and w[1:] == w[1:].lower() and w.isalpha() else w
                    for w in words)


def build(shared: Path) -> list[tuple[str, str, str]]:
    rows: dict[tuple[str, str], str] = {}
    with (DATA / "curated.tsv").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip() and not line.startswith("#"):
                name, etype = line.rstrip("\n").split("\t")[:2]
                rows[(name, etype)] = "curated"
    curated_lower = {n.lower() for n, _ in rows}
    src = shared / "data/external/gazetteer_combined/gazetteer_combined_derived.tsv"
    with src.open(encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader)
        for name, raw_type, _n, sources in reader:
            etype = TYPE_MAP.get(raw_type)
            if etype is None or ("cso_concepts" in sources and "|" not in sources):
                continue
            if name.lower() in curated_lower:
                continue
            source = "hf" if "hf_transformers" in sources else "pwc" if "pwc_" in sources else "tdms"
            if etype in ("Dataset", "Model"):
                if not _keep_named(name):
                    continue
            elif not _keep_phrase(name):
                continue
            else:
                name = _case_fold_title(name)
                if name.lower() in curated_lower:
                    continue
            if etype == "Metric" and int(_n) < 2:
                continue
            rows.setdefault((name, etype), source)
    return sorted((n, t, s) for (n, t), s in rows.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("PAPERKG_SHARED", str(HERE.parents[1] / ".." / "shared"))
    parser.add_argument("--shared", default=default)
    args = parser.parse_args()
    rows = build(Path(args.shared))
    out = DATA / "gazetteer.tsv"
    with out.open("w", encoding="utf-8") as handle:
        handle.write("# generated by extract/training/build_gazetteer.py; see README.md for sources\n")
        for name, etype, source in rows:
            handle.write(f"{name}\t{etype}\t{source}\n")
    print(f"wrote {len(rows)} names to {out}")


if __name__ == "__main__":
    main()
