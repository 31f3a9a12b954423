// One relationship per statement: the naive load path, kept only for benchmarks/neo4j_load.py to
// compare against merge_edges.cypher. Placeholders are filled from the closed sets, as for the others.
MATCH (a:{source_label} {id: $source})
MATCH (b:{target_label} {id: $target})
MERGE (a)-[r:{type}]->(b)
SET r = $props
