// name: cooccurring
// description: Entities most often mentioned in the same papers as an entity, optionally of one type.
// param: name entity required example=RLHF
// param: type entity_type optional example=Method
// param: limit int optional default=20 min=1 max=1000 example=10
// papers = number of papers mentioning both.
MATCH (e:Method|Model|Dataset|Benchmark|Metric|Task)
WHERE $name_key IN e.keys
MATCH (e)<-[:MENTIONS]-(p:Paper)-[:MENTIONS]->(o:Method|Model|Dataset|Benchmark|Metric|Task)
WHERE o <> e AND ($type IS NULL OR o.type = $type)
RETURN e.id AS entity, o.id AS id, o.name AS name, o.type AS type, count(DISTINCT p) AS papers
ORDER BY papers DESC, name, id, entity
LIMIT $limit
