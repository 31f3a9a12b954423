// Every entity and collection id, for a full save that computes all figures.
MATCH (n:Entity|Collection)
RETURN n.id AS id
ORDER BY id
