// The co-mention figures of a batch of entities, what `queries/cooccurring.cypher` reads: for entity
// E, every other entity mentioned by a paper that mentions E, with the number of such papers, in
// that query's order (papers desc, name, id). Kept: the first $limit of each type; their union holds
// the first $limit overall too (an entity in the overall top has fewer than $limit of its own type
// before it), so the first `limit` rows with or without a type filter are exact. Stored on an
// internal `PaperkgFigures` node keyed by the entity id, not on the entity: a user browsing the
// graph sees domain properties only. An entity co-mentioned with nothing gets no node. (Names and
// types are always set by the build; '' stands in for a missing one, as lists cannot hold nulls.)
UNWIND $ids AS eid
MATCH (e:Entity {id: eid})
CALL (e) {
  MATCH (e)<-[:MENTIONS]-(:Paper)-[:MENTIONS]->(o:Entity)
  WHERE o <> e
  WITH o, count(*) AS papers, coalesce(o.name, '') AS name, coalesce(o.type, '') AS type
  ORDER BY papers DESC, name, o.id
  WITH type, collect([o.id, name, type, papers])[..$limit] AS top
  UNWIND top AS row
  WITH row
  ORDER BY row[3] DESC, row[1], row[0]
  RETURN collect(row) AS rows
}
WITH eid, rows
WHERE size(rows) > 0
CREATE (:PaperkgFigures {of: eid, co_ids: [r IN rows | r[0]], co_names: [r IN rows | r[1]],
                         co_types: [r IN rows | r[2]], co_papers: [r IN rows | r[3]]})
RETURN count(*) AS written
