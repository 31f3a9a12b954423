// name: sota_over_time
// description: The best value reported on a benchmark or dataset in a metric, year by year, with who reported it.
// param: benchmark entity required example=Gait3D
// param: metric entity required example=rank-1 accuracy
// param: kind choice optional default="absolute" values=absolute|delta|ratio example=absolute
// param: direction choice optional values=higher|lower example=higher
// One row per year that has such a result (papers without a year left out): the year's best value as
// `leaderboard` ranks them (the metric's direction, or `direction`), ties broken by the smallest
// paper id, then result id. `record` is true when it beats every earlier year's best (the state of
// the art moved that year).
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $benchmark_query) YIELD node AS b
WHERE $benchmark_key IN b.keys
WITH collect(b) AS benchmarks
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $metric_query) YIELD node AS m
WHERE $metric_key IN m.keys
UNWIND benchmarks AS b
MATCH (p:Paper)-[:REPORTS]->(r:Result)-[:ON_BENCHMARK]->(b)
WHERE r.kind = $kind AND r.number IS NOT NULL AND r.year IS NOT NULL AND (r)-[:IN_METRIC]->(m)
OPTIONAL MATCH (r)-[:ACHIEVED_BY]->(s)
WITH p, r, m, s, coalesce($direction, r.direction) AS direction
WITH p, r, m, s, direction, CASE direction WHEN 'lower' THEN -r.number ELSE r.number END AS score
ORDER BY score DESC, p.id, r.id
WITH r.year AS year, collect({p: p, r: r, m: m, s: s, direction: direction, score: score})[0] AS best
ORDER BY year
WITH collect({year: year, best: best}) AS years
UNWIND range(0, size(years) - 1) AS i
WITH years[i] AS y, [j IN range(0, i - 1) | years[j].best.score] AS before
WITH y.year AS year, y.best AS best, all(score IN before WHERE y.best.score > score) AS record
RETURN year, best.r.display AS value, best.r.number AS number, best.r.unit AS unit,
       best.m.name AS metric, best.direction AS direction, best.s.name AS subject, best.s.id AS subject_id,
       best.p.id AS paper, best.p.title AS title, best.r.evidence AS evidence, best.r.id AS result, record
ORDER BY year
