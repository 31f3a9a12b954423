// Every stored node of one label with its id, to find the stale ones (not in the new graph).
MATCH (n:{label})
RETURN elementId(n) AS element_id, n.id AS id
