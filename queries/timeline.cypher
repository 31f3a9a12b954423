// name: timeline
// description: Papers per year that mention an entity (under any of its names or aliases), oldest year first.
// param: name entity required example=CoT
// One row per year with at least one such paper: papers = distinct papers of that year mentioning any
// of the entities the name matches (an ambiguous name counts each paper once). Papers without a
// year are left out.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS e
WHERE $name_key IN e.keys
MATCH (p:Paper)-[:MENTIONS]->(e)
WHERE p.year IS NOT NULL
WITH p.year AS year, count(DISTINCT p) AS papers
RETURN year, papers
ORDER BY year
