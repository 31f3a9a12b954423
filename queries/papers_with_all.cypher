// name: papers_with_all
// description: Papers that mention every one of a list of entities (each under any of its names or aliases).
// param: names entities required example=["RLHF", "PPO"]
// Starts from the papers of the first name, then keeps those that mention all the others too.
MATCH (e0:Method|Model|Dataset|Benchmark|Metric|Task)
WHERE $names_keys[0] IN e0.keys
MATCH (p:Paper)-[:MENTIONS]->(e0)
WITH DISTINCT p
WHERE all(k IN $names_keys WHERE EXISTS {
  MATCH (p)-[:MENTIONS]->(e:Method|Model|Dataset|Benchmark|Metric|Task)
  WHERE k IN e.keys
})
RETURN p.id AS id, p.title AS title, p.year AS year
ORDER BY id
