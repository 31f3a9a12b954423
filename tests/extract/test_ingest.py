"""The build job re-extracts exactly the papers whose stored extraction another extractor made."""

from __future__ import annotations

import json
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


def test_fingerprint_names_the_mode_and_version_and_is_stable() -> None:
    fp = extractor_fingerprint("rules")
    assert fp.startswith(f"rules:{version.EXTRACTOR_VERSION}:") and fp == extractor_fingerprint("rules")
    assert extractor_fingerprint("default").startswith(f"default:{version.EXTRACTOR_VERSION}:")
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


def _rebuild_with(tmp_path: Path, corpus_file: Path, monkeypatch: pytest.MonkeyPatch, mode: str,
                  change) -> object:
    """Build, then rebuild with a copy of the package that `change(package_dir)` edited."""
    _build(tmp_path / "s", corpus_file, mode)
    package = tmp_path / "extract"
    shutil.copytree(version.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    change(package)
    monkeypatch.setattr(version, "PACKAGE_DIR", package)
    version.extractor_fingerprint.cache_clear()
    try:
        _, summary = _build(tmp_path / "s", corpus_file, mode)
    finally:
        version.extractor_fingerprint.cache_clear()
    return summary


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)


def _move_a_function(package: Path) -> None:
    """A refactor: a comment edited, a helper moved to the end of its module, a comment line in the
    gazetteer."""
    module = package / "resolver.py"
    src = module.read_text(encoding="utf-8").replace("# (rank, start, end", "# (rank, first token, end")
    start = src.index("def _source_of(")
    end = src.index("def collect_candidates(")
    module.write_text(src[:start] + src[end:] + "\n\n" + src[start:end], encoding="utf-8")
    _append(package / "data" / "gazetteer.tsv", "# a comment\n\n")


@pytest.mark.parametrize("mode", ["rules", "default"])
def test_moving_code_or_editing_comments_re_extracts_nothing(
        tmp_path: Path, corpus_file: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    summary = _rebuild_with(tmp_path, corpus_file, monkeypatch, mode, _move_a_function)
    assert (summary.extracted, summary.reextracted, summary.saved) == (0, 0, False)


def test_a_bumped_version_re_extracts_old_extractions(
        tmp_path: Path, corpus_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _build(tmp_path / "s", corpus_file, "rules")
    monkeypatch.setattr(version, "EXTRACTOR_VERSION", version.EXTRACTOR_VERSION + "-next")
    version.extractor_fingerprint.cache_clear()
    try:
        _, summary = _build(tmp_path / "s", corpus_file, "rules")
    finally:
        version.extractor_fingerprint.cache_clear()
    assert (summary.extracted, summary.reextracted) == (2, 2)


def test_a_new_gazetteer_entry_re_extracts_old_extractions(
        tmp_path: Path, corpus_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = _rebuild_with(tmp_path, corpus_file, monkeypatch, "rules",
                            lambda p: _append(p / "data" / "gazetteer.tsv", "FooNet\tMethod\n"))
    assert (summary.extracted, summary.reextracted) == (2, 2)


@pytest.mark.parametrize(("mode", "reextracted"), [("default", 2), ("rules", 0)])
def test_a_retrained_model_re_extracts_default_mode_only(
        tmp_path: Path, corpus_file: Path, monkeypatch: pytest.MonkeyPatch, mode: str,
        reextracted: int) -> None:
    def retrain(package: Path) -> None:
        typer = package / "model" / "relations.json"
        data = json.loads(typer.read_text(encoding="utf-8"))
        bias = data["weights"].get("bias", [0.0] * len(data["labels"]))
        data["weights"]["bias"] = [w + 0.001 for w in bias]
        typer.write_text(json.dumps(data), encoding="utf-8")

    summary = _rebuild_with(tmp_path, corpus_file, monkeypatch, mode, retrain)
    assert summary.reextracted == reextracted
