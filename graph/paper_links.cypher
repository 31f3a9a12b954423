// What a batch of papers mentions, introduces and belongs to (entity and collection ids), read
// before and after a delta is written: the figures change by the difference
// (graph/neo4j_figures.py). A few relationships per paper, whatever the size of the graph.
UNWIND $ids AS id
MATCH (p:Paper {id: id})
RETURN collect([id, [(p)-[:MENTIONS]->(e:Entity) | e.id], [(p)-[:INTRODUCES]->(e:Entity) | e.id],
                [(p)-[:IN_COLLECTION]->(c:Collection) | c.id]]) AS rows
