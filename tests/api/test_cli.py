"""The `paperkg` command as a user runs it: real processes, real files, the bad-input battery."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES

GOOD = [
    {"id": "good-1", "collection": "C",
     "abstract": "We propose GRPO-X, which improves GRPO on MATH500 and GSM8K."},
    {"id": "good-2", "collection": "C",
     "abstract": "We fine-tune Qwen3-8B with LoRA and evaluate on CIFAR-10."},
    {"id": "good-3", "abstract": "Proximal Policy Optimization (PPO) is compared with DQN on Atari 2600."},
]


def paperkg(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERKG_")}
    proc = subprocess.run(
        [sys.executable, "-m", "paperkg.api.cli", *args],
        input=stdin, capture_output=True, env=env, timeout=300,
    )
    return subprocess.CompletedProcess(proc.args, proc.returncode,
                                       proc.stdout.decode("utf-8", "replace"),
                                       proc.stderr.decode("utf-8", "replace"))


def stats(store: Path) -> dict:
    proc = paperkg("stats", "--store", str(store), "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps(r) + "\n" for r in GOOD), encoding="utf-8")
    path = tmp_path / "store"
    proc = paperkg("build", str(good), "--store", str(path), "--mode", "rules")
    assert proc.returncode == 0, proc.stderr
    assert stats(path)["nodes"]["Paper"] == 3
    return path


def _jsonl(*lines: str) -> bytes:
    return "\n".join(lines).encode("utf-8") + b"\n"


BIG = "Transformers. " * 150_000  # ~2.1 MB on one line, beyond spaCy's max_length

# name, file name, bytes, expected exit code, papers added, a word stderr must carry
BATTERY = [
    ("empty", "empty.txt", b"", 0, 0, "no abstracts"),
    ("binary", "blob.txt", bytes(range(256)) * 64, 65, 0, "blob.txt"),
    ("invalid utf-8", "latin.txt", "Coll\nWe train BERT on ImageNet caf\xe9.\n".encode("latin-1"), 0, 1,
     "latin.txt"),
    ("huge line", "huge.txt", f"Coll\n{BIG}\n".encode(), 0, 1, "characters"),
    ("jsonl junk", "mixed.jsonl",
     _jsonl(json.dumps({"id": "j1", "abstract": "We evaluate PPO on D4RL."}), "{not json",
            json.dumps({"id": "j2", "title": "no abstract"}), "[1, 2]",
            json.dumps({"id": "j3", "abstract": "DQN is evaluated on Atari 2600."})),
     65, 2, ":3"),
    ("lone surrogate", "sur.jsonl",
     _jsonl('{"id": "s1", "abstract": "bad \\ud800 text"}',
            json.dumps({"id": "s2", "abstract": "Fine text on MMLU."})),
     65, 1, "sur.jsonl"),
    ("broken csv", "broken.csv", b"id,title\n1,no abstract column\n", 65, 0, "abstract"),
]


@pytest.mark.parametrize(("name", "filename", "data", "code", "added", "needle"), BATTERY,
                         ids=[b[0] for b in BATTERY])
def test_bad_input_never_hurts(store: Path, tmp_path: Path, name: str, filename: str, data: bytes,
                               code: int, added: int, needle: str) -> None:
    before = stats(store)
    bad = tmp_path / filename
    bad.write_bytes(data)
    proc = paperkg("build", str(bad), "--store", str(store), "--mode", "rules")
    assert "Traceback" not in proc.stderr
    assert proc.returncode == code, proc.stderr
    assert needle in proc.stderr
    after = stats(store)
    assert after["nodes"]["Paper"] == before["nodes"]["Paper"] + added
    for label, count in before["nodes"].items():
        assert after["nodes"][label] >= count


def test_missing_path_exits_66_and_adds_nothing(store: Path, tmp_path: Path) -> None:
    before = stats(store)
    good = tmp_path / "more.jsonl"
    good.write_text(json.dumps({"abstract": "We evaluate PPO on D4RL."}) + "\n", encoding="utf-8")
    proc = paperkg("build", str(good), str(tmp_path / "nope.txt"), "--store", str(store), "--mode", "rules")
    assert proc.returncode == 66
    assert "nope.txt" in proc.stderr and "Traceback" not in proc.stderr
    assert stats(store) == before


def test_directory_mixing_good_and_bad_files(store: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a.txt").write_text("Coll\nWe apply LoRA to BERT.\n", encoding="utf-8")
    gz = gzip.compress(_jsonl(json.dumps({"abstract": "GPT-4o on MMLU."}), "junk"))
    (folder / "b.jsonl.gz").write_bytes(gz)
    (folder / "c.txt").write_bytes(b"\x00\x01\x02" * 100)
    proc = paperkg("build", str(folder), "--store", str(store), "--mode", "rules")
    assert proc.returncode == 65 and "Traceback" not in proc.stderr
    assert "c.txt" in proc.stderr and "b.jsonl.gz" in proc.stderr
    assert stats(store)["nodes"]["Paper"] == 5


def test_stdin_and_usage_errors(store: Path) -> None:
    proc = paperkg("build", "-", "--store", str(store), "--mode", "rules",
                   stdin=_jsonl(json.dumps({"abstract": "We study RLHF."})))
    assert proc.returncode == 0, proc.stderr
    assert stats(store)["nodes"]["Paper"] == 4
    assert paperkg("build").returncode == 2
    assert paperkg("frobnicate").returncode == 2
    assert paperkg("stats", "--store", str(store / "nope")).returncode == 66


def test_extract_writes_one_scored_line_per_abstract(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    proc = paperkg("extract", str(EXAMPLES / "000_91c4798dcbac22c9.txt"), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 19
    source = (EXAMPLES / "000_91c4798dcbac22c9.txt").read_text(encoding="utf-8")
    texts = [line.strip() for line in source.splitlines() if line.strip()][1:]
    for record, text in zip(lines, texts, strict=True):
        assert set(record) == {"id", "entities", "aliases", "relations", "results"}
        for ent in record["entities"]:
            assert text[ent["start"]:ent["end"]] == ent["text"]
            assert ent["type"] in {"Method", "Model", "Dataset", "Benchmark", "Metric", "Task"}
        for res in record["results"]:   # the results gold's shape, the value as written
            assert text[res["start"]:res["end"]] == res["value"]
            assert res["kind"] in {"absolute", "delta", "ratio"}


def test_extract_html_writes_one_escaped_page_of_every_abstract(tmp_path: Path) -> None:
    """`extract --html OUT`: displaCy's span view of every abstract on one page; the abstracts are
    anyone's text, so markup in them is shown as text and the page runs no script."""
    records = [*GOOD, {"id": "<i>p4</i>", "abstract": "We evaluate <script>alert(1)</script> ResNet-50 "
                                                      "on ImageNet & CIFAR-10 <img src=x onerror=alert(2)>."}]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "view.html"
    proc = paperkg("extract", str(source), "--html", str(out), "--mode", "rules")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and f"wrote 4 abstracts with their entities to {out}" in proc.stderr
    page = out.read_text(encoding="utf-8")
    assert page.count("<!DOCTYPE html>") == 1 and page.count("<figure") == 4
    assert "<script" not in page and "<img" not in page and "<i>" not in page
    assert "&lt;i&gt;p4&lt;/i&gt;" in page and "&amp;" in page
    assert re.search(r"&lt;\s*img src", page) and re.search(r"&lt;\s*script\s*&gt;", page)   # shown as text
    jsonl = tmp_path / "out.jsonl"
    both = paperkg("extract", str(source), "--html", str(out), "-o", str(jsonl), "--mode", "rules")
    lines = jsonl.read_text(encoding="utf-8").splitlines()
    entities = [e for line in lines for e in json.loads(line)["entities"]]
    assert {"ImageNet", "Atari 2600"} <= {e["text"] for e in entities}
    import spacy

    from paperkg.extract.tokenizer import customize_tokenizer

    tokenizer = spacy.blank("en")
    customize_tokenizer(tokenizer)
    for entity in entities:      # every entity marked (its first token in a span), with its type as label
        first = tokenizer.make_doc(entity["text"])[0].text
        assert re.search(rf">\s*{re.escape(first)}\s*<span", page) and f"{entity['type']}\n" in page, entity
    assert both.returncode == 0 and len(jsonl.read_text(encoding="utf-8").splitlines()) == 4


def test_export_gexf_on_the_built_store(store: Path, tmp_path: Path) -> None:
    import networkx as nx

    out = tmp_path / "g.gexf"
    proc = paperkg("export", "gexf", str(out), "--store", str(store))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and "wrote" in proc.stderr
    graph = nx.read_gexf(out)
    assert graph.graph["mode"] == "dynamic"
    assert graph.number_of_nodes() == sum(stats(store)["nodes"].values())
    piped = paperkg("export", "gexf", "-", "--store", str(store))
    assert piped.returncode == 0 and piped.stdout == out.read_text(encoding="utf-8")


def test_stats_and_export_on_the_built_store(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "g.graphml"
    proc = paperkg("export", "graphml", str(out), "--store", str(store))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    import networkx as nx

    graph = nx.read_graphml(out)
    assert graph.number_of_nodes() == sum(stats(store)["nodes"].values())
