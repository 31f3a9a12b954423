// Create one batch of nodes of one label, for a full save into a database that holds no paperkg
// node (checked from the count store first): no index lookup per row, unlike MERGE. {label} and
// {entity_label} as in merge_nodes.cypher; `row.props` carries the `id`. Returns each node's element
// id, so the relationships of the same save find their endpoints by element id (a direct record
// read) instead of a uniqueness-index seek per endpoint.
UNWIND $rows AS row
CREATE (n:{label}{entity_label})
SET n = row.props
RETURN count(*) AS written, collect([row.id, elementId(n)]) AS ids
