// name: papers_mentioning
// description: Papers that mention an entity under any of its names or aliases, with paper id and mention count.
// param: name entity required example=GRPO
// One row per paper; `entities` lists which of the entities the name matches it mentions.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS e
WHERE $name_key IN e.keys
MATCH (p:Paper)-[m:MENTIONS]->(e)
WITH p, e, m
ORDER BY e.id
WITH p, collect(e.id) AS entities, sum(m.count) AS mentions
RETURN p.id AS id, p.title AS title, p.year AS year, mentions, entities
ORDER BY id
