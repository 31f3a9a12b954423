// Stored name and type of a batch of entities, and how many papers mention each (its MENTIONS
// degree, read from the node's relationship counts): to find the ones a delta renames or retypes
// (the figures of everything co-mentioned with them show their name and type), to order and walk
// the entries of the figures a delta changes, and to bound an outsider's co-mention count.
UNWIND $ids AS id
MATCH (e:Entity {id: id})
RETURN collect([e.id, e.name, e.type, COUNT { (e)<-[:MENTIONS]-() }]) AS rows
