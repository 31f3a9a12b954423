"""The SQLite build state: no pickles, one transaction per build, readers on a snapshot, kills."""

from __future__ import annotations

import pickle
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from paperkg.graph import state as state_module
from paperkg.graph.errors import StoreUnavailableError
from paperkg.graph.records import PaperInput
from paperkg.graph.state import DB_FILE, LEGACY_FILE, SCHEMA_VERSION, BuildState
from tests.api.conftest import corpus_of, make_corpus
from tests.graph.golden.schema4.papers import PAPERS
from tests.graph.golden.schema5.papers import PAPERS as PAPERS5
from tests.stores import add_entry, write_corpus

SCHEMA4 = Path(__file__).parent / "golden" / "schema4"
SCHEMA5 = Path(__file__).parent / "golden" / "schema5"
SCHEMA8 = Path(__file__).parent / "golden" / "schema8"
SCHEMA12 = Path(__file__).parent / "golden" / "schema12"
SCHEMA13 = Path(__file__).parent / "golden" / "schema13"
# The stored extractions as a store older than schema 7 held them: schema 7 gives each its (empty)
# results list (tests/graph/test_results.py), nothing else of them changes.
_EXTRACTED_BEFORE_7 = "SELECT key, extractor, json_remove(extraction, '$.results') FROM papers"


def _snapshot(state: BuildState) -> tuple[dict, dict]:
    graph = state.graph()
    return ({k: (n.label, n.props) for k, n in graph.nodes.items()},
            {k: (e.type, e.source, e.target, e.props) for k, e in graph.edges.items()})


def _fresh_snapshot(path: Path, corpus) -> tuple[dict, dict]:
    """The graph a fresh build of `corpus` into a new store at `path` makes."""
    fresh = BuildState(path, create=True)
    with fresh.transaction() as tx:
        for entry in corpus:
            add_entry(tx, entry)
        tx.derive()
    snapshot = _snapshot(fresh)
    fresh.close()
    return snapshot


def _built_again(state: BuildState, path: Path, corpus) -> tuple[dict, dict]:
    """The migrated store's next build with no input: its graph, which must be a fresh build's."""
    with state.transaction() as tx:
        tx.derive()
    new = _snapshot(state)
    state.close()
    assert new == _fresh_snapshot(path / "fresh", corpus)
    return new


def test_every_store_file_is_sqlite_with_a_schema_version(tmp_path: Path) -> None:
    write_corpus(tmp_path, make_corpus()).close()
    for path in tmp_path.iterdir():
        if path.name in ("state.sqlite-wal", "state.sqlite-shm"):   # SQLite's log and its index:
            continue                                                  # a read-only reader leaves them
        assert path.read_bytes()[:16] == b"SQLite format 3\0", path
    state = BuildState(tmp_path)
    with state.snapshot() as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    state.close()


def test_an_old_pickle_store_is_refused_without_loading_it(tmp_path: Path) -> None:
    """A pickle whose loading would run code: the store says how to rebuild and runs nothing."""
    canary = tmp_path / "ran"

    class Trap:
        def __reduce__(self) -> tuple:
            return (Path.touch, (canary,))

    (tmp_path / LEGACY_FILE).write_bytes(pickle.dumps(Trap()))
    with pytest.raises(StoreUnavailableError, match="older paperkg") as err:
        BuildState(tmp_path)
    assert "paperkg build" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(StoreUnavailableError):
        BuildState(tmp_path, create=True)        # a build into it does not mix the two
    assert not canary.exists()


def test_another_schema_version_says_how_to_rebuild(tmp_path: Path) -> None:
    BuildState(tmp_path, create=True).close()
    import sqlite3

    with sqlite3.connect(tmp_path / DB_FILE) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreUnavailableError, match="rebuild it"):
        BuildState(tmp_path)


