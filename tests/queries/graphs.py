"""Small graphs for the query tests: one written by hand (expected rows can be worked out on paper)
and a seeded random one (many shapes: shared acronyms, two-way relations, ties everywhere)."""

from __future__ import annotations

import random
from collections import defaultdict

from paperkg.graph.model import (
    ENTITY_LABELS,
    RELATION_TYPES,
    Edge,
    KnowledgeGraph,
    Node,
    collection_id,
    node_key,
)
from paperkg.graph.normalize import compact_key

GRPO = "method:grpo"
PPO = "method:ppo"
DYNPROG = "method:dynamic-programming"
DIFFPRIV = "method:differential-privacy"
QWEN = "model:qwen3-8b"
GSM8K = "dataset:gsm8k"
MATH = "benchmark:math"
ACC = "metric:accuracy"
REASONING = "task:mathematical-reasoning"
NEURIPS = collection_id("NeurIPS 2026")
DAILY = collection_id("Daily Papers")


def _entity(label: str, eid: str, name: str, aliases: list[str], papers: int, introduced: int = 0,
            **extra: object) -> Node:
    props: dict[str, object] = {
        "id": eid, "type": label, "name": name, "aliases": sorted(aliases),
        "keys": sorted({compact_key(a) for a in aliases}), "paper_count": papers,
        "introduced_count": introduced, **extra,
    }
    return Node(label, eid, props)


def _mention(graph: KnowledgeGraph, paper: str, entity: str, count: int = 1) -> None:
    graph.add_edge(Edge("MENTIONS", node_key("Paper", paper), entity, {
        "count": count, "sentences": [0] * count, "starts": list(range(count)),
        "ends": list(range(1, count + 1)), "surfaces": ["x"] * count}))


def _relation(graph: KnowledgeGraph, rtype: str, head: str, tail: str, papers: list[str],
              confidence: float | None = None) -> None:
    props: dict[str, object] = {"papers": sorted(papers), "support": len(papers),
                                "evidence": ["..."] * len(papers)}
    if confidence is not None:
        props["confidence"] = confidence
    graph.add_edge(Edge(rtype, head, tail, props))


def _count_years(graph: KnowledgeGraph) -> KnowledgeGraph:
    """Each entity's papers by year (`years`, `papers_per_year`), as the builder gives them from its
    MENTIONS and the papers' years: `trending` reads them on Neo4j."""
    per_year: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for edge in graph.edges.values():
        year = graph.nodes[edge.source].props.get("year") if edge.type == "MENTIONS" else None
        if year is not None:
            per_year[edge.target][year].add(edge.source)
    for eid, years in per_year.items():
        ordered = sorted(years)
        graph.nodes[eid].props.update(years=ordered, papers_per_year=[len(years[y]) for y in ordered])
    return graph


