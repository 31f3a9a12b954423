// Whose figures show a (renamed) entity: the entities co-mentioned with it, and the collections
// whose papers introduce it.
UNWIND $ids AS id
MATCH (x:Entity {id: id})
WITH collect(x) AS xs
RETURN COLLECT { UNWIND xs AS x MATCH (x)<-[:MENTIONS]-(:Paper)-[:MENTIONS]->(o:Entity)
                 WHERE o <> x RETURN DISTINCT o.id } AS entities,
       COLLECT { UNWIND xs AS x MATCH (x)<-[:INTRODUCES]-(:Paper)-[:IN_COLLECTION]->(c:Collection)
                 RETURN DISTINCT c.id } AS collections
