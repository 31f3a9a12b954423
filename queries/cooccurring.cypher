// name: cooccurring
// description: Entities most often mentioned in the same papers as an entity, optionally of one type.
// param: name entity required example=RLHF
// param: type entity_type optional example=Method
// param: limit int optional default=20 min=1 max=1000 example=10
// papers = number of papers mentioning both.
// Why it reads lists instead of walking the graph: the most-mentioned entity at 100k abstracts has
// 14.7k papers and 90k co-mentions, too many relationships to walk per call. Every save into Neo4j
// computes the co-mentions of each entity it touches (graph/figures_co.cypher) and stores them on an
// internal `PaperkgFigures` node keyed by the entity id, as parallel lists in this query's order
// (papers desc, name, id), the first 1000 of each type (which hold the first 1000 overall), so the
// first `$limit` (at most 1000) with or without a type filter are exact. The lists are read once per
// entity (WITH), not once per row.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS e
WHERE $name_key IN e.keys
OPTIONAL MATCH (f:PaperkgFigures {of: e.id})
WITH e.id AS entity, coalesce(f.co_ids, []) AS ids, f.co_names AS names, f.co_types AS types,
     f.co_papers AS counts
UNWIND [i IN range(0, size(ids) - 1) WHERE $type IS NULL OR types[i] = $type][..$limit] AS i
RETURN entity, ids[i] AS id, names[i] AS name, types[i] AS type, counts[i] AS papers
ORDER BY papers DESC, name, id, entity
LIMIT $limit
