// The nodes of one label with their properties. The map projection blanks `source_json` (the corpus
// entry kept on Paper nodes, most of the bytes) so it never crosses the wire; the store drops the
// null. Stored properties are never null, so no real property is lost.
MATCH (n:{label})
RETURN n.id AS id, n {.*, source_json: null} AS props
