// name: top_entities
// description: The most-mentioned entities of one type (by number of papers).
// param: type entity_type required example=Dataset
// param: limit int optional default=20 min=1 max=1000 example=10
// Labels cannot be parameters in Cypher, so the type is matched on the `type` property.
MATCH (e:Method|Model|Dataset|Benchmark|Metric|Task)
WHERE e.type = $type
RETURN e.id AS id, e.name AS name, e.type AS type, e.paper_count AS papers,
       e.introduced_count AS introduced
ORDER BY papers DESC, name, id
LIMIT $limit
