// Delete the last $excess co-mention entries of each [entity, type] pair of a batch in cooccurring's
// order (papers desc, name, other id): after a delta added entries to a type that then holds more
// than the limit. Ordered by the rank index's own properties first (of and type are fixed), so the
// index gives the entries in count order and only the lowest counts are read and sorted by name (a
// partial top), not every entry of the type.
UNWIND $keys AS key
CALL (key) {
  MATCH (c:PaperkgCo)
  WHERE c.of = key[0] AND c.co_type = key[1] AND c.co_papers IS NOT NULL
  WITH c
  ORDER BY c.of, c.co_type, c.co_papers, c.co_name DESC, c.other DESC
  LIMIT $excess
  DELETE c
  RETURN count(*) AS dropped
}
RETURN sum(dropped) AS deleted
