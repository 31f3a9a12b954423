"""Build what the learned components take from outside the gold, into `training/derived/`, once.

    python -m paperkg.extract.training.representations \
        --corpus ../shared/data/arxiv_large/abstracts.jsonl.gz --external ../shared/data/external

- `clusters.tsv`: word classes (`clusters.py`) learned from `--abstracts` abstracts drawn at random
  from the corpus (default 40,000 of the 209,043: PMI + SVD + k-means over the whole corpus would
  need a 4000-context co-occurrence matrix of ~120k words, and 40k abstracts already give stable
  classes for the 32k words seen four times);
- `unlabelled.jsonl.gz`: the abstracts self-training reads (`--unlabelled`, default 5,000, drawn
  with another seed), so retraining needs no corpus;
- `lexicon.tsv`: the outside name lists' kinds per lower-cased name (`train_mentions.external_lexicon`:
  PwC tasks, data sets, metrics, model names, CSO topics; licences in `extract/data/README.md`).

Deterministic (fixed seeds): the same inputs give the same files, and `python -m paperkg.extract.training`
reads them, so training from a clone reproduces the shipped models.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
import time
from pathlib import Path

from paperkg.extract.training import clusters, data

DERIVED = Path(__file__).resolve().parent / "derived"
CLUSTERS_FILE, UNLABELLED_FILE, LEXICON_FILE = "clusters.tsv", "unlabelled.jsonl.gz", "lexicon.tsv"

EXT_TYPES = {"Benchmark(dataset[+split])": "Data", "Dataset": "Data", "Metric": "Metric", "Model": "Model",
             "Model(citation stripped)": "Model", "Task": "Task", "CSO_topic": "CSO"}


def external_lexicon(external: Path) -> dict[str, str]:
    """Lower-cased names of the outside lists -> their kinds (`|`-joined), from the combined gazetteer."""
    out: dict[str, set[str]] = {}
    path = external / "gazetteer_combined" / "gazetteer_combined_derived.tsv"
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            kind = EXT_TYPES.get(row["type"])
            name = row["name"].strip().lower()
            if kind and 2 < len(name) <= 60:
                out.setdefault(name, set()).add(kind)
    return {k: "|".join(sorted(v)) for k, v in sorted(out.items())}


def write_map(path: Path, mapping: dict[str, str]) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        fh.writelines(f"{k}\t{v}\n" for k, v in sorted(mapping.items()))


def read_map(path: Path) -> dict[str, str]:
    with path.open(encoding="utf-8") as fh:
        return dict(line.rstrip("\n").split("\t", 1) for line in fh if line.strip())


def load_clusters(derived: Path = DERIVED) -> dict[str, str]:
    return read_map(derived / CLUSTERS_FILE)


def load_lexicon(derived: Path = DERIVED) -> dict[str, str]:
    return read_map(derived / LEXICON_FILE)


def load_unlabelled(n: int, derived: Path = DERIVED) -> list[str]:
    """The first `n` of the shipped unlabelled abstracts (already a random draw from the corpus)."""
    with gzip.open(derived / UNLABELLED_FILE, "rt", encoding="utf-8") as fh:
        texts = [json.loads(line)["abstract"] for line in fh if line.strip()]
    if n > len(texts):
        raise SystemExit(f"self-training asks for {n} unlabelled abstracts; {derived / UNLABELLED_FILE} "
                         f"holds {len(texts)}: rebuild it with `python -m paperkg.extract.training."
                         f"representations --unlabelled {n}`")
    return texts[:n]


def build(corpus: Path, external: Path, out: Path = DERIVED, *, abstracts: int = clusters.CORPUS_ABSTRACTS,
          unlabelled: int = 5000, seed: int = 13) -> dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    texts = data.sample_abstracts(corpus, abstracts, seed)
    write_map(out / CLUSTERS_FILE, clusters.word_clusters(clusters.tokens_of(texts), seed))
    sample = data.sample_abstracts(corpus, unlabelled, seed + 1)
    # mtime 0: the same abstracts give the same bytes
    with out.joinpath(UNLABELLED_FILE).open("wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write("".join(json.dumps({"abstract": t}, ensure_ascii=False) + "\n" for t in sample).encode())
    lexicon = external_lexicon(external)
    write_map(out / LEXICON_FILE, lexicon)
    return {"cluster_abstracts": len(texts), "unlabelled": len(sample), "lexicon_names": len(lexicon)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="JSON Lines (.gz or not) with an `abstract` field")
    parser.add_argument("--external", required=True, help="the outside name lists' folder")
    parser.add_argument("--out", default=str(DERIVED))
    parser.add_argument("--abstracts", type=int, default=clusters.CORPUS_ABSTRACTS)
    parser.add_argument("--unlabelled", type=int, default=5000)
    args = parser.parse_args(argv)
    started = time.time()
    counts = build(Path(args.corpus), Path(args.external), Path(args.out), abstracts=args.abstracts,
                   unlabelled=args.unlabelled)
    print(f"built {args.out} in {time.time() - started:.0f}s: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