def _view(path: Path) -> tuple[dict, dict]:
    """The served view's nodes and edges (what `EmbeddedStore` reads lean from the rows)."""
    from paperkg.graph.embedded import EmbeddedStore

    store = EmbeddedStore(path)
    try:
        g = store.networkx()
        return ({n: {k: v for k, v in a.items() if k != "__labels__"} for n, a in g.nodes(data=True)},
                {(u, v, k): {x: y for x, y in d.items() if x != "__labels__"}
                 for u, v, k, d in g.edges(keys=True, data=True)})
    finally:
        store.close()


def test_a_schema_3_store_is_migrated_and_serves_the_same_view(tmp_path: Path) -> None:
    """Schema 3 had no `edges.lean`: the view removed the MENTIONS lists as it read each row."""
    import sqlite3

    write_corpus(tmp_path, make_corpus()).close()
    view = _view(tmp_path)
    paper = next(k for k in view[0] if k.startswith("paper:"))
    state = BuildState(tmp_path)
    whole, details = _snapshot(state), state.paper_details(paper)
    state.close()
    with sqlite3.connect(tmp_path / DB_FILE) as db:     # what schema 3 had (4 -> 5 adds the rest)
        db.execute("ALTER TABLE edges DROP COLUMN lean")
        db.execute("ALTER TABLE local_def DROP COLUMN type")
        db.execute("DROP TABLE pending_derive")
        db.execute("DROP TABLE corrections")              # 6 -> 7 adds it
        db.execute("PRAGMA user_version = 3")
    state = BuildState(tmp_path)
    with state.snapshot() as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("SELECT count(*) FROM edges WHERE type = 'MENTIONS' AND lean IS NULL"
                          ).fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM edges WHERE type != 'MENTIONS' AND lean IS NOT NULL"
                          ).fetchone()[0] == 0
    assert _snapshot(state) == whole and state.paper_details(paper) == details
    state.close()
    assert _view(tmp_path) == view
    assert any("count" in props and "surfaces" not in props for props in view[1].values())


def test_a_schema_4_store_resolves_acronyms_by_type_after_its_next_build(tmp_path: Path) -> None:
    """Schema 4 (a store paperkg 07af58d built, `golden/schema4`) kept every bare `MAE` apart, as
    MAE was defined two ways. Opening it adds the definitions' types without re-extracting, and the
    next build, even with no input, derives the papers of such acronyms again: the graph is then
    the one a fresh build of the same papers makes, the Metric `MAE` joined to mean absolute error."""
    import shutil
    import sqlite3

    shutil.copy(SCHEMA4 / "state.sqlite", tmp_path / DB_FILE)
    with sqlite3.connect(tmp_path / DB_FILE) as db:
        old_nodes = {k for (k,) in db.execute("SELECT key FROM nodes")}
        extracted = sorted(db.execute("SELECT key, extractor, extraction FROM papers"))
    assert "method:mae" in old_nodes              # both bare uses, kept apart as one ambiguous MAE
    state = BuildState(tmp_path)
    with state.snapshot() as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert sorted(db.execute("SELECT long, type FROM local_def")) == [
            ("maskedautoencoder", "Method"), ("meanabsoluteerror", "Metric")]
        assert db.execute("SELECT targets FROM short_key WHERE key = 'mae'").fetchone()[0] == (
            '{"maskedautoencoder":{"Method":1},"meanabsoluteerror":{"Metric":1}}')
        pending = {p for (p,) in db.execute("SELECT paper FROM pending_derive")}
        assert sorted(db.execute(_EXTRACTED_BEFORE_7)) == extracted
    corpus = corpus_of(PAPERS)
    assert pending == set(corpus.papers)          # all four mention MAE
    old = _snapshot(state)
    assert set(old[0]) == old_nodes               # served as it was until a build
    new = _built_again(state, tmp_path, corpus)
    assert "method:mae" not in new[0]
    mentions = {(source, target) for etype, source, target, _ in new[1].values() if etype == "MENTIONS"}
    assert {("paper:m3", "metric:mean-absolute-error"), ("paper:m4", "method:masked-autoencoder")} <= mentions
    with sqlite3.connect(tmp_path / DB_FILE) as db:
        assert db.execute("SELECT count(*) FROM pending_derive").fetchone()[0] == 0


