// Entities saved by a paperkg older than the TEXT index `paperkg_entity_keys_text` get the string it
// indexes, `keys_text` (their keys joined by spaces, as graph/neo4j_cypher.py `stored_props` writes
// it), so entity_search finds them before the next build rewrites them. Batched: a large store's
// entities in transactions of 10,000, in the implicit transaction `CALL ... IN TRANSACTIONS` needs.
MATCH (e:Entity)
WHERE e.keys_text IS NULL AND e.keys IS NOT NULL AND size(e.keys) > 0
CALL (e) {
  SET e.keys_text = reduce(s = head(e.keys), k IN tail(e.keys) | s + ' ' + k)
} IN TRANSACTIONS OF 10000 ROWS
