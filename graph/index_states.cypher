// Name and state of every index (constraints are backed by indexes of the same name): what
// Neo4jStore.ensure_ready compares with the names schema.cypher creates.
SHOW INDEXES YIELD name, state
RETURN name, state