def test_a_schema_5_store_folds_plurals_and_families_after_its_next_build(tmp_path: Path) -> None:
    """Schema 5 (a store paperkg 9d64040 built, `golden/schema5`) kept `attention mechanisms` and
    `attention mechanism`, `VAEs` and `VAE`, `F1-score` and `F1` apart, and counted `GPT` and the
    fragment `4o` in every paper writing `GPT-4o`. Name keys changed in schema 6, so opening it marks
    every paper to be derived again, re-extracting nothing; the next build, even with no input, gives
    the graph a fresh build of the same papers makes."""
    import shutil
    import sqlite3

    shutil.copy(SCHEMA5 / "state.sqlite", tmp_path / DB_FILE)
    with sqlite3.connect(tmp_path / DB_FILE) as db:
        extracted = sorted(db.execute("SELECT key, extractor, extraction FROM papers"))
    state = BuildState(tmp_path)
    with state.snapshot() as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        pending = {p for (p,) in db.execute("SELECT paper FROM pending_derive")}
        assert sorted(db.execute(_EXTRACTED_BEFORE_7)) == extracted
    corpus = corpus_of(PAPERS5)
    assert pending == set(corpus.papers)
    old = _snapshot(state)
    assert {"method:attention-mechanisms", "method:vaes", "metric:f1-score"} <= set(old[0])
    new = _built_again(state, tmp_path, corpus)
    entities = {k: props for k, (label, props) in new[0].items() if label != "Paper"}
    assert sorted(entities) == ["method:attention-mechanism", "method:vae", "metric:f1", "model:4o",
                                "model:gpt", "model:gpt-4o"]
    assert entities["method:attention-mechanism"]["paper_count"] == 2
    assert set(entities["method:vae"]["aliases"]) == {"VAE", "VAEs"}
    assert set(entities["metric:f1"]["aliases"]) == {"F1", "F1-score"}
    mentions = {(source, target) for etype, source, target, _ in new[1].values() if etype == "MENTIONS"}
    assert ("paper:s1", "model:gpt") not in mentions and ("paper:s1", "model:4o") not in mentions
    assert {("paper:s2", "model:gpt"), ("paper:s3", "model:4o")} <= mentions


def test_a_schema_8_store_gives_names_apart_by_case_alone_ids_of_their_own(tmp_path: Path) -> None:
    """Schema 8 (paperkg b910eb9, `golden/schema8`) gave `Androids` (key `android`) and the acronym
    `ANDROIDS` (key `androids`) one id: one node row, owned by whichever was written last. Opening it
    marks the papers of both for the next build, and recounts the rows (the shared row counted
    twice); that build, even with no input, gives the graph of a fresh build: two Datasets, every edge
    joining two nodes. (Schema 13's name keys mark every paper on the way.)"""
    import shutil

    from tests.graph.golden.schema8.papers import PAPERS as PAPERS8

    shutil.copy(SCHEMA8 / "state.sqlite", tmp_path / DB_FILE)
    state = BuildState(tmp_path)
    with state.snapshot() as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 14
        pending = {p for (p,) in db.execute("SELECT paper FROM pending_derive")}
        counted = dict(db.execute("SELECT name, n FROM counts WHERE name LIKE 'node:%'"))
        assert counted == dict(db.execute("SELECT 'node:' || label, count(*) FROM nodes GROUP BY label"))
    corpus = corpus_of(PAPERS8)
    mentioning = {p for p, entry in corpus.papers.items() if entry.ids[0] in ("a1", "a2", "a3")}
    assert mentioning < pending == set(corpus.papers)   # schema 13's name keys: every paper again
    assert "dataset:android" not in _snapshot(state)[0]       # served as it was until a build
    with state.transaction() as tx:
        tx.derive()
    new = _snapshot(state)
    assert state.stats()["nodes"]["Dataset"] == 2
    state.close()
    assert new == _fresh_snapshot(tmp_path / "fresh", corpus)
    assert new[0]["dataset:android"][1]["name"] == "Androids"
    assert new[0]["dataset:androids"][1]["name"] == "ANDROIDS"
    assert all(source in new[0] and target in new[0] for _, source, target, _ in new[1].values())


