"""The build job re-extracts exactly the papers whose stored extraction another extractor made."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from paperkg.extract import version
from paperkg.extract.ingest import ingest
from paperkg.extract.version import extractor_fingerprint
from paperkg.graph.embedded import EmbeddedStore

TEXTS = [
    "We propose Group Relative Policy Optimization (GRPO) and evaluate it on MATH500.",
    "Our method outperforms PPO on D4RL and is compared with DQN on Atari.",
]


def _fatal(problem: object) -> None:
    raise AssertionError(str(problem))


@pytest.fixture
def corpus_file(tmp_path: Path) -> Path:
    path = tmp_path / "small.txt"
    path.write_text("Small collection\n\n" + "\n\n".join(TEXTS) + "\n", encoding="utf-8")
    return path


def _build(store_dir: Path, corpus_file: Path, mode: str) -> tuple[EmbeddedStore, object]:
    store = EmbeddedStore(store_dir, create=True)
    summary = ingest([str(corpus_file)], store, _fatal, mode=mode)
    return EmbeddedStore(store_dir), summary


def test_fingerprint_names_the_mode_and_is_stable() -> None:
    fp = extractor_fingerprint("rules")
    assert fp.startswith("rules:") and fp == extractor_fingerprint("rules")
    assert fp != extractor_fingerprint("default")


def test_extractions_carry_the_fingerprint_and_a_rebuild_extracts_nothing(
        tmp_path: Path, corpus_file: Path) -> None:
    store, first = _build(tmp_path / "s", corpus_file, "rules")
    assert (first.extracted, first.reextracted) == (2, 0)
    assert {e.extraction.extractor for e in store.load_corpus()} == {extractor_fingerprint("rules")}
    _, again = _build(tmp_path / "s", corpus_file, "rules")
    assert (again.extracted, again.reextracted, again.saved) == (0, 0, False)


def test_another_mode_re_extracts_every_paper(tmp_path: Path, corpus_file: Path) -> None:
    _build(tmp_path / "s", corpus_file, "rules")
    store, summary = _build(tmp_path / "s", corpus_file, "default")
    assert (summary.extracted, summary.reextracted, summary.saved) == (2, 2, True)
    assert {e.extraction.extractor for e in store.load_corpus()} == {extractor_fingerprint("default")}


def test_a_changed_extractor_re_extracts_old_extractions(
        tmp_path: Path, corpus_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stand-in for an upgrade: a copy of the package whose gazetteer gained a line."""
    _build(tmp_path / "s", corpus_file, "rules")
    package = tmp_path / "extract"
    shutil.copytree(version.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    with (package / "data" / "gazetteer.tsv").open("a", encoding="utf-8") as fh:
        fh.write("\n")
    monkeypatch.setattr(version, "PACKAGE_DIR", package)
    version.extractor_fingerprint.cache_clear()
    try:
        _, summary = _build(tmp_path / "s", corpus_file, "rules")
    finally:
        version.extractor_fingerprint.cache_clear()
    assert (summary.extracted, summary.reextracted) == (2, 2)
