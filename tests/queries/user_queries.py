"""User Cypher for the grand-cypher tests: queries the embedded store must answer exactly as Neo4j
does, and queries it must refuse because grand-cypher would answer them wrongly or not at all.
Each refused one notes what grand-cypher 1.2 does with it (measured)."""

from __future__ import annotations

from typing import Any

PARAMS: dict[str, Any] = {"n": "GRPO", "ids": ["method:ppo", "method:grpo"], "k": 1, "t": "Method"}

# Answered on the embedded store, and identically on Neo4j (the parity test checks it).
# (query, whether its ORDER BY is a total order: then rows are compared in order, else as a multiset)
ACCEPTED: list[tuple[str, bool]] = [
    # single-quoted strings, escapes inside both kinds (rewritten for grand-cypher, as written on Neo4j)
    ("MATCH (e:Method) WHERE e.name = 'GRPO' OR e.name CONTAINS 'dyn' RETURN e.id ORDER BY e.id",
     True),
    ("MATCH (e:Method) WHERE e.name = 'it\\'s \"x\" \\\\ \\u00e9' OR e.name = \"PPO\" "
     "RETURN e.id ORDER BY e.id",
     True),
    ('MATCH (e:Method) RETURN e.id ORDER BY e.id',
     True),
    ('MATCH (p:Paper)-[:MENTIONS]->(e:Method) RETURN e.name, count(p) AS n ORDER BY n DESC, e.name',
     False),
    ('MATCH (p:Paper)-[:MENTIONS]->(e) WHERE e.name = $n RETURN p.id ORDER BY p.id',
     True),
    ('MATCH (p:Paper)-[:MENTIONS]->(e)<-[:MENTIONS]-(q:Paper) WHERE e.id = "method:grpo" RETURN p.id, q.id',
     False),
    ('MATCH (e:Task) RETURN count(e)',
     False),
    ('MATCH (e:Task) WHERE e.name = "no such" RETURN count(e) AS n, collect(e.name) AS names',
     False),
    ('MATCH (e:Method) RETURN e',
     False),
    ('MATCH (a:Method)-[r:COMPARED_WITH]->(b:Method) RETURN a.name, type(r), r.support, b.name',
     False),
    ('MATCH (e) WHERE e.type = "Method" AND (e.paper_count > 1 OR e.name = "dynamic programming") '
     'RETURN e.name',
     False),
    ('match (e:Method) where e.name starts with "d" return e.name',
     False),
    ('MATCH (e) WHERE e.paper_count >= 2 RETURN e.type, count(e) AS n',
     False),
    ('MATCH (e:Method) RETURN e.id, size(e.aliases) AS k ORDER BY k DESC, e.id LIMIT 2',
     True),
    ('MATCH (e:Method) WHERE NOT e.name = "GRPO" RETURN toLower(e.name) AS low ORDER BY low',
     False),
    ('MATCH (e:Method {name: "PPO"}) RETURN e.id',
     False),
    ('MATCH (e:Model) RETURN coalesce(e.family, "none") AS f, e.name',
     False),
    ('MATCH (e:Method) WHERE e.id IN $ids RETURN e.name',
     False),
    ('MATCH (e) WHERE e.type = $t AND e.paper_count > $k RETURN e.id ORDER BY e.id',
     True),
    ('MATCH (e:Method|Model) WHERE e.name CONTAINS "P" RETURN e.id ORDER BY e.id SKIP 1 LIMIT 2',
     True),
    ('MATCH (p:Paper)-[:INTRODUCES]->(e) RETURN p.id, e.id ORDER BY p.id, e.id',
     True),
    ('MATCH (p:Paper)-[:IN_COLLECTION]->(c:Collection) RETURN c.name, count(p) AS papers ORDER BY c.name',
     True),
    ('MATCH (a:Method)-[:EVALUATED_ON]->(d:Dataset) MATCH (b:Model)-[:EVALUATED_ON]->(d:Dataset) '
     'RETURN a.id, b.id, d.id',
     False),
    ('MATCH (e:Method) WHERE e.family IS NULL RETURN e.id ORDER BY e.id',
     True),
    ('MATCH (e:Method) WHERE NOT e.family IS NULL RETURN e.id',
     False),
    ('MATCH (e:Method) RETURN sum(e.paper_count) AS total, min(e.name) AS first, max(e.paper_count) AS most',
     False),
    ('MATCH (p:Paper) RETURN p.id, p.year ORDER BY p.id',
     True),
    ('MATCH (p:Paper)-[m:MENTIONS]->(e:Metric) RETURN p.id, e.id, m.count ORDER BY p.id, e.id',
     True),
]

