// The nodes of one label with their properties. The map projection blanks `source_json` (the corpus
// entry a database written by an older paperkg kept on Paper nodes) so it never crosses the wire;
// the store drops the nulls. Stored properties are never null, so no real property is lost.
MATCH (n:{label})
RETURN n.id AS id, n {.*, source_json: null} AS props
