"""The rules by which a delta changes the stored figures (graph/neo4j_figures.py), each checked
against figures computed from scratch; the real-engine check of the same is in test_neo4j_store.py
(a delta's figures equal a full save's)."""

from __future__ import annotations

from collections import Counter

from paperkg.graph import neo4j_figures as figures
from paperkg.graph.neo4j_figures import Links


def _co_from_scratch(papers: dict[str, Links], entity: str, names: dict[str, tuple[str, str]], limit: int
                     ) -> dict[str, figures.CoRow]:
    """What figures_co.cypher keeps for `entity`: the first `limit` co-mentions of each type in the
    order papers desc, name, id, by other id."""
    counts = _counts(papers, entity)
    return _co_from_scratch_rows({o: (o, *names[o], n) for o, n in counts.items()}, limit)


def _changed(stored: dict[str, figures.CoRow], changes: Counter[str], names: dict[str, tuple[str, str]],
             renamed: dict[str, tuple[str, str]], limit: int, exact: Counter[str] | None = None
             ) -> dict[str, figures.CoRow] | None:
    """Apply `change_co` as the store does: the entries it reads, the change, the exact counts of the
    outsiders it asks for, then each type cut back to `limit`."""
    sizes = Counter(row[2] for row in stored.values())
    asked = {o: row for o, row in stored.items() if o in changes or o in renamed}
    types = figures.co_types(asked, changes, names, renamed)
    change = figures.change_co(asked, {t: sizes[t] for t in types}, changes, names, renamed, limit)
    if change is None:
        return None
    assert not change.exact or exact is not None
    rows = dict(stored)
    for other in change.drop:
        del rows[other]
    rows.update((row[0], row) for row in change.put)
    for etype, n in change.sizes.items():          # the sizes it reports are the entries' own
        assert sum(1 for row in rows.values() if row[2] == etype) == n, etype
    rows.update((o, (o, *names[o], exact[o])) for o in change.exact if exact and exact[o] > 0)
    return _co_from_scratch_rows(rows, limit)


def _co_from_scratch_rows(rows: dict[str, figures.CoRow], limit: int) -> dict[str, figures.CoRow]:
    """The first `limit` of each type of `rows` in the order papers desc, name, id."""
    ranked = sorted(rows.values(), key=lambda r: (-r[3], r[1], r[0]))
    per_type: Counter[str] = Counter()
    kept = {}
    for row in ranked:
        per_type[row[2]] += 1
        if per_type[row[2]] <= limit:
            kept[row[0]] = row
    return kept


NAMES = {f"e{i}": (f"E{i}", "Method" if i % 2 else "Dataset") for i in range(8)}


def _paper(*entities: int) -> Links:
    return Links(mentions=frozenset(f"e{i}" for i in entities))


def _counts(papers: dict[str, Links], entity: str) -> Counter[str]:
    return Counter(o for p in papers.values() if entity in p.mentions for o in p.mentions if o != entity)


def test_additions_change_only_their_entries_and_ask_only_for_outsiders_of_full_types() -> None:
    before = {"p1": _paper(0, 1, 2), "p2": _paper(0, 1, 3), "p3": _paper(0, 4, 5)}
    after = {**before, "p4": _paper(0, 5, 6), "p5": _paper(0, 3, 5)}
    limit = 1
    stored = _co_from_scratch(before, "e0", NAMES, limit)
    changes = figures.co_changes(before, after)["e0"]
    asked = {o: row for o, row in stored.items() if o in changes}
    sizes = Counter(row[2] for row in stored.values())
    change = figures.change_co(asked, sizes, changes, NAMES, {}, limit)
    assert change is not None
    assert change.exact == ["e3", "e5", "e6"]            # outsiders of full types that grew
    assert {row[0] for row in change.put} <= set(changes) and not change.drop
    merged = _changed(stored, changes, NAMES, {}, limit, _counts(after, "e0"))
    assert merged == _co_from_scratch(after, "e0", NAMES, limit)


def test_a_type_that_fills_up_is_cut_back_and_a_count_at_zero_goes() -> None:
    before = {"p1": _paper(0, 1), "p2": _paper(0, 2)}
    after = {"p2": _paper(0, 2), "p3": _paper(0, 3, 5, 7)}       # e1 gone from e0; three Methods
    stored = _co_from_scratch(before, "e0", NAMES, 2)
    changes = figures.co_changes(before, after)["e0"]
    change = figures.change_co({o: r for o, r in stored.items() if o in changes},
                               Counter(r[2] for r in stored.values()), changes, NAMES, {}, 2)
    assert change is not None and change.drop == ["e1"] and change.sizes["Method"] == 3
    assert _changed(stored, changes, NAMES, {}, 2) == _co_from_scratch(after, "e0", NAMES, 2)


def test_a_kept_entry_shrinking_at_a_cut_asks_for_a_recompute() -> None:
    before = {"p1": _paper(0, 1), "p2": _paper(0, 1), "p3": _paper(0, 3)}
    after = {"p1": _paper(0, 1), "p3": _paper(0, 3)}
    changes = figures.co_changes(before, after)["e0"]
    stored = _co_from_scratch(before, "e0", NAMES, 1)          # e1 (2 papers) kept, e3 (Method) cut
    assert _changed(stored, changes, NAMES, {}, 1) is None
    uncut = _co_from_scratch(before, "e0", NAMES, 10)
    assert _changed(uncut, changes, NAMES, {}, 10) == _co_from_scratch(after, "e0", NAMES, 10)


def test_a_rename_is_changed_in_place_unless_near_a_cut() -> None:
    papers = {"p1": _paper(0, 1, 3), "p2": _paper(0, 3)}
    renamed = {**NAMES, "e3": ("AAA", "Method")}
    stored = _co_from_scratch(papers, "e0", NAMES, 10)
    assert _changed(stored, Counter(), renamed, {"e3": NAMES["e3"]}, 10) == _co_from_scratch(
        papers, "e0", renamed, 10)
    retyped = {**NAMES, "e3": ("E3", "Dataset")}
    assert _changed(stored, Counter(), retyped, {"e3": NAMES["e3"]}, 10) == _co_from_scratch(
        papers, "e0", retyped, 10)
    cut = _co_from_scratch(papers, "e0", NAMES, 1)
    assert _changed(cut, Counter(), renamed, {"e3": NAMES["e3"]}, 1) is None


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
