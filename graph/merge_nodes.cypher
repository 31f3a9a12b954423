// Upsert one batch of nodes of one label. {label} is substituted by Neo4jStore only after checking
// it against NODE_LABELS (labels cannot be parameters); {entity_label} is `:Entity` for the entity
// labels (every entity also carries the shared label `Entity`, as Neo4j users expect), else empty.
// `SET n = row.props` replaces every property: a node in a delta is the node whole.
UNWIND $rows AS row
MERGE (n:{label} {id: row.id})
SET n = row.props, n:{label}{entity_label}
RETURN count(*) AS written