def test_a_schema_12_store_reads_names_through_latex_styling_after_its_next_build(tmp_path: Path) -> None:
    """Schema 12 (`golden/schema12`, made by 03512eb) keyed styled names with their markup: the long
    form `\\textit{Chain-of-Thought}` gave `CoT` a second entity, `$\\textbf{TAPE}$` and bold initials
    were shown and given ids with it. Opening the store marks every paper to be derived again from its
    stored extraction; the next build, with no input, gives the graph a fresh build makes: one CoT,
    names shown plain, ids without `textit`/`textbf`."""
    import shutil

    from tests.graph.golden.schema12.papers import PAPERS as PAPERS12

    shutil.copy(SCHEMA12 / "state.sqlite", tmp_path / DB_FILE)
    state = BuildState(tmp_path)
    corpus = corpus_of(PAPERS12)
    with state.snapshot() as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 14
        assert {p for (p,) in db.execute("SELECT paper FROM pending_derive")} == set(corpus.papers)
    assert "method:textit-chain-of-thought-8a198365" in _snapshot(state)[0]   # as it was until a build
    new = _built_again(state, tmp_path, corpus)
    entities = {k: props for k, (label, props) in new[0].items() if label != "Paper"}
    assert sorted(entities) == ["benchmark:gsm8k", "method:chain-of-thought",
                                "method:multi-view-attention-network", "method:tape"]
    assert entities["method:chain-of-thought"]["paper_count"] == 2
    assert entities["method:tape"]["name"] == "TAPE"
    assert entities["method:multi-view-attention-network"]["name"] == "Multi-View Attention Networks"


def test_a_schema_13_store_drops_acronyms_starting_other_names_and_shows_singulars_after_a_build(
        tmp_path: Path) -> None:
    """Schema 13 (`golden/schema13`, made by 0cd0d1b) counted `MS COCO` as a mention of the one
    paper's `MS`, mechanical search. Opening the store marks the papers that could nest a short
    acronym; the next build, with no input, gives a fresh build's graph: `MS COCO` mentions only
    itself, `VLA-RL` still mentions RL (the acronym ends the name), the entity written `ViTs` twice
    and `ViT` once is shown `ViT`, the other papers are untouched."""
    import shutil

    from tests.graph.golden.schema13.papers import PAPERS as PAPERS13

    shutil.copy(SCHEMA13 / "state.sqlite", tmp_path / DB_FILE)
    state = BuildState(tmp_path)
    corpus = corpus_of(PAPERS13)
    with state.snapshot() as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 14
        pending = {p for (p,) in db.execute("SELECT paper FROM pending_derive")}
    keys = {entry.ids[0]: key for key, entry in corpus.papers.items()}
    # m2 and m4 may nest `MS`, `VOC`, `VLA`, `RL`; m5 and m6 write the entity `ViTs` names
    assert pending == {keys["m2"], keys["m4"], keys["m5"], keys["m6"]}

    def mentions(snapshot: tuple[dict, dict]) -> set[tuple[str, str]]:
        return {(s, t) for etype, s, t, _ in snapshot[1].values() if etype == "MENTIONS"}

    assert ("paper:m2", "task:mechanical-search") in mentions(_snapshot(state))   # until a build
    new = _built_again(state, tmp_path, corpus)
    assert ("paper:m2", "task:mechanical-search") not in mentions(new)
    assert {("paper:m1", "task:mechanical-search"), ("paper:m4", "method:rl"),
            ("paper:m4", "method:vla-rl")} <= mentions(new)
    assert new[0]["method:vision-transformer"][1]["name"] == "ViT"


