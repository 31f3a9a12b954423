// The collections a batch of papers belongs to: whose introduction figures a change to those
// papers can change.
UNWIND $ids AS id
MATCH (:Paper {id: id})-[:IN_COLLECTION]->(c:Collection)
RETURN collect(DISTINCT c.id) AS ids
