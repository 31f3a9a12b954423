// Delete one batch of relationships of one type by their endpoints (a delta's deletions): every
// relationship of the type between the two nodes goes (duplicates too). Placeholders are checked
// against the closed sets.
UNWIND $rows AS row
MATCH (a:{source_label} {id: row.source})-[r:{type}]->(b:{target_label} {id: row.target})
DELETE r
RETURN count(*) AS written