def test_a_reader_keeps_its_snapshot_while_a_build_writes(tmp_path: Path) -> None:
    corpus = make_corpus()
    entries = list(corpus)
    state = BuildState(tmp_path, create=True)
    with state.transaction() as tx:
        add_entry(tx, entries[0])
        tx.derive()
    reader = BuildState(tmp_path)
    before = _snapshot(reader)
    version = reader.generation()
    with state.transaction() as tx:
        for entry in entries[1:]:
            add_entry(tx, entry)
        tx.derive()
        assert _snapshot(reader) == before and reader.generation() == version   # not committed yet
    after = _snapshot(reader)
    assert reader.generation() != version and len(after[0]) > len(before[0])
    reader.close()
    state.close()


def test_a_new_store_is_named_before_its_first_build_can_fail(tmp_path: Path) -> None:
    """A Neo4j database records which state wrote it; a first build killed after writing Neo4j rolls
    its SQLite transaction back, so the name must not be made inside that transaction, else the rerun
    gets a new name and is refused as 'another build state' (seen in CI: SIGKILL while writing)."""
    state = BuildState(tmp_path, create=True)
    with state.snapshot() as db:
        name = db.execute("SELECT value FROM meta WHERE key = 'state_id'").fetchone()[0]
    with pytest.raises(RuntimeError), state.transaction() as tx:
        assert tx.source == name
        tx.add_record(PaperInput("a", "An abstract about GRPO.", "test", 1))
        raise RuntimeError("the build dies before committing")
    state.close()
    again = BuildState(tmp_path, create=True)
    with again.transaction() as tx:
        assert tx.source == name and tx.paper_count == 0
    again.close()


def test_a_second_build_waits_for_the_first(tmp_path: Path) -> None:
    first = BuildState(tmp_path, create=True)
    second = BuildState(tmp_path)
    waited: list[bool] = []
    with first.transaction() as tx:
        tx.add_record(PaperInput("a", "An abstract about GRPO.", "test", 1))
        tx.derive()
        # the first still holds the lock: the second reports that it waits, then gets it
        script = textwrap.dedent(f"""
            from pathlib import Path
            from paperkg.graph.state import BuildState
            state = BuildState(Path({str(tmp_path)!r}))
            with state.transaction(lambda: print("waiting", flush=True)) as tx:
                print(tx.paper_count, flush=True)
        """)
        proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        waited.append(proc.stdout.readline().strip() == "waiting")
    out, _ = proc.communicate(timeout=60)
    assert waited == [True] and out.strip() == "1"      # it saw the first build's paper
    second.close()
    first.close()


