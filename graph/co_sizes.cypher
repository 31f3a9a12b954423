// How many co-mention entries each [entity, type] pair of a batch keeps (a type holding $limit is
// cut: graph/neo4j_figures.py) and the smallest of their counts (an outsider counting less cannot
// enter a cut type): read from the rank index (of, co_type, co_papers), not from the entries.
UNWIND $keys AS key
CALL (key) {
  MATCH (c:PaperkgCo)
  WHERE c.of = key[0] AND c.co_type = key[1] AND c.co_papers IS NOT NULL
  RETURN count(c) AS kept, min(c.co_papers) AS least
}
RETURN collect([key[0], key[1], kept, least]) AS rows
