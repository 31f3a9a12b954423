// name: papers_with_all
// description: Papers that mention every one of a list of entities (each under any of its names or aliases).
// param: names entities required example=["RLHF", "PPO"]
// Starts from the papers of the name with the fewest mentions (the relationship count, read in
// constant time), then keeps those that mention an entity of every other name too: at 100k
// abstracts a rare name next to a popular one costs its few papers, not the popular one's 15k. A
// name that matches no entity leaves no paper. Each name is found through the full-text index.
UNWIND range(0, size($names_keys) - 1) AS i
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $names_queries[i]) YIELD node AS e
WHERE $names_keys[i] IN e.keys
WITH i, collect(e) AS named, sum(COUNT { (e)<-[:MENTIONS]-() }) AS mentions
ORDER BY mentions, i
WITH collect(named) AS sets
WHERE size(sets) = size($names_keys)
UNWIND sets[0] AS first
MATCH (p:Paper)-[:MENTIONS]->(first)
WITH DISTINCT p, sets
WHERE all(named IN sets[1..] WHERE EXISTS { MATCH (p)-[:MENTIONS]->(x) WHERE x IN named })
RETURN p.id AS id, p.title AS title, p.year AS year
ORDER BY id
