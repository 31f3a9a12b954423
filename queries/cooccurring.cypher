// name: cooccurring
// description: Entities most often mentioned in the same papers as an entity, optionally of one type.
// param: name entity required example=RLHF
// param: type entity_type optional example=Method
// param: limit int optional default=20 min=1 max=1000 example=10
// papers = number of papers mentioning both.
// Why it is written this way (PROFILE at 100k abstracts, the most-mentioned entity: 14.7k papers,
// 90k co-mentions, 3x faster than grouping on properties): it groups on the nodes, so each
// co-mentioned entity's properties (and the type filter) are read once per entity, not once per
// paper; `count(*)` counts papers because a paper has at most one MENTIONS to an entity (the store
// keeps one relationship per type and endpoints); MENTIONS always go from a Paper to an entity (the
// store deletes any other), so the endpoints' labels need no check.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS e
WHERE $name_key IN e.keys
MATCH (e)<-[:MENTIONS]-(p)-[:MENTIONS]->(o)
WHERE o <> e
WITH e, o, count(*) AS papers
WHERE $type IS NULL OR o.type = $type
RETURN e.id AS entity, o.id AS id, o.name AS name, o.type AS type, papers
ORDER BY papers DESC, name, id, entity
LIMIT $limit
