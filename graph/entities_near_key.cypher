// The entities whose keys are within two edits of a name's key ($query: Lucene's fuzzy query on the
// exact-term index `paperkg_entity_keys`, `params.fuzzy_term`), best matches first: the candidates
// `queries.suggest.rank` orders into "did you mean" suggestions for a name no entity has.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $query) YIELD node AS e, score
RETURN e.keys AS keys, e.name AS name, e.paper_count AS papers, e.id AS id
ORDER BY score DESC, id
LIMIT 200