def tiny_graph() -> KnowledgeGraph:
    """Four papers, nine entities. `DP` names two methods; GRPO and PPO are compared both ways (PPO
    vs GRPO with confidence 0.4);
    p4 is an island; GRPO -> GSM8K -> accuracy ties with the paper routes (and wins on ids)."""
    g = KnowledgeGraph()
    g.add_node(Node("Paper", "p1", {"id": "p1", "abstract": "a1", "ids": ["p1"], "title": "First",
                                    "year": 2025}))
    g.add_node(Node("Paper", "p2", {"id": "p2", "abstract": "a2", "ids": ["p2"]}))
    g.add_node(Node("Paper", "p3", {"id": "p3", "abstract": "a3", "ids": ["p3", "p3b"], "title": "Third",
                                    "sentence_starts": [0], "categories": ["cs.LG", "stat.ML"],
                                    "doi": "10.1000/third"}))
    g.add_node(Node("Paper", "p4", {"id": "p4", "abstract": "a4", "ids": ["p4"], "year": 2026}))
    g.add_node(Node("Collection", NEURIPS, {"id": NEURIPS, "name": "NeurIPS 2026", "paper_count": 2}))
    g.add_node(Node("Collection", DAILY, {"id": DAILY, "name": "Daily Papers", "paper_count": 3}))
    for paper, coll in (("p1", NEURIPS), ("p2", NEURIPS), ("p2", DAILY), ("p3", DAILY), ("p4", DAILY)):
        g.add_edge(Edge("IN_COLLECTION", node_key("Paper", paper), coll))
    g.add_node(_entity("Method", GRPO, "GRPO", ["GRPO", "Group Relative Policy Optimization"], 3, 1,
                       first_year=2025, last_year=2026, confidence=0.9))
    g.add_node(_entity("Method", PPO, "PPO", ["PPO", "Proximal Policy Optimization"], 2))
    g.add_node(_entity("Method", DYNPROG, "dynamic programming", ["DP", "dynamic programming"], 1))
    g.add_node(_entity("Method", DIFFPRIV, "differential privacy", ["DP", "differential privacy"], 1, 1))
    g.add_node(_entity("Model", QWEN, "Qwen3-8B", ["Qwen3-8B", "Qwen3 8B"], 2, family="Qwen",
                       family_key="qwen"))
    g.add_node(_entity("Dataset", GSM8K, "GSM8K", ["GSM8K", "GSM-8K"], 2))
    g.add_node(_entity("Benchmark", MATH, "MATH", ["MATH"], 1, ambiguous=True))
    g.add_node(_entity("Metric", ACC, "accuracy", ["accuracy", "Accuracy"], 3))
    g.add_node(_entity("Task", REASONING, "mathematical reasoning", ["mathematical reasoning"], 1, 1))
    for paper, entity, count in (
        ("p1", GRPO, 2), ("p1", PPO, 1), ("p1", GSM8K, 1), ("p1", ACC, 1), ("p1", QWEN, 1),
        ("p2", GRPO, 1), ("p2", GSM8K, 1), ("p2", MATH, 1), ("p2", ACC, 1), ("p2", DYNPROG, 1),
        ("p3", GRPO, 1), ("p3", PPO, 1), ("p3", ACC, 2), ("p3", DIFFPRIV, 1), ("p3", QWEN, 1),
        ("p4", REASONING, 1),
    ):
        _mention(g, paper, entity, count)
    for paper, entity in (("p1", GRPO), ("p3", DIFFPRIV), ("p4", REASONING)):
        g.add_edge(Edge("INTRODUCES", node_key("Paper", paper), entity, {"sentence": 0}))
    _relation(g, "EVALUATED_ON", GRPO, GSM8K, ["p1", "p2"])
    _relation(g, "EVALUATED_ON", QWEN, GSM8K, ["p1"])
    _relation(g, "EVALUATED_ON", GRPO, MATH, ["p2"])
    _relation(g, "COMPARED_WITH", GRPO, PPO, ["p1", "p3"])
    _relation(g, "COMPARED_WITH", PPO, GRPO, ["p3"], confidence=0.4)   # the others have none: 1.0
    _relation(g, "USES", QWEN, GRPO, ["p3"])
    _relation(g, "MEASURED_BY", GSM8K, ACC, ["p1"])
    # results: on GSM8K in accuracy, GRPO twice in p1 (80.0, 78.0), PPO in p1, GRPO in p3 (no year),
    # no subject in p4; a delta of GRPO against PPO in p2; an error rate (no metric entity) on MATH
    on_gsm8k = {"ON_BENCHMARK": GSM8K, "IN_METRIC": ACC}
    for rid, paper, start, value, kind, links, extra in (
        ("r1", "p1", 10, 80.0, "absolute", {"ACHIEVED_BY": GRPO, **on_gsm8k}, {}),
        ("r7", "p1", 40, 78.0, "absolute", {"ACHIEVED_BY": GRPO, **on_gsm8k}, {}),
        ("r2", "p1", 20, 75.5, "absolute", {"ACHIEVED_BY": PPO, **on_gsm8k}, {}),
        ("r6", "p1", 60, 12.0, "absolute", {"ACHIEVED_BY": GRPO, "ON_BENCHMARK": MATH},
         {"metric": "error rate", "direction": "lower"}),
        ("r5", "p2", 5, 3.2, "delta", {"ACHIEVED_BY": GRPO, "ON_BENCHMARK": GSM8K, "AGAINST": PPO},
         {"unit": "pp", "baseline": "PPO"}),
        ("r3", "p3", 7, 82.1, "absolute", {"ACHIEVED_BY": GRPO, **on_gsm8k}, {}),
        ("r4", "p4", 3, 85.0, "absolute", on_gsm8k, {}),
    ):
        _result(g, rid, paper, start, value, kind, links, **extra)
    return _count_years(g)


def _result(graph: KnowledgeGraph, rid: str, paper: str, start: int, number: float, kind: str,
            links: dict[str, str], **extra: object) -> None:
    """A `Result` of `paper` (graph/model.py) with its REPORTS edge and links; its year is its paper's;
    `rid` names it in the evidence."""
    node_id = f"result:{paper}:{start}"
    year = graph.nodes[node_key("Paper", paper)].props.get("year")
    display = f"{number:g}" + ("%" if kind == "absolute" else " pp")
    props: dict[str, object] = {
        "id": node_id, "paper": paper, "value": display, "display": display, "number": number,
        "kind": kind, "unit": "%" if kind == "absolute" else "", "confidence": 0.8, "sentence": 0,
        "start": start, "end": start + 4, "evidence": f"sentence of {rid}", "direction": "higher", **extra}
    if year is not None:
        props["year"] = year
    graph.add_node(Node("Result", node_id, props))
    graph.add_edge(Edge("REPORTS", node_key("Paper", paper), node_id))
    for etype, target in links.items():
        graph.add_edge(Edge(etype, node_id, target))


