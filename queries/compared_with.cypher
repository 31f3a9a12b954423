// name: compared_with
// description: What a method or model is compared with, in both directions, with the number of supporting papers.
// param: name entity required example=GRPO
// param: limit int optional default=100 min=1 max=1000 example=20
// param: offset int optional default=0 min=0 max=100000 example=0
// param: min_confidence float optional default=0 min=0 max=1 example=0
// direction is `out` when the named entity is compared with the other, `in` when the other is
// compared with it; a pair stated both ways gives two rows.
// min_confidence keeps relations whose combined confidence (graph/model.py; 1.0 when the edge has
// none) is at least that: raise it to trade recall for precision.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS m
WHERE $name_key IN m.keys AND m:Method|Model
MATCH (m)-[r:COMPARED_WITH]-(o)
WHERE coalesce(r.confidence, 1.0) >= $min_confidence
RETURN m.id AS entity, o.id AS id, o.name AS name, o.type AS type,
       CASE WHEN startNode(r) = m THEN 'out' ELSE 'in' END AS direction, r.support AS support,
       coalesce(r.confidence, 1.0) AS confidence
ORDER BY support DESC, name, id, direction, entity
SKIP $offset
LIMIT $limit
