// The nodes of one label with their properties. The map projection blanks the store's internal
// properties (`source_json`, the corpus entry kept on Paper nodes and most of the bytes, and the
// precomputed figures, see neo4j_store.FIGURE_PROPS) so they never cross the wire; the store drops
// the nulls. Stored properties are never null, so no real property is lost.
MATCH (n:{label})
RETURN n.id AS id, n {.*, source_json: null, _co_ids: null, _co_names: null, _co_types: null,
       _co_papers: null, _intro_ids: null, _intro_names: null, _intro_types: null, _intro_papers: null,
       _intro_paper: null} AS props
