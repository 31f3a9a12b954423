"""Incremental derivation equals the whole-corpus derivation (`build_graph`), whatever the split of
the papers into builds, their order, and the papers removed in between."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paperkg.graph.build import build_graph
from paperkg.graph.corpus import Corpus, PaperEntry
from paperkg.graph.embedded import EmbeddedStore
from paperkg.graph.model import KnowledgeGraph
from paperkg.graph.state import BuildState
from tests.api.conftest import corpus_of, make_corpus
from tests.graph.golden.schema4.papers import PAPERS
from tests.stores import add_entry


def _plain(graph: KnowledgeGraph) -> tuple[dict, dict]:
    return ({k: (n.label, n.props) for k, n in graph.nodes.items()},
            {k: (e.type, e.source, e.target, e.props) for k, e in graph.edges.items()})


def _corpus(entries: list[PaperEntry]) -> Corpus:
    corpus = Corpus()
    for entry in entries:
        corpus.papers[entry.key] = entry
        for rid in entry.ids:
            corpus.by_id[rid] = entry.key
    return corpus


def _assert_same(got: KnowledgeGraph, want: KnowledgeGraph) -> None:
    got_nodes, got_edges = _plain(got)
    want_nodes, want_edges = _plain(want)
    assert sorted(got_nodes.keys() ^ want_nodes.keys()) == []
    assert {k for k in got_nodes if got_nodes[k] != want_nodes[k]} == set()
    assert sorted(got_edges.keys() ^ want_edges.keys()) == []
    assert {k for k in got_edges if got_edges[k] != want_edges[k]} == set()


@pytest.fixture(scope="module")
def seed_entries(seed_store: EmbeddedStore) -> list[PaperEntry]:
    return list(seed_store.state.corpus())


def test_one_build_of_the_seeds_is_build_graph(seed_store: EmbeddedStore,
                                               seed_entries: list[PaperEntry]) -> None:
    _assert_same(seed_store.graph(), build_graph(_corpus(seed_entries)))


def _replay(path: Path, steps: list[tuple[str, list[PaperEntry]]]) -> tuple[KnowledgeGraph, list[PaperEntry]]:
    """Run each step as one build ("add" its papers or "remove" them); the graph and papers after."""
    state = BuildState(path, create=True)
    present: dict[str, PaperEntry] = {}
    try:
        for op, entries in steps:
            with state.transaction() as tx:
                if op == "add":
                    for entry in entries:
                        add_entry(tx, entry)
                        present[entry.key] = entry
                else:
                    assert tx.remove([e.ids[0] for e in entries]) == []
                    for entry in entries:
                        present.pop(entry.key, None)
                tx.derive()
        return state.graph(), sorted(present.values(), key=lambda e: e.key)
    finally:
        state.close()


def _steps(draw: st.DrawFn, pool: list[PaperEntry], max_papers: int) -> list[tuple[str, list[PaperEntry]]]:
    chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_papers, unique_by=lambda e: e.key))
    batches = draw(st.integers(1, min(5, len(chosen))))
    cuts = sorted(draw(st.lists(st.integers(0, len(chosen)), min_size=batches - 1, max_size=batches - 1)))
    parts = [chosen[a:b] for a, b in zip([0, *cuts], [*cuts, len(chosen)], strict=True)]
    steps: list[tuple[str, list[PaperEntry]]] = []
    present: list[PaperEntry] = []
    for part in parts:
        if part:
            steps.append(("add", part))
            present += part
        if present and draw(st.booleans()):
            gone = draw(st.lists(st.sampled_from(present), min_size=1, max_size=max(1, len(present) // 3),
                                 unique_by=lambda e: e.key))
            steps.append(("remove", gone))
            present = [e for e in present if e not in gone]
            if draw(st.booleans()):            # and some come back
                steps.append(("add", gone[: len(gone) // 2 + 1]))
                present += gone[: len(gone) // 2 + 1]
    return steps


@st.composite
def seed_steps(draw: st.DrawFn, pool: list[PaperEntry]) -> list[tuple[str, list[PaperEntry]]]:
    return _steps(draw, pool, 60)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=st.data())
def test_any_split_order_and_removal_of_seed_papers_is_build_graph(
        seed_entries: list[PaperEntry], data: st.DataObject) -> None:
    steps = data.draw(seed_steps(seed_entries))
    with tempfile.TemporaryDirectory() as tmp:
        graph, present = _replay(Path(tmp), steps)
    _assert_same(graph, build_graph(_corpus(present)))


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_split_of_the_acronym_papers_is_build_graph(data: st.DataObject) -> None:
    """The hand-made papers define GRPO and PPO in one paper and use them bare in another."""
    steps = data.draw(seed_steps(list(make_corpus())))
    with tempfile.TemporaryDirectory() as tmp:
        graph, present = _replay(Path(tmp), steps)
    _assert_same(graph, build_graph(_corpus(present)))


# One acronym defined three ways (aliases are (long, short)), and used bare: what a bare DPO means
# changes when a second long form arrives (one meaning -> ambiguous), not when a third does, and back
# when papers go. Derivation re-resolves the papers of a changed meaning only.
_DPO = [
    ("d1", "Direct Preference Optimization (DPO) aligns models with preferences.",
     [("Direct Preference Optimization", "Method", True), ("DPO", "Method", True)], [],
     [("Direct Preference Optimization", "DPO")]),
    ("d2", "Distributional Policy Optimization (DPO) is a method for control.",
     [("Distributional Policy Optimization", "Method", False), ("DPO", "Method", False)], [],
     [("Distributional Policy Optimization", "DPO")]),
    ("d3", "Deep Planning Objective (DPO) guides search in games.",
     [("Deep Planning Objective", "Method", False), ("DPO", "Method", False), ("games", "Task", False)],
     [("DPO", "ADDRESSES", "games")], [("Deep Planning Objective", "DPO")]),
    ("d4", "We align Llama-3 with DPO on UltraFeedback.",
     [("Llama-3", "Model", False), ("DPO", "Method", False), ("UltraFeedback", "Dataset", False)],
     [("Llama-3", "USES", "DPO")], []),
    ("d5", "DPO beats PPO on UltraFeedback.",
     [("DPO", "Method", False), ("PPO", "Method", False), ("UltraFeedback", "Dataset", False)],
     [("DPO", "COMPARED_WITH", "PPO"), ("DPO", "EVALUATED_ON", "UltraFeedback")], []),
]


# One acronym defined with two types and used bare with each (the schema-4 store's papers and three
# more): a bare MAE joins the long form of its type, so its meaning changes when a definition of that
# type arrives or goes (`m5`: a second Metric reading makes a bare Metric MAE ambiguous), or when a
# paper gives a long form another type (`m6`); one paper defines it twice (`m8`: the later counts).
_MAE = [*PAPERS,
        ("m5", "Maximum angular error (MAE) measures pose estimates.",
         [("Maximum angular error", "Metric", False), ("MAE", "Metric", False)], [],
         [("Maximum angular error", "MAE")]),
        ("m6", "Masked autoencoders (MAE) score reconstructions.",
         [("Masked autoencoders", "Metric", False), ("MAE", "Metric", False)], [],
         [("Masked autoencoders", "MAE")]),
        ("m7", "MAE is a task here.", [("MAE", "Task", False)], [], []),
        ("m8", "Mean absolute errors (MAE) and mean angular error (MAE) are both reported.",
         [("Mean absolute errors", "Metric", False), ("mean angular error", "Metric", False),
          ("MAE", "Metric", False)], [],
         [("Mean absolute errors", "MAE"), ("mean angular error", "MAE")])]


# One acronym defined two ways, nine papers to one (`resolve.DOMINANT_SHARE`): a bare Method XYZ joins
# the long form nine in ten definitions give, and goes back to the bare acronym when a paper of the
# nine goes (eight in nine is under the share); a bare Task XYZ has no definition of its type.
_DOMINANT = [
    *[(f"x{i}", f"Xenial Yak Zipper (XYZ) is applied in study {i}.",
       [("Xenial Yak Zipper", "Method", False), ("XYZ", "Method", False)], [],
       [("Xenial Yak Zipper", "XYZ")]) for i in range(9)],
    ("q1", "Quartz Yield Zoning (XYZ) is another method.",
     [("Quartz Yield Zoning", "Method", False), ("XYZ", "Method", False)], [],
     [("Quartz Yield Zoning", "XYZ")]),
    ("u1", "We train with XYZ and report gains.", [("XYZ", "Method", False)], [], []),
    ("u2", "XYZ is also a task name here.", [("XYZ", "Task", False)], [], []),
]


# One name written four ways, two of them broken by a line end (`ac-curacy`): the entity's id comes
# from the spelling written most often, and moves when the papers that wrote it go.
_SPELLED = [
    ("s1", "We report accuracy on the test split.", [("accuracy", "Metric", False)], [], []),
    ("s2", "Accuracy improves with scale.", [("Accuracy", "Metric", False)], [], []),
    ("s3", "The ac-curacy of the probe rises.", [("ac-curacy", "Metric", False)], [], []),
    ("s4", "Both accuracies and ac curacy are reported.",
     [("accuracies", "Metric", False), ("ac curacy", "Metric", False)], [], []),
]


# Names whose keys differ in case alone (`Androids` folds to `android`, the acronym's `ANDROIDS` stays;
# `FLOPs` and `FLOPS` likewise), one of them changing type between papers: each key is its own entity
# with an id of its own. Their ids were one, and in a store of 209k real abstracts three edges came to
# point at a node nobody wrote (`dataset:androids`) when the acronym turned Method.
_CASED = [
    ("c1", "Androids is a corpus of interviews with depressed speakers.",
     [("Androids", "Dataset", False)], [], []),
    ("c2", "We evaluate InfoShield on the ANDROIDS corpus.",
     [("InfoShield", "Method", False), ("ANDROIDS", "Dataset", False)],
     [("InfoShield", "EVALUATED_ON", "ANDROIDS")], []),
    ("c3", "ANDROIDS is a method for robot control.", [("ANDROIDS", "Method", False)], [], []),
    ("c4", "ANDROIDS agents act well, as ANDROIDS planners do.", [("ANDROIDS", "Method", False)], [], []),
    ("c5", "FLOPs and FLOPS both count compute.",
     [("FLOPs", "Metric", False), ("FLOPS", "Metric", False)], [], []),
    ("c6", "A detection framework is evaluated on Androids.",
     [("detection framework", "Method", False), ("Androids", "Dataset", False)],
     [("detection framework", "EVALUATED_ON", "Androids")], []),
]


def _joined(graph: KnowledgeGraph) -> None:
    nodes = graph.nodes
    assert sorted(e.id for e in graph.edges.values() if e.source not in nodes or e.target not in nodes) == []


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_split_of_names_apart_by_case_alone_is_build_graph(data: st.DataObject) -> None:
    steps = data.draw(seed_steps(list(corpus_of(_CASED).papers.values())))
    with tempfile.TemporaryDirectory() as tmp:
        graph, present = _replay(Path(tmp), steps)
    _joined(graph)
    _assert_same(graph, build_graph(_corpus(present)))


def test_names_apart_by_case_alone_are_two_entities(tmp_path: Path) -> None:
    entries = {e.ids[0]: e for e in corpus_of(_CASED).papers.values()}
    graph, _ = _replay(tmp_path, [("add", [entries["c1"], entries["c2"], entries["c6"]]),
                                  ("add", [entries["c3"], entries["c4"], entries["c5"]])])
    _joined(graph)
    assert {"dataset:android", "method:androids", "metric:flop", "metric:flops"} <= set(graph.nodes)
    assert graph.nodes["dataset:android"].props["name"] == "Androids"
    assert ("EVALUATED_ON", "method:detection-framework", "dataset:android") in {
        (e.type, e.source, e.target) for e in graph.edges.values()}


# Inner names (`resolve.nested_mentions`): a short acronym starting another name (`MS COCO`) counts
# only where the paper writes it alone; a shown name no paper wrote (`TAPE` of `$\\textbf{TAPE}$`,
# `ViT` of `ViTs`) is not looked up, on either path.
_INNER = [
    ("n1", "Mechanical search (MS) in clutter.",
     [("Mechanical search", "Task", False), ("MS", "Task", False)], [], [("Mechanical search", "MS")]),
    ("n2", "We test on MS COCO.", [("MS COCO", "Dataset", False)], [], []),
    ("n3", "MS helps; we test on MS MARCO.", [("MS", "Task", False), ("MS MARCO", "Dataset", False)], [], []),
    ("n4", "We propose $\\textbf{TAPE}$.", [("$\\textbf{TAPE}$", "Method", True)], [], []),
    ("n5", "TAPE-Large is larger.", [("TAPE-Large", "Method", False)], [], []),
    ("n6", "ViTs and ViTs again.", [("ViTs", "Method", False)], [], []),
    ("n7", "A ViT and a ViT-Huge.", [("ViT", "Method", False), ("ViT-Huge", "Method", False)], [], []),
]


@settings(max_examples=40, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("papers", [_DPO, _MAE, _DOMINANT, _SPELLED, _INNER],
                         ids=["defined-three-ways", "defined-with-two-types", "defined-mostly-one-way",
                              "spelled-four-ways", "inner-names"])
def test_any_split_of_names_resolved_across_papers_is_build_graph(papers: list[tuple],
                                                                  data: st.DataObject) -> None:
    steps = data.draw(seed_steps(list(corpus_of(papers).papers.values())))
    with tempfile.TemporaryDirectory() as tmp:
        graph, present = _replay(Path(tmp), steps)
    _assert_same(graph, build_graph(_corpus(present)))


def test_the_seeds_in_four_builds_with_ten_removed_is_build_graph(
        tmp_path: Path, seed_entries: list[PaperEntry]) -> None:
    order = sorted(seed_entries, key=lambda e: e.key[::-1])
    gone = order[3::25][:10]
    steps = [("add", order[i::4]) for i in range(4)] + [("remove", gone)]
    graph, present = _replay(tmp_path, steps)
    assert len(present) == len(seed_entries) - 10
    _assert_same(graph, build_graph(_corpus(present)))


def test_one_build_derived_in_batches_is_build_graph(tmp_path: Path, seed_entries: list[PaperEntry]) -> None:
    """A big build derives `DERIVE_BATCH` papers at a time inside its one transaction (here 40 at a
    time, with ten papers of an earlier build removed in the same transaction)."""
    state = BuildState(tmp_path, create=True)
    gone = seed_entries[5::25][:10]
    try:
        with state.transaction() as tx:
            for entry in gone:
                add_entry(tx, entry)
            tx.derive()
        with state.transaction() as tx:
            assert tx.remove([e.ids[0] for e in gone]) == []
            for entry in seed_entries:
                if entry not in gone:
                    add_entry(tx, entry)
            delta = tx.derive(batch=40)
        assert not delta and tx.changed
        graph = state.graph()
    finally:
        state.close()
    _assert_same(graph, build_graph(_corpus([e for e in seed_entries if e not in gone])))


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_any_split_and_removal_of_papers_reporting_results_is_build_graph(data: st.DataObject) -> None:
    """Real abstracts with their gold results: `Result` nodes and their links come out of any split,
    order and removal as `build_graph` makes them (a removed paper's results go with it)."""
    from tests.graph.results_gold import gold_corpus

    steps = data.draw(_result_steps(list(gold_corpus())))
    with tempfile.TemporaryDirectory() as tmp:
        graph, present = _replay(Path(tmp), steps)
    want = build_graph(_corpus(present))
    assert any(n.label == "Result" for n in want.nodes.values()) == any(
        e.extraction is not None and e.extraction.results for e in present)
    _assert_same(graph, want)


@st.composite
def _result_steps(draw: st.DrawFn, pool: list[PaperEntry]) -> list[tuple[str, list[PaperEntry]]]:
    return _steps(draw, pool, 40)


def test_a_bare_acronym_joins_the_long_form_nine_in_ten_definitions_give(tmp_path: Path) -> None:
    entries = {e.ids[0]: e for e in corpus_of(_DOMINANT).papers.values()}

    def mentioned_by(graph: KnowledgeGraph, paper: str) -> set[str]:
        return {e.target for e in graph.edges.values()
                if e.type == "MENTIONS" and e.source == f"paper:{paper}"}

    graph, _ = _replay(tmp_path / "a", [("add", list(entries.values()))])
    assert mentioned_by(graph, "u1") == {"method:xenial-yak-zipper"}
    assert mentioned_by(graph, "u2") == {"task:xyz"}          # no definition of a Task XYZ
    graph, _ = _replay(tmp_path / "b", [("add", list(entries.values())), ("remove", [entries["x0"]])])
    assert mentioned_by(graph, "u1") == {"method:xyz"}        # 8 of 9: ambiguous, the bare acronym


def test_inner_names_count_where_written_and_not_where_they_start_another_name(tmp_path: Path) -> None:
    graph, _ = _replay(tmp_path, [("add", list(corpus_of(_INNER).papers.values()))])
    mentions = {(e.source, e.target) for e in graph.edges.values() if e.type == "MENTIONS"}
    assert ("paper:n2", "task:mechanical-search") not in mentions        # `MS COCO`
    assert ("paper:n3", "task:mechanical-search") in mentions            # n3 writes `MS` itself
    assert not {t for s, t in mentions if s == "paper:n5"} & {"method:tape"}   # `TAPE` never written so
    assert graph.nodes["method:vit"].props["name"] == "ViT"
    assert ("paper:n7", "method:vit") in mentions


def test_an_entity_is_named_by_the_spelling_written_most_often(tmp_path: Path) -> None:
    entries = {e.ids[0]: e for e in corpus_of(_SPELLED).papers.values()}
    graph, _ = _replay(tmp_path / "a", [("add", [entries["s3"]]), ("add", list(entries.values()))])
    assert [k for k in graph.nodes if k.startswith("metric:")] == ["metric:accuracy"]   # 3 against 2
    graph, _ = _replay(tmp_path / "b", [("add", list(entries.values())),
                                        ("remove", [entries["s1"], entries["s2"]])])
    _joined(graph)
    assert [k for k in graph.nodes if k.startswith("metric:")] == ["metric:ac-curacy"]  # 2 against 1
