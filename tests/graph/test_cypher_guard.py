"""The server-free half of the read-only Cypher guard: lexer, keyword scan, unicode-escape handling,
parameter checks. (The EXPLAIN half runs against the real engine in test_neo4j_store.py.)"""

from __future__ import annotations

import pytest

from paperkg.graph.cypher_guard import (
    check_params,
    decode_all,
    decode_like_parser,
    scan,
    tokenize,
)
from paperkg.graph.errors import BadInputError, QueryRefusedError

ALLOWED = [
    "MATCH (n) RETURN n LIMIT 5",
    "MATCH (m:Method)<-[r:MENTIONS]-(p:Paper) WHERE m.name = 'GRPO' RETURN p.id, r.count ORDER BY r.count",
    "MATCH (n) WHERE n.name STARTS WITH 'Q' RETURN count(*)",
    "CALL db.labels()",
    "CALL db.labels() YIELD label RETURN label",
    "CALL db.relationshipTypes()",
    "CALL\n  db.propertyKeys ( ) YIELD propertyKey RETURN propertyKey",
    "CALL { MATCH (n) RETURN count(n) AS c } RETURN c",
    "MATCH (n) CALL (n) { MATCH (n)-->(m) RETURN count(m) AS c } RETURN n.id, c",
    # keywords inside strings and comments are text, not code
    "MATCH (n) WHERE n.abstract CONTAINS 'LOAD CSV FROM' RETURN n",
    'MATCH (n) WHERE n.abstract CONTAINS "CREATE USER x SET PASSWORD" RETURN n',
    "MATCH (n) // DETACH DELETE n\nRETURN n",
    "MATCH (n) /* CALL dbms.killQueries() */ RETURN n",
    "MATCH (n) WHERE n.name = 'it\\'s CALL apoc.x()' RETURN n",
    "MATCH (n:Method) WHERE n.name = $name RETURN n.id AS id",
    "MATCH (p:Paper)-[:USES]->(m) RETURN m",  # USES is not USE
    "RETURN 'caf\\u00e9' AS word",
]

REFUSED = [
    ("CREATE (n:Method {id: 'x'})", "CREATE"),
    ("MATCH (n) DETACH DELETE n", "DETACH"),
    ("MATCH (n) SET n.x = 1", "SET"),
    ("MERGE (n:Task {id: 'x'})", "MERGE"),
    ("MATCH (n) REMOVE n.name", "REMOVE"),
    ("MATCH (n) FOREACH (x IN [1] | SET n.y = x)", "FOREACH"),
    ("LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line", "LOAD CSV"),
    ("load csv from 'https://example.org/x.csv' as l return l", "LOAD CSV"),
    ("LOAD /* hidden */ CSV FROM 'file:///etc/passwd' AS l RETURN l", "LOAD CSV"),
    ("RETURN 1LOAD CSV FROM 'x' AS l", "LOAD CSV"),
    ("RETURN 1.5e3LOAD CSV FROM 'x' AS l", "LOAD CSV"),
    ("MATCH (n) WHERE n.x = $create RETURN n", "CREATE"),      # a parameter named like a keyword
    ("MATCH (n) RETURN $apoc", "apoc"),
    ("CALL dbms.components()", "dbms"),
    ("CALL dbms.security.listUsers()", "dbms"),
    ("CALL db.index.fulltext.queryNodes('x', 'y')", "db.index.fulltext.queryNodes"),
    ("CALL db.LABELS()", "db.LABELS"),
    ("CALL `db.labels`()", "backticks"),
    ("CALL `db`.`labels`()", "backticks"),
    ("CALL apoc.load.json('file:///etc/passwd')", "apoc"),
    ("RETURN apoc.text.join(['a'], ',') AS x", "apoc"),
    ("RETURN `apoc`.text.join(['a'], ',') AS x", "apoc"),
    ("RETURN `apoc.text.join`(['a'], ',') AS x", "apoc"),
    ("RETURN dbms.x() AS x", "dbms"),
    ("MATCH (n) CALL { WITH n CALL apoc.do.it(n) } RETURN n", "apoc"),
    ("MATCH (n) CALL { WITH n SET n.x = 1 } RETURN n", "SET"),
    ("MATCH (n) CALL { LOAD CSV FROM 'file:///x' AS l RETURN l } RETURN l", "LOAD"),
    ("CALL { MATCH (n) RETURN n } IN TRANSACTIONS RETURN n", "TRANSACTIONS"),
    ("USE system MATCH (n) RETURN n", "USE"),
    ("CALL { USE neo4j MATCH (n) RETURN n } RETURN n", "USE"),
    ("CREATE USER eve SET PASSWORD 'x'", "CREATE"),
    ("DROP USER eve", "DROP"),
    ("SHOW USERS", "SHOW"),
    ("SHOW DATABASES YIELD name", "SHOW"),
    ("GRANT ROLE admin TO eve", "GRANT"),
    ("DENY READ {*} ON GRAPH * TO eve", "DENY"),
    ("REVOKE ROLE admin FROM eve", "REVOKE"),
    ("ALTER USER neo4j SET PASSWORD 'x'", "ALTER"),
    ("DROP INDEX paperkg_paper_id", "DROP"),
    ("DROP CONSTRAINT paperkg_paper_id", "DROP"),
    ("CREATE INDEX FOR (n:Paper) ON (n.title)", "CREATE"),
    ("STOP DATABASE neo4j", "STOP"),
    ("TERMINATE TRANSACTIONS 'neo4j-transaction-1'", "TERMINATE"),
    ("PROFILE MATCH (n) RETURN n", "PROFILE"),
    ("EXPLAIN MATCH (n) RETURN n", "EXPLAIN"),
    # unicode escapes are decoded by Neo4j's parser before lexing: \u0027 closes a string
    ("MATCH (n) WHERE n.id = '\\u0027 LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l //'", "LOAD"),
    ("MATCH (n) WHERE n.id = 'x\\u0027 SET n.x = 1 RETURN n //' RETURN n", "SET"),
    ("\\u004cOAD CSV FROM 'file:///etc/passwd' AS l RETURN l", "LOAD"),
    ("MATCH (n) /* \\u002a/ DETACH DELETE n /\\u002a */ RETURN n", "DETACH"),
    # where the guard cannot be sure what is code, it refuses
    ("MATCH (n) WHERE n.id = 'unterminated RETURN n", "unterminated"),
    ("MATCH (n) /* unterminated RETURN n", "unterminated"),
    ("MATCH (`n) RETURN 1", "unterminated"),
]


