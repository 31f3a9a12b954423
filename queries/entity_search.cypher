// name: entity_search
// description: Entities whose name or an alias contains the text (case-, dash- and space-insensitive), most-mentioned first.
// param: q search required example=policy optimization
// param: type entity_type optional example=Method
// param: limit int optional default=20 min=1 max=1000 example=10
// param: offset int optional default=0 min=0 max=100000 example=0
// Matches on `keys` (the compact key of every alias), so `policy-opt`, `Policy Opt` and `policyopt`
// all find "Group Relative Policy Optimization". The candidates come from the full-text index over
// `keys` (`paperkg_entity_keys`, one exact term per key) with the wildcard query `*<q_key>*` (see
// queries/params.py `fulltext_contains`), which Lucene answers from its term dictionary instead of a
// scan of every entity; the CONTAINS re-check keeps the result exactly the scan's.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $q_query) YIELD node AS e
WHERE ($type IS NULL OR e.type = $type)
  AND any(k IN e.keys WHERE k CONTAINS $q_key)
RETURN e.id AS id, e.name AS name, e.type AS type, e.aliases AS aliases, e.paper_count AS papers
ORDER BY papers DESC, name, id
SKIP $offset
LIMIT $limit
