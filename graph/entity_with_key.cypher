// An entity one of whose keys is $key, found through the exact-term full-text index over `keys`
// ($query: the key as one term, `params.fulltext_term`): whether a name names anything, asked by the
// query runner only when a catalog query found no rows.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $query) YIELD node AS e
WHERE $key IN e.keys
RETURN e.id AS id
LIMIT 1
