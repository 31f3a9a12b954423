// Delete one batch of nodes of one label by id, with their relationships (a delta's deletions).
// {label} is checked against NODE_LABELS.
UNWIND $rows AS row
MATCH (n:{label} {id: row.id})
DETACH DELETE n
RETURN count(*) AS written
