"""The catalog files: names, headers, parameters and examples, and the JSON the CLI and API publish."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from paperkg.graph.metric_direction import DIRECTIONS
from paperkg.graph.model import ENTITY_LABELS, RELATION_TYPES, RESULT_EDGE_TYPES
from paperkg.queries.catalog import catalog_json, load_catalog, parse_query
from paperkg.queries.params import PARAM_TYPES

NAMES = {"entity_search", "entity", "neighbors", "papers_mentioning", "papers_with_all", "evaluated_on",
         "benchmarks_of", "compared_with", "top_entities", "cooccurring", "introduced_in", "shortest_path",
         "paper", "timeline", "trending", "family", "leaderboard", "results_of", "sota_over_time"}
SIGNATURES = {   # (required, optional) parameter names, as issue 5 gives them
    "entity_search": ({"q"}, {"type", "limit", "offset"}),   # offset: for the API's paging
    "entity": ({"name"}, set()),
    "neighbors": ({"name"}, {"limit", "offset", "min_confidence"}),
    "papers_mentioning": ({"name"}, {"limit", "offset"}),
    "papers_with_all": ({"names"}, {"limit", "offset"}),
    "evaluated_on": ({"name"}, {"limit", "offset", "min_confidence"}),
    "benchmarks_of": ({"name"}, {"limit", "offset", "min_confidence"}),
    "compared_with": ({"name"}, {"limit", "offset", "min_confidence"}),
    "top_entities": ({"type"}, {"limit"}),
    "family": ({"name"}, {"limit", "offset"}),
    "cooccurring": ({"name"}, {"type", "limit"}),
    "introduced_in": ({"collection"}, {"limit"}),
    "shortest_path": ({"from", "to"}, set()),
    "paper": ({"id"}, set()),                                # for the API's GET /papers/{id}
    "timeline": ({"name"}, set()),
    "trending": (set(), {"type", "since", "min_papers", "limit"}),
    "leaderboard": ({"benchmark"}, {"metric", "kind", "direction", "limit", "offset"}),   # issue 27
    "results_of": ({"name"}, {"limit", "offset"}),
    "sota_over_time": ({"benchmark", "metric"}, {"kind", "direction"}),
}


def test_names_are_exactly_the_catalog() -> None:
    assert set(load_catalog()) == NAMES
    files = {e.name for e in resources.files("paperkg.queries").iterdir() if e.name.endswith(".cypher")}
    assert files == {f"{n}.cypher" for n in NAMES}


@pytest.mark.parametrize("name", sorted(NAMES))
def test_header(name: str) -> None:
    query = load_catalog()[name]
    assert query.name == name
    assert query.description and "\n" not in query.description and query.description.endswith(".")
    required = {p.name for p in query.params if p.required}
    optional = {p.name for p in query.params if not p.required}
    assert (required, optional) == SIGNATURES[name]
    for p in query.params:
        assert p.type in PARAM_TYPES
        assert p.example is not None
        assert p.coerce(p.example) is not None        # the example passes its own validation
        if p.name == "limit":
            assert (p.type, p.min, p.max) == ("int", 1, 1000) and p.default is not None
        if p.name == "type":
            assert p.type == "entity_type"


@pytest.mark.parametrize("name", sorted(NAMES))
def test_cypher_is_parameterised_and_ordered(name: str) -> None:
    """Values only as $params; labels and types only from the closed sets; a total ORDER BY."""
    cypher = load_catalog()[name].cypher
    code = re.sub(r"//[^\n]*", "", cypher)
    code = FULLTEXT_LOOKUP.sub("", code)       # the procedure calls allowed (see the test below)
    code = SEARCH_LOOKUP.sub("", code)
    literals = re.findall(r"'([^']*)'", code)
    # entity labels only as `CASE $type WHEN 'Method' THEN ...` branches, one per label of the closed set
    # and a metric's direction (`leaderboard`), a closed set too
    assert set(literals) <= {"out", "in", "Paper", "-", "->", "<-", *ENTITY_LABELS, *DIRECTIONS}, literals
    # or `WITH $type AS t WHERE t = 'Method' MATCH (e:Method)` branches of a UNION subquery
    for label in set(literals) & set(ENTITY_LABELS):
        assert (re.search(rf"WHEN '{label}' THEN COLLECT {{ MATCH \(e:{label}\)", code)
                or re.search(rf"WITH \$type AS t WHERE t = '{label}'\s+MATCH \(e:{label}\)", code)), label
    assert '"' not in code
    for group in re.findall(r"\(\w*:([\w|]+)", code) + re.findall(r"\[\w*:([\w|]+)", code):
        for word in group.split("|"):
            # plus the Neo4j store's shared `Entity` label and its hidden precomputed figures
            assert word in {*ENTITY_LABELS, "Paper", "Collection", "MENTIONS", "INTRODUCES",
                            "IN_COLLECTION", *RELATION_TYPES, "Entity", "PaperkgFigures",
                            "PaperkgCo", "Result", *RESULT_EDGE_TYPES}, word
    assert "ORDER BY" in code and load_catalog()[name].ordered
    # no procedure (a `CALL () { ... }` subquery reads, as COLLECT does)
    assert not re.search(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|LOAD)\b", code)
    assert not PROCEDURE.search(code)


PROCEDURE = re.compile(r"\bCALL\b(?!\s*[({])")


# The only procedure the catalog may call: an exact lookup in one of schema.cypher's full-text
# indexes, by a `$<param>_query` term, re-checked at once with `$<param>_key IN node.keys` (entities)
# or `$<param> IN node.ids` (papers).
FULLTEXT_LOOKUP = re.compile(r"CALL db\.index\.fulltext\.queryNodes\("
                             r"'(paperkg_entity_keys|paperkg_paper_ids)', "
                             r"\$(\w+)_(?:query|queries\[\w+\])\) YIELD node AS (\w+)\s+"
                             r"WHERE \$\2(?:_keys?)?(?:\[\w+\])? IN \3\.(keys|ids)\b")

# A substring search (`search` params): `keys_text CONTAINS $<param>_key` on `Entity` nodes, which
# the trigram TEXT index `paperkg_entity_keys_text` answers (graph/schema.cypher).
SEARCH_LOOKUP = re.compile(r"MATCH \((\w+):Entity\)\s+WHERE \1\.keys_text CONTAINS \$(\w+)_key\b")


@pytest.mark.parametrize("name", sorted(NAMES))
def test_names_and_ids_are_looked_up_through_the_fulltext_indexes(name: str) -> None:
    """Every entity parameter is found through the full-text index over entity keys (not a scan of
    all entities), every paper id that is not a paper's own through the one over paper ids, and each
    lookup is re-checked exactly, so the index narrows and never decides."""
    query = load_catalog()[name]
    code = re.sub(r"//[^\n]*", "", query.cypher)
    found = [(m.group(1), m.group(2), m.group(4)) for m in FULLTEXT_LOOKUP.finditer(code)]
    entity_params = [p.name for p in query.params if p.type in ("entity", "entities")]
    name_params = [p.name for p in query.params if p.type == "name"]
    search_params = [p.name for p in query.params if p.type == "search"]
    exact = [n for index, n, prop in found if (index, prop) == ("paperkg_entity_keys", "keys")]
    assert [n for index, n, prop in found if (index, prop) == ("paperkg_paper_ids", "ids")] \
        == [p.name for p in query.params if p.type == "paper"]
    searches = [m.group(2) for m in SEARCH_LOOKUP.finditer(code)]
    # A `search` parameter is a substring, through its wildcard query (CONTAINS decides); an entity
    # parameter, and a `name` (a name that need not be an entity's, as `family`'s), are looked up
    # exactly. Each parameter once.
    assert sorted(exact) == sorted(entity_params + name_params)
    assert sorted(searches) == sorted(search_params)
    assert len(found) == len(PROCEDURE.findall(code))
    schema = resources.files("paperkg.graph").joinpath("schema.cypher").read_text()
    for index, _, _ in found:
        assert f"CREATE FULLTEXT INDEX {index} IF NOT EXISTS" in schema
    if searches:
        assert ("CREATE TEXT INDEX paperkg_entity_keys_text IF NOT EXISTS FOR (n:Entity) ON (n.keys_text)"
                in schema)
    if entity_params:     # no entity is matched by label and a scan of keys any more
        assert not re.search(r"\$\w+_keys?(\[\w+\])? IN \w+\.keys", FULLTEXT_LOOKUP.sub("", code))


def test_entity_label_unions_are_the_closed_set() -> None:
    """Wherever a query means "any entity" or "any relation" it spells out the whole closed set."""
    entities, relations = "|".join(ENTITY_LABELS), "|".join(RELATION_TYPES)
    for query in load_catalog().values():
        for group in re.findall(r":((?:\w+\|){3,}\w+)", query.cypher):
            assert group in (entities, relations) or group.endswith(relations), group


def test_catalog_json_shape() -> None:
    data = catalog_json()
    json.dumps(data)
    assert [q["name"] for q in data] == sorted(NAMES)
    for q in data:
        assert set(q) == {"name", "description", "params"}
        for p in q["params"]:
            assert set(p) == {"name", "type", "required", "default", "min", "max", "example", "schema"}
    assert next(q for q in data if q["name"] == "papers_with_all")["params"][0]["example"] == ["RLHF", "PPO"]
    neighbors = next(q for q in data if q["name"] == "neighbors")
    limit = next(p for p in neighbors["params"] if p["name"] == "limit")
    assert (limit["default"], limit["min"], limit["max"]) == (50, 1, 1000)
    assert limit["schema"] == {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50}


def test_catalog_is_parsed_once() -> None:
    assert load_catalog() is load_catalog()


GOOD = """// name: sample
// description: A sample.
// param: name entity required example=GRPO
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS e
WHERE $name_key IN e.keys RETURN e.id AS id ORDER BY id
"""


@pytest.mark.parametrize(("text", "problem"), [
    (GOOD.replace("// name: sample\n", ""), "missing header field 'name'"),
    (GOOD.replace("// description: A sample.\n", ""), "missing header field 'description'"),
    (GOOD.replace("name: sample", "name: other"), "differs from the file name"),
    (GOOD.replace(" example=GRPO", ""), "without example="),
    (GOOD.replace("entity required", "string required"), "unknown param type"),
    (GOOD.replace("entity required", "search optional"), "needs a default"),   # an optional entity is null
    (GOOD.replace("entity required", "choice required"), "only a choice, lists its values"),
    (GOOD.replace("$name_key", "$other"), "undeclared params"),
    (GOOD.rsplit("CALL", 1)[0], "no Cypher"),
    (GOOD.replace("$name_query", "'grpo'"), "never uses: ['name_query']"),
    (GOOD.replace("// name: sample", "// name: sample\n// colour: red"), "unknown header field"),
    (GOOD.replace("example=GRPO", "example=---"), "no letters or digits"),
    (GOOD.replace("// param: name entity required example=GRPO",
                  "// param: name entity required example=GRPO\n"
                  "// param: limit int optional default=5000 min=1 max=1000 example=3"), "out of range"),
])
def test_header_problems_are_reported_with_the_file(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=r"sample\.cypher") as caught:
        parse_query(text, "sample.cypher")
    assert problem in str(caught.value)


def test_good_header_parses() -> None:
    query = parse_query(GOOD, "sample.cypher")
    assert query.name == "sample" and query.params[0].example == "GRPO"
    assert query.cypher.startswith("CALL")
