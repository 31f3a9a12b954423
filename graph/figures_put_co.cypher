// Replace the co-mention figures of a batch of entities with lists a delta produced (same shape
// and order as figures_co.cypher writes).
UNWIND $rows AS row
MERGE (f:PaperkgFigures {of: row.of})
SET f.co_ids = row.ids, f.co_names = row.names, f.co_types = row.types, f.co_papers = row.papers
RETURN count(*) AS written
