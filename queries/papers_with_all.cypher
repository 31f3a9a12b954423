// name: papers_with_all
// description: Papers that mention every one of a list of entities (each under any of its names or aliases).
// param: names entities required example=["RLHF", "PPO"]
// param: limit int optional default=100 min=1 max=1000 example=20
// param: offset int optional default=0 min=0 max=100000 example=0
// Each name is found through the full-text index; a name that matches no entity leaves no paper.
// Candidates come from the two names with the fewest mentions (relationship counts, read in constant
// time), the cheaper of two ways: when the second-rarest has fewer mentions than the rarest's papers
// have mentions in all (rarest count x mentions per paper), expand both and hash-join on the paper
// (`USING JOIN ON p`: at 100k abstracts, 7.5k + 15k relationships instead of checking 7.5k papers'
// 57k mentions; not when the two share an entity: one relationship cannot be both pattern steps);
// otherwise expand the rarest only (a rare name next to a popular one costs its few
// papers, not the popular one's 15k). Every candidate is then checked against the names not yet
// checked. MENTIONS always go from a Paper (the store deletes any other), so `p` needs no label check.
UNWIND range(0, size($names_keys) - 1) AS i
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $names_queries[i]) YIELD node AS e
WHERE $names_keys[i] IN e.keys
WITH i, collect(e) AS named, sum(COUNT { (e)<-[:MENTIONS]-() }) AS mentions
ORDER BY mentions, i
WITH collect(named) AS sets, collect(mentions) AS sizes
WHERE size(sets) = size($names_keys)
WITH sets, size(sets) > 1 AND none(x IN sets[0] WHERE x IN sets[1])
           AND sizes[1] * COUNT { MATCH (p:Paper) } < sizes[0] * COUNT { ()-[:MENTIONS]->() } AS join
WITH sets, CASE WHEN join THEN 2 ELSE 1 END AS checked, CASE WHEN join
  THEN COLLECT { UNWIND sets[0] AS a UNWIND sets[1] AS b
                 MATCH (a)<-[:MENTIONS]-(p)-[:MENTIONS]->(b) USING JOIN ON p
                 RETURN DISTINCT p }
  ELSE COLLECT { UNWIND sets[0] AS a MATCH (a)<-[:MENTIONS]-(p) RETURN DISTINCT p }
  END AS candidates
UNWIND candidates AS p
WITH p, sets, checked
WHERE all(named IN sets[checked..] WHERE EXISTS { MATCH (p)-[:MENTIONS]->(x) WHERE x IN named })
RETURN p.id AS id, p.title AS title, p.year AS year
ORDER BY id
SKIP $offset
LIMIT $limit
