// The entities a batch of papers mentions: whose co-mention figures a change to those papers can
// change (read before and after a delta is written).
UNWIND $ids AS id
MATCH (:Paper {id: id})-[:MENTIONS]->(e:Entity)
RETURN collect(DISTINCT e.id) AS ids