@pytest.mark.parametrize("text", ALLOWED)
def test_scan_allows_reads(text: str) -> None:
    scan(text)


@pytest.mark.parametrize(("text", "why"), REFUSED)
def test_scan_refuses(text: str, why: str) -> None:
    with pytest.raises(QueryRefusedError) as info:
        scan(text)
    assert why.lower() in str(info.value).lower()


def test_refusal_is_a_bad_input_error() -> None:
    """Refused Cypher is bad input (exit 65) of its own kind (HTTP 403): tests/api/test_error_maps.py."""
    with pytest.raises(QueryRefusedError) as info:
        scan("MATCH (n) DETACH DELETE n")
    assert isinstance(info.value, BadInputError)
    assert "\n" not in str(info.value)


def test_empty_query_is_bad_input() -> None:
    with pytest.raises(BadInputError):
        scan("   ")


def test_tokenizer_drops_comments_and_keeps_strings_as_strings() -> None:
    tokens = tokenize("MATCH (n) // LOAD\nWHERE n.x = 'SET' /* CALL */ RETURN `my var`")
    words = [t.text for t in tokens if t.kind == "word"]
    assert words == ["MATCH", "n", "WHERE", "n", "x", "RETURN"]
    assert [t.text for t in tokens if t.kind == "string"] == ["SET"]
    assert [t.text for t in tokens if t.kind == "quoted"] == ["my var"]


def test_tokenizer_escapes() -> None:
    tokens = tokenize("RETURN 'a\\'b' AS x, `we``ird` AS y, \"q\\\"\" AS z")
    assert [t.text for t in tokens if t.kind == "string"] == ["a\\'b", 'q\\"']
    assert [t.text for t in tokens if t.kind == "quoted"] == ["we`ird"]


def test_decode_like_parser_respects_escaped_backslashes() -> None:
    assert decode_like_parser("'\\u0027") == "''"
    assert decode_like_parser("'\\uu0027") == "''"
    # an even run of backslashes is escaped backslashes, not an escape
    assert decode_like_parser("'\\\\u0027'") == "'\\\\u0027'"
    assert decode_like_parser("'\\\\\\u0027") == "'\\\\'"
    assert decode_all("'\\\\u0027'") == "'\\''"


def test_check_params() -> None:
    assert check_params(None) == {}
    good = {"s": "x", "i": 3, "f": 1.5, "b": True, "n": None, "l": [1, "a"], "m": {"k": [1]}}
    assert check_params(good) == good
    for bad in ({"x": object()}, {"x": 2**70}, {"x": {1: "a"}}, {"x": {1, 2}}):
        with pytest.raises(BadInputError):
            check_params(bad)


# Text that overflows Neo4j's parser stack (measured on the 5.26 engine: 1,000 parentheses, 500 list
# brackets, 500 NOTs, 500 `.a` accessors hang the request ~120 s) is refused before it is sent.
OVER_LIMITS = [
    ("RETURN " + "(" * 1000 + "1" + ")" * 1000, "nests"),
    ("RETURN " + "(" * 3000 + "1" + ")" * 3000, "tokens"),
    ("RETURN " + "[" * 500 + "1" + "]" * 500, "nests"),
    ("RETURN " + "{a:" * 500 + "1" + "}" * 500, "nests"),
    ("RETURN " + "NOT " * 500 + "true", "nests"),
    ("RETURN " + "NOT (" * 40 + "true" + ")" * 40, "nests"),
    ("RETURN " + "\\u0028" * 100 + "1" + ")" * 100, "nests"),     # decoded by the parser
    ("RETURN {a: 1}" + ".a" * 500, "accessors"),
    ("RETURN 1" + "+1" * 6000, "tokens"),
    ("RETURN '" + "x" * 20_001 + "'", "characters"),
]

WITHIN_LIMITS = [
    "RETURN " + "(" * 60 + "1" + ")" * 60,
    "RETURN {a: 1}" + ".a" * 30,
    "MATCH (n) WHERE " + " AND ".join(["n.x IS NULL"] * 200) + " RETURN n",
    "MATCH (a)-[r]->(b) WHERE NOT a.x = 1 AND NOT (b.y = 2 OR NOT b.z = 3) RETURN a.name, b.name",
]


@pytest.mark.parametrize(("text", "why"), OVER_LIMITS, ids=[f"{w}-{len(t)}" for t, w in OVER_LIMITS])
def test_scan_refuses_text_beyond_the_limits(text: str, why: str) -> None:
    from paperkg.graph.errors import QueryLimitError

    with pytest.raises(QueryLimitError, match=why):
        scan(text)


@pytest.mark.parametrize("text", WITHIN_LIMITS, ids=range(len(WITHIN_LIMITS)))
def test_scan_allows_text_within_the_limits(text: str) -> None:
    scan(text)
