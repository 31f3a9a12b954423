// Create one batch of relationships, for a full save into a database that held no paperkg node
// before it (so none of these relationships can exist yet): CREATE instead of MERGE skips looking
// for an existing relationship, which on a popular entity means scanning thousands. Rows come
// grouped by source node (`row.source` once, its relationships in `row.rels`), so the source is
// looked up once per group; the store partitions groups so that concurrent batches never share a
// source node, and sorts each group's targets, so lock order is the same everywhere (no deadlock).
UNWIND $rows AS row
MATCH (a:{source_label} {id: row.source})
UNWIND row.rels AS rel
MATCH (b:{target_label} {id: rel.target})
CREATE (a)-[r:{type}]->(b)
SET r = rel.props
RETURN count(*) AS written