# Refused on the embedded store: (query, error class name, words the message must contain).
REFUSED: list[tuple[str, str, str]] = [
    # grand-cypher binds distinct pattern nodes to distinct graph nodes; Neo4j can bind one node twice
    ('MATCH (a:Method)-[:COMPARED_WITH]->(b:Method)-[:COMPARED_WITH]->(c:Method) RETURN a.id, c.id',
     "UnsupportedQueryError", "may be the same node"),          # grand-cypher: no rows
    ('MATCH (a:Method)-[:COMPARED_WITH]->(b) MATCH (c:Method)-[:COMPARED_WITH]->(b) RETURN a.id, c.id',
     "UnsupportedQueryError", "may be the same node"),          # grand-cypher: misses a = c
    ('MATCH (x)-[:USES]->(m)<-[:EVALUATED_ON]-(y) RETURN x.id, y.id',
     "UnsupportedQueryError", "may be the same node"),
    ('MATCH (a:Method) MATCH (b:Method) RETURN a.id, b.id', "UnsupportedQueryError", "may be the same node"),
    ('MATCH (a:Method)-[:EVALUATED_ON]->(d:Dataset) MATCH (b:Model)-[:EVALUATED_ON]->(d) RETURN d.id',
     "UnsupportedQueryError", "different labels"),             # grand-cypher: d loses :Dataset
    ('MATCH (a:Method)-[*1..2]->(b) RETURN a.id, b.id', "UnsupportedQueryError", "variable-length"),
    ('MATCH (a:Method)-[:COMPARED_WITH]-(b:Method) RETURN a.id, b.id', "UnsupportedQueryError", "undirected"),
    ('MATCH (a:Method)--(b) RETURN a.id', "UnsupportedQueryError", "undirected"),
    ('MATCH (a:Method)<-[:COMPARED_WITH]->(b:Method) RETURN a.id', "UnsupportedQueryError", "undirected"),
    ('MATCH p = (a:Method)-[:USES]->(b) RETURN p', "UnsupportedQueryError", "path variables"),
    # nulls: grand-cypher treats a missing property unlike Neo4j's null
    ('MATCH (e:Method) WHERE e.family <> "Qwen" RETURN e.id', "UnsupportedQueryError", "<>"),
    ('MATCH (e:Method) WHERE e.family = null RETURN e.id', "UnsupportedQueryError", "= null"),
    ('MATCH (e) RETURN count(e.family)', "UnsupportedQueryError", "count() of an expression"),
    ('MATCH (e) RETURN avg(e.paper_count)', "UnsupportedQueryError", "avg()"),
    # precedence and arithmetic
    ('MATCH (e) WHERE e.id = "a" OR e.id = "b" AND e.paper_count = 5 RETURN e.id',
     "UnsupportedQueryError", "AND mixed with OR"),
    ('MATCH (e) WHERE e.paper_count / 2 = 1 RETURN e.id', "UnsupportedQueryError", "`/`"),
    # missing features
    ('MATCH (e:Method) WHERE e.name = $n RETURN e.id', "BadInputError", "$n"),   # when n is not given
    ('OPTIONAL MATCH (e:Method) RETURN e.id', "UnsupportedQueryError", "OPTIONAL MATCH"),
    ('MATCH (e:Method) WITH e RETURN e.id', "UnsupportedQueryError", "WITH"),
    ('UNWIND [1, 2] AS x RETURN x', "UnsupportedQueryError", "UNWIND"),
    ('MATCH (e:Method) RETURN count(*)', "UnsupportedQueryError", "count(*)"),
    ('MATCH (e:Method) RETURN count(DISTINCT e.type)', "UnsupportedQueryError", "DISTINCT"),
    ('MATCH (e) RETURN labels(e)', "UnsupportedQueryError", "labels()"),
    ('MATCH (e) RETURN id(e)', "UnsupportedQueryError", "id()"),
    ('MATCH (e) WHERE e.family IS NOT NULL RETURN e.id', "UnsupportedQueryError", "IS NOT NULL"),
    ('MATCH (e:Method) RETURN e.id UNION MATCH (e:Model) RETURN e.id', "UnsupportedQueryError", "UNION"),
    ('MATCH (e:Method) RETURN CASE WHEN e.paper_count > 1 THEN 1 ELSE 0 END', "UnsupportedQueryError",
     "CASE"),
    ('MATCH (e:Method) WHERE EXISTS { MATCH (e)-[:USES]->() } RETURN e.id', "UnsupportedQueryError",
     "EXISTS"),
    ('MATCH (a:Method), (b:Model) RETURN a.id, b.id', "UnsupportedQueryError", "comma-separated"),
    ('MATCH (e:Method) RETURN e.id, e.id', "UnsupportedQueryError", "same name"),
    ('MATCH (e:Method) RETURN e.name + "x"', "UnsupportedQueryError", "cannot parse"),
    ('RETURN 1', "UnsupportedQueryError", "cannot parse"),
    # writes and procedures: refused like on Neo4j
    ('CREATE (n:Method {id: "x"})', "QueryRefusedError", "CREATE"),
    ('MATCH (n) DETACH DELETE n', "QueryRefusedError", "DETACH"),
    ('MATCH (n:Method) SET n.name = "x" RETURN n', "QueryRefusedError", "SET"),
    ('MERGE (n:Method {id: "x"}) RETURN n', "QueryRefusedError", "MERGE"),
    ('MATCH (n) REMOVE n.name RETURN n', "QueryRefusedError", "REMOVE"),
    ("LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line", "QueryRefusedError", "LOAD CSV"),
    ('CALL db.labels()', "QueryRefusedError", "CALL"),
    ('CALL dbms.components()', "QueryRefusedError", ""),
]
