// Stored name and type of a batch of entities, to find the ones a delta renames or retypes (the
// figures of everything co-mentioned with them show their name and type).
UNWIND $ids AS id
MATCH (e:Entity {id: id})
RETURN collect([e.id, e.name, e.type]) AS rows
