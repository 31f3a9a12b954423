// name: introduced_in
// description: Entities that papers of a collection introduce, by number of introducing papers.
// param: collection collection required example=NeurIPS 2026 Papers
// param: limit int optional default=100 min=1 max=1000 example=20
// The collection is found by id (name -> `collection:<slug>`), so the lookup is an index seek;
// paper = the smallest id among the introducing papers.
MATCH (c:Collection {id: $collection_id})<-[:IN_COLLECTION]-(p:Paper)-[:INTRODUCES]->(e)
RETURN e.id AS id, e.name AS name, e.type AS type, count(DISTINCT p) AS papers, min(p.id) AS paper
ORDER BY papers DESC, name, id
LIMIT $limit
