"""The catalog's index a build saves beside an embedded store and `paperkg serve` loads
(queries/index_snapshot.py): the same index as the one derived from the rows, used only for the build
it names, never when damaged, and saved again by whatever changes the store."""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
import sys
import zlib
from pathlib import Path

import msgspec
import pytest

from paperkg.api import build as pipeline
from paperkg.api import curate
from paperkg.graph import curation
from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.state import BuildState
from paperkg.queries import embedded_impl, index_snapshot
from tests.conftest import _problems_are_fatal
from tests.queries.parity import GraphOnly, cases, compare
from tests.stores import store_generation

# what the index computes on demand, or takes from its store
NOT_SAVED = {"lookups", "_co_ranked", "_names", "path_adj", "from_file"}


def _copy(seed_store_path: Path, tmp_path: Path) -> Path:
    path = tmp_path / "store"
    shutil.copytree(seed_store_path, path)
    return path


def _derived(path: Path) -> embedded_impl.Index:
    store = EmbeddedStore(path)
    try:
        with store.view_rows() as rows:
            return embedded_impl.Index.from_rows(rows.nodes(), rows.edges(), store.lookups())
    finally:
        store.close()


def test_a_build_saves_the_index_and_a_store_loads_it_without_deriving(
        seed_store_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert index_snapshot.generation_of(seed_store_path) == store_generation(seed_store_path)

    def derive(*args: object, **kwargs: object) -> None:
        raise AssertionError("the index was derived from the rows")

    monkeypatch.setattr(embedded_impl.Index, "from_rows", derive)
    store = EmbeddedStore(seed_store_path)
    try:
        index = embedded_impl.index_of(store)
        assert index.props and embedded_impl.index_of(store) is index
    finally:
        store.close()


def test_the_saved_index_is_the_derived_one(seed_store_path: Path) -> None:
    """Every table equal, in the same order where an answer follows the order; the node keys'
    strings and the MENTIONS props maps shared as in the derived index (memory)."""
    derived = _derived(seed_store_path)
    loaded = index_snapshot.load(seed_store_path, store_generation(seed_store_path), {})
    assert loaded is not None
    for f in dataclasses.fields(embedded_impl.Index):
        if f.name not in NOT_SAVED:
            assert getattr(loaded, f.name) == getattr(derived, f.name), f.name
    for name in ("papers_of", "mentions_of", "relations", "years_of", "papers_in", "introductions",
                 "result_links", "results_of"):
        assert list(getattr(loaded, name)) == list(getattr(derived, name)), name
    nodes = {*derived.props, *derived.papers_of}
    assert all(loaded.path_adj.get(n) == derived.path_adj.get(n) for n in nodes)
    keys = {id(k) for k in loaded.props}
    assert all(id(paper) in keys for papers in loaded.papers_of.values() for paper, _ in papers)
    assert all(id(n) in keys for ns in loaded.mentions_of.values() for n in ns)
    assert ({id(d) for ds in loaded.mention_props.values() for d in ds} ==
            {id(d) for ps in loaded.papers_of.values() for _, d in ps})
    assert (len({id(d) for ds in loaded.mention_props.values() for d in ds}) ==
            len({id(d) for ds in derived.mention_props.values() for d in ds}))
    assert all(d["__labels__"] == {"MENTIONS"} for ds in loaded.mention_props.values() for d in ds)
    assert all(loaded.props[n]["__labels__"] == {loaded.label[n]} for n in loaded.props)
    assert all(repr(loaded.props[n]) == repr(derived.props[n]) for n in derived.props)   # types, order
    results = [p for n, p in loaded.props.items() if loaded.label[n] == "Result"]
    for name in ("kind", "direction", "unit"):
        values = [p[name] for p in results if name in p]
        assert values and len({id(v) for v in values}) == len(set(values)), name
    pairs = [pair for ps in loaded.papers_of.values() for pair in ps]
    assert len({id(pair) for pair in pairs}) == len({(id(p), id(d)) for p, d in pairs}) < len(pairs)
    papers = [p for n, p in loaded.props.items() if loaded.label[n] == "Paper"]
    assert papers and all(p["ids"][0] is p["id"] for p in papers if p["ids"] == [p["id"]])
    assert all(rid is loaded.props[node]["id"] for rid, node in loaded.paper_by_id.items()
               if rid == loaded.props[node]["id"])


@pytest.mark.parametrize(("values", "shared"), [
    (["absolute", "delta", "absolute", "absolute"], True),
    ([300_001, 700_001, 300_001, 300_001], True),   # not ints CPython caches
    ([0.25, 0.5, 0.25, 0.25], True),
    ([1, True, 1, 1], False),                      # a bool is not the int it equals
    ([1.0, 1, 1.0, 1.0], False),
    ([0.0, -0.0, 0.0, 0.0], False),                # nor -0.0 the 0.0 it equals
    ([0.5, float("nan"), 0.5, 0.5], False),
    ([["a"], ["a"], ["a"], ["a"]], False),         # lists stay one per node
    ([None, "x", None, None], False),
])
def test_a_saved_props_column_gives_back_each_value_and_shares_the_repeated_ones(values: list,
                                                                                 shared: bool) -> None:
    """Props go to the file as columns, a repeated value once (`_node_props`): what comes back is
    each node's value, of its own type and sign, and equal plain values are one object."""
    props = [{"id": f"n{i}", "ids": [f"n{i}"], "v": v} for i, v in enumerate(values)]
    props.append({"id": "m", "ids": ["m", "other"]})
    groups, tables = index_snapshot._node_props(props, [0] * len(values) + [1])
    groups = msgspec.msgpack.decode(msgspec.msgpack.encode(groups), type=list[index_snapshot._Props])
    tables = msgspec.msgpack.decode(msgspec.msgpack.encode(tables))
    loaded, labels = index_snapshot._props(groups, tables, [{"A"}, {"B"}], len(props))
    assert labels == [0] * len(values) + [1]
    for before, after in zip(props, loaded, strict=True):
        assert after.pop("__labels__") in ({"A"}, {"B"})
        assert list(after) == list(before)
        assert repr(after) == repr(before)           # types and signs, NaN included
        if before["ids"] == [before["id"]]:
            assert after["ids"][0] is after["id"]
    kept = [p["v"] for p in loaded[:-1]]
    if shared:
        assert len({id(v) for v in kept}) == len(set(kept)) == 2
    assert len({id(p["ids"]) for p in loaded}) == len(loaded)


def test_a_store_with_a_saved_index_answers_every_query_as_its_graph_does(seed_store_path: Path) -> None:
    store = EmbeddedStore(seed_store_path)
    try:
        assert index_snapshot.generation_of(seed_store_path) is not None
        assert compare(store, GraphOnly(store.graph()), cases(store.graph(), seed=5, per_query=15)) == []
    finally:
        store.close()


def _flip_last_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(("spoil", "said"), [
    (_flip_last_byte, "damaged"),
    (lambda p: p.write_bytes(p.read_bytes()[:-100]), "damaged"),
    (lambda p: p.write_bytes(b"not an index at all"), "not a serving index"),
    (lambda p: p.write_bytes(b""), None),
    (lambda p: p.unlink(), None),
])
def test_a_damaged_or_missing_file_is_not_used(seed_store_path: Path, tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture, spoil, said) -> None:
    """The store then derives its index from the rows (a slower start, the same answers), and the
    next save (a build's, or the one a server starts) writes a whole file again."""
    path = _copy(seed_store_path, tmp_path)
    spoil(path / index_snapshot.FILE)
    with caplog.at_level(logging.INFO, logger="paperkg.queries"):
        assert index_snapshot.load(path, store_generation(path), {}) is None
    if said:
        assert said in caplog.text
    store = EmbeddedStore(path)
    try:
        assert compare(store, GraphOnly(store.graph()), cases(store.graph(), seed=7, per_query=4)) == []
    finally:
        store.close()
    assert index_snapshot.save(path) == path / index_snapshot.FILE
    assert index_snapshot.load(path, store_generation(path), {}) is not None


def test_the_index_of_another_build_or_format_is_not_used(seed_store_path: Path, tmp_path: Path) -> None:
    path = _copy(seed_store_path, tmp_path)
    generation = store_generation(path)
    assert generation is not None
    index_snapshot.write(path, _derived(path), "another-build")
    assert index_snapshot.generation_of(path) == "another-build"
    assert index_snapshot.load(path, generation, {}) is None
    index_snapshot.write(path, _derived(path), generation)
    assert index_snapshot.load(path, generation, {}) is not None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(index_snapshot, "FORMAT", index_snapshot.FORMAT + 1)
        assert index_snapshot.load(path, generation, {}) is None
        assert index_snapshot.generation_of(path) is None


def test_remove_saves_the_index_and_a_correction_leaves_it_to_the_next_build(
        seed_store_path: Path, tmp_path: Path) -> None:
    """A correction (an HTTP request among others) does not wait for the index: the saved one is then
    another build's, so a server derives it (and has it saved: tests/api/test_reload.py), or the next
    build, or a repair, saves one."""
    path = _copy(seed_store_path, tmp_path)
    store = EmbeddedStore(path)
    paper = next(iter(store.state.corpus())).ids[0]
    store.close()
    summary = pipeline.remove([paper], path)
    assert isinstance(summary.serving_index, float)
    assert index_snapshot.generation_of(path) == store_generation(path)

    saved = index_snapshot.generation_of(path)
    curate.correct(path, [curation.validate("rename", "GRPO", "Group Relative PO")])
    assert index_snapshot.generation_of(path) == saved != store_generation(path)
    assert index_snapshot.load(path, store_generation(path), {}) is None
    assert isinstance(pipeline.repair(path).serving_index, float)
    loaded = index_snapshot.load(path, store_generation(path), {})
    assert loaded is not None and "Group Relative PO" in {p.get("name") for p in loaded.props.values()}


def test_a_build_that_changes_nothing_keeps_the_saved_index(seed_store_path: Path, tmp_path: Path) -> None:
    from tests.conftest import EXAMPLES

    path = _copy(seed_store_path, tmp_path)
    written = (path / index_snapshot.FILE).stat().st_mtime_ns
    summary = pipeline.build([str(EXAMPLES)], path, _problems_are_fatal)
    assert not summary.saved and summary.serving_index is None
    assert (path / index_snapshot.FILE).stat().st_mtime_ns == written


def test_the_networkx_view_after_a_loaded_index_shares_its_props(seed_store_path: Path) -> None:
    """User Cypher's view, built after a loaded index, holds the index's node props (not copies);
    that it refuses a build made in between: tests/queries/test_embedded_impl.py."""
    store = EmbeddedStore(seed_store_path)
    try:
        index = embedded_impl.index_of(store)
        g = store.networkx()
        assert all(g.nodes[n] is index.props[n] for n in index.props)
        assert g.number_of_edges() == sum(store.stats()["edges"].values())
    finally:
        store.close()


def test_an_edge_to_a_node_the_rows_lack_is_no_edge_of_the_index(tmp_path: Path) -> None:
    """A store may hold an edge whose end has no node row (three in the 208k real store); on Neo4j
    no edge exists without both its nodes, so the index (derived or saved) leaves such edges out,
    and `trending`, which met one as a KeyError, answers."""
    paper, method, gone = "paper:p1", "method:grpo", "dataset:androids"
    nodes = [(paper, "Paper", {"id": "p1", "year": 2025}),
             (method, "Method", {"id": method, "name": "GRPO", "type": "Method", "keys": ["grpo"],
                                 "paper_count": 1})]
    mention = {"count": 1, "confidence": 1.0, "__labels__": {"MENTIONS"}}     # as `ViewRows` gives them
    edges = [("MENTIONS", paper, gone, mention), ("MENTIONS", paper, method, mention),
             ("EVALUATED_ON", method, gone, {"support": 1, "confidence": 0.5})]
    derived = embedded_impl.Index.from_rows(nodes, edges, {})
    assert derived.mentions_of == {paper: [method]} and gone not in derived.papers_of
    assert derived.relations == {} and derived.path_adj.get(gone) is None
    assert embedded_impl.trending(derived, {"since": 2025, "type": None, "min_papers": 1, "limit": 10})
    index_snapshot.write(tmp_path, derived, "g1")
    loaded = index_snapshot.load(tmp_path, "g1", {})
    assert loaded is not None
    assert (loaded.mentions_of, loaded.papers_of, loaded.relations) == (
        derived.mentions_of, derived.papers_of, derived.relations)


def test_a_paper_known_by_several_ids_is_found_by_each_in_the_loaded_index(tmp_path: Path) -> None:
    """The same abstract under two ids is one paper with both `ids`; the file keeps a paper's own
    id as a reference to its props and any other id as a string."""
    text = ("We propose GRPO, a policy optimization method, and evaluate it on MATH500, where it "
            "reaches 71.2% accuracy.")
    source = tmp_path / "papers.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "2401.00001", "title": "GRPO", "abstract": text},
        {"id": "2401.00002", "title": "GRPO", "abstract": text},
        {"id": "2401.00003", "title": "Other", "abstract": "We study PPO on the Atari benchmark."}]))
    path = tmp_path / "store"
    pipeline.build([str(source)], path, _problems_are_fatal, mode="rules", serving_index="wait")
    derived = _derived(path)
    loaded = index_snapshot.load(path, store_generation(path), {})
    assert loaded is not None
    assert loaded.paper_by_id == derived.paper_by_id
    assert len(loaded.paper_by_id) == 3 and len(set(loaded.paper_by_id.values())) == 2