_SYLLABLES = ["ra", "po", "dp", "gr", "mo", "qi", "te", "la", "xe", "nu"]


def random_graph(seed: int, papers: int = 60, entities: int = 45, per_paper: int = 6,
                 relations: int = 90) -> KnowledgeGraph:
    """A random but well-formed graph (sparse with small `per_paper`/`relations`: long paths): props
    consistent with edges, short names so keys collide
    across entities (several entities per acronym), relations in both directions, parallel
    relations of different types, and collections sharing papers."""
    rng = random.Random(seed)
    g = KnowledgeGraph()
    colls = [collection_id(n) for n in ("Alpha Coll", "Beta Coll", "Gamma Coll")]
    pids = [f"{rng.randrange(16**6):06x}{i:02d}" for i in range(papers)]
    members: dict[str, list[str]] = defaultdict(list)
    for pid in pids:
        props: dict[str, object] = {"id": pid, "abstract": "text", "ids": [pid]}
        if rng.random() < 0.5:
            props["title"] = rng.choice(["A", "B", "C"]) + pid[:2]
        if rng.random() < 0.5:
            props["year"] = rng.choice([2024, 2025, 2026])
        g.add_node(Node("Paper", pid, props))
        for cid in rng.sample(colls, rng.choice([0, 1, 1, 2])):
            members[cid].append(pid)
            g.add_edge(Edge("IN_COLLECTION", node_key("Paper", pid), cid))
    for cid, name in zip(colls, ("Alpha Coll", "Beta Coll", "Gamma Coll"), strict=True):
        if members[cid]:
            g.add_node(Node("Collection", cid, {"id": cid, "name": name, "paper_count": len(members[cid])}))
    ents: list[str] = []
    mention_papers: dict[str, set[str]] = defaultdict(set)
    intro_papers: dict[str, set[str]] = defaultdict(set)
    specs = []
    for i in range(entities):
        label = rng.choice(ENTITY_LABELS)
        short = "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice([1, 1, 2]))).upper()
        long_form = " ".join(rng.choice(_SYLLABLES) + rng.choice(_SYLLABLES) for _ in range(2))
        eid = f"{label.lower()}:e{i:02d}-{short.lower()}"
        specs.append((label, eid, short, long_form))
        ents.append(eid)
    for pid in pids:
        for eid in rng.sample(ents, rng.randint(0, per_paper)):
            mention_papers[eid].add(pid)
            _mention(g, pid, eid, rng.randint(1, 3))
            if rng.random() < 0.15:
                intro_papers[eid].add(pid)
                g.add_edge(Edge("INTRODUCES", node_key("Paper", pid), eid, {"sentence": 0}))
    for label, eid, short, long_form in specs:
        if not mention_papers[eid]:     # the builder makes no node for an unmentioned entity
            continue
        aliases = [short, long_form] if rng.random() < 0.7 else [short]
        extra: dict[str, object] = {}
        if label == "Model":
            extra["family"] = short[:2]         # often another entity's name too (`RA`)
            extra["family_key"] = compact_key(short[:2])
        if rng.random() < 0.1:
            extra["ambiguous"] = True
        g.add_node(_entity(label, eid, rng.choice(aliases), aliases, len(mention_papers[eid]),
                           len(intro_papers[eid]), **extra))
    live = [eid for eid in ents if eid in g.nodes]
    methods = [e for e in live if g.nodes[e].label in ("Method", "Model")]
    datasets = [e for e in live if g.nodes[e].label in ("Dataset", "Benchmark")]
    for _ in range(relations):
        head, tail = rng.sample(live, 2)
        rtype = rng.choice(RELATION_TYPES)
        # mostly the shapes the extractor states (method EVALUATED_ON dataset, method vs method)
        if rtype == "EVALUATED_ON" and methods and datasets and rng.random() < 0.8:
            head, tail = rng.choice(methods), rng.choice(datasets)
        elif rtype == "COMPARED_WITH" and len(methods) > 1 and rng.random() < 0.8:
            head, tail = rng.sample(methods, 2)
        papers_ = sorted(rng.sample(pids, rng.randint(1, 3)))
        _relation(g, rtype, head, tail, papers_)
    # edges to entities that got no node are dropped (an unmentioned entity has no node)
    g.edges = {k: e for k, e in g.edges.items() if e.source in g.nodes and e.target in g.nodes}
    # confidences from their own generator, so the graph's shape stays what it was for each seed: on
    # most relations (ties included), none on the rest (read as 1.0)
    conf_rng = random.Random(seed + 7919)
    for key in sorted(g.edges):
        edge = g.edges[key]
        if edge.type in RELATION_TYPES and conf_rng.random() < 0.8:
            edge.props["confidence"] = conf_rng.choice([0.3, 0.5, 0.5, 0.75, 0.9, 1.0, 0.61803])
    return _count_years(g)


