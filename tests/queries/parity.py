"""Shared helpers for the cross-store parity tests: parameter cases and row comparison."""

from __future__ import annotations

import random
from typing import Any

from paperkg.graph.embedded import to_networkx
from paperkg.graph.errors import UnknownEntityError
from paperkg.graph.model import ENTITY_LABELS, KnowledgeGraph
from paperkg.queries.catalog import load_catalog
from paperkg.queries.runner import run_named


class GraphOnly:
    """An embedded-store stand-in over a KnowledgeGraph: a `GraphView` (what `run_named` needs)."""

    kind = "embedded"

    def __init__(self, graph: KnowledgeGraph) -> None:
        self._nx = to_networkx(graph)

    def networkx(self) -> Any:
        return self._nx


def _variants(name: str, rng: random.Random) -> str:
    """The same name typed differently: case, dashes, spaces."""
    choice = rng.randrange(4)
    if choice == 0:
        return name.upper()
    if choice == 1:
        return name.lower().replace(" ", "-")
    if choice == 2:
        return f"  {name.replace('-', ' ')} "
    return name


def cases(graph: KnowledgeGraph, seed: int, per_query: int = 12) -> list[tuple[str, dict[str, Any]]]:
    """(query name, params) pairs that exercise every catalog query on `graph`: examples, names
    typed differently, names of several entities, unknown names, both limits' edges."""
    rng = random.Random(seed)
    aliases = sorted({a for n in graph.nodes.values() for a in n.props.get("aliases", [])})
    collections = sorted(n.props["name"] for n in graph.nodes.values() if n.label == "Collection")
    keys = sorted({k for n in graph.nodes.values() for k in n.props.get("keys", [])})
    families = sorted({n.props["family"] for n in graph.nodes.values() if n.props.get("family")})
    paper_ids = sorted({i for n in graph.nodes.values() if n.label == "Paper" for i in n.props["ids"]})

    by_label: dict[str, list[str]] = {}
    for node in graph.nodes.values():
        for alias in node.props.get("aliases", []):
            by_label.setdefault(node.label, []).append(alias)

    def name(*labels: str) -> str:
        if rng.random() < 0.05:
            return "no such entity"
        pool = sorted({a for label in labels for a in by_label.get(label, [])})
        if not pool or rng.random() < 0.2:
            pool = aliases
        return _variants(rng.choice(pool), rng)

    def family() -> str:
        """A family's name, typed differently: usually no entity's name."""
        return _variants(rng.choice(families or ["no such family"]), rng)

    def maybe_type() -> str | None:
        return rng.choice([None, None, *ENTITY_LABELS])

    def limit() -> int:
        return rng.choice([1, 2, 3, 5, 1000])

    def page() -> dict[str, int | None]:
        return {"limit": rng.choice([None, 1, 2, 3, 1000]), "offset": rng.choice([None, 0, 1, 2])}

    def floor() -> dict[str, float | None]:
        return {"min_confidence": rng.choice([None, None, 0.0, 0.3, 0.5, 0.75, 0.9, 1.0])}

    def maybe(make: Any, *args: str) -> Any:
        return make(*args) if rng.random() < 0.5 else None

    def results() -> dict[str, str | None]:
        return {"kind": rng.choice([None, "absolute", "absolute", "delta", "ratio"]),
                "direction": rng.choice([None, None, "higher", "lower"])}

    years = sorted({n.props["year"] for n in graph.nodes.values() if n.label == "Paper"
                    and isinstance(n.props.get("year"), int)})

    makers = {
        "entity_search": lambda: {"q": rng.choice(keys)[rng.randrange(2):][:rng.randint(1, 4)] or "a",
                                  "type": maybe_type(), "limit": limit(), "offset": rng.choice([0, 0, 1, 3])},
        "entity": lambda: {"name": name()},
        "neighbors": lambda: {"name": name(), "limit": limit(), "offset": rng.choice([0, 0, 1, 2]),
                              **floor()},
        "papers_mentioning": lambda: {"name": name(), "limit": rng.choice([None, 1, 2, 3, 1000]),
                                      "offset": rng.choice([None, 0, 1, 2, 5])},
        "papers_with_all": lambda: {"names": [name() for _ in range(rng.randint(1, 3))], **page()},
        "evaluated_on": lambda: {"name": name("Dataset", "Benchmark"), **page(), **floor()},
        "benchmarks_of": lambda: {"name": name("Method", "Model"), **page(), **floor()},
        "compared_with": lambda: {"name": name("Method", "Model"), **page(), **floor()},
        "timeline": lambda: {"name": name()},
        "trending": lambda: {"type": maybe_type(), "limit": limit(),
                             "since": rng.choice([None, None, *years, (years or [2000])[0] - 1, 9999]),
                             "min_papers": rng.choice([None, 1, 1, 2, 3])},
        "top_entities": lambda: {"type": rng.choice(ENTITY_LABELS), "limit": limit()},
        "family": lambda: {"name": family() if rng.random() < 0.4 else name("Model"), **page()},
        "cooccurring": lambda: {"name": name(), "type": maybe_type(), "limit": limit()},
        "introduced_in": lambda: {"collection": rng.choice([*collections, "Nowhere"]), "limit": limit()},
        "shortest_path": lambda: {"from": name(), "to": name()},
        "paper": lambda: {"id": rng.choice([*paper_ids, "no-such-paper"])},
        "leaderboard": lambda: {"benchmark": name("Dataset", "Benchmark"), "metric": maybe(name, "Metric"),
                                **results(), **page()},
        "results_of": lambda: {"name": name("Method", "Model"), **page()},
        "sota_over_time": lambda: {"benchmark": name("Dataset", "Benchmark"), "metric": name("Metric"),
                                   **results()},
    }
    out: list[tuple[str, dict[str, Any]]] = []
    for qname in sorted(load_catalog()):
        make = makers[qname]
        for _ in range(per_query):
            params = {k: v for k, v in make().items() if v is not None}
            out.append((qname, params))
    return out


def rows_or_unknown(store: Any, qname: str, params: dict[str, Any]) -> list[Any]:
    """The rows, or for a name no entity has, one marker row naming it: both stores must refuse the
    same names (their suggestions come from different candidate searches, so are not compared)."""
    try:
        return run_named(store, qname, params)
    except UnknownEntityError as err:
        return [("unknown entity", err.message.split(" (did you mean")[0])]


def compare(left: Any, right: Any, todo: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Run every case on both stores; a description of each difference (empty when all agree).
    Every catalog query sets a total order, so rows are compared in order unless it says otherwise."""
    catalog = load_catalog()
    problems = []
    for qname, params in todo:
        a = rows_or_unknown(left, qname, params)
        b = rows_or_unknown(right, qname, params)
        if not catalog[qname].ordered:
            a, b = sorted(a, key=repr), sorted(b, key=repr)
        if a != b:
            pairs = enumerate(zip(a, b, strict=False))
            first = next((i for i, (x, y) in pairs if x != y), min(len(a), len(b)))
            problems.append(f"{qname}({params}): {len(a)} vs {len(b)} rows; first difference at row "
                            f"{first}: {a[first] if first < len(a) else None} != "
                            f"{b[first] if first < len(b) else None}")
    return problems