def test_an_index_of_a_build_replaced_while_it_was_derived_is_not_written(
        seed_store_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build commits while an earlier build's index is still being derived: writing that index
    would replace a newer file with a stale one, so it is dropped."""
    path = _copy(seed_store_path, tmp_path)
    (path / index_snapshot.FILE).unlink()
    derive = embedded_impl.Index.from_rows

    def derive_then_rebuild(*args: object) -> embedded_impl.Index:
        index = derive(*args)
        with BuildState(path).transaction() as tx:
            assert tx.remove([next(iter(BuildState(path, read_only=True).corpus())).ids[0]]) == []
            tx.derive()
        return index

    monkeypatch.setattr(embedded_impl.Index, "from_rows", derive_then_rebuild)
    assert index_snapshot.save(path) is None
    assert not (path / index_snapshot.FILE).exists()
    monkeypatch.setattr(embedded_impl.Index, "from_rows", derive)
    assert index_snapshot.save(path) == path / index_snapshot.FILE
    assert index_snapshot.generation_of(path) == store_generation(path)


def test_the_cli_saves_the_index_in_the_background_or_waits_for_it(tmp_path: Path) -> None:
    """`paperkg build` returns once the store is committed and a detached process saves the index;
    `--serving-index wait` returns with it saved (auto: the same for a store this small)."""
    import subprocess
    import sys
    import time

    from tests.conftest import EXAMPLES

    files = sorted(EXAMPLES.glob("*"))
    waited, background = tmp_path / "waited", tmp_path / "background"
    cli = [sys.executable, "-m", "paperkg.api.cli", "build", "--mode", "rules", "--quiet", "--json"]
    out = subprocess.run([*cli, str(files[0]), "--store", str(waited)],
                         capture_output=True, text=True, check=True)
    assert isinstance(json.loads(out.stdout)["serving_index"], float)
    assert index_snapshot.generation_of(waited) == store_generation(waited)
    out = subprocess.run([*cli, str(files[0]), "--store", str(background), "--serving-index", "background"],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["serving_index"] == "background"
    deadline = time.monotonic() + 120
    while index_snapshot.generation_of(background) != store_generation(background):
        assert time.monotonic() < deadline, "the background save did not finish in 2 minutes"
        time.sleep(0.2)


def test_a_whole_file_that_does_not_describe_an_index_is_not_used(seed_store_path: Path, tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    """A file with a sound checksum whose tables disagree (a writer's bug, or one of an older
    paperkg with the same format number) is refused as a damaged one is, not raised at start."""
    import msgspec

    path = _copy(seed_store_path, tmp_path)
    generation = store_generation(path)
    assert generation is not None
    data = index_snapshot.encode(_derived(path), generation)
    start = len(index_snapshot._MAGIC) + index_snapshot._LENGTHS.size
    header_length, _ = index_snapshot._LENGTHS.unpack_from(data, len(index_snapshot._MAGIC))
    body = msgspec.msgpack.decode(data[start + header_length:], type=index_snapshot._Body)
    body.keys = body.keys[:-1]
    index_snapshot.write(path, _derived(path), generation)
    bad = msgspec.msgpack.encode(body)
    header = msgspec.msgpack.encode(index_snapshot._Header(index_snapshot.FORMAT, generation, len(bad),
                                                           sys.byteorder))
    (path / index_snapshot.FILE).write_bytes(index_snapshot._MAGIC + index_snapshot._LENGTHS.pack(
        len(header), zlib.crc32(bad)) + header + bad)
    with caplog.at_level(logging.WARNING, logger="paperkg.queries"):
        assert index_snapshot.load(path, generation, {}) is None
    assert "does not describe an index" in caplog.text