# Names whose compact keys hold every character Lucene's query syntax gives a meaning to, and names
# that differ from another only by such a character (`C+` / `C++`, `Q*` / `Q`), for the full-text
# entity lookup on Neo4j: an exact key must find exactly its entities, never a near miss.
SPECIAL_NAMES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Method", ("C++", "cpp")),
    ("Method", ("C+",)),
    ("Method", ("C",)),
    ("Model", ("GPT-4.5", "GPT 4.5")),
    ("Model", ("GPT-4",)),
    ("Dataset", ("A/B:test",)),
    ("Dataset", ("f(x) data",)),
    ("Metric", ('"exact" match',)),
    ("Method", ("back\\slash",)),
    ("Method", ("$RL",)),
    ("Task", ("AND",)),
    ("Task", ("NOT OR",)),
    ("Benchmark", ("Q*", "Q-star")),
    ("Benchmark", ("Q",)),
    ("Metric", ("x^2~",)),
    ("Method", ("[CLS]{pool}!",)),
    ("Method", ("a && b || c",)),
    ("Method", ("k-NN?",)),
    ("Dataset", ("http://x.y:80/z",)),
    ("Model", ("trail\\",)),
)
# Near misses of the names above: each must find nothing (or only its own exact entity).
NEAR_MISSES: tuple[str, ...] = ("C+++", "GPT4", "Q**", "A/B", "f(x", "exact", "back", "back\\\\slash",
                                "RL", "and", "x^2", "CLS", "k-NN", "a*", "x.y", "trail", "4.5", "c?")


def special_names_graph() -> KnowledgeGraph:
    """`tiny_graph` plus entities named with Lucene's special characters (`SPECIAL_NAMES`), each
    mentioned by some papers and related to a neighbour, so every entity query has rows for them."""
    from paperkg.graph.model import entity_id

    g = tiny_graph()
    papers = ["p1", "p2", "p3", "p4"]
    eids = []
    for i, (label, aliases) in enumerate(SPECIAL_NAMES):
        eid = entity_id(label, aliases[0])
        mentioned = papers[i % 4:] + papers[:i % 2]
        g.add_node(_entity(label, eid, aliases[0], list(aliases), len(set(mentioned))))
        for paper in sorted(set(mentioned)):
            _mention(g, paper, eid, 1 + i % 3)
        eids.append(eid)
    assert len(set(eids)) == len(eids)
    for head, tail, rtype in ((0, 3, "COMPARED_WITH"), (3, 5, "EVALUATED_ON"), (9, 6, "EVALUATED_ON"),
                              (16, 12, "EVALUATED_ON"), (1, 0, "COMPARED_WITH"), (17, 18, "EVALUATED_ON"),
                              (8, 7, "MEASURED_BY"), (19, 4, "USES"), (10, 11, "ADDRESSES")):
        _relation(g, rtype, eids[head], eids[tail], ["p1", "p3"][: 1 + head % 2])
    return _count_years(g)


def trending_graph(steady: int = 2000, new: int = 300, rising: int = 4) -> KnowledgeGraph:
    """More entities than `trending` reads first on Neo4j (1,000, by papers): `steady` Methods with a
    paper in 2025 and one in 2026 (growth 0), `new` ones with a 2026 paper alone (growth 1, fewer
    papers than any steady one) and `rising` ones in 2 + i papers of 2026. The rising lead while a
    window counts them; in a window that does not, the answer lies outside the 1,000 read first."""
    g = KnowledgeGraph()
    for year in (2025, 2026):
        for i in range(200):
            pid = f"p{year}-{i}"
            g.add_node(Node("Paper", pid, {"id": pid, "abstract": "text", "ids": [pid], "year": year}))
    groups = [("steady", steady, lambda i: [f"p2025-{i % 200}", f"p2026-{i % 200}"]),
              ("new", new, lambda i: [f"p2026-{i % 200}"]),
              ("rising", rising, lambda i: [f"p2026-{k}" for k in range(2 + i)])]
    for kind, count, papers_of in groups:
        for i in range(count):
            eid = f"method:{kind}-{i:04d}"
            g.add_node(_entity("Method", eid, f"{kind} {i:04d}", [f"{kind} {i:04d}"], len(papers_of(i))))
            for pid in papers_of(i):
                _mention(g, pid, eid)
    return _count_years(g)

