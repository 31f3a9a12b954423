// name: entity_search
// description: Entities whose name or an alias contains the text (case-, dash- and space-insensitive), most-mentioned first.
// param: q search required example=policy optimization
// param: type entity_type optional example=Method
// param: limit int optional default=20 min=1 max=1000 example=10
// param: offset int optional default=0 min=0 max=100000 example=0
// Matches on `keys` (the compact key of every alias), so `policy-opt`, `Policy Opt` and `policyopt`
// all find "Group Relative Policy Optimization". On Neo4j the match is `keys_text` (the keys joined by
// spaces, which no key holds, so it contains $q_key exactly when a key does) through the trigram TEXT
// index `paperkg_entity_keys_text` (graph/schema.cypher): posting lists of the fragment's trigrams,
// not a scan of every entity nor a wildcard walk of every key.
MATCH (e:Entity)
WHERE e.keys_text CONTAINS $q_key
  AND ($type IS NULL OR e.type = $type)
RETURN e.id AS id, e.name AS name, e.type AS type, e.aliases AS aliases, e.paper_count AS papers
ORDER BY papers DESC, name, id
SKIP $offset
LIMIT $limit
