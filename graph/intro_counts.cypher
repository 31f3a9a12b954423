// Exact introduction figures of a batch of [collection, entity] pairs: how many papers of the
// collection introduce the entity, and the smallest of their ids; walked from the entity's own
// introductions (few), not from the collection's papers (many).
UNWIND $pairs AS pair
OPTIONAL MATCH (:Entity {id: pair[1]})<-[:INTRODUCES]-(p:Paper)-[:IN_COLLECTION]->(:Collection {id: pair[0]})
WITH pair, count(p) AS papers, min(p.id) AS first
RETURN collect([pair[0], pair[1], papers, first]) AS rows
