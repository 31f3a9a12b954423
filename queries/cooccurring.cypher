// name: cooccurring
// description: Entities most often mentioned in the same papers as an entity, optionally of one type.
// param: name entity required example=RLHF
// param: type entity_type optional example=Method
// param: limit int optional default=20 min=1 max=1000 example=10
// papers = number of papers mentioning both.
// Why it reads lists instead of walking the graph: the most-mentioned entity at 100k abstracts has
// 14.7k papers and 90k co-mentions, too many relationships to walk per call. `Neo4jStore.save`
// derives each entity's co-mentions from the graph it saves and stores them on the entity as
// parallel lists in this query's order (papers desc, name, id), the first 1000 overall plus the
// first 1000 of each type, so the first `$limit` (at most 1000) with or without a type filter are
// exact (see graph/neo4j_store.py `figures`); every save rewrites them with the node itself. The lists
// are read once per entity (WITH), not once per row.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS e
WHERE $name_key IN e.keys
WITH e.id AS entity, coalesce(e._co_ids, []) AS ids, e._co_names AS names, e._co_types AS types,
     e._co_papers AS counts
UNWIND [i IN range(0, size(ids) - 1) WHERE $type IS NULL OR types[i] = $type][..$limit] AS i
RETURN entity, ids[i] AS id, names[i] AS name, types[i] AS type, counts[i] AS papers
ORDER BY papers DESC, name, id, entity
LIMIT $limit
