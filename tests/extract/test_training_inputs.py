"""Training needs nothing outside the repository: the gold, the scorer and the representations built
from the large corpus are here (`extract/training/gold`, `extract/training/derived`), and the command
that builds the representations gives the same bytes twice."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from paperkg.extract.training import cv, representations
from paperkg.extract.training.evaluate import load_scorer

ROOT = Path(__file__).resolve().parents[2]


def test_the_training_gold_and_representations_ship_with_the_repository() -> None:
    records = cv.training_records()
    assert len(records) == 5460
    assert {r["collection"] for r in records} == {"seed", "arxiv", "arxiv3", "arxiv4"}
    assert {len(v) for v in cv.dev_records().values()} == {34, 40}
    dev_ids = {r["id"] for recs in cv.dev_records().values() for r in recs}
    assert not dev_ids & {r["id"] for r in records}           # never trained on
    gold = records[0]
    assert load_scorer().score({gold["id"]: gold}, {gold["id"]: gold})["entities.typed"]["f1"] == 1.0
    assert len(representations.load_clusters()) > 20_000
    assert len(representations.load_lexicon()) > 20_000
    assert len(representations.load_unlabelled(1000)) == 1000


def test_representations_are_rebuilt_byte_for_byte(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl.gz"
    with gzip.open(corpus, "wt", encoding="utf-8") as fh:
        for line in (ROOT / "examples" / "arxiv" / "abstracts.jsonl").open(encoding="utf-8"):
            fh.write(json.dumps({"abstract": json.loads(line)["abstract"]}) + "\n")
    external = tmp_path / "external" / "gazetteer_combined"
    external.mkdir(parents=True)
    (external / "gazetteer_combined_derived.tsv").write_text(
        "name\ttype\tn_sources\tsource_files\nImageNet\tDataset\t1\tx\nBLEU\tMetric\t1\tx\n"
        "image classification\tTask\t2\tx|y\nImageNet\tBenchmark(dataset[+split])\t1\tx\n", encoding="utf-8")
    runs = []
    for n in (1, 2):
        out = tmp_path / f"run{n}"
        representations.build(corpus, tmp_path / "external", out, abstracts=300, unlabelled=40)
        runs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert runs[0] == runs[1]
    assert set(runs[0]) == {"clusters.tsv", "lexicon.tsv", "unlabelled.jsonl.gz"}
    lexicon = representations.load_lexicon(tmp_path / "run1")
    assert lexicon == {"bleu": "Metric", "image classification": "Task", "imagenet": "Data"}
