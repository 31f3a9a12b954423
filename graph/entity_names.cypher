// Stored name, type and paper count of a batch of entities: to find the ones a delta renames or
// retypes (the figures of everything co-mentioned with them show their name and type), and to order
// and walk the entries of the figures a delta changes.
UNWIND $ids AS id
MATCH (e:Entity {id: id})
RETURN collect([e.id, e.name, e.type, e.paper_count]) AS rows
