// The co-mention figures of a batch of entities, what `queries/cooccurring.cypher` reads: for entity
// E, every other entity mentioned by a paper that mentions E, with the number of such papers. Kept:
// the first $limit of each type in that query's order (papers desc, name, id); their union holds the
// first $limit overall too (an entity in the overall top has fewer than $limit of its own type before
// it), so the first `limit` rows with or without a type filter are exact. One internal `PaperkgCo`
// node per kept entry (not a list on one node per entity: a delta then writes the entries it changes,
// not an entity's whole list; see graph/neo4j_figures.py), never connected to the graph: a user
// browsing it sees domain nodes and properties only. (Names and types are always set by the build;
// '' stands in for a missing one, as on the figures' other side.)
UNWIND $ids AS eid
MATCH (e:Entity {id: eid})
CALL (e) {
  MATCH (e)<-[:MENTIONS]-(:Paper)-[:MENTIONS]->(o:Entity)
  WHERE o <> e
  WITH o, count(*) AS papers, coalesce(o.name, '') AS name, coalesce(o.type, '') AS type
  ORDER BY papers DESC, name, o.id
  WITH type, collect([o.id, name, papers])[..$limit] AS top
  UNWIND top AS row
  CREATE (:PaperkgCo {of: e.id, other: row[0], co_name: row[1], co_type: type, co_papers: row[2]})
  RETURN count(*) AS entries
}
RETURN sum(entries) AS written
