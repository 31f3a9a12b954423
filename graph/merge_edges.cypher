// Upsert one batch of relationships of one type between nodes of one source and one target label
// (so both endpoint lookups use the `id` uniqueness index). {type}, {source_label} and
// {target_label} are substituted only after checking them against EDGE_TYPES / NODE_LABELS.
// The returned count (distinct endpoint pairs: MERGE returns every duplicate a crash or a concurrent
// writer left behind) lets the store notice endpoints that vanished (a concurrent delete).
UNWIND $rows AS row
MATCH (a:{source_label} {id: row.source})
MATCH (b:{target_label} {id: row.target})
MERGE (a)-[r:{type}]->(b)
SET r = row.props
RETURN count(DISTINCT [row.source, row.target]) AS written
