// Create one batch of relationships, for a full save into a database that held no paperkg node
// before it (so none of these relationships can exist yet): CREATE instead of MERGE skips looking
// for an existing relationship, which on a popular entity means scanning thousands. Endpoints are
// the element ids create_nodes.cypher returned in this save: a seek by element id reads the node
// record directly (measured: ~40% less engine CPU per relationship than two `id` index seeks); the
// label check keeps a foreign node out. Rows come grouped by source node (`row.source` once, its
// relationships in `row.rels`), so the source is looked up once per group; the store partitions
// groups so that concurrent batches never share a source node, and sorts each group's targets, so
// lock order is the same everywhere (no deadlock).
UNWIND $rows AS row
MATCH (a:{source_label}) WHERE elementId(a) = row.source
UNWIND row.rels AS rel
MATCH (b:{target_label}) WHERE elementId(b) = rel.target
CREATE (a)-[r:{type}]->(b)
SET r = rel.props
RETURN count(*) AS written
