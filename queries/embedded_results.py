"""The result queries (`leaderboard`, `results_of`, `sota_over_time`) over the embedded store's index:
the same rows, in the same order, as their `.cypher` files give on Neo4j (the parity tests compare
them). Beside `embedded_impl`, which registers them; its index keeps each result's paper
(`result_paper`), its links (`result_links`: type -> entity) and each entity's results (`results_of`:
entity -> [(link type, result)]).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paperkg.queries.embedded_impl import Index

Row = dict[str, Any]
# (score, result, paper, subject, metric, direction): one result as the rankings see it
Ranked = tuple[float, str, str, str | None, str | None, str | None]


def _score(number: float, direction: str | None) -> float:
    """What "best" maximises: the number, negated for a lower-better metric (the Cypher's CASE)."""
    return -number if direction == "lower" else number


def _ranked(ix: Index, bench: str, params: dict[str, Any], *, dated: bool) -> list[Ranked]:
    """Every result linked ON_BENCHMARK to `bench`, of the asked kind, with a number (and a year,
    when `dated`), in the asked metric (any, when the query's metric is absent)."""
    kind, metric_key, override = params["kind"], params["metric_key"], params["direction"]
    out: list[Ranked] = []
    for etype, result in ix.results_of.get(bench, ()):
        props = ix.props[result]
        if etype != "ON_BENCHMARK" or props.get("kind") != kind or props.get("number") is None:
            continue
        paper = ix.result_paper.get(result)
        if paper is None or (dated and props.get("year") is None):
            continue
        links = ix.result_links.get(result, {})
        metric = links.get("IN_METRIC")
        if metric_key is not None and (metric is None or metric_key not in ix.props[metric].get("keys", ())):
            continue
        direction = override or props.get("direction")
        out.append((_score(props["number"], direction), result, paper, links.get("ACHIEVED_BY"), metric,
                    direction))
    return out


def _prop(ix: Index, node: str | None, name: str) -> Any:
    return None if node is None else ix.props[node].get(name)


def _metric(ix: Index, metric: str | None, result: dict[str, Any]) -> Any:
    """`coalesce(m.name, r.metric)`."""
    name = _prop(ix, metric, "name")
    return result.get("metric") if name is None else name


def leaderboard(ix: Index, params: dict[str, Any]) -> list[Row]:
    rows: list[tuple[bool, int, tuple[bool, str, bool, str], float, Row]] = []
    for bench in ix.entities(params["benchmark_key"]):
        best: dict[tuple[str, str | None], tuple[float, str, Ranked]] = {}
        for ranked in _ranked(ix, bench, params, dated=False):
            score, result, paper, subject = ranked[:4]
            candidate = (-score, ix.props[result]["id"], ranked)
            if (paper, subject) not in best or candidate[:2] < best[(paper, subject)][:2]:
                best[(paper, subject)] = candidate
        groups: Counter[tuple[str | None, str | None]] = Counter()   # values compare within one only
        kept = []
        for _, _, (score, result, paper, subject, metric, direction) in best.values():
            r = ix.props[result]
            group = (r.get("metric") if metric is None else ix.props[metric]["id"], r.get("unit"))
            groups[group] += 1
            kept.append((group, score, result, paper, subject, metric, direction))
        for group, score, result, paper, subject, metric, direction in kept:
            r, p = ix.props[result], ix.props[paper]
            m, u = group
            order = (m is None, m or "", u is None, u or "")       # as Cypher sorts: null last
            rows.append((m is None, groups[group], order, score, {
                "benchmark": ix.props[bench]["id"], "subject": _prop(ix, subject, "name"),
                "subject_id": _prop(ix, subject, "id"), "subject_type": _prop(ix, subject, "type"),
                "value": r.get("display"), "number": r.get("number"), "unit": r.get("unit"),
                "metric": _metric(ix, metric, r), "metric_id": _prop(ix, metric, "id"),
                "direction": direction, "year": r.get("year"), "paper": p["id"], "title": p.get("title"),
                "evidence": r.get("evidence"), "result": r["id"], "confidence": r.get("confidence")}))
    rows.sort(key=lambda gr: (gr[0], -gr[1], gr[2], -gr[3], gr[4]["paper"], gr[4]["subject_id"] is None,
                              gr[4]["subject_id"] or "", gr[4]["result"]))
    return [row for *_, row in rows][params["offset"]:params["offset"] + params["limit"]]


def results_of(ix: Index, params: dict[str, Any]) -> list[Row]:
    rows = []
    for subject in ix.entities(params["name_key"]):
        for etype, result in ix.results_of.get(subject, ()):
            paper = ix.result_paper.get(result)
            if etype != "ACHIEVED_BY" or paper is None:
                continue
            r, p = ix.props[result], ix.props[paper]
            links = ix.result_links.get(result, {})
            bench, metric, baseline = links.get("ON_BENCHMARK"), links.get("IN_METRIC"), links.get("AGAINST")
            rows.append({
                "subject": ix.props[subject]["id"], "value": r.get("display"), "number": r.get("number"),
                "unit": r.get("unit"), "kind": r.get("kind"),
                "benchmark": r.get("benchmark") if bench is None else _prop(ix, bench, "name"),
                "benchmark_id": _prop(ix, bench, "id"), "metric": _metric(ix, metric, r),
                "metric_id": _prop(ix, metric, "id"),
                "baseline": r.get("baseline") if baseline is None else _prop(ix, baseline, "name"),
                "baseline_id": _prop(ix, baseline, "id"), "direction": r.get("direction"),
                "year": r.get("year"), "paper": p["id"], "title": p.get("title"),
                "evidence": r.get("evidence"), "result": r["id"], "confidence": r.get("confidence"),
                "start": r.get("start")})
    rows.sort(key=lambda row: (row["paper"], row["start"], row["result"], row["subject"]))
    return rows[params["offset"]:params["offset"] + params["limit"]]


def sota_over_time(ix: Index, params: dict[str, Any]) -> list[Row]:
    best: dict[int, tuple[float, str, str, Ranked]] = {}
    for bench in ix.entities(params["benchmark_key"]):
        for ranked in _ranked(ix, bench, params, dated=True):
            score, result, paper, _, metric = ranked[:5]
            if metric is None:              # MATCH, not OPTIONAL MATCH: a result in some metric
                continue
            year = ix.props[result]["year"]
            candidate = (-score, ix.props[paper]["id"], ix.props[result]["id"], ranked)
            if year not in best or candidate[:3] < best[year][:3]:
                best[year] = candidate
    rows: list[Row] = []
    earlier: list[float] = []
    for year in sorted(best):
        score, result, paper, subject, metric, direction = best[year][3]
        r, p = ix.props[result], ix.props[paper]
        rows.append({
            "year": year, "value": r.get("display"), "number": r.get("number"), "unit": r.get("unit"),
            "metric": _prop(ix, metric, "name"), "direction": direction,
            "subject": _prop(ix, subject, "name"), "subject_id": _prop(ix, subject, "id"), "paper": p["id"],
            "title": p.get("title"),
            "evidence": r.get("evidence"), "result": r["id"], "record": all(score > s for s in earlier)})
        earlier.append(score)
    return rows
