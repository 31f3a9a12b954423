// The nodes of one label with all their properties (source_json is dropped by the store).
MATCH (n:{label})
RETURN n.id AS id, properties(n) AS props
