// The stored co-mention entries of a batch of [entity, other] pairs (the ones that exist), for a
// delta that changes them (graph/neo4j_figures.py).
UNWIND $pairs AS pair
MATCH (c:PaperkgCo {of: pair[0], other: pair[1]})
RETURN collect([c.of, c.other, c.co_name, c.co_type, c.co_papers]) AS rows
