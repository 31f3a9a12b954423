// name: papers_mentioning
// description: Papers that mention an entity under any of its names or aliases, with paper id and mention count, by paper id (paged).
// param: name entity required example=GRPO
// param: limit int optional default=100 min=1 max=1000 example=20
// param: offset int optional default=0 min=0 max=10000000 example=0
// One row per paper, in paper id order, `offset` papers skipped and at most `limit` returned (a
// popular entity has 15k papers at 100k abstracts: page through them); `entities` lists which of the
// entities the name matches the paper mentions.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS e
WHERE $name_key IN e.keys
MATCH (p:Paper)-[m:MENTIONS]->(e)
WITH p, e, m
ORDER BY e.id
WITH p, collect(e.id) AS entities, sum(m.count) AS mentions
ORDER BY p.id
SKIP $offset
LIMIT $limit
RETURN p.id AS id, p.title AS title, p.year AS year, mentions, entities
ORDER BY id
