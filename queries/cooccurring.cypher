// name: cooccurring
// description: Entities most often mentioned in the same papers as an entity, optionally of one type.
// param: name entity required example=RLHF
// param: type entity_type optional example=Method
// param: limit int optional default=20 min=1 max=1000 example=10
// papers = number of papers mentioning both.
// Why it reads precomputed entries instead of walking the graph: the most-mentioned entity at 100k
// abstracts has 14.7k papers and 90k co-mentions, too many relationships to walk per call. Every
// save into Neo4j keeps, per entity, the first 1000 co-mentioned entities of each type (which hold
// the first 1000 overall) as internal `PaperkgCo` entries (graph/figures_co.cypher), so the first
// `$limit` (at most 1000) with or without a type filter are exact. Each entity's first `$limit` are
// read in count order from an index (of, co_papers), or (of, co_type, co_papers) with a type, so a
// popular entity's 2,600 entries are not all read and sorted for 20 rows.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS e
WHERE $name_key IN e.keys
WITH e, CASE WHEN $type IS NULL
  THEN COLLECT { MATCH (c:PaperkgCo) WHERE c.of = e.id AND c.co_papers IS NOT NULL
                 RETURN c ORDER BY c.of, c.co_papers DESC, c.co_name, c.other LIMIT $limit }
  ELSE COLLECT { MATCH (c:PaperkgCo) WHERE c.of = e.id AND c.co_type = $type AND c.co_papers IS NOT NULL
                 RETURN c ORDER BY c.of, c.co_type, c.co_papers DESC, c.co_name, c.other LIMIT $limit }
  END AS entries
UNWIND entries AS c
RETURN e.id AS entity, c.other AS id, c.co_name AS name, c.co_type AS type, c.co_papers AS papers
ORDER BY papers DESC, name, id, entity
LIMIT $limit
