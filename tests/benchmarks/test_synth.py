"""The synthetic corpus generator (`benchmarks/synth.py`): reproducible, well-formed, and with a name
vocabulary that keeps growing with N (the reason it exists instead of repeating the seeds).

No timing assertions: speed is the benchmark's business, not the test suite's.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYNTH_PATH = ROOT / "benchmarks" / "synth.py"


def _load_synth() -> ModuleType:
    """Load by path: `benchmarks/` is a folder of scripts, not an installed package."""
    spec = importlib.util.spec_from_file_location("paperkg_bench_synth", SYNTH_PATH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


synth = _load_synth()

# A token that looks like a name (capital then a capital or digit somewhere): GRPO, Qwen3-8B, CIFAR-10.
NAME_RE = re.compile(r"(?<![\w-])[A-Z][A-Za-z]*[A-Z0-9][\w.\-]*")


@pytest.fixture(scope="module")
def big() -> tuple[list[dict[str, str]], object]:
    """2,000 records and the generator that made them (shared: generation is the slow part)."""
    corpus = synth.SyntheticCorpus(seed=0)
    return list(corpus.records(2000)), corpus


@pytest.fixture(scope="module")
def small() -> tuple[list[dict[str, str]], object]:
    corpus = synth.SyntheticCorpus(seed=0)
    return list(corpus.records(200)), corpus


def test_same_seed_same_output_and_other_seed_differs() -> None:
    assert list(synth.generate(150, seed=3)) == list(synth.generate(150, seed=3))
    assert list(synth.generate(150, seed=3)) != list(synth.generate(150, seed=4))


def test_output_independent_of_hash_seed(tmp_path: Path) -> None:
    """Set iteration order changes with PYTHONHASHSEED; the corpus must not."""
    out = tmp_path / "c.jsonl"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, str(SYNTH_PATH), "120", "-o", str(out), "--seed", "7"],
                   check=True, env=env, capture_output=True)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == list(synth.generate(120, seed=7))


def test_prefix_stable(small: tuple, big: tuple) -> None:
    """N=200 is the first 200 records of N=2000: growing N only appends."""
    assert small[0] == big[0][:200]


def test_n_records_with_unique_ids_and_texts(big: tuple) -> None:
    records, _ = big
    assert len(records) == 2000
    assert all(set(r) == {"id", "abstract", "collection"} for r in records)
    assert len({r["id"] for r in records}) == 2000
    assert len({r["abstract"] for r in records}) == 2000  # no record folds into another as a duplicate
    seeds = {c for c, _ in synth.read_seed_abstracts()}
    assert {r["collection"] for r in records} <= seeds
    assert list(synth.generate(0)) == []
    assert len(list(synth.generate(7))) == 7


def test_abstracts_realistic_length_and_shape(big: tuple) -> None:
    records, _ = big
    lengths = [len(r["abstract"]) for r in records]
    assert 1000 <= statistics.mean(lengths) <= 1800  # the seeds average ~1,330 characters
    assert min(lengths) >= 200
    assert max(lengths) < 10_000
    for r in records:
        text = r["abstract"]
        assert text == text.strip() and "\n" not in text and "  " not in text
        assert text[0].isupper() or text[0].isdigit() or text.split(" ")[0] in synth._SEED_DATA  # iNaturalist
        assert 5 <= len(synth.split_sentences(text)) <= 10


def test_distinct_names_grow_with_n(small: tuple, big: tuple) -> None:
    (small_records, small_gen), (big_records, big_gen) = small, big
    small_stats, big_stats = small_gen.stats(), big_gen.stats()
    for kind in synth.KINDS:
        assert big_stats[kind]["distinct"] > small_stats[kind]["distinct"]
    total_small = sum(v["distinct"] for v in small_stats.values())
    total_big = sum(v["distinct"] for v in big_stats.values())
    # Heaps-like growth: 10x the records gives about 10^0.6 ~ 4x the names; far more than the seeds'.
    assert 2.5 * total_small <= total_big <= 8 * total_small
    assert sum(v["minted"] for v in big_stats.values()) > 500

    def distinct_tokens(records: list[dict[str, str]]) -> int:
        return len({t for r in records for t in NAME_RE.findall(r["abstract"])})

    # The same, seen from the text alone rather than from the generator's own count.
    assert distinct_tokens(big_records) >= 2.5 * distinct_tokens(small_records)


def test_minted_names_look_real_and_appear_in_text(big: tuple) -> None:
    records, corpus = big
    text = "\n".join(r["abstract"] for r in records)
    seeds = {k: set(v) for k, v in corpus.model.seed_names.items()}
    minted = {k: [n for n in v.names if n.name not in seeds[k]] for k, v in corpus.vocabulary.items()}
    assert all(minted.values())
    for kind, names in minted.items():
        assert len({synth._fold(n.name) for n in names}) == len(names), f"{kind}: names collide"
        for n in names[:200]:
            assert n.name in text
            assert re.fullmatch(r"[A-Z][\w.+\-]*", n.name), n.name
    assert all(re.fullmatch(r"[A-Za-z]+-?\d+(\.\d+)?(-\d+(\.\d+)?[BM](-[A-Za-z]+)?)?", n.name)
               for n in minted["model"])
    acronyms = [n for n in minted["method"] if n.long_form]
    assert acronyms and all(n.name[0] == n.long_form[0] for n in acronyms)
    # Some minted methods are introduced with their long form, as real abstracts do.
    defined = [n for n in acronyms if f"{n.long_form} ({n.name})" in text]
    assert len(defined) >= 20


def test_seed_sentence_names_become_slots() -> None:
    kinds: dict[str, str] = {}
    long_forms: dict[str, str] = {}
    template = synth.make_template(
        "We propose Group Relative Policy Optimization (GRPO) and train Qwen3-8B on MATH500 with RL.",
        kinds, long_forms)
    slots = [p for p in template if isinstance(p, synth.Slot)]
    assert [(s.kind, s.key, s.define) for s in slots] == [
        ("method", "GRPO", True), ("model", "Qwen3-8B", False), ("data", "MATH500", False)]
    assert long_forms == {"GRPO": "Group Relative Policy Optimization"}
    assert template[0] == "We propose " and template[-1].endswith(" with RL.")  # RL: a generic kind
    for generic in ("LLMs", "RL", "DP", "Multi-Agent", "RL-based", "KE17"):
        assert synth.classify(generic) is None


def test_cli_gzip_is_byte_reproducible(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    assert synth.main(["60", "-o", str(a)]) == 0
    assert synth.main(["60", "-o", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()
    with gzip.open(a, "rt", encoding="utf-8") as fh:
        assert [json.loads(line) for line in fh] == list(synth.generate(60))
