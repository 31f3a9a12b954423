"""The build pipeline re-extracts exactly the papers whose stored extraction another extractor made."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from paperkg.api.build import build
from paperkg.extract import version
from paperkg.extract.version import extractor_fingerprint
from paperkg.graph.corpus import text_key
from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.state import DB_FILE
from tests.conftest import EXAMPLES

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
    summary = build([str(corpus_file)], store_dir, _fatal, mode=mode)
    return EmbeddedStore(store_dir), summary


def test_fingerprint_names_the_mode_and_version_and_is_stable() -> None:
    fp = extractor_fingerprint("rules")
    assert fp.startswith(f"rules:{version.EXTRACTOR_VERSIONS['rules']}:")
    assert fp == extractor_fingerprint("rules")
    assert extractor_fingerprint("default").startswith(f"default:{version.EXTRACTOR_VERSIONS['default']}:")
    assert fp != extractor_fingerprint("default")


def test_extractions_carry_the_fingerprint_and_a_rebuild_extracts_nothing(
        tmp_path: Path, corpus_file: Path) -> None:
    store, first = _build(tmp_path / "s", corpus_file, "rules")
    assert (first.extracted, first.reextracted) == (2, 0)
    assert {e.extraction.extractor for e in store.state.corpus()} == {extractor_fingerprint("rules")}
    _, again = _build(tmp_path / "s", corpus_file, "rules")
    assert (again.extracted, again.reextracted, again.saved) == (0, 0, False)


def test_another_mode_re_extracts_every_paper(tmp_path: Path, corpus_file: Path) -> None:
    _build(tmp_path / "s", corpus_file, "rules")
    store, summary = _build(tmp_path / "s", corpus_file, "default")
    assert (summary.extracted, summary.reextracted, summary.saved) == (2, 2, True)
    assert {e.extraction.extractor for e in store.state.corpus()} == {extractor_fingerprint("default")}


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


@pytest.mark.parametrize(("bumped", "reextracted"), [("rules", 2), ("default", 0)])
def test_a_bumped_version_re_extracts_that_modes_extractions_only(
        tmp_path: Path, corpus_file: Path, monkeypatch: pytest.MonkeyPatch, bumped: str, reextracted: int
) -> None:
    _build(tmp_path / "s", corpus_file, "rules")
    monkeypatch.setitem(version.EXTRACTOR_VERSIONS, bumped, version.EXTRACTOR_VERSIONS[bumped] + "-next")
    version.extractor_fingerprint.cache_clear()
    try:
        _, summary = _build(tmp_path / "s", corpus_file, "rules")
    finally:
        version.extractor_fingerprint.cache_clear()
    assert (summary.extracted, summary.reextracted) == (reextracted, reextracted)


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


# ---- concurrent builds and removal, through the real CLI ------------------------------------------

def _paperkg(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "paperkg.api.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _graph_snapshot(store: EmbeddedStore) -> tuple[dict, dict]:
    graph = store.graph()
    return ({k: (n.label, n.props) for k, n in graph.nodes.items()},
            {k: (e.type, e.source, e.target, e.props) for k, e in graph.edges.items()})


def test_two_concurrent_builds_of_two_halves_lose_nothing(tmp_path: Path, seed_store: EmbeddedStore) -> None:
    files = sorted(str(p) for p in EXAMPLES.glob("*.txt"))
    store = str(tmp_path / "store")
    procs = [_paperkg("build", *half, "--store", store) for half in (files[:2], files[2:])]
    results = [proc.communicate(timeout=600) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], results
    assert sum("waiting for another build of" in err for _, err in results) == 1
    built = EmbeddedStore(Path(store))
    assert built.stats()["nodes"]["Paper"] == 250
    assert _graph_snapshot(built) == _graph_snapshot(seed_store)


def test_removing_papers_equals_building_without_them(tmp_path: Path, seed_store: EmbeddedStore) -> None:
    entries = list(seed_store.state.corpus())
    gone = entries[::25][:10]
    assert len(gone) == 10
    gone_keys = {e.key for e in gone}
    store = tmp_path / "store"
    store.mkdir()
    with seed_store.state.snapshot() as db, sqlite3.connect(store / DB_FILE) as copy:
        db.backup(copy)
    # one id per paper (a paper merged from several records is named by any of them)
    proc = _paperkg("remove", *[e.ids[-1] for e in gone], "--store", str(store))
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "removed 10 papers, 240 papers" in out

    inputs = tmp_path / "inputs"
    inputs.mkdir()
    for path in EXAMPLES.glob("*.txt"):
        lines = path.read_text(encoding="utf-8").splitlines()
        kept = [lines[0], *(line for line in lines[1:]
                            if not line.strip() or text_key(line) not in gone_keys)]
        (inputs / path.name).write_text("\n".join(kept) + "\n", encoding="utf-8")
    fresh = tmp_path / "fresh"
    build([str(inputs)], fresh, _fatal)

    outputs = []
    for path in (store, fresh):
        stats = _paperkg("stats", "--json", "--store", str(path)).communicate(timeout=120)[0]
        proc = _paperkg("export", "graphml", str(path / "g.graphml"), "--store", str(path))
        assert proc.wait(timeout=120) == 0
        outputs.append((json.loads(stats), (path / "g.graphml").read_bytes()))
    assert outputs[0][0]["nodes"]["Paper"] == 240
    assert outputs[0] == outputs[1]


def test_removing_an_unknown_id_removes_nothing(tmp_path: Path, corpus_file: Path) -> None:
    store, _ = _build(tmp_path / "s", corpus_file, "rules")
    before = _graph_snapshot(store)
    known = store.state.corpus().papers.popitem()[1].id
    proc = _paperkg("remove", known, "no-such-paper", "--store", str(tmp_path / "s"))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 66 and "no-such-paper" in err and "nothing was removed" in err
    assert _graph_snapshot(EmbeddedStore(tmp_path / "s")) == before


def test_papers_a_migration_marks_are_derived_again_not_extracted(tmp_path: Path) -> None:
    """A migration marks papers to be derived again (`pending_derive`); their extractions still hold.
    An arXiv abstract writing LaTeX spacing (`fine-tuning~(SFT)`) is extracted from its spaced text,
    which once read as another text: 0.7% of real abstracts were extracted again by every migration."""
    corpus = tmp_path / "tex.txt"
    corpus.write_text("Small collection\n\nWe apply supervised fine-tuning~(SFT) and GRPO\\,(a policy "
                      "method) to Qwen2.5-7B on MATH500.\n\n" + TEXTS[1] + "\n", encoding="utf-8")
    _, first = _build(tmp_path / "s", corpus, "rules")
    assert first.extracted == 2
    with sqlite3.connect(tmp_path / "s" / DB_FILE) as db:
        db.execute("INSERT INTO pending_derive (paper) SELECT key FROM papers")
        extractions = sorted(db.execute("SELECT key, extraction FROM papers"))
        assert any("fine-tuning (SFT)" in text for _, text in extractions)
    _, again = _build(tmp_path / "s", corpus, "rules")
    assert (again.extracted, again.reextracted) == (0, 0)
    with sqlite3.connect(tmp_path / "s" / DB_FILE) as db:
        assert sorted(db.execute("SELECT key, extraction FROM papers")) == extractions
        assert db.execute("SELECT count(*) FROM pending_derive").fetchone()[0] == 0
