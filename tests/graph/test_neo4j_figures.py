"""The rules by which a delta changes the stored figure lists (graph/neo4j_figures.py), each
checked against lists computed from scratch; the real-engine check of the same is in
test_neo4j_store.py (a delta's lists equal a full save's)."""

from __future__ import annotations

from collections import Counter

from paperkg.graph import neo4j_figures as figures
from paperkg.graph.neo4j_figures import Links


def _co_from_scratch(papers: dict[str, Links], entity: str, names: dict[str, tuple[str, str]], limit: int
                     ) -> list[figures.CoRow]:
    counts: Counter[str] = Counter()
    for links in papers.values():
        if entity in links.mentions:
            counts.update(o for o in links.mentions if o != entity)
    return figures.cut_co([(o, *names[o], n) for o, n in counts.items()], limit)


NAMES = {f"e{i}": (f"E{i}", "Method" if i % 2 else "Dataset") for i in range(8)}


def _paper(*entities: int) -> Links:
    return Links(mentions=frozenset(f"e{i}" for i in entities))


def test_additions_merge_exactly_and_ask_only_for_entries_past_a_cut() -> None:
    before = {"p1": _paper(0, 1, 2), "p2": _paper(0, 1, 3), "p3": _paper(0, 4, 5)}
    after = {**before, "p4": _paper(0, 5, 6), "p5": _paper(0, 3, 5)}
    limit = 1
    stored = _co_from_scratch(before, "e0", NAMES, limit)
    changes = figures.co_changes(before, after)["e0"]
    rows, exact = figures.merge_co(stored, changes, NAMES, {}, limit)
    assert rows is not None
    assert sorted(exact) == ["e3", "e5", "e6"]          # outsiders of cut lists that grew
    counts = Counter(o for p in after.values() if "e0" in p.mentions for o in p.mentions if o != "e0")
    merged = figures.finish_co(rows, {o: counts[o] for o in exact}, NAMES, limit)
    assert merged == _co_from_scratch(after, "e0", NAMES, limit)


def test_a_kept_entry_shrinking_at_a_cut_asks_for_a_recompute() -> None:
    before = {"p1": _paper(0, 1), "p2": _paper(0, 1), "p3": _paper(0, 3)}
    after = {"p1": _paper(0, 1), "p3": _paper(0, 3)}
    stored = _co_from_scratch(before, "e0", NAMES, 1)          # e1 (2 papers) kept, e3 (Method) cut
    rows, _ = figures.merge_co(stored, figures.co_changes(before, after)["e0"], NAMES, {}, 1)
    assert rows is None
    uncut = _co_from_scratch(before, "e0", NAMES, 10)
    rows, exact = figures.merge_co(uncut, figures.co_changes(before, after)["e0"], NAMES, {}, 10)
    assert rows is not None and not exact
    assert figures.cut_co(rows, 10) == _co_from_scratch(after, "e0", NAMES, 10)


def test_a_rename_is_changed_in_place_unless_near_a_cut() -> None:
    papers = {"p1": _paper(0, 1, 3), "p2": _paper(0, 3)}
    renamed = {**NAMES, "e3": ("AAA", "Method")}
    stored = _co_from_scratch(papers, "e0", NAMES, 10)
    rows, exact = figures.merge_co(stored, {}, renamed, {"e3": NAMES["e3"]}, 10)
    assert rows is not None and not exact
    assert figures.cut_co(rows, 10) == _co_from_scratch(papers, "e0", renamed, 10)
    cut = _co_from_scratch(papers, "e0", NAMES, 1)
    assert figures.merge_co(cut, {}, renamed, {"e3": NAMES["e3"]}, 1)[0] is None


def test_introductions_take_exact_counts_and_recompute_a_cut_list_that_shrinks() -> None:
    stored = [("e1", "E1", "Method", 3, "p1"), ("e2", "E2", "Dataset", 2, "p4")]
    grown = figures.merge_intro(stored, {"e2": (4, "p0")}, NAMES, {}, 2)
    assert grown == [("e2", "E2", "Dataset", 4, "p0"), ("e1", "E1", "Method", 3, "p1")]
    assert figures.merge_intro(stored, {"e1": (1, "p1")}, NAMES, {}, 2) is None
    assert figures.merge_intro(stored, {"e1": (0, None)}, NAMES, {}, 5) == [stored[1]]
    pairs = figures.intro_pairs({"p1": Links(introduces=frozenset({"e1"}), collections=frozenset({"c"}))},
                                {"p1": Links(introduces=frozenset({"e1"}), collections=frozenset({"c"})),
                                 "p9": Links(introduces=frozenset({"e2"}), collections=frozenset({"c"}))})
    assert pairs == {("c", "e2")}