def _hold_the_file(path: Path, seconds: float) -> threading.Thread:
    """A connection holding the store's file exclusively for `seconds`, as SQLite does while the
    last connection to close copies the log into the database (for as long as the disk takes)."""
    db = sqlite3.connect(path / DB_FILE, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA locking_mode = EXCLUSIVE")
    db.execute("BEGIN EXCLUSIVE")

    def release() -> None:
        time.sleep(seconds)
        db.execute("COMMIT")
        db.close()

    holder = threading.Thread(target=release)
    holder.start()
    return holder


def _one_paper_store(path: Path) -> None:
    state = BuildState(path, create=True)
    with state.transaction() as tx:
        tx.add_record(PaperInput("a", "An abstract about GRPO.", "test", 1))
        tx.derive()
    state.close()


@pytest.mark.parametrize("read_only", [True, False])
def test_opening_a_store_waits_out_a_lock_held_for_a_moment(tmp_path: Path, read_only: bool) -> None:
    """Seen in CI beside a big build saturating the disk: a build exited "database is locked"
    where SQLite held the store for longer than the 200 ms the build lock is polled at."""
    _one_paper_store(tmp_path)
    holder = _hold_the_file(tmp_path, 1.5)
    started = time.monotonic()
    state = BuildState(tmp_path, read_only=read_only)
    assert state.stats()["nodes"]["Paper"] == 1
    assert time.monotonic() - started > 1.0
    holder.join()
    state.close()


def test_a_lock_held_past_the_wait_says_the_store_is_in_use(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state_module, "_BUSY_WAIT_S", 0.3)
    _one_paper_store(tmp_path)
    holder = _hold_the_file(tmp_path, 2.0)
    with pytest.raises(StoreUnavailableError, match="is in use: another process held its lock") as err:
        BuildState(tmp_path, read_only=True)
    assert "try again when the other process is done" in (err.value.hint or "")
    holder.join()
    state = BuildState(tmp_path, read_only=True)           # and nothing was lost
    assert state.stats()["nodes"]["Paper"] == 1
    state.close()


@pytest.mark.parametrize("phase", ["records", "extractions", "derived"])
def test_a_build_killed_inside_its_transaction_leaves_the_previous_state(tmp_path: Path, phase: str) -> None:
    entries = list(make_corpus())
    state = BuildState(tmp_path, create=True)
    with state.transaction() as tx:
        add_entry(tx, entries[0])
        tx.derive()
    before = _snapshot(state)
    state.close()
    script = textwrap.dedent(f"""
        import os, signal
        from pathlib import Path
        from paperkg.graph.state import BuildState
        from tests.api.conftest import make_corpus
        from tests.stores import add_entry
        state = BuildState(Path({str(tmp_path)!r}))
        with state.transaction() as tx:
            for entry in list(make_corpus())[1:]:
                for meta in entry.records.values():
                    from paperkg.graph.records import PaperInput
                    tx.add_record(PaperInput(meta.id, meta.abstract, "t", 1, collection=meta.collection))
                if {phase!r} != "records":
                    tx.set_extraction(entry.key, entry.extraction)
            if {phase!r} == "derived":
                tx.derive()
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).parents[2], timeout=120)
    assert proc.returncode == -signal.SIGKILL
    reopened = BuildState(tmp_path)
    assert _snapshot(reopened) == before
    with reopened.transaction() as tx:          # and the next build proceeds normally
        for entry in entries[1:]:
            add_entry(tx, entry)
        tx.derive()
    assert len(_snapshot(reopened)[0]) > len(before[0])
    reopened.close()


def _damage_table(store: Path, table: str) -> None:
    """Overwrite the root page of `table` (its only page in a small store) with garbage."""
    import sqlite3

    db = sqlite3.connect(store / DB_FILE)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    db.close()
    with open(store / DB_FILE, "r+b") as fh:
        fh.seek((root - 1) * page_size + 100 * (root == 1))
        fh.write(b"\xa5" * 512)


@pytest.mark.parametrize(("table", "named"), [("nodes", True), ("edges", True), ("papers", False)])
def test_a_big_store_checks_the_tables_its_view_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      table: str, named: bool) -> None:
    """A store past `QUICK_CHECK_MAX_BYTES` is not checked whole on open; loading the served view
    checks the tables it reads and names their damage, while the extractions (most of a big store,
    read by builds only) are left to the build that reads them."""
    import paperkg.graph.embedded as embedded
    from paperkg.graph.errors import StoreCorruptError

    write_corpus(tmp_path, make_corpus()).close()
    _damage_table(tmp_path, table)
    monkeypatch.setattr(embedded, "QUICK_CHECK_MAX_BYTES", 0)
    store = embedded.EmbeddedStore(tmp_path)
    try:
        if named:
            with pytest.raises(StoreCorruptError, match="damaged"):
                store.networkx()
        else:
            assert store.networkx().number_of_nodes() > 0
            with pytest.raises(StoreCorruptError, match="damaged"):
                BuildState(tmp_path).verify()
    finally:
        store.close()
