// name: papers_mentioning
// description: Papers that mention an entity under any of its names or aliases, with paper id and mention count, by paper id (paged).
// param: name entity required example=GRPO
// param: limit int optional default=100 min=1 max=1000 example=20
// param: offset int optional default=0 min=0 max=10000000 example=0
// One row per paper, in paper id order, `offset` papers skipped and at most `limit` returned (a
// popular entity has 15k papers at 100k abstracts: page through them); `entities` lists which of the
// entities the name matches the paper mentions, `mentions` sums their mention counts.
// Two ways to find the page, the cheaper one chosen from counts read in constant time: walk the
// papers in id order (the `id` index) and keep those mentioning a named entity, which visits about
// (offset + limit) * all papers / mentions papers -- cheap for a popular entity's first pages; or
// expand every mention of the named entities and sort -- cheap for a rare one. Only the page's
// papers are then aggregated.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS e
WHERE $name_key IN e.keys
WITH collect(e) AS named, sum(COUNT { (e)<-[:MENTIONS]-() }) AS total
WITH named, total, COUNT { MATCH (p:Paper) } AS all_papers
WITH named, CASE WHEN ($offset + $limit) * all_papers < total * total
  THEN COLLECT { MATCH (p:Paper) WHERE p.id IS NOT NULL AND EXISTS { MATCH (p)-[:MENTIONS]->(x) WHERE x IN named }
                 RETURN p ORDER BY p.id SKIP $offset LIMIT $limit }
  ELSE COLLECT { UNWIND named AS e MATCH (p:Paper)-[:MENTIONS]->(e) WITH DISTINCT p
                 RETURN p ORDER BY p.id SKIP $offset LIMIT $limit }
  END AS page
UNWIND page AS p
WITH p, reduce(total = 0, n IN COLLECT { MATCH (p)-[m:MENTIONS]->(e) WHERE e IN named RETURN m.count }
               | total + n) AS mentions,
     COLLECT { MATCH (p)-[:MENTIONS]->(e) WHERE e IN named RETURN e.id ORDER BY e.id } AS entities
RETURN p.id AS id, p.title AS title, p.year AS year, mentions, entities
ORDER BY id
