// Drop the figures of a batch of entities and collections before they are computed again (or
// because the node is gone): a collection's `PaperkgFigures` node, an entity's `PaperkgCo` entries.
UNWIND $ids AS id
CALL (id) {
  MATCH (f:PaperkgFigures {of: id})
  DELETE f
}
CALL (id) {
  MATCH (c:PaperkgCo)
  WHERE c.of = id AND c.co_type IS NOT NULL AND c.co_papers IS NOT NULL
  DELETE c
}
RETURN count(*) AS deleted
