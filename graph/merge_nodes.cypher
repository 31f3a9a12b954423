// Upsert one batch of nodes of one label. {label} is substituted by Neo4jStore only after checking
// it against NODE_LABELS (labels cannot be parameters). `SET n = row.props` replaces every property,
// because the graph is re-derived from the whole corpus on each build: the stored node must equal it.
UNWIND $rows AS row
MERGE (n:{label} {id: row.id})
SET n = row.props
RETURN count(*) AS written
