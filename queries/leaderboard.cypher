// name: leaderboard
// description: What methods and models reached on a benchmark or dataset, best first within each metric and unit: one row per (subject, paper) with its best value, metric, year, paper and evidence sentence.
// param: benchmark entity required example=Gait3D
// param: metric entity optional example=rank-1 accuracy
// param: kind choice optional default="absolute" values=absolute|delta|ratio example=absolute
// param: direction choice optional values=higher|lower example=higher
// param: limit int optional default=100 min=1 max=1000 example=20
// param: offset int optional default=0 min=0 max=100000 example=0
// Results are the numbers papers report (`Result` nodes, graph/model.py) linked ON_BENCHMARK to the
// named entity, of one kind (`absolute` scores by default; `delta` changes, `ratio` factors), with a
// parsed number; with `metric`, only those linked IN_METRIC to it. "Best" knows which way the metric
// is better: each result carries the direction its metric's name gives (lower-better for error,
// loss, perplexity, FID, WER, MAE, RMSE, latency, ...; graph/metric_direction.py), and the
// `direction=higher|lower` parameter overrides it for every row. A subject reported several times by one
// paper keeps its best value (then the smallest result id); subject is null for a result whose
// abstract names no method or model. Values are only compared within one metric and unit (a latency
// in ms is no better than an accuracy in %): rows come in groups of one (metric, unit) -- the metric
// entity's id, else the metric as written, else none -- groups with a metric first, the group with
// the most rows first (then by metric and unit, none last), each group best first. Ties: paper id, subject id (null last), result id.
// The metric's entities are looked up only when a metric is given (CASE evaluates one branch).
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $benchmark_query) YIELD node AS b
WHERE $benchmark_key IN b.keys
WITH b, CASE WHEN $metric_key IS NULL THEN null ELSE COLLECT {
  CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $metric_query) YIELD node AS m
  WHERE $metric_key IN m.keys
  RETURN m } END AS metrics
MATCH (p:Paper)-[:REPORTS]->(r:Result)-[:ON_BENCHMARK]->(b)
WHERE r.kind = $kind AND r.number IS NOT NULL
OPTIONAL MATCH (r)-[:IN_METRIC]->(m)
WITH b, p, r, m, metrics
WHERE metrics IS NULL OR m IN metrics
OPTIONAL MATCH (r)-[:ACHIEVED_BY]->(s)
WITH b, p, r, m, s, coalesce($direction, r.direction) AS direction
WITH b, p, r, m, s, direction, CASE direction WHEN 'lower' THEN -r.number ELSE r.number END AS score
ORDER BY score DESC, r.id
WITH b, p, s, collect({r: r, m: m, direction: direction, score: score})[0] AS best
WITH b, p, s, best.r AS r, best.m AS m, best.direction AS direction, best.score AS score
WITH b, coalesce(m.id, r.metric) AS grp_metric, r.unit AS grp_unit,
     collect({p: p, s: s, r: r, m: m, direction: direction, score: score}) AS members
UNWIND members AS x
WITH b, grp_metric, grp_unit, size(members) AS grp_rows, x.p AS p, x.s AS s, x.r AS r, x.m AS m,
     x.direction AS direction, x.score AS score
RETURN b.id AS benchmark, s.name AS subject, s.id AS subject_id, s.type AS subject_type,
       r.display AS value, r.number AS number, r.unit AS unit, coalesce(m.name, r.metric) AS metric,
       m.id AS metric_id, direction, r.year AS year, p.id AS paper, p.title AS title,
       r.evidence AS evidence, r.id AS result, r.confidence AS confidence
ORDER BY grp_metric IS NULL, grp_rows DESC, grp_metric, grp_unit, score DESC, paper, subject_id, result
SKIP $offset
LIMIT $limit
