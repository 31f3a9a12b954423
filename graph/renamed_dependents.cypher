// For each renamed (or retyped) entity of a delta, whose figures show it: the entities co-mentioned
// with it, and the collections whose papers introduce it.
UNWIND $ids AS id
MATCH (x:Entity {id: id})
RETURN collect([id,
                COLLECT { MATCH (x)<-[:MENTIONS]-(:Paper)-[:MENTIONS]->(o:Entity) WHERE o <> x
                          RETURN DISTINCT o.id },
                COLLECT { MATCH (x)<-[:INTRODUCES]-(:Paper)-[:IN_COLLECTION]->(c:Collection)
                          RETURN DISTINCT c.id }]) AS rows
