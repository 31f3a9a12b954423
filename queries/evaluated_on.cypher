// name: evaluated_on
// description: Methods and models evaluated on a dataset or benchmark, with the number of supporting papers.
// param: name entity required example=GSM8K
// param: limit int optional default=100 min=1 max=1000 example=20
// param: offset int optional default=0 min=0 max=100000 example=0
// param: min_confidence float optional default=0 min=0 max=1 example=0
// min_confidence keeps relations whose combined confidence (graph/model.py; 1.0 when the edge has
// none) is at least that: raise it to trade recall for precision.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS d
WHERE $name_key IN d.keys AND d:Dataset|Benchmark
MATCH (m:Method|Model)-[r:EVALUATED_ON]->(d)
WHERE coalesce(r.confidence, 1.0) >= $min_confidence
RETURN d.id AS dataset, m.id AS id, m.name AS name, m.type AS type, r.support AS support,
       coalesce(r.confidence, 1.0) AS confidence
ORDER BY support DESC, name, id, dataset
SKIP $offset
LIMIT $limit
