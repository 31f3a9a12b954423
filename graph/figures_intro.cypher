// The introduction figures of a batch of collections, what `queries/introduced_in.cypher` reads:
// every entity a paper of the collection introduces, with the number of introducing papers and the
// smallest of their ids, first $limit in that query's order (papers desc, name, id). On an internal
// `PaperkgFigures` node keyed by the collection id (see figures_co.cypher).
UNWIND $ids AS cid
MATCH (c:Collection {id: cid})
CALL (c) {
  MATCH (c)<-[:IN_COLLECTION]-(p:Paper)-[:INTRODUCES]->(o:Entity)
  WITH o, count(*) AS papers, min(p.id) AS first, coalesce(o.name, '') AS name,
       coalesce(o.type, '') AS type
  ORDER BY papers DESC, name, o.id
  LIMIT $limit
  RETURN collect([o.id, name, type, papers, first]) AS rows
}
WITH cid, rows
WHERE size(rows) > 0
CREATE (:PaperkgFigures {of: cid, intro_ids: [r IN rows | r[0]], intro_names: [r IN rows | r[1]],
                         intro_types: [r IN rows | r[2]], intro_papers: [r IN rows | r[3]],
                         intro_paper: [r IN rows | r[4]]})
RETURN count(*) AS written
