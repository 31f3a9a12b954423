// name: benchmarks_of
// description: Datasets and benchmarks a method or model is evaluated on, with the number of supporting papers.
// param: name entity required example=APA
// param: limit int optional default=100 min=1 max=1000 example=20
// param: offset int optional default=0 min=0 max=100000 example=0
// param: min_confidence float optional default=0 min=0 max=1 example=0
// min_confidence keeps relations whose combined confidence (graph/model.py; 1.0 when the edge has
// none) is at least that: raise it to trade recall for precision.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS m
WHERE $name_key IN m.keys AND m:Method|Model
MATCH (m)-[r:EVALUATED_ON]->(d:Dataset|Benchmark)
WHERE coalesce(r.confidence, 1.0) >= $min_confidence
RETURN m.id AS entity, d.id AS id, d.name AS name, d.type AS type, r.support AS support,
       coalesce(r.confidence, 1.0) AS confidence
ORDER BY support DESC, name, id, entity
SKIP $offset
LIMIT $limit
