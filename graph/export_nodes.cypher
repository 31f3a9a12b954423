// The nodes of one label with their properties (the store drops the Papers' `caption`).
MATCH (n:{label})
RETURN n.id AS id, properties(n) AS props
