// name: neighbors
// description: Entities linked to an entity by a relation (evaluated on, compared with, uses, addresses, measured by), with direction and support.
// param: name entity required example=GRPO
// param: limit int optional default=50 min=1 max=1000 example=20
// param: offset int optional default=0 min=0 max=100000 example=0
// param: min_confidence float optional default=0 min=0 max=1 example=0
// direction is `out` when the named entity is the relation's head, `in` when it is the tail;
// support is the number of papers stating the relation.
// min_confidence keeps relations whose combined confidence (graph/model.py; 1.0 when the edge has
// none) is at least that: raise it to trade recall for precision.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS e
WHERE $name_key IN e.keys
MATCH (e)-[r:EVALUATED_ON|COMPARED_WITH|USES|ADDRESSES|MEASURED_BY]-(n)
WHERE coalesce(r.confidence, 1.0) >= $min_confidence
RETURN e.id AS entity, type(r) AS relation,
       CASE WHEN startNode(r) = e THEN 'out' ELSE 'in' END AS direction,
       n.id AS id, n.name AS name, n.type AS type, r.support AS support,
       coalesce(r.confidence, 1.0) AS confidence
ORDER BY support DESC, relation, direction, name, id, entity
SKIP $offset
LIMIT $limit
