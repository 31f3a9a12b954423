// name: results_of
// description: The results papers report for a method or model: value, benchmark, metric, baseline, year, paper and evidence sentence.
// param: name entity required example=TrackletGait
// param: limit int optional default=100 min=1 max=1000 example=20
// param: offset int optional default=0 min=0 max=100000 example=0
// One row per result linked ACHIEVED_BY to the named entity (`Result` nodes, graph/model.py). The
// benchmark, metric and baseline are the entities the result links to (their ids beside), else the
// words the abstract writes (ids null); any may be null. Ordered by paper id, then by where the value
// stands in the abstract.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS s
WHERE $name_key IN s.keys
MATCH (p:Paper)-[:REPORTS]->(r:Result)-[:ACHIEVED_BY]->(s)
OPTIONAL MATCH (r)-[:ON_BENCHMARK]->(b)
OPTIONAL MATCH (r)-[:IN_METRIC]->(m)
OPTIONAL MATCH (r)-[:AGAINST]->(x)
RETURN s.id AS subject, r.display AS value, r.number AS number, r.unit AS unit, r.kind AS kind,
       coalesce(b.name, r.benchmark) AS benchmark, b.id AS benchmark_id,
       coalesce(m.name, r.metric) AS metric, m.id AS metric_id,
       coalesce(x.name, r.baseline) AS baseline, x.id AS baseline_id, r.direction AS direction,
       r.year AS year, p.id AS paper, p.title AS title, r.evidence AS evidence, r.id AS result,
       r.confidence AS confidence, r.start AS start
ORDER BY paper, start, result, subject
SKIP $offset
LIMIT $limit
