// The corpus entries kept on Paper nodes (JSON of corpus.entry_to_dict) for the next build, until the
// build state moves to the store directory.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})
SET p.source_json = row.json
